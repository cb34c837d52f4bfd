"""soe 2.1.2, "Opposed Roll + RANT", for any task: the acting character's modifiers against the
opposing side's (another character, or the referee for the environment); ties as section 4
says (``opposed``). The haggling, listening, lock and climbing examples of 2.1.2 and 4 are such
rolls.
"""

from __future__ import annotations

from typing import Any

from firefight.models import Modifier
from firefight.record import Recorder
from firefight.rulesets.soe import opposed, pretrauma
from firefight.rulesets.soe.models import SoeTaskRequest

STEP = "task"
SOURCE = "soe 2.1.2: situation specific modifiers are added, the higher total succeeds"


def ledger(rec: Recorder, request: SoeTaskRequest) -> list[Modifier]:
    """The acting side's modifier, the opposing side's (counted against it), each side's
    Pre-Trauma penalty ("a negative modifier to all tasks"), the house rules' for the step."""
    first = len(rec.modifiers)
    opts = request.options
    if opts.modifier:
        rec.modifier("mod.task", opts.modifier, SOURCE, STEP)
    if opts.opposition:
        rec.modifier("mod.opposition", -opts.opposition, SOURCE, STEP, side="target",
                     opposition=opts.opposition)
    pretrauma.penalty(rec, request.character.stats, STEP)
    if request.opponent is not None and request.opponent.stats.pretrauma:
        # The opponent's penalty lowers the opposing total: it counts for the acting side.
        rec.modifier("mod.opponent_pretrauma", -request.opponent.stats.pretrauma,
                     pretrauma.SOURCE, STEP, side="target")
    rec.house(STEP, request)
    return rec.modifiers[first:]


def ties(request: SoeTaskRequest) -> bool:
    """soe 4: "Ties go in the Player's favor"; against the referee, ``opposed.ties_for``."""
    character, opponent, settings = request.character, request.opponent, request.settings
    if opponent is None:
        return opposed.ties_for(character, settings)
    if settings.tie_goes_to != "player":
        return settings.tie_goes_to == "attacker"
    # A player acting, or both / neither players: the acting side; against a player: the player.
    return not (opponent.pc and not character.pc)


def resolve_task(request: SoeTaskRequest, rec: Recorder) -> None:
    opponent = request.opponent
    check = opposed.roll(rec, STEP, ledger(rec, request), ties=ties(request), purpose="task",
                         acting="character", opposing="target" if opponent else "referee",
                         success="outcome.success", failure="outcome.failure")
    rec.outcome.update(success=check.success, over_roll=check.over_roll, summary_key=rec.key(
        "outcome." + ("task_success" if check.success else "task_failure")))
    task = request.options.task
    rec.card("task" if task else "task_unnamed", character=request.character.name,
             opponent=opponent.name if opponent else "", task=task)


def task_odds(request: SoeTaskRequest) -> dict[str, Any]:
    return opposed.check_odds(ledger(Recorder.for_odds("soe"), request), ties(request),
                              f"{opposed.P}.outcome.success", f"{opposed.P}.outcome.failure")
