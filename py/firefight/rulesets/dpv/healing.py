"""2300ad HEALING: critical points, regaining consciousness, resuscitation, natural healing."""

from __future__ import annotations

from typing import Any

from firefight.rulesets.dpv import tasks
from firefight.rulesets.dpv.models import (
    CriticalPointRequest,
    NaturalHealingRequest,
    RegainConsciousnessRequest,
    ResuscitateRequest,
    TaskOptions,
)
from firefight.rulesets.dpv.sheet import Sheet

SRC_CRITICAL = "2300ad CRITICAL POINTS; HEALING, \"Shock Damage\""
SRC_CONSCIOUS = "2300ad HEALING, \"Regaining Consciousness\""
SRC_RESUSCITATION = "2300ad HEALING, \"Resuscitation\""
SRC_NATURAL = "2300ad HEALING, \"Natural Healing\""
CRITICAL_HOURS: tuple[float, ...] = (0.5, 1, 3, 6, 12)


def resolve_critical_point(sheet: Sheet, request: CriticalPointRequest) -> dict[str, Any]:
    """At each critical point, 1D10 at or under the shock points so far adds one; moving the
    patient gives DM -1 on the throw. Alive at 12 hours: stabilized naturally."""
    stats = request.patient.stats
    hours = CRITICAL_HOURS[request.point - 1]
    if stats.shock == 0:
        sheet.note("no_shock", SRC_CRITICAL)
        return {"hit": False, "hours": hours, "summary_key": "FIREFIGHT.dpv.outcome.no_shock"}
    roll, i = sheet.roll(10, purpose=f"critical point, {hours} h", side="target")
    dm = 0
    if request.moved:
        dm = sheet.modifier("moved", -1, "2300ad CRITICAL POINTS", "critical", side="target").value
    worse = roll + dm <= stats.shock
    shock = stats.shock + worse
    sheet.step("critical", "critical", dice=[i], modifier_total=dm,
               numbers={"roll": roll, "total": roll + dm, "shock": stats.shock, "hours": hours},
               success=not worse, outcome="critical." + ("worse" if worse else "steady"),
               source=SRC_CRITICAL)
    outcome: dict[str, Any] = {"hit": worse, "hours": hours, "shock": shock}
    if worse:
        sheet.effect("shock", delta=1, n=1)
    dead = stats.life_level is not None and shock >= stats.life_level
    if dead:
        sheet.effect("state", value="dead", label="dead_shock", cause="shock")
        state = "dead"
    elif request.point == len(CRITICAL_HOURS):
        sheet.effect("state", value="stabilized", label="stabilized")
        state = "stabilized"
    else:
        state = "worse" if worse else "steady"
        sheet.effect("critical_points", value="next", label="critical_next",
                     hours=CRITICAL_HOURS[request.point])
    outcome.update(state=state, summary_key=f"FIREFIGHT.dpv.outcome.critical_{state}")
    return outcome


def resolve_regain_consciousness(sheet: Sheet, request: RegainConsciousnessRequest
                                 ) -> dict[str, Any]:
    """Each hour, 1D10 less than the hours unconscious wakes the character."""
    roll, i = sheet.roll(10, purpose="regain consciousness", side="target")
    awake = roll < request.hours_unconscious
    sheet.step("conscious", "conscious", dice=[i],
               numbers={"roll": roll, "hours": request.hours_unconscious}, success=awake,
               outcome="conscious." + ("yes" if awake else "no"), source=SRC_CONSCIOUS)
    if awake:
        sheet.effect("state", value="conscious", label="conscious")
    return {"hit": awake, "summary_key": "FIREFIGHT.dpv.outcome.conscious_" + (
        "yes" if awake else "no")}


def resolve_resuscitate(sheet: Sheet, request: ResuscitateRequest) -> dict[str, Any]:
    """Head kills are final; torso or shock deaths within 60 minutes: Difficult Medical."""
    if request.killed_by == "head" or request.minutes_since_death > 60:
        reason = "head" if request.killed_by == "head" else "too_late"
        sheet.note(f"resuscitate_{reason}", SRC_RESUSCITATION)
        return {"hit": False, "possible": False,
                "summary_key": f"FIREFIGHT.dpv.outcome.resuscitate_{reason}"}
    options = TaskOptions(preset="resuscitate", medkit_only=request.medkit_only)
    outcome = tasks.resolve_task(sheet, request.medic, options, request.settings)
    if outcome["success"]:
        sheet.effect("state", value="alive", label="resuscitated")
    return {**outcome, "possible": True}


def resolve_natural_healing(sheet: Sheet, request: NaturalHealingRequest) -> dict[str, Any]:
    """One light wound and one shock point a week."""
    stats = request.patient.stats
    light = min(request.weeks, stats.light_wounds)
    shock = min(request.weeks, stats.shock)
    sheet.step("natural", "natural", kind="info",
               numbers={"weeks": request.weeks, "light_wounds": light, "shock": shock},
               outcome="natural.healed", source=SRC_NATURAL)
    if light:
        sheet.effect("light_wounds", delta=-light, label="healed_light", n=light)
    if shock:
        sheet.effect("shock", delta=-shock, label="healed_shock", n=shock)
    return {"hit": bool(light or shock), "light_wounds": light, "shock": shock,
            "summary_key": "FIREFIGHT.dpv.outcome.healed"}
