"""Stars of Empire on the one core (issue 13): declared actions, table features as data, the end
of Pre-Trauma in one place, and house rules on its steps changing the odds and the roll alike."""

from __future__ import annotations

import ast
import copy
import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from _examples import example
from pydantic import BaseModel, Field

import firefight
from firefight import house
from firefight.models import ActionRequest, Modifier
from firefight.registry import Action
from firefight.rulesets import soe
from firefight.rulesets.soe import RULESET, pretrauma

RULE = "test_laser_sight"
LASER = "FIREFIGHT.test.laser"


class LaserOptions(BaseModel):
    laser: bool = False


class LaserSettings(BaseModel):
    bonus: int = Field(default=2, ge=0, le=10)


class LaserSight(firefight.HouseRule):
    """"+2 to hit with a laser sight": the dialog's checkbox, the world's bonus."""

    id = RULE
    ruleset = "soe"
    label_key = LASER
    options_model = LaserOptions
    settings_model = LaserSettings

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        if step != "to_hit" or not options.laser:
            return []
        return [Modifier(key=LASER, value=settings.bonus, source="", step=step)]


class Steady(firefight.HouseRule):
    """A rule on every other step soe opens, for the actions that have them."""

    id = "test_steady"
    ruleset = "soe"
    actions = ("attack", "will_check", "delayed_injury_check", "task")

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        return [] if step == "to_hit" else [
            Modifier(key="FIREFIGHT.test.steady", value=3, source="", step=step)]


@pytest.fixture
def laser() -> Iterator[None]:
    firefight.register_house_rule(LaserSight())
    yield
    house.unregister_house_rule(RULE)


@pytest.fixture
def steady() -> Iterator[None]:
    firefight.register_house_rule(Steady())
    yield
    house.unregister_house_rule(Steady.id)


def rhino(**house_choice: Any) -> dict[str, Any]:
    request = copy.deepcopy(example("soe_rhino.json"))
    if house_choice:
        request["house"] = {RULE: house_choice}
    return request


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


# --- what the package declares ---------------------------------------------------------------


def test_init_only_declares() -> None:
    # Issue 13, "What to build" 1: resolvers live in chapter modules, not in __init__.
    tree = ast.parse(inspect.getsource(soe))
    defs = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    assert defs == []
    for act in RULESET.actions:
        assert isinstance(act, Action)
        assert issubclass(act.request, ActionRequest)
        assert act.resolve.__module__ != soe.__name__
    assert RULESET.action_names[0] == "attack"


def test_each_action_is_validated_by_its_own_model_and_names_its_own_fields() -> None:
    out = firefight.resolve({"ruleset": "soe", "action": "will_check"}, seed=1)
    assert [f["field"] for f in out["error"]["fields"]] == ["character"]
    out = firefight.resolve({"ruleset": "soe", "action": "delayed_injury_check",
                             "character": {}, "trauma_class": "bruised"}, seed=1)
    assert [f["field"] for f in out["error"]["fields"]] == ["trauma_class"]
    request = rhino()
    request["weapon"]["damage"] = "lots"
    out = firefight.resolve(request, seed=1)  # no action named: the first, "attack"
    assert [f["field"] for f in out["error"]["fields"]] == ["weapon.damage"]
    out = firefight.resolve({"ruleset": "soe", "action": "reload"}, seed=1)
    assert out["error"]["fields"][0]["field"] == "action"


def test_the_catalog_declares_the_table_features() -> None:
    entry = RULESET.catalog()
    # js-shim/core/config.mjs TABLE_FEATURES["soe"] before issue 13, now declared by the package.
    assert entry["features"] == {
        "sheetActions": [
            {"action": "will_check", "badge": "pretrauma"},
            {"action": "delayed_injury_check", "each": "delayed_injuries",
             "field": "trauma_class", "labelKey": "injury.class"},
            {"action": "general_trauma", "dialog": True,
             "tables": {"field": "trauma_tables", "by": "trauma_class"}},
        ],
        "combatEnd": [{"stat": "pretrauma", "effects": [
            {"target": "target", "kind": "pretrauma", "value": 0, "delta": 0}]}],
        # issue 15: Shoot carries the world's General Trauma RollTables too.
        "actionTables": {"attack": {"field": "trauma_tables", "by": "trauma_class"}},
        # issue 15: "at 0 HP ... will die in the next turn" (test_soe_referee.py).
        "followUp": [soe.injury.DYING_FOLLOW_UP],
        "refereeActions": {name: {} for name in ("weapon_damage", "creature_stats",
                                                 "armor_coverage", "m3_hit", "incapacitation")},
        "roles": {"task": {"actor": "character", "target": "opponent"}},
    }
    for spec in entry["features"]["sheetActions"]:
        assert spec["action"] in entry["actions"]
    # issue 15: the opposed roll and the referee's tools are dialogs too.
    assert set(entry["options"]) == {"attack", "task", *entry["features"]["refereeActions"]}
    assert "to_hit" in entry["house_steps"]
    assert entry["house_steps"]["to_hit"].startswith("soe 2.3")


def test_pretrauma_ends_the_same_way_at_a_will_roll_and_at_combat_end() -> None:
    # soe Table 3: Pre-Trauma lasts "until combat ends or they make a successful Will roll".
    character = {"name": "Ada", "pc": True, "stats": {"will": 12, "pretrauma": -4}}
    result = firefight.resolve({"ruleset": "soe", "action": "will_check",
                                "character": character}, dice=[20, 19, 1])
    assert result["outcome"]["success"] is True
    [ended] = [e for e in result["effects"] if e["kind"] == "pretrauma"]
    [rule] = RULESET.features["combatEnd"]
    [at_combat_end] = rule["effects"]
    assert at_combat_end == {k: ended[k] for k in at_combat_end}
    assert ended["label_key"] == pretrauma.ENDS.label_key
    # Applied, both clear the penalty and the token's status.
    for effects in ([ended], rule["effects"]):
        applied = firefight.apply("soe", {"pretrauma": -4}, effects)
        assert applied["stats"]["pretrauma"] == 0
        assert applied["statuses"]["fear"] is False


# --- house rules -----------------------------------------------------------------------------


@pytest.mark.usefixtures("laser")
def test_a_laser_sight_is_in_the_odds_on_the_roll_and_on_the_card() -> None:
    plain = firefight.odds(rhino())
    odds = firefight.odds(rhino(options={"laser": True}))
    assert odds["net_modifier"] == plain["net_modifier"] + 2 == 25
    assert odds["probability"] > plain["probability"]
    laser_mod = {"key": LASER, "value": 2, "source": f"house rule: {RULE}", "step": "to_hit",
                 "side": "attacker", "params": {}}
    assert laser_mod in odds["modifiers"]
    # The roll: the same dice as the rhino example, two more over-roll (14 -> 16).
    result = firefight.resolve(rhino(options={"laser": True}), dice=[1, 10, 13, 7])
    to_hit = step(result, "to_hit")
    assert to_hit["modifier_total"] == odds["net_modifier"]
    assert to_hit["numbers"]["over_roll"] == 16
    assert laser_mod in result["modifiers"]
    assert result["odds"]["net_modifier"] == 25
    assert f"house rule: {RULE}" in firefight.render_card(result, fmt="text")
    # The world's setting changes the bonus; unchecked, nothing changes.
    assert firefight.odds(rhino(options={"laser": True}, settings={"bonus": 5}))[
        "net_modifier"] == 28
    assert firefight.odds(rhino(options={"laser": False}))["net_modifier"] == 23


@pytest.mark.usefixtures("laser")
def test_a_bad_house_option_names_its_field() -> None:
    out = firefight.odds(rhino(options={"laser": "maybe"}))
    assert out["error"]["fields"][0]["field"] == f"house.{RULE}.options.laser"
    out = firefight.resolve(rhino(settings={"bonus": 99}), seed=1)
    assert out["error"]["fields"][0]["field"] == f"house.{RULE}.settings.bonus"
    request = rhino()
    request["house"] = {"no_such_rule": {}}
    out = firefight.resolve(request, seed=1)
    assert out["error"]["fields"][0]["field"] == "house.no_such_rule"


@pytest.mark.usefixtures("steady")
def test_every_house_step_is_a_step_the_rules_build() -> None:
    request = rhino()
    request["settings"] = {"pretrauma": True}
    request["house"] = {Steady.id: {}}
    result = firefight.resolve(request, dice=[1, 10, 13, 7, 1, 19])
    character = {"name": "Ada", "stats": {"str": 9, "will": 11, "pretrauma": -2}}
    will = {"ruleset": "soe", "action": "will_check", "character": character}
    delayed = {"ruleset": "soe", "action": "delayed_injury_check", "character": character,
               "trauma_class": "severe"}
    task = {"ruleset": "soe", "action": "task", "character": character}
    results = [result, firefight.resolve(will, seed=3), firefight.resolve(delayed, seed=3),
               firefight.resolve(task, seed=3)]
    steps = {s["id"]: s for r in results for s in r["steps"]}
    for step_id in RULESET.house_steps:
        if step_id == "to_hit":
            continue  # the laser test's
        assert step_id in steps, step_id
        mods = [m for r in results for m in r["modifiers"] if m["step"] == step_id]
        assert {"key": "FIREFIGHT.test.steady", "value": 3, "source": "house rule: test_steady",
                "step": step_id, "side": "attacker", "params": {}} in mods
        assert steps[step_id]["modifier_total"] == sum(m["value"] for m in mods)
    # The checks' odds count it too: Will 11 - 2 + 3, Strength 9 - 2 + 3.
    assert firefight.odds(will)["net_modifier"] == 12
    assert firefight.odds(delayed)["net_modifier"] == 10
    assert firefight.odds({**will, "house": {}})["net_modifier"] == 12  # absent: defaults
    # The attack's odds: the to-damage ledger is the roll's.
    assert firefight.odds(request)["damage_modifier"] == 12 - 8 + 3
