"""The contract at the boundary: a valid request gives a result, an invalid one a clear error."""

from __future__ import annotations

import json
from typing import Any

from _examples import assert_invalid_field_named
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import firefight
from firefight import bridge
from firefight.rulesets.soe import models as soe

options = st.fixed_dictionaries({}, optional={
    "mode": st.sampled_from(soe.MODES),
    "position": st.sampled_from(soe.POSITIONS),
    "target_movement": st.sampled_from(soe.MOVEMENTS),
    "target_size": st.sampled_from(soe.SIZES),
    "visibility": st.sampled_from(soe.VISIBILITIES[:6]),  # Table 1 rows (the default table)
    "wind": st.sampled_from(soe.WINDS),
    "perfect_ranging": st.booleans(),
    "target_dodging": st.booleans(),
    "projectiles": st.integers(1, 200),
})
stats = st.fixed_dictionaries({}, optional={
    "marksmanship": st.integers(0, 200), "str": st.integers(0, 100), "agl": st.integers(0, 100),
    "hp": st.integers(-20, 200),
})
armor = st.fixed_dictionaries({"vs_rifle": st.integers(-20, 0), "vs_pistol": st.integers(-20, 0)},
                              optional={"name": st.text(max_size=30)})
valid_requests = st.fixed_dictionaries({
    "ruleset": st.just("soe"),
    "attacker": st.fixed_dictionaries({"name": st.text(max_size=40), "stats": stats},
                                      optional={"pc": st.booleans()}),
    "target": st.fixed_dictionaries({"name": st.text(max_size=40), "stats": stats,
                                     "armor": st.lists(armor, max_size=3)},
                                    optional={"pc": st.booleans()}),
    "weapon": st.fixed_dictionaries({"damage": st.integers(-20, 30)}, optional={
        "to_hit": st.integers(-10, 5), "weapon_type": st.sampled_from(["rifle", "pistol"]),
        "scope": st.booleans(), "name": st.text(max_size=30)}),
    "range": st.fixed_dictionaries({"value": st.floats(0, 5000, allow_nan=False),
                                    "units": st.sampled_from(["m", "ft", "hex"])}),
    "options": options,
})
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(request=valid_requests, seed=st.integers(0, 2**32))
def test_valid_request_gives_a_result_or_a_rules_refusal(request: dict[str, Any], seed: int
                                                         ) -> None:
    out = firefight.resolve(request, seed=seed)
    if "error" in out:  # sniper without prone/scope: a refusal, with the field named
        assert out["error"]["code"] == "refused"
        assert out["error"]["fields"]
        return
    assert out["ruleset"] == "soe"
    assert out["dice"]
    assert all(d["purpose"] and d["formula"] for d in out["dice"])
    assert all(m["source"] for m in out["modifiers"])
    json.dumps(out)  # JSON-ready
    faces = [f for d in out["dice"] for f in d["results"]]
    assert firefight.resolve(request, dice=faces) == out


words = st.text(alphabet="abcxyz", min_size=1, max_size=5)
not_a_number = st.one_of(words, st.none(), st.lists(st.integers(), max_size=2))
invalid_values = {
    ("weapon", "damage"): st.one_of(not_a_number, st.integers(51, 10**6)),
    ("range", "value"): st.one_of(not_a_number, st.floats(max_value=-0.001)),
    ("attacker", "stats", "str"): st.one_of(not_a_number, st.integers(max_value=-1)),
    ("options", "mode"): st.one_of(words, st.none(), st.integers()),
}


@FAST
@given(request=valid_requests, data=st.data(), path=st.sampled_from(sorted(invalid_values)))
def test_invalid_field_gives_an_error_naming_it(request: dict[str, Any], data: st.DataObject,
                                                path: tuple[str, ...]) -> None:
    assert_invalid_field_named(request, path, data.draw(invalid_values[path]))


@FAST
@given(junk=st.one_of(st.none(), st.integers(), st.text(), st.lists(st.none()),
                      st.dictionaries(st.text(max_size=5), st.integers(), max_size=3)))
def test_junk_requests_never_raise(junk: object) -> None:
    out = firefight.resolve(junk, seed=1)  # type: ignore[arg-type]
    assert set(out["error"]) == {"code", "message", "fields"}


def test_unknown_ruleset_names_the_field() -> None:
    out = firefight.resolve({"ruleset": "nope"})
    assert out["error"]["code"] == "unknown_ruleset"
    assert out["error"]["fields"][0]["field"] == "ruleset"


def test_bridge_resolve_round_trip(soe_request: dict[str, Any]) -> None:
    reply = json.loads(bridge.handle(json.dumps({
        "op": "resolve", "request": soe_request, "entropy": [0.5, 0.25, 0.9, 0.0]})))
    assert reply["ok"] is True
    result = reply["value"]["result"]
    assert [d["results"] for d in result["dice"]][:2] == [[11], [6]]
    assert "firefight-card" in reply["value"]["html"]


def test_bridge_entropy_exhausted_is_a_named_error(soe_request: dict[str, Any]) -> None:
    reply = json.loads(bridge.handle(json.dumps({"op": "resolve", "request": soe_request,
                                                 "entropy": [0.5]})))
    assert reply == {"ok": False, "error": {"code": "entropy_exhausted",
                                            "message": "the entropy stream ran out after 1 values",
                                            "fields": [{"field": "entropy",
                                                        "reason": "needs more than 1 values"}]}}


def test_bridge_ops() -> None:
    hello = json.loads(bridge.handle('{"op": "hello"}'))["value"]
    assert "soe" in [r["id"] for r in hello["rulesets"]]
    schema = json.loads(bridge.handle('{"op": "schema", "ruleset": "soe"}'))["value"]
    mode = schema["options"]["properties"]["mode"]
    assert mode["enum"] == list(soe.MODES)
    assert mode["x-label-key"] == "FIREFIGHT.soe.opt.mode.label"
    assert json.loads(bridge.handle("not json"))["error"]["code"] == "bad_message"
    assert json.loads(bridge.handle('{"op": "nope"}'))["error"]["fields"][0]["field"] == "op"


def test_bridge_odds(soe_request: dict[str, Any]) -> None:
    reply = json.loads(bridge.handle(json.dumps({"op": "odds", "request": soe_request})))
    assert reply["ok"]
    assert 0 < reply["value"]["probability"] < 1


def test_bridge_entropy_is_always_uniforms_and_faces_replay(soe_request: dict[str, Any]) -> None:
    # JSON turns 0.0 into 0: an all-zero entropy list must still read as uniforms (all 1s).
    reply = json.loads(bridge.handle(json.dumps({"op": "resolve", "request": soe_request,
                                                 "entropy": [0, 0, 0, 0]})))
    assert [d["results"] for d in reply["value"]["result"]["dice"]][:2] == [[1], [1]]
    first = reply["value"]["result"]
    faces = [f for d in first["dice"] for f in d["results"]]
    again = json.loads(bridge.handle(json.dumps({"op": "resolve", "request": soe_request,
                                                 "faces": faces})))
    assert again["value"]["result"] == first
    bad = json.loads(bridge.handle(json.dumps({"op": "resolve", "request": soe_request,
                                               "faces": [0.5]})))
    assert bad["error"]["fields"][0]["field"] == "faces"
