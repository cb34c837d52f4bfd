"""Per-token cover (`features.cover`): the referee marks it on the Token HUD in an editor built
from the ruleset's schema; it is kept in the token's flag and sent as the ruleset declares:
SHOCK in `target.cover` (a list of protections), 2300 AD as each area-fire figure's `cover` and
as aimed fire's cover options."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, Table, open_table

LAST_REQUEST = "() => game.messages.contents.at(-1).flags.firefight.request"
FLAG_JS = ("([n, r]) => canvas.tokens.placeables.find(t => t.name === n)"
           ".document.flags.firefight?.cover?.[r] ?? null")


def _names(page: Any) -> list[str]:
    return list(page.evaluate("() => canvas.tokens.placeables.map((t) => t.name)"))


def _open_cover_editor(t: Table, name: str) -> Any:
    t.reset()
    t.token(name).click()
    t.token(name).click(button="right")  # the HUD of one's own selected token
    hud = t.page.locator("#token-hud")
    hud.locator('[data-firefight-action="cover"]').click()
    dialog = t.page.locator("dialog.firefight-cover-dialog")
    dialog.wait_for()
    return dialog


def _shoot(t: Table, shooter: str, target: str) -> Any:
    t.reset()
    t.token(shooter).click()
    t.token(target).click(button="right")
    before = t.page.evaluate("() => game.messages.contents.length")
    t.page.click("#shoot-button")
    dialog = t.page.locator("dialog.firefight-shot-dialog, dialog.firefight-dialog").last
    dialog.wait_for()
    return dialog, before


def _reloaded(t: Table) -> Table:
    # The first load learns the features from the engine; the HUD then knows the cover feature.
    t.page.reload()
    t.page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    return t


@pytest.fixture(scope="module")
def shock_table(server: str, browser: Any) -> Iterator[Table]:
    t = _reloaded(open_table(server, browser, "shock", "shock-troops"))
    yield t
    t.context.close()


@pytest.fixture(scope="module")
def dpv_table(server: str, browser: Any) -> Iterator[Table]:
    t = _reloaded(open_table(server, browser, "dpv", "dpv-npcs"))
    yield t
    t.context.close()


def test_shock_cover_is_marked_on_the_hud_and_sent_in_target_cover(shock_table: Table) -> None:
    page = shock_table.page
    shooter, target, *_ = _names(page)
    dialog = _open_cover_editor(shock_table, target)
    row = dialog.locator("fieldset.ff-cover-entry").first
    row.locator('input[type="text"]').fill("Sandbags")
    row.locator('input[value="leg"]').check()
    row.locator('input[value="lower_torso"]').check()
    row.locator("select").select_option(label="V")
    # A second entry, added and removed again.
    dialog.locator('[data-ff-cover="add"]').click()
    assert dialog.locator("fieldset.ff-cover-entry").count() == 2
    dialog.locator("fieldset.ff-cover-entry").last.locator('[data-ff-cover="remove"]').click()
    shock_table.shot("71-shock-cover-editor")
    dialog.locator('[data-action="save"]').click()
    entry = {"name": "Sandbags", "locations": ["lower_torso", "leg"], "stops": "V"}
    page.wait_for_function(f"(a) => ({FLAG_JS})(a)?.length === 1", arg=[target, "shock"])
    assert page.evaluate(FLAG_JS, [target, "shock"]) == [{**entry, "category": "cover"}]
    # Opened again, the editor shows what is kept.
    dialog = _open_cover_editor(shock_table, target)
    assert dialog.locator('input[type="text"]').input_value() == "Sandbags"
    dialog.locator('[data-action="cancel"]').click()
    shot, before = _shoot(shock_table, shooter, target)
    shot.locator('[data-action="fire"]').click()
    page.wait_for_function("(n) => game.messages.contents.length > n", arg=before, timeout=20000)
    request = page.evaluate(LAST_REQUEST)
    assert request["target"]["cover"] == [{**entry, "category": "cover"}]
    assert "cover" not in request["attacker"]
    assert not shock_table.errors


def test_a_player_sees_no_cover_button(shock_table: Table) -> None:
    # Only the referee marks cover: the HUD of a GM has the button (above); a player's has not.
    page = shock_table.page
    name = _names(page)[0]
    shock_table.reset()
    shock_table.token(name).click()
    shock_table.token(name).click(button="right")
    assert page.locator('#token-hud [data-firefight-action="cover"]').count() == 1
    # The same HUD drawn for a user who is not a GM (the hook reads game.user.isGM).
    page.evaluate("() => { game.user.__gm = Object.getOwnPropertyDescriptor(game.user, 'isGM'); "
                  "Object.defineProperty(game.user, 'isGM', {value: false, configurable: true}); }")
    try:
        page.evaluate("""(n) => Hooks.callAll('renderTokenHUD', {object: canvas.tokens.placeables
            .find(t => t.name === n)}, document.getElementById('token-hud'), {}, {})""", name)
        hud = page.locator("#token-hud")
        hud.evaluate("(el) => el.querySelector('[data-firefight-action=cover]')?.remove()")
        page.evaluate("""(n) => Hooks.callAll('renderTokenHUD', {object: canvas.tokens.placeables
            .find(t => t.name === n)}, document.getElementById('token-hud'), {}, {})""", name)
        assert hud.locator('[data-firefight-action="cover"]').count() == 0
    finally:
        page.evaluate("() => { if (game.user.__gm) Object.defineProperty(game.user, 'isGM', "
                      "game.user.__gm); else delete game.user.isGM; delete game.user.__gm; }")
    assert page.evaluate("() => game.user.isGM") is True


def test_dpv_cover_goes_to_aimed_fire_options_and_area_fire_figures(dpv_table: Table) -> None:
    page = dpv_table.page
    shooter, target, other, *_ = _names(page)
    dialog = _open_cover_editor(dpv_table, target)
    # One entry (no list): material and thickness, labelled as aimed fire's options.
    assert dialog.locator('[data-ff-cover="add"]').count() == 0
    dialog.locator('[data-field="material"] select').select_option(value="1")
    dialog.locator('[data-field="thickness_cm"] input').fill("20")
    dialog.locator('[data-field="thickness_cm"] input').press("Enter")
    page.wait_for_function(f"(a) => !!({FLAG_JS})(a)", arg=[target, "dpv"])
    cover = page.evaluate(FLAG_JS, [target, "dpv"])
    assert cover["thickness_cm"] == 20
    # Aimed fire at it: the dialog's cover options are filled from the token.
    shot, before = _shoot(dpv_table, shooter, target)
    material = shot.locator('select[name="opt.options.cover_material"]')
    chosen = material.evaluate("(s) => s.options[s.selectedIndex].text")
    assert chosen
    assert chosen.lower() != "auto"
    shot.locator('[data-action="fire"]').click()
    page.wait_for_function("(n) => game.messages.contents.length > n", arg=before, timeout=20000)
    request = page.evaluate("""() => game.messages.contents
        .filter(m => m.flags.firefight?.request?.action === 'attack').at(-1)
        .flags.firefight.request""")
    assert (request["options"]["cover_material"], request["options"]["cover_thickness_cm"]) == (
        cover["material"], 20)
    assert "cover" not in request["target"]
    # Area fire at it and another: the figure behind cover carries it, the other none.
    dpv_table.reset()
    page.evaluate("""([a, ts]) => {
        const by = (n) => canvas.tokens.placeables.find((t) => t.name === n);
        by(a).control();
        for (const n of ts) by(n).setTarget(true, {releaseOthers: false});
    }""", [shooter, [target, other]])
    before = page.evaluate("() => game.messages.contents.length")
    page.evaluate("() => { game.modules.get('firefight').api.act('area_fire'); }")
    area = page.locator("dialog.firefight-action-dialog")
    area.wait_for()
    area.locator('select[name="weapon"]').select_option(label="Assault rifle (house)")
    area.locator('[data-action="go"]').click()
    page.wait_for_function("(n) => game.messages.contents.length > n", arg=before, timeout=20000)
    figures = {f["name"]: f for f in page.evaluate(LAST_REQUEST)["targets"]}
    assert figures[target]["cover"] == cover
    assert "cover" not in figures[other]
    assert not dpv_table.errors


def test_dpv_area_fire_offers_a_pc_the_duck_and_lets_an_npc_roll(dpv_table: Table) -> None:
    # 2300ad "Area Fire": a target may duck (its cover, no actions); NPCs duck on a roll.
    page = dpv_table.page
    shooter, pc, npc, *_ = _names(page)
    page.evaluate("""async (n) => {
        const player = game.users.find((u) => !u.isGM);
        const actor = canvas.tokens.placeables.find((t) => t.name === n).actor;
        await actor.update({[`ownership.${player.id}`]: 3});
    }""", pc)
    try:
        assert page.evaluate("(n) => canvas.tokens.placeables.find((t) => t.name === n)"
                             ".actor.hasPlayerOwner", pc) is True
        dpv_table.reset()
        page.evaluate("""([a, ts]) => {
            const by = (n) => canvas.tokens.placeables.find((t) => t.name === n);
            by(a).control();
            for (const n of ts) by(n).setTarget(true, {releaseOthers: false});
        }""", [shooter, [pc, npc]])
        before = page.evaluate("() => game.messages.contents.length")
        page.evaluate("() => { game.modules.get('firefight').api.act('area_fire'); }")
        area = page.locator("dialog.firefight-action-dialog")
        area.wait_for()
        rows = area.locator(".ff-figures tr")
        assert rows.filter(has_text=pc).locator('input[name^="duck."]').count() == 1
        assert rows.filter(has_text=npc).locator('input[name^="duck."]').count() == 0
        rows.filter(has_text=pc).get_by_label("Duck").check()
        area.locator('select[name="weapon"]').select_option(label="Assault rifle (house)")
        area.locator('[data-action="go"]').click()
        page.wait_for_function("(n) => game.messages.contents.length > n", arg=before,
                               timeout=20000)
        figures = {f["name"]: f for f in page.evaluate(LAST_REQUEST)["targets"]}
        assert figures[pc]["duck"] is True
        assert "duck" not in figures[npc]
        assert not dpv_table.errors
    finally:
        page.evaluate("""async (n) => {
            const player = game.users.find((u) => !u.isGM);
            const actor = canvas.tokens.placeables.find((t) => t.name === n).actor;
            await actor.update({[`ownership.-=${player.id}`]: null});
        }""", pc)


WALL_JS = """([a, b]) => {
    // A wall across the middle of the line from a to b (WallData `c`), drawn by the referee.
    const by = (n) => canvas.tokens.placeables.find((t) => t.name === n).center;
    const p = by(a), q = by(b);
    const m = {x: (p.x + q.x) / 2, y: (p.y + q.y) / 2};
    const len = Math.hypot(q.x - p.x, q.y - p.y);
    const n = {x: -(q.y - p.y) / len * 60, y: (q.x - p.x) / len * 60};
    return canvas.scene.createEmbeddedDocuments('Wall', [{c: [m.x - n.x, m.y - n.y, m.x + n.x,
                                                              m.y + n.y]}]);
}"""


def test_dpv_a_scene_wall_between_gives_cover_the_referees_wins(dpv_table: Table) -> None:
    # Cover from the scene's walls: a wall between the shooter and a token without cover of
    # its own gives the ruleset's wall cover (2300 AD: brick 20 cm, docs/rules-notes.md).
    page = dpv_table.page
    shooter, covered, _, open_target, *_ = _names(page)
    page.evaluate(WALL_JS, [shooter, open_target])
    shot, before = _shoot(dpv_table, shooter, open_target)
    material = shot.locator('select[name="opt.options.cover_material"]')
    assert material.evaluate("(s) => s.options[s.selectedIndex].text").startswith("Brick")
    shot.locator('[data-action="fire"]').click()
    page.wait_for_function("(n) => game.messages.contents.length > n", arg=before, timeout=20000)
    request = page.evaluate(LAST_REQUEST)
    assert (request["options"]["cover_material"], request["options"]["cover_thickness_cm"]) == (
        "brick_cement", 20)
    # The referee's cover on a token wins over a wall in front of it.
    own = page.evaluate(FLAG_JS, [covered, "dpv"])
    assert own
    page.evaluate(WALL_JS, [shooter, covered])
    shot, before = _shoot(dpv_table, shooter, covered)
    shot.locator('[data-action="fire"]').click()
    page.wait_for_function("(n) => game.messages.contents.length > n", arg=before, timeout=20000)
    request = page.evaluate(LAST_REQUEST)
    assert request["options"]["cover_material"] == own["material"]
    assert not dpv_table.errors


ONE_WAY_JS = """([a, b, dir]) => {
    // As WALL_JS, one-way (WallData dir, CONST.WALL_DIRECTIONS: LEFT 1, RIGHT 2). The wall runs
    // from one side of the line a-b to the other, so that a (the shooter) is on its right hand:
    // a LEFT wall is open towards a, a RIGHT wall closed.
    const by = (n) => canvas.tokens.placeables.find((t) => t.name === n).center;
    const p = by(a), q = by(b);
    const m = {x: (p.x + q.x) / 2, y: (p.y + q.y) / 2};
    const len = Math.hypot(q.x - p.x, q.y - p.y);
    const n = {x: -(q.y - p.y) / len * 60, y: (q.x - p.x) / len * 60};
    return canvas.scene.createEmbeddedDocuments('Wall', [{c: [m.x - n.x, m.y - n.y, m.x + n.x,
                                                              m.y + n.y], dir}]);
}"""


def fired_cover(t: Table, shooter: str, target: str) -> Any:
    shot, before = _shoot(t, shooter, target)
    shot.locator('[data-action="fire"]').click()
    t.page.wait_for_function("(n) => game.messages.contents.length > n", arg=before,
                             timeout=20000)
    return t.page.evaluate(LAST_REQUEST)["options"].get("cover_material")


def open_line(t: Table) -> tuple[str, str]:
    """A shooter and a target with no cover between them yet (no cover of its own, no wall
    across the line: the earlier tests of a table leave both on some tokens)."""
    names = _names(t.page)
    shooter = names[0]
    for target in reversed(names[1:]):
        if t.page.evaluate(FLAG_JS, [target, "dpv"]):
            continue
        if fired_cover(t, shooter, target) is None:
            return shooter, target
    raise AssertionError("no target in the open")


def test_dpv_a_one_way_wall_covers_only_from_its_closed_side(dpv_table: Table) -> None:
    # A shot that strikes a one-way wall's open side passes as if it were not there; one that
    # strikes its closed side gets the wall's cover (WallData `dir`, CONST.WALL_DIRECTIONS).
    page = dpv_table.page
    shooter, target = open_line(dpv_table)
    page.evaluate(ONE_WAY_JS, [shooter, target, 1])
    assert page.evaluate("() => canvas.scene.walls.contents.at(-1).dir") == 1
    assert fired_cover(dpv_table, shooter, target) is None
    page.evaluate(ONE_WAY_JS, [shooter, target, 2])
    assert fired_cover(dpv_table, shooter, target) == "brick_cement"
    # From the target's side the LEFT wall is the closed one.
    assert fired_cover(dpv_table, target, shooter) == "brick_cement"
    assert not dpv_table.errors


def test_the_sandbox_refuses_a_wall_direction_foundry_has_not(dpv_table: Table) -> None:
    """sandbox/README.md: WallData `dir` is one of CONST.WALL_DIRECTIONS (default BOTH)."""
    made = dpv_table.page.evaluate("""async () => {
        const out = {};
        const c = [-500, -500, -400, -500];  // off the board: no cover for later tests
        try { await canvas.scene.createEmbeddedDocuments('Wall', [{c, dir: 5}]);
              out.bad = 'created'; } catch (e) { out.bad = e.message; }
        const [wall] = await canvas.scene.createEmbeddedDocuments('Wall', [{c}]);
        out.dir = wall.dir;
        return out; }""")
    assert "dir" in made["bad"]
    assert made["dir"] == 0
