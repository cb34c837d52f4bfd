"""soe Table 3, column 4, "Pretrauma": after a wound, a Will roll; on failure a negative modifier
to all tasks "until combat ends or they make a successful Will roll" (the ``will_check`` action).
"""

from __future__ import annotations

from typing import Any

from firefight.models import Effect, Modifier
from firefight.record import Recorder
from firefight.rulesets.soe import opposed
from firefight.rulesets.soe.data import tables
from firefight.rulesets.soe.models import (
    SoeAttackRequest,
    SoeCombatant,
    SoeStats,
    SoeWillCheckRequest,
)

P = "FIREFIGHT.soe"
SOURCE = "soe Table 3, \"Pretrauma\""
# The actor stat that holds the penalty (0: none).
STAT = "pretrauma"
# soe 2.4, "Pre-trauma": "if the over-roll is greater than -10, they must make an opposed roll".
CHECK_ABOVE = -10
# The end of Pre-Trauma, "until combat ends or they make a successful Will roll": the one effect
# both the Will roll's card and the table's end of combat (``features["combatEnd"]``) apply.
ENDS = Effect(kind="pretrauma", value=0, label_key=f"{P}.effect.pretrauma_ends")


def penalty(rec: Recorder, stats: SoeStats, step: str, *, side: str = "attacker",
            source: str = SOURCE) -> None:
    """The penalty, a modifier to every task the character makes while it lasts."""
    if stats.pretrauma:
        rec.modifier("mod.pretrauma", stats.pretrauma, source, step, side=side)


def will_ledger(rec: Recorder, request: Any, character: SoeCombatant, step: str, *,
                side: str, source: str) -> list[Modifier]:
    """A Will roll's modifiers (Will, the penalty, the house rules' for the step), recorded on
    ``rec``; the odds and the roll share it. Returns the step's modifiers."""
    first = len(rec.modifiers)
    rec.modifier("mod.will", character.stats.will, source, step, side=side)
    penalty(rec, character.stats, step, side=side)
    rec.house(step, request)
    return rec.modifiers[first:]


def wound_check_ledger(rec: Recorder, request: SoeAttackRequest) -> list[Modifier]:
    """The target's Will roll after a shot (its modifiers; the shot's odds list them too)."""
    return will_ledger(rec, request, request.target, "pretrauma", side="target",
                       source=f"{SOURCE}: opposed roll modified by Will")


def check_after_wound(rec: Recorder, request: SoeAttackRequest, base: int) -> None:
    """The target's Will roll after a to-damage roll of over-roll ``base`` (setting
    ``pretrauma``).

    The caption keys column 4 to the to-damage over-roll (default); the worked example
    reads it at the Will check's margin (setting ``pretrauma_reading = "example"``).
    """
    if base <= CHECK_ABOVE:
        return
    target = request.target
    mods = wound_check_ledger(rec, request)
    check = opposed.roll(rec, "pretrauma", mods, ties=opposed.ties_for(target, request.settings),
                         purpose="Pre-Trauma Will check", acting="target", opposing="referee",
                         success="outcome.steady", failure="outcome.shaken")
    if check.success:
        return
    row = base if request.settings.pretrauma_reading == "caption" else check.over_roll
    value = tables().pretrauma.lookup(row)
    if value is None or value >= target.stats.pretrauma:
        return
    rec.outcome["pretrauma"] = value
    rec.effect("pretrauma", value=value, penalty=value, row=row)


def _will_check_ledger(rec: Recorder, request: SoeWillCheckRequest) -> list[Modifier]:
    return will_ledger(rec, request, request.character, "will_check", side="attacker",
                       source=SOURCE)


def resolve_will_check(request: SoeWillCheckRequest, rec: Recorder) -> None:
    """The ``will_check`` action: on success the penalty ends."""
    stats = request.character.stats
    mods = _will_check_ledger(rec, request)
    check = opposed.roll(rec, "will_check", mods,
                         ties=opposed.ties_for(request.character, request.settings),
                         purpose="Will roll", acting="character", opposing="referee",
                         success="outcome.steady", failure="outcome.shaken")
    rec.outcome.update(success=check.success, summary_key=rec.key(
        "outcome." + ("recovered" if check.success else "still_shaken")))
    if check.success and stats.pretrauma:
        rec.effects.append(ENDS)
    rec.card("will_check", character=request.character.name)


def will_check_odds(request: SoeWillCheckRequest) -> dict[str, Any]:
    mods = _will_check_ledger(Recorder.for_odds("soe"), request)
    return opposed.check_odds(mods, opposed.ties_for(request.character, request.settings),
                              f"{P}.outcome.recovered", f"{P}.outcome.still_shaken")


def combat_end() -> dict[str, Any]:
    """``features["combatEnd"]``: what the table applies to each combatant still under the
    penalty when a combat ends."""
    return {"stat": STAT, "effects": [ENDS.model_dump(include={"target", "kind", "value",
                                                                "delta"})]}
