"""dpv fire combat: ranges, aimed fire, damage at range, armor, area fire, ducking."""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from _examples import example

import firefight
from firefight.rulesets.dpv import fire
from firefight.rulesets.dpv.models import DpvWeapon


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


def attack(**changes: Any) -> dict[str, Any]:
    request = copy.deepcopy(example("dpv_attack.json"))
    for path, value in changes.items():
        node = request
        keys = path.split("__")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return request


@pytest.mark.parametrize(("range_m", "band"), [
    (0, "close"), (50, "close"), (51, "effective"), (100, "effective"), (200, "long"),
    (201, "extreme"), (400, "extreme"), (401, None)])
def test_range_bands(range_m: float, band: str | None) -> None:
    # 2300ad RANGES: close = half effective, long = 2x, extreme = 4x.
    assert fire.range_band(range_m, 100) == band


@pytest.mark.parametrize(("range_m", "stationary", "needed"), [
    (40, False, 6), (80, False, 10), (150, False, 14), (300, False, 18),
    (40, True, 2), (80, True, 6), (300, True, 14)])
def test_aimed_fire_difficulty(range_m: float, stationary: bool, needed: int) -> None:
    # Routine at close, one level harder per band, one easier against a stationary target.
    odds = firefight.odds(attack(range__value=range_m, options__stationary_in_open=stationary))
    assert odds["needed"] == needed


def test_beyond_extreme_is_refused() -> None:
    out = firefight.resolve(attack(range__value=401), seed=1)
    assert out["error"]["code"] == "refused"
    assert out["error"]["fields"][0]["field"] == "range"


def test_a_1_is_a_miss_but_no_fumble() -> None:
    # Skill 3 + 1 = 4 < 6 anyway; but even with skill 9 a 1 misses, and no failure roll.
    result = firefight.resolve(attack(attacker__stats__skills={"marksmanship": 9}), dice=[1])
    assert result["outcome"]["hit"] is False
    assert len(result["dice"]) == 1
    assert not any(n["key"].endswith("fumble") for n in result["notes"])


def test_rate_of_fire_limits_shots() -> None:
    out = firefight.resolve(attack(options__shots=4), seed=1)
    assert out["error"]["fields"][0]["field"] == "options.shots"
    result = firefight.resolve(attack(options__shots=3), dice=[2, 2, 2])
    assert result["outcome"]["shots"] == 3
    assert [d["purpose"] for d in result["dice"]] == [
        "to-hit, shot 1", "to-hit, shot 2", "to-hit, shot 3"]


@pytest.mark.parametrize(("kind", "band", "factor"), [
    ("firearm", "close", 2), ("firearm", "effective", 1), ("firearm", "long", 1),
    ("firearm", "extreme", Fraction(1, 2)), ("shotgun", "long", Fraction(1, 2)),
    ("shotgun", "close", 2)])
def test_damage_at_range(kind: str, band: str, factor: Fraction) -> None:
    # 2300ad FIRE COMBAT, "Damage": doubled at close, halved at extreme; shotguns at long too.
    weapon = DpvWeapon(effective_range_m=100, dpv=0.7, kind=kind)  # type: ignore[arg-type]
    assert fire.dpv_at_range(weapon, band) == (Fraction(7, 10) * factor, factor)


def test_golden_aimed_shot_chest_armor_and_wounding_column() -> None:
    # 40 m = close: Routine 6+; 5 + skill 3 = 8 hits. DPV 0.7 x 2 = 1.4; the chest (2) is a
    # potential kill; the vest stops 0.3: 1.1 >= 1 reads the first column: Kill.
    result = firefight.resolve(example("dpv_attack.json"), dice=[5, 2])
    wound = step(result, "wound_1")["numbers"]
    assert (wound["location"], wound["potential"], wound["dpv_after_armor"]) == (
        "chest", "kill", pytest.approx(1.1))
    assert wound["column"] == 0
    assert result["outcome"]["condition"] == "dead"
    assert result["effects"][0]["value"] == "dead"
    assert result["effects"][0]["params"]["resuscitable"] is True
    assert result["modifiers"][0]["source"].startswith("2300ad COMBAT TASKS")


def test_golden_low_dpv_reads_the_second_or_third_column() -> None:
    # At 80 m (effective, Difficult 10): 7 + 3 = 10 hits; DPV 0.7 - 0.3 (abdomen, 3) = 0.4,
    # a potential serious wound; 1D10 of 4 <= 0.4 x 10: column 2, "Shock, KD".
    request = attack(range__value=80)
    result = firefight.resolve(request, dice=[7, 3, 4])
    wound = step(result, "wound_1")["numbers"]
    assert (wound["potential"], wound["column"], wound["shock"], wound["knocked_down"]) == (
        "serious", 1, 1, True)
    # NPCs are unconscious after one shock point.
    assert result["outcome"]["condition"] == "unconscious"
    kinds = [(e["kind"], e["delta"], e["value"]) for e in result["effects"]]
    assert ("shock", 1, None) in kinds
    assert ("dazed_turns", 1, None) in kinds
    assert ("state", 0, "knocked_down") in kinds
    assert ("initiative_loss", 3, None) in kinds
    # 1D10 of 5 > 4: column 3, still "Shock, KD" for a normal serious wound.
    assert step(firefight.resolve(request, dice=[7, 3, 5]), "wound_1")["numbers"]["column"] == 2


def test_unarmored_leg_light_wound() -> None:
    result = firefight.resolve(attack(range__value=80), dice=[7, 7, 6])
    wound = step(result, "wound_1")["numbers"]
    assert (wound["location"], wound["armor"], wound["column"]) == ("lower_leg", 0, 1)
    assert wound["light"] == 1
    assert result["outcome"]["condition"] == "wounded"  # a veteran takes 3 light wounds


def test_cover_subtracts_armor_value_times_thickness() -> None:
    # 10 cm of wood = 0.25: 1.4 - 0.25 = 1.15.
    request = attack(options__cover_material="wood", options__cover_thickness_cm=10)
    result = firefight.resolve(request, dice=[5, 9])
    assert step(result, "damage")["numbers"]["dpv_after_cover"] == pytest.approx(1.15)


def test_attack_odds_are_exact_by_enumeration() -> None:
    # Enumerate every to-hit, location and column die: the frequencies must equal the odds.
    request = attack(range__value=80)
    odds = firefight.odds(request)
    counts: Counter[str] = Counter()
    for faces in itertools.product(range(1, 11), repeat=3):
        result = firefight.resolve(request, dice=list(faces))
        counts[result["outcome"]["wounds"][0] if result["outcome"]["hit"] else "miss"] += 1
    assert Fraction(1000 - counts["miss"], 1000) == Fraction(odds["exact"])
    for tier in ("kill", "shock", "light_wound", "none"):
        assert odds["per_shot"].get(tier, 0) == pytest.approx(counts[tier] / 1000)


def test_optional_severity_rule() -> None:
    # Location roll 1 (head, -4), severity roll 6: 2 = potential kill.
    request = attack(settings={"location_rule": "optional_severity"})
    result = firefight.resolve(request, dice=[9, 1, 6])
    wound = step(result, "wound_1")["numbers"]
    assert (wound["location"], wound["severity_roll"], wound["potential"]) == ("head", 2, "kill")
    assert result["effects"][0]["params"]["resuscitable"] is False  # head kills are final


def test_pc_consciousness_and_life_levels() -> None:
    # A PC with consciousness level 4, life level 6, already 2 shock and 1 stun: a serious
    # wound of DPV 2.8 (close, no armor on the upper leg) = 2 -> 1 shock + 1 stun: unconscious.
    target = {"name": "PC", "pc": True,
              "stats": {"consciousness_level": 4, "life_level": 6, "shock": 2, "stun": 1}}
    request = attack(target=target, weapon__dpv=1.4)
    result = firefight.resolve(request, dice=[9, 5])
    wound = step(result, "wound_1")["numbers"]
    assert (wound["shock"], wound["stun"]) == (1, 1)
    assert result["outcome"]["condition"] == "unconscious"
    dying = copy.deepcopy(target)
    dying["stats"].update(shock=5, consciousness_level=20)
    assert firefight.resolve(attack(target=dying, weapon__dpv=1.4), dice=[9, 5])[
        "outcome"]["condition"] == "dead"


# --- area fire -----------------------------------------------------------------------------

def area(**changes: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "ruleset": "dpv", "action": "area_fire",
        "weapon": {"name": "SMG", "effective_range_m": 100, "dpv": 0.7, "afv": 1, "rof": 3,
                   "rpb": 2},
        "range": {"value": 80}, "options": {"bursts": 3},
        "targets": [{"name": "A", "pc": True, "place": "in_area"}]}
    for key, value in changes.items():
        request[key] = value
    return request


@pytest.mark.parametrize(("roll", "hits"), [(1, 3), (2, 1), (3, 1), (4, 0)])
def test_area_fire_hits(roll: int, hits: int) -> None:
    # AFV 1 x 3 bursts = 3: at or under 3 one hit, 1.5 two, 1 three; at most 3 x RPB 2 = 6.
    assert fire.hits_for(roll, Fraction(3), 6) == hits


def test_area_fire_cap_and_fractions() -> None:
    assert fire.hits_for(1, Fraction(12), 6) == 6  # capped at bursts x RPB
    assert fire.hits_for(2, Fraction(5, 2), 6) == 1
    assert fire.hits_for(3, Fraction(5, 2), 6) == 0


@pytest.mark.parametrize(("kind", "band", "afv"), [
    ("firearm", "close", 4), ("firearm", "effective", 2), ("firearm", "long", 1),
    ("firearm", "extreme", 1), ("shotgun", "long", 2), ("flechette_grenade", "close", 2)])
def test_afv_at_range(kind: str, band: str, afv: float) -> None:
    weapon = DpvWeapon(effective_range_m=100, dpv=1, afv=2, kind=kind)  # type: ignore[arg-type]
    assert fire.afv_at(weapon, band) == afv


def test_area_fire_golden() -> None:
    # 80 m: effective, AFV 1 x 3 = 3; PC A rolls 1: three hits, each a location roll and
    # (DPV 0.7 < 1) a DPV x 10 roll.
    result = firefight.resolve(area(), dice=[1, 9, 5, 10, 8, 8, 7])
    assert step(result, "area_0")["numbers"]["hits"] == 3
    assert result["outcome"]["figures"][0]["hits"] == 3
    assert [s["id"] for s in result["steps"]][-3:] == ["wound_1", "wound_2", "wound_3"]


def test_moving_area_fire_limits() -> None:
    assert firefight.resolve(area(options={"moving": "walking", "bursts": 1}, weapon={
        "effective_range_m": 100, "dpv": 1, "afv": 1, "rof": 1}), seed=1)["error"]["fields"][0][
        "field"] == "options.moving"
    assert firefight.resolve(area(range={"value": 300}, options={"moving": "walking"}),
                             seed=1)["error"]["code"] == "refused"
    trot = firefight.odds(area(range={"value": 40}, options={"moving": "trotting"}))
    assert (trot["band"], trot["read_band"], trot["number"]) == ("close", "effective", 1)


def test_shotgun_cannot_area_fire_at_extreme() -> None:
    out = firefight.resolve(area(range={"value": 300}, weapon={
        "effective_range_m": 100, "dpv": 1, "afv": 1, "rof": 2, "kind": "shotgun"}), seed=1)
    assert out["error"]["code"] == "refused"


def test_beyond_the_area_half_afv_same_band_only() -> None:
    targets = [{"name": "near", "pc": True, "place": "beyond", "distance_m": 95},
               {"name": "far", "pc": True, "place": "beyond", "distance_m": 150}]
    # number 3 x 1/2 = 1.5: a 1 hits (once: 1.5 / 1 = 1), a 2 misses.
    result = firefight.resolve(area(targets=targets), dice=[1, 9, 5])
    figures = result["outcome"]["figures"]
    assert (figures[0]["hits"], figures[1]["condition"]) == (1, "unaffected")
    assert step(result, "area_0")["numbers"]["number"] == 1.5


def test_npc_ducks_when_1d10_plus_afv_beats_coolness() -> None:
    # Green NPC: Coolness 4. 1D10 of 4 + AFV 1 = 5 > 4: ducks behind 20 cm of packed dirt.
    npc = {"name": "G", "stats": {"experience": "green"},
           "cover": {"material": "packed_dirt_stone", "thickness_cm": 20}}
    result = firefight.resolve(area(targets=[npc]), dice=[4, 1, 5, 5, 5])
    assert step(result, "duck_0")["success"] is True
    assert step(result, "area_0")["numbers"]["cover"] == 3  # 0.15 x 20
    assert ("ducked", True) in [(e["kind"], e["value"]) for e in result["effects"]]
    stays = firefight.resolve(area(targets=[npc]), dice=[3, 10])
    assert step(stays, "duck_0")["success"] is False


def test_light_wounds_accumulate_on_the_actor() -> None:
    # The attack's light wound is written to the actor's `light_wounds` (natural healing reads it).
    result = firefight.resolve(attack(range__value=80), dice=[7, 7, 6])
    kinds = [e["kind"] for e in result["effects"]]
    assert "light_wounds" in kinds
    after = firefight.apply("dpv", {"light_wounds": 1}, result["effects"])
    assert after["stats"]["light_wounds"] == 2
