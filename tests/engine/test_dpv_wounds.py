"""dpv WOUNDING table (reconstructed), target hits, wound effects; the dpv tables as data."""

from __future__ import annotations

from fractions import Fraction

import pytest

from firefight.rulesets.dpv import wounds
from firefight.rulesets.dpv.data import tables
from firefight.rulesets.dpv.models import DpvSettings
from firefight.tables import band_problems


def effect(potential: str, wound_type: str, dpv: Fraction, column: int) -> wounds.Wound:
    return wounds.wound_from("chest", potential, wound_type, column, dpv)


def test_every_band_table_is_contiguous() -> None:
    t = tables()
    for table in (t.failure, t.mishap, t.impressions, t.locations, t.potential, t.vehicle):
        assert band_problems([(b.lo, b.hi) for b in table.bands]) == []
    assert (t.locations.bands[0].lo, t.locations.bands[-1].hi) == (1, 10)
    for table in (t.failure, t.mishap, t.potential, t.vehicle):
        assert table.bands[0].lo is None
        assert table.bands[-1].hi is None


def test_wounding_table_is_complete() -> None:
    rows = tables().wounding["rows"]
    assert set(rows) == {"kill", "serious", "light"}
    for row in rows.values():
        assert set(row) == {"normal", "blunt", "stun"}
        assert all(len(cells) == 3 for cells in row.values())


@pytest.mark.parametrize(("face", "location", "potential"), [
    (1, "head", "kill"), (2, "chest", "kill"), (3, "abdomen", "serious"),
    (4, "abdomen", "serious"), (5, "upper_leg", "serious"), (6, "upper_leg", "serious"),
    (7, "lower_leg", "light"), (8, "lower_leg", "light"), (9, "arm", "light"),
    (10, "arm", "light")])
def test_target_hits(face: int, location: str, potential: str) -> None:
    assert wounds.location_potential(face, None, "diagram") == (location, potential, face)


@pytest.mark.parametrize(("location", "second", "severity", "potential"), [
    ("head", 6, 2, "kill"), ("chest", 5, 3, "serious"), ("abdomen", 3, 2, "kill"),
    ("upper_leg", 7, 7, "light"), ("lower_leg", 1, 2, "kill"), ("arm", 10, 11, "light"),
    ("head", 1, -3, "kill")])
def test_optional_location_modifiers(location: str, second: int, severity: int,
                                     potential: str) -> None:
    first = wounds.called_first_face(location)
    assert wounds.location_potential(first, second, "optional_severity") == (
        location, potential, severity)


def test_columns() -> None:
    settings = DpvSettings()
    assert wounds.column_for(Fraction(1), None, settings) == 0
    assert wounds.column_for(Fraction(2, 5), 4, settings) == 1  # 4 <= 0.4 x 10
    assert wounds.column_for(Fraction(2, 5), 5, settings) == 2
    assert wounds.column_for(Fraction(1, 40), 1, settings) == 2  # 1 > 0.25
    assert wounds.column_for(Fraction(0), None, settings) is None


def test_kill_row() -> None:
    assert effect("kill", "normal", Fraction(3), 0).kill
    assert effect("kill", "normal", Fraction(1, 2), 1).kill
    third = effect("kill", "normal", Fraction(1, 2), 2)
    assert (third.kill, third.shock, third.knocked_down) == (False, 1, True)
    assert effect("kill", "blunt", Fraction(1, 2), 1).kill
    # Stun: "4 Stun (or DPV x Stun, if more), KD".
    assert effect("kill", "stun", Fraction(2), 0).stun == 4
    assert effect("kill", "stun", Fraction(13, 2), 0).stun == 6


def test_serious_row_odd_shocks_are_stuns() -> None:
    # "DPV x Shock*": DPV 5 -> 5 points, the 1st, 3rd and 5th are stuns: 2 shock, 3 stun.
    five = effect("serious", "normal", Fraction(5), 0)
    assert (five.shock, five.stun, five.knocked_down) == (2, 3, True)
    one = effect("serious", "normal", Fraction(3, 2), 0)
    assert (one.shock, one.stun) == (0, 1)
    assert effect("serious", "normal", Fraction(1, 2), 1).shock == 1
    assert effect("serious", "blunt", Fraction(1, 2), 1).light == 1
    assert effect("serious", "stun", Fraction(3), 0).stun == 3
    last = effect("serious", "stun", Fraction(1, 2), 2)
    assert (last.stun, last.knocked_down) == (1, False)


def test_light_row() -> None:
    assert effect("light", "normal", Fraction(2), 0).light == 1
    assert effect("light", "normal", Fraction(1, 2), 2).tier == "none"
    assert effect("light", "blunt", Fraction(2), 0).tier == "knocked_down"
    assert effect("light", "stun", Fraction(1, 2), 1).stun == 1
    assert effect("light", "stun", Fraction(1, 2), 2).tier == "none"


def test_npc_table() -> None:
    exp = tables().npcs["experience"]
    assert [(e["coolness"], e["incapacitation"], e["primary_skills"]) for e in exp.values()] == [
        (4, 1, 0), (6, 2, 1), (8, 3, 2), (10, 4, 3)]
