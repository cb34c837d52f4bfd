"""A ruleset's declared per-turn action at the combat tracker (canvas/turns.mjs), with the 2300 AD
NPCs (`features.turn`: combat_turn): each round starts with every figure's initiative in the
tracker, a dazed figure's turn is passed over with a card saying why, the round's end counts its
dazed turns down, and the token shows "stun" while it is dazed. The GM clicks the tracker."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, Table, contexts_of

VETERAN = "Veteran soldier (NPC)"
ORDER_JS = "() => game.combat.turns.map(c => [c.name, c.initiative])"
CURRENT_JS = "() => game.combat?.combatant?.name ?? null"
# The token's own actor (the NPCs' tokens are unlinked: results go to their synthetic actors).
ACTOR_JS = "(name) => canvas.tokens.placeables.find(t => t.name === name).actor"
DPV_JS = f"(name) => ({ACTOR_JS})(name).flags.firefight.dpv"
STATUSES_JS = f"(name) => [...({ACTOR_JS})(name).statuses]"
TURN_CARDS_JS = """() => game.messages.contents
    .filter(m => m.flags.firefight?.result?.action === 'combat_turn')
    .map(m => ({name: m.flags.firefight.result.request.actor.name,
                phase: m.flags.firefight.result.request.options.phase,
                canAct: m.flags.firefight.result.outcome.can_act,
                applied: Boolean(m.flags.firefight.applied)}))"""
SETTLED_JS = """() => {
    const m = game.combat?.flags.firefight?.turnEvents;
    return Boolean(m) && m.round === game.combat.round && m.turn === game.combat.turn;
}"""


@pytest.fixture(scope="module")
def dpv(server: str, browser: Any) -> Iterator[Table]:
    context = contexts_of(browser).open(viewport={"width": 1440, "height": 860},
                                        settings={"firefight.ruleset": "dpv"})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(server + "?pack=dpv-npcs")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()


def _settle(page: Any) -> None:
    page.wait_for_function(SETTLED_JS, timeout=30000)
    page.wait_for_timeout(500)


def test_the_round_starts_with_every_initiative(dpv: Table) -> None:
    page = dpv.page
    assert page.evaluate("() => game.settings.get('firefight', 'ruleset')") == "dpv"
    page.click('#combat-panel [data-action="create"]')
    page.click('#combat-panel [data-action="startCombat"]')
    page.wait_for_function("() => game.combat.turns.every(c => c.initiative !== null)",
                           timeout=30000)
    _settle(page)
    # An NPC's initiative is its Coolness (2300ad NON-PLAYER CHARACTERS): highest first.
    order = page.evaluate(ORDER_JS)
    assert [i for _, i in order] == [10, 8, 6, 4]
    assert page.evaluate(CURRENT_JS) == order[0][0]
    shown = page.locator("#combat-panel .combatant .initiative").all_inner_texts()
    assert shown == ["10", "8", "6", "4"]


def test_a_dazed_figure_shows_it_and_its_turn_is_passed_over(dpv: Table) -> None:
    page = dpv.page
    # Dazed for a turn, as a stun point leaves it (2300ad Wound Effects): the token shows "stun".
    page.evaluate(f"(n) => ({ACTOR_JS})(n).update({{'flags.firefight.dpv.dazed_turns': 1}})",
                  VETERAN)
    page.wait_for_function(f"(n) => ({STATUSES_JS})(n).includes('stun')", arg=VETERAN,
                           timeout=10000)
    assert dpv.token(VETERAN).locator('.status[data-status="stun"]').count() == 1
    page.click('#combat-panel [data-action="nextTurn"]')
    # The veteran's turn: it may not act, so the card says so and the turn passes on.
    page.wait_for_function(f"() => ({CURRENT_JS})() === 'Experienced soldier (NPC)'",
                           timeout=30000)
    _settle(page)
    cards = page.evaluate(TURN_CARDS_JS)
    assert cards == [{"name": VETERAN, "phase": "start", "canAct": False, "applied": False}]
    dpv.shot("turn-01-dazed-passed-over")


def test_the_round_end_counts_dazed_down(dpv: Table) -> None:
    page = dpv.page
    for _ in range(3):
        if page.evaluate("() => game.combat.round") == 2:
            break
        page.click('#combat-panel [data-action="nextTurn"]')
        page.wait_for_timeout(300)
    assert page.evaluate("() => game.combat.round") == 2
    _settle(page)
    page.wait_for_function(f"(n) => !({STATUSES_JS})(n).includes('stun')", arg=VETERAN,
                           timeout=30000)
    assert page.evaluate(DPV_JS, VETERAN).get("dazed_turns", 0) == 0
    ends = [c for c in page.evaluate(TURN_CARDS_JS) if c["phase"] == "end"]
    assert ends == [{"name": VETERAN, "phase": "end", "canAct": False, "applied": True}]
    # The new round: the veteran acts again in its place.
    assert [i for _, i in page.evaluate(ORDER_JS)] == [10, 8, 6, 4]
    assert dpv.errors == []
