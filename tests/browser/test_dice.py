"""Dice So Nice: when it is installed the card keeps its outcome hidden until the message's dice
have finished rolling (hook diceSoNiceRollComplete); the sandbox's ?dsn=<ms> stands in for it.
And the keybinding (Shift+F) opens the shot dialog."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, Table


@pytest.fixture(scope="module")
def dsn_table(server: str, browser: Any) -> Iterator[Table]:
    context = browser.new_context(viewport={"width": 1440, "height": 860})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(f"{server}?dsn=2500")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()


def test_outcome_waits_for_the_dice_animation(dsn_table: Table) -> None:
    page = dsn_table.page
    dsn_table.token("Rifleman Aldo Ferri").click()
    dsn_table.token("Lesser Venusian Rhino").click(button="right")
    page.evaluate(
        "() => { globalThis.__shot = game.modules.get('firefight').api.shoot({dialog: false}); }"
    )
    card = page.locator(".chat-message .firefight-card").last
    card.wait_for()
    assert "ff-awaiting-dice" in (card.get_attribute("class") or "")
    assert not page.locator(".chat-message .ff-summary").last.is_visible()
    dsn_table.shot("40-dice-rolling")
    page.wait_for_function(
        "() => !document.querySelector('.firefight-card.ff-awaiting-dice')", timeout=10000
    )
    assert page.locator(".chat-message .ff-summary").last.is_visible()
    page.evaluate("() => globalThis.__shot")
    assert dsn_table.errors == []


def test_keybinding_opens_the_shot_dialog(dsn_table: Table) -> None:
    page = dsn_table.page
    dsn_table.reset()
    dsn_table.token("Rifleman Aldo Ferri").click()
    dsn_table.token("Lesser Venusian Rhino").click(button="right")
    page.locator("#scene").hover()
    page.keyboard.press("Shift+KeyF")
    page.wait_for_selector("dialog.application .firefight-shot")
    page.click('dialog.application button[data-action="cancel"]')
