"""A ruleset's declared follow-up at the combat tracker (canvas/turns.mjs): a soe character left
at 0 HP ("dying") dies when its next turn starts, unless healed by then. The GM advances the
tracker by clicking; only the active GM's client acts, once per turn change, even after a
reload mid-turn; the death is a card the GM can undo."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, Table, contexts_of

RIFLEMAN = "Rifleman Aldo Ferri"
OFFICER = "Officer Vera Lind"
STATUSES_JS = "(name) => [...game.actors.getName(name).statuses]"
NOTES_JS = """() => game.messages.contents.filter(m => m.flags.firefight?.result?.followUp)
    .map(m => ({id: m.id, name: m.flags.firefight.result.request.target.name,
                text: m.content}))"""
# The actor's state: the last state its results left (flags.firefight.conditions).
STATE_JS = """(name) => (game.actors.getName(name).flags.firefight.conditions ?? [])
    .filter(c => c.kind === 'state').at(-1)?.value ?? null"""
PLACED_ACTOR_JS = "(n) => canvas.tokens.placeables.find(t => t.name === n).actor"
CURRENT_JS = "() => game.combat?.combatant?.name ?? null"
MARK_JS = "() => game.combat?.flags.firefight?.turnEvents ?? null"


@pytest.fixture(scope="module")
def soe(server: str, browser: Any) -> Iterator[Table]:
    context = contexts_of(browser).open(viewport={"width": 1440, "height": 860})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(server)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()


def _next_until(page: Any, name: str) -> None:
    """Click the tracker's Next until `name` has the turn (at most one round)."""
    for _ in range(6):
        if page.evaluate(CURRENT_JS) == name:
            return
        page.click('#combat-panel [data-action="nextTurn"]')
        page.wait_for_timeout(200)
    assert page.evaluate(CURRENT_JS) == name


def _settle(page: Any) -> None:
    """Wait until the active GM's turn events have run for the current moment."""
    page.wait_for_function("""() => {
        const m = game.combat?.flags.firefight?.turnEvents;
        return m && m.round === game.combat.round && m.turn === game.combat.turn;
    }""", timeout=30000)
    page.wait_for_timeout(500)


def test_dying_dies_at_its_next_turn_unless_healed(soe: Table) -> None:
    page = soe.page
    # Both left at 0 HP by a shot ("dying"); the officer is healed to 3 HP before her turn.
    page.evaluate("""async () => {
        for (const [n, hp] of [['Rifleman Aldo Ferri', 0], ['Officer Vera Lind', 3]]) {
            await game.actors.getName(n).update({'flags.firefight.soe.hp': hp,
                'flags.firefight.conditions': [{kind: 'state', value: 'dying'}]});
        }
    }""")
    page.click('#combat-panel [data-action="create"]')
    page.click('#combat-panel [data-action="startCombat"]')
    _settle(page)
    assert page.evaluate(NOTES_JS) == []
    _next_until(page, OFFICER)
    _settle(page)
    assert page.evaluate(STATE_JS, OFFICER) == "dying"  # healed: the follow-up skips her
    assert page.evaluate(NOTES_JS) == []
    _next_until(page, RIFLEMAN)
    page.wait_for_function(f"() => ({NOTES_JS})().length === 1", timeout=30000)
    page.wait_for_function(f"(n) => ({STATE_JS})(n) === 'dead'", arg=RIFLEMAN, timeout=30000)
    note = page.evaluate(NOTES_JS)[0]
    assert note["name"] == RIFLEMAN
    assert "dies this turn" in note["text"]
    assert "dead" in page.evaluate(STATUSES_JS, RIFLEMAN)
    assert soe.token(RIFLEMAN).locator('.status[data-status="dead"]').count() == 1
    # Applied like any result: the card shows it, and the GM can undo it.
    card = page.locator(f'[data-message-id="{note["id"]}"]')
    card.locator('[data-firefight-action="undo-effects"]').wait_for(timeout=10000)
    soe.shot("followup-01-dead")


def test_undone_then_a_reload_mid_turn_runs_nothing_twice(soe: Table) -> None:
    page = soe.page
    note = page.evaluate(NOTES_JS)[0]
    # The GM undoes the death: dying again, still on the rifleman's turn.
    page.locator(f'[data-message-id="{note["id"]}"] [data-firefight-action="undo-effects"]').click()
    page.wait_for_function(f"(n) => ({STATE_JS})(n) === 'dying'", arg=RIFLEMAN, timeout=30000)
    assert "dead" not in page.evaluate(STATUSES_JS, RIFLEMAN)
    mark = page.evaluate(MARK_JS)
    assert mark["combatantId"] == page.evaluate("() => game.combat.combatant.id")
    # A player's page keeps the world while the GM reloads (the sandbox's world is its pages').
    player = soe.context.new_page()
    player.goto(soe.base + "?user=Player%201")
    player.wait_for_function("() => game.ready === true", timeout=30000)
    try:
        page.reload()
        page.wait_for_function("() => game.ready === true", timeout=30000)
        page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
        page.wait_for_timeout(2000)
        # The turn's start was handled before the reload: it is not run again.
        assert page.evaluate(CURRENT_JS) == RIFLEMAN
        assert page.evaluate(MARK_JS) == mark
        assert len(page.evaluate(NOTES_JS)) == 1
        assert page.evaluate(STATE_JS, RIFLEMAN) == "dying"
    finally:
        player.close()


def test_the_next_turn_follows_up_again(soe: Table) -> None:
    page = soe.page
    page.click('#combat-panel [data-action="nextTurn"]')
    page.wait_for_function("() => game.combat.round === 2", timeout=30000)
    _next_until(page, RIFLEMAN)
    page.wait_for_function(f"() => ({NOTES_JS})().length === 2", timeout=30000)
    page.wait_for_function(f"(n) => ({STATE_JS})(n) === 'dead'", arg=RIFLEMAN, timeout=30000)
    assert soe.errors == []


def test_a_players_end_turn_is_followed_up_by_the_gms_client_alone(soe: Table) -> None:
    """Player 1 owns the rifleman: their End Turn moves the tracker to the next round, whose first
    turn is the rhino's, left at 0 HP; the active GM's client follows it up, once, as the GM."""
    page = soe.page
    rhino = "Lesser Venusian Rhino"
    token_actor = PLACED_ACTOR_JS
    page.evaluate(f"""(n) => ({token_actor})(n).update({{'flags.firefight.soe.hp': 0,
        'flags.firefight.conditions': [{{kind: 'state', value: 'dying'}}]}})""", rhino)
    assert page.evaluate(CURRENT_JS) == RIFLEMAN
    notes = len(page.evaluate(NOTES_JS))
    player = soe.context.new_page()
    player.goto(soe.base + "?user=Player%201")
    player.wait_for_function("() => game.ready === true", timeout=30000)
    try:
        end_turn = player.locator('#combat-panel [data-action="nextTurn"]')
        assert end_turn.inner_text().startswith("End Turn")
        end_turn.click()
        page.wait_for_function(f"() => ({NOTES_JS})().length === {notes + 1}", timeout=30000)
        page.wait_for_function(f"""(n) => (({token_actor})(n).flags.firefight.conditions ?? [])
            .filter(c => c.kind === 'state').at(-1)?.value === 'dead'""", arg=rhino,
                               timeout=30000)
        note = page.evaluate("""() => game.messages.contents
            .filter(m => m.flags.firefight?.result?.followUp).at(-1)""")
        author = page.evaluate("""() => game.messages.contents
            .filter(m => m.flags.firefight?.result?.followUp).at(-1).author?.isGM""")
        assert note is not None
        assert author is True
        player.wait_for_timeout(1000)
        assert len(player.evaluate(NOTES_JS)) == notes + 1  # the player's client posted none
    finally:
        player.close()
    assert soe.errors == []
