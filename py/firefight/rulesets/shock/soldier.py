"""shock The Soldier: the TAP stats (Toughness, Awareness, Prowess) and Troop Quality."""

from __future__ import annotations

from firefight.rulesets.shock.data import tables
from firefight.rulesets.shock.models import ShockStats


def generic_rating(quality: str) -> int:
    """shock Troop Quality: a generic is 5 + MOD in each of T, A and P (Regular 5-5-5,
    Untrained 2-2-2, Rainbow 9-9-9)."""
    t = tables()
    return t.generic_base + t.quality[quality].mod


def tap(stats: ShockStats) -> tuple[int, int, int]:
    """Toughness, Awareness, Prowess; a stat left out is the generic rating for the quality."""
    generic = generic_rating(stats.quality)
    return (stats.toughness or generic, stats.awareness or generic, stats.prowess or generic)


def chits(quality: str) -> tuple[int, ...]:
    """shock Troop Quality, P1-P4: chits in the cup in each phase of the turn (x 1, xx 2)."""
    return tables().quality[quality].chits


def skill_level(quality: str) -> int:
    """shock Unit Activation: "Max pool is equivalent to unit skill level". A unit's skill level
    is its rank on the Troop Quality table, 1 (Untrained) to 8 (Rainbow), which is also the
    number of chits the table gives it in a turn (checked when the table loads)."""
    return list(tables().quality).index(quality) + 1
