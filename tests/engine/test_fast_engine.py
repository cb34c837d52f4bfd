"""Issue 17, the engine's hot paths: odds once per distinct request (bounded cache), small exact
arithmetic (the same fractions as before), no text card on the shot path."""

from __future__ import annotations

import copy
import dataclasses
import json
from fractions import Fraction
from typing import Any

import pytest
from _examples import example
from hypothesis import given, settings
from hypothesis import strategies as st

import firefight
from firefight import registry
from firefight.bridge import handle
from firefight.dice import Roller, ScriptedDice
from firefight.record import Recorder
from firefight.rulesets.percentile import odds as percentile
from firefight.rulesets.percentile import small_arms
from firefight.rulesets.shock import damage as shock
from firefight.rulesets.shock import wounds

PERCENTILE_60 = example("percentile_semi_60.json")  # semi-automatic, 60 rounds


# --- exact odds: the same fractions as the old code ----------------------------------------------

def _death_by_life(outcomes: percentile.RollOutcomes, rolls: int, life_force: int) -> Fraction:
    """The old computation, kept as the oracle: life left after each D100, counted over
    100**rolls."""
    total = 100**rolls
    if life_force <= 0:
        return Fraction(1)
    alive: dict[int, int] = {life_force: 1}
    dead = 0
    for _ in range(rolls):
        nxt: dict[int, int] = {}
        dead *= 100
        for life, count in alive.items():
            nxt[life] = nxt.get(life, 0) + count * outcomes.miss
            dead += count * outcomes.kill
            for damage, n in outcomes.wounds.items():
                left = life - damage
                if left <= 0:
                    dead += count * n
                else:
                    nxt[left] = nxt.get(left, 0) + count * n
        alive = nxt
    return Fraction(dead, total)


@st.composite
def roll_outcomes(draw: st.DrawFn) -> percentile.RollOutcomes:
    damages = draw(st.lists(st.integers(0, 120), max_size=6, unique=True))
    counts = [draw(st.integers(1, 15)) for _ in damages]
    kill = draw(st.integers(0, 10))
    miss = 100 - kill - sum(counts)
    if miss < 0:
        damages, counts, miss = [], [], 100 - kill
    return percentile.RollOutcomes(miss, kill, dict(zip(damages, counts, strict=True)))


@settings(max_examples=150, deadline=None)
@given(roll_outcomes(), st.integers(1, 25), st.integers(0, 150))
def test_percentile_death_odds_match_the_life_by_life_count(
        outcomes: percentile.RollOutcomes, rolls: int, life: int) -> None:
    assert percentile.fire_odds(outcomes, rolls, life).death == _death_by_life(
        outcomes, rolls, life)


def test_percentile_sixty_rounds_is_exact_and_unchanged() -> None:
    _ruleset, model = firefight.api.parse(PERCENTILE_60)
    rec = Recorder(Roller(ScriptedDice([])), "FIREFIGHT.percentile")  # rolls nothing
    shot = small_arms.plan_shot(model, rec)
    outcomes = percentile.roll_outcomes(shot.chance, shot.kill_at, shot.plan.rounds_per_roll,
                                        shot.multiplier)
    odds = firefight.odds(PERCENTILE_60)
    assert odds["rolls"] == 60
    assert Fraction(odds["death_exact"]) == _death_by_life(outcomes, 60, 100)


def _shock_cells(request: Any) -> dict[str, Fraction]:
    """The old per-cell count, kept as the oracle."""
    counts = dict.fromkeys(shock.OUTCOMES, Fraction(0))
    for loc_roll in range(1, 11):
        location = shock.hit_location(loc_roll)
        if shock.stopping_protection(request, location)[0] is not None:
            counts["stopped"] += Fraction(10, 100)
            continue
        for sev_roll in range(1, 11):
            sev = shock.severity(location, sev_roll, request.weapon.damage_class)
            c = wounds.consequence(request.target.stats, sev.result, request.weapon.damage_class,
                                   request.settings)
            counts[c.outcome] += Fraction(1, 100)
    return counts


@pytest.mark.parametrize("wounds", [0, 5, 9])
@pytest.mark.parametrize("state", ["ok", "stunned", "shock"])
@pytest.mark.parametrize("damage_class", ["I", "III", "VI"])
@pytest.mark.parametrize("cover", ["none", "chest_high"])
def test_shock_outcome_distribution_matches_every_cell(wounds: int, state: str,
                                                       damage_class: str, cover: str) -> None:
    request = example("shock_dshk.json")
    request["target"]["stats"].update(wounds=wounds, state=state)
    request["weapon"]["damage_class"] = damage_class
    if cover != "none":
        request["options"]["cover"] = cover
    _, attack = firefight.api.parse(request)
    assert shock.outcome_distribution(attack) == _shock_cells(attack)


# --- odds once per distinct request ------------------------------------------------------------

def test_odds_are_computed_once_per_distinct_request(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    ruleset = registry.get("shock")
    real = ruleset.action("attack")

    def counting(request: Any) -> dict[str, Any]:
        calls.append(request)
        assert real.odds is not None
        return real.odds(request)

    monkeypatch.setattr(type(ruleset), "actions", tuple(
        dataclasses.replace(a, odds=counting) if a is real else a for a in ruleset.actions))
    registry.clear_odds_cache()
    request = example("shock_dshk.json")
    first = [firefight.resolve(request, seed=s) for s in range(5)]
    assert len(calls) == 1
    other = copy.deepcopy(request)
    other["target"]["stats"]["wounds"] = 4
    firefight.resolve(other, seed=1)
    assert len(calls) == 2
    # The same results as computed afresh each time.
    registry.clear_odds_cache()
    assert [firefight.resolve(request, seed=s) for s in range(5)] == first


def test_the_odds_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "ODDS_CACHE_SIZE", 8)
    registry.clear_odds_cache()
    request = example("soe_rhino.json")
    for hp in range(1, 30):
        request["target"]["stats"]["hp"] = hp
        assert "error" not in firefight.odds(request)
    assert len(registry._ODDS_CACHE) == 8


def test_a_caller_changing_the_odds_it_got_does_not_change_the_cache() -> None:
    request = example("percentile_rifleman.json")
    odds = firefight.odds(request)
    odds["probability"] = 2.0
    odds["modifiers"].clear()
    again = firefight.odds(request)
    assert again["probability"] < 1
    assert again["modifiers"]


@pytest.mark.parametrize("name", ["dpv_attack.json", "percentile_rifleman.json",
                                  "shock_dshk.json", "soe_rhino.json"])
def test_resolve_carries_the_same_odds_as_the_odds_op(name: str) -> None:
    request = example(name)
    registry.clear_odds_cache()
    result = firefight.resolve(request, seed=3)
    odds = firefight.odds(request)
    for key, value in result["odds"].items():
        if key in odds:
            assert odds[key] == value, key


# --- no text card on the shot path -------------------------------------------------------------

def test_the_resolve_reply_has_no_text_card_and_the_card_op_still_renders_text() -> None:
    reply = json.loads(handle(json.dumps({
        "op": "resolve", "request": example("soe_rhino.json"), "entropy": [0.5] * 64})))
    assert reply["ok"], reply
    assert set(reply["value"]) == {"result", "html"}
    text = json.loads(handle(json.dumps({"op": "card", "result": reply["value"]["result"],
                                         "fmt": "text"})))
    assert text["ok"]
    assert "Shooter" in text["value"]


# --- an entropy retry tops up ------------------------------------------------------------------

def test_an_entropy_retry_can_top_up_the_stream_it_sent() -> None:
    """The engine reads uniforms in order and keeps nothing between calls, so a client whose
    stream ran out can send the same values plus more (js-shim/shoot.mjs resolveWithEntropy):
    the dice already read come out the same, and nothing is rolled again from scratch."""
    request = example("soe_rhino.json")
    first = [0.97, 0.12]
    short = json.loads(handle(json.dumps({"op": "resolve", "request": request,
                                          "entropy": first})))
    assert short["error"]["code"] == "entropy_exhausted"
    topped = json.loads(handle(json.dumps({"op": "resolve", "request": request,
                                           "entropy": [*first, *[0.5] * 62]})))
    faces = [f for die in topped["value"]["result"]["dice"] for f in die["results"]]
    assert faces[:2] == [min(20, int(u * 20) + 1) for u in first]
