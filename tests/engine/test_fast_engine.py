"""Issue 17, the engine's hot paths: odds once per distinct request (bounded cache), small exact
arithmetic (the same fractions as before), no text card on the shot path."""

from __future__ import annotations

import copy
import dataclasses
import decimal
import enum
import json
from fractions import Fraction
from typing import Any

import pytest
from _examples import EXAMPLES, example
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import firefight
from firefight import record, registry
from firefight.bridge import handle
from firefight.dice import Roller, ScriptedDice
from firefight.models import Modifier
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
    stream ran out can send the same values plus more (workflow/roll.mjs resolveWithEntropy):
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


# --- the result built straight from the recorder ---------------------------------------------

def _recorded(name: str, seed: int) -> tuple[Any, Recorder, Any, dict[str, Any], dict[str, Any]]:
    ruleset, model = firefight.api.parse(example(name))
    act, rec, dumped, shown = ruleset._run(model, Roller(firefight.SeededDice(seed)))
    return model, rec, act, dumped, shown


def _both(model: Any, rec: Recorder, act: Any, shown: dict[str, Any]) -> tuple[Any, Any]:
    fast = rec.result(model, action=act.name, odds=shown, template="card.html.j2")
    slow = rec.resolution(model, action=act.name, odds=shown,
                          template="card.html.j2").model_dump(mode="json")
    return fast, slow


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")
                                        if "ruleset" in example(p.name)))
@pytest.mark.parametrize("seed", range(8))
def test_the_fast_result_is_the_resolution_dumped(name: str, seed: int) -> None:
    """Recorder.result (what firefight.resolve returns) equals model_dump(mode="json") of the
    Resolution, key order and all, and the fast path was the one taken."""
    model, rec, act, _dumped, shown = _recorded(name, seed)
    fast = record.Recorder._plain_result(rec, record.dump_request(model), act.name, shown,
                                         "card.html.j2")
    slow = rec.resolution(model, action=act.name, odds=shown,
                          template="card.html.j2").model_dump(mode="json")
    assert json.dumps(fast) == json.dumps(slow)
    assert fast == firefight.resolve(example(name), seed=seed) | {
        "card": {**fast["card"], "template": registry.get(model.ruleset).card_template}}


UNUSUAL = [Fraction(1, 3), float("inf"), float("nan"), (1, 2), {3: "int key"}, {1, 2},
           frozenset({"a"}), b"xy", enum.Enum("E", "A").A, decimal.Decimal("1.5"), 10**40,
           [(float("-inf"), Fraction(1, 2))], {"a": {"b": [1.5, None, True]}}]


@pytest.mark.parametrize("value", UNUSUAL, ids=repr)
def test_data_that_is_not_plain_json_is_dumped_as_pydantic_dumps_it(value: object) -> None:
    """Anything the fast dump does not know (a Fraction, an enum, a set, a non-string key,
    inf) anywhere a ruleset may put data takes pydantic's path: the same dict either way."""
    model, rec, act, _dumped, shown = _recorded("soe_rhino.json", 1)
    rec.outcome["odd"] = value
    rec.card_params["odd"] = value
    rec.modifier("mod.odd", 1, "test", "to_hit", odd=value)
    rec.step("odd", numbers={"odd": value}, odd=[value])
    rec.effect("hp", delta=-1, value=value, odd=value)
    rec.note("odd", odd=value)
    fast, slow = _both(model, rec, act, {**shown, "odd": value})
    assert fast == slow or json.dumps(fast, default=str) == json.dumps(slow, default=str)


def test_models_a_ruleset_changed_or_subclassed_take_pydantic_s_path() -> None:
    model, rec, act, _dumped, shown = _recorded("soe_rhino.json", 2)

    class Loud(Modifier):
        extra: int = 9

    rec.add([Loud(key="k", value=1, source="s", step="to_hit")])
    rec.steps[0] = rec.steps[0].model_copy(update={"success": None, "numbers": {"x": 1}})
    rec.notes.append(rec.notes[0].model_copy(update={"params": {"n": Fraction(1, 2)}})
                     if rec.notes else rec.note("odd", n=Fraction(1, 2)))
    fast, slow = _both(model, rec, act, shown)
    assert fast == slow
    assert "extra" not in fast["modifiers"][-1]


def test_the_fast_result_shares_nothing_with_the_recorder_or_the_odds_cache() -> None:
    registry.clear_odds_cache()
    request = example("soe_rhino.json")
    first = firefight.resolve(request, seed=4)
    for part in ("outcome", "odds", "card"):
        first[part].clear()
    first["steps"][0]["numbers"].clear()
    first["dice"][0]["results"].clear()
    first["request"]["attacker"].clear()
    again = firefight.resolve(request, seed=4)
    assert all((again["outcome"], again["odds"], again["card"]["params"],
                again["steps"][0]["numbers"], again["dice"][0]["results"],
                again["request"]["attacker"]))


def test_a_ruleset_with_its_own_resolve_is_still_called(monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = registry.get("soe")
    calls = []
    core = registry.Ruleset.resolve

    def own(self: registry.Ruleset, request: Any, roller: Roller) -> Any:
        calls.append(request)
        return core(self, request, roller)

    monkeypatch.setattr(type(ruleset), "resolve", own)
    out = firefight.resolve(example("soe_rhino.json"), seed=5)
    assert len(calls) == 1
    monkeypatch.undo()
    assert out == firefight.resolve(example("soe_rhino.json"), seed=5)


# --- dice --------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**64), st.lists(st.integers(1, 120), min_size=1, max_size=40))
def test_seeded_dice_give_randint_s_faces(seed: int, faces: list[int]) -> None:
    """SeededDice skips randint's argument checks; the faces are randint's, seed for seed."""
    import random

    faces = [*faces, *range(1, 101), 1000, 2**40]
    dice, rng = firefight.SeededDice(seed), random.Random(seed)
    assert [dice.face(f) for f in faces] == [rng.randint(1, f) for f in faces]


def test_die_and_opposed_roll_totals_are_worked_out_once_and_right() -> None:
    from firefight.dice import DieRecord
    from firefight.rant import OpposedRoll

    die = DieRecord("1d20x20", 20, (20, 20, 3), "p", "attacker", 20)
    other = DieRecord("1d20x20", 20, (7,), "p", "target", 20)
    assert die.total == 43
    assert dataclasses.replace(die, results=(2,)).total == 2
    roll = OpposedRoll(die, other, 1, 2, ties_to_acting=False)
    assert (roll.acting_total, roll.opposing_total, roll.over_roll, roll.success) == (
        44, 9, 35, True)
    tie = dataclasses.replace(roll, acting_modifier=-34)
    assert (tie.over_roll, tie.success) == (0, False)
    assert dataclasses.replace(tie, ties_to_acting=True).success is True
    assert die == DieRecord("1d20x20", 20, (20, 20, 3), "p", "attacker", 20)
    with pytest.raises(dataclasses.FrozenInstanceError):
        die.total = 1  # type: ignore[misc]


# --- models the recorder builds without validating them again ----------------------------------

def _state(model: Any) -> Any:
    return type(model), model.__getstate__(), model.model_dump(), model.model_fields_set


def _validated(rec: Recorder, call: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What the recorder made before: every model validated (``_built`` replaced by it)."""
    with monkeypatch.context() as m:
        m.setattr(record, "_built", lambda cls, values, _fields: cls(**{
            k: v for k, v in values.items() if k in _fields}))
        return call(rec)


CALLS = [
    lambda r: r.modifier("mod.x", 3, "soe Table 1", "to_hit", range=20.0, steps=0),
    lambda r: r.modifier("FIREFIGHT.x.y", -2, "s", "to_damage", side="target"),
    lambda r: r.modifier("mod.x", True, "s", "to_hit"),  # validated: becomes 1
    lambda r: r.modifier("mod.x", 2.0, "s", "to_hit"),
    lambda r: r.step("to_hit", kind="opposed", dice=[0, 1], numbers={"a": 1, "b": [1]},
                     success=True, outcome="outcome.hit"),
    lambda r: r.step("info", "label", kind="info", source="soe 2.3", n=2),
    lambda r: r.step("x", success=1, dice=(0,)),  # validated: True, [0]
    lambda r: r.step("x", dice=[True]),
    lambda r: r.step("x", success=None, numbers={}),
    lambda r: r.effect("hp", delta=-3, extra=1),
    lambda r: r.effect("state", value="dead", label="effect.dead", target="attacker"),
    lambda r: r.effect("hp", delta=False),
    lambda r: r.note("multiplier", "soe Table 4", n=2),
    lambda r: r.note("FIREFIGHT.card.x"),
]


@pytest.mark.parametrize("index", range(len(CALLS)))
def test_recorded_models_are_what_validation_makes(index: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def fresh() -> Recorder:
        return Recorder(Roller(ScriptedDice([])), "FIREFIGHT.soe", ruleset="soe")

    made = CALLS[index](fresh())
    assert _state(made) == _state(_validated(fresh(), CALLS[index], monkeypatch))
    with pytest.raises(Exception, match="frozen"):
        made.key = "x"


@pytest.mark.parametrize("call", [
    lambda r: r.step("x", kind="sideways"),
    lambda r: r.step("x", kind=["opposed"]),
    lambda r: r.step("x", numbers={1: "int key"}),
    lambda r: r.modifier("mod.x", "three", "s", "to_hit"),
    lambda r: r.note("x", source=3),
])
def test_what_validation_refuses_it_still_refuses(call: Any) -> None:
    rec = Recorder(Roller(ScriptedDice([])), "FIREFIGHT.soe", ruleset="soe")
    with pytest.raises(ValidationError):
        call(rec)


def test_a_step_keeps_its_own_copy_of_the_numbers_and_dice_it_was_given() -> None:
    """As validation copies them: a ruleset that updates its dict afterwards (dpv keeps a
    task's numbers) does not change the recorded step."""
    rec = Recorder(Roller(ScriptedDice([])), "FIREFIGHT.soe", ruleset="soe")
    numbers, dice = {"roll": 3}, [0]
    step = rec.step("x", numbers=numbers, dice=dice)
    numbers["roll"] = 4
    dice.append(1)
    assert step.numbers == {"roll": 3}
    assert step.dice == [0]


# --- roll outcomes counted by ranges ---------------------------------------------------------

def _roll_outcomes_by_roll(chance: int, kill: int, rounds: int, multiplier: int
                           ) -> percentile.RollOutcomes:
    """The old count, kept as the oracle: ``roll_result`` of each of the 100 rolls."""
    miss = kills = 0
    wounds_by: dict[int, int] = {}
    for roll in range(1, 101):
        r = small_arms.roll_result(roll, chance, kill, rounds, multiplier)
        if not r.hit:
            miss += 1
        elif r.kill:
            kills += 1
        else:
            wounds_by[r.damage] = wounds_by.get(r.damage, 0) + 1
    return percentile.RollOutcomes(miss, kills, wounds_by)


@settings(max_examples=200, deadline=None)
@given(st.integers(-20, 130), st.integers(-5, 70), st.integers(1, 70), st.integers(1, 3))
def test_percentile_roll_outcomes_are_the_roll_by_roll_count(chance: int, kill: int,
                                                             rounds: int, multiplier: int) -> None:
    assert percentile.roll_outcomes(chance, kill, rounds, multiplier) == _roll_outcomes_by_roll(
        chance, kill, rounds, multiplier)


# --- soe odds summed as whole numbers ----------------------------------------------------------

def _between(lo: int | None, hi: int | None, modifier: int) -> Fraction:
    """The old Fraction sum, kept as the oracle."""
    from firefight.rant import difference_at_least

    if lo is not None and hi is not None and lo > hi:
        return Fraction(0)
    upper = difference_at_least(lo - modifier) if lo is not None else Fraction(1)
    below = difference_at_least(hi + 1 - modifier) if hi is not None else Fraction(0)
    return upper - below


@settings(max_examples=60, deadline=None)
@given(st.integers(-30, 30), st.integers(-30, 30), st.booleans(),
       st.sampled_from([1, 2, 5, 20, 60]), st.integers(-5, 300))
def test_soe_shot_outcomes_are_the_fraction_sums(hit: int, dmg: int, ties: bool,
                                                 projectiles: int, hp: int) -> None:
    from firefight.rulesets.soe import odds as soe
    from firefight.rulesets.soe.data import tables

    least = 0 if ties else 1
    if projectiles <= 1:
        mults = {1: _between(least, None, hit)}
    else:
        t = tables()
        column = t.multiplier_columns.lookup(projectiles)
        mults = {}
        for band in t.multiplier_rows.bands:
            p = _between(least if band.lo is None else max(band.lo, least), band.hi, hit)
            if p:
                mults[band.value[column]] = mults.get(band.value[column], Fraction(0)) + p
    assert soe.hit_multipliers(hit, ties, projectiles) == mults
    hp_old = dict.fromkeys(("unhurt", *soe.HP_STATES), Fraction(0))
    for x, p_x in mults.items():
        hp_old["unhurt"] += p_x * _between(None, 0, dmg)
        hp_old["wounded"] += p_x * _between(1, (hp - 1) // x, dmg)
        if hp > 0 and hp % x == 0:
            hp_old["dying"] += p_x * _between(hp // x, hp // x, dmg)
        hp_old["dead"] += p_x * _between(max(1, hp // x + 1), None, dmg)
    got = soe.shot_outcomes(hit, dmg, ties=ties, projectiles=projectiles, mode="hit_points",
                            hp=hp)
    assert [p for _, p in got[1:]] == list(hp_old.values())
    trauma: dict[str, Fraction] = {}
    for x, p_x in mults.items():
        for band in tables().injury.bands:
            p = _between(*soe._bases(band.lo, band.hi, x), dmg)
            if band.contains(0):
                p += _between(None, 0, dmg)
            trauma[band.value] = trauma.get(band.value, Fraction(0)) + p_x * p
    got = soe.shot_outcomes(hit, dmg, ties=ties, projectiles=projectiles,
                            mode="general_trauma", hp=hp)
    assert [p for _, p in got[1:]] == [trauma.get("none", Fraction(0)), *(
        p for c, p in trauma.items() if c != "none")]


# --- a request parsed once, its ledgers built once --------------------------------------------

def test_a_request_seen_again_is_not_validated_again(monkeypatch: pytest.MonkeyPatch) -> None:
    registry.clear_odds_cache()
    ruleset = registry.get("soe")
    calls = []
    real = type(ruleset).parse_asked  # the validation (the hooks run after it)

    def counting(self: registry.Ruleset, data: dict[str, Any]) -> Any:
        calls.append(data)
        return real(self, data)

    monkeypatch.setattr(type(ruleset), "parse_asked", counting)
    request = example("soe_rhino.json")
    first = firefight.resolve(request, seed=3)
    assert firefight.odds(request) == firefight.odds(copy.deepcopy(request))
    assert firefight.resolve(copy.deepcopy(request), seed=3) == first
    assert len(calls) == 1
    request["range"]["value"] = 21  # a changed request is a new one
    assert firefight.resolve(request, seed=3) != first
    assert len(calls) == 2


@pytest.mark.parametrize("name", ["soe_rhino.json", "dpv_attack.json",
                                  "percentile_rifleman.json"])
def test_a_new_requests_resolve_writes_no_json_and_builds_its_ledgers_once(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: the parse cache's key is the request's key for its odds and for the work done
    once (``Parsed.key``), so a new request's resolve never writes the request's JSON, and its
    odds share the ledgers the roll built (``record.answering``)."""
    from pydantic import BaseModel

    registry.clear_odds_cache()
    request = example(name)
    expected = firefight.resolve(request, seed=2)
    registry.clear_odds_cache()
    written = []
    real_json = BaseModel.model_dump_json

    def counting_json(self: BaseModel, **kwargs: Any) -> str:
        written.append(type(self).__name__)
        return real_json(self, **kwargs)

    monkeypatch.setattr(BaseModel, "model_dump_json", counting_json)
    built = []
    real_once = Recorder.once

    def counting_once(self: Recorder, name: str, build: Any) -> Any:
        return real_once(self, name, lambda r: (built.append(name), build(r))[1])

    monkeypatch.setattr(Recorder, "once", counting_once)
    assert firefight.resolve(request, seed=2) == expected
    assert written == []
    assert built
    assert len(built) == len(set(built)), built  # each piece of work once


def _armor(piece: dict[Any, Any]) -> dict[str, Any]:
    request = example("percentile_rifleman.json")
    request["target"]["armor"] = [piece]  # free-form data, kept as sent
    return request


@pytest.mark.parametrize(("one", "other"), [
    # JSON would write the key 1 as "1" (a key must be a string: the int is refused), and
    # equality takes True for 1: the cache's key (marshal) keeps them apart.
    (_armor({"1": "x"}), _armor({1: "x"})),
    (_armor({"a": 1}), _armor({"a": True})),
])
def test_requests_that_look_alike_are_told_apart(one: dict[str, Any],
                                                 other: dict[str, Any]) -> None:
    for first, second in ((one, other), (other, one)):
        registry.clear_odds_cache()
        expected = firefight.resolve(second, seed=1)
        registry.clear_odds_cache()
        firefight.resolve(first, seed=1)  # in the cache first
        assert firefight.resolve(second, seed=1) == expected


def test_work_done_once_is_recorded_again_and_follows_the_house_rules() -> None:
    registry.clear_odds_cache()
    request = example("percentile_rifleman.json")
    fresh = [registry.resolve_dict(*firefight.api.parse(request), Roller(
        firefight.SeededDice(s))) for s in range(4)]  # no request key: built every time
    assert [firefight.resolve(request, seed=s) for s in range(4)] == fresh
    assert [firefight.resolve(request, seed=s) for s in range(4)] == fresh  # kept, again

    class Bipod(firefight.HouseRule):
        id = "test_bipod"
        ruleset = "percentile"

        def modifiers(self, step: str, request: Any, options: Any, settings: Any
                      ) -> list[Modifier]:
            return [Modifier(key="FIREFIGHT.test.bipod", value=7, source="bipod", step=step)]

    firefight.register_house_rule(Bipod())
    try:
        with_bipod = firefight.resolve(request, seed=1)
        assert with_bipod["modifiers"][-1]["key"] == "FIREFIGHT.test.bipod"
        assert with_bipod["odds"]["chance"] == fresh[1]["odds"]["chance"] + 7
    finally:
        from firefight import house

        house.unregister_house_rule("test_bipod")
    assert firefight.resolve(request, seed=1) == fresh[1]


def test_work_done_once_may_record_nothing_but_modifiers_and_notes() -> None:
    rec = Recorder(Roller(ScriptedDice([])), "FIREFIGHT.soe", ruleset="soe", request_key="{}")
    with pytest.raises(AssertionError, match="only modifiers and notes"):
        rec.once("test_step", lambda r: r.step("x"))
    value = rec.once("test_ledger", lambda r: [r.modifier("mod.a", 1, "src", "s"), r.note("n")])
    again = Recorder(Roller(ScriptedDice([])), "FIREFIGHT.soe", ruleset="soe", request_key="{}")
    assert again.once("test_ledger", lambda r: pytest.fail("built twice")) is value
    assert again.modifiers == rec.modifiers
    assert again.notes == rec.notes
