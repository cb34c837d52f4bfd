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

from firefight.errors import named, rule_error
from firefight.record import Recorder
from firefight.rulesets.shock.data import PHASES
from firefight.rulesets.shock.models import ChitUnit, DrawChitsRequest, PoolRequest, TurnUnit
from firefight.rulesets.shock.soldier import chits, skill_level
from firefight.rulesets.shock.wounds import IN_THE_FIGHT

DRAW = "draw_chits"
SETTLE = "end_of_turn"
POOL = "activation_pool"
POOL_SOURCE = "shock Unit Activation, \"Max pool is equivalent to unit skill level\""

# The ``activation`` table feature: action, request and outcome field names (a test checks them
# against the models).
ACTIVATION: dict[str, Any] = {
    "draw": DRAW,
    "settle": SETTLE,
    "units": "units",
    "round": "turn",
    "served": "skipped_turn",
    "order": "order",
    # Issue 15: ``settle`` takes EVERY unit of the combat, not only the ones shot at: each
    # entry of ``units`` carries these fields from the unit's actor data (``wounds``, ``state``)
    # and the table's own record (``skipped_turn``); the engine checks every wounded one.
    "settleFields": list(TurnUnit.model_fields),
    # Each unit's held activations (``flags.firefight.shock.pool``), sent with ``draw``: the
    # draw caps it at the unit's skill level; the ``pool`` action holds or spends one.
    "pool": "pool",
    "poolAction": POOL,
}


def cup(units: list[ChitUnit], phase: int) -> list[tuple[int, int]]:
    """The chits in the cup for one phase, in unit order: (unit index, its chit 1 or 2).
    Units in shock or dead put none in; a stunned unit's chits are drawn and skipped."""
    return [(i, n + 1) for i, unit in enumerate(units) if unit.state in IN_THE_FIGHT
            for n in range(chits(unit.quality)[phase])]


def draw_odds(request: DrawChitsRequest) -> dict[str, Any]:
    """Nothing to win or lose (no chance to show): how many chits each phase's cup holds."""
    cups = [len(cup(request.units, phase)) for phase in range(PHASES)]
    return {"chits": cups}


def _cap_pools(request: DrawChitsRequest, rec: Recorder) -> list[dict[str, Any]]:
    """"Max pool is equivalent to unit skill level": a unit holding more activations than its
    skill level (its quality fell, or the sheet was edited) keeps only that many."""
    pools = []
    for i, unit in enumerate(request.units):
        most = skill_level(unit.quality)
        pools.append({**unit.who(i), "pool": min(unit.pool, most), "max": most})
        if unit.pool > most:
            rec.effect("pool", delta=most - unit.pool, label="effect.pool_capped", **unit.who(i),
                       max=most, before=unit.pool)
            rec.note("pool_capped", source=POOL_SOURCE, name=unit.name or f"unit {i + 1}",
                     max=most)
    return pools


def draw_chits(request: DrawChitsRequest, rec: Recorder) -> None:
    """The cup: each phase, every chit of every unit that can act, drawn one at a time."""
    pools = _cap_pools(request, rec)
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
    rec.outcome = {"turn": request.turn, "phases": phases, "order": order, "pools": pools,
                   "summary_key": rec.key("outcome.draw_chits")}
    rec.card("draw_chits", turn=request.turn, n=len(order))


# --- the activation pool -------------------------------------------------------------------------

def pool_odds(request: PoolRequest) -> dict[str, Any]:
    """Nothing is rolled (no chance to show): the pool and its cap."""
    unit = request.actor
    return {"pool": unit.pool, "max": skill_level(unit.quality)}


def activation_pool(request: PoolRequest, rec: Recorder) -> None:
    """shock Unit Activation: "Perhaps a system of activation point pooling ...? Max pool is
    equivalent to unit skill level." The pooling is the designer's question; Firefight's
    reading (docs/rules-notes.md): a unit whose chit comes up may hold the activation instead
    of acting (``hold``: +1, never above its skill level) and act on a held one later
    (``spend``: -1). No die."""
    unit, change = request.actor, request.options.change
    name, said = named(unit.name, "unit")
    if unit.state not in IN_THE_FIGHT:
        raise rule_error("shock", "no_activations",
                         f"{name} is {unit.state} and has no activations (shock SHOCK)",
                         "actor.state", f"{unit.state}: no activations",
                         name=said, state=unit.state)
    most = skill_level(unit.quality)
    pool = min(unit.pool, most)
    if change == "hold" and pool >= most:
        raise rule_error("shock", "pool_full",
                         f"{name}'s pool is full: {pool} of {most}, its skill level",
                         "actor.pool", f"at most {most} (skill level)",
                         name=name, pool=pool, most=most)
    if change == "spend" and pool <= 0:
        raise rule_error("shock", "pool_empty", f"{name} holds no activation to spend",
                         "actor.pool", "0: nothing held", name=name)
    after = pool + (1 if change == "hold" else -1)
    rec.step("pool", f"pool_{change}", kind="info", numbers={"pool": after, "max": most},
             outcome=f"outcome.pool_{change}", source=POOL_SOURCE, **unit.who(0))
    rec.effect("pool", delta=after - unit.pool, label=f"effect.pool_{change}", pool=after,
               max=most)
    rec.note("pool", source=POOL_SOURCE, max=most)
    rec.outcome = {"change": change, "pool_before": unit.pool, "pool": after, "max": most,
                   "summary_key": rec.key(f"outcome.pool_{change}"),
                   "apply_key": rec.key("apply.pool")}  # the card's button: not damage
    rec.card("activation_pool", name=unit.name, pool=after, max=most)
