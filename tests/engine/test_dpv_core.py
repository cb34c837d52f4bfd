"""dpv on the core (issue 13): its actions validated by their own models, step totals from the
recorded modifiers, house rules in the odds and the roll, and the table features as data."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples import example
from pydantic import Field

import firefight
from firefight import house
from firefight.models import Modifier, Strict
from firefight.rulesets.dpv import RULESET, healing

ROOT = Path(__file__).resolve().parents[2]


class Braced(house.HouseRule):
    """A test house rule: +2 to hit (aimed fire) and to any task, when braced."""

    id = "dpv_braced"
    ruleset = "dpv"
    label_key = "FIREFIGHT.dpv_braced.name"
    actions = ("attack", "task")

    class Options(Strict):
        braced: bool = False

    class Settings(Strict):
        bonus: int = Field(default=2, ge=1, le=5)

    options_model = Options
    settings_model = Settings

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        if step in ("to_hit", "task") and options.braced:
            return [Modifier(key="FIREFIGHT.dpv_braced.mod", value=settings.bonus, source="",
                             step=step)]
        return []


@pytest.fixture
def braced() -> Iterator[None]:
    firefight.register_house_rule(Braced())
    yield
    house.unregister_house_rule("dpv_braced")


def attack(**house_choice: Any) -> dict[str, Any]:
    request = example("dpv_attack.json")
    if house_choice:
        request["house"] = {"dpv_braced": house_choice}
    return request


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


def test_a_house_rule_changes_the_odds_and_the_roll(braced: None) -> None:
    # Skill 3 against Routine 6 at close range: 3..10 hit (4/5); braced +2: 2..10 (9/10).
    assert firefight.odds(attack())["exact"] == "4/5"
    assert firefight.odds(attack(options={"braced": False}))["exact"] == "4/5"
    odds = firefight.odds(attack(options={"braced": True}))
    assert (odds["exact"], odds["net_modifier"]) == ("9/10", 5)
    assert odds["modifiers"][-1]["key"] == "FIREFIGHT.dpv_braced.mod"
    plain = firefight.resolve(attack(), dice=[2, 5, 5])
    assert plain["outcome"]["hit"] is False  # 2 + 3 = 5 < 6
    result = firefight.resolve(attack(options={"braced": True}), dice=[2, 5, 5])
    assert result["outcome"]["hit"] is True  # 2 + 5 = 7
    mod = result["modifiers"][-1]
    assert (mod["key"], mod["value"], mod["step"], mod["source"]) == (
        "FIREFIGHT.dpv_braced.mod", 2, "to_hit", "house rule: dpv_braced")
    assert step(result, "to_hit")["modifier_total"] == 5
    assert result["odds"]["exact"] == "9/10"
    assert result["request"]["house"] == {"dpv_braced": {"options": {"braced": True},
                                                         "settings": {}}}
    # The world's setting for the rule reaches it too.
    strong = attack(options={"braced": True}, settings={"bonus": 4})
    assert firefight.odds(strong)["net_modifier"] == 7


def test_a_house_rule_reaches_a_task_and_its_errors_name_the_field(braced: None) -> None:
    task = {"ruleset": "dpv", "action": "task", "options": {"difficulty": "routine"},
            "house": {"dpv_braced": {"options": {"braced": True}}}}
    result = firefight.resolve(task, dice=[4, 3, 3, 3])
    assert step(result, "task")["modifier_total"] == 2
    assert result["outcome"]["success"] is True  # 4 + 2 = 6 >= Routine 6
    assert firefight.odds(task)["net_modifier"] == 2
    bad = firefight.odds(attack(options={"braced": "very"}))
    assert bad["error"]["fields"][0]["field"] == "house.dpv_braced.options.braced"
    bad = firefight.odds(attack(options={"braced": True}, settings={"bonus": 9}))
    assert bad["error"]["fields"][0]["field"] == "house.dpv_braced.settings.bonus"
    melee = {"ruleset": "dpv", "action": "melee", "attacker": {}, "target": {},
             "house": {"dpv_braced": {}}}
    bad = firefight.resolve(melee, dice=[5])
    assert bad["error"]["fields"][0]["field"] == "house.dpv_braced"  # not a melee rule


def test_house_steps_are_declared() -> None:
    assert {"to_hit", "task"} <= set(RULESET.house_steps)
    assert all(cite.startswith("2300ad") for cite in RULESET.house_steps.values())
    entry = next(r for r in firefight.catalog()["rulesets"] if r["id"] == "dpv")
    assert entry["house_steps"] == RULESET.house_steps


def test_every_shot_of_a_burst_carries_its_modifiers() -> None:
    # Three shots with skill 3: each shot's step totals +3 from its own modifiers (the later
    # shots' totals used to be typed by hand, with no modifier on the card).
    request = attack()
    request["options"]["shots"] = 3
    result = firefight.resolve(request, dice=[2, 2, 2, 5, 5, 5, 5, 5, 5])
    for step_id in ("to_hit", "to_hit_2", "to_hit_3"):
        mods = [m for m in result["modifiers"] if m["step"] == step_id]
        assert [m["key"] for m in mods] == ["FIREFIGHT.dpv.mod.skill"]
        assert step(result, step_id)["modifier_total"] == result["outcome"]["dm"] == 3
    html = firefight.render_card(result)
    assert html.count('class="ff-modifier"') == 3


def test_step_totals_are_the_sums_of_their_modifiers() -> None:
    requests = [
        {**attack(), "options": {"shots": 2, "dm": -1}},
        {"ruleset": "dpv", "action": "task",
         "actor": {"stats": {"dexterity": 12, "skills": {"medical": 2}}},
         "options": {"preset": "stabilize", "dm": 1, "opponent_asset": 2}},
        {"ruleset": "dpv", "action": "melee", "attacker": {"stats": {"skills": {"melee": 2}}},
         "target": {"stats": {"skills": {"melee": 1}}}, "options": {"block": True, "dm": 2}},
        {"ruleset": "dpv", "action": "critical_point", "point": 2, "moved": True,
         "patient": {"stats": {"shock": 2}}},
    ]
    for request in requests:
        result = firefight.resolve(request, seed=7)
        assert "error" not in result, result
        for s in result["steps"]:
            total = sum(m["value"] for m in result["modifiers"] if m["step"] == s["id"])
            assert s["modifier_total"] == total, (request["action"], s["id"])
            if "dm" in s["numbers"]:
                assert s["numbers"]["dm"] == total, (request["action"], s["id"])


def test_each_action_names_its_own_fields() -> None:
    bad = firefight.resolve({"ruleset": "dpv", "action": "explosion", "ep": -1})
    assert [f["field"] for f in bad["error"]["fields"]] == ["ep"]
    bad = firefight.resolve({"ruleset": "dpv", "action": "melee", "attacker": {},
                             "target": {"stats": {"strength": -1}}})
    assert bad["error"]["fields"][0]["field"] == "target.stats.strength"
    bad = firefight.resolve({**attack(), "weapon": {"effective_range_m": 10, "dpv": "x"}})
    assert bad["error"]["fields"][0]["field"] == "weapon.dpv"  # not "attack.weapon.dpv"
    assert RULESET.action_names[0] == "attack"  # a request naming no action is an attack


def test_the_healing_clock_is_one_constant() -> None:
    # 2300ad CRITICAL POINTS: 30 min, 1, 3, 6, 12 h; the table's clock, the wound that starts
    # it and the critical-point action all read healing.CRITICAL_HOURS.
    assert healing.CRITICAL_HOURS == (0.5, 1, 3, 6, 12)
    features = next(r for r in firefight.catalog()["rulesets"] if r["id"] == "dpv")["features"]
    assert features["healing"]["hours"] == [0.5, 1, 3, 6, 12]
    request = {**attack(), "target": {"name": "B", "pc": True}}
    request["weapon"]["dpv"] = 2  # doubled at close: 4, abdomen (3), serious: 4 x Shock
    shot = firefight.resolve(request, dice=[9, 3])
    start = next(e for e in shot["effects"] if e["kind"] == "critical_points")
    assert start["params"]["hours"] == features["healing"]["hours"]
    hours = [firefight.resolve({"ruleset": "dpv", "action": "critical_point", "point": p,
                                "patient": {"stats": {"shock": 1}}}, dice=[9])["outcome"]["hours"]
             for p in range(1, len(healing.CRITICAL_HOURS) + 1)]
    assert hours == features["healing"]["hours"]
    # ... and nothing else writes them down (they were in healing.py, wounds.py and the shim).
    hours_written = re.compile(r"0\.5,\s*1,\s*3,\s*6,\s*12")
    sources = [*(ROOT / "py" / "firefight" / "rulesets" / "dpv").rglob("*.py"),
               *(ROOT / "js-shim").rglob("*.mjs")]
    found = [p.name for p in sources if hours_written.search(p.read_text(encoding="utf-8"))]
    assert found == ["healing.py"]


def test_table_features_are_data() -> None:
    # What the table read from js-shim/core/config.mjs before it learnt them from the engine is
    # still there, unchanged (issue 14's features only add to it).
    features = RULESET.features
    assert features["actions"] == ["advance_time", "area_fire_placed"]
    # The referee's: each an engine action or one of the table's own.
    assert set(features["refereeActions"]) <= {*RULESET.catalog()["actions"], *features["actions"]}
    assert {k: features["explosion"][k] for k in ("action", "power", "impact", "blast")} == {
        "action": "explosion", "power": "ep", "impact": "impact", "blast": "blast"}
    old = {"condition": "critical_points", "action": "critical_point",
           "hours": [0.5, 1, 3, 6, 12], "unconscious": "unconscious",
           "wake": "regain_consciousness", "over": ["stabilized", "dead"]}
    assert {k: features["healing"][k] for k in old} == old
