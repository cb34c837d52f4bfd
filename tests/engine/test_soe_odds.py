"""The whole outcome of a Stars of Empire shot before the roll (issue 15): every modifier the card
will show, and the exact chance of a miss, a hit without injury and each Table 3 outcome."""

from __future__ import annotations

import copy
import time
from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

import pytest
from _examples import example

import firefight
from firefight.i18n import translate
from firefight.rant import difference_at_least, difference_pmf, success_probability
from firefight.rulesets.soe.data import tables
from firefight.rulesets.soe.to_damage import damage_multiplier

# A window of over-rolls wide enough that everything beyond it lands in one outcome (Table 4's
# last row above +56; Table 3's last band and any HP below), so the count below is exact.
WINDOW = 130


def shot(**changes: Any) -> dict[str, Any]:
    request = copy.deepcopy(example("soe_rhino.json"))
    for key, value in changes.items():
        node = request
        *path, last = key.split("__")
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return request


def exact(outcomes: list[dict[str, Any]]) -> dict[str, Fraction]:
    return {o["key"].removeprefix("FIREFIGHT.soe.odds."): Fraction(o["exact"]) for o in outcomes}


def counted(hit: int, dmg: int, *, ties: bool, n: int, mode: str, hp: int
            ) -> dict[str, Fraction]:
    """An independent exact count: every to-hit and to-damage over-roll in the window with
    ``difference_pmf`` (the tails by ``difference_at_least``), read through the tables the way
    a resolved shot reads them."""
    out: defaultdict[str, Fraction] = defaultdict(Fraction)
    least = 0 if ties else 1
    hits: defaultdict[int, Fraction] = defaultdict(Fraction)
    for d in range(-WINDOW, WINDOW + 1):
        h = d + hit
        if h < least:
            out["miss"] += difference_pmf(d)
        else:
            hits[damage_multiplier(h, n) if n > 1 else 1] += difference_pmf(d)
    out["miss"] += 1 - difference_at_least(-WINDOW)  # far below: a miss
    top = damage_multiplier(WINDOW + hit + 1, n) if n > 1 else 1  # far above: Table 4's last row
    hits[top] += difference_at_least(WINDOW + 1)
    for x, p_x in hits.items():
        for d in range(-WINDOW - 1, WINDOW + 2):
            if d == -WINDOW - 1:
                p, base = 1 - difference_at_least(-WINDOW), -WINDOW - 1 + dmg
            elif d == WINDOW + 1:
                p, base = difference_at_least(WINDOW + 1), WINDOW + 1 + dmg
            else:
                p, base = difference_pmf(d), d + dmg
            loss = max(0, base) * x
            if mode == "hit_points":
                after = hp - loss
                key = ("unhurt" if loss == 0 else "wounded" if after > 0 else
                       "dying" if after == 0 else "dead")
            else:
                cls = tables().injury.lookup(loss)
                key = "unhurt" if cls == "none" else f"trauma.{cls}"
            out[key] += p_x * p
    return out


CASES = [
    {},  # the rhino: 20 projectiles, hit points
    {"settings__injury_mode": "general_trauma"},
    {"weapon__projectiles": 1, "target__stats": {"hp": 4, "hp_max": 8}},
    {"weapon__projectiles": 100, "target__stats": {"str": 17}},
    {"weapon__projectiles": 3, "target__stats": {"hp": 0}},  # at 0 HP already
    {"weapon__projectiles": 1, "settings__tie_goes_to": "target", "range__value": 300,
     "settings__injury_mode": "general_trauma"},
    {"weapon__damage": -15, "target__armor": [{"vs_rifle": -5, "vs_pistol": -4}]},
]


@pytest.mark.parametrize("case", CASES)
def test_outcomes_are_exact_and_sum_to_one(case: dict[str, Any]) -> None:
    request = shot(**case)
    odds = firefight.odds(request)
    got = exact(odds["outcomes"])
    assert sum(got.values()) == 1
    assert list(got)[:2] == ["miss", "unhurt"]
    assert got["miss"] == 1 - Fraction(odds["exact"])
    # "to hit and injure" (the card's figure) is everything but a miss and a harmless hit.
    assert float(1 - got["miss"] - got["unhurt"]) == pytest.approx(odds["injury_probability"])
    stats = request["target"]["stats"]
    hp = stats.get("hp", stats.get("hp_max", 8))
    mode = request.get("settings", {}).get("injury_mode", "hit_points")
    n = request["weapon"]["projectiles"]
    want = counted(odds["net_modifier"], odds["damage_modifier"],
                   ties=odds["ties_to_attacker"], n=n, mode=mode, hp=hp)
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}
    for o in odds["outcomes"]:
        assert o["probability"] == float(Fraction(o["exact"]))
        for lang in ("en", "de"):
            assert translate(o["key"], lang) != o["key"]


def test_each_mode_lists_its_own_outcomes() -> None:
    hp = [o["key"] for o in firefight.odds(shot())["outcomes"]]
    assert hp == [f"FIREFIGHT.soe.odds.{k}" for k in ("miss", "unhurt", "wounded", "dying",
                                                       "dead")]
    trauma = firefight.odds(shot(settings__injury_mode="general_trauma"))["outcomes"]
    assert [o["key"].rsplit(".", 1)[-1] for o in trauma] == [
        "miss", "unhurt", "trivial", "minor", "moderate", "severe", "critical", "untreatable",
        "fatal"]


def test_the_rhino_examples_multiplier_is_in_the_odds() -> None:
    # soe 2.4: to-hit over-roll 14, 20 projectiles: x6; base damage 10: 60 HP, "enough to
    # seriously wound, but not kill the beast" (65 HP). With the to-hit over-roll fixed at 14
    # (modifier 14 - D1 = 14 - 0), the rhino dies exactly when 6 * base > 65, base >= 11.
    from firefight.rulesets.soe.odds import hit_point_outcomes

    x6 = {6: Fraction(1)}
    got = dict(hit_point_outcomes(x6, 0, 65))
    assert got["FIREFIGHT.soe.odds.dead"] == difference_at_least(11)
    assert got["FIREFIGHT.soe.odds.wounded"] == difference_at_least(1) - difference_at_least(11)
    assert got["FIREFIGHT.soe.odds.dying"] == 0  # 65 is no multiple of 6
    assert damage_multiplier(14, 20) == 6


def test_the_odds_list_every_modifier_the_card_shows() -> None:
    request = shot(settings__pretrauma=True, target__stats={"hp": 65, "hp_max": 65, "will": 9,
                                                            "pretrauma": -2, "kind": "creature",
                                                            "toughness": 8})
    odds = firefight.odds(request)
    result = firefight.resolve(request, dice=[20, 1, 1, 13, 7, 1, 19])  # hit, wound, Will roll
    assert {s["id"] for s in result["steps"]} >= {"to_hit", "to_damage", "pretrauma"}
    assert odds["modifiers"] == result["modifiers"]
    assert {m["step"] for m in odds["modifiers"]} == {"to_hit", "to_damage", "pretrauma"}


def test_a_sampled_cross_check() -> None:
    # Never in the engine: resolved shots with seeded dice land within five standard errors.
    request = shot(weapon__projectiles=3, range__value=120)
    got = exact(firefight.odds(request)["outcomes"])
    n = 3000
    seen: Counter[str] = Counter()
    for seed in range(n):
        state = firefight.resolve(request, seed=seed)["outcome"]
        seen["miss" if not state["hit"] else state["state"]] += 1
    for key, p in got.items():
        se = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(seen[key] / n - float(p)) <= 5 * se + 1e-9, (key, seen[key], float(p))


@pytest.mark.parametrize(("action", "extra", "keys"), [
    ("will_check", {}, ("recovered", "still_shaken")),
    ("delayed_injury_check", {"trauma_class": "severe"}, ("no_delayed", "needs_treatment")),
    ("task", {"options": {"modifier": 3, "opposition": 10}}, ("success", "failure")),
])
def test_checks_list_their_outcomes(action: str, extra: dict[str, Any],
                                    keys: tuple[str, str]) -> None:
    request = {"ruleset": "soe", "action": action,
               "character": {"stats": {"will": 11, "str": 9, "pretrauma": -2}}, **extra}
    odds = firefight.odds(request)
    got = {o["key"]: Fraction(o["exact"]) for o in odds["outcomes"]}
    assert list(got) == [f"FIREFIGHT.soe.outcome.{k}" for k in keys]
    assert sum(got.values()) == 1
    p = success_probability(odds["net_modifier"])  # an NPC alone: ties to it (solo_ties)
    assert got[f"FIREFIGHT.soe.outcome.{keys[0]}"] == p
    assert odds["modifiers"]
    assert all(m["step"] in {action, "will_check", "delayed_injury",
                                                   "task"} for m in odds["modifiers"])


def test_odds_stay_fast() -> None:
    # Computed on every option change (issue 17): a fresh request in milliseconds.
    start = time.perf_counter()
    for n in range(2, 42):
        firefight.odds(shot(weapon__projectiles=n, settings__injury_mode="general_trauma"))
    assert (time.perf_counter() - start) / 40 < 0.05
