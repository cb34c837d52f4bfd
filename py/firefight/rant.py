"""The opposed roll + RANT (soe section 2.1.2 and section 4), and its exact probabilities.

Each side rolls 1d20; a natural 20 is rolled again and added, again on each further 20.
Modifiers are added, the higher total succeeds, ties go to the player's side, and the over-roll
is the acting side's total minus the other's.

Exact distribution. One RANT die is X = 20K + R with K the number of 20s before the first
non-20 (P(K = k) = (19/20)(1/20)^k) and R uniform on 1..19. For two independent dice
D = X1 - X2 = 20J + S, where J = K1 - K2 has P(J = j) = (19/21)(1/20)^|j| and S = R1 - R2 is
triangular on -18..18 with P(S = s) = (19 - |s|)/361. Every probability below is a finite sum
of these terms plus a geometric tail in closed form: no sampling and no truncation.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property

from firefight.dice import DieRecord, Roller

_J_WEIGHT = Fraction(19, 21)
_TWENTIETH = Fraction(1, 20)
_S_SPAN = 18


def _p_j(j: int) -> Fraction:
    """P(J = j), J the difference of the two dice's counts of 20s."""
    return _J_WEIGHT * _TWENTIETH ** abs(j)


def _p_j_at_least(j0: int) -> Fraction:
    """P(J >= j0), the geometric tail in closed form."""
    if j0 >= 1:
        return Fraction(20, 21) * _TWENTIETH**j0
    return 1 - Fraction(20, 21) * _TWENTIETH ** (1 - j0)


def _p_s(s: int) -> Fraction:
    return Fraction(19 - abs(s), 361) if abs(s) <= _S_SPAN else Fraction(0)


@cache
def _p_s_at_least(u: int) -> Fraction:
    if u <= -_S_SPAN:
        return Fraction(1)
    if u > _S_SPAN:
        return Fraction(0)
    return sum((_p_s(s) for s in range(u, _S_SPAN + 1)), Fraction(0))


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@cache
def difference_at_least(t: int) -> Fraction:
    """Exact P(D >= t), D = one RANT d20 minus another."""
    # Terms with t - 20j <= -18 count fully (the tail); terms with t - 20j > 18 count nothing.
    j_full = _ceil_div(t + _S_SPAN, 20)
    j_none = _ceil_div(t - _S_SPAN, 20) - 1  # largest j with t - 20j > 18 ... is below this
    total = _p_j_at_least(j_full)
    for j in range(j_none, j_full):
        total += _p_j(j) * _p_s_at_least(t - 20 * j)
    return total


class Scaled:
    """Chances of D as whole numbers over one denominator ``den``, so that sums and products of
    them stay whole numbers and a Fraction is made once per outcome (issue 17: Fraction
    arithmetic was most of a shot's odds). Every P(D >= t) with |t| <= ``reach`` is a sum of
    terms over 21 * 361 * 20**k, k <= (|t| + 18) // 20 + 2 (the docstring's J and S), so it
    is a whole number over ``den``; a ``t`` beyond the reach that is not is an error."""

    def __init__(self, reach: int) -> None:
        self.den = 21 * 361 * 20 ** ((abs(reach) + _S_SPAN) // 20 + 3)

    def at_least(self, t: int) -> int:
        """P(D >= t) * den."""
        p = difference_at_least(t)
        n: int
        n, rest = divmod(p.numerator * self.den, p.denominator)
        if rest:
            raise ValueError(f"P(D >= {t}) is no whole number over {self.den}: reach too small")
        return n

    def between(self, lo: int | None, hi: int | None, modifier: int) -> int:
        """P(lo <= D + modifier <= hi) * den; ``None`` is unbounded."""
        if lo is not None and hi is not None and lo > hi:
            return 0
        upper = self.at_least(lo - modifier) if lo is not None else self.den
        return upper - (self.at_least(hi + 1 - modifier) if hi is not None else 0)


def difference_pmf(d: int) -> Fraction:
    """Exact P(D = d)."""
    total = Fraction(0)
    for j in range(_ceil_div(d - _S_SPAN, 20), (d + _S_SPAN) // 20 + 1):
        total += _p_j(j) * _p_s(d - 20 * j)
    return total


def success_probability(net_modifier: int, *, ties_to_acting: bool = True) -> Fraction:
    """Exact chance that the acting side wins an opposed RANT roll at ``net_modifier``.

    The net modifier is the acting side's modifiers minus the opposing side's.
    """
    # Acting wins when X1 + m > X2, or X1 + m == X2 and ties go its way: D >= -m (or > -m).
    return difference_at_least(-net_modifier if ties_to_acting else 1 - net_modifier)


def over_roll_at_least(k: int, net_modifier: int) -> Fraction:
    """Exact chance that the over-roll (acting total minus opposing) is at least ``k``."""
    return difference_at_least(k - net_modifier)


# Variance of one RANT die: 400 Var(K) + Var(R) = 400 (20/361) + 30 (soe section 4).
RANT_DIE_VARIANCE = Fraction(400 * 20, 361) + Fraction(19 * 19 - 1, 12)
DIFFERENCE_VARIANCE = 2 * RANT_DIE_VARIANCE


def modifier_for_probability(p: float, *, ties_to_acting: bool = True) -> tuple[int, Fraction]:
    """The integer net modifier whose exact success chance is nearest ``p``, with that chance.

    This is the inverse soe sections 4 and 7 use, computed on the exact distribution rather than
    the normal approximation (sigma 8.15) the text used.
    """
    if not 0.0 < p < 1.0:
        raise ValueError("a probability strictly between 0 and 1 is needed")
    lo, hi = -400, 400  # P(-400) < 1e-18 and P(400) > 1 - 1e-18: p lies between them
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if success_probability(mid, ties_to_acting=ties_to_acting) < p:
            lo = mid
        else:
            hi = mid

    def distance(m: int) -> tuple[float, int]:
        return abs(float(success_probability(m, ties_to_acting=ties_to_acting)) - p), abs(m)

    best = min((lo, hi), key=distance)
    return best, success_probability(best, ties_to_acting=ties_to_acting)


def wins(over_roll: int, ties_to_acting: bool) -> bool:
    """The acting side wins with the higher total, and a tie when ties go its way (soe 4)."""
    return over_roll > 0 or (over_roll == 0 and ties_to_acting)


@dataclass(frozen=True)
class OpposedRoll:
    """Both dice, both sides' modifier sums, the totals, who won and by how much."""

    acting_die: DieRecord
    opposing_die: DieRecord
    acting_modifier: int
    opposing_modifier: int
    ties_to_acting: bool

    def __post_init__(self) -> None:
        # Worked out once, into the instance dict (which wins over the cached_property
        # descriptors below; a frozen dataclass refuses only attribute assignment): a ruleset
        # reads them many times a roll, and 3.11's cached_property takes a lock on first read.
        acting = self.acting_die.total + self.acting_modifier
        opposing = self.opposing_die.total + self.opposing_modifier
        over = acting - opposing
        self.__dict__.update(acting_total=acting, opposing_total=opposing, over_roll=over,
                             success=wins(over, self.ties_to_acting))

    @cached_property
    def acting_total(self) -> int:
        return self.acting_die.total + self.acting_modifier

    @cached_property
    def opposing_total(self) -> int:
        return self.opposing_die.total + self.opposing_modifier

    @cached_property
    def over_roll(self) -> int:
        return self.acting_total - self.opposing_total

    @cached_property
    def success(self) -> bool:
        return wins(self.over_roll, self.ties_to_acting)

    def to_dict(self) -> dict[str, object]:
        return {
            "acting_roll": self.acting_die.total,
            "opposing_roll": self.opposing_die.total,
            "acting_modifier": self.acting_modifier,
            "opposing_modifier": self.opposing_modifier,
            "acting_total": self.acting_total,
            "opposing_total": self.opposing_total,
            "over_roll": self.over_roll,
            "success": self.success,
            "ties_to_acting": self.ties_to_acting,
        }


def opposed_roll(
    roller: Roller,
    *,
    acting_modifier: int,
    opposing_modifier: int = 0,
    ties_to_acting: bool,
    purpose: str,
    acting_side: str = "attacker",
    opposing_side: str = "target",
    purpose_key: str | None = None,
) -> OpposedRoll:
    """Roll an opposed RANT roll: the acting side's die first, then the opposing side's.

    ``purpose_key`` names the roll in the lang files; each die's label is then
    ``FIREFIGHT.card.die_purpose`` ("{roll}, {side}") with the side's own key.
    """

    def label(side: str) -> dict[str, str]:
        return {"roll_key": purpose_key or "", "side_key": f"FIREFIGHT.side.{side}"}

    key = "FIREFIGHT.card.die_purpose" if purpose_key else None
    acting = roller.roll_exploding(20, purpose=f"{purpose}, {acting_side}", side=acting_side,
                                   purpose_key=key, purpose_params=label(acting_side))
    opposing = roller.roll_exploding(20, purpose=f"{purpose}, {opposing_side}",
                                     side=opposing_side, purpose_key=key,
                                     purpose_params=label(opposing_side))
    return OpposedRoll(acting, opposing, acting_modifier, opposing_modifier, ties_to_acting)
