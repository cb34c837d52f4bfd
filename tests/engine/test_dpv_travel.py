"""2300 AD travel and interface tables: a reference lookup, read exactly as printed."""

from __future__ import annotations

from typing import Any

import pytest

import firefight
from firefight.i18n import fill, translate
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


@pytest.mark.parametrize(("minutes", "en", "de"), [
    (2 * 24 * 60, "2 days", "2 Tage"),
    (24 * 60 + 60 + 1, "1 day 1 hour 1 minute", "1 Tag 1 Stunde 1 Minute"),
    (12 * 60, "12 hours", "12 Stunden"),
    (0, "0 minutes", "0 Minuten"),
])
def test_a_duration_is_said_in_words_in_the_readers_language(minutes: int, en: str,
                                                              de: str) -> None:
    # Issue 25 item 6: the travel card said "4d"; the table's notation stays in ``time``.
    said = travel.said_duration(minutes)
    assert (fill("{t}", "en", {"t": said}), fill("{t}", "de", {"t": said})) == (en, de)


def test_the_travel_summary_says_its_duration_in_words() -> None:
    out = trip(mode="foot", terrain="broken", features=["river"], hexes=2)["outcome"]
    assert translate(out["summary_key"], "de", **out).startswith("2 Hexfelder: 7 Tage (")
    assert translate(out["summary_key"], "en", **out).startswith("2 hexes: 7 days (")


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
    assert "3 hexes: 6 days (" in html  # in words (issue 25 item 6), not "6d"
