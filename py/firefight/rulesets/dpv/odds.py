"""The whole outcome before the roll (issue 15): the exact chance of each outcome of a dpv
action, mutually exclusive, in display order, summing to 1.

Outcomes name their label ``FIREFIGHT.dpv.odds.<name>``. A hit's outcome is the gravest wound
level of the WOUNDING table it (or, with several hits, any of them) does: no effect, knocked
down, light wound, stun, shock, kill (``wounds.Wound.tier``).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from firefight.models import Modifier
from firefight.record import dump_recorded
from firefight.rulesets.dpv.models import P

PREFIX = f"{P}.odds"
# Mildest first: the display order, and the order "gravest of several hits" is taken in.
TIERS = ("none", "knocked_down", "light_wound", "stun", "shock", "kill")


def entry(name: str, p: Fraction) -> dict[str, Any]:
    return {"key": f"{PREFIX}.{name}", "probability": float(p),
            "exact": f"{p.numerator}/{p.denominator}"}


def listing(pairs: Iterable[tuple[str, Fraction]]) -> list[dict[str, Any]]:
    """Outcomes in the given order, those that cannot happen left out; they must sum to 1."""
    out = [(name, p) for name, p in pairs if p]
    total = sum((p for _, p in out), Fraction(0))
    if total != 1:  # a bug in a ruleset's odds, never the player's input
        raise ArithmeticError(f"dpv outcomes sum to {total}, not 1: {out}")
    return [entry(name, p) for name, p in out]


def tiers_only(per_hit: dict[str, Fraction]) -> dict[str, Fraction]:
    """A hit's wound levels (``wounds.hit_distribution`` also counts potentials)."""
    return {t: per_hit.get(t, Fraction(0)) for t in TIERS}


def gravest(per_hit: dict[str, Fraction], hits: int, order: tuple[str, ...] = TIERS
            ) -> dict[str, Fraction]:
    """The gravest result (wound level, or ``order``'s) of ``hits`` independent hits."""
    out: dict[str, Fraction] = {}
    below, cdf = Fraction(0), Fraction(0)
    for tier in order:
        cdf += per_hit.get(tier, Fraction(0))
        at_most = cdf ** hits
        out[tier] = at_most - below
        below = at_most
    return out


# VEHICLE DAMAGE results, mildest first (the gravest of several hits is shown).
VEHICLE = ("no_penetration", "no_effect", "crew", "two_crew", "armament", "mobility",
           "catastrophic")


def shots(p_hit: Fraction, per_hit: dict[str, Fraction], n: int,
          order: tuple[str, ...] = TIERS, prefix: str = "") -> list[dict[str, Any]]:
    """Miss, or the gravest result (in ``order``) of ``n`` shots each hitting with ``p_hit``."""
    out: dict[str, Fraction] = {}
    below = (1 - p_hit) ** n
    cdf = 1 - p_hit
    for name in order:
        cdf += p_hit * per_hit.get(name, Fraction(0))
        at_most = cdf ** n
        out[name] = at_most - below
        below = at_most
    return listing([("miss", (1 - p_hit) ** n), *((prefix + t, out[t]) for t in order)])


def count_cdf(per_hit: dict[str, Fraction], counts: dict[int, Fraction],
              order: tuple[str, ...]) -> list[Fraction]:
    """The chance that the gravest result of a random number of independent hits (``counts``:
    how many -> its chance) is at most each of ``order``'s (its first: no hit at all)."""
    out, cdf = [], Fraction(0)
    for name in order:
        cdf += per_hit.get(name, Fraction(0))
        out.append(sum((p * cdf ** n for n, p in counts.items()), Fraction(0)))
    return out


def from_cdf(cdf: list[Fraction], order: tuple[str, ...]) -> dict[str, Fraction]:
    """The chance of each of ``order``'s results from the chances of at most each."""
    return {name: c - (cdf[i - 1] if i else 0) for i, (name, c) in enumerate(zip(order, cdf,
                                                                                 strict=True))}


def mixture(parts: Iterable[tuple[Fraction, dict[str, Fraction]]]) -> dict[str, Fraction]:
    """Outcome chances weighted by the chance of each case."""
    out: dict[str, Fraction] = {}
    for weight, dist in parts:
        for name, p in dist.items():
            out[name] = out.get(name, Fraction(0)) + weight * p
    return out


def dumped(mods: list[Modifier]) -> list[dict[str, Any]]:
    return dump_recorded(mods)
