"""The per-system play matrix in a real Foundry v13 world (``make test-foundry``).

One world per system in FOUNDRY_SYSTEMS (tests/foundry/conftest.py). Each test is one row of
issue 11's matrix: install clean and packs listed; every request on loopback under the route
prefix; shoot, apply and undo against one of two unlinked tokens of the same NPC; a player's
End Turn; the Firefight sheet tab after a re-render; the range under each diagonal rule.
Everything goes through Foundry's public client API and Firefight's documented api
(tests/foundry/matrix.js); nothing here knows the sandbox.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import PLAYER_NAME, Tier, World, is_under

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from _js import REAL_DICE_JS, SCRIPTED_DICE_JS


def expected_packs(manifest: dict[str, Any], system_id: str) -> set[str]:
    """The module's packs a world of this system lists: those of its system and the neutral ones
    (Foundry hides Actor/Item packs of other systems: foundryvtt/foundryvtt#7636)."""
    return {p["name"] for p in manifest.get("packs", []) if p.get("system") in (None, system_id)}


def test_install_is_clean_and_the_packs_are_listed(foundry: Tier, world: World) -> None:
    setup = foundry.setup_page
    assert not setup["error"], setup["error"]
    assert setup["listed"], "the setup screen does not list the module firefight"
    assert setup["readable"], "the setup screen exposes no package issues to read"
    issues = setup["issues"] or {}
    assert not issues.get("error"), f"setup screen: firefight errors {issues}"
    assert not issues.get("warning"), f"setup screen: firefight warnings {issues}"
    state = world.gm.js("() => fftier.installState()")
    assert not (state["issues"] or {}).get("error"), f"{world.system_id}: {state['issues']}"
    assert not (state["issues"] or {}).get("warning"), f"{world.system_id}: {state['issues']}"
    listed = {p["name"] for p in state["packs"]}
    assert listed == expected_packs(foundry.manifest, world.system_id), (
        f"{world.system_id}: game.packs lists {sorted(listed)}")
    for pack in state["packs"]:
        assert pack["count"] > 0, f"{world.system_id}: pack {pack['name']} opened empty"
        assert not pack["badTypes"], (
            f"{world.system_id}: pack {pack['name']} holds types {pack['badTypes']} the system "
            "does not define (game.documentTypes)")
    assert not state["invalid"], f"{world.system_id}: invalid documents {state['invalid']}"


def test_every_request_stays_on_loopback_under_the_route_prefix(foundry: Tier,
                                                                world: World) -> None:
    base = world.base
    for where, requests in (("the setup screen", foundry.setup_page["requests"]),
                            (f"the {world.system_id} world", world.gm.requests)):
        outside = sorted({url for url in requests if not is_under(url, base)})
        assert not outside, f"{where} requested outside {base}/: {outside[:20]}"
    module = [u for u in world.gm.requests if "/modules/firefight/" in u]
    assert module, "the page loaded nothing of the module"
    assert all(u.startswith(f"{base}/modules/firefight/") for u in module), module[:5]
    assert any(u.endswith(".wasm") for u in module), "the engine's WebAssembly was not fetched"
    assert not world.gm.page_errors, world.gm.page_errors


def test_shoot_apply_undo_on_one_of_two_unlinked_tokens(world: World, cast: dict[str, Any]) -> None:
    gm = world.gm
    scene = gm.js("() => fftier.makeScene('Firefight: unlinked')")
    shooter = gm.js("([s, a]) => fftier.placeToken(s, a, 2, 2)", [scene, cast["shooter"]])
    hit = gm.js("([s, a]) => fftier.placeToken(s, a, 4, 2)", [scene, cast["npc"]])
    other = gm.js("([s, a]) => fftier.placeToken(s, a, 4, 5)", [scene, cast["npc"]])
    a, b = gm.js("(ids) => ids.map((id) => fftier.tokenActor(id))", [hit, other])
    # Synthetic actors keep the base actor's id but are two actors (audit §2 rows 31-32).
    assert a["isToken"], a
    assert b["isToken"], b
    assert not a["linked"], a
    assert a["id"] == b["id"] == cast["npc"]
    assert a["uuid"] != b["uuid"]
    world_before = gm.js("(id) => fftier.worldActor(id)", cast["npc"])

    gm.js(SCRIPTED_DICE_JS)  # soe: the shooter rolls high, the target low: a sure wound
    try:
        shot = gm.js("([s, t]) => fftier.shoot(s, t)", [shooter, hit])
    finally:
        gm.js(REAL_DICE_JS)
    assert any(e.get("target") == "target" for e in shot["result"]["effects"]), shot["result"]
    assert shot["request"]["target"]["token_id"] == hit

    errors_before = gm.js("() => fftier.errors.length")
    applied = gm.js("(id) => fftier.apply(id)", shot["id"])
    reply = applied["reply"] or {}
    # already_applied: the world applies shots by itself (the autoApply setting).
    assert reply.get("ok") or reply.get("code") == "already_applied", (
        f"apply refused: {reply}; notifications {gm.js('() => fftier.errors')}")
    after = gm.js("(id) => fftier.tokenActor(id)", hit)
    assert after["flags"] != a["flags"], "the hit token's own actor did not change"
    assert gm.js("(id) => fftier.tokenActor(id)", other) == b, "the other token changed"
    assert gm.js("(id) => fftier.worldActor(id)", cast["npc"]) == world_before, \
        "the shared world actor changed"
    known = set(gm.js("() => fftier.statusIds()"))
    assert set(after["statuses"]) <= known, f"statuses outside CONFIG.statusEffects: {after}"
    gm.js("(id) => fftier.apply(id)", shot["id"])  # a second click applies nothing more
    assert gm.js("(id) => fftier.tokenActor(id)", hit) == after

    undone = gm.js("(id) => fftier.undo(id)", shot["id"])
    assert (undone["reply"] or {}).get("ok"), f"undo refused: {undone['reply']}"
    assert gm.js("(id) => fftier.tokenActor(id)", hit) == a, "undo did not restore the hit token"
    assert gm.js("(id) => fftier.tokenActor(id)", other) == b
    assert gm.js("(n) => fftier.errors.slice(n)", errors_before) == []


def test_a_players_end_turn(world: World) -> None:
    gm = world.gm
    gm.js("(id) => fftier.setRuleset(id)", "shock")
    try:
        ref = gm.js("() => fftier.findPackActor({ruleset: 'shock'})")
        troops = [gm.js("(r) => fftier.importActor(r)", ref) for _ in range(2)]
        gm.js("([name, ids]) => fftier.makePlayer(name, ids)", [PLAYER_NAME, troops])
        scene = gm.js("() => fftier.makeScene('Firefight: end turn')")
        tokens = [gm.js("([s, a, c]) => fftier.placeToken(s, a, c, 3)", [scene, actor, 2 + 2 * i])
                  for i, actor in enumerate(troops)]
        gm.js("(ids) => fftier.startCombat(ids)", tokens)
        player = world.player()
        try:
            before = gm.js("() => fftier.combatState()")
            mine = player.js("() => fftier.combatState()")
            assert mine, f"{PLAYER_NAME} sees no active combat (the GM's: {before})"
            assert mine["owner"], f"{PLAYER_NAME} does not own the current combatant: {mine}"
            refused = player.js("() => fftier.endTurn()")
            assert refused is None, f"End Turn as {PLAYER_NAME} was refused: {refused}"
            gm.js("""(b) => fftier.until('the turn to advance', () => {
                const now = fftier.combatState();
                return now && (now.turn !== b.turn || now.round !== b.round
                               || now.index !== b.index);
            })""", before)
            assert player.js("() => fftier.errors") == []
            assert not player.page_errors, player.page_errors
        finally:
            player.context.close()
    finally:
        gm.js("(id) => fftier.setRuleset(id)", "soe")


def eventually(check: Callable[[], Any], timeout_s: float = 15.0) -> Any:
    """The first truthy value of ``check`` within the time (else its last value)."""
    deadline = time.monotonic() + timeout_s
    while not (value := check()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return value


def test_the_sheet_tab_survives_a_re_render(world: World, cast: dict[str, Any]) -> None:
    gm = world.gm
    sheet_id = gm.js("""async (id) => {
        const sheet = game.actors.get(id).sheet;
        await sheet.render(true);
        await fftier.until('the sheet', () => sheet.rendered && sheet.element);
        return sheet.id;
    }""", cast["shooter"])
    sheet = gm.page.locator(f'[id="{sheet_id}"]')
    link = 'nav [data-tab="firefight"], .firefight-tab'
    tab = sheet.locator(link).first
    tab.wait_for(timeout=30_000)
    tab.click()
    stat, value = gm.js("""async (id) => {
        const actor = game.actors.get(id);
        const data = actor.flags.firefight.soe;
        const [key, old] = Object.entries(data).find(([, v]) => typeof v === 'number');
        await actor.update({[`flags.firefight.soe.${key}`]: old + 1});
        return [key, old + 1];
    }""", cast["shooter"])
    section = sheet.locator(".firefight-sheet")

    def shows_value() -> bool:
        if section.count() != 1:
            return False
        return bool(section.evaluate("""(el, [key, value]) =>
            [...el.querySelectorAll('input, select')]
                .some((i) => i.name?.endsWith(key) && Number(i.value) === value)
            || el.textContent.includes(String(value))""", [stat, value]))

    # The update re-renders the sheet (part by part on AppV2 sheets such as dnd5e 5.x).
    assert eventually(shows_value), (
        f"{world.system_id}: {section.count()} Firefight sections; none shows {stat} = {value}")
    assert sheet.locator(link).count() >= 1, \
        f"{world.system_id}: the Firefight tab link is gone after the re-render"
    gm.js("(id) => game.actors.get(id).sheet.close()", cast["shooter"])


def test_range_is_straight_line_under_each_diagonal_rule(world: World,
                                                        cast: dict[str, Any]) -> None:
    gm = world.gm
    rules = gm.js("() => Object.entries(CONST.GRID_DIAGONALS)")
    assert rules, "CONST.GRID_DIAGONALS is empty"
    scene = gm.js("() => fftier.makeScene('Firefight: diagonals')")
    shooter = gm.js("([s, a]) => fftier.placeToken(s, a, 2, 2)", [scene, cast["shooter"]])
    target = gm.js("([s, a]) => fftier.placeToken(s, a, 5, 6)", [scene, cast["npc"]])
    seen = {}
    original = None
    try:
        for name, rule in rules:
            replaced = gm.js("(d) => fftier.setDiagonals(d)", rule)
            original = replaced if original is None else original
            measured = gm.js("([a, b]) => fftier.measured(a, b)", [shooter, target])
            shot = gm.js("([s, t]) => fftier.shoot(s, t)", [shooter, target])
            seen[name] = (measured["distance"], shot["request"]["range"])
    finally:
        if original is not None:
            gm.js("(d) => fftier.setDiagonals(d)", original)
    assert len({m for m, _ in seen.values()}) > 1, (
        f"{world.system_id}: Foundry measured the same distance under every rule: {seen}")
    # 3 by 4 squares of 5 m: 25 m in a straight line whatever the scene counts for diagonals.
    wrong = {name: got for name, got in seen.items()
             if got[1].get("units") != "m" or abs(float(got[1].get("value", 0)) - 25) > 0.01}
    assert not wrong, f"{world.system_id}: range per rule (Foundry's distance, request): {wrong}"


@pytest.fixture(autouse=True)
def _no_page_errors(world: World) -> Iterator[None]:
    """No uncaught error on the GM's page during a test."""
    before = len(world.gm.page_errors)
    yield
    assert world.gm.page_errors[before:] == [], world.gm.page_errors[before:]
