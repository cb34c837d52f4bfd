"""The per-system matrix: the same SHOCK fight in a world of each system shape the sandbox
imitates (?system=worldbuilding | dnd5e | pf2e; each puts its own ids in CONFIG.statusEffects).

One page per system, as the GM: a second token of the same unlinked NPC is dragged from the actors
directory onto the scene, one of the two is shot and stunned, the result applied and undone. The
stun lands as the system's own status id on that token's own (synthetic) actor only; the other
token and the world actor stay as they were; no error notification."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, Table, contexts_of, open_table
from test_actions_cover import ONE_WAY_JS, fired_cover, open_line

# Scripted dice (uniforms): hit location d10 = 4 (arm), severity d10 = 1: a STUN (shock, Table 3).
DICE_JS = """() => {
    globalThis.__realUniform ??= CONFIG.Dice.randomUniform;
    const seq = [0.35, 0.0];
    let i = 0;
    CONFIG.Dice.randomUniform = () => (i < seq.length ? seq[i++] : 0.0);
}"""
REAL_DICE_JS = """() => {
    if (globalThis.__realUniform) CONFIG.Dice.randomUniform = globalThis.__realUniform;
}"""
NPC_ID = "ffSTregular00000"
NPC = "Generic Regular"
SHOOTER = "Generic Veteran"
# The status a SHOCK stun shows as, in each system's own ids.
STUN = {"worldbuilding": "stun", "dnd5e": "stunned", "pf2e": "stunned"}
TOKENS_JS = """(name) => canvas.tokens.placeables.filter(t => t.name === name).map(t => ({
    id: t.id, uuid: t.actor.uuid, isToken: t.actor.isToken, actorId: t.actor.id,
    state: t.actor.flags.firefight.shock.state, statuses: [...t.actor.statuses].sort()}))"""
WORLD_JS = """(id) => { const a = game.actors.get(id);
    return {state: a.flags.firefight.shock.state, statuses: [...a.statuses].sort()}; }"""


@pytest.fixture(scope="module", params=["worldbuilding", "dnd5e", "pf2e"])
def world(request: Any, server: str, browser: Any) -> Iterator[Table]:
    context = contexts_of(browser).open(viewport={"width": 1440, "height": 900},
                                        settings={"firefight.ruleset": "shock"})
    page = context.new_page()
    t = Table(server, context, page)
    t.system = request.param  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.on("console", lambda m: t.console_errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{server}?system={request.param}&pack=shock-troops")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()


def test_shoot_apply_undo_with_two_tokens_of_one_npc(world: Table) -> None:
    page = world.page
    system = world.system  # type: ignore[attr-defined]
    assert page.evaluate("() => game.system.id") == system
    stun = STUN[system]
    assert page.evaluate("(id) => CONFIG.statusEffects.some(s => s.id === id)", stun)
    # A second token of the same NPC: drag the actor from the actors directory onto the scene.
    page.locator('[data-sidebar-tab="actors"][role="tab"]').click()
    entry = page.locator(f'#actors-list [data-document-id="{NPC_ID}"]')
    # An empty grid cell (column 11, row 12), in the board's own coordinates.
    drop = page.evaluate("""() => { const svg = document.getElementById('scene');
        const p = svg.createSVGPoint(); p.x = 1150; p.y = 1250;
        const q = p.matrixTransform(svg.getScreenCTM()); const r = svg.getBoundingClientRect();
        return {x: q.x - r.left, y: q.y - r.top}; }""")
    entry.drag_to(page.locator("#scene"), target_position=drop)
    page.wait_for_function(
        "(n) => canvas.tokens.placeables.filter(t => t.name === n).length === 2", arg=NPC)
    page.locator('[data-sidebar-tab="chat"][role="tab"]').click()
    tokens = page.evaluate(TOKENS_JS, NPC)
    assert all(t["isToken"] and t["actorId"] == NPC_ID for t in tokens)
    assert len({t["uuid"] for t in tokens}) == 2
    world_before = page.evaluate(WORLD_JS, NPC_ID)
    first, second = tokens
    # Select the shooter, target the first of the two, Shoot, confirm the hit, Fire.
    world.token(SHOOTER).click()
    page.locator(f'.token[data-token-id="{first["id"]}"]').click(button="right")
    page.evaluate(DICE_JS)
    try:
        page.locator("#shoot-button").click()
        dialog = page.locator("dialog.application.firefight-dialog")
        dialog.locator('[name="opt.options.referee_confirmed_hit"]').check()
        dialog.locator('[data-action="fire"]').click()
        card = page.locator(".chat-message.firefight-message").last
        card.locator('[data-firefight-action="apply-effects"]').wait_for()
    finally:
        page.evaluate(REAL_DICE_JS)
    mid = card.get_attribute("data-message-id")
    result = page.evaluate("(id) => game.messages.get(id).flags.firefight.result", mid)
    assert result["outcome"]["result"] == "stun"
    target = result["request"]["target"]
    assert target["token_id"] == f"Scene.sandboxScene0001.Token.{first['id']}"
    card.locator('[data-firefight-action="apply-effects"]').click()
    page.wait_for_function(
        "(id) => Boolean(game.messages.get(id).flags.firefight.applied)", arg=mid)
    after = {t["id"]: t for t in page.evaluate(TOKENS_JS, NPC)}
    # The stun is on the shot token's own actor, in the system's id; nowhere else.
    assert after[first["id"]]["state"] == "stunned"
    assert stun in after[first["id"]]["statuses"]
    assert after[second["id"]] == second
    assert page.evaluate(WORLD_JS, NPC_ID) == world_before
    mark = f'.token[data-token-id="{first["id"]}"] .status[data-status="{stun}"]'
    assert page.locator(mark).count() == 1
    world.shot(f"systems-{system}-applied")
    # Undo restores that token's actor exactly.
    page.locator(f'[data-message-id="{mid}"] [data-firefight-action="undo-effects"]').click()
    page.wait_for_function(
        "(id) => Boolean(game.messages.get(id).flags.firefight.undone)", arg=mid)
    assert {t["id"]: t for t in page.evaluate(TOKENS_JS, NPC)} == {first["id"]: first,
                                                                    second["id"]: second}
    assert page.evaluate(WORLD_JS, NPC_ID) == world_before
    assert page.locator(".notification.error").count() == 0
    assert world.errors == []


def test_update_hooks_get_the_changes_expanded_as_foundry_gives_them(world: Table) -> None:
    # sandbox/README.md: Foundry's pre/update hooks see `changed` expanded (dnd5e reads it with
    # foundry.utils.hasProperty); a shim reading a dotted key there would work only in the sandbox.
    seen = world.page.evaluate("""async (id) => {
        const seen = [];
        const pre = Hooks.on("preUpdateActor", (a, changed) => seen.push(Object.keys(changed)));
        const post = Hooks.on("updateActor",
            (a, changed) => seen.push(changed?.flags?.firefight?.probe ?? null));
        const actor = game.actors.get(id);
        await actor.update({"flags.firefight.probe": 1});
        await actor.update({"flags.firefight.-=probe": null});
        Hooks.off("preUpdateActor", pre); Hooks.off("updateActor", post);
        return {seen, left: "probe" in (actor.flags.firefight ?? {})};
    }""", NPC_ID)
    assert seen["seen"][:2] == [["flags"], 1]
    assert seen["left"] is False


def test_a_rulesets_submenu_renders_and_saves(world: Table) -> None:
    """Configure Settings -> the ruleset's "Rules and house rules": an ApplicationV2 renders only
    with both of its abstract methods (foundry-v13-audit C1); a changed field is saved."""
    page = world.page
    page.click("#settings-button")
    dialog = page.locator("dialog.settings-config")
    dialog.locator('[data-menu="firefight.rules.shock"] button').click()
    form = page.locator("form.firefight-settings")
    form.wait_for()
    field = form.locator(".form-group input, .form-group select").first
    name = field.get_attribute("name")
    kind = field.evaluate("(el) => el.type")
    if kind == "checkbox":
        want: Any = not field.is_checked()
        field.click()
    elif kind == "select-one":
        want = field.evaluate("(el) => [...el.options].map(o => o.value).find(v => v !== el.value)")
        field.select_option(want)
    else:
        want = float(field.input_value() or 0) + 1
        field.fill(str(want))
    form.locator('button[data-action="save"]').click()
    form.wait_for(state="detached")
    saved = page.evaluate("(k) => game.settings.get('firefight', k)", name)
    assert saved == want, (name, saved, want)
    # Back as it was, for the tests that follow.
    page.evaluate("([k, v]) => game.settings.set('firefight', k, v)",
                  [name, (not want) if kind == "checkbox" else saved])
    dialog.locator('[data-action="close"]').first.click()
    assert world.errors == []


def test_the_firefight_tab_stays_out_of_the_systems_form(world: Table) -> None:
    """The system's sheet is a form that submits on change (dnd5e DocumentSheetV2, the AppV1
    sheets of Simple Worldbuilding and pf2e); an edit in the Firefight tab never submits it with
    Firefight's fields (foundry-v13-audit C2), while the sheet's own fields still save."""
    page = world.page
    world.token(SHOOTER).dblclick()
    sheet = page.locator("section.actor-sheet", has_text=SHOOTER).last
    sheet.wait_for()
    sheet.locator("nav .firefight-tab").click()
    field = sheet.locator(".firefight-sheet .ff-sheet-form input[type=number]").first
    field.fill(str(int(float(field.input_value() or 0)) + 1))
    page.keyboard.press("Tab")  # the change event
    page.wait_for_timeout(300)
    assert world.errors == []
    assert page.locator(".notification.error").count() == 0
    # The system's own field submits with its form, as before.
    sheet.locator('nav [data-tab="details"]').click()
    name = sheet.locator('form.window-content input[name="name"]')
    before = name.input_value()
    name.fill(f"{before} II")
    page.keyboard.press("Tab")
    actor_js = "(n) => canvas.tokens.placeables.find(t => t.actor?.name === n)?.actor"
    page.wait_for_function(f"(n) => Boolean(({actor_js})(n))", arg=f"{before} II")
    page.evaluate(f"([from, to]) => ({actor_js})(from).update({{name: to}})",
                  [f"{before} II", before])
    sheet.locator('[data-action="close"]').first.click()
    assert world.errors == []


PLAYER_SHOT_JS = """() => ({owned: canvas.tokens.placeables.filter(t => t.isOwner).map(t => t.name),
    others: canvas.tokens.placeables.filter(t => !t.isOwner).map(t => t.name)})"""


@pytest.mark.parametrize("mode", ["publicroll", "gmroll", "blindroll", "selfroll"])
def test_a_gm_rolled_shot_reaches_its_shooter_as_their_roll_mode_shows_it(
        world: Table, mode: str) -> None:
    """With "The GM's client rolls players' shots", the GM's client posts the player's card; the
    player reads it as Foundry shows their own roll in that mode (foundry-v13-audit B1): public
    and private GM roll and self roll in full, a blind roll as a roll they may not read."""
    gm = world.page
    player = _player_page(world)
    gm.evaluate("() => game.settings.set('firefight', 'gmRollsShots', true)")
    player.wait_for_function("() => game.settings.get('firefight', 'gmRollsShots') === true")
    try:
        tokens = player.evaluate(PLAYER_SHOT_JS)
        shooter, target = tokens["owned"][0], tokens["others"][0]
        player.select_option("#rollmode-select", mode)
        player.evaluate("""() => { canvas.tokens.releaseAll();
            for (const t of [...game.user.targets]) t.setTarget(false, {releaseOthers: false});
        }""")
        seen = player.evaluate("() => game.messages.contents.map(m => m.id)")
        player.locator(f'.token[data-name="{shooter}"]').click()
        player.locator(f'.token[data-name="{target}"]').click(button="right")
        player.locator("#shoot-button").click()
        dialog = player.locator("dialog.application.firefight-dialog")
        dialog.locator("[data-odds-value]").filter(has_text="%").wait_for()
        # A hit the referee confirmed: the card rolls dice (a whispered roll is seen as rolled).
        dialog.locator('[name="opt.options.referee_confirmed_hit"]').check()
        dialog.locator('button[data-action="fire"]').click()
        new_card = """(seen) => game.messages.contents.find(m => !seen.includes(m.id)
            && m.flags?.firefight?.result)?.id"""
        player.wait_for_function(new_card, arg=seen)
        mid = player.evaluate(new_card, seen)
        source = gm.evaluate("(id) => game.messages.get(id).toObject()", mid)
        assert source["flags"]["firefight"]["rolledFor"] == "sandboxPlayer001"
        mine = player.locator(f'[data-message-id="{mid}"]')
        mine.wait_for()
        if mode == "blindroll":
            assert "blind" in (mine.get_attribute("class") or "")
            assert mine.locator(".firefight-card").count() == 0
        else:
            mine.locator(".firefight-card").wait_for()
        assert player.locator(".notification.error").count() == 0
    finally:
        player.select_option("#rollmode-select", "publicroll")
        gm.evaluate("() => game.settings.set('firefight', 'gmRollsShots', false)")
    assert world.errors == []


def _player_page(world: Table) -> Any:
    """Player 1's page of the same world (one per system), opened once."""
    page = getattr(world, "player", None)
    if page is None:
        page = world.context.new_page()
        errors = world.errors
        page.on("pageerror", lambda e: errors.append(f"player: {e}"))
        page.goto(f"{world.base}?system={world.system}&pack=shock-troops"  # type: ignore[attr-defined]
                  "&user=Player%201")
        page.wait_for_function("() => game.ready === true", timeout=30000)
        page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
        world.player = page  # type: ignore[attr-defined]
    return page


def test_the_scene_actors_say_which_version_of_the_system_data_they_hold(world: Table) -> None:
    """The scene's actors come from the world system's pack (shock-troops-<system>): pf2e reads
    system._migration.version, dnd5e _stats.systemVersion (sandbox/foundry/systems.mjs); without
    them the sandbox reports what the system would do (a lasting error for the GM)."""
    page = world.page
    reports = [n for n in page.locator("#notifications .notification").all_inner_texts()
               if " would " in n]
    assert reports == []
    assert [e for e in world.console_errors if " would " in e] == []
    stamps = page.evaluate("""() => game.actors.contents.map((a) => ({
        stats: a._source?._stats ?? null, migration: a._source?.system?._migration ?? null}))""")
    assert stamps
    for stamp in stamps:
        assert stamp["stats"]["systemId"] == world.system  # type: ignore[attr-defined]


# The tab places of pf2e's two actor sheets, as their templates lay them out (foundryvtt/pf2e
# static/templates/actors/character/sheet.hbs, npc/sheet.hbs): structure only.
PF2E_SHEETS_JS = """async () => {
    const { adapterFor } = await import(new URL('modules/firefight/js-shim/systems/index.mjs',
        location.href).href);
    const { tabPlaces } = await import(new URL('modules/firefight/js-shim/documents/sheet.mjs',
        location.href).href);
    const character = `<form><aside><div class="sidebar" data-tab="sidebar"></div></aside>
        <nav class="sheet-navigation" data-group="primary">
        <a class="item" data-tab="character"></a></nav>
        <section class="sheet-body"><section class="sheet-content">
        <div class="tab" data-tab="character"></div></section></section></form>`;
    const npc = `<form class="npc-sheet"><div class="side-bar"></div><div class="npc-body">
        <nav class="sheet-tabs tabs" data-group="primary"><a class="item" data-tab="main"></a>
        </nav><section class="sheet-body"><div class="tab main" data-tab="main"></div></section>
        </div></form>`;
    const { sheet } = adapterFor('pf2e');
    return Object.fromEntries([['character', character], ['npc', npc]].map(([name, html]) => {
        const root = document.createElement('div');
        root.innerHTML = html;
        const named = { nav: root.querySelector(sheet.nav), body: root.querySelector(sheet.body) };
        const places = tabPlaces(root, sheet);
        const tab = (el) => el?.querySelector('[data-tab]')?.dataset.tab ?? null;
        return [name, { named: [tab(named.nav), tab(named.body)],
                        found: [tab(places.nav), tab(places.body)] }];
    }));
}"""


def test_the_pf2e_adapter_names_the_tabs_of_both_pf2e_actor_sheets(world: Table) -> None:
    # audit D2: the NPC sheet's nav and body are not the character sheet's.
    if world.system != "pf2e":  # type: ignore[attr-defined]
        pytest.skip("pf2e's sheets")
    places = world.page.evaluate(PF2E_SHEETS_JS)
    assert places["character"] == {"named": ["character", "character"],
                                   "found": ["character", "character"]}
    assert places["npc"] == {"named": ["main", "main"], "found": ["main", "main"]}


def test_the_ruleset_setting_lists_the_engines_rulesets_and_refuses_others(world: Table) -> None:
    # sandbox/README.md: a setting's choices are those its field gives now (catalog.mjs registers
    # a StringField with a choices function), and a value outside them is refused.
    page = world.page
    page.click("#settings-button")
    select = page.locator('dialog.settings-config select[name="firefight.ruleset"]')
    select.wait_for()
    values = select.locator("option").evaluate_all("(os) => os.map((o) => o.value)")
    page.keyboard.press("Escape")
    assert set(values) == {"dpv", "percentile", "shock", "soe"}
    refused = page.evaluate("""() => game.settings.set('firefight', 'ruleset', 'nope')
        .then(() => 'accepted', (e) => e.message)""")
    assert refused == "The setting firefight.ruleset: nope is not a valid choice"
    assert page.evaluate("() => game.settings.get('firefight', 'ruleset')") == "shock"


@pytest.fixture(scope="module", params=["worldbuilding", "dnd5e", "pf2e"])
def dpv_world(request: Any, server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "dpv", "dpv-npcs", system=request.param)
    t.system = request.param  # type: ignore[attr-defined]
    yield t
    t.context.close()


def test_a_one_way_wall_covers_only_from_its_closed_side(dpv_world: Table) -> None:
    # test_actions_cover.py's one-way wall, in each system shape (2300 AD: its wall cover).
    page = dpv_world.page
    assert page.evaluate("() => game.system.id") == dpv_world.system  # type: ignore[attr-defined]
    shooter, target = open_line(dpv_world)
    page.evaluate(ONE_WAY_JS, [shooter, target, 1])
    assert fired_cover(dpv_world, shooter, target) is None
    page.evaluate(ONE_WAY_JS, [shooter, target, 2])
    assert fired_cover(dpv_world, shooter, target) == "brick_cement"
    assert not dpv_world.errors
