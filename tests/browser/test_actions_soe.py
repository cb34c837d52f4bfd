"""Firefight actions, Stars of Empire: the Will roll from the Firefight sheet tab ends Pre-Trauma,
delayed-injury buttons per pending class, and Pre-Trauma cleared when combat ends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Table, open_table

OFFICER = "Officer Vera Lind"
PRETRAUMA_CLEARED = "(n) => game.actors.getName(n).flags.firefight.soe.pretrauma === 0"


@pytest.fixture(scope="module")
def soe_table(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "soe", "soe-actors")
    yield t
    t.context.close()


def test_will_roll_from_the_sheet_ends_pretrauma(soe_table: Table) -> None:
    page = soe_table.page
    page.evaluate("""async (n) => {
        await game.settings.set('firefight', 'soe.pretrauma', true);
        await game.actors.getName(n).update({'flags.firefight.soe.pretrauma': -3,
            'flags.firefight.soe.will': 100,
            'flags.firefight.soe.delayed_injuries': ['minor', 'severe']});
        game.actors.getName(n).sheet.render({force: true});
    }""", OFFICER)
    sheet = page.locator("section.actor-sheet", has_text=OFFICER).last
    sheet.locator("nav .firefight-tab").click()
    actions = sheet.locator(".ff-sheet-actions")
    assert actions.locator('[data-firefight-act="will_check"]').inner_text().endswith("(-3)")
    # One delayed-injury button per pending class.
    assert actions.locator('[data-firefight-act="delayed_injury_check"]').count() == 2
    soe_table.shot("40-soe-sheet-actions")
    actions.locator('[data-firefight-act="will_check"]').click()
    page.wait_for_function(PRETRAUMA_CLEARED, arg=OFFICER, timeout=20000)
    card = page.locator("#chat-log .chat-message").last
    assert "Will" in card.inner_text()
    assert page.evaluate("() => !!game.messages.contents.at(-1).flags.firefight.applied")
    assert not soe_table.errors


def test_pretrauma_ends_when_combat_ends(soe_table: Table) -> None:
    page = soe_table.page
    page.evaluate("""async (n) => {
        const actor = game.actors.getName(n);
        await actor.update({'flags.firefight.soe.pretrauma': -2});
        // The hook Foundry fires when a combat is deleted; its combatants name their actors.
        Hooks.callAll('deleteCombat', {combatants: [{actor, actorId: actor.id}]}, {}, game.user.id);
    }""", OFFICER)
    page.wait_for_function(PRETRAUMA_CLEARED, arg=OFFICER, timeout=20000)
