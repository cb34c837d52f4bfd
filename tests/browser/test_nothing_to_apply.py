"""Buttons and lines only where they mean something (UX walkthrough 3 #10, issue 25 item 7): a
card whose result changes nobody offers no Apply, and an action no die decides shows no chance,
neither in its dialog nor on its card. Decided from what the engine returns (a result's
effects, an odds reply without a probability, a result without dice), never by ruleset."""

from __future__ import annotations

from typing import Any

from _js import REAL_DICE_JS, SCRIPTED_DICE_JS
from conftest import open_table

# The odds box has answered: shown with a chance, or hidden (no chance to show).
ODDS_ANSWERED_JS = """() => {
    const o = document.querySelector('dialog.firefight-action-dialog [data-firefight-odds]');
    if (!o || o.classList.contains('pending')) return false;
    return o.hidden || /%|—/.test(o.querySelector('[data-odds-value]').textContent);
}"""
MESSAGES_JS = "() => game.messages.contents.length"


def _open_action(page: Any, action: str) -> Any:
    """The actions menu (the scene control), the action chosen, Pick: its dialog."""
    page.locator('.scene-tool[data-tool="firefightActions"]').click()
    picker = page.locator("dialog.firefight-action-picker")
    picker.wait_for()
    picker.locator(f'input[value="{action}"]').check()
    picker.locator("button[data-action=pick]").click()
    dialog = page.locator("dialog.firefight-action-dialog")
    dialog.wait_for()
    return dialog


def _roll(page: Any, dialog: Any) -> Any:
    before = page.evaluate(MESSAGES_JS)
    dialog.locator("button[data-action=go]").click()
    page.wait_for_function("(n) => game.messages.contents.length > n", arg=before,
                           timeout=20000)
    return page.locator("#chat-log .chat-message").last


def test_no_delayed_injury_offers_nothing_to_apply(server: str, browser: Any) -> None:
    t = open_table(server, browser, "soe", "soe-actors")
    page = t.page
    try:
        name = page.evaluate("() => canvas.tokens.placeables[0].name")
        page.evaluate("""(n) => game.actors.getName(n).update(
            {'flags.firefight.soe.delayed_injuries': []})""", name)
        t.token(name).click()
        dialog = _open_action(page, "delayed_injury_check")
        page.evaluate(SCRIPTED_DICE_JS)  # the character's d20 high, the referee's low: passed
        card = _roll(page, dialog)
        page.evaluate(REAL_DICE_JS)
        result = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.result")
        assert result["outcome"]["success"] is True, result["outcome"]
        assert result["effects"] == []
        assert card.locator('[data-firefight-action="apply-effects"]').count() == 0
        assert card.locator(".ff-apply-controls").count() == 0
        assert t.errors == []
    finally:
        t.context.close()


def test_treating_wounds_shows_no_chance(server: str, browser: Any) -> None:
    t = open_table(server, browser, "shock", "shock-troops")
    page = t.page
    try:
        names = page.evaluate("() => canvas.tokens.placeables.map((tk) => tk.name)")
        t.token(names[0]).click()
        t.token(names[1]).click(button="right")
        dialog = _open_action(page, "treat")
        page.wait_for_function(ODDS_ANSWERED_JS, timeout=20000)
        odds = dialog.locator("[data-firefight-odds]")
        assert odds.is_hidden(), odds.inner_text()
        assert "100" not in dialog.inner_text()
        card = _roll(page, dialog)
        assert card.locator(".ff-chance").count() == 0
        assert t.errors == []
    finally:
        t.context.close()


def test_a_critical_point_without_a_roll_shows_no_chance(server: str, browser: Any) -> None:
    t = open_table(server, browser, "dpv", "dpv-npcs")
    page = t.page
    try:
        names = page.evaluate("() => canvas.tokens.placeables.map((tk) => tk.name)")
        page.evaluate("""(n) => game.actors.getName(n).update({'flags.firefight.dpv.shock': 0})""",
                      names[1])
        t.token(names[0]).click()
        t.token(names[1]).click(button="right")
        dialog = _open_action(page, "critical_point")
        card = _roll(page, dialog)
        result = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.result")
        assert result["dice"] == [], result["dice"]
        assert card.locator(".ff-chance").count() == 0, card.inner_html()
        assert t.errors == []
    finally:
        t.context.close()


def test_holding_an_activation_offers_to_record_it_not_damage(server: str, browser: Any) -> None:
    """SHOCK's hold-an-activation card changes the unit's pool, not its wounds: its button says
    so (the result's outcome names it), not "Apply damage"."""
    t = open_table(server, browser, "shock", "shock-troops")
    page = t.page
    try:
        names = page.evaluate("() => canvas.tokens.placeables.map((tk) => tk.name)")
        page.evaluate("""(n) => canvas.tokens.placeables.find((tk) => tk.name === n).actor
            .update({'flags.firefight.shock.pool': 0, 'flags.firefight.shock.state': 'ok'})""",
                      names[0])
        t.token(names[0]).click()
        dialog = _open_action(page, "activation_pool")
        card = _roll(page, dialog)
        button = card.locator('[data-firefight-action="apply-effects"]')
        assert button.inner_text().strip() == "Record in the pool"
        assert "damage" not in card.locator(".firefight-card-actions").inner_text()
        assert t.errors == []
    finally:
        t.context.close()
