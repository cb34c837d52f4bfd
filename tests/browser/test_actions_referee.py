"""The referee's actions (`features.refereeActions`, one key for every ruleset): offered to the GM
only in the Firefight actions menu, with no token needed; a player's menu does not list them.
Stars of Empire's P_hk (section 10) with the text's worked example, by keyboard."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Table, open_table

PHK = "Incapacitation P_hk (10)"
REFEREE_TOOLS = ["weapon_damage", "creature_stats", "armor_coverage", "m3_hit", "incapacitation"]


@pytest.fixture(scope="module")
def gm(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "soe", "soe-actors")
    yield t
    t.context.close()


def offered(page: Any) -> list[str]:
    page.locator('.scene-tool[data-tool="firefightActions"]').click()
    picker = page.locator("dialog.firefight-action-picker")
    picker.wait_for()
    return list(picker.locator('input[name="ff-action"]').evaluate_all(
        "els => els.map(e => e.value)"))


def test_the_gm_opens_phk_from_the_actions_menu_by_keyboard(gm: Table) -> None:
    page = gm.page
    gm.reset()
    assert page.evaluate("() => canvas.tokens.controlled.length") == 0  # no token needed
    before = page.evaluate("() => game.messages.contents.length")
    assert set(REFEREE_TOOLS) <= set(offered(page))
    picker = page.locator("dialog.firefight-action-picker")
    picker.get_by_label(PHK).focus()
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    dialog = page.locator("dialog.firefight-action-dialog")
    dialog.wait_for()
    assert dialog.locator(".window-title").inner_text() == PHK
    # soe section 10's first worked example: 63 grains at 2362 fps, the winter-helmet constants,
    # 85.3 %. Typed in, field by field.
    for label, value in (("Mass", "63"), ("Velocity", "2362")):
        field = dialog.locator(".form-group", has_text=label).locator("input")
        field.focus()
        page.keyboard.press("Control+A")
        page.keyboard.type(value)
    page.keyboard.press("Enter")  # submits the dialog from the field
    page.wait_for_function("(n) => game.messages.contents.length > n", arg=before, timeout=20000)
    card = page.locator("#chat-log .chat-message").last
    assert "85.3" in card.inner_text()
    gm.shot("70-referee-phk")
    assert not gm.errors


def test_a_player_is_not_offered_the_referees_actions(server: str, browser: Any) -> None:
    t = open_table(server, browser, "soe", "soe-actors", user="Player 1")
    try:
        names = offered(t.page)
        assert "task" in names
        assert not set(REFEREE_TOOLS) & set(names)
        # Nor can a macro run one for them.
        t.page.locator("dialog.firefight-action-picker [data-action=close]").click()
        before = t.page.evaluate("() => game.messages.contents.length")
        t.page.evaluate("() => game.modules.get('firefight').api.act('incapacitation')")
        t.page.locator("#notifications .notification", has_text="referee").wait_for()
        assert t.page.evaluate("() => game.messages.contents.length") == before
        assert not t.errors
    finally:
        t.context.close()


def test_shock_referee_actions_take_the_declared_tokens(server: str, browser: Any) -> None:
    t = open_table(server, browser, "shock", "shock-troops")
    try:
        page = t.page
        assert {"treat", "end_of_mission"} <= set(offered(page))
        picker = page.locator("dialog.firefight-action-picker")
        picker.locator('input[value="end_of_mission"]').check()
        picker.locator("button[data-action=pick]").click()
        dialog = page.locator("dialog.firefight-action-dialog")
        dialog.wait_for()
        before = page.evaluate("() => game.messages.contents.length")
        dialog.locator("button[data-action=go]").click()
        page.wait_for_function("(n) => game.messages.contents.length > n", arg=before,
                               timeout=20000)
        # End of mission: every token of the scene with SHOCK data, none targeted.
        units = page.evaluate("""() => game.messages.contents.at(-1).flags.firefight.request
            .units.length""")
        scene = page.evaluate("""() => canvas.tokens.placeables
            .filter(t => t.actor?.flags?.firefight?.shock).length""")
        assert units == scene > 0
        assert not t.errors
    finally:
        t.context.close()


def test_soe_task_roles_character_selected_opponent_targeted(gm: Table) -> None:
    # features.roles: the opposed roll's `character` is the selected token, `opponent` the target.
    page = gm.page
    gm.reset()
    names = page.evaluate("() => canvas.tokens.placeables.map(t => t.name)")
    me, them = names[0], names[1]
    gm.token(me).click()
    gm.token(them).click(button="right")
    picker_names = offered(page)
    assert "task" in picker_names
    picker = page.locator("dialog.firefight-action-picker")
    picker.locator('input[value="task"]').check()
    picker.locator("button[data-action=pick]").click()
    dialog = page.locator("dialog.firefight-action-dialog")
    dialog.wait_for()
    assert dialog.locator(".ff-matchup").inner_text() == f"{me} → {them}"
    before = page.evaluate("() => game.messages.contents.length")
    dialog.locator("button[data-action=go]").click()
    page.wait_for_function("(n) => game.messages.contents.length > n", arg=before, timeout=20000)
    request = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.request")
    assert (request["character"]["name"], request["opponent"]["name"]) == (me, them)
    assert not gm.errors
