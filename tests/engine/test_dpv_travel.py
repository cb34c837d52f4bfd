"""2300 AD travel and interface tables: a reference lookup, read exactly as printed."""

from __future__ import annotations

from typing import Any

import pytest

import firefight
from firefight.rulesets.dpv import travel


def trip(**options: Any) -> dict[str, Any]:
    return firefight.resolve({"ruleset": "dpv", "action": "travel", "options": options})


@pytest.mark.parametrize(("text", "parsed"), [
    ("2d", ("set", 2880.0)), ("30m", ("set", 30.0)), ("1h", ("set", 60.0)),
    ("90s", ("set", 1.5)), ("+12h", ("add", 720.0)), ("-12h", ("add", -720.0)),
    ("no", ("no", None)), ("-", ("na", None)),
])
def test_printed_durations(text: str, parsed: tuple[str, float | None]) -> None:
    assert travel.minutes(text) == parsed


def test_every_cell_of_the_table_reads() -> None:
    t = travel.table()
    assert set(t["times"]) == set(travel.TERRAINS)
    for row in t["times"].values():
        assert list(row) == list(travel.MODES)
        for cell in row.values():
            travel.minutes(cell)


def test_broken_ground_on_foot_with_a_river() -> None:
    # Broken 3d per hex on foot, +12h to cross a river: 84 h a hex; two hexes 7 days.
    out = trip(mode="foot", terrain="broken", features=["river"], hexes=2)["outcome"]
    assert out["per_hex_minutes"] == 84 * 60
    assert out["time"] == "7d"


def test_highway_takes_12h_off_for_riders() -> None:
    # Horse on flat ground 1d; a highway "Decrease in usual time ... -12h" (footnote 8).
    result = trip(mode="horse", terrain="flat", features=["highway"])
    assert result["outcome"]["time"] == "12h"
    assert any(n["key"].endswith("travel.8") for n in result["notes"])


def test_a_road_replaces_the_terrain_time() -> None:
    assert trip(mode="wheel", terrain="woods", features=["road_grid"])["outcome"]["time"] == "2h"


def test_impassable_and_not_given_are_refusals() -> None:
    assert trip(mode="wheel", terrain="mountain")["error"]["code"] == "refused"
    assert trip(mode="ship", terrain="flat")["error"]["fields"][0]["field"] == "options.terrain"
    lake = trip(mode="foot", terrain="flat", features=["lake"])  # a lake is terrain, not a feature
    assert lake["error"]["code"] == "invalid_request"


def test_interface_table() -> None:
    out = firefight.resolve({"ruleset": "dpv", "action": "interface", "options": {
        "direction": "to_orbit", "craft": "rocket"}})["outcome"]
    assert (out["preparation"], out["travel_time"], out["cleanup"], out["turn_around"]) == (
        "1d", "1h", "2h", "6h")
    refused = firefight.resolve({"ruleset": "dpv", "action": "interface", "options": {
        "direction": "to_orbit", "craft": "parachute"}})
    assert refused["error"]["fields"][0]["field"] == "options.craft"


def test_travel_card_is_fully_labelled() -> None:
    html = firefight.render_card(trip(mode="foot", terrain="hilly", hexes=3))
    assert "FIREFIGHT." not in html
    assert "6d" in html
