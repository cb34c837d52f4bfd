"""The referee's procedures where the SHOCK text names a need but gives no rule (issue 15):

- ``treat``: shock WOUND, "Wounds are additive unless properly treated". The text never says
  what treatment is; **Firefight procedure**: the referee's treatment removes wound counters
  (all, or the number chosen) from each unit treated. It does not bring a unit out of shock
  (shock SHOCK: such a unit "must be evacuated"). No die.
- ``end_of_mission``: shock SHOCK, "Units who are in this state must be evacuated by mission end
  or risk dying". The text gives no roll; **Firefight procedure**, the referee's choice in the
  dialog: ``roll`` (default; 1d10, at or under ``dies_on`` dies, 5: even odds), ``dies`` (every
  unit left in shock dies) or ``referee`` (no die: the card lists who is at risk).

Every card of these actions says it follows Firefight's procedure, not the text.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from firefight.record import Recorder
from firefight.rulesets.shock.data import D10, exact
from firefight.rulesets.shock.models import (
    EndOfMissionRequest,
    MissionUnit,
    P,
    TreatRequest,
)

TREAT = "treat"
END_OF_MISSION = "end_of_mission"
PROCEDURE = "Firefight procedure (the SHOCK text gives none)"
TREAT_SOURCE = f'shock WOUND, "Wounds are additive unless properly treated"; {PROCEDURE}'
EVACUATE_SOURCE = (f'shock SHOCK, "must be evacuated by mission end or risk dying"; '
                   f"{PROCEDURE}")


# --- treatment --------------------------------------------------------------------------------

def treat_odds(request: TreatRequest) -> dict[str, Any]:
    """Nothing is rolled (no chance to show): the wound counters each unit keeps."""
    most = request.options.wounds_removed
    left = [0 if most is None else max(0, u.wounds - most) for u in request.units]
    return {"wounds_left": left}


def treat(request: TreatRequest, rec: Recorder) -> None:
    """The referee treats each unit: its wound counters go (all, or ``wounds_removed``)."""
    most = request.options.wounds_removed
    treated: list[str] = []
    for i, unit in enumerate(request.units):
        who = unit.who(i)
        name = unit.name or f"unit {i + 1}"
        if unit.state == "dead" or unit.wounds == 0:
            why = "dead" if unit.state == "dead" else "unwounded"
            rec.step(f"unit_{i}", f"treat_{why}", kind="info", source=TREAT_SOURCE, **who)
            continue
        removed = unit.wounds if most is None else min(most, unit.wounds)
        left = unit.wounds - removed
        rec.step(f"unit_{i}", "treat", kind="info", numbers={"removed": removed, "left": left},
                 outcome="outcome.treated", source=TREAT_SOURCE, **who, removed=removed,
                 left=left)
        rec.effect("wounds", delta=-removed, label="effect.treated", **who, n=removed, left=left)
        treated.append(name)
        if unit.state == "shock":
            rec.note("treated_in_shock", source=EVACUATE_SOURCE, name=name)
    rec.note("procedure_treat", source=TREAT_SOURCE)
    rec.outcome = {"treated": treated, "treated_names": ", ".join(treated),
                   "summary_key": rec.key("outcome.treat" if treated else "outcome.treat_none"),
                   "apply_key": rec.key("apply.treat")}  # the card's button: not damage
    rec.card("treat", n=len(request.units))


# --- the end of the mission -------------------------------------------------------------------

def at_risk(unit: MissionUnit) -> bool:
    """shock SHOCK: a unit in shock that was not evacuated "risk[s] dying"."""
    return unit.state == "shock" and not unit.evacuated


def dies_probability(request: EndOfMissionRequest) -> Fraction:
    """The chance one unit at risk dies under the dialog's choice."""
    risk = request.options.risk
    if risk == "dies":
        return Fraction(1)
    if risk == "referee":
        return Fraction(0)
    return Fraction(request.options.dies_on, D10)


def end_of_mission_odds(request: EndOfMissionRequest) -> dict[str, Any]:
    """Each unit's chance to die, the chance that all live, and the outcomes: nobody dies, or
    at least one dies (exact)."""
    p = dies_probability(request)
    units, all_live = [], Fraction(1)
    for unit in request.units:
        mine = p if at_risk(unit) else Fraction(0)
        all_live *= 1 - mine
        units.append({"name": unit.name, "at_risk": at_risk(unit), "death": float(mine),
                      "exact": exact(mine)})
    shown = [("none_die", all_live), ("some_die", 1 - all_live)]
    return {"probability": float(all_live), "exact": exact(all_live), "units": units,
            "outcomes": [{"key": f"{P}.odds.{k}", "probability": float(v), "exact": exact(v)}
                         for k, v in shown]}


def end_of_mission(request: EndOfMissionRequest, rec: Recorder) -> None:
    """Every unit in shock left on the field risks dying; the evacuated and the others do not."""
    risk, dies_on = request.options.risk, request.options.dies_on
    died: list[str] = []
    at_risk_names: list[str] = []
    for i, unit in enumerate(request.units):
        who = unit.who(i)
        name = unit.name or f"unit {i + 1}"
        if unit.state != "shock":
            continue
        if unit.evacuated:
            rec.step(f"unit_{i}", "evacuated", kind="info", outcome="outcome.evacuated",
                     source=EVACUATE_SOURCE, **who)
            continue
        at_risk_names.append(name)
        if risk == "referee":
            rec.step(f"unit_{i}", "at_risk", kind="info", outcome="outcome.at_risk",
                     source=EVACUATE_SOURCE, **who)
            continue
        dice: list[int] = []
        numbers: dict[str, Any] = {}
        dies = True
        if risk == "roll":
            first = rec.next_die  # Recorder.roll takes no purpose_params: the roller's own roll
            die = rec.roller.roll(D10, purpose=f"risk of dying, {name}", side="target",
                                  purpose_key=rec.key("roll.risk"),
                                  purpose_params={"name": name})
            dies = die.total <= dies_on
            dice, numbers = [first], {"roll": die.total, "dies_on": dies_on}
        rec.step(f"unit_{i}", f"risk_{risk}", kind="target_number" if dice else "info",
                 dice=dice, numbers=numbers, success=not dies,
                 outcome=f"outcome.risk_{'died' if dies else 'survived'}",
                 source=EVACUATE_SOURCE, **who, dies_on=dies_on)
        if dies:
            rec.effect("state", value="dead", label="effect.died_unevacuated", **who)
            died.append(name)
    rec.note(f"procedure_end_of_mission_{risk}", source=EVACUATE_SOURCE, dies_on=dies_on)
    rec.outcome = {"at_risk": at_risk_names, "died": died, "died_names": ", ".join(died),
                   "at_risk_names": ", ".join(at_risk_names),
                   "summary_key": rec.key("outcome.end_of_mission" if died else
                                          "outcome.end_of_mission_at_risk" if at_risk_names
                                          and risk == "referee" else
                                          "outcome.end_of_mission_none")}
    rec.card("end_of_mission", n=len(request.units))
