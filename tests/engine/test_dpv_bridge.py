"""The dpv contract at the boundary: a valid request gives a result (or a rules refusal naming
the field), an invalid one an error naming the field; every label the engine emits is in
lang/en.json; replaying the dice reproduces the result."""

from __future__ import annotations

import json
from typing import Any

from _examples import assert_invalid_field_named
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import firefight
from firefight import bridge
from firefight.i18n import strings
from firefight.rulesets.dpv import models as dpv

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

skills = st.dictionaries(st.sampled_from(dpv.SKILLS), st.integers(0, 10), max_size=3)
stats = st.fixed_dictionaries({}, optional={
    "strength": st.integers(0, 20), "dexterity": st.integers(0, 20), "skills": skills,
    "experience": st.sampled_from(dpv.EXPERIENCES), "shock": st.integers(0, 5),
    "stun": st.integers(0, 5), "consciousness_level": st.integers(1, 20),
    "life_level": st.integers(1, 20), "light_wounds": st.integers(0, 4)})
armor = st.fixed_dictionaries({"value": st.floats(0, 3, allow_nan=False)}, optional={
    "locations": st.lists(st.sampled_from(dpv.LOCATIONS), max_size=6, unique=True)})
combatant = st.fixed_dictionaries({"name": st.text(max_size=20), "stats": stats},
                                  optional={"pc": st.booleans(),
                                            "armor": st.lists(armor, max_size=2)})
weapon = st.fixed_dictionaries(
    {"effective_range_m": st.floats(1, 2000, allow_nan=False),
     "dpv": st.floats(0, 20, allow_nan=False)},
    optional={"kind": st.sampled_from(dpv.WEAPON_KINDS), "afv": st.floats(0, 5, allow_nan=False),
              "rof": st.integers(1, 5), "rpb": st.integers(1, 10),
              "wound_type": st.sampled_from(dpv.WOUND_TYPES),
              "deviation": st.sampled_from(dpv.DEVIATION_TYPES)})
setting = st.fixed_dictionaries({}, optional={
    "task_dice": st.sampled_from(dpv.TASK_DICE), "easy_in_ladder": st.booleans(),
    "location_rule": st.sampled_from(dpv.LOCATION_RULES),
    "zero_dpv": st.sampled_from(dpv.ZERO_DPV)})
attack_options = st.fixed_dictionaries({}, optional={
    "fire": st.sampled_from(dpv.FIRE_MODES), "shots": st.integers(1, 3),
    "stationary_in_open": st.booleans(), "dm": st.integers(-3, 3),
    "cover_material": st.sampled_from(dpv.MATERIALS),
    "cover_thickness_cm": st.floats(0, 50, allow_nan=False),
    "location": st.sampled_from(dpv.LOCATIONS)})
attacks = st.fixed_dictionaries({
    "ruleset": st.just("dpv"), "action": st.just("attack"), "attacker": combatant,
    "target": combatant, "weapon": weapon,
    "range": st.fixed_dictionaries({"value": st.floats(0, 10000, allow_nan=False)}),
    "options": attack_options, "settings": setting})
figures = st.lists(st.fixed_dictionaries(
    {"name": st.text(max_size=10), "stats": stats},
    optional={"pc": st.booleans(), "place": st.sampled_from(["in_area", "line_of_fire", "beyond"]),
              "distance_m": st.floats(0, 3000, allow_nan=False), "duck": st.booleans()}),
    min_size=1, max_size=3)
areas = st.fixed_dictionaries({
    "ruleset": st.just("dpv"), "action": st.just("area_fire"), "weapon": weapon,
    "range": st.fixed_dictionaries({"value": st.floats(0, 10000, allow_nan=False)}),
    "targets": figures, "settings": setting,
    "options": st.fixed_dictionaries({}, optional={
        "bursts": st.integers(1, 3), "moving": st.sampled_from(dpv.MOVING)})})
task_requests = st.fixed_dictionaries({
    "ruleset": st.just("dpv"), "action": st.just("task"), "actor": combatant,
    "settings": setting,
    "options": st.fixed_dictionaries({"preset": st.sampled_from(dpv.PRESETS)}, optional={
        "difficulty": st.sampled_from(dpv.DIFFICULTIES), "skill": st.integers(0, 10),
        "hasty": st.booleans(), "hazardous": st.booleans(), "uncertain": st.booleans(),
        "medkit_only": st.booleans(), "time_seconds": st.floats(1, 1000, allow_nan=False)})})
explosions = st.fixed_dictionaries({
    "ruleset": st.just("dpv"), "action": st.just("explosion"),
    "ep": st.floats(0.1, 50, allow_nan=False),
    "targets": st.lists(st.fixed_dictionaries({"distance_m": st.floats(0, 100,
                                                                       allow_nan=False)}),
                        max_size=3),
    "options": st.fixed_dictionaries({}, optional={"tamped": st.booleans()})})
melees = st.fixed_dictionaries({
    "ruleset": st.just("dpv"), "action": st.just("melee"), "attacker": combatant,
    "target": combatant, "options": st.fixed_dictionaries({}, optional={
        "kind": st.sampled_from(["strike", "diving_blow", "grapple"]), "block": st.booleans(),
        "avoid": st.booleans(), "surprise": st.booleans(), "blunt": st.booleans()})})
valid = st.one_of(attacks, areas, task_requests, explosions, melees)

firefight.list_rulesets()  # registers the built-ins, and with them their lang files
KEYS = set(strings("en"))


def label_keys(result: dict[str, Any]) -> list[str]:
    keys = [result["card"]["title_key"], result["outcome"]["summary_key"]]
    keys += [s["label_key"] for s in result["steps"]]
    keys += [s["outcome_key"] for s in result["steps"] if s["outcome_key"]]
    keys += [v for s in result["steps"] for k, v in s["params"].items() if k.endswith("_key")]
    keys += [m["key"] for m in result["modifiers"]] + [n["key"] for n in result["notes"]]
    keys += [e["label_key"] for e in result["effects"]]
    keys += [v for n in result["notes"] for k, v in n["params"].items() if k.endswith("_key")]
    keys += [v for k, v in result["card"]["params"].items() if k.endswith("_key")]
    return keys


@FAST
@given(request=valid, seed=st.integers(0, 2**32))
def test_valid_request_gives_a_result_or_a_refusal(request: dict[str, Any], seed: int) -> None:
    out = firefight.resolve(request, seed=seed)
    if "error" in out:
        assert out["error"]["code"] == "refused", out
        assert out["error"]["fields"]
        return
    assert out["ruleset"] == "dpv"
    assert all(d["purpose"] and d["formula"] for d in out["dice"])
    assert all(m["source"].startswith("2300ad") for m in out["modifiers"])
    assert all(s["params"].get("source", "2300ad").startswith("2300ad") for s in out["steps"])
    missing = [k for k in label_keys(out) if k not in KEYS]
    assert not missing, missing
    json.dumps(out)
    faces = [f for d in out["dice"] for f in d["results"]]
    assert firefight.resolve(request, dice=faces) == out
    assert "firefight-card" in firefight.render_card(out)


@FAST
@given(request=st.one_of(attacks, areas, task_requests))
def test_odds_are_probabilities(request: dict[str, Any]) -> None:
    out = firefight.odds(request)
    if "error" in out:
        assert out["error"]["code"] == "refused"
        return
    assert 0 <= out["probability"] <= 1


words = st.text(alphabet="abcxyz", min_size=1, max_size=5)
not_a_number = st.one_of(words, st.none(), st.lists(st.integers(), max_size=2))
invalid_values = {
    ("weapon", "dpv"): st.one_of(not_a_number, st.floats(max_value=-0.01)),
    ("weapon", "effective_range_m"): st.one_of(not_a_number, st.just(0)),
    ("range", "value"): st.one_of(not_a_number, st.floats(max_value=-0.001)),
    ("attacker", "stats", "strength"): st.one_of(not_a_number, st.integers(max_value=-1)),
    ("options", "fire"): st.one_of(words, st.none(), st.integers()),
    ("options", "shots"): st.one_of(not_a_number, st.integers(max_value=0)),
    ("target", "armor"): st.just([{"value": "x"}]),
    ("settings", "task_dice"): words,
}


@FAST
@given(request=attacks, data=st.data(), path=st.sampled_from(sorted(invalid_values)))
def test_invalid_field_gives_an_error_naming_it(request: dict[str, Any], data: st.DataObject,
                                                path: tuple[str, ...]) -> None:
    assert_invalid_field_named(request, path, data.draw(invalid_values[path]))


def test_unknown_action_names_the_field() -> None:
    out = firefight.resolve({"ruleset": "dpv", "action": "dance"}, seed=1)
    assert out["error"]["fields"][0]["field"] == "action"


def test_missing_action_is_an_attack() -> None:
    out = firefight.resolve({"ruleset": "dpv", "attacker": {}, "target": {},
                             "weapon": {"effective_range_m": 10, "dpv": 1},
                             "range": {"value": 5}}, dice=[9, 5])
    assert out["action"] == "attack"


def test_schema_lists_actions_and_the_shoot_dialog() -> None:
    schema = json.loads(bridge.handle('{"op": "schema", "ruleset": "dpv"}'))["value"]
    assert set(schema["actions"]) >= {"attack", "area_fire", "task", "explosion", "melee"}
    fire = schema["options"]["properties"]["fire"]
    assert fire["x-label-key"] == "FIREFIGHT.dpv.opt.fire.label"
    for action in schema["actions"].values():
        for prop in action["properties"].values():
            assert prop["x-label-key"] in KEYS
            for key in prop.get("x-enum-label-keys", []):
                assert key in KEYS, key
    for prop in schema["settings"]["properties"].values():
        assert prop["x-label-key"] in KEYS
    hello = json.loads(bridge.handle('{"op": "hello"}'))["value"]
    dpv_entry = next(r for r in hello["rulesets"] if r["id"] == "dpv")
    assert "area_fire" in dpv_entry["actions"]
