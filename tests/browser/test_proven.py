"""Apply only what can be proven (issue 24, item 3), attacked as the reliability audit's third
pass did, in the soe world: the GM, Player 1 (who owns the rifleman) and Player 2 (the officer),
each in their own page. The forging player uses the JS console (page.evaluate) to post a forged
message or write a flag: that is the attack; the honest side clicks.

- hole 1: with "The GM's client rolls players' shots" on, a shot the player resolved themselves
  is not applied, and every action of a player (not Shoot alone) is rolled by the GM's client;
- hole 3: a copy of an applied card, posted as a new message, is not applied again;
- hole 4: a record a player writes on their own actor neither makes the card read "applied" nor
  stops the GM's Apply;
- hole 7: the end of a combat (soe resets pretrauma) leaves a shot posted before it appliable;
- hole 8: a self roll (whispered to its roller alone) does not change another's actor."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_multiuser import HP_JS, OFFICER, RHINO, RIFLEMAN, Tables, open_tables
from test_relay import HASH_JS, _card, _posted

API = "game.modules.get('firefight').api"
GM_ID = "sandboxGamemastr"


@pytest.fixture(scope="module")
def tables(server: str, browser: Any) -> Iterator[Tables]:
    yield from open_tables(server, browser)


# A card of the player's own: the request of a message (the table's), resolved on the player's
# engine with dice of their choosing, posted as their message.
OWN_DICE_CARD_JS = """async (mid) => {
    const { rollDataFromResult } = await import('/modules/firefight/js-shim/core/dice.mjs');
    const api = game.modules.get('firefight').api;
    const request = structuredClone(game.messages.get(mid).flags.firefight.request);
    const entropy = Array.from({length: 64}, (_, i) => [0.9, 0.0][i % 2]);
    const reply = await api.engine.call('resolve', {request, entropy, lang: 'en'});
    const message = await ChatMessage.create({
        content: reply.html, speaker: ChatMessage.getSpeaker(),
        rolls: rollDataFromResult(reply.result).map((d) => Roll.fromData(d)),
        flags: {firefight: {result: reply.result, request}}});
    return message.id;
}"""
# A copy of a message (its card, rolls, result and request) posted as a new message.
COPY_JS = """async (mid) => {
    const src = game.messages.get(mid).toObject();
    const copy = await ChatMessage.create({content: src.content, speaker: src.speaker,
        rolls: src.rolls.map((r) => (typeof r === 'string' ? JSON.parse(r) : r)),
        flags: {firefight: {result: src.flags.firefight.result,
                            request: src.flags.firefight.request}}});
    return copy.id;
}"""
# A record written on an actor the player owns, as the GM's would be: the GM's id, the real hash.
FORGE_RECORD_JS = """async ([name, mid, hash]) => {
    const actor = game.actors.getName(name);
    const data = actor.flags.firefight.soe;
    await actor.update({[`flags.firefight.applied.${mid}`]: {hash, by: 'sandboxGamemastr',
        gm: 'sandboxGamemastr', at: Date.now(), messageId: mid, ruleset: 'soe', name,
        before: {...data, hp: 1}, after: data, beforeConditions: null, conditions: null,
        statuses: {}, missingStatuses: [], changes: []}});
}"""


def test_hole1_gm_rolls_a_shot_the_player_resolved_is_not_applied(tables: Tables) -> None:
    """The audit: with the GM rolling, Player 1 resolved a shot's request on their own engine with
    dice of their choosing, posted it and pressed Apply: it was applied (apply.mjs never read the
    setting)."""
    gm, p1 = tables.gm.page, tables.p1.page
    honest = _posted(tables, tables.p1, RIFLEMAN, RHINO)  # before the setting: the table's request
    tables.set_gm_rolls(True)
    try:
        mid = p1.evaluate(OWN_DICE_CARD_JS, honest)
        tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
        before = gm.evaluate(HP_JS, RHINO)
        _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
        p1.locator(".notification.warning", has_text="rolls players' shots").last.wait_for()
        assert gm.evaluate(HP_JS, RHINO) == before
        # A shot the GM's client rolled for Player 1 is applied on their click.
        rolled = tables.shoot_by_clicks(RIFLEMAN, RHINO)
        assert gm.evaluate("(id) => game.messages.get(id).author.id", rolled) == GM_ID
        _card(p1, rolled).locator('[data-firefight-action="apply-effects"]').click()
        tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - tables.loss(rolled)}")
    finally:
        tables.set_gm_rolls(False)


def _will_check_by_clicks(tables: Tables) -> str:
    """Player 1's rifleman takes a Will check from the Firefight actions menu (select the token,
    the tool, the action, Choose): the new message's id."""
    p1 = tables.p1.page
    count = p1.evaluate("() => game.messages.size")
    tables.p1.reset()
    tables.p1.token(RIFLEMAN).click()
    p1.locator('.scene-tool[data-tool="firefightActions"]').click()
    picker = p1.locator("dialog.firefight-action-picker")
    picker.locator('input[value="will_check"]').check()
    picker.locator("button[data-action=pick]").click()
    p1.wait_for_function("(n) => game.messages.size > n", arg=count)
    mid: str = p1.evaluate("() => game.messages.contents.at(-1).id")
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    return mid


def test_gm_rolls_every_action_of_a_player_not_shoot_alone(tables: Tables) -> None:
    """One workflow (issue 24, item 1): "The GM's client rolls players' shots" was Shoot's alone;
    a player's Will check was rolled on their own client. Now every action goes the same way:
    the GM's client rolls it and posts it for Player 1; without the setting, Player 1's does."""
    gm = tables.gm.page
    tables.set_gm_rolls(True)
    try:
        mid = _will_check_by_clicks(tables)
        source = gm.evaluate("(id) => game.messages.get(id).toObject()", mid)
        assert source["author"] == GM_ID
        assert source["flags"]["firefight"]["rolledFor"] == "sandboxPlayer001"
        assert source["flags"]["firefight"]["result"]["action"] == "will_check"
    finally:
        tables.set_gm_rolls(False)
    mid = _will_check_by_clicks(tables)
    assert gm.evaluate("(id) => game.messages.get(id).author.id", mid) == "sandboxPlayer001"


def test_hole8_a_self_roll_does_not_change_anothers_actor(tables: Tables) -> None:
    """A self roll is whispered to its roller alone: only they saw the dice. Rolled by the GM's
    client for Player 1 in their roll mode, it may not change the rhino (the GM's)."""
    gm, p1 = tables.gm.page, tables.p1.page
    tables.set_gm_rolls(True)
    p1.locator("#rollmode-select").select_option("selfroll")
    try:
        mid = tables.shoot_by_clicks(RIFLEMAN, RHINO)
        assert gm.evaluate("(id) => game.messages.get(id).whisper", mid) == ["sandboxPlayer001"]
        before = gm.evaluate(HP_JS, RHINO)
        assert tables.loss(mid) > 0
        _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
        p1.locator(".notification.warning", has_text="a self roll").last.wait_for()
        assert gm.evaluate(HP_JS, RHINO) == before
    finally:
        p1.locator("#rollmode-select").select_option("publicroll")
        tables.set_gm_rolls(False)


def test_hole3_a_copy_posted_as_a_new_message_is_not_applied_again(tables: Tables) -> None:
    """The audit: Player 1 applied their shot, posted the same result, rolls and request as a new
    message and asked again: applied, the loss counted twice."""
    gm, p1 = tables.gm.page, tables.p1.page
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    before = gm.evaluate(HP_JS, RHINO)
    loss = tables.loss(mid)
    _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
    tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - loss}")
    copy = p1.evaluate(COPY_JS, mid)
    tables.wait_all("(id) => Boolean(game.messages.get(id))", copy)
    reply = p1.evaluate(f"(id) => {API}.apply(id)", copy)
    assert reply["ok"] is False, reply
    assert reply["code"] == "already_applied"
    assert gm.evaluate(HP_JS, RHINO) == before - loss
    # Nor may the GM's Apply count it twice.
    _card(gm, copy).locator('[data-firefight-action="apply-effects"]').click()
    gm.wait_for_timeout(500)
    assert gm.evaluate(HP_JS, RHINO) == before - loss


def test_hole4_a_record_forged_on_an_owned_actor_neither_reads_applied_nor_blocks(
        tables: Tables) -> None:
    """The audit: the GM's hit on the rifleman; Player 1 wrote a record of it on the rifleman
    (the GM's id, the real hash): the card read "applied" and the GM's Apply was refused."""
    gm, p1 = tables.gm.page, tables.p1.page
    mid = _posted(tables, tables.gm, OFFICER, RIFLEMAN)  # the GM's shot
    assert tables.loss(mid) > 0
    p1.evaluate(FORGE_RECORD_JS, [RIFLEMAN, mid, p1.evaluate(HASH_JS, mid)])
    tables.wait_all("([n, id]) => Boolean(game.actors.getName(n).flags.firefight.applied?.[id])",
                    [RIFLEMAN, mid])
    gm.evaluate("(id) => ui.chat.updateMessage?.(game.messages.get(id))", mid)
    card = _card(gm, mid)
    card.locator('[data-firefight-action="apply-effects"]').wait_for()
    assert card.locator('.ff-applied-state[data-state="applied"]').count() == 0
    before = gm.evaluate(HP_JS, RIFLEMAN)
    card.locator('[data-firefight-action="apply-effects"]').click()
    tables.wait_all(f"() => ({HP_JS})('{RIFLEMAN}') === {before - tables.loss(mid)}")
    card.locator('.ff-applied-state[data-state="applied"]').wait_for()
    # The GM's record replaced the forged one.
    record = gm.evaluate("([n, id]) => game.actors.getName(n).flags.firefight.applied[id]",
                         [RIFLEMAN, mid])
    assert record["before"]["hp"] != 1 or before == 1
    # Put the rifleman back for the tests that follow.
    assert gm.evaluate(f"(id) => {API}.undo(id)", mid)["ok"] is True


def test_hole7_a_shot_posted_before_the_combat_ended_stays_appliable(tables: Tables) -> None:
    """The audit: the rhino had pretrauma -3 when it was shot; ending the combat reset it (soe)
    without a record, and Player 1's Apply was refused changed_request."""
    gm, p1 = tables.gm.page, tables.p1.page
    gm.evaluate(
        f"() => game.actors.getName('{RHINO}').update({{'flags.firefight.soe.pretrauma': -3}})")
    tables.wait_all(f"() => game.actors.getName('{RHINO}').flags.firefight.soe.pretrauma === -3")
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    tables.gm.reset()
    gm.click('#combat-panel [data-action="create"]')
    gm.click('#combat-panel [data-action="startCombat"]')
    gm.click('#combat-panel [data-action="endCombat"]')
    tables.wait_all(f"() => game.actors.getName('{RHINO}').flags.firefight.soe.pretrauma === 0")
    before = gm.evaluate(HP_JS, RHINO)
    _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
    tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - tables.loss(mid)}")
    assert p1.locator(".notification.warning", has_text="does not match the table").count() == 0


def test_no_page_errors(tables: Tables) -> None:
    for t in tables.pages.values():
        assert t.errors == []
        assert [e for e in t.console_errors if "Firefight" not in e] == []
