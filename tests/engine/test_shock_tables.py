"""SHOCK tables are data, kept as printed: checked for gaps, overlaps and the printed cells."""

from __future__ import annotations

import itertools

import pytest

from firefight.rulesets.shock import data as shock_data
from firefight.rulesets.shock import models, soldier
from firefight.rulesets.shock.models import DAMAGE_CLASSES, LOCATIONS, QUALITIES
from firefight.tables import band_problems, load_json


def test_location_table_covers_1_to_10_without_gaps_or_overlaps() -> None:
    table = shock_data.tables().location
    assert band_problems([(b.lo, b.hi) for b in table.bands]) == []
    assert (table.bands[0].lo, table.bands[-1].hi) == (1, 10)
    assert {b.value for b in table.bands} == set(LOCATIONS)
    assert [table.lookup(r) for r in range(1, 11)].count("head") == 2


def test_house_range_bands_cover_every_distance() -> None:
    table = shock_data.tables().house_range
    assert band_problems([(b.lo, b.hi) for b in table.bands]) == []
    assert table.bands[0].lo == 0
    assert table.bands[-1].hi is None
    assert len(shock_data.tables().house["range_names"]) == len(table.bands)
    values = [b.value for b in table.bands]
    assert values == sorted(values, reverse=True)  # farther is never easier


def test_severity_table_is_kept_exactly_as_printed() -> None:
    printed = shock_data.tables().severity_printed
    # Spot checks against the text, including its empty cells.
    assert printed["head"][:5] == ("stun", "wound", "shock", "death", None)
    assert printed["arm"][:2] == ("stun", None)  # the arm's row 2 is blank in the text
    assert printed["arm"][5] == "wound"
    assert printed["arm"][9] == "shock"
    assert printed["neck"][5] == "shock"
    assert printed["neck"][8] == "death"
    assert printed["upper_torso"][3] == "shock"
    assert printed["lower_torso"][6] == "shock"
    assert printed["leg"][8] == "shock"
    filled = sum(cell is not None for column in printed.values() for cell in column)
    assert filled == 20  # 6 in row 1, 5 in row 2, and 9 more below


def test_every_severity_column_starts_printed_and_never_gets_milder() -> None:
    t = shock_data.tables()
    for location in LOCATIONS:
        assert t.severity_printed[location][0] is not None
        tiers = [models.TIERS.index(r) for r in t.severity[location]]
        assert tiers == sorted(tiers), location


def test_fill_down_refuses_a_column_with_nothing_above_a_blank() -> None:
    with pytest.raises(ValueError, match="nothing above"):
        shock_data.fill_down((None, "stun"), "x")
    with pytest.raises(ValueError, match="unknown result"):
        shock_data.fill_down(("stun", "graze"), "x")
    assert shock_data.fill_down(("stun", None, "wound", None)) == ("stun", "stun", "wound", "wound")


def test_quality_table_as_printed() -> None:
    data = load_json(shock_data.PKG, "quality.json")
    assert [r["quality"] for r in data["rows"]] == list(QUALITIES)
    assert [r["mod"] for r in data["rows"]] == list(range(-3, 5))
    assert [r["phases"] for r in data["rows"]][4] == ["xx", "x", "x", "x"]  # EXPERIENCED
    # Better troops never get fewer chits in any phase.
    chits = [soldier.chits(q) for q in QUALITIES]
    for worse, better in itertools.pairwise(chits):
        assert all(b >= w for w, b in zip(worse, better, strict=True))


def test_damage_class_table_as_printed() -> None:
    data = load_json(shock_data.PKG, "damage_class.json")
    assert [r["class"] for r in data["rows"]] == list(DAMAGE_CLASSES)
    assert [r["mod"] for r in data["rows"]] == [-2, -1, 0, 1, 2, "U"]


def test_wound_scales_grow_with_the_class() -> None:
    for scale in shock_data.tables().wound_scales.values():
        values = [scale[c] for c in DAMAGE_CLASSES]
        assert values == sorted(values)
        assert values[0] >= 1


def test_cover_presets_name_real_locations_and_grow() -> None:
    presets = shock_data.tables().cover_presets
    assert presets["none"] == ()
    sizes = [set(presets[p]) for p in ("none", "low", "chest_high", "all_but_head")]
    for smaller, larger in itertools.pairwise(sizes):
        assert smaller < larger
    assert "head" not in sizes[-1]
