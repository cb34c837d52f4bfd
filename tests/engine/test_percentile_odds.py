"""Percentile: the whole outcome before the roll (issue 15): every modifier with its source, why
facing made a shot hasty fire, and the exact chances of miss / hit / kill / death of the whole
shot, checked against every face, the texts' numbers and a sampling run; the sighting-in cap."""

from __future__ import annotations

import copy
import itertools
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _examples import example

import firefight
from firefight import registry
from firefight.rulesets.percentile import models, odds, small_arms

M = "FIREFIGHT.percentile.mod."
OUT = "FIREFIGHT.percentile.odds."
LANG = Path(odds.__file__).parent / "lang"


def d100_faces(*rolls: int) -> list[int]:
    faces: list[int] = []
    for roll in rolls:
        tens, ones = divmod(roll % 100, 10)
        faces += [tens or 10, ones or 10]
    return faces


@pytest.fixture
def rifle() -> dict[str, Any]:
    return copy.deepcopy(example("percentile_rifleman.json"))


@pytest.fixture
def smg() -> dict[str, Any]:
    return copy.deepcopy(example("percentile_submachine_gunner.json"))


def outcomes(request: dict[str, Any]) -> dict[str, Fraction]:
    out = firefight.odds(request)
    assert "error" not in out, out
    got = {o["key"].removeprefix(OUT): Fraction(o["exact"]) for o in out["outcomes"]}
    for o in out["outcomes"]:
        assert o["probability"] == pytest.approx(float(Fraction(o["exact"])))
    return got


def classify(result: dict[str, Any]) -> str:
    """A resolved shot as one of the outcomes: the kill rule first, then dead of wounds."""
    out = result["outcome"]
    if out["kills"]:
        return "kill"
    if out["state"] == "dead":
        return "death"
    return "hit" if out["hit"] else "miss"


# Requests with every outcome in play: close range (damage x3), a wounded target, bursts.
def _variants() -> list[dict[str, Any]]:
    rifle = example("percentile_rifleman.json")
    smg = example("percentile_submachine_gunner.json")
    close = copy.deepcopy(rifle)
    close["range"] = {"value": 5, "units": "in"}
    close["target"]["stats"]["life_force"] = 30
    burst = copy.deepcopy(smg)
    burst["range"] = {"value": 8, "units": "in"}
    burst["target"]["stats"]["life_force"] = 60
    dead = copy.deepcopy(rifle)
    dead["target"]["stats"]["life_force"] = 0
    return [rifle, smg, close, burst, dead]


@pytest.mark.parametrize("request_", _variants())
def test_outcomes_are_exclusive_in_display_order_and_sum_to_exactly_one(
        request_: dict[str, Any]) -> None:
    got = outcomes(request_)
    assert list(got) == list(odds.OUTCOMES) == ["miss", "hit", "kill", "death"]
    assert sum(got.values()) == 1
    assert all(p >= 0 for p in got.values())
    out = firefight.odds(request_)
    # The older figures agree: kill = the kill rule's chance, kill + death = the chance of death.
    assert got["kill"] == Fraction(out["kill_exact"])
    if request_["target"]["stats"]["life_force"]:
        assert got["kill"] + got["death"] == Fraction(out["death_exact"])
    else:  # already dead: no hit leaves him alive
        assert got["hit"] == 0
    assert got["miss"] == 1 - Fraction(out["any_hit_exact"])


def test_every_outcome_has_a_label_in_english_and_german() -> None:
    for lang in ("en", "de"):
        data = json.loads((LANG / f"{lang}.json").read_text(encoding="utf-8"))
        labels = data["FIREFIGHT"]["percentile"]["odds"]
        assert set(odds.OUTCOMES) <= set(labels), lang
        assert all(labels[k].strip() for k in odds.OUTCOMES)


def test_the_texts_numbers(rifle: dict[str, Any], smg: dict[str, Any]) -> None:
    # Example 1: "an 71% chance of a hit ... He fires 3 rounds", each a roll of one round; a
    # rifle kills on a hit "equal to or less than the number of rounds fired" (1).
    got = outcomes(rifle)
    assert got["miss"] == Fraction(29, 100) ** 3
    assert got["kill"] == 1 - Fraction(99, 100) ** 3
    assert got["death"] == 0  # no three single-round table results add up to 100 %
    # Example 2: "a 70% chance of a hit ... firing 30 rounds", one burst; a burst kills at
    # "half of the number of rounds" (15); the rest are wounds of at most 78 %.
    got = outcomes(smg)
    assert got == {"miss": Fraction(3, 10), "hit": Fraction(55, 100),
                   "kill": Fraction(15, 100), "death": 0}


def test_one_roll_matches_every_face_resolved(smg: dict[str, Any]) -> None:
    # A 10-round burst at 12": 86 %, kills at 5, damage doubled: some wounds kill.
    smg["range"] = {"value": 12, "units": "in"}
    smg["options"]["rounds"] = 10
    smg["target"]["stats"]["life_force"] = 40
    counts = dict.fromkeys(odds.OUTCOMES, 0)
    for roll in range(1, 101):
        counts[classify(firefight.resolve(smg, dice=d100_faces(roll)))] += 1
    assert outcomes(smg) == {k: Fraction(n, 100) for k, n in counts.items()}
    assert all(counts.values())


def test_two_rolls_match_every_pair_of_faces(rifle: dict[str, Any]) -> None:
    rifle["range"] = {"value": 5, "units": "in"}
    rifle["options"]["rounds"] = 2
    rifle["target"]["stats"]["life_force"] = 30
    shot = small_arms.plan_shot(small_arms_request(rifle), _recorder())
    per_roll = [small_arms.roll_result(r, shot.chance, shot.kill_at, 1, shot.multiplier)
                for r in range(1, 101)]
    counts = dict.fromkeys(odds.OUTCOMES, 0)
    for a, b in itertools.product(per_roll, repeat=2):
        if a.kill or b.kill:
            counts["kill"] += 1
        elif not (a.hit or b.hit):
            counts["miss"] += 1
        elif a.damage + b.damage >= 30:
            counts["death"] += 1
        else:
            counts["hit"] += 1
    assert outcomes(rifle) == {k: Fraction(n, 100**2) for k, n in counts.items()}
    assert all(counts.values())


def small_arms_request(data: dict[str, Any]) -> models.PercentileAttackRequest:
    return models.PercentileAttackRequest.model_validate(data)


def _recorder() -> Any:
    from firefight.dice import Roller, ScriptedDice
    from firefight.record import Recorder

    return Recorder(Roller(ScriptedDice([])), "FIREFIGHT.percentile", ruleset="percentile")


def test_sampling_agrees_with_the_exact_outcomes(rifle: dict[str, Any]) -> None:
    """A cross-check only: the engine never samples its odds."""
    rifle["range"] = {"value": 5, "units": "in"}
    rifle["target"]["stats"]["life_force"] = 30
    exact = outcomes(rifle)
    n = 1500
    seen = dict.fromkeys(odds.OUTCOMES, 0)
    for seed in range(n):
        seen[classify(firefight.resolve(rifle, seed=seed))] += 1
    for key, p in exact.items():
        sigma = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(seen[key] / n - float(p)) <= 5 * sigma + 1e-9, (key, seen, exact)


# --- why: the facing rule ---------------------------------

def test_facing_that_makes_hasty_fire_says_why_in_the_dialog(rifle: dict[str, Any]) -> None:
    # The shooter turned away: 95 % becomes 23 % with the dialog's Hasty fire box unchecked.
    rifle["range"] = {"value": 6, "units": "in"}
    rifle["options"].update(rounds=1, bearing_deg=120)
    out = firefight.odds(rifle)
    assert out["chance"] == 95 // 4 == 23
    row = out["modifiers"][-1]
    assert row["key"] == M + "hasty_fire_arc"
    assert row["params"]["bearing"] == "120"
    assert row["params"]["half"] == 45
    assert "firing arc is 90 degrees" in row["source"]
    assert "(Hasty fire)" in row["source"]
    assert [n["key"] for n in out["notes"]] == ["FIREFIGHT.percentile.note.outside_arc"]
    # Ticked by hand, the plain row; inside the arc, none.
    rifle["options"].update(hasty_fire=True)
    assert firefight.odds(rifle)["modifiers"][-1]["key"] == M + "hasty_fire"
    rifle["options"].update(hasty_fire=False, bearing_deg=30)
    assert firefight.odds(rifle)["chance"] == 95
    assert not firefight.odds(rifle)["notes"]


def test_the_card_shows_the_facing_row_in_both_languages(rifle: dict[str, Any]) -> None:
    rifle["options"]["bearing_deg"] = -135
    result = firefight.resolve(rifle, seed=2)
    for lang, why in (("en", "-135° off the facing"), ("de", "-135° neben der Blickrichtung")):
        text = firefight.render_card(result, fmt="text", lang=lang)
        row = next(line for line in text.splitlines() if "× 1/4" in line)
        assert why in row, row
        assert "−54" in row, row
        assert "FIREFIGHT." not in text, text


# --- sighting in: the table stops where the request does -------------------------------------

def test_the_sighting_cap_is_declared_from_the_requests_own_bound(rifle: dict[str, Any]) -> None:
    cat = registry.get("percentile").catalog()
    sighting = cat["features"]["sighting"]
    assert sighting["field"] == "sighting_turns"
    assert sighting["action"] == "sight_in"
    bound = cat["options"]["attack"]["properties"]["sighting_turns"]["maximum"]
    assert sighting["max"] == bound == models.SIGHTING_TURNS_MAX
    rifle["options"]["sighting_turns"] = sighting["max"]
    assert "error" not in firefight.odds(rifle)
    rifle["options"]["sighting_turns"] = sighting["max"] + 1
    error = firefight.odds(rifle)["error"]
    assert any(f["field"] == "options.sighting_turns" for f in error["fields"])
