"""Tables are data: every band table loads, validates, and has no gaps or overlaps."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from firefight.rulesets.soe import data as soe_data
from firefight.tables import BandTable, band_problems


def test_band_checker_finds_gaps_and_overlaps() -> None:
    assert band_problems([(1, 5), (6, 9)]) == []
    assert band_problems([(1, 5), (7, 9)]) == ["gap between bands 0 and 1: 6..6"]
    assert band_problems([(1, 5), (5, 9)]) == ["bands 0 and 1 overlap at 5..5"]
    assert band_problems([(None, 5), (6, None)]) == []
    assert "open above" in band_problems([(1, None), (6, 9)])[0]
    assert "runs backwards" in band_problems([(9, 1)])[0]


def test_table_1_projectile_rows_as_printed_are_rejected() -> None:
    # Table 1 prints 11-25, 25-36, 39-75: an overlap at 25 and a gap at 37-38 (section 9.1 fixes).
    printed = [(1, 1), (2, 2), (3, 6), (7, 10), (11, 25), (25, 36), (39, 75), (76, None)]
    assert band_problems(printed) == ["bands 4 and 5 overlap at 25..25",
                                      "gap between bands 5 and 6: 37..38"]
    with pytest.raises(ValidationError):
        BandTable[int].model_validate({"source": "t", "bands": [
            {"lo": a, "hi": b, "value": 0} for a, b in printed]})


def test_soe_tables_cover_their_domains() -> None:
    t = soe_data.tables()
    for table in (t.projectiles, t.injury, t.delayed, t.pretrauma, t.multiplier_rows,
                  t.multiplier_columns):
        assert band_problems([(b.lo, b.hi) for b in table.bands]) == []
    assert t.projectiles.bands[0].lo == 1
    assert t.projectiles.bands[-1].hi is None
    for table in (t.injury, t.delayed, t.pretrauma, t.multiplier_rows):
        assert table.bands[0].lo is None
        assert table.bands[-1].hi is None
    assert t.multiplier_columns.bands[0].lo == 1
    assert t.multiplier_columns.bands[-1].hi is None


def test_table_4_rows_are_full_and_never_decrease() -> None:
    t = soe_data.tables()
    width = len(t.multiplier_columns.bands)
    previous = [1] * width
    for band in t.multiplier_rows.bands:
        assert len(band.value) == width
        assert band.value[0] == 1  # a single projectile is never multiplied
        assert band.value == sorted(band.value)  # more projectiles, more damage
        assert all(a >= b for a, b in zip(band.value, previous, strict=True))  # more over-roll
        previous = band.value


def test_table_3_columns() -> None:
    t = soe_data.tables()
    assert [t.injury.lookup(x) for x in (0, 1, 3, 5, 6, 7, 8, 9, 25)] == [
        "none", "trivial", "minor", "moderate", "severe", "critical", "untreatable", "fatal",
        "fatal"]
    assert [t.pretrauma.lookup(x) for x in (-11, -10, -9, -3, -2, 0, 8, 9)] == [
        0, 0, -1, -7, -8, -10, -10, None]
    assert [t.delayed.lookup(x) for x in (-3, -2, 0, 1, 4, 7, 8, 9)] == [
        None, "severe", "severe", "critical", "untreatable", "fatal", "fatal", None]


def test_table_1_values() -> None:
    t1 = soe_data.tables().table1
    assert t1["wind"] == {"vacuum": 8, "none": 0, "moderate": -10, "high": -16}
    assert list(t1["target_size"].values()) == [-22, -14, -8, -6, -4, 0, 2, 6, 14, 18, 20]
    assert list(t1["visibility"].values()) == [0, -2, -6, -10, -12, -16]
