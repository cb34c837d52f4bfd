"""The bridge under hostile and careless input (reliability audit D3, D6, D8, D10-D12).

Every op of every ruleset with one field of a valid message mutated: never ``internal_error``,
every error names a field, and no markup from the payload survives into a rendered card.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _examples import IN_PYODIDE, RULESET_EXAMPLES, example
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firefight import bridge

MARKUP = '<img src=x onerror="alert(1)">'


def call(msg: object) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(bridge.handle(json.dumps(msg)))
    return reply


def _result(name: str) -> dict[str, Any]:
    reply = call({"op": "resolve", "request": example(name), "entropy": [0.5] * 4000})
    assert reply["ok"], reply
    result: dict[str, Any] = reply["value"]["result"]
    return result


RESULTS = {name: _result(name) for name in RULESET_EXAMPLES}


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a leaf or container of a JSON value."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            out += _paths(v, (*prefix, i))
    return out


def _put(node: Any, path: tuple[Any, ...], value: object) -> None:
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


MUTANTS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.floats(allow_nan=False),
    st.text(max_size=40), st.just(MARKUP), st.just(1e300), st.just(-1), st.just([]),
    st.just({}), st.just([{"kind": 1}]), st.just("x" * 20_000),
)


def _messages(data: st.DataObject) -> dict[str, Any]:
    msg = _valid_message(data)
    path = data.draw(st.sampled_from(_paths(msg)))
    _put(msg, path, data.draw(MUTANTS))
    return msg


def _valid_message(data: st.DataObject) -> dict[str, Any]:
    """A valid message of one op for one ruleset's example."""
    op = data.draw(st.sampled_from(["resolve", "odds", "card", "apply", "schema"]))
    name = data.draw(st.sampled_from(RULESET_EXAMPLES))
    if op in ("resolve", "odds"):
        msg: dict[str, Any] = {"op": op, "request": copy.deepcopy(example(name)),
                               "entropy": [0.5] * 4000, "lang": "de"}
    elif op == "card":
        msg = {"op": "card", "result": copy.deepcopy(RESULTS[name]), "fmt": "html",
               "view": "gm", "lang": "en"}
    elif op == "apply":
        result = RESULTS[name]
        msg = {"op": "apply", "ruleset": result["ruleset"], "stats": {},
               "effects": copy.deepcopy(result["effects"]) or [{"kind": "hp", "delta": -1}]}
    else:
        msg = {"op": "schema", "ruleset": RESULTS[name]["ruleset"]}
    return msg


@settings(max_examples=300 if not IN_PYODIDE else 60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_one_mutated_field_never_crashes_and_errors_name_a_field(data: st.DataObject) -> None:
    msg = _messages(data)
    reply = call(msg)
    if reply["ok"]:
        value = reply["value"]
        html = value if msg["op"] == "card" else value.get("html", "") if isinstance(value, dict) \
            else ""
        assert "<img" not in html, "markup from the payload in a card"
        return
    error = reply["error"]
    assert error["code"] != "internal_error", (msg.get("op"), error)
    assert error["fields"], error


@pytest.mark.parametrize("message", [
    '{"op": ["resolve"]}',
    '{"op": {"a": 1}}',
    "[" * 20_000 + "]" * 20_000,
    '{"op": "hello", "x": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"op": "hello", "n": ' + "9" * 5000 + "}",
    '{"op": "hello", "n": NaN}',
    '{"op": "' + "x" * 100_000 + '"}',
    "not json",
    '"a string"',
])
def test_malformed_envelopes_are_bad_messages(message: str) -> None:
    reply = json.loads(bridge.handle(message))
    assert not reply["ok"]
    assert reply["error"]["code"] == "bad_message", reply
    assert len(json.dumps(reply)) < 2000, "the error echoes the payload"


def test_far_ranges_are_refused_by_field_not_computed() -> None:
    for value in (1e300, 1e9, 165_210.0):
        request = example("soe_rhino.json")
        request["range"] = {"value": value, "units": "m"}
        for op in ("odds", "resolve"):
            reply = call({"op": op, "request": request, "entropy": [0.5] * 64})
            assert not reply["ok"]
            assert [f["field"] for f in reply["error"]["fields"]] == ["range.value"], reply


def test_card_template_is_the_rulesets_not_the_results() -> None:
    result = copy.deepcopy(RESULTS["soe_rhino.json"])
    result["card"]["params"] = dict.fromkeys(result["card"]["params"], MARKUP)
    result["card"]["template"] = "card.txt.j2"
    reply = call({"op": "card", "result": result, "fmt": "html"})
    assert reply["ok"], reply
    assert "<img" not in reply["value"]
    assert "&lt;img" in reply["value"]
    assert "firefight-card" in reply["value"]


@pytest.mark.parametrize(("field", "value"), [
    ("fmt", "pdf"), ("view", "god"), ("lang", "../../etc/passwd"), ("lang", "x" * 300),
])
def test_card_options_are_checked_by_field(field: str, value: str) -> None:
    reply = call({"op": "card", "result": RESULTS["soe_rhino.json"], field: value})
    assert not reply["ok"]
    assert [f["field"] for f in reply["error"]["fields"]] == [field]


def test_only_shipped_languages_are_read() -> None:
    from firefight.i18n import LANGUAGES, _strings, strings

    assert set(LANGUAGES) >= {"en", "de"}
    _strings.cache_clear()
    for i in range(50):
        strings(f"xx{i}")
    assert _strings.cache_info().currsize == 1  # every unknown language is English
    reply = call({"op": "resolve", "request": example("soe_rhino.json"), "lang": "zz",
                  "entropy": [0.5] * 64})
    assert [f["field"] for f in reply["error"]["fields"]] == ["lang"]


def test_huge_ids_are_refused_not_echoed() -> None:
    request = example("soe_rhino.json")
    request["attacker"]["actor_id"] = "a" * 5000
    reply = call({"op": "resolve", "request": request, "entropy": [0.5] * 64})
    assert not reply["ok"]
    assert [f["field"] for f in reply["error"]["fields"]] == ["attacker.actor_id"]
    assert len(json.dumps(reply)) < 2000


@pytest.mark.parametrize("effects", [
    [None], ["hp"], [1], [[1]], [{"kind": "hp", "delta": "abc"}], [{"kind": "hp", "delta": [1]}],
])
def test_apply_names_the_bad_effect(effects: list[Any]) -> None:
    reply = call({"op": "apply", "ruleset": "soe", "stats": {}, "effects": effects})
    assert not reply["ok"]
    assert reply["error"]["code"] != "internal_error", reply
    assert reply["error"]["fields"][0]["field"].startswith("effects[0]"), reply


def test_a_field_named_like_its_action_is_named() -> None:
    reply = call({"op": "resolve", "request": {"ruleset": "dpv", "action": "deviation",
                                               "deviation": "zzz"}})
    assert [f["field"] for f in reply["error"]["fields"]][:1] == ["deviation"], reply


# Built when a test asks (the engine tests run inside Pyodide too, where these are skipped).
HUGE_CASES: dict[str, Callable[[], str]] = {
    "10 MB of a name": lambda: '{"op": "resolve", "request": {"ruleset": "soe", "attacker": '
                               '{"name": "' + "x" * 10_000_000 + '"}}}',
    "a million levels deep": lambda: "[" * 1_000_000 + "]" * 1_000_000,
    "a 100 000-digit number": lambda: '{"op": "odds", "n": ' + "9" * 100_000 + "}",
    "a range of 1e300": lambda: json.dumps({"op": "odds", "request": {
        **example("soe_rhino.json"), "range": {"value": 1e300, "units": "m"}}}),
}


@pytest.mark.skipif(IN_PYODIDE, reason="starts a subprocess with limits")
@pytest.mark.parametrize("case", sorted(HUGE_CASES))
def test_huge_and_deep_input_is_refused_in_bounded_time_and_memory(case: str,
                                                                   tmp_path: Any) -> None:
    # In a child with a 1 GiB address space and 20 s of CPU (a bound on work, not a timed
    # assertion: a loaded machine's wall clock does not count): a clear error, never a crash or a
    # hang. The wall-clock timeout only stops a child that hangs without using the CPU.
    import subprocess
    import sys

    message = tmp_path / "message.json"
    message.write_text(HUGE_CASES[case](), encoding="utf-8")
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (20, 20))\n"
        "from firefight import bridge\n"
        "print(bridge.handle(open(sys.argv[1], encoding='utf-8').read()))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(message)], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    reply = json.loads(done.stdout)
    assert not reply["ok"]
    assert reply["error"]["code"] != "internal_error", reply
    assert reply["error"]["fields"], reply
    assert len(done.stdout) < 5000, "the error echoes the payload"


# --- reliability audit, third pass: holes 8, 9, 10 and the engine fuzz ----------------------

def _named(path: tuple[Any, ...]) -> str:
    """A message path as the bridge names it: keys joined by dots, list indexes in brackets."""
    out = ""
    for at in path:
        out += f"[{at}]" if isinstance(at, int) else f".{at}" if out else str(at)
    return out


MARK = "@@mutant@@"
# Raw JSON put where one field was: numbers past 30 digits (a 5000-digit one cannot even be
# written by json.dumps), NaN and Infinity, and values nested past 64 levels wherever they sit.
RAW_MUTANTS = {
    "10**30": str(10**30),
    "-10**40": str(-(10**40)),
    "5000 digits": "9" * 5000,
    "NaN": "NaN",
    "-Infinity": "-Infinity",
    "lists 70 deep": "[" * 70 + "]" * 70,
    "objects 70 deep": '{"a": ' * 70 + "1" + "}" * 70,
}


@settings(max_examples=150 if not IN_PYODIDE else 30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), mutant=st.sampled_from(sorted(RAW_MUTANTS)))
def test_an_over_long_number_or_deep_nesting_names_its_field(data: st.DataObject,
                                                             mutant: str) -> None:
    msg = _valid_message(data)
    path = data.draw(st.sampled_from(_paths(msg)))
    _put(msg, path, MARK)
    reply = json.loads(bridge.handle(json.dumps(msg).replace(json.dumps(MARK),
                                                             RAW_MUTANTS[mutant], 1)))
    assert not reply["ok"]
    assert reply["error"]["code"] == "bad_message", reply
    named = [f["field"] for f in reply["error"]["fields"]]
    assert len(named) == 1, named
    if mutant == "objects 70 deep":  # the deepest key the bridge can name is inside it
        assert named[0].startswith(_named(path) + ".a.a"), (path, named)
    elif mutant == "lists 70 deep":  # a list's field: the path up to its last key
        while isinstance(path[-1], int):
            path = path[:-1]
        assert named[0] == _named(path), (path, named)
    else:
        assert named[0] == _named(path), (path, named)
    assert len(json.dumps(reply)) < 2000, "the error echoes the payload"


def test_the_depth_bound_is_exactly_64_and_names_the_field() -> None:
    def hello(depth: int) -> dict[str, Any]:  # the message itself is the first level
        inner = "[" * (depth - 1) + "]" * (depth - 1)
        # "pad": more brackets than MAX_DEPTH in all, so the bridge scans the nesting
        reply: dict[str, Any] = json.loads(bridge.handle(
            '{"op": "hello", "pad": [[], [], []], "x": ' + inner + "}"))
        return reply

    assert hello(64)["ok"], hello(64)
    refused = hello(65)
    assert refused["error"]["code"] == "bad_message"
    assert [f["field"] for f in refused["error"]["fields"]] == ["x"]
    deep = '{"op": "hello", "a": [1, {"b": [2, 3, ' + "[" * 70 + "]" * 70 + "]}]}"
    reply = json.loads(bridge.handle(deep))
    assert [f["field"] for f in reply["error"]["fields"]] == ["a[1].b"], reply


def test_a_long_string_in_a_list_names_its_place_in_the_list() -> None:
    request = example("dpv_attack.json")
    request["target"]["armor"].append({"name": "x" * 20_000, "value": 0.1})
    reply = call({"op": "resolve", "request": request, "entropy": [0.5] * 64})
    assert [f["field"] for f in reply["error"]["fields"]] == ["request.target.armor[1].name"]


@pytest.mark.parametrize("value", [5, "severe", {"minor": 1}, [1]])
def test_soe_apply_checks_the_actor_data_before_reading_it(value: object) -> None:
    # Audit hole 8: a string was split into characters, a number raised TypeError.
    reply = call({"op": "apply", "ruleset": "soe", "stats": {"delayed_injuries": value},
                  "effects": [{"kind": "delayed_injury", "value": "minor"}]})
    assert not reply["ok"]
    assert reply["error"]["code"] == "invalid_request", reply
    assert reply["error"]["fields"][0]["field"].startswith("delayed_injuries"), reply


def _area_fire(weapon: dict[str, Any], bursts: int, figures: int) -> dict[str, Any]:
    return {"ruleset": "dpv", "action": "area_fire", "attacker": {"name": "A", "stats": {}},
            "weapon": {"effective_range_m": 100, **weapon},
            "range": {"value": 10, "units": "m"},  # close: the AFV doubled
            "targets": [{"name": f"T{i}", "stats": {"coolness": 30}} for i in range(figures)],
            "options": {"bursts": bursts},
            # every hit rolls all its dice: location, severity, DPV x 10 (a DPV under 1)
            "settings": {"location_rule": "optional_severity", "zero_dpv": "third_column"}}


def test_area_fire_past_the_weapon_bounds_is_refused_by_field_and_by_the_item_sheet() -> None:
    # Audit hole 9: exact odds past Python's 4300-digit limit, 1.7-3.8 s with 50 figures.
    weapon = {"dpv": 1, "afv": 1000, "rof": 100, "rpb": 100}
    reply = call({"op": "odds", "request": _area_fire(weapon, 100, 1)})
    assert reply["error"]["code"] == "invalid_request", reply
    assert {f["field"] for f in reply["error"]["fields"]} == {
        "weapon.afv", "weapon.rof", "weapon.rpb", "options.bursts"}
    item = call({"op": "item", "ruleset": "dpv",
                 "data": {"category": "weapon", "effective_range_m": 100, **weapon}})
    assert {f["field"] for f in item["error"]["fields"]} == {"afv", "rof", "rpb"}, item


@pytest.mark.parametrize(("weapon", "bursts", "hits"), [
    ({"dpv": 0.4, "afv": 10, "rof": 10, "rpb": 20}, 10, 200),  # every bound at once
    ({"dpv": 0.4, "afv": 3, "rof": 5, "rpb": 5}, 5, 25),  # the house light machine gun
    ({"dpv": 0.4, "afv": 1, "rof": 3, "rpb": 3}, 1, 2),  # the house assault rifle, one burst
])
def test_the_worst_accepted_area_fire_fits_the_dice_a_table_sends(
        weapon: dict[str, Any], bursts: int, hits: int) -> None:
    from firefight.dice import MAX_DICE

    per_figure = 2 + 3 * hits
    fit = min(50, MAX_DICE // per_figure)  # 50: the model's bound on figures
    if fit < 50:
        over = call({"op": "odds", "request": _area_fire(weapon, bursts, fit + 1)})
        assert [f["field"] for f in over["error"]["fields"]] == ["targets"], over
    request = _area_fire(weapon, bursts, fit)
    assert call({"op": "odds", "request": request})["ok"]
    # Every die a 1 (a uniform of 0): the most hits on every figure, each rolling every die.
    reply = call({"op": "resolve", "request": request, "entropy": [0.0] * MAX_DICE})
    assert reply["ok"], reply["error"]
    assert len(reply["value"]["result"]["dice"]) == fit * per_figure <= MAX_DICE


SHIM = Path(__file__).resolve().parents[2] / "js-shim"


@pytest.mark.skipif(not (SHIM / "core" / "config.mjs").is_file(),
                    reason="no js-shim/ in this checkout")
def test_the_longest_entropy_list_the_shim_sends_is_the_engines_max_dice() -> None:
    # js-shim/workflow/roll.mjs resolveWithEntropy: n from ENTROPY_START, times 4 while n * 4 stays
    # within ENTROPY_MAX; the engine's models are bounded by what that sends.
    from firefight.dice import MAX_DICE

    config = (SHIM / "core" / "config.mjs").read_text(encoding="utf-8")
    shoot = (SHIM / "workflow" / "roll.mjs").read_text(encoding="utf-8")
    start, most = (int(re.search(rf"export const {name} = (\d+);", config)[1])  # type: ignore[index]
                   for name in ("ENTROPY_START", "ENTROPY_MAX"))
    loop = re.search(r"for \(let n = ENTROPY_START; ; n \*= (\d+)\)", shoot)
    stop = re.search(r"n \* (\d+) > ENTROPY_MAX\) throw err", shoot)
    assert loop, "resolveWithEntropy's loop changed: read it again"
    assert stop, "resolveWithEntropy's loop changed: read it again"
    assert loop[1] == stop[1]
    n = start
    while n * int(loop[1]) <= most:
        n *= int(loop[1])
    assert n == MAX_DICE


def test_the_biggest_chit_draw_fits_the_dice_a_table_sends() -> None:
    # shock: 500 units (the model's bound) of the best quality, each chit drawn by one die.
    from firefight.dice import MAX_DICE

    units = [{"name": f"U{i}", "quality": "rainbow", "pool": 99} for i in range(500)]
    reply = call({"op": "resolve", "entropy": [0.0] * MAX_DICE,
                  "request": {"ruleset": "shock", "action": "draw_chits", "units": units}})
    assert reply["ok"], reply["error"]
    assert len(reply["value"]["result"]["dice"]) <= MAX_DICE
