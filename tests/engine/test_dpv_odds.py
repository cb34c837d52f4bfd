"""2300 AD: the whole outcome before the roll (issue 15): every modifier as the card shows it,
and the exact chance of each outcome (miss / each wound level of the WOUNDING table), checked
against an every-face count of the resolver itself, the text's own numbers, and a sampling
cross-check (here, never in the engine)."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _examples import example

import firefight
from firefight.dice import DiceExhaustedError

LANG = Path(__file__).resolve().parents[2] / "py" / "firefight" / "rulesets" / "dpv" / "lang"
# The wound levels of the WOUNDING table, mildest first (independent of the engine's list).
ORDER = ["none", "knocked_down", "light_wound", "stun", "shock", "kill"]
VEHICLE = ["no_penetration", "no_effect", "crew", "two_crew", "armament", "mobility",
           "catastrophic"]


def exact(odds: dict[str, Any]) -> dict[str, Fraction]:
    """The outcomes by name, as exact fractions; they sum to exactly 1."""
    out = {o["key"].rsplit(".", 1)[1]: Fraction(o["exact"]) for o in odds["outcomes"]}
    assert sum(out.values()) == 1
    for o in odds["outcomes"]:
        assert o["probability"] == pytest.approx(float(Fraction(o["exact"])))
    return out


class Probe:
    """Scripted faces; asks for the next die's size when they run out."""

    def __init__(self, script: list[int]) -> None:
        self.script, self.i, self.need = script, 0, 0

    def face(self, faces: int) -> int:
        if self.i < len(self.script):
            self.i += 1
            return self.script[self.i - 1]
        self.need = faces
        raise DiceExhaustedError("probe: one more die")


def every_face(request: dict[str, Any], name: Any) -> dict[str, Fraction]:
    """Resolve ``request`` down every branch of its dice; ``name(result)`` names the outcome."""
    out: dict[str, Fraction] = {}

    def walk(script: list[int], weight: Fraction) -> None:
        probe = Probe(script)
        result = firefight.resolve(request, dice=probe)
        if "error" in result:
            assert probe.need, result["error"]
            for face in range(1, probe.need + 1):
                walk([*script, face], weight / probe.need)
            return
        key = name(result)
        out[key] = out.get(key, Fraction(0)) + weight

    walk([], Fraction(1))
    return {k: v for k, v in out.items() if v}


def gravest(tiers: list[str], order: list[str] = ORDER) -> str:
    return max(tiers, key=order.index)


def attack_outcome(result: dict[str, Any]) -> str:
    outcome = result["outcome"]
    if not outcome["hit"]:
        return "miss"
    if "vehicle_results" in outcome:
        return "vehicle_" + gravest(outcome["vehicle_results"], VEHICLE)
    return gravest(outcome["wounds"])


def wound_tiers(result: dict[str, Any]) -> list[str]:
    return [s["outcome_key"].rsplit(".", 1)[1] for s in result["steps"]
            if s["id"].startswith("wound_")]


def sample(request: dict[str, Any], name: Any, n: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    for _ in range(n):
        key = name(firefight.resolve(request, seed=rng.randrange(2**31)))
        counts[key] = counts.get(key, 0) + 1
    return counts


def close_to(counts: dict[str, int], exact_odds: dict[str, Fraction], n: int) -> None:
    """Every frequency within five standard errors of its exact chance."""
    assert set(counts) <= set(exact_odds), (counts, exact_odds)
    for key, p in exact_odds.items():
        sd = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(counts.get(key, 0) / n - float(p)) <= 5 * sd + 1e-9, (key, counts, p)


def attack(**options: Any) -> dict[str, Any]:
    request = copy.deepcopy(example("dpv_attack.json"))
    request["options"].update(options)
    return request


# --- aimed fire ---------------------------------------------------------------------------------

@pytest.mark.parametrize("range_m", [40, 80, 150, 300])
def test_aimed_fire_outcomes_are_the_resolvers_every_face(range_m: float) -> None:
    request = attack()
    request["range"]["value"] = range_m
    odds = firefight.odds(request)
    assert exact(odds) == every_face(request, attack_outcome)
    assert Fraction(1) - exact(odds)["miss"] == Fraction(odds["exact"])


def test_aimed_fire_golden_from_the_text() -> None:
    # Close range (40 m of 100 m effective): Routine 6+, Marksmanship 3: faces 3-10, but a 1 is
    # "simply an automatic miss": 8 of 10 hit. DPV 0.7 x 2 = 1.4 (close doubles): the first
    # column. Head (1) and chest (2) are potential kills: chest armor 0.3 leaves 1.1 >= 1, Kill;
    # abdomen (3-4) serious, 1.1: "DPV x Shock*" = one point, odd: a stun with KD; upper leg
    # (5-6) serious 1.4: one stun; lower leg and arm (7-10) light, normal: Light Wound, KD.
    out = exact(firefight.odds(attack()))
    hit = Fraction(8, 10)
    assert out == {"miss": Fraction(2, 10), "kill": hit * Fraction(2, 10),
                   "stun": hit * Fraction(4, 10), "light_wound": hit * Fraction(4, 10)}


def test_several_shots_show_the_gravest_wound_of_all() -> None:
    # Two shots: each misses 2/10 of the time and kills 8/10 x 2/10 (as above).
    out = exact(firefight.odds(attack(shots=2)))
    assert out["miss"] == Fraction(2, 10) ** 2
    assert out["kill"] == 1 - (1 - Fraction(8, 10) * Fraction(2, 10)) ** 2


def test_aimed_fire_odds_list_every_modifier_as_the_card_does() -> None:
    request = attack()
    request["options"]["dm"] = -2
    odds = firefight.odds(request)
    result = firefight.resolve(request, dice=[9, 5])
    shown = [(m["key"], m["value"], m["source"], m["step"]) for m in result["modifiers"]]
    assert [(m["key"], m["value"], m["source"], m["step"]) for m in odds["modifiers"]] == shown
    assert [m["key"] for m in odds["modifiers"]] == ["FIREFIGHT.dpv.mod.skill",
                                                     "FIREFIGHT.dpv.mod.referee_dm"]
    # The same for a strike and its block: both tasks' modifiers, each on its step.
    strike = melee({"block": True, "dm": 1},
                   target={"name": "B", "pc": True, "stats": {"skills": {"melee": 1}}})
    odds = firefight.odds(strike)
    result = firefight.resolve(strike, dice=[9, 3, 3, 3, 5, 5, 5])
    shown = [(m["key"], m["value"], m["step"]) for m in result["modifiers"]]
    assert [(m["key"], m["value"], m["step"]) for m in odds["modifiers"]] == shown
    assert [m["step"] for m in odds["modifiers"]] == ["to_hit", "to_hit", "block"]


def test_aimed_fire_sampled_matches_the_exact_odds() -> None:
    request = attack(shots=3)
    n = 1500
    close_to(sample(request, attack_outcome, n, 14), exact(firefight.odds(request)), n)


# --- area fire ----------------------------------------------------------------------------------

def area(figure: dict[str, Any], **options: Any) -> dict[str, Any]:
    request = example("dpv_attack.json")
    return {"ruleset": "dpv", "action": "area_fire", "attacker": request["attacker"],
            "weapon": request["weapon"], "range": {"value": 80, "units": "m"},
            "targets": [figure], "options": options}


def area_outcome(result: dict[str, Any]) -> str:
    figure = result["outcome"]["figures"][0]
    if not figure["hits"]:
        return "miss"
    if "vehicle_results" in figure:
        return "vehicle_" + gravest(figure["vehicle_results"], VEHICLE)
    return gravest(wound_tiers(result))


@pytest.mark.parametrize("figure", [
    {"name": "PC", "pc": True},
    {"name": "Ducking PC", "pc": True, "duck": True,
     "cover": {"material": "wood", "thickness_cm": 10}},
    {"name": "Veteran", "stats": {"experience": "veteran"},
     "cover": {"material": "wood", "thickness_cm": 20}},
    {"name": "Close", "pc": True, "place": "line_of_fire", "distance_m": 30},
    {"name": "Jeep", "stats": {"vehicle_armor": 0.2}},
])
def test_area_fire_outcomes_are_the_resolvers_every_face(figure: dict[str, Any]) -> None:
    # One burst: AFV 1 at effective, one hit at most (three bursts would branch 10^6 ways;
    # the golden and sampled tests below take three).
    request = area(figure, bursts=1)
    assert exact(firefight.odds(request)) == every_face(request, area_outcome)


def test_area_fire_golden_from_the_text() -> None:
    # AFV 1 at effective range x 3 bursts = 3: 1D10 of 3 or less hits; an NPC veteran
    # (Coolness 8) ducks when 1D10 + AFV 1 > 8: on 8, 9, 10.
    odds = firefight.odds(area({"name": "Veteran", "stats": {"experience": "veteran"}},
                               bursts=3))
    assert Fraction(odds["exact"]) == Fraction(3, 10)
    assert exact(odds)["miss"] == Fraction(7, 10)
    # Beyond the area in another band: unaffected.
    far = firefight.odds(area({"name": "Far", "pc": True, "place": "beyond",
                               "distance_m": 150}, bursts=3))
    assert exact(far) == {"miss": 1}


def test_area_fire_sampled_matches_the_exact_odds() -> None:
    request = area({"name": "Veteran", "stats": {"experience": "veteran"},
                    "cover": {"material": "wood", "thickness_cm": 20}}, bursts=3)
    n = 1500
    close_to(sample(request, area_outcome, n, 15), exact(firefight.odds(request)), n)


# --- tasks --------------------------------------------------------------------------------------

def task(**options: Any) -> dict[str, Any]:
    actor = options.pop("actor", {})
    return {"ruleset": "dpv", "action": "task", "actor": actor, "options": options}


def task_outcome(result: dict[str, Any]) -> str:
    o = result["outcome"]
    if "charge" in o:
        return f"charge_{o['charge']}"
    if o["success"]:
        return "success"
    if o["fumble"]:
        return "fumble"
    if o.get("mishap"):
        return f"mishap_{o['mishap']}"
    return o.get("failure_type") or "failure"


@pytest.mark.parametrize("options", [
    {"difficulty": "routine"},
    {"difficulty": "difficult", "skill": 3},
    {"difficulty": "routine", "uncertain": True, "skill": 1},
    {"preset": "determination", "skill": 2},
])
def test_task_outcomes_are_the_resolvers_every_face(options: dict[str, Any]) -> None:
    request = task(**options)
    assert exact(firefight.odds(request)) == every_face(request, task_outcome)


def test_task_golden_from_the_failure_table() -> None:
    # Routine 6+ on 1D10 with no assets: 6-10 succeed (5/10), a 1 fumbles (1/10), 2-5 fail
    # (4/10) and throw 2D6 on FAILURE: 2-6 retry (15/36), 7-10 check determination (18/36),
    # 11-14 mishap (3/36), whose own 2D6 reads superficial 15/36, minor 18/36, major 3/36.
    out = exact(firefight.odds(task(difficulty="routine")))
    fail = Fraction(4, 10)
    assert out == {"success": Fraction(1, 2), "fumble": Fraction(1, 10),
                   "retry": fail * Fraction(15, 36),
                   "check_determination": fail * Fraction(18, 36),
                   "mishap_superficial": fail * Fraction(3, 36) * Fraction(15, 36),
                   "mishap_minor": fail * Fraction(3, 36) * Fraction(18, 36),
                   "mishap_major": fail * Fraction(3, 36) * Fraction(3, 36)}


def test_a_hazardous_task_reads_failure_on_3d6() -> None:
    # "hazardous tasks use 3D6 on the failure table": 3-6 retry (20/216), 7-10 check
    # determination (88/216), 11-14 mishap (2D6: 88/216), 15+ serious mishap (3D6: 20/216).
    out = exact(firefight.odds(task(difficulty="routine", hazardous=True)))
    fail = Fraction(4, 10)
    assert out["retry"] == fail * Fraction(20, 216)
    assert out["check_determination"] == fail * Fraction(88, 216)
    mishap, serious = fail * Fraction(88, 216), fail * Fraction(20, 216)
    assert out["mishap_total"] == serious * Fraction(20, 216)
    assert out["mishap_superficial"] == (mishap * Fraction(15, 36)
                                         + serious * Fraction(20, 216))


def test_emplacing_a_charge_shows_its_three_fates() -> None:
    # Easy 4+ with Demolitions 1, uncertain: both rolls fail (each + 1 < 4: faces 1-2 each,
    # 4/100) -> detonates now; the average fails otherwise -> dud; else the charge is set.
    request = task(preset="emplace_charge", actor={"stats": {"skills": {"demolitions": 1}}})
    out = exact(firefight.odds(request))
    assert out["charge_detonates_now"] == Fraction(4, 100)
    # "If the average of the rolls is equal to or greater than the difficulty level, the
    # attempt succeeds"; "Only if the player rolls a natural 1 does the task fumble".
    faces = range(1, 11)
    ready = sum(1 for p in faces for r in faces if p != 1 and Fraction(p + r, 2) + 1 >= 4)
    assert out == {"charge_ready": Fraction(ready, 100),
                   "charge_dud": Fraction(100 - ready - 4, 100),
                   "charge_detonates_now": Fraction(4, 100)}
    # The resolver agrees on every pair of faces (its time dice fixed: they decide nothing).
    for p in faces:
        for r in faces:
            got = firefight.resolve(request, dice=[p, r, 3, 3, 3])["outcome"]["charge"]
            both_fail = p + 1 < 4 and r + 1 < 4
            fate = ("detonates_now" if both_fail else "ready"
                    if p != 1 and Fraction(p + r, 2) + 1 >= 4 else "dud")
            assert got == fate, (p, r)


def test_task_odds_list_the_modifiers() -> None:
    odds = firefight.odds(task(difficulty="routine", skill=2, characteristics=[13], dm=-1))
    assert [(m["key"].rsplit(".", 1)[1], m["value"]) for m in odds["modifiers"]] == [
        ("skill", 2), ("characteristic", 3), ("referee_dm", -1)]


# --- melee --------------------------------------------------------------------------------------

def melee(options: dict[str, Any], attacker: dict[str, Any] | None = None,
          target: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"ruleset": "dpv", "action": "melee",
            "attacker": attacker or {"name": "A", "stats": {"strength": 10, "size": 7,
                                                            "skills": {"melee": 2}}},
            "target": target or {"name": "B", "pc": True, "stats": {"strength": 8}},
            "options": options, "range": {"value": 10, "units": "m"}}


def melee_outcome(result: dict[str, Any]) -> str:
    key = str(result["outcome"]["summary_key"]).rsplit(".", 1)[1]
    if key in ("avoided", "diving_attacker"):
        return key
    if not result["outcome"]["hit"]:
        return "miss"
    return gravest(wound_tiers(result))


@pytest.mark.parametrize("options", [
    {}, {"surprise": True, "block": True}, {"kind": "grapple"},
    {"kind": "diving_blow"}, {"kind": "thrown", "object_weight_kg": 1},
])
def test_melee_outcomes_are_the_resolvers_every_face(options: dict[str, Any]) -> None:
    attacker = {"name": "A", "stats": {"strength": 10, "size": 7, "skills": {"melee": 2},
                                       "throw_range_m": 40}}
    request = melee(options, attacker=attacker)
    assert exact(firefight.odds(request)) == every_face(request, melee_outcome)


def test_melee_golden_strike_block_and_diving_blow() -> None:
    # To strike: Routine 6+ with Melee 2: faces 4-10 (a 1 always fails): 7/10. The defender's
    # block: Difficult 10+ with no Melee: a 10, 1/10. Hit: 7/10 x 9/10.
    odds = firefight.odds(melee({"block": True}))
    assert Fraction(odds["exact"]) == Fraction(63, 100)
    assert exact(odds)["miss"] == Fraction(37, 100)
    # Surprise: automatic and unblockable.
    assert exact(firefight.odds(melee({"surprise": True, "block": True}))).get("miss") is None
    # Diving blow: attacker 2 x SIZE 7 + 1D6 against defender STR 8 + SIZE 10 = 18: 15, 16, 17
    # are less, so on 1-3 the attacker takes the blow.
    dive = exact(firefight.odds(melee({"kind": "diving_blow"})))
    assert dive["diving_attacker"] == Fraction(1, 2)


def test_melee_sampled_matches_the_exact_odds() -> None:
    request = melee({"block": True})
    n = 1500
    close_to(sample(request, melee_outcome, n, 16), exact(firefight.odds(request)), n)


# --- missiles, vehicles, healing -------------------------------------------------------------

def test_missile_outcomes_miss_or_each_vehicle_result() -> None:
    # Homing 7 - evasive 2 = 5: strictly under, faces 1-4. Contact DPV 4 x EP 2 = 8 against
    # armor 2: 6 left, +1: 1D10 + 1 on VEHICLE DAMAGE.
    request = {"ruleset": "dpv", "action": "missile", "homing": 7, "ep": 2,
               "target": {"name": "APC", "armor": 2, "evasive": 2}}
    out = exact(firefight.odds(request))
    assert out["miss"] == Fraction(6, 10)
    assert out == every_face(request, lambda r: "miss" if not r["outcome"]["hit"]
                             else "vehicle_" + r["outcome"]["vehicle_result"])


def test_regain_and_critical_point_outcomes() -> None:
    regain = exact(firefight.odds({"ruleset": "dpv", "action": "regain_consciousness",
                                   "hours_unconscious": 4}))
    assert regain == {"conscious_yes": Fraction(3, 10), "conscious_no": Fraction(7, 10)}
    # Shock 2, moved: 1D10 - 1 <= 2 on 1-3; life level 3: the third point kills.
    critical = firefight.odds({"ruleset": "dpv", "action": "critical_point", "point": 1,
                               "moved": True,
                               "patient": {"pc": True, "stats": {"shock": 2, "life_level": 3}}})
    assert exact(critical) == {"critical_steady": Fraction(7, 10),
                               "critical_dead": Fraction(3, 10)}
    assert [m["value"] for m in critical["modifiers"]] == [-1]


def test_every_outcome_key_is_labelled_in_en_and_de() -> None:
    requests = [attack(), area({"name": "PC", "pc": True}), task(difficulty="routine"),
                task(preset="emplace_charge"), melee({"kind": "diving_blow"}),
                {"ruleset": "dpv", "action": "missile", "homing": 9, "ep": 40,
                 "target": {"armor": 1}}]
    keys = {o["key"] for r in requests for o in firefight.odds(r)["outcomes"]}
    keys |= {f"FIREFIGHT.dpv.odds.{k}" for k in ORDER}
    # An exploding round's: the target's condition after a hit, or after a miss's blast.
    conditions = ["unhurt", "wounded", "incapacitated", "unconscious", "dead"]
    keys |= {f"FIREFIGHT.dpv.odds.hit_{c}" for c in conditions}
    keys |= {f"FIREFIGHT.dpv.odds.blast_{c}" for c in conditions[1:]}
    keys |= {f"FIREFIGHT.dpv.odds.blast_vehicle_{r}" for r in VEHICLE}
    for lang in ("en", "de"):
        data = json.loads((LANG / f"{lang}.json").read_text(encoding="utf-8"))
        for key in keys:
            node: Any = data
            for part in key.split("."):
                node = node[part]
            assert isinstance(node, str), (lang, key)
            assert node, (lang, key)


def test_area_fire_at_a_vehicle_shows_its_gravest_vehicle_damage() -> None:
    # AFV 1 x 3 bursts = 3: a 1 hits three times (3 / 1), a 2 or 3 once; each hit rolls
    # VEHICLE DAMAGE (DPV 0.7 - armor 0.2: no +1).
    request = area({"name": "Jeep", "stats": {"vehicle_armor": 0.2}}, bursts=3)
    out = exact(firefight.odds(request))
    assert out == every_face(request, area_outcome)
    assert out["miss"] == Fraction(7, 10)
    # Catastrophic on a 9 only: 1 - (9/10)^3 of the triple hit, 1/10 of each single one.
    assert out["vehicle_catastrophic"] == (Fraction(1, 10) * (1 - Fraction(9, 10) ** 3)
                                           + Fraction(2, 10) * Fraction(1, 10))
