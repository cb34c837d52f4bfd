"""The percentile Casualty Table is data: it loads, covers its domain, and bad edits are caught."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from pydantic import ValidationError

from firefight.rulesets.percentile import models
from firefight.rulesets.percentile.casualty import casualty
from firefight.rulesets.percentile.data import PKG, casualty_tables, tables
from firefight.tables import band_problems, load_json

# shared/rules/README.md, the grid as printed (69 and 86 in the last row are the source's data).
PRINTED = {
    (1, 7): [4, 8, 12, 16, 20, 24, 28, 32, 36, 40],
    (8, 14): [5, 10, 15, 20, 25, 30, 35, 40, 45, 50],
    (15, 21): [6, 12, 18, 24, 30, 36, 42, 48, 54, 60],
    (22, 28): [7, 14, 21, 28, 35, 42, 49, 56, 63, 70],
    (29, 35): [8, 16, 24, 32, 40, 48, 56, 64, 72, 80],
    (36, 43): [9, 18, 27, 36, 45, 54, 63, 72, 81, 90],
    (44, 50): [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    (51, 57): [11, 22, 33, 44, 55, 66, 77, 88, 99, 100],
    (58, 64): [12, 24, 36, 48, 60, 72, 84, 96, 100, 100],
    (65, 71): [13, 26, 39, 52, 65, 78, 91, 100, 100, 100],
    (72, 78): [14, 28, 42, 56, 70, 84, 98, 100, 100, 100],
    (79, 85): [15, 30, 45, 60, 75, 90, 100, 100, 100, 100],
    (86, 92): [16, 32, 48, 64, 80, 96, 100, 100, 100, 100],
    (93, 100): [17, 34, 51, 69, 86, 100, 100, 100, 100, 100],
}
COLUMNS = [(1, 5), (6, 10), (11, 15), (16, 20), (21, 25), (26, 30), (31, 35), (36, 40),
           (41, 45), (46, 50)]


def raw() -> dict[str, Any]:
    return copy.deepcopy(load_json(PKG, "casualty.json"))


def test_the_table_is_the_printed_grid() -> None:
    t = tables()
    assert {(b.lo, b.hi): b.value for b in t.casualty_rows.bands} == PRINTED
    assert [(b.lo, b.hi) for b in t.casualty_columns.bands] == COLUMNS
    assert t.casualty_rows.lookup(100)[3:5] == [69, 86]  # kept as printed


def test_rows_and_columns_have_no_gaps_or_overlaps() -> None:
    t = tables()
    for table in (t.casualty_rows, t.casualty_columns):
        assert band_problems([(b.lo, b.hi) for b in table.bands]) == []
    assert (t.casualty_rows.bands[0].lo, t.casualty_rows.bands[-1].hi) == (1, 100)
    assert (t.casualty_columns.bands[0].lo, t.casualty_columns.bands[-1].hi) == (1, 50)


def test_every_roll_and_round_count_has_a_value() -> None:
    for roll in range(1, 101):
        for rounds in range(1, 51):
            assert 4 <= casualty(roll, rounds).percent <= 100


def test_damage_never_falls_with_a_higher_roll_or_more_rounds() -> None:
    rows = [b.value for b in tables().casualty_rows.bands]
    for row in rows:
        assert row == sorted(row)
    for above, below in itertools.pairwise(rows):
        assert all(a <= b for a, b in zip(above, below, strict=True))


def test_the_table_wins_over_example_1() -> None:
    # Example 1 reads "7 percent" at row 15-21, column 1-5; the table prints 6.
    assert casualty(21, 3).percent == 6
    assert casualty(66, 1).percent == 13


def test_more_than_50_rounds_read_the_last_column() -> None:
    c = casualty(44, 60)
    assert (c.percent, c.beyond_table, c.column.lo) == (100, True, 46)
    assert casualty(44, 50).beyond_table is False


def test_a_gap_is_rejected() -> None:
    data = raw()
    data["rows"][3]["lo"] = 23  # 22 now belongs to no row
    with pytest.raises(ValidationError, match=r"gap between bands 2 and 3: 22\.\.22"):
        casualty_tables(data)


def test_an_overlap_is_rejected() -> None:
    data = raw()
    data["rounds_columns"][1]["lo"] = 5
    with pytest.raises(ValidationError, match=r"overlap at 5\.\.5"):
        casualty_tables(data)


def test_a_short_row_is_rejected() -> None:
    data = raw()
    data["rows"][5]["value"].pop()
    with pytest.raises(ValueError, match="row 36-43 has 9 values for 10 columns"):
        casualty_tables(data)


def test_a_percent_out_of_range_is_rejected() -> None:
    data = raw()
    data["rows"][0]["value"][0] = 101
    with pytest.raises(ValueError, match=r"outside 0\.\.100"):
        casualty_tables(data)


def test_small_arms_data_covers_every_class() -> None:
    sa = tables().small_arms
    assert set(sa["basic_percentage"]) == set(models.WEAPON_CLASSES)
    kill_classes = [c for row in sa["kill"].values() for c in row["classes"]]
    assert sorted(kill_classes) == sorted(models.WEAPON_CLASSES)
    assert set(sa["cover"]) == set(models.COVERS) - {"none"}
    for row in [*sa["basic_percentage"].values(), *sa["cover"].values(), *sa["kill"].values()]:
        assert row["source"].startswith("percentile ")
