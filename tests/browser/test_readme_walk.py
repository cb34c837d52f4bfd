"""The README's "At the table", followed as a newcomer does: from a fresh page at the address
`make table` prints, each ruleset in turn, in English and in German, by clicks, double-clicks and
keys only (issue 16). The names of the README's steps are read from the README, so a README that
names a button or setting the page does not have fails here.

Names of Firefight's own (a setting, a dialog's label or button, a card's button) are looked up
in lang/en.json and expected in the page's language; names of Foundry's (or the sandbox's) own
chrome (the settings window, the top bar) are expected as the README spells them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _js import SETTLED_JS
from conftest import BOOT_TIMEOUT_MS, SHOTS

REPO = Path(__file__).resolve().parents[2]
READY = '#engine-status[data-status="ready"]'
RULESETS = ("soe", "percentile", "shock", "dpv")  # the README's table, in the order walked
# Who shoots at whom on each ruleset's table (its pack's actors, clear of the combat panel).
PAIRS = {
    "soe": ("Rifleman Aldo Ferri", "Officer Vera Lind"),
    "percentile": ("Grenadier Karl Vogt", "Lieutenant Ruth Vance"),
    "shock": ("Generic Conscript", "Generic Experienced"),
    "dpv": ("Experienced soldier (NPC)", "Veteran soldier (NPC)"),
}
# A dialog option a person ticks to make the walk's shot land (its label's lang key), per ruleset.
SURE_OPTION = {"shock": "FIREFIGHT.shock.opt.referee_confirmed_hit.label",
               "dpv": "FIREFIGHT.dpv.opt.stationary_in_open.label"}
SHOTS_AT_MOST = 8  # fire again until the card has a result to apply (a person would too)
PERCENT = re.compile(r"^(<\s?)?\d{1,3}([.,]\d+)?\s?%$")
CHANGED_JS = "(old) => document.querySelector('[data-odds-value]').textContent.trim() !== old"
MESSAGES = "#chat-log .chat-message"


def _percent(text: str) -> float:
    return float(re.sub(r"[^\d,.]", "", text).replace(",", "."))


def _flat(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


LANG = {code: _flat(json.loads((REPO / "lang" / f"{code}.json").read_text(encoding="utf-8")))
        for code in ("en", "de")}


def readme_steps(text: str) -> dict[str, list[str]]:
    """The numbered steps of the README's "At the table": {title: [bold names, in order]}."""
    section = text.partition("\n## At the table\n")[2].split("\n## ", 1)[0]
    steps = re.findall(r"^\d+\. \*\*(.+?)\.\*\*(.*?)(?=^\d+\. |\Z)", section, re.M | re.S)
    return {title: re.findall(r"\*\*(.+?)\*\*", body) for title, body in steps}


STEPS = readme_steps((REPO / "README.md").read_text(encoding="utf-8"))


def step(title: str, count: int) -> list[str]:
    names = STEPS.get(title)
    assert names is not None, f"README 'At the table' has no step **{title}.**"
    assert len(names) == count, f"README step {title!r} names {names}, expected {count} names"
    return names


def firefight(name: str, lang: str) -> str:
    """A name the README gives in English, as Firefight says it in `lang` (its lang files)."""
    keys = sorted((k for k, v in LANG["en"].items() if v == name),
                  key=lambda k: (not k.startswith("FIREFIGHT.ui."), k))
    assert keys, f"the README's {name!r} is no string of Firefight's (lang/en.json)"
    return LANG[lang][keys[0]]


def key(k: str, lang: str) -> str:
    return LANG[lang][k]


def _starts(name: str) -> re.Pattern[str]:
    """An accessible name that begins with `name` (a label's name also holds its control's)."""
    return re.compile(rf"^{re.escape(name)}(\s|$)")


def _button(scope: Any, name: str) -> Any:
    return scope.get_by_role("button", name=name, exact=True)


def _wait_ready(page: Any) -> None:
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)


def _token(page: Any, name: str) -> Any:
    return page.locator(f'.token[data-name="{name}"]')


def choose_language(page: Any, lang: str) -> None:
    code, menu = step("Language", 2)
    assert code == "de"
    if lang == "en":
        assert page.get_by_label(_starts(menu)).input_value() == "en"
        return
    with page.expect_navigation():
        page.get_by_label(_starts(menu)).select_option(code)
    _wait_ready(page)
    assert page.evaluate("() => document.documentElement.lang") == "de"


def choose_ruleset(page: Any, lang: str, ruleset: str) -> None:
    settings, setting, save, _ = step("Ruleset", 4)
    _button(page, settings).click()
    window = page.locator("dialog.settings-config")
    # Firefight's setting, in the page's language; the choice is the README table's id.
    select = window.get_by_role("combobox", name=_starts(firefight(setting, lang)))
    before = select.input_value()
    select.select_option(ruleset)
    label = select.locator("option:checked").inner_text()
    if before == ruleset:
        _button(window, save).click()
    else:
        with page.expect_navigation():
            _button(window, save).click()
        _wait_ready(page)
    window.wait_for(state="detached")
    # The top bar names the ruleset; the scene holds soldiers with data for it.
    page.wait_for_function("(l) => document.querySelector('#ruleset-label').textContent === l",
                           arg=label)
    assert page.evaluate("""([rs, names]) => names.every((n) => Boolean(canvas.tokens.placeables
        .find((t) => t.name === n)?.actor?.flags?.firefight?.[rs]))""", [ruleset, PAIRS[ruleset]])


# An empty cell of the soe scene (grid units), and the pack a person drags a soldier from.
DROP_CELL = (9, 12)
SOE_PACK = "soe-bestiary-worldbuilding"
SCREEN_POINT_JS = """([x, y]) => { const svg = document.getElementById('scene');
    const p = svg.createSVGPoint(); p.x = x; p.y = y;
    const q = p.matrixTransform(svg.getScreenCTM()); const r = svg.getBoundingClientRect();
    return {x: q.x - r.left, y: q.y - r.top}; }"""


def drag_from_compendium(page: Any) -> None:
    """One more soldier: the sidebar's compendiums, the ruleset's pack, dragged onto the scene."""
    *_, compendiums = step("Ruleset", 4)
    page.get_by_role("tab", name=compendiums, exact=True).click()
    pack = page.locator(f'.compendium-pack[data-pack="{SOE_PACK}"]')
    pack.locator("summary").click()
    entry = pack.locator(".compendium-entry").first
    names_js = "() => canvas.tokens.placeables.map((t) => t.name)"
    before = page.evaluate(names_js)
    cell = [(c + 0.5) * 100 for c in DROP_CELL]
    entry.drag_to(page.locator("#scene"), target_position=page.evaluate(SCREEN_POINT_JS, cell))
    page.wait_for_function(f"(n) => ({names_js})().length > n", arg=len(before))
    (new,) = [n for n in page.evaluate(names_js) if n not in before]
    # A soldier of the ruleset, on the scene where it was dropped.
    assert page.evaluate("""(n) => { const t = canvas.tokens.placeables.find((t) => t.name === n);
        return [t.document.x, t.document.y, Boolean(t.actor?.flags?.firefight?.soe)]; }""",
                         new) == [DROP_CELL[0] * 100, DROP_CELL[1] * 100, True]
    page.get_by_role("tab", name="Chat", exact=True).click()


def aim(page: Any, lang: str, ruleset: str) -> None:
    target_key, left, right = step("Aim", 3)
    shooter, target = PAIRS[ruleset]
    _token(page, shooter).click()
    if lang == "en":
        _token(page, target).click(button="right")
    else:
        _token(page, target).hover()
        page.keyboard.press(target_key)
    page.wait_for_function("([a, b]) => canvas.tokens.controlled.map((t) => t.name).join() === a"
                           " && [...game.user.targets].map((t) => t.name).join() === b",
                           arg=[shooter, target])
    if ruleset == "percentile":
        # The target stands east of the shooter, who faces south: 45° clockwise, then 135° back.
        rotation_js = "(n) => canvas.tokens.placeables.find((t) => t.name === n).document.rotation"
        for press, rotation in ((right, 45), (left, 0), (left, 315), (left, 270)):
            page.keyboard.press(press)
            page.wait_for_function(f"(n) => ({rotation_js})(n) === {rotation}", arg=shooter)


def open_shot(page: Any, lang: str, how: str) -> Any:
    shoot, keys, _, _ = step("Shoot", 4)
    shooter_name = page.evaluate("() => canvas.tokens.controlled[0].name")
    if how == "button":
        page.locator("#shoot-button").filter(has_text=shoot).click()
    elif how == "keys":
        page.keyboard.press(keys)
    else:  # the token HUD: right-click the selected token, its crosshair
        _token(page, shooter_name).click(button="right")
        _button(page.locator("#token-hud"), firefight(shoot, lang)).click()
    dialog = page.locator("dialog.application").filter(has=page.locator(".firefight-shot"))
    dialog.wait_for()
    return dialog


def picture(page: Any, element: Any, name: str) -> None:
    """The README's pictures (docs/screenshots/<name>.png): test-results/browser/readme-<name>.png,
    in a window tall enough for the whole card."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": 1400})
    element.evaluate("(e) => e.scrollIntoView({block: 'end'})")
    element.screenshot(path=str(SHOTS / f"readme-{name}.png"))
    page.set_viewport_size(size)


def shoot_until_applicable(page: Any, lang: str, ruleset: str, how: str) -> Any:
    _, _, chance, fire = step("Shoot", 4)
    details_name, apply_name = (firefight(n, lang) for n in step("Read the card", 3)[:2])
    for _ in range(SHOTS_AT_MOST):
        dialog = open_shot(page, lang, how)
        assert dialog.locator(".ff-odds-label").text_content() == firefight(chance, lang)
        page.wait_for_function(SETTLED_JS, timeout=60000)
        shown = dialog.locator("[data-odds-value]").inner_text().strip()
        assert PERCENT.match(shown), shown
        if ruleset in SURE_OPTION:
            # The chance follows the option: it rises.
            dialog.get_by_label(key(SURE_OPTION[ruleset], lang), exact=True).check()
            page.wait_for_function(CHANGED_JS, arg=shown, timeout=60000)
            page.wait_for_function(SETTLED_JS, timeout=60000)
            was, shown = shown, dialog.locator("[data-odds-value]").inner_text().strip()
            assert _percent(shown) > _percent(was), (was, shown)
        if ruleset == "soe" and lang == "en":
            picture(page, dialog, "dialog")
        messages = page.locator("#chat-log .chat-message")
        before = messages.count()
        _button(dialog, firefight(fire, lang)).click()
        page.wait_for_function(f"(n) => document.querySelectorAll({MESSAGES!r}).length > n",
                               arg=before, timeout=60000)
        message = messages.nth(before)
        card = message.locator(".firefight-card")
        card.wait_for()
        # The chance the dialog showed is the card's (a hit the referee confirmed shows none).
        if card.locator(".ff-chance").count():
            assert shown in card.locator(".ff-chance").inner_text()
        else:
            assert shown.startswith("100"), shown
        # The result leads; the details open on the toggle the README names.
        summary = card.locator(".ff-summary")  # a card with a verdict leads with it
        assert summary.count() == 0 or summary.is_visible()
        assert not card.locator(".ff-die").first.is_visible()
        card.locator(".ff-details-toggle", has_text=details_name).click()
        rows = card.locator(".ff-modifier")
        assert rows.count() >= 1
        assert rows.first.is_visible()
        for source in rows.locator(".ff-mod-source").all_inner_texts():
            assert source.strip(), "a modifier without its rule"
        assert card.locator(".ff-die").count() >= 1
        if _button(message, apply_name).count():
            if ruleset == "soe" and lang == "en":
                picture(page, message, "card")
            return message
    pytest.fail(f"{ruleset}: no shot in {SHOTS_AT_MOST} had a result to apply")


TARGET_STATE_JS = """([name, rs]) => {
    const actor = canvas.tokens.placeables.find((t) => t.name === name).actor;
    return JSON.stringify([actor.flags.firefight?.[rs], [...actor.statuses].sort()]);
}"""


def apply_and_undo(page: Any, lang: str, ruleset: str, message: Any) -> None:
    apply_name, undo_name = (firefight(n, lang) for n in step("Read the card", 3)[1:])
    target = PAIRS[ruleset][1]
    before = page.evaluate(TARGET_STATE_JS, [target, ruleset])
    _button(message, apply_name).click()
    message.locator('.ff-applied-state[data-state="applied"]').wait_for()
    assert page.evaluate(TARGET_STATE_JS, [target, ruleset]) != before
    _button(message, undo_name).click()
    message.locator('.ff-applied-state[data-state="undone"]').wait_for()
    assert page.evaluate(TARGET_STATE_JS, [target, ruleset]) == before


def open_sheet(page: Any, lang: str, ruleset: str) -> None:
    (tab,) = step("Sheet", 1)
    target = PAIRS[ruleset][1]
    _token(page, target).dblclick()
    sheet = page.locator("section.actor-sheet").filter(has_text=target).last
    sheet.wait_for()
    sheet.get_by_role("link", name=tab, exact=True).or_(
        sheet.locator(".firefight-tab").filter(has_text=tab)).first.click()
    body = sheet.locator(".firefight-sheet")
    body.wait_for()
    # The ruleset's stats as form fields (the engine's schema), not a "no data" note; its weapons.
    assert body.locator("input, select").count() > 0
    assert key("FIREFIGHT.ui.sheet.weapons", lang) in body.text_content()
    assert body.locator(".ff-sheet-weapons li").count() >= 1
    sheet.locator('[data-action="close"]').first.click()
    sheet.wait_for(state="detached")


# How each ruleset's dialog is opened: every way the README names, in each language.
HOW = {"en": ("button", "keys", "hud", "button"), "de": ("hud", "button", "keys", "hud")}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_readme_at_the_table(server: str, open_page: Callable[..., Any], lang: str) -> None:
    page, requests, errors = open_page(server, {"width": 1280, "height": 720}, fresh=True)
    page.set_default_timeout(15000)
    _wait_ready(page)
    choose_language(page, lang)
    for ruleset, how in zip(RULESETS, HOW[lang], strict=True):
        choose_ruleset(page, lang, ruleset)
        if ruleset == "soe":
            drag_from_compendium(page)
        aim(page, lang, ruleset)
        message = shoot_until_applicable(page, lang, ruleset, how)
        apply_and_undo(page, lang, ruleset, message)
        open_sheet(page, lang, ruleset)
    assert errors == []
    assert all(r.startswith((server, "data:", "blob:")) for r in requests)
