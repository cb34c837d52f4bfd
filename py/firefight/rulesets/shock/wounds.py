"""shock Damage Systems, "Details of Severity": what STUN, WOUND, SHOCK and DEATH do to a unit,
and the shock check every wounded unit makes at the end of the turn (the ``end_of_turn``
action; stunned units that skipped their turn recover).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from firefight.record import Recorder
from firefight.rulesets.shock.data import D10, exact, tables
from firefight.rulesets.shock.models import (
    EndOfTurnRequest,
    P,
    ShockSettings,
    ShockStats,
    TurnUnit,
)

# shock WOUND: "a total of ten or more ... immediately succumbs to shock".
SHOCK_AT_WOUNDS = 10
# Still in the fight: a stunned unit only skips a turn (shock STUN); one in shock "can no longer
# act" (shock SHOCK), the dead neither.
IN_THE_FIGHT = frozenset({"ok", "stunned"})


def can_act(state: str) -> bool:
    """Stunned: skips its turn (shock STUN); shock: "can no longer act"; dead: dead."""
    return state == "ok"


def wound_counters(damage_class: str, scale: str) -> int:
    """shock WOUND: wounds "scale in effect with the damage class of the round"."""
    return int(tables().wound_scales[scale][damage_class])


# --- What a result does to the unit -------------------------------------------------------------

@dataclass(frozen=True)
class Change:
    """An effect on the target, recorded when the result is resolved (``label``: effect.<it>)."""

    kind: str
    label: str
    delta: int = 0
    value: Any = None
    params: dict[str, Any] = field(default_factory=dict)

    def record(self, rec: Recorder) -> None:
        rec.effect(self.kind, delta=self.delta, value=self.value, label=f"effect.{self.label}",
                   **self.params)


@dataclass(frozen=True)
class Consequence:
    outcome: str  # what happened: stun, wound, shock, death, or "none" (a stun in shock)
    via: str  # severity, wounds_ten (ten or more wounds), in_shock (damage while in shock)
    wounds_added: int
    wounds_after: int
    state_after: str
    changes: tuple[Change, ...]


def consequence(stats: ShockStats, result: str, damage_class: str, settings: ShockSettings
                ) -> Consequence:
    """The severity result applied to the unit as it stands."""
    wounds = stats.wounds
    if stats.state == "shock":
        # shock SHOCK: "Units who take more damage in this state die."
        if settings.damage_in_shock == "any_hit" or result != "stun":
            return Consequence("death", "in_shock", 0, wounds, "dead",
                               (Change("state", "dead_in_shock", value="dead"),))
        return Consequence("none", "in_shock", 0, wounds, "shock", ())
    if result == "wound":
        return _wound(wounds, wound_counters(damage_class, settings.wound_scale), stats.state)
    # STUN: skips its current or next turn; SHOCK: incapacitated; DEATH.
    state = {"stun": "stunned", "shock": "shock", "death": "dead"}[result]
    return Consequence(result, "severity", 0, wounds, state, (Change("state", state, value=state),))


def _wound(wounds: int, added: int, state: str) -> Consequence:
    total = wounds + added
    gained = Change("wounds", "wounds", delta=added, params={"n": added, "total": total})
    if total >= SHOCK_AT_WOUNDS:
        # shock WOUND: ten or more "immediately succumbs to shock"; shock SHOCK: "A unit who
        # passes into shock from wounds removes the wound counters."
        return Consequence("shock", "wounds_ten", added, 0, "shock", (
            gained, Change("state", "shock_from_wounds", value="shock", params={"total": total}),
            Change("wounds", "wounds_removed", delta=-total, params={"n": total})))
    return Consequence("wound", "severity", added, total, state, (gained,))


def record_consequence(rec: Recorder, c: Consequence) -> None:
    """The notes and effects of a consequence, on the attack's card."""
    if c.via == "in_shock":
        rec.note(f"in_shock_{'dies' if c.changes else 'stun'}", source="shock SHOCK")
    if c.outcome == "stun":
        rec.note("stun", source="shock STUN")
    if c.outcome == "wound":
        rec.note("wound", source="shock WOUND", total=c.wounds_after)
    if c.outcome == "shock":
        rec.note("evacuate", source="shock SHOCK")
    for change in c.changes:
        change.record(rec)


# --- End of turn: the shock check ------------------------------------------------------------

def passes_shock_check(roll: int, wounds: int) -> bool:
    """shock WOUND: "a single 1d10 roll ... attempting to roll higher than the total sum of
    wounds"."""
    return roll > wounds


def shock_check_probability(wounds: int) -> Fraction:
    """Chance a unit with ``wounds`` counters goes into shock at the end of the turn."""
    if wounds <= 0:
        return Fraction(0)
    if wounds >= SHOCK_AT_WOUNDS:
        return Fraction(1)
    return Fraction(sum(not passes_shock_check(f, wounds) for f in range(1, D10 + 1)), D10)


def checks(unit: TurnUnit) -> bool:
    """shock WOUND: "Every character with a wound" checks; units in shock or dead do not."""
    return unit.wounds > 0 and unit.state in IN_THE_FIGHT


def end_of_turn_odds(request: EndOfTurnRequest) -> dict[str, Any]:
    """The chance that no unit goes into shock, and each unit's chance that it does."""
    all_pass = Fraction(1)
    units = []
    for unit in request.units:
        p = shock_check_probability(unit.wounds) if checks(unit) else Fraction(0)
        all_pass *= 1 - p
        units.append({"name": unit.name, "wounds": unit.wounds, "shock": float(p),
                      "exact": exact(p)})
    shown = [("none_into_shock", all_pass), ("some_into_shock", 1 - all_pass)]
    return {"probability": float(all_pass), "exact": exact(all_pass), "units": units,
            "outcomes": [{"key": f"{P}.odds.{k}", "probability": float(v), "exact": exact(v)}
                         for k, v in shown]}


def _shock_check(rec: Recorder, i: int, unit: TurnUnit) -> str:
    """shock WOUND: 1d10 above the unit's wounds, else shock; ten or more: shock at once."""
    who = unit.who(i)
    if unit.wounds >= SHOCK_AT_WOUNDS:
        passed, dice, numbers = False, [], {"wounds": unit.wounds}
    else:
        name = unit.name or f"unit {i + 1}"
        first = rec.next_die  # Recorder.roll takes no purpose_params: the roller's own roll
        die = rec.roller.roll(D10, purpose=f"shock check, {name}", side="target",
                              purpose_key=rec.key("roll.shock_check"),
                              purpose_params={"name": name})
        passed = passes_shock_check(die.total, unit.wounds)
        dice, numbers = [first], {"roll": die.total, "wounds": unit.wounds}
    rec.step(f"unit_{i}", "shock_check", kind="target_number", dice=dice, numbers=numbers,
             success=passed,
             outcome="outcome.shock_check_" + ("passed" if passed else "failed" if dice else "ten"),
             source="shock WOUND", **who)
    if passed:
        return unit.state
    # shock SHOCK: "A unit who passes into shock from wounds removes the wound counters."
    rec.effect("state", value="shock", label="effect.shock_check", **who)
    rec.effect("wounds", delta=-unit.wounds, label="effect.wounds_removed_unit",
               **who, n=unit.wounds)
    return "shock"


def end_of_turn(request: EndOfTurnRequest, rec: Recorder) -> None:
    """Every wounded unit checks shock; a stunned unit that skipped its turn has served its
    stun (shock STUN: "skips his current/next turn")."""
    shocked: list[str] = []
    recovered: list[str] = []
    for i, unit in enumerate(request.units):
        state: str = unit.state
        if checks(unit):
            state = _shock_check(rec, i, unit)
            if state == "shock":
                shocked.append(unit.name)
        if state == "stunned":
            if unit.skipped_turn:
                rec.effect("state", value="ok", label="effect.recovered", **unit.who(i))
                recovered.append(unit.name)
            else:
                rec.step(f"unit_{i}", "still_stunned", kind="info", source="shock STUN",
                         **unit.who(i))
    rec.outcome = {"checked": sum(checks(u) for u in request.units), "shocked": shocked,
                   "recovered": recovered, "shocked_names": ", ".join(shocked),
                   "summary_key": rec.key("outcome.end_of_turn" if shocked
                                          else "outcome.end_of_turn_none")}
    rec.note("shock_check", source="shock WOUND")
    rec.card("end_of_turn", n=len(request.units))
