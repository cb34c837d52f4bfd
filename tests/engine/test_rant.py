"""The opposed roll + RANT and its exact distribution (soe sections 2.1.2 and 4)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from firefight.dice import Roller, ScriptedDice, SeededDice
from firefight.rant import (
    DIFFERENCE_VARIANCE,
    OpposedRoll,
    difference_at_least,
    difference_pmf,
    modifier_for_probability,
    opposed_roll,
    over_roll_at_least,
    success_probability,
)


def roll(faces: list[int], acting: int, opposing: int, ties: bool = True) -> OpposedRoll:
    return opposed_roll(Roller(ScriptedDice(faces)), acting_modifier=acting,
                        opposing_modifier=opposing, ties_to_acting=ties, purpose="test")


# --- worked examples, fed the text's own dice -------------------------------------------

def test_haggling_example() -> None:
    # soe 2.1.2: Buyer +10 skill rolls 10 = 20; Seller +5 rolls 1 = 6. "Buyer Succeeds +14".
    r = roll([10, 1], acting=10, opposing=5)
    assert (r.acting_total, r.opposing_total, r.over_roll, r.success) == (20, 6, 14, True)


def test_listening_example() -> None:
    # soe 2.1.2: skill 12 rolls 3 = 15; environment +5 rolls 20, rolls again 19 = 44. Fails -29.
    r = roll([3, 20, 19], acting=12, opposing=5)
    assert r.opposing_die.results == (20, 19)
    assert (r.acting_total, r.opposing_total, r.over_roll, r.success) == (15, 44, -29, False)


def test_lock_picking_example() -> None:
    # soe 4: 7 + 13 skill + 2 native = 22 vs 11 + 10 difficult lock = 21. Over-roll +1.
    r = roll([7, 11], acting=13 + 2, opposing=10)
    assert (r.acting_total, r.opposing_total, r.over_roll, r.success) == (22, 21, 1, True)


def test_climbing_example() -> None:
    # soe 4: 15 + 16 + 2 = 33 vs 20 + 5 (RANT) + 20 demanding = 45. Over-roll -12.
    r = roll([15, 20, 5], acting=16 + 2, opposing=20)
    assert (r.acting_total, r.opposing_total, r.over_roll, r.success) == (33, 45, -12, False)


def test_ties_go_to_the_players_side() -> None:
    assert roll([10, 10], 0, 0, ties=True).success
    assert not roll([10, 10], 0, 0, ties=False).success
    assert roll([10, 10], 0, 0).over_roll == 0


def test_twenties_explode_again_and_again() -> None:
    r = roll([20, 20, 20, 3, 1], 0, 0)
    assert r.acting_die.results == (20, 20, 20, 3)
    assert r.acting_die.total == 63
    assert r.acting_die.formula == "1d20x20"


# --- exact probabilities ------------------------------------------------------------------

def test_distribution_sums_to_one() -> None:
    total = sum((difference_pmf(d) for d in range(-300, 301)), Fraction(0))
    assert 0 <= 1 - total < Fraction(1, 10**18)  # the mass beyond 300 is about 1e-21


def test_distribution_is_symmetric() -> None:
    for d in range(-60, 61):
        assert difference_pmf(d) == difference_pmf(-d)


def test_tail_matches_pmf_sums() -> None:
    for t in (-45, -40, -21, -20, -19, -18, -2, 0, 1, 18, 19, 20, 21, 38, 39, 40, 57):
        # The direct sum stops 400 short of infinity: it may fall short by about 20**-18.
        direct = sum((difference_pmf(d) for d in range(t, t + 400)), Fraction(0))
        assert 0 <= difference_at_least(t) - direct < Fraction(1, 10**22)


def test_even_roll_exact_values() -> None:
    # P(tie) = P(D = 0) = 19/21 x 19/361 = 1/21: so a PC at +0 wins 11/21.
    assert difference_pmf(0) == Fraction(1, 21)
    assert success_probability(0) == Fraction(11, 21)
    assert success_probability(0, ties_to_acting=False) == Fraction(10, 21)


def test_success_is_monotone_and_complementary() -> None:
    for m in range(-50, 51):
        assert success_probability(m) < success_probability(m + 1)
        # Winning with ties at +m and losing-with-ties at -m are complementary events.
        assert success_probability(m) + success_probability(-m, ties_to_acting=False) == 1


def test_over_roll_threshold_matches_success() -> None:
    for m in range(-20, 21):
        assert over_roll_at_least(1, m) == success_probability(m, ties_to_acting=False)


def test_exact_variance() -> None:
    # Var(D) = 2 (400 x 20/361 + 30) = 37660/361; sd 10.21, not the fitted 8.15 of section 4.
    assert Fraction(37660, 361) == DIFFERENCE_VARIANCE
    second_moment = sum((d * d * difference_pmf(d) for d in range(-400, 401)), Fraction(0))
    assert abs(second_moment - DIFFERENCE_VARIANCE) < Fraction(1, 10**20)


@pytest.mark.parametrize("p", [0.05, 0.25, 0.5, 0.7, 0.95])
def test_modifier_for_probability_is_the_nearest(p: float) -> None:
    m, q = modifier_for_probability(p)
    assert q == success_probability(m)
    for other in (m - 1, m + 1):
        assert abs(float(success_probability(other)) - p) >= abs(float(q) - p)


def test_modifier_for_probability_rejects_certainty() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        modifier_for_probability(1.0)


def test_sampling_agrees_with_exact() -> None:
    # Cross-check only: a seeded simulation lands within 4 standard errors of the exact value.
    rng = random.Random(20261121)

    def rant() -> int:
        total = face = rng.randint(1, 20)
        while face == 20:
            face = rng.randint(1, 20)
            total += face
        return total

    n = 40_000
    for m in (-12, -5, 0, 7):
        hits = sum(1 for _ in range(n) if rant() + m >= rant())
        p = float(success_probability(m))
        assert abs(hits / n - p) < 4 * (p * (1 - p) / n) ** 0.5


def test_seeded_rolls_repeat() -> None:
    a = [SeededDice(7).face(20) for _ in range(3)]
    b = [SeededDice(7).face(20) for _ in range(3)]
    assert a == b
