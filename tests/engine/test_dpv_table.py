"""2300 AD at the table (issue 14, the engine side of its gaps): wound effects as actor state
the combat tracker counts down, vehicles under fire, healing on a patient, repair, the
referee's tools as dialogs, and the table features declared as data. Golden numbers are the
text's own."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest
from _examples import example

import firefight
from firefight.rulesets.dpv import RULESET, explosives
from firefight.rulesets.dpv.models import DpvStats, ExplosionOptions


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


def effects(result: dict[str, Any]) -> list[tuple[str, int, Any]]:
    return [(e["kind"], e["delta"], e["value"]) for e in result["effects"]]


def applied(stats: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = firefight.apply("dpv", stats, result["effects"])["stats"]
    return out


def act(action: str, dice: list[int] | None = None, **request: Any) -> dict[str, Any]:
    return firefight.resolve({"ruleset": "dpv", "action": action, **request}, dice=dice or [])


# --- Wound Effects as state ------------------------------------------------------------------

def test_shock_dazes_for_its_points_and_costs_three_initiative() -> None:
    # Effective range 80 m: 7 + Marksmanship 3 = 10 hits; abdomen (3), DPV 0.7 - 0.3 = 0.4,
    # 1D10 of 4: "Shock, KD". Wound Effects: "Dazed remains in effect for a number of turns
    # equal to the total of shock and stun points"; "Initiative is reduced by -3".
    request = copy.deepcopy(example("dpv_attack.json"))
    request["range"]["value"] = 80
    result = firefight.resolve(request, dice=[7, 3, 4])
    after = applied({"experience": "veteran"}, result)
    assert (after["shock"], after["dazed_turns"], after["initiative_loss"]) == (1, 1, 3)


def test_a_light_wound_immobilizes_for_the_turn_and_costs_one_initiative() -> None:
    # Lower leg (7), light: "Light Wound, KD": "immobilized for the rest of the combat turn.
    # Initiative level is reduced by 1"; knocked down with no shock or stun: dazed to the end
    # of the turn.
    request = copy.deepcopy(example("dpv_attack.json"))
    request["range"]["value"] = 80
    result = firefight.resolve(request, dice=[7, 7, 6])
    after = applied({"experience": "veteran"}, result)
    assert after["light_wounds"] == 1
    assert after["immobilized"] is True
    assert after["dazed_turn_end"] is True
    assert after["initiative_loss"] == 1


def turn(stats: dict[str, Any], phase: str, pc: bool = True) -> dict[str, Any]:
    return act("combat_turn", actor={"name": "X", "pc": pc, "stats": stats},
               options={"phase": phase})


def test_initiative_is_reduced_but_never_below_1() -> None:
    # "Initiative is reduced by -3, but never below 1 until the character is unconscious."
    assert turn({"initiative": 8, "initiative_loss": 3}, "start")["outcome"]["initiative"] == 5
    assert turn({"initiative": 5, "initiative_loss": 6}, "start")["outcome"]["initiative"] == 1
    # "Coolness is the NPC's initiative level": a veteran's 8.
    npc = turn({"experience": "veteran", "initiative_loss": 1}, "start", pc=False)
    assert npc["outcome"]["initiative"] == 7


def test_a_dazed_figure_cannot_act_and_dazed_counts_down_at_the_turn_end() -> None:
    # "The character cannot move or act"; dazed "remains in effect for a number of turns".
    stats = {"initiative": 6, "dazed_turns": 2, "immobilized": True}
    start = turn(stats, "start")["outcome"]
    assert (start["can_act"], start["can_move"]) == (False, False)
    end = turn(stats, "end")
    after = applied(stats, end)
    assert (after["dazed_turns"], after["immobilized"]) == (1, False)
    after = applied(after, turn(after, "end"))
    assert after["dazed_turns"] == 0
    assert turn(after, "start")["outcome"]["can_act"] is True


def test_dazed_to_the_end_of_the_turn_ends_there() -> None:
    stats = {"dazed_turn_end": True}
    assert turn(stats, "start")["outcome"]["can_act"] is False
    assert applied(stats, turn(stats, "end"))["dazed_turn_end"] is False


# --- vehicles ------------------------------------------------------------------------------

def test_aimed_fire_at_a_vehicle_rolls_vehicle_damage() -> None:
    # DPV 6 doubled at close range (40 m of 100 m): 12, less the vehicle's armor 1: 11, "+1 for
    # each 5 DPV": +2; 1D10 of 7 + 2 = 9: Catastrophic.
    request = copy.deepcopy(example("dpv_attack.json"))
    request["weapon"]["dpv"] = 6
    request["target"] = {"name": "APC", "stats": {"vehicle_armor": 1}}
    result = firefight.resolve(request, dice=[9, 7])
    vehicle = step(result, "vehicle")["numbers"]
    assert (vehicle["dpv_after_armor"], vehicle["bonus"], vehicle["total"]) == (11, 2, 9)
    assert result["outcome"]["vehicle_results"] == ["catastrophic"]
    assert ("vehicle", 0, "catastrophic") in effects(result)
    odds = firefight.odds(request)
    names = {o["key"].rsplit(".", 1)[1] for o in odds["outcomes"]}
    assert names <= {"miss"} | {f"vehicle_{k}" for k in ("no_effect", "crew", "two_crew",
                                                         "armament", "mobility",
                                                         "catastrophic")}


def test_a_missile_reads_the_vehicles_own_evasive_value_and_armor() -> None:
    # Homing 7 - evasive 3 (the vehicle's stats, driven evasively) = 4: strictly under, a 3
    # hits, a 4 misses.
    target = {"name": "Hover tank", "stats": {"vehicle_armor": 2, "evasive": 3,
                                              "evading": True}}
    hit = act("missile", [3, 5], homing=7, ep=2, target=target)
    assert hit["outcome"]["hit"] is True
    assert step(hit, "vehicle")["numbers"]["armor"] == 2
    assert act("missile", [4], homing=7, ep=2, target=target)["outcome"]["hit"] is False


@pytest.mark.parametrize(("damage", "needed", "percent_per_d10"), [
    ("superficial", 2, 1), ("minor", 6, 5), ("major", 10, 10), ("total", 14, 20)])
def test_repair_task_and_cost(damage: str, needed: int, percent_per_d10: int) -> None:
    # DAMAGE AND REPAIR: Simple / Routine / Difficult / Formidable; cost 1D10 x 1/5/10/20 %.
    result = act("repair", [10, 7], actor={"name": "Mech"}, target={"name": "Car"},
                 options={"damage": damage, "price": 20000, "skill": 4})
    assert step(result, "task")["numbers"]["needed"] == needed
    cost = step(result, "repair_cost")["numbers"]
    assert cost["percent"] == 7 * percent_per_d10
    assert result["outcome"]["cost"] == 20000 * 7 * percent_per_d10 / 100
    assert ("vehicle", 0, "repaired") in effects(result)


# --- healing on a patient ------------------------------------------------------------------

def test_stabilizing_ends_the_patients_shock_clock() -> None:
    # "To stabilize a serious wound: Routine. Medical": 4 + Medical 2 = 6 succeeds.
    result = act("treat", [4, 3, 3, 3], medic={"name": "Doc", "stats": {"skills": {
        "medical": 2}}}, patient={"name": "Pvt", "pc": True, "stats": {"shock": 1}},
        options={"care": "stabilize"})
    assert result["outcome"]["success"] is True
    stabilized = [e for e in result["effects"] if e["value"] == "stabilized"]
    assert [e["target"] for e in stabilized] == ["target"]  # the patient's
    assert "stabilized" in RULESET.features["healing"]["over"]
    failed = act("treat", [3] * 6, medic={"name": "Doc"},
                 patient={"name": "Pvt"}, options={"care": "stabilize"})
    assert not [e for e in failed["effects"] if e["kind"] == "state"]


def test_healing_takes_one_light_wound_and_one_shock_point_off_the_patient() -> None:
    # HEALING, "To heal one light wound and/or one shock point": Routine, Medical skill.
    patient = {"light_wounds": 2, "shock": 1, "initiative_loss": 4}
    result = act("treat", [8, 3, 3, 3], medic={"name": "Doc"},
                 patient={"name": "Pvt", "pc": True, "stats": patient},
                 options={"care": "heal"})
    after = applied(patient, result)
    assert (after["light_wounds"], after["shock"], after["initiative_loss"]) == (1, 0, 0)


def test_a_moved_patient_throws_at_dm_minus_1_at_the_next_crisis_point() -> None:
    # "If a character is moved, by hand or vehicle, apply a DM of -1 on the throw at the next
    # crisis point": shock 2, 1D10 of 3 - 1 = 2 <= 2: one more shock point.
    moved = act("critical_point", [3], point=1,
                patient={"pc": True, "stats": {"shock": 2, "moved": True}})
    assert moved["outcome"]["shock"] == 3
    assert ("moved", 0, False) in effects(moved)  # counted once
    still = act("critical_point", [3], point=1, patient={"pc": True, "stats": {"shock": 2}})
    assert still["outcome"]["shock"] == 2


# --- the referee's tools --------------------------------------------------------------------

@pytest.mark.parametrize(("move", "turns", "metres", "cover"), [
    ("crawling", 1, 5, "all"), ("walking", 1, 20, "partial"), ("trotting", 2, 80, "none"),
    ("running", 3, 240, "none")])
def test_movement_rates(move: str, turns: int, metres: int, cover: str) -> None:
    out = act("movement", options={"move": move, "turns": turns})["outcome"]
    assert (out["metres"], out["cover"]) == (metres, cover)


def test_thrown_range_and_dpv() -> None:
    # "Throw Range divided by object weight. DPV is STR/20 and causes blunt trauma damage."
    out = act("throw_range", actor={"stats": {"strength": 12, "throw_range_m": 40}},
              options={"object_weight_kg": 2})["outcome"]
    assert (out["reach_m"], out["dpv"], out["wound_type"]) == (20, 0.6, "blunt")


def test_stutterwarp_travel_times() -> None:
    # 10 ly at 2 ly a day: 5 days, and one 40-hour stop (the 7.7 ly speed limit).
    out = act("stutterwarp", options={"speed_ly_per_day": 2, "distance_ly": 10})["outcome"]
    assert (out["stops"], out["time"]) == (1, "6d 16h")
    assert act("stutterwarp", options={"distance_ly": 7.7})["outcome"]["stops"] == 0
    # "Multiply interstellar speed by 0.645 for speed in au/day": 6.45 au at 1 ly/day: 10 days.
    assert act("stutterwarp", options={"distance_au": 6.45})["outcome"]["time"] == "10d"


def test_every_referee_tool_and_table_action_is_a_dialog() -> None:
    dialogs = RULESET.catalog()["options"]
    for name in ("travel", "interface", "stutterwarp", "movement", "throw_range", "repair",
                 "treat", "combat_turn", "attack", "area_fire", "task", "melee"):
        assert name in dialogs, name
    assert set(dialogs["travel"]["properties"]) == {"mode", "terrain", "features", "hexes"}


# --- features as data -----------------------------------------------------------------------

def test_features_name_declared_actions_and_stats() -> None:
    features = RULESET.features
    actions = set(RULESET.action_names)
    named = [features["explosion"]["action"], features["healing"]["action"],
             features["healing"]["wake"], features["healing"]["treat"],
             features["areaFire"]["action"], features["turn"]["action"],
             features["vehicle"]["missile"], features["vehicle"]["repair"],
             *features["roles"]]
    assert set(named) <= actions
    stats = set(DpvStats.model_fields)
    assert {features["healing"]["moved"], features["vehicle"]["armor"],
            features["vehicle"]["evasive"], *features["turn"]["statuses"]} <= stats


def test_area_fire_template_is_the_texts_10_metres() -> None:
    # "Area Fire is directed at a single area 10 meters in diameter".
    area = RULESET.features["areaFire"]
    assert area["diameterM"] == 10
    assert set(area["places"].values()) == {"in_area", "line_of_fire", "beyond"}


@pytest.mark.parametrize(("ep", "tamped", "reach"), [
    (1, False, 10), (3, False, 15), (10, False, 25), (0.5, False, 5), (1, True, 5),
    (4, True, 15)])
def test_the_declared_concussion_reach_gathers_every_victim(ep: float, tamped: bool,
                                                             reach: int) -> None:
    # "Concussion ... affects every character within five meters. For each additional five
    # meters ... halve"; hit on 1D10 at or under the value: no one where it is below 1.
    key = "concussionReachTamped" if tamped else "concussionReach"
    steps = RULESET.features["explosion"][key]
    declared = max(s["reach_m"] for s in steps if s["ep"] <= ep)
    assert declared == reach == explosives.concussion_reach(Fraction(ep), tamped)
    # A victim just inside the reach can be hit (a 1 on 1D10); just outside cannot.
    inside = act("explosion", [1] * 8, ep=ep, options={"fragmentation": False,
                                                        "tamped": tamped},
                 targets=[{"name": "V", "pc": True, "distance_m": reach}])
    assert step(inside, "concussion_0")["success"] is True
    outside = act("explosion", [1] * 8, ep=ep, options={"fragmentation": False,
                                                         "tamped": tamped},
                  targets=[{"name": "V", "pc": True, "distance_m": reach + 0.5}])
    assert step(outside, "concussion_0")["success"] is False
    # The table draws the declared circles from the blast's params: the concussion's too
    # (issue 14 defect 4), and picks the tamped steps by the declared option.
    spec = RULESET.features["explosion"]
    blast = next(e for e in inside["effects"] if e["kind"] == spec["blast"])["params"]
    assert set(spec["circles"]) <= set(blast)
    assert blast["concussion_reach_m"] == reach
    assert spec["tamped"] in ExplosionOptions.model_fields


def test_a_missed_grenade_offers_nothing_to_apply() -> None:
    # DEVIATION: a missed exploding round only lands elsewhere; nobody is hurt by the shot.
    request = copy.deepcopy(example("dpv_attack.json"))
    request["weapon"].update(name="Grenade", ep=1, deviation="direct_fire", kind="explosive")
    result = firefight.resolve(request, dice=[2, 5, 8])
    assert result["outcome"]["hit"] is False
    assert result["effects"]
    assert not any(e["on_actor"] for e in result["effects"])


def test_a_figure_that_ducked_has_no_more_actions_this_turn() -> None:
    # "Ducking ... forfeits remaining actions for the turn": green NPC, Coolness 4; 1D10 of 4
    # + AFV 1 = 5 > 4: it ducks; the flag holds until the end of the turn.
    request = {"ruleset": "dpv", "action": "area_fire",
               "weapon": {"effective_range_m": 100, "dpv": 0.7, "afv": 1, "rof": 3, "rpb": 5},
               "range": {"value": 80, "units": "m"},
               "targets": [{"name": "G", "stats": {"experience": "green"}}],
               "options": {"bursts": 3}}
    stats = applied({"experience": "green"}, firefight.resolve(request, dice=[4, 10]))
    assert stats["ducked"] is True
    assert turn(stats, "start", pc=False)["outcome"]["can_act"] is False
    assert applied(stats, turn(stats, "end", pc=False))["ducked"] is False
