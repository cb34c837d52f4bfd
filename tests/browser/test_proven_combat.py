"""Apply only what can be proven (issue 24, item 3) in a SHOCK combat drawn by chit pull: the GM
and Player 1, who owns the unit whose activation it is. The forging player uses the JS console
(page.evaluate): that is the attack; the honest End Turn is a click.

- hole 6: an End Turn relayed with direction -1 does not move the order back;
- hole 5: the current unit's owner setting the round + 1 directly does not make the GM's client
  settle the round and draw a new one: the round is put back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Table, open_gm_and_player

API = "game.modules.get('firefight').api"
STATE_JS = f"() => {API}.combat.activations()"
GIVE_CURRENT_JS = "() => game.combat.combatant.actor.update({'ownership.sandboxPlayer001': 3})"


class Pair:
    def __init__(self, gm: Table, p1: Table) -> None:
        self.gm, self.p1 = gm, p1


@pytest.fixture(scope="module")
def pair(server: str, browser: Any) -> Iterator[Pair]:
    context, gm, p1 = open_gm_and_player(server, browser, "shock", "shock-troops")
    gm.page.click('#combat-panel [data-action="create"]')
    gm.page.click('#combat-panel [data-action="startCombat"]')
    gm.page.wait_for_function(f"() => {API}.combat.activations()?.round === 1", timeout=60000)
    # Two activations on, so that a step back would show.
    for _ in range(2):
        index = gm.page.evaluate(f"() => {STATE_JS}().index")
        gm.page.evaluate("() => game.combat.nextTurn()")
        gm.page.wait_for_function(f"(i) => {STATE_JS}().index > i", arg=index)
    p1.page.wait_for_function("(i) => game.combat?.round === 1")
    yield Pair(gm, p1)
    context.close()


def _give_current(pair: Pair) -> None:
    pair.gm.page.evaluate(GIVE_CURRENT_JS)
    pair.p1.page.wait_for_function("() => Boolean(game.combat.combatant?.isOwner)")


def test_hole6_a_relayed_end_turn_never_goes_back(pair: Pair) -> None:
    gm, p1 = pair.gm.page, pair.p1.page
    _give_current(pair)
    state = gm.evaluate(STATE_JS)
    assert state["index"] > 0
    p1.evaluate("""(s) => game.socket.emit('module.firefight', {type: 'combat-turn',
        combatId: game.combat.id, round: s.round, index: s.index, direction: -1})""", state)
    gm.wait_for_function(f"(i) => {STATE_JS}().index !== i", arg=state["index"], timeout=10000)
    assert gm.evaluate(STATE_JS)["index"] > state["index"]
    assert gm.evaluate(STATE_JS)["round"] == state["round"]


def test_hole5_a_players_round_change_is_put_back_not_settled(pair: Pair) -> None:
    gm, p1 = pair.gm.page, pair.p1.page
    _give_current(pair)
    state = gm.evaluate(STATE_JS)
    turn = gm.evaluate("() => game.combat.turn")
    messages = gm.evaluate("() => game.messages.size")
    # Foundry lets the current combatant's owner change the round (sandbox/README.md).
    p1.evaluate("() => game.combat.update({round: game.combat.round + 1})")
    gm.wait_for_function("(r) => game.combat.round === r", arg=state["round"], timeout=10000)
    p1.wait_for_function("(r) => game.combat.round === r", arg=state["round"], timeout=10000)
    gm.wait_for_timeout(1000)  # a settle and a draw would have posted their cards by now
    assert gm.evaluate(STATE_JS) == state
    assert gm.evaluate("() => game.combat.turn") == turn
    assert gm.evaluate("() => game.messages.size") == messages
    # The honest End Turn still moves the order one activation on.
    p1.locator('#combat-panel [data-action="nextTurn"]').click()
    gm.wait_for_function(f"(i) => {STATE_JS}().index > i", arg=state["index"], timeout=10000)
    assert gm.evaluate(STATE_JS)["round"] == state["round"]


def test_no_page_errors(pair: Pair) -> None:
    assert pair.gm.errors == []
    assert pair.p1.errors == []
