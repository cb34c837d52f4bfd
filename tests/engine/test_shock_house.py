"""SHOCK on the one core (issue 13): its declared catalog (the chit-pull activation the table
runs as data), and house rules on the to-hit and severity steps changing the odds and the roll
alike."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from pydantic import BaseModel, Field
from test_shock import attack, step

import firefight
from firefight import house
from firefight.models import Modifier
from firefight.rulesets.shock import RULESET
from firefight.rulesets.shock.models import DrawChitsRequest, EndOfTurnRequest, TurnUnit

RULE = "test_bipod"


class BipodOptions(BaseModel):
    bipod: bool = False
    hollow_points: bool = False


class BipodSettings(BaseModel):
    bonus: int = Field(default=1, ge=0, le=5)


class Bipod(firefight.HouseRule):
    """A table's own rule: a bipod adds the world's bonus to hit; hollow points +2 severity."""

    id = RULE
    ruleset = "shock"
    label_key = "FIREFIGHT.shock.mod.aimed"
    options_model = BipodOptions
    settings_model = BipodSettings

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        if step == "to_hit" and options.bipod:
            return [Modifier(key="FIREFIGHT.shock.mod.aimed", value=settings.bonus, source="",
                             step=step)]
        if step == "severity" and options.hollow_points:
            return [Modifier(key="FIREFIGHT.shock.mod.situational", value=2,
                             source="test: hollow points", step=step, side="target")]
        return []


@pytest.fixture
def bipod() -> Iterator[None]:
    firefight.register_house_rule(Bipod())
    yield
    house.unregister_house_rule(RULE)


def with_rule(request: dict[str, Any], **options: Any) -> dict[str, Any]:
    request["house"] = {RULE: {"options": options, "settings": {"bonus": 1}}}
    return request


def rolled(**changes: Any) -> dict[str, Any]:
    """``test_shock.attack`` rolled by the to-hit house rule: Prowess 5, 30 m (short, +0)."""
    return attack(options={}, **changes)


# --- what the table learns -----------------------------------------------------------------

def test_the_catalog_declares_the_activation_and_the_house_steps() -> None:
    entry = RULESET.catalog()
    activation = entry["features"]["activation"]
    assert {k: activation[k] for k in ("draw", "settle", "units", "round", "served", "order")
            } == {"draw": "draw_chits", "settle": "end_of_turn", "units": "units",
                  "round": "turn", "served": "skipped_turn", "order": "order"}
    # Every name the table reads is the engine's own: actions, request and outcome fields.
    assert {activation["draw"], activation["settle"]} <= set(entry["actions"])
    assert {activation["units"], activation["round"]} <= set(DrawChitsRequest.model_fields)
    assert activation["units"] in EndOfTurnRequest.model_fields
    assert activation["served"] in TurnUnit.model_fields
    drawn = firefight.resolve({"ruleset": "shock", "action": activation["draw"],
                               activation["round"]: 3, activation["units"]: [{"name": "A"}]},
                              seed=1)
    assert [d["name"] for d in drawn["outcome"][activation["order"]]] == ["A"] * 4
    assert list(entry["house_steps"]) == ["to_hit", "severity"]
    assert entry["default_action"] == "attack"


# --- house rules ---------------------------------------------------------------------------

@pytest.mark.usefixtures("bipod")
def test_a_to_hit_house_modifier_is_in_the_odds_and_on_the_result() -> None:
    plain = firefight.odds(rolled())
    request = with_rule(rolled(), bipod=True)
    odds = firefight.odds(request)
    assert (plain["target_number"], odds["target_number"]) == (5, 6)
    assert (plain["exact"], odds["exact"]) == ("1/2", "3/5")
    house_mod = {"key": "FIREFIGHT.shock.mod.aimed", "value": 1,
                 "source": f"house rule: {RULE}", "step": "to_hit", "side": "attacker",
                 "params": {}}
    assert house_mod in odds["modifiers"]
    # A 6 misses on Prowess 5 and hits with the bipod: the roll sees what the odds saw.
    assert firefight.resolve(rolled(), dice=[6])["outcome"]["hit"] is False
    result = firefight.resolve(request, dice=[6, 9, 3])
    assert result["outcome"]["hit"] is True
    assert house_mod in result["modifiers"]
    assert step(result, "to_hit")["modifier_total"] == 6
    assert step(result, "to_hit")["numbers"]["target_number"] == 6
    assert result["odds"]["exact"] == "3/5"
    assert f"house rule: {RULE}" in firefight.render_card(result, fmt="text")


@pytest.mark.usefixtures("bipod")
def test_a_severity_house_modifier_moves_the_row_and_the_odds() -> None:
    plain = attack()  # referee-confirmed: no to-hit roll, so no to-hit modifiers either
    request = with_rule(attack(), hollow_points=True, bipod=True)
    before = firefight.resolve(plain, dice=[9, 6])  # leg, 6 + 1 = 7: WOUND
    after = firefight.resolve(request, dice=[9, 6])  # leg, 6 + 1 + 2 = 9: SHOCK
    assert (before["outcome"]["result"], after["outcome"]["result"]) == ("wound", "shock")
    sev = step(after, "severity")
    assert (sev["numbers"]["modified"], sev["modifier_total"]) == (9, 3)
    assert [m["source"] for m in after["modifiers"]] == ['shock Damage Class, "IV"',
                                                         "test: hollow points"]
    assert step(after, "to_hit")["modifier_total"] == 0
    odds = firefight.odds(request)
    assert odds["given_hit_exact"]["shock"] != firefight.odds(plain)["given_hit_exact"]["shock"]
    # Every face: the odds given a hit count exactly what the resolution does.
    counts: dict[str, int] = {}
    for loc in range(1, 11):
        for sev_roll in range(1, 11):
            outcome = firefight.resolve(request, dice=[loc, sev_roll])["outcome"]["result"]
            counts[outcome] = counts.get(outcome, 0) + 1
    assert {k: Fraction(v, 100) for k, v in counts.items()} == {
        k: Fraction(v) for k, v in odds["given_hit_exact"].items()}


@pytest.mark.usefixtures("bipod")
def test_a_bad_house_option_names_its_field() -> None:
    request = rolled()
    request["house"] = {RULE: {"options": {"bipod": "maybe"}}}
    out = firefight.odds(request)
    assert out["error"]["fields"][0]["field"] == f"house.{RULE}.options.bipod"
    out = firefight.resolve(request, seed=1)
    assert out["error"]["fields"][0]["field"] == f"house.{RULE}.options.bipod"
    request["house"] = {RULE: {"settings": {"bonus": 9}}}
    assert firefight.odds(request)["error"]["fields"][0]["field"] == f"house.{RULE}.settings.bonus"


def test_an_unknown_house_rule_is_refused() -> None:
    request = rolled()
    request["house"] = {RULE: {"options": {"bipod": True}}}
    out = firefight.resolve(request, seed=1)
    assert out["error"]["fields"][0]["field"] == f"house.{RULE}"
