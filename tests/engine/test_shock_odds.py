"""SHOCK: the whole outcome before the roll (issue 15): every modifier known before the dice
(to hit and severity) with its source, and the exact chances of miss / no effect / stun / wound
/ shock / death over to-hit x location x severity, against hand counts from the printed tables,
every face resolved, and a sampling run (in the test, never in the engine)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _examples import example
from test_shock import attack

import firefight
from firefight.rulesets.shock import damage

OUT = "FIREFIGHT.shock.odds."
LANG = Path(damage.__file__).parent / "lang"


def outcomes(request: dict[str, Any]) -> dict[str, Fraction]:
    out = firefight.odds(request)
    assert "error" not in out, out
    got = {o["key"].removeprefix(OUT): Fraction(o["exact"]) for o in out["outcomes"]}
    assert list(got) == list(damage.SHOWN_OUTCOMES)
    assert sum(got.values()) == 1
    for o in out["outcomes"]:
        assert o["probability"] == pytest.approx(float(Fraction(o["exact"])))
    return got


def hundredths(**counts: int) -> dict[str, Fraction]:
    out = dict.fromkeys(damage.SHOWN_OUTCOMES, Fraction(0))
    out.update({k: Fraction(v, 100) for k, v in counts.items()})
    return out


def classify(result: dict[str, Any]) -> str:
    out = result["outcome"]
    if not out["hit"]:
        return "miss"
    if out["stopped"] or out["result"] == "none":
        return "no_effect"
    return str(out["result"])


def test_every_outcome_has_a_label_in_english_and_german() -> None:
    for lang in ("en", "de"):
        labels = json.loads((LANG / f"{lang}.json").read_text(encoding="utf-8"))
        shown = labels["FIREFIGHT"]["shock"]["odds"]
        assert all(shown[k].strip() for k in damage.SHOWN_OUTCOMES), lang


# Hand counts from the printed tables (Hit Location weights head 2, neck 1, arm 2, upper torso
# 2, lower torso 1, leg 2; Location Severity filled down): a class IV round (+1) reads rows
# 2..10, 10. Stun: arm rows 2-5 (4 x 2). Wound: head 1x2, neck 4, arm 4x2, upper 2x2, lower 5,
# leg 7x2 = 37. Shock: head 1x2, neck 3, arm 2x2, upper 8x2, lower 5, leg 3x2 = 36. Death:
# head 8x2, neck 3 = 19.
RIFLE_GIVEN_HIT = {"stun": 8, "wound": 37, "shock": 36, "death": 19}


def test_a_confirmed_rifle_hit_by_hand_from_the_printed_tables() -> None:
    assert outcomes(attack()) == hundredths(**RIFLE_GIVEN_HIT)


def test_the_texts_dshk_class_vi_upgrades_every_result() -> None:
    # "hit someone in the upper torso with a DShK ... rolled a 4 ... that SHOCK result becomes
    # a DEATH result": class VI reads rows 1..10 unmodified, one tier up. By hand: wound = every
    # STUN cell (head 1x2, neck 1, arm 5x2, upper 1x2, lower 1, leg 1x2) = 18; death = every
    # SHOCK or DEATH cell = 45; shock = every WOUND cell = 37.
    assert outcomes(example("shock_dshk.json")) == hundredths(wound=18, shock=37, death=45)


def test_the_house_to_hit_roll_scales_every_hit_outcome() -> None:
    # Prowess 5 at 30 m (short, +0): 1d10 <= 5 hits, 1/2.
    got = outcomes(attack(options={}))
    assert got["miss"] == Fraction(1, 2)
    assert {k: 2 * got[k] for k in RIFLE_GIVEN_HIT} == {
        k: Fraction(v, 100) for k, v in RIFLE_GIVEN_HIT.items()}


def test_cover_is_no_effect_and_wounds_can_add_up_to_shock() -> None:
    # Chest-high cover that stops class IV protects upper torso, lower torso and legs (5 of 10).
    covered = outcomes(attack(options={"referee_confirmed_hit": True, "cover": "chest_high"}))
    assert covered == hundredths(no_effect=50, stun=8, wound=14, shock=9, death=19)
    # Eight wounds already: a class IV WOUND (+4) reaches ten, shock at once.
    bleeding = outcomes(attack(target__stats__wounds=8))
    assert bleeding == hundredths(stun=8, shock=36 + 37, death=19)
    # In shock, any hit that gets through kills.
    assert outcomes(attack(target__stats__state="shock")) == hundredths(death=100)


def test_every_face_resolved_gives_the_same_counts() -> None:
    request = attack(options={"referee_confirmed_hit": True, "cover": "low"})
    counts = dict.fromkeys(damage.SHOWN_OUTCOMES, 0)
    for location in range(1, 11):
        for severity in range(1, 11):
            result = firefight.resolve(request, dice=[location, severity])
            counts[classify(result)] += 1
    assert outcomes(request) == {k: Fraction(n, 100) for k, n in counts.items()}


def test_sampling_agrees_with_the_exact_outcomes() -> None:
    """A cross-check only: the engine never samples its odds."""
    request = attack(options={"cover": "low", "aimed": True})
    exact = outcomes(request)
    n = 1500
    seen = dict.fromkeys(damage.SHOWN_OUTCOMES, 0)
    for seed in range(n):
        seen[classify(firefight.resolve(request, seed=seed))] += 1
    for key, p in exact.items():
        sigma = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(seen[key] / n - float(p)) <= 5 * sigma + 1e-9, (key, seen, exact)


def test_odds_list_the_severity_modifier_with_its_source() -> None:
    # Known before the roll: the to-hit rows and the damage class Mod on the severity roll.
    out = firefight.odds(attack(options={"aimed": True}))
    by_step = {(m["step"], m["key"].rsplit(".", 1)[1]): (m["value"], m["source"])
               for m in out["modifiers"]}
    assert by_step[("severity", "damage_class")] == (1, 'shock Damage Class, "IV"')
    assert by_step[("to_hit", "aimed")][0] == 1
    # A referee's hit has no to-hit rows, but the severity row is still known.
    referee = firefight.odds(attack())
    assert [(m["step"], m["value"]) for m in referee["modifiers"]] == [("severity", 1)]
