"""Duel's second chapter, the brawl: a dice pool.

Rule 6: a brawler rolls a pool of d6, two plus their skill, two more going all in; each 5 or 6
is a success.
Rule 7: each success costs the target 1 hit point; at 0 hit points it is down (unconscious).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

from firefight import Modifier, Recorder
from firefight_duel.attack import refuse_if_down
from firefight_duel.models import DuelBrawl, P

SUCCESS = 5  # rule 6: a 5 or a 6


def pool_ledger(request: DuelBrawl) -> list[Modifier]:
    """The dice of the pool, each source a row (the card's and the dialog's "Why")."""
    mods = [Modifier(key=f"{P}.mod.pool", value=2, source="Duel rule 6", step="brawl"),
            Modifier(key=f"{P}.mod.skill", value=request.attacker.stats.skill,
                     source="Duel rule 6", step="brawl")]
    if request.options.all_in:
        mods.append(Modifier(key=f"{P}.mod.all_in", value=2, source="Duel rule 6",
                             step="brawl"))
    return mods


def successes_chances(dice: int) -> list[Fraction]:
    """The exact chance of 0, 1, ... ``dice`` successes (each die 2 in 6)."""
    p = Fraction(6 - SUCCESS + 1, 6)
    return [comb(dice, k) * p**k * (1 - p) ** (dice - k) for k in range(dice + 1)]


def odds(request: DuelBrawl) -> dict[str, Any]:
    """Exact chances of at least one success and of the target going down, every count of
    successes as the dialog's outcome table, and the pool's rows for its "Why"."""
    refuse_if_down(request.attacker)
    mods = pool_ledger(request)
    chances = successes_chances(sum(m.value for m in mods))
    stats = request.target.stats
    left = stats.hp if stats.hp is not None else stats.hp_max
    hit, down = 1 - chances[0], sum(chances[left:], Fraction(0))
    return {
        "probability": float(hit), "exact": str(hit),
        "down_probability": float(down), "down_exact": str(down),
        "modifiers": [m.model_dump(mode="json") for m in mods],
        "outcomes": [{"key": f"{P}.outcome.successes", "params": {"n": n},
                      "probability": float(c), "exact": str(c)} for n, c in enumerate(chances)],
    }


def brawl(request: DuelBrawl, rec: Recorder) -> None:
    """Roll the pool and count its successes (the card shows the faces, never their sum)."""
    refuse_if_down(request.attacker)
    mods = rec.add(pool_ledger(request))
    _, die = rec.roll(6, count=sum(m.value for m in mods), purpose="pool", purpose_key="roll.pool")
    successes = sum(face >= SUCCESS for face in rec.faces(die))
    rec.step("brawl", kind="pool", dice=[die], numbers={"successes": successes},
             success=successes > 0, outcome="outcome.successes", source="Duel rule 6",
             n=successes)
    rec.card("brawl", attacker=request.attacker.name, target=request.target.name)
    stats = request.target.stats
    left = stats.hp if stats.hp is not None else stats.hp_max
    state = "unconscious" if successes >= left else None  # rule 7
    rec.outcome.update(hit=successes > 0, successes=successes, damage=successes, state=state,
                       target=request.target.name,
                       summary_key=rec.key(f"summary.{state or ('hit' if successes else 'miss')}"))
    if successes:
        rec.effect("hp", delta=-successes, damage=successes)
    if state:
        rec.effect("state", value=state, label=f"effect.{state}", target_name=request.target.name)
