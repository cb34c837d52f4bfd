"""shock Unit Activation: "Units are activated via chit pull." The ``draw_chits`` action fills
the cup for a turn of four phases (shock Troop Quality, P1-P4: x one chit, xx two) and draws
every chit one at a time, each draw a die (1dN from the N chits left).

The table's combat tracker runs a combat by chit pull from the ``activation`` table feature
(``ACTIVATION``, declared in ``Ruleset.features``): every new round it resolves ``draw`` with the
combatants as the request's ``units`` and the round number as its ``round`` field, and takes the
drawn order from the outcome's ``order`` (entries: ``unit``, ``name``, ``actor_id``,
``token_id``, ``combatant_id``, ``phase``, ``chit``, ``seq``, ``stunned``). Before drawing it
settles the round that ended with ``settle`` (``wounds.end_of_turn``), telling each unit in its
``served`` field whether its activation was skipped while stunned, and applies the effects.
"""

from __future__ import annotations

from typing import Any

from firefight.record import Recorder
from firefight.rulesets.shock.data import PHASES
from firefight.rulesets.shock.models import ChitUnit, DrawChitsRequest
from firefight.rulesets.shock.soldier import chits
from firefight.rulesets.shock.wounds import IN_THE_FIGHT

DRAW = "draw_chits"
SETTLE = "end_of_turn"

# The ``activation`` table feature: action, request and outcome field names (a test checks them
# against the models).
ACTIVATION: dict[str, str] = {
    "draw": DRAW,
    "settle": SETTLE,
    "units": "units",
    "round": "turn",
    "served": "skipped_turn",
    "order": "order",
}


def cup(units: list[ChitUnit], phase: int) -> list[tuple[int, int]]:
    """The chits in the cup for one phase, in unit order: (unit index, its chit 1 or 2).
    Units in shock or dead put none in; a stunned unit's chits are drawn and skipped."""
    return [(i, n + 1) for i, unit in enumerate(units) if unit.state in IN_THE_FIGHT
            for n in range(chits(unit.quality)[phase])]


def draw_odds(request: DrawChitsRequest) -> dict[str, Any]:
    """Nothing to win or lose: how many chits each phase's cup holds."""
    cups = [len(cup(request.units, phase)) for phase in range(PHASES)]
    return {"probability": 1.0, "exact": "1/1", "chits": cups}


def draw_chits(request: DrawChitsRequest, rec: Recorder) -> None:
    """The cup: each phase, every chit of every unit that can act, drawn one at a time."""
    phases: list[list[dict[str, Any]]] = []
    order: list[dict[str, Any]] = []
    for phase in range(PHASES):
        chits_left = cup(request.units, phase)
        first = rec.next_die
        drawn: list[dict[str, Any]] = []
        while chits_left:
            # Recorder.roll takes no purpose_params: the roller's own roll.
            die = rec.roller.roll(len(chits_left), purpose=f"chit draw, phase {phase + 1}",
                                  side="attacker", purpose_key=rec.key("roll.chit_draw"),
                                  purpose_params={"phase": str(phase + 1)})
            i, chit = chits_left.pop(die.total - 1)
            unit = request.units[i]
            drawn.append({**unit.who(i), "phase": phase + 1, "chit": chit,
                          "seq": len(order) + len(drawn) + 1,
                          "stunned": unit.state == "stunned"})
        phases.append(drawn)
        order += drawn
        rec.step(f"phase_{phase + 1}", "phase", kind="table",
                 dice=list(range(first, rec.next_die)), numbers={"chits": len(drawn)},
                 outcome="outcome.phase_order" if drawn else "outcome.phase_empty",
                 phase=phase + 1,
                 order=", ".join(d["name"] or f"unit {d['unit'] + 1}" for d in drawn),
                 source="shock Troop Quality, P1-P4")
    rec.note("chits", source="shock Unit Activation; Troop Quality")
    left_out = [u.name for u in request.units if u.state not in IN_THE_FIGHT]
    if left_out:
        rec.note("no_chits", source="shock SHOCK", names=", ".join(left_out))
    if any(u.state == "stunned" for u in request.units):
        rec.note("stunned_chits", source="shock STUN")
    rec.outcome = {"turn": request.turn, "phases": phases, "order": order,
                   "summary_key": rec.key("outcome.draw_chits")}
    rec.card("draw_chits", turn=request.turn, n=len(order))
