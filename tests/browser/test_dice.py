"""Dice So Nice: where it animates a message's dice the card shows no faces, no success and no
later step until they have landed (DSN's waitFor3DAnimationByMessageID / diceSoNiceRollComplete);
where it does not (3D dice hidden on that client, immediate display) the outcome shows at once.
The sandbox's ?dsn=<ms> stands in for DSN, ?dsnSkip=hidden|immediate makes it not animate.
A blind card is rendered for its author, who cannot read it: no outcome, no Apply.
And the keybinding (Shift+F) opens the shot dialog."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _js import REAL_DICE_JS, SCRIPTED_DICE_JS
from conftest import BOOT_TIMEOUT_MS, Table, contexts_of

RIFLEMAN = "Rifleman Aldo Ferri"
RHINO = "Lesser Venusian Rhino"
# What the newest card shows: faces, steps, success borders, outcome (computed styles).
CARD_JS = """() => {
    const card = [...document.querySelectorAll('.chat-message .firefight-card')].at(-1);
    if (!card) return null;
    const shown = (el) => el && getComputedStyle(el).display !== 'none'
        && getComputedStyle(el).visibility !== 'hidden' && el.offsetParent !== null;
    const steps = [...card.querySelectorAll('.ff-step')];
    const success = card.querySelector('.ff-step.ff-success');
    return {
        awaiting: card.classList.contains('ff-awaiting-dice'),
        faces: [...card.querySelectorAll('.ff-face')].filter(shown).length,
        stepsShown: steps.filter(shown).length, steps: steps.length,
        summary: shown(card.querySelector('.ff-summary')),
        successBorder: success ? getComputedStyle(success).borderLeftColor : null,
    };
}"""


def _open(server: str, browser: Any, query: str) -> Table:
    context = contexts_of(browser).open(viewport={"width": 1440, "height": 860})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(server + query)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    return t


def _shoot_by_hand(t: Table, shooter: str = RIFLEMAN, target: str = RHINO) -> None:
    """Select, target, Shoot, Fire, with dice that hit (so there are later steps)."""
    page = t.page
    t.reset()
    t.token(shooter).click()
    t.token(target).click(button="right")
    page.click("#shoot-button")
    page.wait_for_selector("dialog.application .firefight-shot")
    page.evaluate(SCRIPTED_DICE_JS)
    try:
        before = page.evaluate("() => game.messages.size")
        page.click('dialog.application button[data-action="fire"]')
        page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=60000)
    finally:
        page.evaluate(REAL_DICE_JS)
    mid = page.evaluate("() => game.messages.contents.at(-1).id")
    page.locator(f'.chat-message[data-message-id="{mid}"]').wait_for()
    # The steps are behind the card's "Dice and modifiers": opened, as a person reading them does
    # (a card its reader may not read has none).
    toggle = page.locator(f'.chat-message[data-message-id="{mid}"] .ff-details-toggle')
    if toggle.is_visible():
        toggle.click()


@pytest.fixture(scope="module")
def dsn_table(server: str, browser: Any) -> Iterator[Table]:
    context = contexts_of(browser).open(viewport={"width": 1440, "height": 860})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(f"{server}?dsn=2500")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()


def test_while_the_dice_roll_no_face_success_or_later_step_shows(dsn_table: Table) -> None:
    page = dsn_table.page
    _shoot_by_hand(dsn_table)
    rolling = page.evaluate(CARD_JS)
    assert rolling["awaiting"] is True
    assert rolling["faces"] == 0
    assert rolling["steps"] >= 2
    assert rolling["stepsShown"] == 1
    assert rolling["summary"] is False
    assert rolling["successBorder"] == "rgba(0, 0, 0, 0.25)"  # a step's plain border
    page.wait_for_function(
        "() => !document.querySelector('.firefight-card.ff-awaiting-dice')", timeout=10000
    )
    landed = page.evaluate(CARD_JS)
    assert landed["faces"] > 0
    assert landed["stepsShown"] == landed["steps"]
    assert landed["summary"] is True
    assert landed["successBorder"] != rolling["successBorder"]
    assert dsn_table.errors == []


@pytest.mark.parametrize("skip", ["hidden", "immediate"])
def test_where_dice_so_nice_does_not_animate_the_outcome_shows_at_once(
        server: str, browser: Any, skip: str) -> None:
    t = _open(server, browser, f"?dsn=4000&dsnSkip={skip}")
    try:
        _shoot_by_hand(t)
        # Well before the 4 s roll (and the old 20 s hold): faces, steps and outcome.
        t.page.wait_for_function(
            "() => !document.querySelector('.firefight-card.ff-awaiting-dice')", timeout=1500
        )
        card = t.page.evaluate(CARD_JS)
        assert card["faces"] > 0
        assert card["stepsShown"] == card["steps"]
        assert card["summary"] is True
        assert t.errors == []
    finally:
        t.context.close()


def test_a_blind_card_shows_its_author_no_outcome_and_no_apply(server: str,
                                                               browser: Any) -> None:
    """Foundry renders a blind message for its author, who cannot read it (the hook fires)."""
    t = _open(server, browser, "?user=Player%201")
    gm = t.context.new_page()
    try:
        gm.goto(server)
        gm.wait_for_function("() => game.ready === true", timeout=30000)
        t.page.select_option("#rollmode-select", "blindroll")
        _shoot_by_hand(t)
        mid = t.page.evaluate("() => game.messages.contents.at(-1).id")
        mine = t.page.locator(f'.chat-message[data-message-id="{mid}"]')
        assert "blind" in (mine.get_attribute("class") or "")
        assert "firefight-message" in (mine.get_attribute("class") or "")  # the hook ran
        assert mine.locator('[data-firefight-action="apply-effects"]').count() == 0
        assert mine.locator(".ff-summary").count() == 0 or not mine.locator(
            ".ff-summary").is_visible()
        # The GM reads it, and may apply it.
        theirs = gm.locator(f'.chat-message[data-message-id="{mid}"]')
        theirs.locator(".firefight-card .ff-summary").wait_for()
        assert theirs.locator('[data-firefight-action="apply-effects"]').count() == 1
        assert t.errors == []
    finally:
        t.context.close()


def test_keybinding_opens_the_shot_dialog(dsn_table: Table) -> None:
    page = dsn_table.page
    dsn_table.reset()
    dsn_table.token("Rifleman Aldo Ferri").click()
    dsn_table.token("Lesser Venusian Rhino").click(button="right")
    page.locator("#scene").hover()
    page.keyboard.press("Shift+KeyF")
    page.wait_for_selector("dialog.application .firefight-shot")
    page.click('dialog.application button[data-action="cancel"]')
