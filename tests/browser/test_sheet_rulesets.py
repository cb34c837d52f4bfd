"""The Firefight tab of the SHOCK and 2300 AD sheets: a stat no rule of the text uses says so
under it (its `x-hint-key`), and the fields the rulesets added this round (SHOCK's pool and
evacuation mark; 2300 AD's vehicle armor and evasive driving) are there to fill in."""

from __future__ import annotations

from typing import Any

from conftest import open_sheet_from_directory
from test_actions_soe import open_table


def _first_actor(page: Any, ruleset: str) -> str:
    return str(page.evaluate(
        "(r) => game.actors.contents.find((a) => a.flags.firefight?.[r]).name", ruleset))


def test_shock_sheet_labels_stats_without_a_rule_and_shows_pool_and_evacuated(
        server: str, browser: Any) -> None:
    t = open_table(server, browser, "shock", "shock-troops")
    try:
        sheet = open_sheet_from_directory(t.page, _first_actor(t.page, "shock"))
        tab = sheet.locator(".firefight-sheet")
        for stat in ("toughness", "awareness"):
            hint = tab.locator(f'[data-field="{stat}"] .hint')
            assert "no rule in the text" in hint.inner_text()
        # A stat the rules use has no such hint.
        assert tab.locator('[data-field="pool"] .hint').count() == 0
        assert tab.locator('[name="opt.pool"]').get_attribute("type") == "number"
        assert tab.locator('[name="opt.evacuated"]').get_attribute("type") == "checkbox"
        t.shot("72-shock-sheet-no-rule")
        assert not t.errors
    finally:
        t.context.close()


def test_dpv_sheet_has_the_vehicle_fields(server: str, browser: Any) -> None:
    t = open_table(server, browser, "dpv", "dpv-npcs")
    try:
        name = _first_actor(t.page, "dpv")
        sheet = open_sheet_from_directory(t.page, name)
        tab = sheet.locator(".firefight-sheet")
        armor = tab.locator('[name="opt.vehicle_armor"]')
        assert armor.get_attribute("type") == "number"
        assert armor.input_value() == ""  # unset: not a vehicle
        assert tab.locator('[name="opt.evasive"]').get_attribute("type") == "number"
        # Setting the armor makes it a vehicle: saved through the engine's validation.
        armor.fill("12")
        armor.press("Tab")  # a change saves
        tab.locator('[name="opt.evasive"]').fill("3")
        tab.locator('[name="opt.evasive"]').press("Tab")
        t.page.wait_for_function("""(n) => game.actors.getName(n).flags.firefight.dpv
            .vehicle_armor === 12""", arg=name)
        t.page.wait_for_function(
            "(n) => game.actors.getName(n).flags.firefight.dpv.evasive === 3", arg=name)
        assert not t.errors
    finally:
        t.context.close()
