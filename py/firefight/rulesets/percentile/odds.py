"""Exact odds of a percentile shot, before any die: of a hit per roll, of any hit, of an outright
kill, and of death by the kill rule or by wounds adding up (integer counts over 100**rolls)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from firefight.record import Recorder, dump_recorded
from firefight.rulesets.percentile.data import tables
from firefight.rulesets.percentile.models import P, PercentileAttackRequest
from firefight.rulesets.percentile.small_arms import plan_shot, roll_result


def _exact(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


@dataclass(frozen=True)
class RollOutcomes:
    """Of the 100 equally likely D100 results: misses, kills, and wounds by damage."""

    miss: int
    kill: int
    wounds: dict[int, int]


def roll_outcomes(chance: int, kill_threshold: int, rounds: int, multiplier: int
                  ) -> RollOutcomes:
    """``roll_result`` of the 100 D100 results, counted by ranges (issue 17: one call a roll
    was a third of the odds): rolls above the chance miss, those up to the kill number kill,
    and the rest wound by their Casualty Table row, the same for every roll of a row (each row
    is read once, at its first wounding roll)."""
    hits = max(0, min(chance, 100))
    kill = max(0, min(kill_threshold, hits))
    wounds: dict[int, int] = {}
    for row in tables().casualty_rows.bands:
        lo = max(kill + 1, 1 if row.lo is None else row.lo)
        hi = hits if row.hi is None else min(row.hi, hits)
        if lo <= hi:
            r = roll_result(lo, chance, kill_threshold, rounds, multiplier)
            wounds[r.damage] = wounds.get(r.damage, 0) + hi - lo + 1
    return RollOutcomes(100 - hits, kill, wounds)


@dataclass(frozen=True)
class FireOdds:
    hit: Fraction
    any_hit: Fraction
    kill_rule: Fraction
    death: Fraction
    # The whole shot's outcomes, mutually exclusive, as whole counts over ``total`` (issue 15):
    # no roll hits; hit and alive; killed outright by the kill rule (at least one roll); dead
    # of wounds adding up to his life force (no roll killed outright).
    total: int = 1
    counts: tuple[tuple[str, int], ...] = ()


# The outcomes of a shot, in display order (lang keys ``FIREFIGHT.percentile.odds.<name>``).
OUTCOMES = ("miss", "hit", "kill", "death")


def _alive_counts(wounds: dict[int, int], life_force: int, rolls: int) -> list[int]:
    """``counts[j]``: ordered sequences of ``j`` wounding D100 results whose damage adds up to
    less than ``life_force`` (the man is still alive after them), for j = 0, 1, ...

    The distribution of damage so far is a polynomial in x (coefficient of x**d: ways to have
    taken d); one more wound multiplies it by W(x) = sum n_d x**d. The polynomial is packed into
    one integer, ``width`` bits a coefficient (Kronecker substitution), so each step is a single
    integer product; coefficients at or above ``life_force`` are cut off, and the smallest
    wound is shifted out each step (the j-th polynomial starts at j * smallest). Exact: every
    coefficient is a whole count below 2**width, and the sum of a packed polynomial's
    coefficients is its value modulo 2**width - 1.
    """
    live = {d: n for d, n in wounds.items() if d < life_force and n}
    if not live:
        return [1]
    low = min(live)
    most = rolls if low <= 0 else min(rolls, (life_force - 1) // low)
    # A bound on any count: all j-wound sequences (hit**j), or the sequences of at least `low`
    # each adding up to less than life_force (stars and bars) times the most ways to roll one.
    hit, top, bound = sum(live.values()), max(live.values()), 1
    for j in range(1, most + 1):
        extra = life_force - 1 - j * low
        bound = max(bound, min(hit**j, math.comb(extra + j, j) * top**j))
    width = bound.bit_length() + 1
    step = 0
    for d, n in live.items():
        step |= n << ((d - low) * width)
    fold = (1 << width) - 1
    counts, poly = [1], 1
    for j in range(1, most + 1):
        room = life_force - j * low  # coefficients still below life_force, from j * low up
        poly = (poly * step) & ((1 << (room * width)) - 1)
        if not poly:
            break
        counts.append(poly % fold)
    return counts


def fire_odds(outcomes: RollOutcomes, rolls: int, life_force: int) -> FireOdds:
    """Exact chances over ``rolls`` independent D100s (integer counts over 100**rolls).

    ``death``: the target ends at 0 % life force, by the kill rule or by wounds adding up. He
    lives through exactly the sequences of misses and j wounds that add up to less than his
    life force: C(rolls, j) places for the wounds, misses elsewhere.
    """
    total = 100**rolls
    all_miss = outcomes.miss**rolls
    no_kill = (100 - outcomes.kill) ** rolls  # no roll kills outright
    if life_force <= 0:
        # Already dead: nothing keeps him alive; a hit that does not kill outright is "death".
        alive = 0
        wounded_alive = 0
        of_wounds = no_kill - all_miss
    else:
        alive = sum(math.comb(rolls, j) * outcomes.miss ** (rolls - j) * n
                    for j, n in enumerate(_alive_counts(outcomes.wounds, life_force, rolls)))
        wounded_alive = alive - all_miss
        of_wounds = no_kill - alive
    dead = total - alive
    counts = (("miss", all_miss), ("hit", wounded_alive), ("kill", total - no_kill),
              ("death", of_wounds))
    return FireOdds(
        hit=Fraction(100 - outcomes.miss, 100),
        any_hit=1 - Fraction(outcomes.miss, 100) ** rolls,
        kill_rule=1 - Fraction(100 - outcomes.kill, 100) ** rolls,
        death=Fraction(dead, total),
        total=total, counts=counts,
    )


def attack_odds(request: PercentileAttackRequest) -> dict[str, Any]:
    """The Shoot dialog's odds; its chance built by the same recorded rows as the roll's."""
    rec = Recorder.for_odds("percentile", request)  # the plan shared with the resolve
    shot = rec.once("plan_shot", lambda r: plan_shot(request, r))
    plan = shot.plan
    figures = _fire_figures(shot.chance, shot.kill_at, plan.rounds_per_roll, shot.multiplier,
                            plan.rolls, request.target.stats.life_force)
    return {
        "probability": figures["probability"],
        "exact": figures["exact"],
        "chance": shot.chance,
        "net_modifier": shot.chance - shot.bp - plan.rounds_per_roll,
        "rolls": plan.rolls,
        "rounds_fired": plan.rounds_fired,
        "kill_at": shot.kill_at,
        "damage_multiplier": shot.multiplier,
        "range_inches": float(shot.range_in),
        **{k: figures[k] for k in ("any_hit_probability", "any_hit_exact", "kill_probability",
                                   "kill_exact", "death_probability", "death_exact")},
        "modifiers": dump_recorded(rec.modifiers),
        # Why the chance is what it is beyond the modifiers (facing made it hasty fire, a row
        # that did not count for this weapon), as the card will show them.
        "notes": dump_recorded(rec.notes),
        "outcomes": [dict(o) for o in figures["outcomes"]],
    }


@lru_cache(maxsize=1024)
def _fire_figures(chance: int, kill_at: int, rounds_per_roll: int, multiplier: int,  # noqa: PLR0917
                  rolls: int, life_force: int) -> dict[str, Any]:
    """The odds' figures, cached by the numbers that decide them (issue 27: a new request with
    the numbers of one seen before, a shot at another range in the same band, is most of a
    table's). Its lists' dicts are copied before they are handed out."""
    fire = fire_odds(roll_outcomes(chance, kill_at, rounds_per_roll, multiplier), rolls,
                     life_force)
    return {
        "probability": float(fire.hit), "exact": _exact(fire.hit),
        "any_hit_probability": float(fire.any_hit), "any_hit_exact": _exact(fire.any_hit),
        "kill_probability": float(fire.kill_rule), "kill_exact": _exact(fire.kill_rule),
        "death_probability": float(fire.death), "death_exact": _exact(fire.death),
        "outcomes": tuple({"key": f"{P}.odds.{name}", "probability": float(p), "exact": _exact(p)}
                          for name, n in fire.counts for p in (Fraction(n, fire.total),)),
    }
