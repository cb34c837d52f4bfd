"""2300 AD vehicles at the table (the dpv-vehicles pack): a missile fired from a missile weapon
through its dialog, evasive driving kept on the vehicle, a blast that rolls vehicle damage, and a
player's uncertain task whose referee card the GM's client posts (the GM and Player 1 in their
own pages of one world)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _js import AIM_TARGETS_JS as AIM_JS
from _js import FORGE_JS
from conftest import BOOT_TIMEOUT_MS, Table, open_gm_and_player

APC, TANK, CAR = "Hover APC (house)", "Tracked tank (house)", "Wheeled car (house)"
SET_DICE = """(u) => { globalThis.__u ??= CONFIG.Dice.randomUniform;
    CONFIG.Dice.randomUniform = () => u; }"""
REAL_DICE = "() => { CONFIG.Dice.randomUniform = globalThis.__u ?? CONFIG.Dice.randomUniform; }"
LAST = "() => game.messages.contents.at(-1).flags.firefight"
STATS = "(n) => canvas.tokens.placeables.find((t) => t.name === n).actor.flags.firefight.dpv"


class Pair:
    def __init__(self, gm: Table, player: Table) -> None:
        self.gm, self.player = gm, player


@pytest.fixture(scope="module")
def pair(server: str, browser: Any) -> Iterator[Pair]:
    context, gm_table, player_table = open_gm_and_player(server, browser, "dpv", "dpv-vehicles")
    tables = [gm_table, player_table]
    # The first load learns the features from the engine; the tools come with the next one.
    tables[0].page.reload()
    tables[0].page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield Pair(*tables)
    context.close()


def _pick(page: Any, label: str) -> Any:
    page.locator('.scene-tool[data-tool="firefightActions"]').click()
    picker = page.locator("dialog.firefight-action-picker")
    picker.get_by_label(label, exact=True).check()
    picker.locator("button[data-action=pick]").click()
    dialog = page.locator("dialog.firefight-action-dialog")
    dialog.wait_for()
    return dialog


def test_a_missile_is_fired_from_the_missile_weapon_in_its_dialog(pair: Pair) -> None:
    # MISSILE PROCEDURE: 1D10 under homing - evasive; the weapon gives the homing value and EP.
    page = pair.gm.page
    page.evaluate(AIM_JS, [APC, [CAR]])
    before = page.evaluate("() => game.messages.size")
    dialog = _pick(page, "Missile")
    assert dialog.locator('select[name="weapon"] option').all_inner_texts() == [
        "Anti-tank missile (house)"]
    dialog.locator('[data-action="go"]').click()
    page.wait_for_function("(n) => game.messages.size > n", arg=before)
    flags = page.evaluate(LAST)
    assert flags["request"]["weapon"]["homing"] == 8
    step = next(s for s in flags["result"]["steps"] if s["id"] == "missile")
    assert step["numbers"]["homing"] == 8
    assert not pair.gm.errors


def test_driving_evasively_is_kept_on_the_vehicle_and_counts_against_missiles(pair: Pair) -> None:
    page = pair.gm.page
    page.evaluate(AIM_JS, [CAR, []])
    page.evaluate(SET_DICE, 0.95)
    try:
        before = page.evaluate("() => game.messages.size")
        dialog = _pick(page, "Task")
        dialog.locator('select[name="opt.options.preset"]').select_option(label="Drive evasively")
        dialog.locator('[data-action="go"]').click()
        page.wait_for_function("(n) => game.messages.size > n", arg=before)
        mid = page.evaluate("() => game.messages.contents.at(-1).id")
        page.evaluate("(id) => game.modules.get('firefight').api.apply(id)", mid)
        page.wait_for_function(f"(n) => ({STATS})(n).evading === true", arg=CAR)
    finally:
        page.evaluate(REAL_DICE)
    # A missile at the car now reads its evasive value (2).
    page.evaluate(AIM_JS, [APC, [CAR]])
    before = page.evaluate("() => game.messages.size")
    page.evaluate("() => game.modules.get('firefight').api.act('missile', {dialog: false})")
    page.wait_for_function("(n) => game.messages.size > n", arg=before)
    step = next(s for s in page.evaluate(LAST)["result"]["steps"] if s["id"] == "missile")
    assert step["numbers"]["evasive"] == 2


def test_a_blast_next_to_a_vehicle_rolls_vehicle_damage(pair: Pair) -> None:
    # EXPLOSIVES and VEHICLE DAMAGE: the concussion's DPV less the armor, on the vehicle table.
    page = pair.gm.page
    centre = page.evaluate("(n) => canvas.tokens.placeables.find((t) => t.name === n).center",
                           TANK)
    before = page.evaluate("() => game.messages.size")
    page.evaluate(SET_DICE, 0.01)
    try:
        page.evaluate("""(p) => game.modules.get('firefight').api.explodeAt(p,
            {power: 4, name: 'Satchel charge'})""", {"x": centre["x"] + 40, "y": centre["y"]})
        page.wait_for_function("(n) => game.messages.size > n", arg=before)
    finally:
        page.evaluate(REAL_DICE)
    figures = {f["name"]: f for f in page.evaluate(LAST)["result"]["outcome"]["figures"]}
    assert figures[TANK]["vehicle_results"]  # armor 20 stops concussion 8: no penetration
    assert figures[TANK]["vehicle_results"][0] == "no_penetration"
    assert not pair.gm.errors


def test_a_players_uncertain_task_card_is_posted_by_the_gm(pair: Pair) -> None:
    # UNCERTAIN TASKS: "the referee rolls secretly". The referee's card (its flags carry the
    # verdict) is never the player's message: ChatMessage.create hands a message to its author.
    player, gm = pair.player.page, pair.gm.page
    mine = player.evaluate("() => canvas.tokens.placeables.filter((t) => t.actor?.isOwner)"
                           ".map((t) => t.name)")
    assert mine
    before = gm.evaluate("() => game.messages.size")
    player.evaluate(AIM_JS, [mine[0], []])
    player.evaluate("""() => game.modules.get('firefight').api.act('task',
        {dialog: false, options: {preset: 'emplace_charge'}})""")
    gm.wait_for_function("""(n) => game.messages.contents.slice(n)
        .some((m) => m.flags.firefight?.gm)""", arg=before, timeout=20000)
    news = gm.evaluate("""(n) => game.messages.contents.slice(n).map((m) => ({
        author: m._source.author ?? m._source.user, result: !!m.flags.firefight?.result,
        hidden: !!m.flags.firefight?.hidden, whisper: m._source.whisper ?? []}))""", before)
    players = [m for m in news if m["author"] == "sandboxPlayer001"]
    assert players
    assert all(not m["result"] for m in players)
    assert [m["whisper"] for m in news if m["result"]] == [["sandboxGamemastr"]]
    assert [m["author"] for m in news if m["result"]] == ["sandboxGamemastr"]
    assert any(m["hidden"] for m in players)  # the player's view, without the verdict
    assert not pair.player.errors



def test_a_forged_hidden_card_is_refused_by_the_gm(pair: Pair) -> None:
    # The GM posts the referee's card only for a result that follows from its dice and request.
    gm, player = pair.gm.page, pair.player.page
    flags = gm.evaluate("""() => game.messages.contents.filter((m) => m.flags.firefight?.gm)
        .at(-1).flags.firefight""")
    result = {**flags["result"], "outcome": {**flags["result"]["outcome"], "success": True,
                                             "summary_key": "FIREFIGHT.dpv.outcome.success"}}
    before = gm.evaluate("() => game.messages.size")
    payload = {"request": flags["request"], "result": result}
    reply = player.evaluate(FORGE_JS, ["hiddenCard", payload])
    assert (reply["ok"], reply["code"]) == (False, "changed_result")
    assert gm.evaluate("() => game.messages.size") == before


def test_a_hidden_card_for_a_token_the_player_does_not_own_is_refused(pair: Pair) -> None:
    # As Apply (request.mjs ownsToken): a player's client cannot have the GM post a referee's
    # card in the name of a token it does not own.
    gm, player = pair.gm.page, pair.player.page
    flags = gm.evaluate("""() => game.messages.contents.filter((m) => m.flags.firefight?.gm)
        .at(-1).flags.firefight""")
    other = player.evaluate("""() => canvas.tokens.placeables
        .filter((t) => t.actor && !t.actor.isOwner)
        .map((t) => ({token_id: t.document.uuid, actor_id: t.actor.id, name: t.name}))[0]""")
    assert other
    request = flags["request"]
    acting = next(k for k, v in request.items() if isinstance(v, dict) and v.get("token_id"))
    request[acting] = {**request[acting], **other}
    before = gm.evaluate("() => game.messages.size")
    payload = {"request": request, "result": flags["result"]}
    reply = player.evaluate(FORGE_JS, ["hiddenCard", payload])
    assert (reply["ok"], reply["code"]) == (False, "not_owner")
    assert gm.evaluate("() => game.messages.size") == before
