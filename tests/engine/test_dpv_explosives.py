"""dpv explosives, deviation, missiles, vehicle damage, breaching."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import firefight
from firefight.rulesets.dpv import explosives


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


@pytest.mark.parametrize(("distance", "value"), [
    (0, 4), (5, 4), (5.5, 2), (10, 2), (12, 1), (15, 1), (20, Fraction(1, 2))])
def test_concussion_values(distance: float, value: Fraction) -> None:
    # EP 2: 2 x EP = 4 within five meters, halved for each further five.
    assert explosives.concussion_value(Fraction(2), Fraction(distance)) == value


def test_tamped_concussion_is_halved() -> None:
    assert explosives.concussion_value(Fraction(2), Fraction(0), tamped=True) == 2


@pytest.mark.parametrize(("ep", "radius"), [
    (1, 5), (2, 10), (3, 10), (4, 15), (8, 20), (Fraction(1, 2), 0), (Fraction(1, 4), 0)])
def test_burst_radius(ep: Fraction, radius: int) -> None:
    # "EP 2 equals 10 meters, EP4 equals 15 meters"
    assert explosives.burst_radius(Fraction(ep)) == radius


def test_fragment_dpv() -> None:
    assert explosives.fragment_dpv(10, Fraction(10)) == Fraction(2, 5)
    assert explosives.fragment_dpv(10, Fraction(20)) == Fraction(1, 5)
    assert explosives.fragment_dpv(10, Fraction(21)) is None


def test_explosion_golden() -> None:
    # EP 2 at 3 m: concussion 4; 1D10 of 3 hits: blunt trauma DPV 4, location 6 (upper leg,
    # serious): "DPV x Shock*, KD" = 4 -> 2 shock, 2 stun. Fragments: 1D10 of 2 (20 %),
    # 1D6 of 1 fragment at DPV 0.4: location 9 (arm, light), 1D10 of 7 > 4: no effect.
    request = {"ruleset": "dpv", "action": "explosion", "ep": 2,
               "targets": [{"name": "PC", "pc": True, "distance_m": 3,
                            "stats": {"consciousness_level": 10, "life_level": 12}}]}
    result = firefight.resolve(request, dice=[3, 6, 2, 1, 9, 7])
    assert step(result, "blast")["numbers"]["burst_radius_m"] == 10
    wound = step(result, "wound_1")["numbers"]
    assert (wound["dpv"], wound["wound_type"], wound["shock"], wound["stun"]) == (
        4, "blunt", 2, 2)
    assert step(result, "fragments_0")["numbers"]["fragments"] == 1
    assert step(result, "wound_2")["numbers"]["dpv"] == 0.4
    assert result["outcome"]["figures"][0]["condition"] == "wounded"
    blast = next(e for e in result["effects"] if e["kind"] == "blast")
    assert blast["params"]["burst_radius_m"] == 10


def test_tamped_explosion_always_fragments_and_quadruples_contact() -> None:
    request = {"ruleset": "dpv", "action": "explosion", "ep": 1,
               "options": {"tamped": True, "fragmentation": False},
               "targets": [{"name": "X", "distance_m": 30}]}
    result = firefight.resolve(request, dice=[10, 10])
    assert result["outcome"]["contact_dpv"] == 4
    assert result["outcome"]["burst_radius_m"] == 5


@pytest.mark.parametrize(("roll", "direction"), [
    (1, "short"), (10, "short"), (8, "long"), (9, "long"), (7, "long_left"),
    (4, "long_right"), (6, "left"), (3, "right"), (5, "short_left"), (2, "short_right")])
def test_scatter_diagram(roll: int, direction: str) -> None:
    assert explosives.scatter(roll)[0] == direction


def test_deviation_distance() -> None:
    # Mortar: 1D10 x 10 m, doubled past half the indirect range.
    request = {"ruleset": "dpv", "action": "deviation", "deviation": "indirect_mortar",
               "range": {"value": 3000}, "indirect_range_m": 5000}
    result = firefight.resolve(request, dice=[4, 8])
    assert (result["outcome"]["distance_m"], result["outcome"]["direction"]) == (80, "long")
    assert result["outcome"]["forward_m"] == 80
    near = dict(request, range={"value": 2000})
    assert firefight.resolve(near, dice=[4, 3])["outcome"]["right_m"] == 40
    grenade = {"ruleset": "dpv", "action": "deviation", "deviation": "direct_fire"}
    assert firefight.resolve(grenade, dice=[7, 1])["outcome"]["distance_m"] == 7


def test_missed_exploding_round_deviates() -> None:
    request = {"ruleset": "dpv", "action": "attack", "attacker": {}, "target": {},
               "weapon": {"effective_range_m": 100, "dpv": 1, "ep": 1,
                          "deviation": "direct_fire"},
               "range": {"value": 30}}
    result = firefight.resolve(request, dice=[2, 5, 9])
    assert result["outcome"]["hit"] is False
    impact = next(e for e in result["effects"] if e["kind"] == "impact")
    assert (impact["params"]["distance_m"], impact["params"]["direction"]) == (5, "long")


@pytest.mark.parametrize(("roll", "hit", "at_or_under"), [
    (4, True, True), (5, False, True), (6, False, False), (1, True, True),
])
def test_missile(roll: int, hit: bool, at_or_under: bool) -> None:
    # Homing 7 - evasive 2 = 5: "Roll 1d10 under" is strictly under (the setting: at or under).
    request = {"ruleset": "dpv", "action": "missile", "homing": 7, "ep": 3,
               "target": {"evasive": 2, "armor": 100}}
    assert firefight.resolve(request, dice=[roll])["outcome"]["hit"] is hit
    request["settings"] = {"missile_hit": "at_or_under"}
    assert firefight.resolve(request, dice=[roll])["outcome"]["hit"] is at_or_under


def test_a_10_always_misses_and_damage_is_tamped() -> None:
    request = {"ruleset": "dpv", "action": "missile", "homing": 20, "ep": 5,
               "target": {"evasive": 0, "armor": 0}}
    assert firefight.resolve(request, dice=[10])["outcome"]["hit"] is False
    assert explosives.missile_probability(20, 0, "at_or_under") == Fraction(9, 10)
    assert explosives.missile_probability(7, 2, "under") == Fraction(4, 10)
    hit = firefight.resolve(request, dice=[3, 2])
    # 4 x EP 5 = 20 DPV: +4; 2 + 4 = 6: mobility.
    assert (hit["outcome"]["dpv"], hit["outcome"]["vehicle_result"]) == (20, "mobility")


@pytest.mark.parametrize(("total", "result"), [
    (1, "no_effect"), (2, "no_effect"), (3, "crew"), (4, "two_crew"), (5, "armament"),
    (6, "mobility"), (9, "catastrophic"), (12, "armament"), (14, "mobility"),
    (15, "catastrophic"), (30, "catastrophic")])
def test_vehicle_damage_table(total: int, result: str) -> None:
    from firefight.rulesets.dpv.data import tables

    assert tables().vehicle.lookup(total) == result


def test_vehicle_damage_adds_one_per_5_dpv() -> None:
    request = {"ruleset": "dpv", "action": "vehicle_damage", "dpv": 14.9,
               "target": {"armor": 4}}
    result = firefight.resolve(request, dice=[7])
    assert step(result, "vehicle")["numbers"]["bonus"] == 2  # 10.9 // 5
    assert result["outcome"]["vehicle_result"] == "catastrophic"
    odds = firefight.odds(request)
    assert odds["results"]["catastrophic"] == pytest.approx(0.2)  # totals 9 and 11


def test_breaching() -> None:
    # Tamped EP 2: contact DPV 8; brick 0.25: 32 cm; a 20 cm wall: a 12 cm breach.
    request = {"ruleset": "dpv", "action": "breach", "ep": 2, "tamped": True,
               "material": "brick_cement", "thickness_cm": 20}
    result = firefight.resolve(request, dice=[])
    assert (result["outcome"]["penetration_cm"], result["outcome"]["diameter_cm"]) == (32, 12)
    thick = dict(request, thickness_cm=40)
    assert firefight.resolve(thick, dice=[])["outcome"]["hit"] is False


@pytest.mark.parametrize(("ep", "tamped", "reach"), [
    (Fraction(1, 2), False, 5), (Fraction(1), False, 10), (Fraction(3), False, 15),
    (Fraction(10), False, 25), (Fraction(10), True, 20), (Fraction(1, 2), True, 0),
])
def test_concussion_reach(ep: Fraction, tamped: bool, reach: int) -> None:
    # Hit "if the concussion value or less is thrown on 1D10": nobody where it is below 1.
    assert explosives.concussion_reach(ep, tamped) == reach
    blast = firefight.resolve({"ruleset": "dpv", "action": "explosion", "ep": float(ep),
                               "targets": [], "options": {"fragmentation": False,
                                                          "tamped": tamped}}, dice=[])
    params = next(e["params"] for e in blast["effects"] if e["kind"] == "blast")
    assert params["reach_m"] == max(params["outer_radius_m"], reach)
