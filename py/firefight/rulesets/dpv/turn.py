"""2300ad Wound Effects as state the combat tracker counts down, MOVEMENT rates, and the thrown
weapon's reach: the referee's and the tracker's per-figure actions (no dice)."""

from __future__ import annotations

from typing import Any

from firefight.record import Recorder, num
from firefight.rulesets.dpv import cards, melee, wounds
from firefight.rulesets.dpv.data import tables
from firefight.rulesets.dpv.models import (
    CombatTurnRequest,
    DpvCombatant,
    MovementRequest,
    ThrowRangeRequest,
)

SRC_EFFECTS = "2300ad Wound Effects"
SRC_NPC = "2300ad NON-PLAYER CHARACTERS, \"Cool\""
SRC_MOVEMENT = "2300ad MOVEMENT"
SRC_THROWN = "2300ad FIRE COMBAT, \"Thrown Weapons\""


def initiative(actor: DpvCombatant) -> int | None:
    """The initiative level now: the PC's ``initiative`` (an NPC's Coolness, "the NPC's
    initiative level"), less its ``initiative_loss``, "never below 1" (None: not known)."""
    stats = actor.stats
    base = stats.initiative if stats.initiative is not None else wounds.npc_coolness(actor)
    if base is None:
        return None
    floor = int(tables().npcs["initiative_floor"])
    return max(floor, base - stats.initiative_loss) if base >= floor else base


def resolve_combat_turn(request: CombatTurnRequest, rec: Recorder) -> None:
    """Start of a combat turn: the figure's initiative and whether it may act. End: dazed
    counts down one turn, and what lasted "until the end of the combat turn" ends."""
    actor, phase = request.actor, request.options.phase
    stats = actor.stats
    level = initiative(actor)
    dazed = stats.dazed_turns > 0 or stats.dazed_turn_end
    numbers: dict[str, Any] = {"initiative": level, "initiative_loss": stats.initiative_loss,
                               "dazed_turns": stats.dazed_turns, "phase": phase,
                               "dazed": dazed, "immobilized": stats.immobilized,
                               "ducked": stats.ducked}
    if phase == "end":
        if stats.dazed_turns:
            rec.effect("dazed_turns", delta=-1, label="effect.dazed_less",
                       turns=stats.dazed_turns - 1)
        if stats.dazed_turn_end:
            rec.effect("dazed_turn_end", value=False, label="effect.dazed_over")
        if stats.immobilized:
            rec.effect("immobilized", value=False, label="effect.mobile")
        if stats.ducked:
            rec.effect("ducked", value=False, label="effect.up")
        if stats.evading:  # "To drive evasively": Absolute (1 action), this turn only
            rec.effect("evading", value=False, label="effect.evading_over")
        numbers["dazed_turns_left"] = max(0, stats.dazed_turns - 1)
    known = "" if level is not None else "_unknown"  # no initiative level given
    rec.step("turn", f"turn_{phase}", kind="info", numbers=numbers,
             outcome=f"turn.{'dazed' if dazed else 'ready'}{known}",
             source=f"{SRC_EFFECTS}; {SRC_NPC}", name=actor.name)
    # "All eligibility for further actions is lost" while dazed; immobilized: no movement.
    rec.outcome.update(initiative=level, dazed=dazed, can_act=not (dazed or stats.ducked),
                       can_move=not (dazed or stats.immobilized),
                       dazed_turns=numbers.get("dazed_turns_left", stats.dazed_turns),
                       summary_key=f"FIREFIGHT.dpv.outcome.turn_{'dazed' if dazed else 'ready'}")
    cards.title(rec, request)


def resolve_movement(request: MovementRequest, rec: Recorder) -> None:
    """Metres a figure covers in ``turns`` combat turns, and the cover it may use."""
    options = request.options
    row = tables().combat["movement"][options.move]
    metres = row["m_per_turn"] * options.turns
    rec.step("movement", "movement", kind="table",
             numbers={"move": options.move, "m_per_turn": row["m_per_turn"],
                      "turns": options.turns, "metres": metres, "cover": row["cover"]},
             outcome=f"movement.{row['cover']}", source=SRC_MOVEMENT,
             move_key=f"FIREFIGHT.dpv.opt.move.choices.{options.move}")
    rec.outcome.update(metres=metres, m_per_turn=row["m_per_turn"], cover=row["cover"],
                       summary_key="FIREFIGHT.dpv.outcome.movement")
    cards.title(rec, request)


def resolve_throw_range(request: ThrowRangeRequest, rec: Recorder) -> None:
    """How far the figure throws the object (Throw Range / weight) and its DPV (STR / 20,
    blunt trauma)."""
    stats = request.actor.stats
    weight = request.options.object_weight_kg
    reach = melee.throw_reach(stats, weight)
    dpv = melee.thrown_dpv(stats)
    rec.step("throw_range", "throw_range", kind="info",
             numbers={"throw_range_m": stats.throw_range_m, "weight_kg": weight,
                      "reach_m": round(reach, 2), "strength": stats.strength, "dpv": num(dpv),
                      "wound_type": "blunt"},
             outcome="throw.range", source=SRC_THROWN)
    rec.outcome.update(reach_m=reach, dpv=num(dpv), wound_type="blunt",
                       summary_key="FIREFIGHT.dpv.outcome.throw_range")
    cards.title(rec, request)
