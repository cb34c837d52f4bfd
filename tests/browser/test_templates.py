"""Templates placed by hand and several targets in one shot (issue 16, "Player-placed templates
for area and explosive fire, and several targets in one shot where the ruleset allows it";
issue 14, "Area fire"), played as a person does: the Measurement controls' circle dragged with
the mouse (a player may, and may delete only their own), "Place area" from the Shoot dialog
(reached by keyboard, a preview under the pointer, a click places it, Escape cancels), and Shoot
with several targeted tokens: 2300 AD's aimed fire at each (one card per target), Stars of
Empire's one target refused naming them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Table, open_table

# Scene point -> window point (the board is an SVG scaled to fit).
CLIENT_JS = """([x, y]) => {
    const svg = document.getElementById('scene');
    const p = svg.createSVGPoint();
    p.x = x; p.y = y;
    const q = p.matrixTransform(svg.getScreenCTM());
    return {x: q.x, y: q.y};
}"""
TEMPLATES_JS = """() => canvas.scene.templates.map((t) => ({id: t.id, x: t.x, y: t.y,
    distance: t.distance, user: t.user, area: Boolean(t.flags.firefight?.area)}))"""
CLEAR_JS = """() => canvas.scene.deleteEmbeddedDocuments('MeasuredTemplate',
    canvas.scene.templates.map((t) => t.id))"""
GRID_JS = "() => ({size: canvas.grid.size, distance: canvas.grid.distance})"
TOKENS_JS = """() => canvas.tokens.placeables.map((t) => ({name: t.name, id: t.id,
    x: t.center.x, y: t.center.y}))"""
DIAMETER_JS = """() => game.settings.get('firefight', 'catalog').rulesets
    .find((r) => r.id === 'dpv').features.areaFire.diameterM"""
MESSAGES = "() => game.messages.size"


def _client(page: Any, x: float, y: float) -> tuple[float, float]:
    p = page.evaluate(CLIENT_JS, [x, y])
    return p["x"], p["y"]


def _select_and_target(page: Any, shooter: str, targets: list[str]) -> None:
    """Click the shooter; right-click the first target, Shift+right-click the others."""
    page.evaluate("() => { for (const t of [...game.user.targets]) "
                  "t.setTarget(false, {releaseOthers: false}); canvas.tokens.releaseAll(); }")
    page.locator(f'.token[data-name="{shooter}"]').click()
    for i, name in enumerate(targets):
        page.locator(f'.token[data-name="{name}"]').click(
            button="right", modifiers=["Shift"] if i else [])


@pytest.fixture(scope="module")
def dpv_table(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "dpv", "dpv-npcs")
    yield t
    t.context.close()


@pytest.fixture(scope="module")
def soe_player(server: str, browser: Any) -> Iterator[Table]:
    """Stars of Empire's table as Player 1 (who owns the rifleman)."""
    t = open_table(server, browser, "soe", "soe-actors", user="Player 1")
    yield t
    t.context.close()


def test_a_player_drags_a_circle_template_and_deletes_only_their_own(soe_player: Table) -> None:
    t = soe_player
    page = t.page
    grid = page.evaluate(GRID_JS)
    # The Measurement controls, then its circle tool (Foundry v13's "templates" control).
    page.locator('#scene-controls [data-control="templates"]').click()
    tool = page.locator('#scene-controls [data-tool="circle"]')
    tool.click()
    assert tool.get_attribute("aria-pressed") == "true"
    # Drag from a little off a grid point to 3 squares right and 4 down: both ends snap to the
    # layer's points, the radius is 5 squares.
    size = grid["size"]
    x0, y0 = _client(page, 6 * size + 7, 6 * size - 6)
    x1, y1 = _client(page, 9 * size - 4, 10 * size + 5)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    assert page.locator("#scene .templates .template.preview").count() == 1
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()
    made = page.evaluate(TEMPLATES_JS)
    assert len(made) == 1
    assert (made[0]["x"], made[0]["y"]) == (6 * size, 6 * size)
    assert made[0]["distance"] == pytest.approx(5 * grid["distance"])
    assert made[0]["user"] == page.evaluate("() => game.user.id")
    assert page.locator("#scene .templates .template.preview").count() == 0
    t.shot("90-template-dragged")
    # A template the GM drew: the player's double-click leaves it, with a warning.
    gm_template = page.evaluate("""async () => (await canvas.scene.createEmbeddedDocuments(
        'MeasuredTemplate', [{t: 'circle', x: 14 * canvas.grid.size, y: 6 * canvas.grid.size,
                              distance: canvas.grid.distance,
                              user: game.users.find((u) => u.isGM).id}]))[0].id""")
    page.locator(f'#scene [data-template-id="{gm_template}"]').dblclick(
        position={"x": 30, "y": 30})
    page.locator("#notifications .notification.warning").first.wait_for()
    assert gm_template in [m["id"] for m in page.evaluate(TEMPLATES_JS)]
    refused = page.evaluate("""(id) => canvas.scene.deleteEmbeddedDocuments(
        'MeasuredTemplate', [id]).then(() => null, (e) => e.message)""", gm_template)
    assert "lacks permission to delete" in (refused or "")
    # Their own: a double-click removes it.
    own = page.locator(f'#scene [data-template-id="{made[0]["id"]}"]')
    box = own.bounding_box()
    assert box
    own.dblclick(position={"x": box["width"] * 0.8, "y": box["height"] * 0.8})
    page.wait_for_function("(id) => !canvas.scene.templates.has(id)", arg=made[0]["id"])
    # Back to the tokens: the template tool is off.
    page.locator('#scene-controls [data-control="tokens"]').click()
    assert page.evaluate("() => canvas.activeLayer === canvas.tokens")
    assert not t.errors


def test_place_area_is_not_offered_with_a_grenade(dpv_table: Table) -> None:
    """Issue 25 item 2 (UX walkthrough 3 #3): with a grenade, "Place area" opened Area fire,
    which refused it ("area fire needs an AFV"). A grenade is thrown at a target and its blast
    placed where it lands, so the button is hidden while a grenade is chosen and back with a
    rifle (docs/rules-notes.md, "Place area with a grenade")."""
    page = dpv_table.page
    page.evaluate(CLEAR_JS)
    tokens = page.evaluate(TOKENS_JS)
    _select_and_target(page, tokens[0]["name"], [tokens[1]["name"]])
    page.click("#shoot-button")
    dialog = page.locator("dialog.application").filter(has=page.locator(".firefight-shot"))
    dialog.wait_for()
    weapon = dialog.locator('select[name="weapon"]')
    place = dialog.locator('button[data-action="place"]')
    weapon.select_option(label="Hand grenade (house)")
    assert place.is_hidden()
    weapon.select_option(label="Assault rifle (house)")
    assert place.is_visible()
    dialog.locator('[data-action="cancel"]').click()
    dialog.wait_for(state="detached")


def test_place_area_from_the_shoot_dialog_then_escape_cancels(dpv_table: Table) -> None:
    page = dpv_table.page
    page.evaluate(CLEAR_JS)
    tokens = page.evaluate(TOKENS_JS)
    shooter, aim = tokens[0], tokens[1]
    _select_and_target(page, shooter["name"], [aim["name"]])
    page.click("#shoot-button")
    dialog = page.locator("dialog.application").filter(has=page.locator(".firefight-shot"))
    dialog.wait_for()
    dialog.locator('select[name="weapon"]').select_option(label="Assault rifle (house)")
    # "Place area" by keyboard: the dialog closes and a preview circle follows the pointer.
    place = dialog.locator('button[data-action="place"]')
    place.focus()
    page.keyboard.press("Enter")
    dialog.wait_for(state="detached")
    preview = page.locator("#scene .templates .template.preview")
    preview.wait_for()
    grid = page.evaluate(GRID_JS)
    cx, cy = _client(page, aim["x"] + 3, aim["y"] - 4)
    page.mouse.move(cx - 40, cy - 40)
    page.mouse.move(cx, cy, steps=3)
    half = grid["size"] / 2
    snapped = (round((aim["x"] + 3) / half) * half, round((aim["y"] - 4) / half) * half)
    assert (float(preview.get_attribute("cx") or 0), float(preview.get_attribute("cy") or 0)) \
        == snapped
    before = page.evaluate(MESSAGES)
    page.mouse.click(cx, cy)
    # The area (the declared diameter, 1 unit = 1 m here), then area fire at it.
    area = [m for m in page.evaluate(TEMPLATES_JS) if m["area"]]
    assert len(area) == 1
    assert (area[0]["x"], area[0]["y"]) == snapped
    assert area[0]["distance"] == page.evaluate(DIAMETER_JS) / 2
    assert preview.count() == 0
    fire = page.locator("dialog.firefight-action-dialog")
    fire.wait_for()
    assert aim["name"] in fire.locator(".ff-figures").inner_text()
    dpv_table.shot("91-template-placed-area-fire")
    fire.locator('[data-action="go"]').click()
    page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=20000)
    request = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.request")
    assert request["action"] == "area_fire"
    assert aim["name"] in [f["name"] for f in request["targets"]]
    # Again from the area-fire dialog, now cancelled with Escape: no template, no card.
    page.evaluate(CLEAR_JS)
    page.evaluate("() => { game.modules.get('firefight').api.act('area_fire'); }")
    fire.wait_for()
    fire.locator('button[data-action="place"]').click()
    preview.wait_for()
    page.mouse.move(cx, cy)
    count = page.evaluate(MESSAGES)
    page.keyboard.press("Escape")
    preview.wait_for(state="detached")
    page.mouse.click(cx, cy)  # the canvas is the tokens' again: a click places nothing
    assert page.evaluate(TEMPLATES_JS) == []
    assert page.evaluate(MESSAGES) == count
    assert not dpv_table.errors


def test_several_targets_one_card_each_where_the_ruleset_allows(dpv_table: Table) -> None:
    page = dpv_table.page
    page.evaluate(CLEAR_JS)
    tokens = page.evaluate(TOKENS_JS)
    shooter = tokens[0]
    # Two figures side by side far down the line of fire: well within 2300 AD's 30 degree arc.
    size = page.evaluate(GRID_JS)["size"]
    names = [tokens[1]["name"], tokens[2]["name"]]
    page.evaluate("""async ([n, x, y]) => {
        const by = (m) => canvas.tokens.placeables.find((t) => t.name === m);
        await by(n[0]).document.update({x, y});
        await by(n[1]).document.update({x: x + canvas.grid.size, y});
    }""", [names, shooter["x"] - size / 2, shooter["y"] - size / 2 + 6 * size])
    _select_and_target(page, shooter["name"], names)
    page.click("#shoot-button")
    dialog = page.locator("dialog.application").filter(has=page.locator(".firefight-shot"))
    dialog.wait_for()
    assert [dialog.locator(f'.ff-matchup [data-target] >> nth={i}').inner_text()
            for i in range(2)] == names
    dialog.locator('select[name="weapon"]').select_option(label="Assault rifle (house)")
    before = page.evaluate(MESSAGES)
    dialog.locator('[data-action="fire"]').click()
    page.wait_for_function("(n) => game.messages.size >= n + 2", arg=before, timeout=30000)
    requests = page.evaluate("""(n) => game.messages.contents.slice(n)
        .map((m) => m.flags.firefight?.request).filter((r) => r?.action === 'attack')""", before)
    assert [r["target"]["name"] for r in requests] == names
    assert requests[0]["range"] != requests[1]["range"]
    dpv_table.shot("92-template-several-targets")
    assert not dpv_table.errors


def test_one_target_rulesets_refuse_several_naming_them(soe_player: Table) -> None:
    page = soe_player.page
    shooter = page.evaluate("() => canvas.tokens.placeables.find((t) => t.isOwner).name")
    others = [t["name"] for t in page.evaluate(TOKENS_JS) if t["name"] != shooter]
    _select_and_target(page, shooter, others[:2])
    before = page.evaluate(MESSAGES)
    page.click("#shoot-button")
    error = page.locator("#notifications .notification.error", has_text="one target")
    error.wait_for()
    assert others[0] in error.inner_text()
    assert others[1] in error.inner_text()
    assert page.locator("dialog.application .firefight-shot").count() == 0
    assert page.evaluate(MESSAGES) == before
    assert not soe_player.errors


def test_place_a_charge_from_the_explosion_dialog(dpv_table: Table) -> None:
    page = dpv_table.page
    page.evaluate(CLEAR_JS)
    tokens = page.evaluate(TOKENS_JS)
    _select_and_target(page, tokens[0]["name"], [])
    page.evaluate("() => { game.modules.get('firefight').api.act('explosion'); }")
    dialog = page.locator("dialog.firefight-action-dialog")
    dialog.wait_for()
    dialog.locator('input[name="opt.ep"]').fill("2")
    dialog.locator('button[data-action="place"]').click()
    preview = page.locator("#scene .templates .template.preview")
    preview.wait_for()
    # EP 2: the preview reaches as far as the declared concussion steps say, before any roll.
    reach = page.evaluate("""() => game.settings.get('firefight', 'catalog').rulesets
        .find((r) => r.id === 'dpv').features.explosion.concussionReach
        .filter((s) => s.ep <= 2).at(-1).reach_m""")
    assert float(preview.get_attribute("r") or 0) == pytest.approx(reach * 20)
    victim = tokens[1]
    cx, cy = _client(page, victim["x"], victim["y"])
    before = page.evaluate(MESSAGES)
    page.mouse.move(cx, cy)
    page.mouse.click(cx, cy)
    page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=20000)
    request = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.request")
    assert request["action"] == "explosion"
    assert request["ep"] == 2
    assert victim["name"] in [f["name"] for f in request["targets"]]
    page.evaluate(CLEAR_JS)
    assert not dpv_table.errors


RIFLE_AMMO_JS = """([shooter, ammo]) => {
    const item = canvas.tokens.placeables.find((t) => t.name === shooter).actor.items
        .find((i) => i.name === 'Assault rifle (house)');
    return ammo === undefined ? item.flags.firefight.ammo ?? null
        : item.update({'flags.firefight.ammo': ammo}).then(() => null);
}"""


def test_area_fire_at_a_placed_area_spends_its_rounds_and_a_short_burst_is_refused(
        dpv_table: Table) -> None:
    """2300 AD's area fire fires bursts x the weapon's RPB (3): from a five-round magazine one
    burst leaves two; the next is refused before any dice, naming the rounds."""
    page = dpv_table.page
    page.evaluate(CLEAR_JS)
    tokens = page.evaluate(TOKENS_JS)
    shooter, aim = tokens[0], tokens[1]
    page.evaluate(RIFLE_AMMO_JS, [shooter["name"], {"capacity": 5, "loaded": 5}])
    _select_and_target(page, shooter["name"], [aim["name"]])
    cx, cy = _client(page, aim["x"], aim["y"])
    fire = page.locator("dialog.firefight-action-dialog")
    for loaded, after in ((5, 2), (2, 2)):
        page.evaluate("() => { game.modules.get('firefight').api.act('area_fire'); }")
        fire.wait_for()
        fire.locator('select[name="weapon"]').select_option(label="Assault rifle (house)")
        line = fire.locator("[data-firefight-ammo]")
        line.filter(has_text=f"{loaded}/5 · this shot fires 3").wait_for()
        assert line.locator(".ff-short").count() == (loaded < 3)
        count = page.evaluate(MESSAGES)
        fire.locator('button[data-action="place"]').click()
        if loaded >= 3:
            page.locator("#scene .templates .template.preview").wait_for()
            page.mouse.move(cx, cy)
            page.mouse.click(cx, cy)
            page.wait_for_function("(n) => game.messages.size > n", arg=count, timeout=20000)
            result = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.result")
            assert result["action"] == "area_fire"
            assert result["outcome"]["rounds_fired"] == 3
        else:
            # Refused before the area is placed: no preview, no template, no card.
            page.locator("#notifications .notification.error",
                         has_text="has 2 of 5 rounds loaded; this shot fires 3").wait_for()
            assert page.locator("#scene .templates .template.preview").count() == 0
            assert page.evaluate(TEMPLATES_JS) == []
            assert page.evaluate(MESSAGES) == count
        page.wait_for_function(f"(a) => ({RIFLE_AMMO_JS})(a).loaded === {after}",
                               arg=[shooter["name"]])
        page.evaluate(CLEAR_JS)
    page.evaluate(RIFLE_AMMO_JS, [shooter["name"], None])  # untracked again
    assert not dpv_table.errors
