"""2300ad HEALING: critical points, regaining consciousness, resuscitation, natural healing."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from firefight.record import Recorder
from firefight.rulesets.dpv import cards, odds, tasks
from firefight.rulesets.dpv.data import chance, tables
from firefight.rulesets.dpv.models import (
    CriticalPointRequest,
    DpvCombatant,
    NaturalHealingRequest,
    P,
    RegainConsciousnessRequest,
    ResuscitateRequest,
    TaskOptions,
    TreatRequest,
)

SRC_POINTS = "2300ad CRITICAL POINTS"
SRC_CRITICAL = f"{SRC_POINTS}; HEALING, \"Shock Damage\""
SRC_CONSCIOUS = "2300ad HEALING, \"Regaining Consciousness\""
SRC_RESUSCITATION = "2300ad HEALING, \"Resuscitation\""
SRC_NATURAL = "2300ad HEALING, \"Natural Healing\""
# 2300ad CRITICAL POINTS: 30 minutes, 1, 3, 6 and 12 hours after wounding. The one place they
# are written: the wound that starts the clock and the table's healing clock
# (``features.healing.hours``) read them from here.
CRITICAL_HOURS: tuple[float, ...] = (0.5, 1, 3, 6, 12)


def resolve_critical_point(request: CriticalPointRequest, rec: Recorder) -> None:
    """At each critical point, 1D10 at or under the shock points so far adds one; moving the
    patient gives DM -1 on the throw. Alive at 12 hours: stabilized naturally."""
    rec.outcome.update(_critical_point(request, rec))
    cards.title(rec, request)


def _critical_point(request: CriticalPointRequest, rec: Recorder) -> dict[str, Any]:
    stats = request.patient.stats
    hours = CRITICAL_HOURS[request.point - 1]
    if stats.shock == 0:
        rec.note("no_shock", SRC_CRITICAL)
        return {"hit": False, "hours": hours, "summary_key": "FIREFIGHT.dpv.outcome.no_shock"}
    roll, i = rec.roll(10, purpose=f"critical point, {hours} h", side="target",
                       purpose_key="roll.critical_point", purpose_params={"hours": str(hours)})
    dm = 0
    # "If a character is moved, by hand or vehicle, apply a DM of -1 on the throw at the next
    # crisis point": the request's flag, or the patient's (set by the table when moved).
    if request.moved or stats.moved:
        dm = rec.modifier("mod.moved", -1, SRC_POINTS, "critical", side="target").value
    if stats.moved:
        rec.effect("moved", value=False, label="effect.moved_counted")
    worse = roll + dm <= stats.shock
    shock = stats.shock + worse
    rec.step("critical", "critical", dice=[i],
             numbers={"roll": roll, "total": roll + dm, "shock": stats.shock, "hours": hours},
             success=not worse, outcome="critical." + ("worse" if worse else "steady"),
             source=SRC_CRITICAL)
    outcome: dict[str, Any] = {"hit": worse, "hours": hours, "shock": shock}
    if worse:
        rec.effect("shock", delta=1, n=1)
    dead = stats.life_level is not None and shock >= stats.life_level
    if dead:
        rec.effect("state", value="dead", label="effect.dead_shock", cause="shock")
        state = "dead"
    elif request.point == len(CRITICAL_HOURS):
        rec.effect("state", value="stabilized", label="effect.stabilized")
        state = "stabilized"
    else:
        state = "worse" if worse else "steady"
        rec.effect("critical_points", value="next", label="effect.critical_next",
                   hours=CRITICAL_HOURS[request.point])
    outcome.update(state=state, summary_key=f"FIREFIGHT.dpv.outcome.critical_{state}")
    return outcome


def resolve_regain_consciousness(request: RegainConsciousnessRequest, rec: Recorder) -> None:
    """Each hour, 1D10 less than the hours unconscious wakes the character."""
    roll, i = rec.roll(10, purpose="regain consciousness", side="target",
                       purpose_key="roll.regain_consciousness")
    awake = roll < request.hours_unconscious
    rec.step("conscious", "conscious", dice=[i],
             numbers={"roll": roll, "hours": request.hours_unconscious}, success=awake,
             outcome="conscious." + ("yes" if awake else "no"), source=SRC_CONSCIOUS)
    if awake:
        rec.effect("state", value="conscious", label="effect.conscious")
    rec.outcome.update(hit=awake, summary_key="FIREFIGHT.dpv.outcome.conscious_" + (
        "yes" if awake else "no"))
    cards.title(rec, request)


def regain_odds(request: RegainConsciousnessRequest) -> dict[str, Any]:
    """1D10 less than the hours unconscious: hours - 1 faces in 10."""
    p = Fraction(min(10, request.hours_unconscious - 1), 10)
    return chance(p, net_modifier=0, modifiers=[], outcomes=odds.listing(
        [("conscious_no", 1 - p), ("conscious_yes", p)]))


def resolve_resuscitate(request: ResuscitateRequest, rec: Recorder) -> None:
    """Head kills are final; torso or shock deaths within 60 minutes: Difficult Medical."""
    if request.killed_by == "head" or request.minutes_since_death > 60:
        reason = "head" if request.killed_by == "head" else "too_late"
        rec.note(f"resuscitate_{reason}", SRC_RESUSCITATION)
        rec.outcome.update(hit=False, possible=False,
                           summary_key=f"FIREFIGHT.dpv.outcome.resuscitate_{reason}")
    else:
        options = TaskOptions(preset="resuscitate", medkit_only=request.medkit_only)
        outcome = tasks.run_task(rec, request, request.medic, options)
        if outcome["success"]:
            rec.effect("state", value="alive", label="effect.resuscitated")
        rec.outcome.update(outcome, possible=True)
    cards.title(rec, request)


def resolve_natural_healing(request: NaturalHealingRequest, rec: Recorder) -> None:
    """One light wound and one shock point a week."""
    stats = request.patient.stats
    light = min(request.weeks, stats.light_wounds)
    shock = min(request.weeks, stats.shock)
    rec.step("natural", "natural", kind="info",
             numbers={"weeks": request.weeks, "light_wounds": light, "shock": shock},
             outcome="natural.healed", source=SRC_NATURAL)
    _healed(rec, request.patient, light, shock)
    rec.outcome.update(hit=bool(light or shock), light_wounds=light, shock=shock,
                       summary_key="FIREFIGHT.dpv.outcome.healed")
    cards.title(rec, request)


def _healed(rec: Recorder, patient: DpvCombatant, light: int, shock: int) -> None:
    """Healed points leave the patient's data, and the initiative they cost comes back (a
    reading: Wound Effects ties the reduction to the points)."""
    npcs = tables().npcs
    if light:
        rec.effect("light_wounds", delta=-light, label="effect.healed_light", n=light)
    if shock:
        rec.effect("shock", delta=-shock, label="effect.healed_shock", n=shock)
    back = min(patient.stats.initiative_loss,
               -(npcs["initiative_per_light_wound"] * light
                 + npcs["initiative_per_shock_or_stun"] * shock))
    if back:
        rec.effect("initiative_loss", delta=-back, label="effect.initiative_back", n=back)


def resolve_treat(request: TreatRequest, rec: Recorder) -> None:
    """A medic's task on the patient (2300ad HEALING): stabilizing a serious wound ends the
    shock clock; healing takes one light wound and one shock point off. The effects are the
    patient's (the request's target)."""
    options, stats = request.options, request.patient.stats
    task = TaskOptions(preset=options.care, medkit_only=options.medkit_only, dm=options.dm)
    outcome = tasks.run_task(rec, request, request.medic, task)
    if outcome["success"] and options.care == "stabilize":
        rec.effect("state", value="stabilized", label="effect.stabilized_care")
    elif outcome["success"]:
        _healed(rec, request.patient, min(1, stats.light_wounds), min(1, stats.shock))
    rec.outcome.update(outcome, care=options.care)
    cards.title(rec, request, care_key=f"{P}.opt.care.choices.{options.care}")


def treat_odds(request: TreatRequest) -> dict[str, Any]:
    rec = Recorder.for_odds("dpv")
    options = request.options
    task = TaskOptions(preset=options.care, medkit_only=options.medkit_only, dm=options.dm)
    return tasks.spec_odds(tasks.task_spec(rec, request, request.medic, task), rec)


def critical_odds(request: CriticalPointRequest) -> dict[str, Any]:
    """Another shock point (dead at the life level), or no change: 1D10 - moved <= shock."""
    stats = request.patient.stats
    dm = -1 if request.moved or stats.moved else 0
    worse = Fraction(sum(1 for roll in range(1, 11) if roll + dm <= stats.shock), 10)
    if not stats.shock:
        worse = Fraction(0)
    dead = stats.life_level is not None and stats.shock + 1 >= stats.life_level
    rec = Recorder.for_odds("dpv")
    if dm:
        rec.modifier("mod.moved", dm, SRC_POINTS, "critical", side="target")
    return chance(worse, net_modifier=dm, modifiers=odds.dumped(rec.modifiers),
                  outcomes=odds.listing([
        ("critical_steady", 1 - worse), ("critical_dead" if dead else "critical_worse", worse)]))
