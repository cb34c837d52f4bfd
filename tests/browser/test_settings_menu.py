"""Settings grouped per ruleset, the Foundry way (issue 16): Configure Settings lists Firefight's
own settings and the world's ruleset, and one submenu per ruleset (game.settings.registerMenu with
an ApplicationV2 form) that holds the ruleset's settings and its house rules', each field with a
hint of its own. The referee opens Game Settings, opens the ruleset's submenu, changes a setting by
keyboard, saves, and sees it used in the next shot's odds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from _js import SETTLED_JS
from conftest import BOOT_TIMEOUT_MS

RIFLEMAN = "Rifleman Aldo Ferri"
RHINO = "Lesser Venusian Rhino"
NAMES = {"soe": "Stars of Empire (experimental)"}


def _pct(text: str) -> float:
    return float(text.strip().rstrip("%").strip().replace(",", "."))


def _open_shot(page: Any) -> str:
    """Shoot from the side panel (shooter and target chosen); the settled hit chance; closed."""
    page.click("#shoot-button")
    page.wait_for_function(SETTLED_JS, timeout=60000)
    odds = page.locator("[data-odds-value]").inner_text()
    page.keyboard.press("Escape")
    page.locator("dialog.application").wait_for(state="detached")
    return odds


def test_a_rulesets_settings_are_in_its_own_submenu_and_change_the_odds(
        server: str, open_page: Callable[..., Any]) -> None:
    page, _, errors = open_page(server)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    page.wait_for_function("() => game.settings.get('firefight', 'ruleset') === 'soe'")
    page.locator(f'.token[data-name="{RIFLEMAN}"]').click()
    page.locator(f'.token[data-name="{RHINO}"]').click(button="right")
    before = _open_shot(page)

    # Game Settings: Firefight's section has the ruleset choice first, then a submenu per ruleset
    # (named after it, with a button), then Firefight's own settings; no ruleset field is listed.
    page.click("#settings-button")
    dialog = page.locator("dialog.settings-config")
    section = dialog.locator('.settings-namespace[data-namespace="firefight"]')
    section.wait_for()
    rows = section.locator(".form-group")
    assert rows.first.get_attribute("data-setting") == "firefight.ruleset"
    menus = section.locator(".form-group.submenu")
    assert sorted(menus.evaluate_all("(els) => els.map((e) => e.dataset.menu)")) == [
        "firefight.rules.dpv", "firefight.rules.percentile", "firefight.rules.shock",
        "firefight.rules.soe"]
    listed = dialog.locator("[data-setting]").evaluate_all(
        "(els) => els.map((e) => e.dataset.setting)")
    assert not [s for s in listed if s.startswith(("firefight.soe.", "firefight.house."))], listed
    assert len(listed) <= 8, listed  # not one 23-item list
    soe = section.locator('.form-group.submenu[data-menu="firefight.rules.soe"]')
    assert NAMES["soe"] in soe.locator("label").inner_text()

    # The submenu: its own window (an ApplicationV2 form) over the settings, every field hinted
    # with its own text (not the ruleset's name), the ruleset's settings under its name.
    soe.locator("button").click()
    form = page.locator("form.firefight-settings")
    form.wait_for()
    assert NAMES["soe"] in form.locator(".window-title").inner_text()
    groups = form.locator(".form-group")
    assert groups.count() == 9
    hints = form.locator(".form-group .hint").all_inner_texts()
    assert len(hints) == 9, hints
    assert len(set(hints)) == 9, hints
    assert all(NAMES["soe"] not in h and len(h) > 30 for h in hints), hints
    assert form.locator("legend").first.inner_text() == NAMES["soe"]

    # By keyboard: the label focuses its select; the arrow keys move to "The target"; Save.
    tie = form.locator('select[name="soe.tie_goes_to"]')
    assert tie.input_value() == "player"
    form.locator('label[for="firefight-setting-soe-tie_goes_to"]').click()
    assert page.evaluate("() => document.activeElement.name") == "soe.tie_goes_to"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert tie.input_value() == "target"
    form.locator('button[data-action="save"]').focus()
    page.keyboard.press("Enter")
    form.wait_for(state="detached")
    page.wait_for_function("() => game.settings.get('firefight', 'soe.tie_goes_to') === 'target'")
    sent = page.evaluate("() => game.modules.get('firefight').api.settings('soe')")
    assert sent["tie_goes_to"] == "target"
    dialog.locator('[data-action="close"]').click()  # Configure Settings
    dialog.wait_for(state="detached")

    # Used: ties now go to the target, so the same shot's chance drops.
    after = _open_shot(page)
    assert _pct(after) < _pct(before), (before, after)
    assert errors == []


def test_a_player_sees_the_submenu_but_cannot_change_world_settings(
        server: str, open_page: Callable[..., Any]) -> None:
    page, _, errors = open_page(server + "?user=Player%201")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_function("() => game.settings.menus.has('firefight.rules.soe')",
                           timeout=BOOT_TIMEOUT_MS)
    page.click("#settings-button")
    button = page.locator('dialog.settings-config [data-menu="firefight.rules.soe"] button')
    button.wait_for()
    # SettingSubmenuConfig.restricted: only a GM edits it.
    assert button.is_disabled()
    assert errors == []
