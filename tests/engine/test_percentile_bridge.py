"""The percentile contract at the boundary: a valid request gives a result (or a rules refusal
naming the field), an invalid one an error naming the field. Property tests, as for soe."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import firefight
from firefight import bridge
from firefight.rulesets.percentile import models


def names(size: int) -> st.SearchStrategy[str]:
    """A name is the user's text, shown as written: one that reads like a lang key ("FIREFIGHT.",
    which Hypothesis draws from the code's own constants) would trip the raw-key check below."""
    return st.text(max_size=size).filter(lambda s: "FIREFIGHT." not in s)


weapons = st.fixed_dictionaries({
    "weapon_class": st.sampled_from(models.WEAPON_CLASSES),
    "action": st.sampled_from(models.ACTIONS),
    "magazine": st.integers(1, 60),
}, optional={"name": names(30), "item_id": st.text(max_size=16)})
options = st.fixed_dictionaries({}, optional={
    "rounds": st.integers(1, 60),
    "target_prone": st.booleans(),
    "cover": st.sampled_from(models.COVERS),
    "sighting_turns": st.integers(0, 5),
    "rested": st.booleans(),
    "bearing_deg": st.floats(-360, 360, allow_nan=False),
    "hasty_fire": st.booleans(),
    "blind_fire": st.booleans(),
    "single_shots": st.booleans(),
})
stats = st.fixed_dictionaries({}, optional={"life_force": st.integers(0, 100),
                                            "sharpshooter": st.booleans()})
inches = st.fixed_dictionaries({"value": st.floats(0, 200, allow_nan=False),
                                "units": st.just("in")})
ground = st.fixed_dictionaries({"value": st.floats(0, 500, allow_nan=False),
                                "units": st.sampled_from(["m", "ft", "yd"])})
valid_requests = st.one_of(
    st.fixed_dictionaries({"range": inches}, optional={"settings": st.fixed_dictionaries(
        {}, optional={"range_damage": st.sampled_from(models.RANGE_DAMAGE)})}),
    st.fixed_dictionaries({"range": ground, "settings": st.fixed_dictionaries({
        "inch_equals": st.floats(0.5, 10, allow_nan=False),
        "inch_units": st.sampled_from(models.GROUND_UNITS)})}),
).flatmap(lambda base: st.fixed_dictionaries({
    "ruleset": st.just("percentile"),
    "attacker": st.fixed_dictionaries({"name": names(40), "stats": stats},
                                      optional={"pc": st.booleans()}),
    "target": st.fixed_dictionaries({"name": names(40), "stats": stats},
                                    optional={"pc": st.booleans(), "armor": st.just([])}),
    "weapon": weapons,
    "options": options,
    **{k: st.just(v) for k, v in base.items()},
}))
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(request=valid_requests, seed=st.integers(0, 2**32))
def test_valid_request_gives_a_result_or_a_refusal(request: dict[str, Any], seed: int) -> None:
    out = firefight.resolve(request, seed=seed)
    if "error" in out:  # more rounds declared than the magazine holds
        assert out["error"]["code"] == "refused", out
        assert out["error"]["fields"][0]["field"] == "options.rounds"
        assert request["options"]["rounds"] > request["weapon"]["magazine"]
        return
    assert out["ruleset"] == "percentile"
    steps = [s for s in out["steps"] if s["kind"] == "percentile"]
    assert len(out["dice"]) == 2 * len(steps) == 2 * out["outcome"]["rolls"]
    assert all(d["formula"] == "1d10" and d["purpose"] for d in out["dice"])
    assert all(m["source"].startswith("percentile ") for m in out["modifiers"])
    assert sum(m["value"] for m in out["modifiers"]) == out["outcome"]["chance"]
    assert 0 <= out["outcome"]["life_after"] <= out["outcome"]["life_before"]
    assert (out["outcome"]["life_after"] == 0) == (out["outcome"]["state"] in (
        "dead", "already_dead"))
    for step in steps:
        assert step["success"] == (step["numbers"]["roll"] <= out["outcome"]["chance"])
    json.dumps(out)
    faces = [f for d in out["dice"] for f in d["results"]]
    assert firefight.resolve(request, dice=faces) == out
    html = firefight.render_card(out)
    assert "FIREFIGHT." not in html
    odds = firefight.odds(request)
    assert odds["probability"] == out["odds"]["probability"]
    assert 0 <= odds["kill_probability"] <= odds["death_probability"] <= 1


words = st.text(alphabet="abcxyz", min_size=1, max_size=5)
not_a_number = st.one_of(words, st.none(), st.lists(st.integers(), max_size=2))
invalid_values = {
    ("options", "rounds"): st.one_of(words, st.lists(st.integers(), max_size=2),
                                     st.integers(max_value=0)),  # None: the whole magazine
    ("weapon", "weapon_class"): st.one_of(words, st.none(), st.integers()),
    ("weapon", "action"): st.one_of(words, st.none()),
    ("weapon", "magazine"): st.one_of(not_a_number, st.integers(max_value=0)),
    ("range", "value"): st.one_of(not_a_number, st.floats(max_value=-0.001)),
    ("target", "stats", "life_force"): st.one_of(not_a_number, st.integers(max_value=-1)),
    ("options", "cover"): st.one_of(words, st.integers()),
    ("options", "sighting_turns"): st.one_of(not_a_number, st.integers(max_value=-1)),
    ("options", "bearing_deg"): st.one_of(words, st.floats(min_value=360.001)),
    ("settings", "inch_equals"): st.one_of(words, st.floats(max_value=0)),
}


@FAST
@given(request=valid_requests, data=st.data(), path=st.sampled_from(sorted(invalid_values)))
def test_invalid_field_gives_an_error_naming_it(request: dict[str, Any], data: st.DataObject,
                                                path: tuple[str, ...]) -> None:
    node = request
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = data.draw(invalid_values[path])
    out = firefight.resolve(request, seed=1)
    assert out["error"]["code"] == "invalid_request", out
    named = [f["field"] for f in out["error"]["fields"]]
    assert any(n.startswith(".".join(path)) for n in named), named


def test_bridge_lists_and_describes_percentile() -> None:
    hello = json.loads(bridge.handle('{"op": "hello"}'))["value"]
    assert "percentile" in [r["id"] for r in hello["rulesets"]]
    schema = json.loads(bridge.handle('{"op": "schema", "ruleset": "percentile"}'))["value"]
    cover = schema["options"]["properties"]["cover"]
    assert cover["enum"] == list(models.COVERS)
    assert cover["x-label-key"] == "FIREFIGHT.percentile.opt.cover.label"
    assert set(schema["settings"]["properties"]) == {"inch_equals", "inch_units",
                                                     "range_damage", "facing", "kill_rule",
                                                     "climb"}


def test_bridge_resolve_and_odds_round_trip() -> None:
    request = {"ruleset": "percentile", "attacker": {"name": "A"}, "target": {"name": "B"},
               "weapon": {"weapon_class": "rifle", "action": "semi", "magazine": 8},
               "range": {"value": 30, "units": "in"}, "options": {"rounds": 2}}
    reply = json.loads(bridge.handle(json.dumps({
        "op": "resolve", "request": request, "entropy": [0.15, 0.05, 0.95, 0.95]})))
    assert reply["ok"] is True
    result = reply["value"]["result"]
    assert [d["results"] for d in result["dice"]] == [[2], [1], [10], [10]]
    assert [s["numbers"]["roll"] for s in result["steps"][1:]] == [21, 100]
    assert "firefight-card" in reply["value"]["html"]
    odds = json.loads(bridge.handle(json.dumps({"op": "odds", "request": request})))
    assert odds["value"]["exact"] == "71/100"
    short = json.loads(bridge.handle(json.dumps({"op": "resolve", "request": request,
                                                 "entropy": [0.5, 0.5, 0.5]})))
    assert short["error"]["code"] == "entropy_exhausted"
