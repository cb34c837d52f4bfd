"""Range on scenes with each of Foundry's diagonal rules: the grid measures its own way
(canvas.grid.measurePath().distance follows the world's Square Grid Diagonals setting, whose
default the system gives: v13's core default counts a diagonal as one square, pf2e's is 1/2/1),
while a shot's range is the straight line between the tokens (`euclidean`): a 3x4-square offset
at 5 m squares is 25 m on every scene."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS

RIFLEMAN = "Rifleman Aldo Ferri"
RHINO = "Lesser Venusian Rhino"
# The rhino stands at column 14, row 3; the rifleman 4 columns and 3 rows off: 3 diagonal steps
# and 1 straight one on the grid, 5 squares in a straight line.
SHOOTER_AT = (10 * 100, 0)
# CONST.GRID_DIAGONALS -> grid distance of that offset (squares x 5 m).
DIAGONAL_RULES = {
    "EQUIDISTANT": 4 * 5,
    "EXACT": (1 + 3 * math.sqrt(2)) * 5,
    "APPROXIMATE": (1 + 3 * 1.5) * 5,
    "RECTILINEAR": (1 + 3 * 2) * 5,
    "ALTERNATING_1": (1 + 1 + 2 + 1) * 5,
    "ALTERNATING_2": (1 + 2 + 1 + 2) * 5,
    "ILLEGAL": 7 * 5,
}
MOVE_JS = """([name, x, y]) =>
    canvas.tokens.placeables.find(t => t.name === name).document.update({x, y})"""
MEASURE_JS = """([a, b]) => {
    const by = (n) => canvas.tokens.placeables.find(t => t.name === n);
    const r = canvas.grid.measurePath([by(a).center, by(b).center]);
    return {distance: r.distance, euclidean: r.euclidean, diagonals: r.diagonals,
            rule: canvas.grid.diagonals};
}"""


@pytest.mark.parametrize("rule", list(DIAGONAL_RULES))
def test_range_is_the_straight_line_under_each_diagonal_rule(
        server: str, open_world_page: Callable[[str], Any], rule: str) -> None:
    page, errors = open_world_page(f"{server}?diagonals={rule}")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.evaluate(MOVE_JS, [RIFLEMAN, *SHOOTER_AT])
    measured = page.evaluate(MEASURE_JS, [RIFLEMAN, RHINO])
    # The sandbox grid measures as v13 documents it, and reports the straight line too.
    assert measured["distance"] == pytest.approx(DIAGONAL_RULES[rule])
    assert measured["euclidean"] == pytest.approx(25)
    assert measured["diagonals"] == (0 if rule == "ILLEGAL" else 3)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    # As a person shoots: select, target, Shoot, Fire.
    page.locator(f'.token[data-name="{RIFLEMAN}"]').click()
    page.locator(f'.token[data-name="{RHINO}"]').click(button="right")
    page.click("#shoot-button")
    dialog = page.locator("dialog.application .firefight-shot")
    dialog.wait_for()
    assert dialog.locator(".ff-range").inner_text() == "25 m"
    before = page.evaluate("() => game.messages.size")
    page.click('dialog.application button[data-action="fire"]')
    page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=60000)
    sent = page.evaluate("() => game.messages.contents.at(-1).flags.firefight.request.range")
    assert sent == {"value": 25, "units": "m"}
    assert errors == []


@pytest.mark.parametrize(("system", "grid"), [("worldbuilding", 20), ("dnd5e", 20), ("pf2e", 25)])
def test_the_diagonal_rule_is_a_world_setting_with_the_systems_default(
        server: str, open_world_page: Callable[[str], Any], system: str, grid: float) -> None:
    # foundryvtt#9998: "All scenes with a square grid in the world use the diagonal rule defined
    # by the Square Grid Diagonals (core.gridDiagonals) world setting"; #9999: the system's
    # manifest gives its default (pf2e: ALTERNATING_1).
    page, _ = open_world_page(f"{server}?system={system}")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.evaluate(MOVE_JS, [RIFLEMAN, *SHOOTER_AT])
    measured = page.evaluate(MEASURE_JS, [RIFLEMAN, RHINO])
    assert measured["distance"] == pytest.approx(grid)
    assert measured["rule"] == page.evaluate('() => game.settings.get("core", "gridDiagonals")')
    assert "diagonals" not in page.evaluate("() => canvas.scene.grid")
