"""dpv vehicles and missiles at the table (issue 14's last items): a missile fired from a
missile weapon, evasive driving, vehicles in a blast, and area fire cut at extreme range.
Golden numbers are the text's own (2300ad MISSILE PROCEDURE, COMBAT TASKS, EXPLOSIVES,
VEHICLE DAMAGE, RANGES, FIRE COMBAT)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import firefight
from firefight.rulesets.dpv.models import DpvWeapon

PACKS = Path(__file__).resolve().parents[2] / "packs" / "_source"


def act(action: str, dice: list[int] | None = None, **request: Any) -> dict[str, Any]:
    return firefight.resolve({"ruleset": "dpv", "action": action, **request}, dice=dice or [])


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


# --- MISSILE PROCEDURE from a missile weapon ----------------------------------------------------

MISSILE = {"name": "ATGM", "effective_range_m": 1000, "dpv": 0, "homing": 7, "ep": 2}


def test_a_missile_weapon_gives_its_homing_value_and_ep() -> None:
    # "Roll 1d10 under (homing value of missile - evasive value of target)": 7 - 2 = 5, a 4
    # hits; "Damage is always as a tamped explosion": 4 x EP 2 = 8 DPV - armor 2 = 6: +1.
    target = {"name": "APC", "armor": 2, "evasive": 2}
    hit = act("missile", [4, 6], weapon=MISSILE, target=target)
    assert step(hit, "missile")["numbers"] == {"roll": 4, "homing": 7, "evasive": 2, "needed": 5}
    assert (hit["outcome"]["dpv"], step(hit, "vehicle")["numbers"]["total"]) == (8, 7)
    assert act("missile", [5], weapon=MISSILE, target=target)["outcome"]["hit"] is False
    odds = firefight.odds({"ruleset": "dpv", "action": "missile", "weapon": MISSILE,
                           "target": target})
    assert odds["probability"] == 0.4


def test_a_weapon_without_homing_is_no_missile() -> None:
    out = act("missile", weapon={"name": "Rifle", "effective_range_m": 100, "dpv": 1})
    assert out["error"]["fields"][0]["field"] == "weapon.homing"


def test_every_missile_in_the_pack_has_homing_and_ep() -> None:
    items = [json.loads(p.read_text(encoding="utf-8"))
             for p in (PACKS / "dpv-weapons").glob("*.json")]
    missiles = [i for i in items if i["flags"]["firefight"]["dpv"].get("homing") is not None]
    assert missiles
    for item in missiles:
        weapon = DpvWeapon.model_validate(item["flags"]["firefight"]["dpv"])
        assert weapon.ep


# --- "To drive evasively" ------------------------------------------------------------------------

HOVER = {"name": "Hover tank", "stats": {"vehicle_armor": 2, "evasive": 3,
                                         "skills": {"vehicle": 2}}}


def test_driving_evasively_sets_the_evasive_value_for_the_turn() -> None:
    # Routine (6+) with Vehicle-2: a 4 succeeds, and the vehicle is evading this turn.
    done = act("task", [4], actor=HOVER, options={"preset": "drive_evasively"})
    assert done["outcome"]["success"] is True
    stats = firefight.apply("dpv", HOVER["stats"], done["effects"])["stats"]
    assert stats["evading"] is True
    failed = act("task", [3, 2, 2], actor=HOVER, options={"preset": "drive_evasively"})
    assert [e["kind"] for e in failed["effects"]] == []
    # Homing 7 - evasive 3 = 4 only while evading: a 4 misses then, and hits when not.
    evading = {**HOVER, "stats": stats}
    assert act("missile", [4], homing=7, ep=2, target=evading)["outcome"]["hit"] is False
    plain = act("missile", [4, 5], homing=7, ep=2, target=HOVER)
    assert (plain["outcome"]["hit"], step(plain, "missile")["numbers"]["evasive"]) == (True, 0)
    assert any(n["key"].endswith("note.not_evading") for n in plain["notes"])
    # The world may count the evasive value always (docs/rules-notes.md).
    always = act("missile", [4], homing=7, ep=2, target=HOVER,
                 settings={"evasive_rule": "always"})
    assert always["outcome"]["hit"] is False
    # "Absolute (1 action)": over at the end of the combat turn.
    end = act("combat_turn", actor=evading, options={"phase": "end"})
    assert firefight.apply("dpv", stats, end["effects"])["stats"]["evading"] is False


# --- EXPLOSIVES on vehicles --------------------------------------------------------------------

def test_a_vehicle_in_a_blast_rolls_vehicle_damage() -> None:
    # EP 4 at 3 m: concussion 2 x 4 = 8, a 5 hits: DPV 8 - armor 2 = 6, "+1 for each 5 DPV":
    # 4 + 1 = 5, Armament. Burst radius 15 m (EP 4): a 1 brings 1D6 = 3 fragments of DPV 0.4,
    # which the armor stops.
    apc = {"name": "APC", "distance_m": 3, "stats": {"vehicle_armor": 2}}
    result = act("explosion", [5, 1, 3, 4], ep=4, targets=[apc])
    figure = result["outcome"]["figures"][0]
    assert figure["vehicle_results"] == ["armament", "no_penetration", "no_penetration",
                                         "no_penetration"]
    first = step(result, "vehicle_0_1")["numbers"]
    assert (first["dpv"], first["dpv_after_armor"], first["total"]) == (8, 6, 5)
    assert [e["value"] for e in result["effects"] if e["kind"] == "vehicle"] == ["armament"]
    assert not [e for e in result["effects"] if e["kind"] in {"shock", "stun", "light_wounds"}]


# --- FIRE COMBAT, area fire at extreme range -----------------------------------------------------

def test_no_figure_past_four_times_effective_range_is_attacked() -> None:
    # RANGES: "Extreme range is 4 x effective range": the area at 398 m (effective 100 m) is in
    # range; a figure in it at 403 m, or beyond it at 405 m, is not.
    request = {"weapon": {"name": "MG", "effective_range_m": 100, "dpv": 1, "afv": 2, "rof": 2,
                          "rpb": 3}, "range": {"value": 398},
               "targets": [{"name": "near", "pc": True, "place": "in_area", "distance_m": 396},
                           {"name": "far", "pc": True, "place": "in_area", "distance_m": 403},
                           {"name": "past", "pc": True, "place": "beyond", "distance_m": 405}]}
    result = act("area_fire", [1, 9, 5, 5], **request)
    assert [f["condition"] for f in result["outcome"]["figures"]][1:] == ["unaffected"] * 2
    assert [n["key"].rsplit(".", 1)[1] for n in result["notes"]][-2:] == ["past_extreme"] * 2
    odds = firefight.odds({"ruleset": "dpv", "action": "area_fire", **request})
    assert [f["outcomes"][0]["probability"] for f in odds["figures"]][1:] == [1, 1]


def test_the_vehicle_pack_holds_vehicles_that_missiles_and_fire_read() -> None:
    docs = [json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((PACKS / "dpv-vehicles").glob("*.json"))]
    assert len(docs) >= 3
    for doc in docs:
        stats = doc["flags"]["firefight"]["dpv"]
        assert stats["vehicle_armor"] is not None
        target = {"name": doc["name"], "actor_id": doc["_id"], "stats": stats}
        shot = act("attack", [10, 10], attacker={"name": "A"}, target=target,
                   weapon={"effective_range_m": 100, "dpv": 40}, range={"value": 50})
        assert shot["outcome"]["vehicle_results"], doc["name"]
        missile = act("missile", [1, 10], weapon=MISSILE, target=target)
        assert missile["outcome"]["hit"] is True
        for item in doc["items"]:
            DpvWeapon.model_validate(item["flags"]["firefight"]["dpv"])


def test_a_missile_is_not_aimed_fire() -> None:
    # MISSILE PROCEDURE is its own to-hit roll: Shoot with a missile is refused, naming why.
    out = act("attack", attacker={"name": "A"}, target={"name": "T"}, weapon=MISSILE,
              range={"value": 500})
    assert (out["error"]["code"], out["error"]["fields"][0]["field"]) == ("refused",
                                                                          "weapon.homing")
