"""The GM relay attacked as a hostile player would (reliability audit D1, D2, D4, D5, D9): three
users in their own pages (the GM, Player 1 who owns the rifleman, Player 2 who owns the officer).
Each forgery of the audit is refused with a clear message and changes nothing; a combat ended, or
a sheet saved, while an Apply is in flight loses nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _js import AIM_JS, FORGE_JS
from conftest import open_sheet_from_directory
from test_multiuser import (
    FLAGS_OF_JS,
    HP_JS,
    OFFICER,
    RECORD_JS,
    RHINO,
    RIFLEMAN,
    STATE_JS,
    Tables,
    open_tables,
)


@pytest.fixture(scope="module")
def tables(server: str, browser: Any) -> Iterator[Tables]:
    yield from open_tables(server, browser)

API = "game.modules.get('firefight').api"
GM_ID = "sandboxGamemastr"

HASH_JS = """async (mid) => {
    const { resultHash } = await import('/modules/firefight/js-shim/documents/apply.mjs');
    return resultHash(game.messages.get(mid).flags.firefight.result);
}"""
# The GM's engine answers "apply" with effects only after `ms` (an Apply in flight for that
# long); `__applyCalls` counts them (a sheet's validation, an apply without effects, is not one).
SLOW_APPLY_JS = """(ms) => {
    const engine = game.modules.get('firefight').api.engine;
    if (!engine.__realCall) engine.__realCall = engine.call.bind(engine);
    globalThis.__applyCalls = 0;
    engine.call = async (op, message) => {
        if (op === 'apply' && ms && message?.effects?.length) {
            globalThis.__applyCalls += 1;
            await new Promise((r) => setTimeout(r, ms));
        }
        return engine.__realCall(op, message);
    };
}"""


def _forge(page: Any, type_: str, payload: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = page.evaluate(FORGE_JS, [type_, payload])
    return reply


def _card(page: Any, mid: str) -> Any:
    return page.locator(f'[data-message-id="{mid}"]')


def _posted(tables: Tables, shooter_table: Any, shooter: str, target: str) -> str:
    tables.set_auto_apply(False)
    mid = tables.shoot(shooter_table, shooter, target)
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    return mid


def test_a_forged_requester_is_refused(tables: Tables) -> None:
    """D1: the requester is the sender Foundry names, never a field of the payload."""
    gm, p1 = tables.gm.page, tables.p1.page
    mid = _posted(tables, tables.gm, RIFLEMAN, RHINO)  # the GM's own shot, not applied
    before = gm.evaluate(HP_JS, RHINO)
    hash_ = p1.evaluate(HASH_JS, mid)
    reply = _forge(p1, "apply", {"messageId": mid, "hash": hash_, "userId": GM_ID})
    assert reply["ok"] is False, reply
    assert reply["code"] == "not_author"
    assert "only the shooter or a GM" in reply["reason"]
    # Player 2's message with Player 2's id, sent by Player 1: refused as well.
    mid2 = _posted(tables, tables.p2, OFFICER, RHINO)
    reply = _forge(p1, "apply", {"messageId": mid2, "hash": p1.evaluate(HASH_JS, mid2),
                                 "userId": "sandboxPlayer002"})
    assert reply["ok"] is False, reply
    assert reply["code"] == "not_author"
    assert gm.evaluate(HP_JS, RHINO) == before
    gm.locator(".notification.warning", has_text="Player 1").last.wait_for()


def test_deleting_applied_does_not_apply_twice(tables: Tables) -> None:
    """D2: the applied state is the GM's record on the actor, not the author's message."""
    gm, p1 = tables.gm.page, tables.p1.page
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    before = gm.evaluate(HP_JS, RHINO)
    _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
    loss = tables.loss(mid)
    tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - loss}")
    # The author deletes every mark on the message and asks again.
    p1.evaluate("""async (id) => game.messages.get(id).update({
        'flags.firefight.-=applied': null, 'flags.firefight.-=undone': null})""", mid)
    gm.wait_for_function("(id) => !game.messages.get(id).flags.firefight.applied", arg=mid)
    # The card still says applied: it reads the record on the rhino.
    _card(p1, mid).locator('.ff-applied-state[data-state="applied"]').wait_for()
    again = p1.evaluate(f"(id) => {API}.apply(id)", mid)
    assert again["ok"] is False
    assert again["code"] == "already_applied"
    assert gm.evaluate(HP_JS, RHINO) == before - loss
    tables.p1.shot("relay-01-delete-applied-refused")


def test_deleting_undone_does_not_apply_again(tables: Tables) -> None:
    """D2: after the GM's undo, the result stays spent whatever its author does to the message."""
    gm, p1 = tables.gm.page, tables.p1.page
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    before = gm.evaluate(HP_JS, RHINO)
    _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
    tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - tables.loss(mid)}")
    _card(gm, mid).locator('[data-firefight-action="undo-effects"]').click()
    tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before}")
    _card(p1, mid).locator('.ff-applied-state[data-state="undone"]').wait_for()
    p1.evaluate("""async (id) => game.messages.get(id).update({
        'flags.firefight.-=undone': null, 'flags.firefight.-=applied': null})""", mid)
    gm.wait_for_function("(id) => !game.messages.get(id).flags.firefight.undone", arg=mid)
    again = p1.evaluate(f"(id) => {API}.apply(id)", mid)
    assert again["ok"] is False
    assert again["code"] == "already_applied"
    assert gm.evaluate(HP_JS, RHINO) == before


EDITED_SHOT_JS = """async (mid) => {
    // An honest shot's request, edited, resolved with dice of the player's choosing, and posted
    // with those dice as its rolls: the result follows from its dice, the request is a lie.
    const { rollDataFromResult } = await import('/modules/firefight/js-shim/core/dice.mjs');
    const api = game.modules.get('firefight').api;
    const request = structuredClone(game.messages.get(mid).flags.firefight.request);
    request.weapon.damage = 50;
    request.target.stats.toughness = 0;
    const entropy = Array.from({length: 64}, (_, i) => [0.9, 0.2, 0.8, 0.6][i % 4]);
    const reply = await api.engine.call('resolve', {request, entropy, lang: 'en'});
    const message = await ChatMessage.create({
        content: reply.html, speaker: ChatMessage.getSpeaker(),
        rolls: rollDataFromResult(reply.result).map((d) => Roll.fromData(d)),
        flags: {firefight: {result: reply.result, request}}});
    return message.id;
}"""


def test_an_edited_request_with_matching_dice_is_refused(tables: Tables) -> None:
    """D4: the GM's client rebuilds the shot from the table and refuses what does not match."""
    gm, p1 = tables.gm.page, tables.p1.page
    honest = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    before = gm.evaluate(HP_JS, RHINO)
    mid = p1.evaluate(EDITED_SHOT_JS, honest)
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
    p1.locator(".notification.warning", has_text="does not match the table").last.wait_for()
    reply = p1.evaluate(f"(id) => {API}.apply(id)", mid)
    assert reply["ok"] is False
    assert reply["code"] == "changed_request"
    assert "weapon.damage" in reply["reason"] or "toughness" in reply["reason"]
    assert gm.evaluate(HP_JS, RHINO) == before
    # The honest shot is still applied.
    assert p1.evaluate(f"(id) => {API}.apply(id)", honest)["ok"] is True
    tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - tables.loss(honest)}")


def test_a_refusal_reaches_a_german_player_in_german(tables: Tables, server: str) -> None:
    """The GM's client (English) refuses an edited request; Player 1, at a page in German, reads
    why in German: the words, the field's label and the reason, none in the GM's language."""
    honest = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    mid = tables.p1.page.evaluate(EDITED_SHOT_JS, honest)
    tables.wait_all("(id) => Boolean(game.messages.get(id))", mid)
    page = tables.gm.page.context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{server}?user=Player%201&lang=de")
        page.wait_for_function("() => game.ready === true", timeout=30000)
        _card(page, mid).locator('[data-firefight-action="apply-effects"]').click()
        note = page.locator(".notification.warning", has_text="passt nicht zum Tisch").last
        note.wait_for()
        text = note.inner_text()
        assert "ist nicht die Daten von" in text, text
        assert "Zähigkeit" in text, text
        assert "(target.stats.toughness)" in text, text
        assert "not " not in text, text
        assert errors == []
    finally:
        page.close()


def test_a_token_the_player_does_not_own_is_refused(tables: Tables) -> None:
    """D4 (kept from the "Real Foundry worlds" issue): shooting with another player's token."""
    gm, p1 = tables.gm.page, tables.p1.page
    count = p1.evaluate("() => game.messages.size")
    p1.evaluate(AIM_JS, [OFFICER, RHINO])
    officer = p1.evaluate(f"() => canvas.tokens.placeables.find(t => t.name === '{OFFICER}').id")
    posted = p1.evaluate(
        f"async (id) => (await {API}.shoot({{attacker: id, dialog: false}}))?.id ?? null", officer)
    assert posted is None
    p1.locator(".notification.error", has_text="do not own").last.wait_for()
    assert p1.evaluate("() => game.messages.size") == count
    # Forged as a card of their own: the relay refuses it.
    honest = _posted(tables, tables.p2, OFFICER, RHINO)
    before = gm.evaluate(HP_JS, RHINO)
    reply = p1.evaluate(f"""async (mid) => {{
        const src = game.messages.get(mid).toObject();
        const copy = await ChatMessage.create({{content: src.content, flags: src.flags,
            rolls: src.rolls.map(r => JSON.parse(r)), speaker: src.speaker}});
        return {API}.apply(copy);
    }}""", honest)
    assert reply["ok"] is False
    assert reply["code"] == "not_owner"
    assert gm.evaluate(HP_JS, RHINO) == before


def test_a_forged_record_is_never_restored(tables: Tables) -> None:
    """D5: the GM's Undo restores only the GM's own record, and only data that the result's
    effects turn into what the actor has."""
    gm, p1, p2 = tables.gm.page, tables.p1.page, tables.p2.page
    state0 = gm.evaluate(STATE_JS, OFFICER)
    # Player 1 forges an "applied" record on their own, unapplied shot at the rhino.
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    officer_id = gm.evaluate(f"() => game.actors.getName('{OFFICER}').id")
    p1.evaluate("""async ([mid, officer, after]) => {
        const before = {...after, hp: -5, marksmanship: 0};
        await game.messages.get(mid).update({'flags.firefight.applied': {
            by: 'sandboxGamemastr', at: Date.now(), hash: 'x', actors: {k: {
                actorId: officer, ruleset: 'soe', name: 'Officer Vera Lind', after, before,
                beforeConditions: null, conditions: null, statuses: {}, missingStatuses: []}}}});
    }""", [mid, officer_id, state0["flags"]["soe"]])
    gm.wait_for_function("(id) => Boolean(game.messages.get(id).flags.firefight.applied)", arg=mid)
    # The GM's card offers no Undo (nothing was applied), and the API refuses.
    card = _card(gm, mid)
    card.locator('[data-firefight-action="apply-effects"]').wait_for()
    assert card.locator('[data-firefight-action="undo-effects"]').count() == 0
    refused = gm.evaluate(f"(id) => {API}.undo(id)", mid)
    assert refused["ok"] is False
    assert refused["code"] == "not_applied"
    assert gm.evaluate(STATE_JS, OFFICER) == state0
    # Player 2 owns the officer: they rewrite the GM's genuine record of a hit on it.
    hit = _posted(tables, tables.p1, RIFLEMAN, OFFICER)
    _card(p1, hit).locator('[data-firefight-action="apply-effects"]').click()
    tables.wait_all("([n, id]) => Boolean(game.actors.getName(n).flags.firefight.applied?.[id])",
                    [OFFICER, hit])
    after = gm.evaluate(STATE_JS, OFFICER)
    p2.evaluate("""async ([name, id]) => game.actors.getName(name).update({
        [`flags.firefight.applied.${id}.before.hp`]: 100,
        [`flags.firefight.applied.${id}.before.marksmanship`]: 0})""", [OFFICER, hit])
    gm.wait_for_function(
        "([n, id]) => game.actors.getName(n).flags.firefight.applied[id].before.hp === 100",
        arg=[OFFICER, hit])
    _card(gm, hit).locator('[data-firefight-action="undo-effects"]').click()
    gm.locator(".notification.warning", has_text="not written by a GM").last.wait_for()
    assert gm.evaluate(STATE_JS, OFFICER) == after
    record = gm.evaluate(RECORD_JS, [OFFICER, hit])
    assert "undone" not in record
    tables.gm.shot("relay-02-forged-record-refused")
    # Put the officer back: the GM sets the record right and undoes.
    gm.evaluate("""async ([name, id, before]) => game.actors.getName(name).update({
        [`flags.firefight.applied.${id}.before`]: before})""",
        [OFFICER, hit, state0["flags"]["soe"]])
    assert gm.evaluate(f"(id) => {API}.undo(id)", hit)["ok"] is True
    assert gm.evaluate(STATE_JS, OFFICER) == state0


def test_the_gm_rolls_players_shots_when_the_world_says_so(tables: Tables) -> None:
    """D4: with "The GM's client rolls players' shots" on, the player's shot is rolled and posted
    by the GM's client, as the player's token; the player still sees the dialog and the odds."""
    gm, p1 = tables.gm.page, tables.p1.page
    tables.set_auto_apply(False)
    tables.set_gm_rolls(True)
    try:
        # The GM's client rolls: its dice are the ones that count (a hit, scripted there).
        mid = tables.shoot_by_clicks(RIFLEMAN, RHINO)
        source = gm.evaluate("(id) => game.messages.get(id).toObject()", mid)
        assert source["author"] == GM_ID
        assert source["speaker"]["alias"] == RIFLEMAN
        assert source["flags"]["firefight"]["rolledFor"] == "sandboxPlayer001"
        before = gm.evaluate(HP_JS, RHINO)
        _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
        tables.wait_all(f"() => ({HP_JS})('{RHINO}') === {before - tables.loss(mid)}")
        # Player 2 may not apply it (it was rolled for Player 1).
        assert _card(tables.p2.page, mid).locator('[data-firefight-action]').count() == 0
        tables.p1.shot("relay-03-gm-rolled")
    finally:
        tables.set_gm_rolls(False)


def test_ending_a_combat_during_an_apply_loses_nothing(tables: Tables) -> None:
    """D9: soe's end-of-combat reset and an Apply in flight write the same actor, one after the
    other in its write queue, each over the other's data."""
    gm, p1 = tables.gm.page, tables.p1.page
    # The rhino carries a penalty for the rest of the combat (soe: reset when the combat ends).
    gm.evaluate(
        f"() => game.actors.getName('{RHINO}').update({{'flags.firefight.soe.pretrauma': -2}})")
    tables.wait_all(f"() => game.actors.getName('{RHINO}').flags.firefight.soe.pretrauma === -2")
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    tables.gm.reset()
    gm.click('#combat-panel [data-action="create"]')
    gm.click('#combat-panel [data-action="startCombat"]')
    before = gm.evaluate(HP_JS, RHINO)
    loss = tables.loss(mid)
    gm.evaluate(SLOW_APPLY_JS, 3000)
    try:
        _card(p1, mid).locator('[data-firefight-action="apply-effects"]').click()
        # The Apply is in flight on the GM's client (its engine call); the GM ends the encounter.
        gm.wait_for_function("() => globalThis.__applyCalls > 0")
        gm.click('#combat-panel [data-action="endCombat"]')
        tables.wait_all(f"""() => {{
            const soe = game.actors.getName('{RHINO}').flags.firefight.soe;
            return (soe.hp ?? soe.hp_max) === {before - loss} && soe.pretrauma === 0; }}""")
    finally:
        gm.evaluate(SLOW_APPLY_JS, 0)
    assert gm.evaluate(FLAGS_OF_JS, mid)["applied"]


def test_saving_a_sheet_during_an_apply_loses_nothing(tables: Tables) -> None:
    """D9: the sheet's Save writes the fields the user changed, over the actor's current data."""
    gm = tables.gm.page
    mid = _posted(tables, tables.p1, RIFLEMAN, RHINO)
    sheet = open_sheet_from_directory(gm, RHINO)
    will = gm.evaluate(f"() => game.actors.getName('{RHINO}').flags.firefight.soe.will ?? 0")
    before = gm.evaluate(HP_JS, RHINO)
    loss = tables.loss(mid)
    gm.evaluate(SLOW_APPLY_JS, 3000)
    try:
        _card(gm, mid).locator('[data-firefight-action="apply-effects"]').click()
        gm.wait_for_function("() => globalThis.__applyCalls > 0")
        sheet.locator('.firefight-sheet [name="opt.will"]').fill(str(will + 1))
        sheet.locator('.firefight-sheet [name="opt.will"]').press("Tab")  # a change saves
        tables.wait_all(f"""() => {{
            const soe = game.actors.getName('{RHINO}').flags.firefight.soe;
            return (soe.hp ?? soe.hp_max) === {before - loss} && soe.will === {will + 1}; }}""")
    finally:
        gm.evaluate(SLOW_APPLY_JS, 0)


def test_no_page_errors(tables: Tables) -> None:
    for t in tables.pages.values():
        assert t.errors == []
        assert [e for e in t.console_errors if "Firefight" not in e] == []
