"""Apply only what can be proven (issue 24, item 3), in a dpv world: the GM and Player 1, who
owns the green soldier (the GM's own are the others). The forging player uses the JS console
(page.evaluate): that is the attack; the honest side clicks.

- hole 2: a participant that names no token and no actor skips no check: a melee whose attacker's
  ids were removed (stats raised, dice chosen) is refused, by Apply and by the hiddenCard relay;
- hole 4: a record forged on the player's soldier does not stop the GM's Apply of an area fire
  hitting that soldier and the GM's own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _js import AIM_TARGETS_JS, FORGE_JS
from conftest import Table, open_gm_and_player

GREEN, VETERAN, ELITE = "Green soldier (NPC)", "Veteran soldier (NPC)", "Elite soldier (NPC)"
API = "game.modules.get('firefight').api"
GM_ID = "sandboxGamemastr"
# The shooter's dice high, the other's low (a sure hit), on one page.
DICE_JS = """(seq) => { globalThis.__u ??= CONFIG.Dice.randomUniform;
    let i = 0; CONFIG.Dice.randomUniform = () => seq[i++ % seq.length]; }"""
REAL_DICE_JS = "() => { CONFIG.Dice.randomUniform = globalThis.__u ?? CONFIG.Dice.randomUniform; }"
TOKEN_JS = "(n) => canvas.tokens.placeables.find((t) => t.name === n)"  # noqa: S105
DATA_JS = f"""(n) => {{ const a = ({TOKEN_JS})(n).actor;
    const {{applied, ...rest}} = a.flags.firefight;
    return {{flags: rest, statuses: [...a.statuses].sort()}}; }}"""
RECORD_JS = f"([n, id]) => ({TOKEN_JS})(n).actor.flags.firefight.applied?.[id] ?? null"


class Pair:
    def __init__(self, gm: Table, p1: Table) -> None:
        self.gm, self.p1 = gm, p1


@pytest.fixture(scope="module")
def pair(server: str, browser: Any) -> Iterator[Pair]:
    context, gm_table, player_table = open_gm_and_player(server, browser, "dpv", "dpv-npcs")
    tables = [gm_table, player_table]
    gm, p1 = tables
    # The GM gives Player 1 the green soldier (what the ownership dialog does); no auto-apply.
    gm.page.evaluate("""(n) => game.actors.getName(n).update({'ownership.sandboxPlayer001': 3})""",
                     GREEN)
    gm.page.evaluate("() => game.settings.set('firefight', 'autoApply', false)")
    p1.page.wait_for_function(f"(n) => ({TOKEN_JS})(n).actor.isOwner", arg=GREEN)
    p1.page.wait_for_function("() => game.settings.get('firefight', 'autoApply') === false")
    yield Pair(gm, p1)
    context.close()


def _act(page: Any, action: str, actor: str, targets: list[str], dice: list[float],
         **opts: Any) -> str:
    """An action with `actor`'s token at `targets` (api.act without its dialog), with `dice`."""
    page.evaluate(AIM_TARGETS_JS, [actor, targets])
    page.evaluate(DICE_JS, dice)
    try:
        mid = page.evaluate(f"""async ([action, opts]) => (await {API}.act(action,
            {{dialog: false, ...opts}}))?.id ?? null""", [action, opts])
    finally:
        page.evaluate(REAL_DICE_JS)
    assert mid, f"{action} posted no message"
    return str(mid)


# The audit's melee: the attacker's ids removed, its stats raised, the dice chosen, posted.
NAMELESS_MELEE_JS = """async (mid) => {
    const { rollDataFromResult } = await import('/modules/firefight/js-shim/core/dice.mjs');
    const api = game.modules.get('firefight').api;
    const request = structuredClone(game.messages.get(mid).flags.firefight.request);
    delete request.attacker.actor_id;
    delete request.attacker.token_id;
    request.attacker.stats.skills.melee = 4;
    const entropy = Array.from({length: 64}, (_, i) => [0.95, 0.05][i % 2]);
    const reply = await api.engine.call('resolve', {request, entropy, lang: 'en'});
    const message = await ChatMessage.create({content: reply.html,
        speaker: ChatMessage.getSpeaker(),
        rolls: rollDataFromResult(reply.result).map((d) => Roll.fromData(d)),
        flags: {firefight: {result: reply.result, request}}});
    return {id: message.id, effects: reply.result.effects.length};
}"""


def test_hole2_a_melee_whose_attacker_names_nobody_is_refused(pair: Pair) -> None:
    gm, p1 = pair.gm.page, pair.p1.page
    honest = _act(p1, "melee", GREEN, [VETERAN], [0.9, 0.05])
    pair.gm.page.wait_for_function("(id) => Boolean(game.messages.get(id))", arg=honest)
    forged = p1.evaluate(NAMELESS_MELEE_JS, honest)
    assert forged["effects"] > 0
    gm.wait_for_function("(id) => Boolean(game.messages.get(id))", arg=forged["id"])
    before = gm.evaluate(DATA_JS, VETERAN)
    card = p1.locator(f'[data-message-id="{forged["id"]}"]')
    card.locator('[data-firefight-action="apply-effects"]').click()
    p1.locator(".notification.warning", has_text=GREEN).last.wait_for()
    assert gm.evaluate(DATA_JS, VETERAN) == before
    assert gm.evaluate(RECORD_JS, [VETERAN, forged["id"]]) is None


# Player 1's own uncertain task: the payload their client sends the GM (hiddenCard), captured.
CAPTURE_TASK_JS = f"""async (name) => {{
    const sent = [];
    const emit = game.socket.emit.bind(game.socket);
    game.socket.emit = (event, data) => {{
        if (data?.type === 'hiddenCard') sent.push(data.payload);
        return emit(event, data);
    }};
    try {{
        canvas.tokens.releaseAll();
        ({TOKEN_JS})(name).control();
        await {API}.act('task', {{dialog: false, options: {{preset: 'emplace_charge'}}}});
    }} finally {{ game.socket.emit = emit; }}
    return sent[0] ?? null;
}}"""
# That task again, its actor's ids removed, resolved again from the same dice.
NAMELESS_TASK_JS = """async (payload) => {
    const api = game.modules.get('firefight').api;
    const request = structuredClone(payload.request);
    const acting = ['actor', 'character', 'attacker'].find((f) => request[f]);
    delete request[acting].actor_id;
    delete request[acting].token_id;
    const faces = payload.result.dice.flatMap((d) => d.results);
    const reply = await api.engine.call('resolve', {request, faces, lang: 'en'});
    return {request, result: reply.result};
}"""


def test_hole2_a_hidden_task_whose_actor_names_nobody_is_refused(pair: Pair) -> None:
    gm, p1 = pair.gm.page, pair.p1.page
    payload = p1.evaluate(CAPTURE_TASK_JS, GREEN)
    assert payload, "the task was not a hidden result"
    forged = p1.evaluate(NAMELESS_TASK_JS, payload)
    before = gm.evaluate("() => game.messages.size")
    reply = p1.evaluate(FORGE_JS, ["hiddenCard", forged])
    assert (reply["ok"], reply["code"]) == (False, "not_owner"), reply
    assert gm.evaluate("() => game.messages.size") == before


def test_hole4_a_record_forged_on_the_players_soldier_blocks_no_other(pair: Pair) -> None:
    gm, p1 = pair.gm.page, pair.p1.page
    mid = _act(gm, "area_fire", ELITE, [GREEN, VETERAN], [0.05, 0.9])
    p1.wait_for_function("(id) => Boolean(game.messages.get(id))", arg=mid)
    hit = gm.evaluate("(id) => game.messages.get(id).flags.firefight.result.effects"
                      ".map((e) => e.params?.name)", mid)
    assert GREEN in hit
    assert VETERAN in hit
    p1.evaluate(f"""async ([n, id]) => ({TOKEN_JS})(n).actor.update({{
        [`flags.firefight.applied.${{id}}`]: {{hash: 'x', gm: '{GM_ID}', by: '{GM_ID}',
            at: Date.now(), messageId: id, ruleset: 'dpv'}}}})""", [GREEN, mid])
    gm.wait_for_function(f"([n, id]) => Boolean(({RECORD_JS})([n, id]))", arg=[GREEN, mid])
    veteran = gm.evaluate(DATA_JS, VETERAN)
    card = gm.locator(f'[data-message-id="{mid}"]')
    card.locator('[data-firefight-action="apply-effects"]').click()
    gm.wait_for_function(f"([n, id]) => ({RECORD_JS})([n, id])?.gm === '{GM_ID}'"
                         f" && Boolean(({RECORD_JS})([n, id]).after)", arg=[VETERAN, mid])
    assert gm.evaluate(DATA_JS, VETERAN) != veteran
    # The forged record on the green soldier was written over by the GM's.
    record = gm.evaluate(RECORD_JS, [GREEN, mid])
    assert record["hash"] != "x"
    assert "after" in record


def test_no_page_errors(pair: Pair) -> None:
    assert pair.gm.errors == []
    assert pair.p1.errors == []
