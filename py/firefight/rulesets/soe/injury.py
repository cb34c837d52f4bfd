"""soe Table 3, columns 1 and 3, "Injury" and the General Trauma Table: the to-damage result as
Hit Point Reduction or as a General Trauma class and its effect (the referee's choice, setting
``injury_mode``); the ``general_trauma`` action rolls a class's effect on its own.
"""

from __future__ import annotations

import math
from typing import Any

from firefight.models import Effect
from firefight.record import Recorder
from firefight.rulesets.soe.data import tables
from firefight.rulesets.soe.models import SoeAttackRequest, SoeTraumaRequest, TraumaTables

PURPOSE = "General Trauma, effect"
P = "FIREFIGHT.soe"
# soe Table 3, Hit Point Reduction: "If they reach zero Hit Points, the target will die in the
# next turn." ``features["followUp"]``: a state a result sets, and what the table does about it
# at a later turn (the keys are documented in docs/rules-notes.md, "followUp"):
# - ``state``: the state a result's ``state`` effect set on the actor that starts it;
# - ``after``: "turn": when that actor's combatant next starts its turn in the combat tracker
#   ("round": when the next round starts);
# - ``unless``: ``{"stat", "above"}``: nothing happens if by then the actor's stat is above the
#   value (the referee healed it);
# - ``effects``: applied to the actor then, through the engine's ``apply`` like a result's;
# - ``labelKey``: what the table's chat message says; ``source``: the rule.
DYING_FOLLOW_UP: dict[str, Any] = {
    "state": "dying",
    "after": "turn",
    "unless": {"stat": "hp", "above": 0},
    "effects": [Effect(kind="state", value="dead", label_key=f"{P}.effect.dead").model_dump(
        include={"target", "kind", "value", "delta", "label_key"})],
    "labelKey": f"{P}.followUp.dying",
    "source": "soe Table 3, Hit Point Reduction: \"will die in the next turn\"",
}


def trauma_effect(rec: Recorder, trauma_class: str, referee_tables: TraumaTables | None) -> None:
    """soe Table 3, General Trauma: five effects a class, effect ceil(1d20 / 4); the referee's
    own RollTables (``trauma_tables``) replace the printed texts."""
    die, index_of_die = rec.roll(20, purpose=PURPOSE, side="target",
                                 purpose_key="roll.general_trauma")
    index = math.ceil(die / 4)
    effects = (referee_tables or {}).get(trauma_class) or tables().trauma[trauma_class]  # type: ignore[call-overload]
    text = effects[index - 1]
    class_key = rec.key(f"injury.class.{trauma_class}")
    rec.step("general_trauma", kind="table", dice=[index_of_die],
             numbers={"roll": die, "effect": index}, outcome="trauma.effect",
             source="soe Table 3, General Trauma Table (1D20/4)",
             class_key=class_key, text=text, index=index)
    rec.effect("trauma", value={"class": trauma_class, "effect": index, "text": text},
               class_key=class_key, text=text)
    rec.outcome.update(trauma_class=trauma_class, trauma_effect=index, trauma_text=text)
    if trauma_class == "fatal":  # soe Table 3, "Fatal": whatever the effect, the victim dies
        rec.outcome.update(state="dead", summary_key=rec.key("outcome.fatal"))
        rec.effect("state", value="dead", label="effect.dead")


def hp_of(request: SoeAttackRequest) -> int:
    """The target's Hit Points before the shot: its current HP, else its maximum."""
    stats = request.target.stats
    return stats.hp if stats.hp is not None else stats.hp_max


def hp_state(hp_before: int, loss: int) -> tuple[int, str]:
    """soe Table 3, Hit Point Reduction: HP after the loss, and the state: at 0 HP the target
    "will die in the next turn" (dying), below 0 it is dead."""
    hp_after = hp_before - loss
    return hp_after, ("unhurt" if loss == 0 else "wounded" if hp_after > 0 else
                      "dying" if hp_after == 0 else "dead")


def hit_points(rec: Recorder, request: SoeAttackRequest, loss: int, base: int,
               multiplier: int) -> None:
    """soe Table 3, Hit Point Reduction: at 0 HP death next turn, below 0 at once."""
    hp_before = hp_of(request)
    hp_after, state = hp_state(hp_before, loss)
    injury = tables().injury.lookup(loss)
    rec.outcome.update(injury=injury, hp_before=hp_before, hp_loss=loss, hp_after=hp_after,
                       state=state, summary_key=rec.key(f"outcome.{state}"))
    rec.step("injury", kind="table",
             numbers={"over_roll": base, "multiplier": multiplier, "hp_loss": loss,
                      "hp_before": hp_before, "hp_after": hp_after},
             # HP mode reads no trauma class: a 65 HP rhino losing 22 is wounded, not "Fatal"
             # (the class stays in the outcome).
             outcome="injury.hp_loss",
             source="soe Table 3, \"Injury\"; Hit Point Reduction")
    if loss:
        rec.effect("hp", delta=-loss, loss=loss)
    if state in ("dying", "dead"):
        rec.effect("state", value=state, label=f"effect.{state}")


def general_trauma(rec: Recorder, request: SoeAttackRequest, damage: int) -> None:
    """soe Table 3, General Trauma Table: the class by over-roll, then its effect."""
    injury = tables().injury.lookup(damage)
    rec.outcome["injury"] = injury
    if injury == "none":
        rec.outcome.update(state="unhurt", summary_key=rec.key("outcome.unhurt"))
        return
    rec.outcome.update(state="injured", summary_key=rec.key("outcome.trauma"))
    trauma_effect(rec, injury, request.trauma_tables)


def resolve_general_trauma(request: SoeTraumaRequest, rec: Recorder) -> None:
    """The ``general_trauma`` action: one effect roll for a class (a table roll, no odds)."""
    trauma_effect(rec, request.trauma_class, request.trauma_tables)
    rec.outcome["summary_key"] = rec.key("outcome.trauma")
    rec.card("general_trauma", character=request.character.name,
             class_key=rec.key(f"injury.class.{request.trauma_class}"))
