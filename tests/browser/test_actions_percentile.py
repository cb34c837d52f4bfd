"""Firefight actions, percentile: facing from the token's rotation (a target behind the shooter is
hasty fire, a quarter of the chance), sighting in (+10 a chance, remembered per target, reset by
firing or moving), tokens turned with [ and ], and life force on the token bar."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Table, open_card, open_table

SHOOTER = "Corporal Ada Kowalski"  # at (200, 300), rifle
TARGET = "Grenadier Karl Vogt"  # at (500, 900): south-south-east of the shooter

AIM_JS = """([a, b]) => {
    const by = (n) => canvas.tokens.placeables.find((t) => t.name === n);
    canvas.tokens.releaseAll();
    for (const t of [...game.user.targets]) t.setTarget(false, {releaseOthers: false});
    by(a).control();
    by(b).setTarget(true);
}"""
BY_NAME = "canvas.tokens.placeables.find((t) => t.name === n)"
SHOOT_JS = "async () => (await game.modules.get('firefight').api.shoot({dialog: false})).id"
SIGHT_IN_JS = "async () => game.modules.get('firefight').api.act('sight_in')"
DICE_JS = """() => {
    globalThis.__u = CONFIG.Dice.randomUniform;
    CONFIG.Dice.randomUniform = () => 0.35;
}"""
REAL_DICE_JS = "() => { CONFIG.Dice.randomUniform = globalThis.__u; }"


@pytest.fixture(scope="module")
def pct_table(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "percentile", "percentile-actors")
    yield t
    t.context.close()


def _card(page: Any, mid: str) -> str:
    return str(open_card(page, mid).inner_text())


def _sighting(page: Any) -> Any:
    return page.evaluate(f"(n) => {BY_NAME}.actor.flags.firefight.sighting ?? null", SHOOTER)


def test_brackets_turn_the_token_and_a_target_behind_is_hasty_fire(pct_table: Table) -> None:
    page = pct_table.page
    page.evaluate(AIM_JS, [SHOOTER, TARGET])
    # Facing south (rotation 0) the target is inside the 90° arc: no hasty fire.
    mid = page.evaluate(SHOOT_JS)
    assert "Hasty" not in _card(page, mid)
    # ] ] ] ] turns the shooter 4 x 45° = 180°: now facing north, the target is behind him.
    page.locator("#scene").hover(position={"x": 5, "y": 5})
    for _ in range(4):
        page.keyboard.press("]")
    page.wait_for_function(f"(n) => {BY_NAME}.document.rotation === 180", arg=SHOOTER)
    wedge = pct_table.token(SHOOTER).locator(".facing")
    assert wedge.get_attribute("data-rotation") == "180"
    pct_table.shot("41-percentile-facing")
    mid = page.evaluate(SHOOT_JS)
    request = page.evaluate("(id) => game.messages.get(id).flags.firefight.request", mid)
    assert request["options"]["bearing_deg"] == pytest.approx(153.4, abs=0.1)
    text = _card(page, mid)
    assert "Hasty" in text
    assert "1/4" in text
    # The dialog shows the bearing computed from the scene.
    page.evaluate("() => { game.modules.get('firefight').api.shoot(); }")
    field = page.locator('dialog.firefight-dialog [name="opt.options.bearing_deg"]')
    field.wait_for()
    assert float(field.input_value()) == pytest.approx(153.4, abs=0.1)
    page.locator("dialog.firefight-dialog [data-action=cancel]").click()
    page.evaluate(f"(n) => {BY_NAME}.document.update({{rotation: 0}})", SHOOTER)


def test_sighting_in_twice_gives_plus_20_and_resets(pct_table: Table) -> None:
    page = pct_table.page
    page.evaluate(AIM_JS, [SHOOTER, TARGET])
    for _ in range(2):
        page.evaluate(SIGHT_IN_JS)
    assert next(iter(_sighting(page).values()))["n"] == 2
    assert "sights in" in page.locator("#chat-log .chat-message").last.inner_text()
    mid = page.evaluate(SHOOT_JS)
    options = page.evaluate("(id) => game.messages.get(id).flags.firefight.request.options", mid)
    assert options["sighting_turns"] == 2
    step = open_card(page, mid).locator("tr", has_text="Sighting in").first
    assert "+20" in step.inner_text()
    # Firing resets it; so does moving after sighting in again.
    assert _sighting(page) is None
    page.evaluate(SIGHT_IN_JS)
    assert _sighting(page) is not None
    page.evaluate(f"(n) => {BY_NAME}.document.update({{x: 300}})", SHOOTER)
    page.wait_for_function(f"(n) => !{BY_NAME}.actor.flags.firefight.sighting", arg=SHOOTER)


def test_sighting_in_stops_at_the_declared_max(pct_table: Table) -> None:
    # issue 15: counting past the engine's cap turned the next shot into an input error.
    page = pct_table.page
    page.evaluate(AIM_JS, [SHOOTER, TARGET])
    most = page.evaluate("""() => game.settings.get('firefight', 'catalog').rulesets
        .find((r) => r.id === 'percentile').features.sighting.max""")
    assert isinstance(most, int)
    assert most > 0
    # The shooter has sighted in `max` turns already (state set up, not clicked 10 000 times).
    page.evaluate(f"""([n, t, most]) => {BY_NAME}.actor.update({{'flags.firefight.sighting':
        {{[canvas.tokens.placeables.find((x) => x.name === t).id]: {{n: most, round: null}}}}}})""",
                  [SHOOTER, TARGET, most])
    page.evaluate(SIGHT_IN_JS)
    assert next(iter(_sighting(page).values()))["n"] == most
    mid = page.evaluate(SHOOT_JS)
    options = page.evaluate("(id) => game.messages.get(id).flags.firefight.request.options", mid)
    assert options["sighting_turns"] == most
    assert not pct_table.errors


def test_life_force_shows_on_the_token_and_drops_when_applied(pct_table: Table) -> None:
    page = pct_table.page
    bar = pct_table.token(TARGET).locator(".hp-text")
    assert bar.text_content() == "100% LF"
    page.evaluate(AIM_JS, [SHOOTER, TARGET])
    page.evaluate(DICE_JS)
    try:
        mid = page.evaluate(SHOOT_JS)
    finally:
        page.evaluate(REAL_DICE_JS)
    page.evaluate("(id) => game.modules.get('firefight').api.apply(id)", mid)
    page.wait_for_function("(id) => !!game.messages.get(id).flags.firefight.applied", arg=mid)
    life = page.evaluate(f"(n) => {BY_NAME}.actor.flags.firefight.percentile.life_force", TARGET)
    assert life < 100
    assert bar.text_content() == f"{life}% LF"
    pct_table.shot("42-percentile-life-force")
    assert not pct_table.errors
