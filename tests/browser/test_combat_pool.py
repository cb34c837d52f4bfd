"""A SHOCK unit's activation pool at the combat tracker: each round's draw carries every unit's
`pool` and its effects are applied ("Max pool is equivalent to unit skill level": a pool above it
is capped); the controlled token holds an activation through the actions menu."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, Table, contexts_of

API = "game.modules.get('firefight').api"
UNTRAINED = "Generic Untrained"  # skill level 1 (shock Troop Quality)
ACTOR_JS = "(name) => canvas.tokens.placeables.find(t => t.name === name).actor"
POOL_JS = f"(name) => ({ACTOR_JS})(name).flags.firefight.shock.pool ?? 0"


@pytest.fixture(scope="module")
def shock(server: str, browser: Any) -> Iterator[Table]:
    context = contexts_of(browser).open(viewport={"width": 1440, "height": 900},
                                        settings={"firefight.ruleset": "shock"})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(server + "?pack=shock-troops")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()


def test_the_draw_caps_a_pool_above_the_skill_level(shock: Table) -> None:
    page = shock.page
    page.evaluate(f"(n) => ({ACTOR_JS})(n).update({{'flags.firefight.shock.pool': 5}})",
                  UNTRAINED)
    page.click('#combat-panel [data-action="create"]')
    page.click('#combat-panel [data-action="startCombat"]')
    page.wait_for_function(f"() => {API}.combat.activations()?.round === 1", timeout=60000)
    page.evaluate(f"() => {API}.combat.settled()")
    draw = page.evaluate("""() => {
        const m = game.messages.contents
            .findLast(m => m.flags.firefight?.result?.action === 'draw_chits');
        return {units: m.flags.firefight.result.request.units,
                applied: Boolean(m.flags.firefight.applied)};
    }""")
    unit = next(u for u in draw["units"] if u["name"] == UNTRAINED)
    assert unit["pool"] == 5  # every unit carries its pool
    assert draw["applied"] is True
    page.wait_for_function(f"(n) => ({POOL_JS})(n) === 1", arg=UNTRAINED, timeout=30000)


def test_the_controlled_token_holds_an_activation_from_the_actions_menu(shock: Table) -> None:
    page = shock.page
    veteran = "Generic Veteran"
    before = page.evaluate(POOL_JS, veteran)
    page.evaluate("(n) => canvas.tokens.placeables.find(t => t.name === n).control()", veteran)
    page.locator('.scene-tool[data-tool="firefightActions"]').click()
    picker = page.locator("dialog.firefight-action-picker")
    picker.wait_for()
    picker.locator('input[name="ff-action"][value="activation_pool"]').check()
    picker.locator("button[data-action=pick]").click()
    dialog = page.locator("dialog.firefight-action-dialog")
    dialog.wait_for()
    change = dialog.locator('select[name="options.change"]')
    if change.count():
        change.select_option("hold")
    dialog.locator('[data-action="go"]').click()
    page.wait_for_function("""() => game.messages.contents.at(-1).flags.firefight?.result?.action
        === 'activation_pool'""", timeout=30000)
    card = page.evaluate("""() => game.messages.contents.at(-1).flags.firefight.result""")
    assert card["action"] == "activation_pool"
    assert card["request"]["actor"]["name"] == veteran
    if not page.evaluate("() => game.settings.get('firefight', 'autoApply')"):
        last = page.locator("#chat-log .message:last-child")
        last.locator('[data-firefight-action="apply-effects"]').click()
    page.wait_for_function(f"([n, b]) => ({POOL_JS})(n) === b + 1", arg=[veteran, before],
                           timeout=30000)
    assert shock.errors == []
