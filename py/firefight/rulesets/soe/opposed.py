"""soe 2.1.2, "Opposed Roll + RANT", and section 4: every roll is an opposed d20 + RANT roll, the
acting side's modifiers against a bare d20; ties go in the player's favour.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from firefight.models import Modifier
from firefight.rant import OpposedRoll, opposed_roll, success_probability
from firefight.record import Recorder, dump_recorded
from firefight.rulesets.soe.models import SoeAttackRequest, SoeCombatant, SoeSettings

P = "FIREFIGHT.soe"


def total(mods: list[Modifier]) -> int:
    return sum(m.value for m in mods)


def roll(rec: Recorder, step_id: str, mods: list[Modifier], *, ties: bool, purpose: str,
         acting: str = "attacker", opposing: str = "target", success: str = "",
         failure: str = "") -> OpposedRoll:
    """One opposed roll as step ``step_id``: the acting side adds ``mods`` (already recorded
    with that step id, so the step's total is theirs); ``success``/``failure``: its outcome key."""
    first = rec.next_die
    made = opposed_roll(rec.roller, acting_modifier=total(mods), ties_to_acting=ties,
                        purpose=purpose, acting_side=acting, opposing_side=opposing,
                        purpose_key=rec.key(f"roll.{step_id}"))
    rec.step(step_id, kind="opposed", dice=[first, first + 1], numbers=made.to_dict(),
             success=made.success, outcome=success if made.success else failure)
    return made


def chance(modifier: int, ties: bool) -> dict[str, Any]:
    """The exact chance of a check the character makes against the referee."""
    p: Fraction = success_probability(modifier, ties_to_acting=ties)
    return {"probability": float(p), "exact": f"{p.numerator}/{p.denominator}",
            "net_modifier": modifier, "label_key": "FIREFIGHT.card.chance_success"}


def outcomes(pairs: list[tuple[str, Fraction]]) -> list[dict[str, Any]]:
    """The odds contract's ``outcomes``: mutually exclusive outcomes in display order, each with
    its exact chance; they must sum to exactly 1 (a table that does not is a bug here)."""
    if sum(p for _, p in pairs) != 1:
        raise AssertionError(f"outcomes do not sum to 1: {pairs}")
    return [{"key": key, "probability": float(p), "exact": f"{p.numerator}/{p.denominator}"}
            for key, p in pairs]


def dumped(mods: list[Modifier]) -> list[dict[str, Any]]:
    """The odds contract's ``modifiers``, as the card shows them."""
    return dump_recorded(mods)


def check_odds(mods: list[Modifier], ties: bool, success: str, failure: str
               ) -> dict[str, Any]:
    """A check's whole odds: its chance, every modifier, and success / failure exactly."""
    out = chance(total(mods), ties)
    p = success_probability(total(mods), ties_to_acting=ties)
    out.update(modifiers=dumped(mods), outcomes=outcomes([(success, p), (failure, 1 - p)]))
    return out


def ties_for(character: SoeCombatant, settings: SoeSettings) -> bool:
    """Ties on a roll the character makes against the referee (soe 4: the player's favour;
    with no player taking part, the ``solo_ties`` setting decides)."""
    if settings.tie_goes_to == "player":
        return character.pc or settings.solo_ties == "acting"
    return settings.tie_goes_to == "attacker"


def ties_to_attacker(request: SoeAttackRequest) -> bool:
    """soe section 4: ties go in the player's favour; the referee may choose otherwise."""
    rule = request.settings.tie_goes_to
    if rule == "attacker":
        return True
    if rule == "target":
        return False
    # A PC shooting, or both / neither PCs: the acting side; an NPC shooting a PC: the PC.
    return not (request.target.pc and not request.attacker.pc)
