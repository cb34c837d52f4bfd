"""The sandbox table end to end: tokens -> dialog with live odds -> engine -> chat card."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from _js import SETTLED_JS

RIFLEMAN = "Rifleman Aldo Ferri"
OFFICER = "Officer Vera Lind"
RHINO = "Lesser Venusian Rhino"

CHANGED_JS = "(old) => document.querySelector('[data-odds-value]').textContent !== old"
# A shot's range: the straight line between the tokens (GridMeasurePathResult#euclidean).
RANGE_JS = """() => canvas.grid.measurePath(
    [canvas.tokens.controlled[0].center, [...game.user.targets][0].center]).euclidean"""
POSITION_JS = """(name) => {
    const d = canvas.tokens.placeables.find(t => t.name === name).document;
    return [d.x, d.y];
}"""
MOVE_JS = """([name, x, y]) =>
    canvas.tokens.placeables.find(t => t.name === name).document.update({x, y})"""


def _odds(page: Any) -> str:
    return page.locator("[data-odds-value]").inner_text()


def _wait_odds_settled(page: Any) -> str:
    page.wait_for_function(SETTLED_JS, timeout=60000)
    return _odds(page)


def _select_and_target(table: Any, shooter: str, target: str) -> None:
    table.reset()
    table.token(shooter).click()
    table.token(target).click(button="right")


def test_page_loads(table: Any) -> None:
    page = table.page
    assert page.title() == "Firefight · Sandbox table"
    assert page.locator(".token").count() == 3
    for name in (RIFLEMAN, OFFICER, RHINO):
        assert table.token(name).count() == 1
    api = page.evaluate("() => Object.keys(game.modules.get('firefight').api).sort()")
    assert api == ["act", "advanceTime", "apply", "catalog", "combat", "engine", "explodeAt",
                   "metresBetween", "odds", "resolve", "ruleset", "settings", "sheet", "shoot",
                   "undo"]
    assert table.errors == []
    assert table.console_errors == []


def test_engine_becomes_ready(ready_table: Any) -> None:
    page = ready_table.page
    assert page.evaluate("() => game.modules.get('firefight').api.engine.status") == "ready"
    hello = page.evaluate("() => game.modules.get('firefight').api.engine.call('hello')")
    assert any(r["id"] == "soe" for r in hello["rulesets"])
    # A fresh world plays the engine's default ruleset; the GM's client records it once known.
    page.wait_for_function("() => game.settings.get('firefight', 'ruleset') === 'soe'")
    assert page.evaluate("() => game.modules.get('firefight').api.ruleset()") == "soe"
    ready_table.shot("01-ready")


def test_select_and_target(ready_table: Any) -> None:
    page = ready_table.page
    _select_and_target(ready_table, RIFLEMAN, RHINO)
    assert page.evaluate("() => canvas.tokens.controlled.map(t => t.name)") == [RIFLEMAN]
    assert page.evaluate("() => [...game.user.targets].map(t => t.name)") == [RHINO]
    assert "controlled" in (ready_table.token(RIFLEMAN).get_attribute("class") or "")
    assert "targeted" in (ready_table.token(RHINO).get_attribute("class") or "")
    assert re.fullmatch(r"\d+(\.\d)? m", page.locator("#step-range .value").inner_text())
    assert page.locator("#shoot-button").is_enabled()


def test_reading_the_targets_sheet_keeps_it_targeted_and_says_so(ready_table: Any) -> None:
    """Issue 25 item 9 (UX walkthrough 3 #13): a double-click on the target to read its sheet
    selects it; the panel still names it as the target (it was "Right-click a token", and a
    right-click then untargeted it: targeting again toggles the target off, as in Foundry)."""
    page = ready_table.page
    _select_and_target(ready_table, RIFLEMAN, RHINO)
    ready_table.token(RHINO).dblclick()
    sheet = page.locator(f'section.actor-sheet:has-text("{RHINO}")').last
    sheet.wait_for()
    sheet.locator('[data-action="close"]').click()
    target = page.locator("#step-target .value")
    assert RHINO in target.inner_text()
    assert "Right-click" not in target.inner_text()
    # Clicking the shooter again is all it takes: Shoot is ready.
    ready_table.token(RIFLEMAN).click()
    assert RHINO in target.inner_text()
    assert page.locator("#shoot-button").is_enabled()
    # A second right-click on the target toggles it off.
    ready_table.token(RHINO).click(button="right")
    assert page.evaluate("() => game.user.targets.size") == 0
    assert "Right-click a token" in target.inner_text()
    assert page.locator("#shoot-button").is_disabled()


def test_drag_changes_range(ready_table: Any) -> None:
    page = ready_table.page
    _select_and_target(ready_table, RIFLEMAN, RHINO)
    before = page.evaluate(RANGE_JS)
    home = page.evaluate(POSITION_JS, RIFLEMAN)
    box = ready_table.token(RIFLEMAN).bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 150, cy - 60, steps=8)
    page.mouse.up()
    page.wait_for_timeout(100)
    after = page.evaluate(RANGE_JS)
    assert after < before
    x, y = page.evaluate(POSITION_JS, RIFLEMAN)
    assert [x % 100, y % 100] == [0, 0]  # snapped to the grid
    page.evaluate(MOVE_JS, [RIFLEMAN, *home])


def test_shot_dialog_odds_and_chat_card(ready_table: Any) -> None:
    page = ready_table.page
    _select_and_target(ready_table, RIFLEMAN, RHINO)
    count_before = page.evaluate("() => game.messages.size")
    page.click("#shoot-button")
    page.wait_for_selector("dialog.application .firefight-shot")
    first = _wait_odds_settled(page)
    assert re.fullmatch(r"\d{1,3}\.\d%", first), first
    ready_table.shot("02-dialog")
    # Changing an option changes the exact hit chance.
    page.select_option('select[name="opt.options.mode"]', label="Quickfire")
    page.wait_for_function(CHANGED_JS, arg=first, timeout=60000)
    second = _wait_odds_settled(page)
    assert second != first
    page.check('input[name="opt.options.target_dodging"]')
    page.wait_for_function(CHANGED_JS, arg=second, timeout=60000)
    third = _wait_odds_settled(page)
    assert float(third.rstrip("%")) < float(second.rstrip("%"))
    page.click('dialog.application button[data-action="fire"]')
    page.wait_for_function("(n) => game.messages.size === n", arg=count_before + 1, timeout=60000)
    card = page.locator(".chat-message").last
    card.locator(".firefight-card").wait_for()
    ready_table.shot("03-card")
    # The card shows the modifiers and the dice.
    assert card.locator(".ff-modifier").count() >= 3
    assert card.locator(".ff-die").count() >= 2
    assert "Quickfire" in card.inner_text()

    msg = page.evaluate("""() => {
        const m = game.messages.contents.at(-1);
        const rolls = m.rolls.map(r => r.toJSON());
        return { flags: m.flags.firefight, rolls, speaker: m.speaker };
    }""")
    result, request = msg["flags"]["result"], msg["flags"]["request"]
    assert request["attacker"]["name"] == RIFLEMAN
    assert request["target"]["name"] == RHINO
    assert request["options"]["mode"] == "quickfire"
    assert request["options"]["target_dodging"] is True
    assert request["range"]["units"] == "m"
    assert msg["speaker"]["alias"] == RIFLEMAN
    # The message's rolls are exactly the engine's dice.
    dice = result["dice"]
    assert len(msg["rolls"]) == len(dice)
    for roll, die in zip(msg["rolls"], dice, strict=True):
        assert roll["formula"] == die["formula"]
        assert roll["total"] == die["total"]
        faces = [r["result"] for t in roll["terms"] for r in t.get("results", [])]
        assert faces == die["results"]
    # ... and the card shows the same faces.
    shown = [el.get_attribute("data-results") for el in card.locator(".ff-die").all()]
    assert shown == [",".join(map(str, d["results"])) for d in dice]


SCRIPTED_DICE_JS = """() => {
    let i = 0;
    globalThis.__realUniform ??= CONFIG.Dice.randomUniform;
    CONFIG.Dice.randomUniform = () => (i++ % 2 === 0 ? 0.9 : 0.0);
}"""
RHINO_HP_JS = "() => game.actors.getName('Lesser Venusian Rhino').flags.firefight.soe.hp"


def test_apply_damage_from_card(ready_table: Any) -> None:
    page = ready_table.page
    _select_and_target(ready_table, RIFLEMAN, RHINO)
    page.evaluate(SCRIPTED_DICE_JS)  # the shooter rolls high, the target low: a sure wound
    try:
        page.evaluate("() => game.modules.get('firefight').api.shoot({dialog: false})")
    finally:
        page.evaluate("() => { CONFIG.Dice.randomUniform = globalThis.__realUniform; }")
    effects = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.result.effects")
    loss = -sum(e["delta"] for e in effects if e["kind"] == "hp" and e["target"] == "target")
    assert loss > 0
    before = page.evaluate(RHINO_HP_JS)
    button = page.locator('.chat-message').last.locator('[data-firefight-action="apply-effects"]')
    button.click()
    page.wait_for_function(f"() => ({RHINO_HP_JS})() === {before - loss}")
    assert f"{before - loss}/65 HP" in (ready_table.token(RHINO).text_content() or "")
    ready_table.shot("04-applied")


PACKS_THROUGH_ENGINE_JS = """async () => {
    const { buildRequest, weaponsOf } =
        await import('/modules/firefight/js-shim/workflow/request.mjs');
    const pack = async (name) => (await fetch('/sandbox-api/packs/' + name)).json();
    const entry = (doc) => ({ name: doc.name, item_id: doc._id, ...doc.flags.firefight.soe });
    const api = game.modules.get('firefight').api;
    const by = (n) => canvas.tokens.placeables.find(t => t.name === n);
    const shooter = by('Rifleman Aldo Ferri');
    const failures = [];
    let checked = 0;
    for (const target of ['Officer Vera Lind', 'Lesser Venusian Rhino']) {
        const base = buildRequest({ ruleset: 'soe', attackerToken: shooter, targetToken: by(target),
            weaponItem: weaponsOf(shooter.actor, 'soe')[0], range: { value: 40, units: 'm' } });
        for (const weapon of await pack('soe-weapons-worldbuilding')) {
            for (const armor of [null, ...await pack('soe-armor-worldbuilding')]) {
                const request = structuredClone(base);
                request.weapon = entry(weapon);
                if (armor) request.target.armor = [entry(armor)];
                try {
                    const odds = await api.odds(request);
                    const p = odds.probability;
                    if (!(p >= 0 && p <= 1)) throw new Error('bad odds ' + p);
                    await api.resolve(request);
                    checked++;
                } catch (e) { failures.push(`${weapon.name} / ${armor?.name}: ${e.message}`); }
            }
        }
    }
    return { checked, failures };
}"""


def test_every_pack_weapon_and_armor_goes_through_the_engine(ready_table: Any) -> None:
    out = ready_table.page.evaluate(PACKS_THROUGH_ENGINE_JS)
    assert out["failures"] == []
    sources = Path(__file__).resolve().parents[2] / "packs" / "_source"
    weapons = len(list((sources / "soe-weapons").glob("*.json")))
    armor = len(list((sources / "soe-armor").glob("*.json")))
    assert out["checked"] == 2 * weapons * (armor + 1)  # odds and resolve; each armor and none


def test_errors_are_notified_not_thrown(ready_table: Any) -> None:
    page = ready_table.page
    ready_table.reset()
    ready_table.token(RIFLEMAN).click()
    out = page.evaluate("() => game.modules.get('firefight').api.shoot()")
    assert out is None
    page.wait_for_selector(".notification.error")
    assert "Target a token first" in page.locator(".notification.error").last.inner_text()
    # A bad request comes back as an engine error with the field named, not a crash.
    err = page.evaluate("""async () => {
        const api = game.modules.get('firefight').api;
        try { await api.odds({ruleset: 'soe', action: 'attack'}); return null; }
        catch (e) { return {code: e.code, fields: e.fields.map(f => f.field)}; }
    }""")
    assert err is not None
    assert err["code"]
    assert err["fields"]


def test_no_request_left_loopback(ready_table: Any) -> None:
    urls = ready_table.requests
    base = ready_table.base
    # The worker's own requests are recorded too (its script and the runtime it loads).
    assert any(u.endswith("/modules/firefight/js-shim/engine/engine-worker.mjs") for u in urls)
    assert any("/modules/firefight/runtime/" in u for u in urls), "no worker request recorded"
    outside = [u for u in urls if not u.startswith((base, "data:", "blob:"))]
    assert outside == []
    assert ready_table.errors == []
