"""House rules that do what a pf2e rule element does (issue 26, item 4): fields added to a
built-in ruleset's items and actors, conditions with modifiers and an end, and hooks before the
odds and after the result, each in the odds exactly as a modifier is."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from pydantic import Field

import firefight
from firefight import Condition, ConditionModifier, house
from firefight.models import Modifier, Strict

RULE = "test_bipod"
SHOT: dict[str, Any] = {
    "ruleset": "soe",
    "attacker": {"name": "Ada", "pc": True, "stats": {"marksmanship": 12, "str": 10, "agl": 10}},
    "target": {"name": "Bandit", "stats": {"str": 10, "agl": 12}},
    "weapon": {"name": "Rifle", "damage": 10, "weapon_type": "rifle"},
    "range": {"value": 100, "units": "m"},
    "options": {"mode": "aimed"},
}
PINNED = Condition(id="pinned", label_key="FIREFIGHT.test_bipod.condition.pinned", ends="turn",
                   modifiers=(ConditionModifier(step="to_hit", value=-3),))
BRACED = Condition(id="braced", label_key="FIREFIGHT.test_bipod.condition.braced", ends="apply",
                   modifiers=(ConditionModifier(step="to_hit", value=2),), source="test: braced")
DUCKED = Condition(id="ducked", label_key="FIREFIGHT.test_bipod.condition.ducked", ends="round",
                   modifiers=(ConditionModifier(step="to_hit", value=-1, side="target"),))


class BipodFields(Strict):
    bipod: bool = False


class SteadyFields(Strict):
    steady: int = Field(default=0, ge=0, le=3)


class Bipod(firefight.HouseRule):
    """+1 to hit with a weapon whose item says it has a bipod, plus the shooter's steadiness;
    a hit pins the target when the after hook's d6 shows 6."""

    id = RULE
    ruleset = "soe"
    item_fields = {"weapon": BipodFields}  # noqa: RUF012 - as the tutorial writes it
    stats_fields = SteadyFields
    conditions = (PINNED, BRACED, DUCKED)

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        if step != "to_hit":
            return []
        value = int(request.weapon.bipod) + request.attacker.stats.steady
        return [Modifier(key="FIREFIGHT.test.bipod", value=value, source="", step=step)
                ] if value else []


class PinOnSix(firefight.HouseRule):
    """After a hit, a d6: on a 6 the target is pinned (the odds say how likely, exactly)."""

    id = "test_pin"
    ruleset = "soe"

    def after(self, request: Any, rec: firefight.Recorder, options: Any, settings: Any) -> None:
        if rec.outcome.get("hit"):
            roll, _ = rec.roll(6, purpose="pin")
            if roll == 6:
                rec.condition("pinned")

    def odds(self, request: Any, odds: dict[str, Any], options: Any, settings: Any
             ) -> dict[str, Any]:
        pinned = Fraction(odds["exact"]) / 6
        return {**odds, "pinned_exact": str(pinned), "pinned_probability": float(pinned)}


class HalfRange(firefight.HouseRule):
    """Before the odds: a scope halves the range the shot counts."""

    id = "test_scope"
    ruleset = "soe"

    def before(self, request: Any, options: Any, settings: Any) -> Any:
        return request.model_copy(update={"range": request.range.model_copy(
            update={"value": request.range.value / 2})})


@pytest.fixture
def bipod() -> Iterator[None]:
    firefight.register_house_rule(Bipod())
    yield
    house.unregister_house_rule(RULE)


@pytest.fixture
def pin(bipod: None) -> Iterator[None]:
    firefight.register_house_rule(PinOnSix())
    yield
    house.unregister_house_rule("test_pin")


def shot(**changes: Any) -> dict[str, Any]:
    request = copy.deepcopy(SHOT)
    for path, value in changes.items():
        node = request
        *head, last = path.split("__")
        for part in head:
            node = node[part]
        node[last] = value
    return request


def to_hit_rows(result: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(m["key"], m["value"], m["source"]) for m in result["modifiers"]
            if m["step"] == "to_hit"]


# --- fields on items and actors ----------------------------------------------------------------

def test_without_the_rule_an_item_field_is_refused_by_name() -> None:
    error = firefight.odds(shot(weapon__bipod=True))["error"]
    assert error["fields"][0]["field"] == "weapon.bipod"
    assert error["fields"][0]["reason"] == "Extra inputs are not permitted"


def test_a_declared_item_field_is_validated_and_read_by_the_rule(bipod: None) -> None:
    plain, braced = firefight.odds(SHOT), firefight.odds(shot(weapon__bipod=True))
    assert braced["net_modifier"] == plain["net_modifier"] + 1
    assert Fraction(braced["exact"]) > Fraction(plain["exact"])
    result = firefight.resolve(shot(weapon__bipod=True), seed=3)
    assert ("FIREFIGHT.test.bipod", 1, "house rule: test_bipod") in to_hit_rows(result)
    assert result["request"]["weapon"]["bipod"] is True
    bad = firefight.odds(shot(weapon__bipod="very"))["error"]["fields"][0]
    assert bad["field"] == "weapon.bipod"


def test_a_declared_actor_field_is_validated_and_read(bipod: None) -> None:
    plain = firefight.odds(SHOT)
    steady = firefight.odds(shot(attacker__stats__steady=2))
    assert steady["net_modifier"] == plain["net_modifier"] + 2
    bad = firefight.odds(shot(attacker__stats__steady=9))["error"]["fields"][0]
    assert bad["field"] == "attacker.stats.steady"


def test_the_item_and_sheet_tabs_get_the_fields(bipod: None) -> None:
    soe = next(r for r in firefight.catalog()["rulesets"] if r["id"] == "soe")
    assert soe["items"]["weapon"]["properties"]["bipod"]["x-label-key"] == \
        "FIREFIGHT.test_bipod.item.bipod.label"
    assert soe["stats"]["properties"]["steady"]["x-label-key"] == "FIREFIGHT.test_bipod.stat.steady"
    conditions = soe["stats"]["properties"]["conditions"]
    # (in Pyodide the example laser sight adds its own)
    assert {"pinned", "braced", "ducked"} <= set(conditions["items"]["enum"])
    assert {"pinned", "braced", "ducked"} <= {c["id"] for c in soe["conditions"]}
    # a set of ids: the sheet draws a checkbox per condition (js-shim/documents/list-field.mjs)
    assert conditions["uniqueItems"] is True
    assert conditions["x-label-key"] == "FIREFIGHT.condition.field"
    schema = firefight.schema("soe")  # the dialogs shape a request's weapon and sides by it
    weapon = schema["request"]["$defs"]["SoeWeapon"]["properties"]
    assert weapon["bipod"]["x-label-key"] == "FIREFIGHT.test_bipod.item.bipod.label"
    assert "steady" in schema["stats"]["properties"]
    stored = firefight.api.item("soe", {"category": "weapon", "damage": 10, "bipod": True})
    assert stored["item"]["bipod"] is True


def test_without_the_rule_the_tabs_have_no_such_field() -> None:
    soe = next(r for r in firefight.catalog()["rulesets"] if r["id"] == "soe")
    assert "bipod" not in soe["items"]["weapon"]["properties"]
    assert "steady" not in soe["stats"]["properties"]
    assert "error" in firefight.api.item("soe", {"category": "weapon", "bipod": True})


def test_a_request_naming_no_added_field_is_dumped_as_before(bipod: None) -> None:
    result = firefight.resolve(SHOT, seed=3)
    assert "bipod" not in result["request"]["weapon"]
    assert "conditions" not in result["request"]["attacker"]["stats"]
    assert "steady" not in firefight.apply("soe", {"marksmanship": 12}, [])["stats"]


# --- conditions --------------------------------------------------------------------------------

def test_a_condition_adds_its_modifiers_to_the_odds_and_the_card(bipod: None) -> None:
    plain = firefight.odds(SHOT)
    pinned = firefight.odds(shot(attacker__stats__conditions=["pinned"]))
    assert pinned["net_modifier"] == plain["net_modifier"] - 3
    result = firefight.resolve(shot(attacker__stats__conditions=["pinned"]), seed=3)
    assert (PINNED.label_key, -3, "condition: pinned") in to_hit_rows(result)
    # on the target it counts only as a target's condition
    ducked = firefight.odds(shot(target__stats__conditions=["ducked", "pinned"]))
    assert ducked["net_modifier"] == plain["net_modifier"] - 1


def test_an_undeclared_condition_is_refused_by_name(bipod: None) -> None:
    error = firefight.odds(shot(attacker__stats__conditions=["asleep"]))["error"]
    assert error["fields"][0]["field"] == "attacker.stats.conditions[0]"


def test_a_condition_held_twice_is_refused_by_name(bipod: None) -> None:
    error = firefight.odds(shot(attacker__stats__conditions=["pinned", "pinned"]))["error"]
    assert error["fields"][0]["field"] == "attacker.stats.conditions"
    assert "at most once" in error["fields"][0]["reason"]


def test_an_apply_condition_ends_with_the_result_that_used_it(bipod: None) -> None:
    result = firefight.resolve(shot(attacker__stats__conditions=["braced", "pinned"]), seed=3)
    ends = [e for e in result["effects"] if e["kind"] == "condition_end"]
    assert [(e["target"], e["value"]) for e in ends] == [("attacker", "braced")]
    after = firefight.apply("soe", {"marksmanship": 12, "conditions": ["braced", "pinned"]}, ends)
    assert after["stats"]["conditions"] == ["pinned"]


def test_turn_and_round_conditions_end_when_the_table_says(bipod: None) -> None:
    stats = {"marksmanship": 12, "conditions": ["pinned", "braced", "ducked"]}
    assert firefight.end_conditions("soe", stats, "turn")["stats"]["conditions"] == \
        ["braced", "ducked"]
    assert firefight.end_conditions("soe", stats, "round")["stats"]["conditions"] == \
        ["pinned", "braced"]
    assert "error" in firefight.end_conditions("soe", stats, "never")


def test_after_sets_a_condition_and_its_odds_stay_exact(pin: None) -> None:
    odds = firefight.odds(SHOT)
    assert Fraction(odds["pinned_exact"]) == Fraction(odds["exact"]) / 6
    seen = {True: 0, False: 0}
    for seed in range(200):
        result = firefight.resolve(SHOT, seed=seed)
        effects = [(e["kind"], e["value"]) for e in result["effects"]]
        pin_die = [d for d in result["dice"] if d["purpose"] == "pin"]
        assert bool(pin_die) == result["outcome"]["hit"]
        pinned = ("condition", "pinned") in effects
        assert pinned == (bool(pin_die) and pin_die[0]["results"] == [6])
        seen[pinned] += 1
    assert seen[True]
    assert seen[False]
    after = firefight.apply("soe", {"agl": 12}, [{"kind": "condition", "value": "pinned"}])
    assert after["stats"]["conditions"] == ["pinned"]


# --- before the odds ---------------------------------------------------------------------------

def test_before_changes_the_request_the_odds_and_the_roll_see() -> None:
    firefight.register_house_rule(HalfRange())
    try:
        scoped = firefight.odds(SHOT)
        result = firefight.resolve(SHOT, seed=1)
    finally:
        house.unregister_house_rule("test_scope")
    assert scoped == firefight.odds(shot(range__value=50))
    assert result["odds"]["exact"] == scoped["exact"]  # the odds of the request rolled
    assert result["request"] == firefight.resolve(SHOT, seed=1)["request"]


def faces(result: dict[str, Any]) -> list[int]:
    return [face for die in result["dice"] for face in die["results"]]


@pytest.mark.parametrize("seed", range(6))
def test_a_result_of_a_before_hook_re_resolves_to_itself(seed: int) -> None:
    """Issue 26: the GM's client re-resolves a message's request with its dice (relay/gm.mjs,
    documents/apply.mjs ``_replays``); a stored request that had been through ``before`` went
    through it again (the range halved twice) and Apply was refused. The result records the
    request as asked, so the hook's change happens once, whoever resolves it."""
    firefight.register_house_rule(HalfRange())
    try:
        result = firefight.resolve(shot(range__value=180), seed=seed)
        again = firefight.resolve(copy.deepcopy(result["request"]), dice=faces(result))
        scoped = firefight.odds(shot(range__value=180))
    finally:
        house.unregister_house_rule("test_scope")
    assert result["request"]["range"]["value"] == 180  # as asked; the roll saw 90 m
    assert again == result
    assert scoped == firefight.odds(shot(range__value=90))


def test_a_refusal_naming_an_items_field_gets_its_label() -> None:
    """Issue 26 item 3: ``weapon.max_range_m`` is labelled as the item sheet labels it."""
    from firefight.errors import label_key

    assert label_key(["weapon", "max_range_m"], "soe") == "FIREFIGHT.soe.item.max_range_m.label"
    assert label_key(["target", "armor", 0, "vs_rifle"], "soe") == \
        "FIREFIGHT.soe.item.vs_rifle.label"
    assert label_key(["range", "units"], "soe") is None


def test_the_balance_lab_counts_an_after_hook(pin: None) -> None:
    """The lab's fast path (soe's engage) knows no hooks: with one it plays the full resolve."""
    from firefight import registry

    parsed = registry.parse_cached(SHOT)
    assert house.has_after("soe", parsed.model)
    lab = firefight.simulate(SHOT, n=300, seed=1)
    assert lab["outcomes"]["effect:condition=pinned"]["count"] > 0


def test_every_soe_action_resolves_with_a_rule_adding_fields(bipod: None) -> None:
    """Requests whose participants default (soe's task: ``character`` from a default factory)
    are built from the extended models and dump as before (issue 26, seen in Pyodide)."""
    from test_card_keys import ACTION_REQUESTS

    for (ruleset, action), request in ACTION_REQUESTS.items():
        if ruleset != "soe":
            continue
        result = firefight.resolve(copy.deepcopy(request), seed=1)
        assert "steps" in result, (action, result)
    task = firefight.resolve({"ruleset": "soe", "action": "task", "options": {"modifier": 2}},
                             seed=1)
    assert "conditions" not in task["request"]["character"]["stats"]
