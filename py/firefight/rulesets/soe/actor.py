"""An actor's Stars of Empire data after a result's effects (``Ruleset.apply``): the core's
``firefight.effects`` plus the two things Table 3 keeps on the actor between rolls.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from firefight.effects import apply_effects
from firefight.errors import validation_error
from firefight.rulesets.soe import delayed_injury, pretrauma
from firefight.rulesets.soe.models import SoeStats

# soe Table 3: Pre-Trauma shows on the token as Foundry's core "fear" status.
PRETRAUMA_STATUS = "fear"


def apply(stats: dict[str, Any], effects: list[dict[str, Any]]) -> dict[str, Any]:
    """Possible delayed injuries accumulate on the actor until rolled for after combat (Table 3
    column 2); the Pre-Trauma penalty sets the token's status while below 0 (column 4)."""
    try:  # the actor's data checked before it is read (a string is no list of injuries)
        current = SoeStats.model_validate(stats)
    except ValidationError as exc:
        raise validation_error(exc, "actor data") from None
    before = list(current.delayed_injuries)
    pending = list(before)
    rest = []
    for effect in effects:
        if effect.get("kind") == "delayed_injury":
            pending.append(effect["value"])
        elif effect.get("kind") == "delayed_injury_resolved":
            if effect.get("value") in pending:
                pending.remove(effect["value"])
        else:
            rest.append(effect)
    if pending != before:
        rest.append({"kind": delayed_injury.STAT, "value": pending})
    out = apply_effects(SoeStats, stats, rest)
    if any(c["field"] == pretrauma.STAT for c in out["changes"]):
        out["statuses"][PRETRAUMA_STATUS] = out["stats"].get(pretrauma.STAT, 0) < 0
    return out
