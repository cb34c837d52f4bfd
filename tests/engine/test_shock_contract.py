"""SHOCK at the boundary: a valid request of any action gives a result (replayable from its
dice), an invalid one an error naming the field; schema, bridge, cards and pack documents."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _examples import pack_docs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import firefight
from firefight import bridge
from firefight.i18n import strings
from firefight.rulesets.shock import models as shock

# A name is the user's text, shown as written: one that reads like a lang key ("FIREFIGHT.",
# which Hypothesis draws from the code's own constants) would trip the raw-key check below.
names = st.text(max_size=30).filter(lambda s: "FIREFIGHT." not in s)
tap = st.integers(1, 10)
stats = st.fixed_dictionaries({}, optional={
    "quality": st.sampled_from(shock.QUALITIES), "toughness": tap, "awareness": tap,
    "prowess": tap, "wounds": st.integers(0, 12), "state": st.sampled_from(("ok", "stunned",
                                                                            "shock")),
})
protection = st.fixed_dictionaries({
    "locations": st.lists(st.sampled_from(shock.LOCATIONS), min_size=1, max_size=3),
    "stops": st.sampled_from(shock.DAMAGE_CLASSES),
}, optional={"name": names, "category": st.sampled_from(("cover", "armor"))})
unit = st.fixed_dictionaries({"name": names, "stats": stats}, optional={
    "pc": st.booleans(), "actor_id": names, "cover": st.lists(protection, max_size=2),
    "armor": st.lists(protection, max_size=2)})
shock_settings = st.fixed_dictionaries({}, optional={
    "to_hit": st.sampled_from(shock.TO_HIT_RULES),
    "wound_scale": st.sampled_from(shock.WOUND_SCALES),
    "damage_in_shock": st.sampled_from(shock.DAMAGE_IN_SHOCK)})
attacks = st.fixed_dictionaries({
    "ruleset": st.just("shock"),
    "attacker": st.fixed_dictionaries({"name": names, "stats": stats.map(
        lambda s: {**s, "state": "ok"})}),
    "target": unit,
    "weapon": st.fixed_dictionaries({"damage_class": st.sampled_from(shock.DAMAGE_CLASSES)},
                                    optional={"name": names, "calibre": names}),
    "range": st.fixed_dictionaries({"value": st.floats(0, 3000, allow_nan=False),
                                    "units": st.sampled_from(["m", "ft", "hex"])}),
    "options": st.fixed_dictionaries({}, optional={
        "referee_confirmed_hit": st.booleans(), "aimed": st.booleans(),
        "cover": st.sampled_from(shock.COVER_PRESETS),
        "cover_stops": st.sampled_from(shock.DAMAGE_CLASSES),
        "shooter_moved": st.booleans(), "target_moving": st.booleans(),
        "target_prone": st.booleans(), "situational": st.integers(-5, 5)}),
    "settings": shock_settings,
}, optional={"action": st.just("attack")})
turn_units = st.lists(st.fixed_dictionaries({"name": names}, optional={
    "wounds": st.integers(0, 12), "state": st.sampled_from(shock.STATES),
    "skipped_turn": st.booleans(), "actor_id": names}), min_size=1, max_size=8)
ends = st.fixed_dictionaries({"ruleset": st.just("shock"), "action": st.just("end_of_turn"),
                              "units": turn_units})
chit_units = st.lists(st.fixed_dictionaries({"name": names}, optional={
    "quality": st.sampled_from(shock.QUALITIES), "state": st.sampled_from(shock.STATES),
    "token_id": names}), min_size=1, max_size=10)
draws = st.fixed_dictionaries({"ruleset": st.just("shock"), "action": st.just("draw_chits"),
                               "units": chit_units}, optional={"turn": st.integers(1, 50)})
valid_requests = st.one_of(attacks, ends, draws)
ACTIONS = ("attack", "end_of_turn", "draw_chits", "activation_pool", "treat", "end_of_mission")
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(request=valid_requests, seed=st.integers(0, 2**32))
def test_valid_request_gives_a_result(request: dict[str, Any], seed: int) -> None:
    out = firefight.resolve(request, seed=seed)
    if "error" in out:  # the only refusal left: shooting the dead
        assert out["error"]["code"] == "refused", out
        assert out["error"]["fields"][0]["field"] == "target.stats.state"
        return
    assert out["ruleset"] == "shock"
    assert out["action"] == request.get("action", "attack")
    assert all(d["purpose"] and d["formula"] for d in out["dice"])
    assert all(m["source"] for m in out["modifiers"])
    json.dumps(out)
    faces = [f for d in out["dice"] for f in d["results"]]
    assert firefight.resolve(request, dice=faces) == out
    assert "FIREFIGHT." not in firefight.render_card(out)
    odds = firefight.odds(request)
    assert 0 <= odds.get("probability", 0) <= 1
    # An action no die decides (chit draw, pool, treatment) has no chance to show.
    assert ("probability" in odds) == (out["action"] not in ("draw_chits", "activation_pool",
                                                              "treat"))


words = st.text(alphabet="abcxyz", min_size=1, max_size=5)
not_a_number = st.one_of(words, st.none(), st.lists(st.integers(), max_size=2))
invalid_attack = {
    ("weapon", "damage_class"): st.one_of(words, st.none(), st.integers(), st.just("VII")),
    ("attacker", "stats", "prowess"): st.one_of(words, st.integers(max_value=0),
                                                st.integers(min_value=11)),
    ("target", "stats", "state"): st.one_of(words, st.integers()),
    ("target", "stats", "wounds"): st.one_of(not_a_number, st.integers(max_value=-1)),
    ("range", "value"): st.one_of(not_a_number, st.floats(max_value=-0.001)),
    ("options", "situational"): st.one_of(not_a_number, st.integers(min_value=6)),
    ("settings", "to_hit"): st.one_of(words, st.none()),
    ("options", "cover"): st.one_of(words, st.none(), st.integers()),
    ("attacker", "stats", "quality"): st.one_of(words, st.integers()),
}


def _break(request: dict[str, Any], path: tuple[str, ...], value: object) -> None:
    node = request
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def _named(out: dict[str, Any], path: str) -> None:
    assert out["error"]["code"] == "invalid_request", out
    fields = [f["field"] for f in out["error"]["fields"]]
    assert any(f.startswith(path) for f in fields), fields


@FAST
@given(request=attacks, data=st.data(), path=st.sampled_from(sorted(invalid_attack)))
def test_invalid_attack_field_gives_an_error_naming_it(request: dict[str, Any],
                                                       data: st.DataObject,
                                                       path: tuple[str, ...]) -> None:
    _break(request, path, data.draw(invalid_attack[path]))
    _named(firefight.resolve(request, seed=1), ".".join(path))


@FAST
@given(request=ends, data=st.data())
def test_invalid_end_of_turn_unit_names_the_unit(request: dict[str, Any], data: st.DataObject
                                                 ) -> None:
    i = data.draw(st.integers(0, len(request["units"]) - 1))
    field = data.draw(st.sampled_from(["wounds", "state"]))
    request["units"][i][field] = data.draw(words if field == "state" else st.integers(-9, -1))
    _named(firefight.resolve(request, seed=1), f"units[{i}].{field}")


@FAST
@given(request=draws, data=st.data())
def test_invalid_chit_unit_names_the_unit(request: dict[str, Any], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(request["units"]) - 1))
    request["units"][i]["quality"] = data.draw(st.one_of(words, st.integers()))
    _named(firefight.resolve(request, seed=1), f"units[{i}].quality")


@pytest.mark.parametrize(("request_", "field"), [
    ({"ruleset": "shock", "action": "reload"}, "action"),
    ({"ruleset": "shock", "action": "end_of_turn", "units": []}, "units"),
    ({"ruleset": "shock", "action": "draw_chits"}, "units"),
    ({"ruleset": "shock", "action": "end_of_turn", "units": [{"wound": 1}]}, "units[0].wound"),
    ({"ruleset": "shock", "attacker": {}, "target": {}, "range": {"value": 1}}, "weapon"),
])
def test_bad_requests_name_the_field(request_: dict[str, Any], field: str) -> None:
    _named(firefight.resolve(request_, seed=1), field)


def test_schema_has_every_action_and_labelled_options() -> None:
    schema = firefight.schema("shock")
    assert set(schema["actions"]) == set(ACTIONS)
    assert schema["actions"]["attack"] == schema["options"]
    assert len(schema["request"]["anyOf"]) == len(ACTIONS)
    keys = set(strings("en"))
    for section in ("options", "settings"):
        for prop in schema[section]["properties"].values():
            assert prop["x-label-key"] in keys
            for k in prop.get("x-enum-label-keys", []):
                assert k in keys, k
    assert schema["settings"]["properties"]["to_hit"]["enum"] == ["house", "referee"]


def test_bridge_lists_the_actions_and_resolves_with_entropy() -> None:
    hello = json.loads(bridge.handle('{"op": "hello"}'))["value"]
    described = next(r for r in hello["rulesets"] if r["id"] == "shock")
    assert described["actions"] == list(ACTIONS)
    request = {"ruleset": "shock", "action": "draw_chits",
               "units": [{"name": "A", "quality": "elite"}, {"name": "B"}]}
    reply = json.loads(bridge.handle(json.dumps({"op": "resolve", "request": request,
                                                 "entropy": [0.5] * 20})))
    assert reply["ok"] is True
    assert len(reply["value"]["result"]["outcome"]["order"]) == 11
    assert "Phase 1" in reply["value"]["html"]


def _keys_in(value: Any) -> set[str]:
    """Every lang key of the ruleset a result carries (label, outcome, note, effect, params)."""
    if isinstance(value, dict):
        return set().union(*(_keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys_in(v) for v in value))
    return {value} if isinstance(value, str) and value.startswith("FIREFIGHT.shock.") else set()


def test_every_shock_key_on_the_cards_is_translated() -> None:
    keys = set(strings("en"))
    base = {"ruleset": "shock", "attacker": {"name": "A"}, "target": {"name": "B"},
            "weapon": {"damage_class": "IV"}, "range": {"value": 20}}
    results = [
        firefight.resolve(base, dice=[1, 9, 3]),  # the house rule's hit
        firefight.resolve({**base, "options": {"referee_confirmed_hit": True, "cover": "low"}},
                          dice=[9]),  # behind the dialog's cover
        firefight.resolve({"ruleset": "shock", "action": "end_of_turn", "units": [
            {"name": "C", "wounds": 4}, {"name": "D", "state": "stunned"}]}, dice=[2]),
    ]
    found = set().union(*(_keys_in(r) for r in results))
    for literal in ("note.to_hit_house", "outcome.cover_stopped", "effect.wounds_removed_unit",
                    "step.still_stunned", "cover.cover"):
        assert f"FIREFIGHT.shock.{literal}" in found
    assert found <= keys, sorted(found - keys)
    for prefix, values in (("location", shock.LOCATIONS), ("quality", shock.QUALITIES),
                           ("severity", shock.TIERS)):
        for v in values:
            assert f"FIREFIGHT.shock.{prefix}.{v}" in keys


def test_the_card_says_how_the_hit_was_decided() -> None:
    base = {"ruleset": "shock", "attacker": {"name": "A"}, "target": {"name": "B"},
            "weapon": {"damage_class": "IV"}, "range": {"value": 20}}
    house = firefight.render_card(firefight.resolve(base, dice=[1, 9, 3]), fmt="text")
    assert "house rule" in house
    assert "SHOCK has no to-hit rule" in house
    referee = firefight.render_card(firefight.resolve(
        {**base, "options": {"referee_confirmed_hit": True}}, dice=[9, 3]), fmt="text")
    assert "referee" in referee
    assert "SHOCK has no to-hit rule" in referee





def test_weapons_pack_has_every_damage_class_and_validates() -> None:
    docs = [d for d in pack_docs("shock-weapons")
            if d["flags"]["firefight"]["shock"]["category"] == "weapon"]
    classes = set()
    for doc in docs:
        weapon = shock.ShockWeapon.model_validate({"name": doc["name"],
                                                   **doc["flags"]["firefight"]["shock"]})
        classes.add(weapon.damage_class)
        assert doc["_key"] == f"!items!{doc['_id']}"
    assert classes == set(shock.DAMAGE_CLASSES)


def test_troops_pack_has_a_generic_of_each_quality_rated_by_quality() -> None:
    docs = pack_docs("shock-troops")
    by_quality = {}
    for doc in docs:
        stats = shock.ShockStats.model_validate(doc["flags"]["firefight"]["shock"])
        by_quality[stats.quality] = stats
        assert doc["_key"] == f"!actors!{doc['_id']}"
        weapons = [i for i in doc["items"]
                   if i["flags"]["firefight"]["shock"]["category"] == "weapon"]
        assert weapons, doc["name"]
        for item in weapons:
            shock.ShockWeapon.model_validate(item["flags"]["firefight"]["shock"])
    assert set(by_quality) == set(shock.QUALITIES)
    for i, quality in enumerate(shock.QUALITIES):
        s = by_quality[quality]
        assert (s.toughness, s.awareness, s.prowess) == (2 + i, 2 + i, 2 + i)
