"""The whole outcome of a shot before the roll (issue 15): the exact chance of a miss, of a hit
that does not injure, and of each Table 3 outcome for the target's injury mode.

A shot is two opposed rolls + RANT (soe 2.3, 2.4): the to-hit over-roll ``h = D1 + hit`` and the
to-damage over-roll ``base = D2 + dmg``, D1 and D2 independent differences of two RANT dice
(``firefight.rant``). A hit (``h > 0``, or ``h = 0`` when ties go the shooter's way) picks the
Table 4 multiplier ``x`` by its band of ``h``; the damage is ``max(0, base) * x``. So every
outcome is a finite sum over bands of ``h`` and ranges of ``base`` of exact band probabilities
(``difference_at_least`` is closed-form in its tails): no sampling, no truncation. The sums are
of whole numbers over one denominator (``rant.Scaled``), one Fraction made per outcome.
"""

from __future__ import annotations

import math
from fractions import Fraction

from firefight.rant import Scaled, difference_at_least
from firefight.rulesets.soe.data import tables

P = "FIREFIGHT.soe"
MISS, UNHURT = f"{P}.odds.miss", f"{P}.odds.unhurt"
HP_STATES = ("wounded", "dying", "dead")  # soe Table 3, Hit Point Reduction


def _reach(bands: list[tuple[int | None, int | None]], *modifiers: int) -> int:
    """How far from 0 the over-rolls ``Scaled`` reads may lie: the bands' bounds shifted by the
    modifiers (``Scaled`` checks every one it reads)."""
    bounds = [abs(b) for pair in bands for b in pair if b is not None]
    return max(bounds, default=0) + sum(abs(m) for m in modifiers) + 2


def _over(weights: dict[int, Fraction]) -> tuple[int, dict[int, int]]:
    """Chances as whole numbers over their least common denominator: (den, numerators)."""
    den = math.lcm(*(p.denominator for p in weights.values())) if weights else 1
    return den, {x: p.numerator * (den // p.denominator) for x, p in weights.items()}


def hit_multipliers(hit_modifier: int, ties: bool, projectiles: int) -> dict[int, Fraction]:
    """P(hit and damage multiplier x) for each x (soe Table 4; one projectile: x1)."""
    least = 0 if ties else 1
    if projectiles <= 1:
        return {1: difference_at_least(least - hit_modifier)}
    t = tables()
    column = t.multiplier_columns.lookup(projectiles)
    rows = t.multiplier_rows.bands
    scaled = Scaled(_reach([(b.lo, b.hi) for b in rows], least, hit_modifier))
    out: dict[int, int] = {}
    for band in rows:
        lo = least if band.lo is None else max(band.lo, least)
        p = scaled.between(lo, band.hi, hit_modifier)
        if p:
            out[band.value[column]] = out.get(band.value[column], 0) + p
    return {x: Fraction(n, scaled.den) for x, n in out.items()}


def _bases(loss_lo: int | None, loss_hi: int | None, x: int) -> tuple[int | None, int | None]:
    """The base over-rolls k >= 1 whose damage k * x lies in loss_lo..loss_hi."""
    lo = 1 if loss_lo is None else max(1, math.ceil(loss_lo / x))
    hi = None if loss_hi is None else loss_hi // x
    return lo, hi


def trauma_outcomes(mults: dict[int, Fraction], dmg: int) -> list[tuple[str, Fraction]]:
    """General Trauma mode: hit without injury, then each class of Table 3's injury column."""
    hit_den, weights = _over(mults)
    bands = tables().injury.bands
    scaled = Scaled(_reach([(b.lo, b.hi) for b in bands], dmg))
    unhurt = 0
    classes: dict[str, int] = {}
    for x, w in weights.items():
        for band in bands:
            p = scaled.between(*_bases(band.lo, band.hi, x), dmg)
            if band.contains(0):  # damage 0: every to-damage over-roll of 0 or less
                p += scaled.between(None, 0, dmg)
            if band.value == "none":
                unhurt += w * p
            else:
                classes[band.value] = classes.get(band.value, 0) + w * p
    den = hit_den * scaled.den
    return [(UNHURT, Fraction(unhurt, den))] + [
        (f"{P}.odds.trauma.{c}", Fraction(n, den)) for c, n in classes.items()]


def hit_point_outcomes(mults: dict[int, Fraction], dmg: int, hp: int
                       ) -> list[tuple[str, Fraction]]:
    """Hit Point mode: no injury (damage 0), wounded (above 0 HP after), down at 0 (dies next
    turn), below 0 (dies at once)."""
    hit_den, weights = _over(mults)
    scaled = Scaled(_reach([(hp, 0)], dmg))
    between = scaled.between
    out = dict.fromkeys(("unhurt", *HP_STATES), 0)
    for x, w in weights.items():
        out["unhurt"] += w * between(None, 0, dmg)
        out["wounded"] += w * between(1, (hp - 1) // x, dmg)
        if hp > 0 and hp % x == 0:
            out["dying"] += w * between(hp // x, hp // x, dmg)
        out["dead"] += w * between(max(1, hp // x + 1), None, dmg)
    den = hit_den * scaled.den
    return [(UNHURT if k == "unhurt" else f"{P}.odds.{k}", Fraction(n, den))
            for k, n in out.items()]


def shot_outcomes(hit_modifier: int, damage_modifier: int, *, ties: bool, projectiles: int,
                  mode: str, hp: int) -> list[tuple[str, Fraction]]:
    """Every outcome of a shot, mutually exclusive, in display order, summing to 1."""
    mults = hit_multipliers(hit_modifier, ties, projectiles)
    miss = 1 - sum(mults.values(), Fraction(0))
    rest = (hit_point_outcomes(mults, damage_modifier, hp) if mode == "hit_points"
            else trauma_outcomes(mults, damage_modifier))
    return [(MISS, miss), *rest]
