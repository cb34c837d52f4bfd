"""soe Table 3, column 2, "Delayed Injury": a wound of over-roll -2..8 may bring a General Trauma
injury after combat; then an opposed roll modified by Strength (the ``delayed_injury_check``
action) decides, and on failure medical treatment is needed within 12 hours.
"""

from __future__ import annotations

from typing import Any

from firefight.models import Modifier
from firefight.record import Recorder
from firefight.rulesets.soe import opposed, pretrauma
from firefight.rulesets.soe.data import tables
from firefight.rulesets.soe.models import SoeDelayedInjuryRequest

STEP = "delayed_injury"
# The actor stat that lists the possible delayed injuries until they are rolled for.
STAT = "delayed_injuries"
# "medical treatment within 12 hours" (soe Table 3, "Delayed Injury").
TREATMENT_HOURS = 12


def possible(rec: Recorder, base: int) -> None:
    """A shot's possible delayed injury, by its to-damage over-roll (setting
    ``delayed_injury``); it waits on the actor until rolled for after combat."""
    delayed = tables().delayed.lookup(base)
    if delayed is None:
        return
    rec.outcome["delayed_injury"] = delayed
    rec.effect("delayed_injury", value=delayed, class_key=rec.key(f"injury.class.{delayed}"))


def _ledger(rec: Recorder, request: SoeDelayedInjuryRequest) -> list[Modifier]:
    """Strength, the Pre-Trauma penalty and the house rules' for the step; shared by the odds."""
    first = len(rec.modifiers)
    stats = request.character.stats
    rec.modifier("mod.strength", stats.strength,
                 "soe Table 3, \"Delayed Injury\": opposed roll, strength", STEP)
    pretrauma.penalty(rec, stats, STEP)
    rec.house(STEP, request)
    return rec.modifiers[first:]


def resolve_check(request: SoeDelayedInjuryRequest, rec: Recorder) -> None:
    """The ``delayed_injury_check`` action: the pending injury is rolled for and cleared."""
    check = opposed.roll(rec, STEP, _ledger(rec, request),
                         ties=opposed.ties_for(request.character, request.settings),
                         purpose="delayed injury", acting="character", opposing="referee",
                         success="outcome.no_delayed", failure="outcome.delayed")
    cls = request.trauma_class
    class_key = rec.key(f"injury.class.{cls}")
    rec.outcome.update(success=check.success, trauma_class=cls, summary_key=rec.key(
        "outcome." + ("no_delayed" if check.success else "needs_treatment")))
    if cls in request.character.stats.delayed_injuries:  # else nothing on the sheet to clear
        rec.effect("delayed_injury_resolved", value=cls, label="")
    if not check.success:
        rec.effect("needs_treatment", value={"class": cls, "hours": TREATMENT_HOURS},
                   class_key=class_key)
    rec.card("delayed_injury", character=request.character.name, class_key=class_key)


def check_odds(request: SoeDelayedInjuryRequest) -> dict[str, Any]:
    mods = _ledger(Recorder.for_odds("soe"), request)
    return opposed.check_odds(mods, opposed.ties_for(request.character, request.settings),
                              f"{opposed.P}.outcome.no_delayed",
                              f"{opposed.P}.outcome.needs_treatment")
