"""A newcomer's first minutes, as the README tells them: open the table, choose another ruleset in
Settings, get a table for it, and shoot. Clicks only (issue 16, "A newcomer gets stuck")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conftest import BOOT_TIMEOUT_MS

SCENE_COLS, SCENE_ROWS, GRID = 18, 14, 100


def test_choosing_a_ruleset_gives_a_ready_table_for_it(
        server: str, open_page: Callable[..., Any]) -> None:
    page, _, errors = open_page(server, {"width": 1280, "height": 720}, fresh=True)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    # A fresh world learns its rulesets from the engine (world/catalog.mjs): once it is up, the
    # world plays the engine's default and Settings offers every ruleset.
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    page.wait_for_function(
        "() => document.querySelector('#ruleset-label').textContent.includes('Stars of Empire')")
    # Settings opens at its top: the ruleset is the first thing a newcomer sees.
    page.click("#settings-button")
    select = page.locator('dialog.settings-config select[name="firefight.ruleset"]')
    select.wait_for()
    assert page.evaluate("""() => {
        const el = document.querySelector('dialog.settings-config [name="firefight.ruleset"]');
        const r = el.getBoundingClientRect();
        const box = el.closest('form').getBoundingClientRect();
        return r.top >= box.top && r.bottom <= box.bottom;
    }""")
    select.select_option("percentile")
    with page.expect_navigation():
        page.click('dialog.settings-config button[data-action="save"]')
    page.wait_for_function("() => game.ready === true", timeout=30000)
    # The table now holds the ruleset's actors, every one on the scene, and says so.
    assert "pack=percentile-actors" in page.url
    assert "Percentile" in page.locator("#ruleset-label").inner_text()
    places = page.evaluate("""() => canvas.tokens.placeables.map(t => [t.name,
        t.document.x, t.document.y, Boolean(t.actor.flags.firefight.percentile)])""")
    assert len(places) >= 2
    for name, x, y, has_data in places:
        assert 0 <= x < SCENE_COLS * GRID, name
        assert 0 <= y < SCENE_ROWS * GRID, name
        assert has_data, name
    # And a shot works, by clicks: select, target, Shoot, Fire.
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    # Two soldiers clear of the combat panel (top left of the board).
    shooter, target = places[1][0], places[3][0]
    page.locator(f'.token[data-name="{shooter}"]').click()
    page.locator(f'.token[data-name="{target}"]').click(button="right")
    page.click("#shoot-button")
    page.locator("dialog.application .firefight-shot").wait_for()
    before = page.evaluate("() => game.messages.size")
    page.click('dialog.application button[data-action="fire"]')
    page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=60000)
    card = page.locator(".chat-message .firefight-card").last
    card.wait_for()
    assert "ruleset-percentile" in (card.get_attribute("class") or "")
    assert errors == []


def test_no_firefight_data_says_how_to_add_it(
        server: str, open_page: Callable[..., Any]) -> None:
    page, _, _ = open_page(f"{server}?user=Player%201")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    # A player in a world whose referee switched it to SHOCK: the scene's actors lack data.
    page.evaluate("() => game.settings._store('firefight.ruleset', 'shock')")
    page.locator('.token[data-name="Rifleman Aldo Ferri"]').click()
    page.locator('.token[data-name="Officer Vera Lind"]').click(button="right")
    page.click("#shoot-button")
    note = page.locator(".notification.error").last
    note.wait_for()
    text = note.inner_text()
    assert "Rifleman Aldo Ferri" in text
    assert "Add Firefight data" in text
