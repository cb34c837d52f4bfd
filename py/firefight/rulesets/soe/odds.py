"""The whole outcome of a shot before the roll (issue 15): the exact chance of a miss, of a hit
that does not injure, and of each Table 3 outcome for the target's injury mode.

A shot is two opposed rolls + RANT (soe 2.3, 2.4): the to-hit over-roll ``h = D1 + hit`` and the
to-damage over-roll ``base = D2 + dmg``, D1 and D2 independent differences of two RANT dice
(``firefight.rant``). A hit (``h > 0``, or ``h = 0`` when ties go the shooter's way) picks the
Table 4 multiplier ``x`` by its band of ``h``; the damage is ``max(0, base) * x``. So every
outcome is a finite sum over bands of ``h`` and ranges of ``base`` of exact band probabilities
(``difference_at_least`` is closed-form in its tails): no sampling, no truncation.
"""

from __future__ import annotations

import math
from fractions import Fraction

from firefight.rant import difference_at_least
from firefight.rulesets.soe.data import tables

P = "FIREFIGHT.soe"
MISS, UNHURT = f"{P}.odds.miss", f"{P}.odds.unhurt"
HP_STATES = ("wounded", "dying", "dead")  # soe Table 3, Hit Point Reduction


def over_roll_between(lo: int | None, hi: int | None, modifier: int) -> Fraction:
    """P(lo <= D + modifier <= hi); ``None`` is unbounded."""
    if lo is not None and hi is not None and lo > hi:
        return Fraction(0)
    upper = difference_at_least(lo - modifier) if lo is not None else Fraction(1)
    below = difference_at_least(hi + 1 - modifier) if hi is not None else Fraction(0)
    return upper - below


def hit_multipliers(hit_modifier: int, ties: bool, projectiles: int) -> dict[int, Fraction]:
    """P(hit and damage multiplier x) for each x (soe Table 4; one projectile: x1)."""
    least = 0 if ties else 1
    if projectiles <= 1:
        return {1: over_roll_between(least, None, hit_modifier)}
    t = tables()
    column = t.multiplier_columns.lookup(projectiles)
    out: dict[int, Fraction] = {}
    for band in t.multiplier_rows.bands:
        lo = least if band.lo is None else max(band.lo, least)
        p = over_roll_between(lo, band.hi, hit_modifier)
        if p:
            out[band.value[column]] = out.get(band.value[column], Fraction(0)) + p
    return out


def _bases(loss_lo: int | None, loss_hi: int | None, x: int) -> tuple[int | None, int | None]:
    """The base over-rolls k >= 1 whose damage k * x lies in loss_lo..loss_hi."""
    lo = 1 if loss_lo is None else max(1, math.ceil(loss_lo / x))
    hi = None if loss_hi is None else loss_hi // x
    return lo, hi


def trauma_outcomes(mults: dict[int, Fraction], dmg: int) -> list[tuple[str, Fraction]]:
    """General Trauma mode: hit without injury, then each class of Table 3's injury column."""
    unhurt = Fraction(0)
    classes: dict[str, Fraction] = {}
    for x, p_x in mults.items():
        for band in tables().injury.bands:
            p = over_roll_between(*_bases(band.lo, band.hi, x), dmg)
            if band.contains(0):  # damage 0: every to-damage over-roll of 0 or less
                p += over_roll_between(None, 0, dmg)
            if band.value == "none":
                unhurt += p_x * p
            else:
                classes[band.value] = classes.get(band.value, Fraction(0)) + p_x * p
    return [(UNHURT, unhurt)] + [(f"{P}.odds.trauma.{c}", p) for c, p in classes.items()]


def hit_point_outcomes(mults: dict[int, Fraction], dmg: int, hp: int
                       ) -> list[tuple[str, Fraction]]:
    """Hit Point mode: no injury (damage 0), wounded (above 0 HP after), down at 0 (dies next
    turn), below 0 (dies at once)."""
    out = dict.fromkeys(("unhurt", *HP_STATES), Fraction(0))
    for x, p_x in mults.items():
        out["unhurt"] += p_x * over_roll_between(None, 0, dmg)
        out["wounded"] += p_x * over_roll_between(1, (hp - 1) // x, dmg)
        if hp > 0 and hp % x == 0:
            out["dying"] += p_x * over_roll_between(hp // x, hp // x, dmg)
        out["dead"] += p_x * over_roll_between(max(1, hp // x + 1), None, dmg)
    return [(UNHURT if k == "unhurt" else f"{P}.odds.{k}", p) for k, p in out.items()]


def shot_outcomes(hit_modifier: int, damage_modifier: int, *, ties: bool, projectiles: int,
                  mode: str, hp: int) -> list[tuple[str, Fraction]]:
    """Every outcome of a shot, mutually exclusive, in display order, summing to 1."""
    mults = hit_multipliers(hit_modifier, ties, projectiles)
    miss = 1 - sum(mults.values(), Fraction(0))
    rest = (hit_point_outcomes(mults, damage_modifier, hp) if mode == "hit_points"
            else trauma_outcomes(mults, damage_modifier))
    return [(MISS, miss), *rest]
