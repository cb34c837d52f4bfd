"""Percentile on the one core (issue 13): its declared catalog, and a house rule on the chance
step changing the odds and the roll alike."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from _examples import example
from pydantic import BaseModel, Field
from test_percentile import d100_faces, rolls

import firefight
from firefight import house
from firefight.models import Modifier
from firefight.rulesets.percentile import RULESET

RULE = "test_telescopic_sight"


class ScopeOptions(BaseModel):
    scope: bool = False


class ScopeSettings(BaseModel):
    bonus: int = Field(default=5, ge=0, le=50)


class TelescopicSight(firefight.HouseRule):
    """A table's own rule: a telescopic sight adds the world's bonus to the chance of a hit."""

    id = RULE
    ruleset = "percentile"
    label_key = "FIREFIGHT.test.scope"
    options_model = ScopeOptions
    settings_model = ScopeSettings

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        if step != "chance" or not options.scope:
            return []
        return [Modifier(key="FIREFIGHT.test.scope", value=settings.bonus, source="",
                         step=step)]


@pytest.fixture
def scope() -> Iterator[None]:
    firefight.register_house_rule(TelescopicSight())
    yield
    house.unregister_house_rule(RULE)


@pytest.fixture
def rifle() -> dict[str, Any]:
    request = copy.deepcopy(example("percentile_rifleman.json"))
    request["house"] = {RULE: {"options": {"scope": True}, "settings": {"bonus": 8}}}
    return request


def test_the_catalog_declares_features_and_the_house_step() -> None:
    entry = RULESET.catalog()
    # js-shim/core/config.mjs TABLE_FEATURES["percentile"] before issue 13, now declared here.
    assert entry["features"]["actions"] == ["sight_in"]
    assert list(entry["house_steps"]) == ["chance"]
    assert "any modifiers" in entry["house_steps"]["chance"]
    assert entry["default_action"] == "attack"
    assert set(entry["options"]) == {"attack"}


@pytest.mark.usefixtures("scope")
def test_a_house_rule_modifier_is_on_the_result_and_in_the_odds(rifle: dict[str, Any]) -> None:
    odds = firefight.odds(rifle)
    assert odds["chance"] == 71 + 8
    assert odds["net_modifier"] == 8
    assert odds["exact"] == "79/100"
    house_mod = {"key": "FIREFIGHT.test.scope", "value": 8, "source": f"house rule: {RULE}",
                 "step": "chance", "side": "attacker", "params": {}}
    assert house_mod in odds["modifiers"]

    # 75 misses at 71 %, hits with the sight.
    result = firefight.resolve(rifle, dice=d100_faces(75, 90, 100))
    assert house_mod in result["modifiers"]
    chance_step = next(s for s in result["steps"] if s["id"] == "chance")
    assert chance_step["modifier_total"] == 79 == result["outcome"]["chance"]
    assert [s["success"] for s in rolls(result)] == [True, False, False]
    assert result["odds"]["chance"] == 79
    assert result["request"]["house"] == rifle["house"]
    card = firefight.render_card(result, fmt="text")
    assert f"house rule: {RULE}" in card


@pytest.mark.usefixtures("scope")
def test_the_hasty_fraction_cuts_the_house_modifier_too(rifle: dict[str, Any]) -> None:
    # "1/4 The chance of hitting": the chance with every modifier, the house rule's included.
    rifle["options"]["hasty_fire"] = True
    assert firefight.odds(rifle)["chance"] == (71 + 8) // 4


@pytest.mark.usefixtures("scope")
def test_a_house_rule_left_unchosen_changes_nothing(rifle: dict[str, Any]) -> None:
    rifle["house"] = {}
    assert firefight.odds(rifle)["chance"] == 71
    rifle["house"] = {RULE: {"options": {"scope": False}}}
    assert firefight.odds(rifle)["chance"] == 71


@pytest.mark.usefixtures("scope")
def test_a_bad_house_option_names_its_field(rifle: dict[str, Any]) -> None:
    rifle["house"][RULE]["options"]["scope"] = "maybe"
    out = firefight.resolve(rifle, seed=1)
    assert out["error"]["fields"][0]["field"] == f"house.{RULE}.options.scope"
    assert firefight.odds(rifle)["error"]["fields"][0]["field"] == f"house.{RULE}.options.scope"


def test_an_unregistered_house_rule_is_refused(rifle: dict[str, Any]) -> None:
    out = firefight.odds(rifle)
    assert out["error"]["fields"][0]["field"] == f"house.{RULE}"


def test_errors_name_the_requests_own_fields() -> None:
    request = copy.deepcopy(example("percentile_rifleman.json"))
    request["weapon"]["magazine"] = 0
    out = firefight.resolve(request, seed=1)
    assert [f["field"] for f in out["error"]["fields"]] == ["weapon.magazine"]
    request["weapon"]["magazine"] = 5
    request["action"] = "melee"
    assert firefight.odds(request)["error"]["fields"][0]["field"] == "action"
