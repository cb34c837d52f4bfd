"""Applying a result's effects to an actor's data: pure, exact, and undoable by restoring.

The table (the GM's client) reads the actor's current ``flags.firefight.<ruleset>`` at the moment
it applies, calls ``apply_effects`` and writes back what comes out; undo writes back the data it
had before. Effects on a field of the ruleset's stats model change that field:

- a numeric ``delta`` adds to the field of the effect's kind (``hp``, ``life_force``, ``wounds``,
  ``shock``...), clamped to the model's bounds (``hp`` starts from ``hp_max`` when unset, and
  healing stops at ``hp_max``: any field ``x`` with an ``x_max`` beside it);
- a ``value`` sets the field (``state``, ``pretrauma``...);
- a ``condition`` effect sets the condition its ``value`` names in the actor's ``conditions``
  (declared by a house rule or the ruleset: ``firefight.models.Condition``), and
  ``condition_end`` ends it;
- anything else (a trauma, a blast to draw, a healing clock) is kept as a *condition* for the
  actor's Firefight tab and the card, not written into the stats.

Token statuses follow the state: dead, unconscious, stunned...
"""

from __future__ import annotations

from typing import Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, ValidationError

from firefight.errors import FirefightError, validation_error
from firefight.models import CONDITION_END, CONDITION_SET, CONDITIONS_FIELD, TABLE_ONLY

# States the rulesets use, and the Foundry core status effect each one shows on the token.
STATE_STATUSES: dict[str, str] = {
    "dead": "dead",
    "dying": "bleeding",
    "unconscious": "unconscious",
    "incapacitated": "unconscious",
    "shock": "unconscious",
    "stunned": "stun",
    "dazed": "stun",
    "knocked_down": "prone",
}
ALL_STATUSES = sorted(set(STATE_STATUSES.values()))
# States that end another: regaining consciousness, resuscitation, stabilizing, standing up.
STATE_CLEARS: dict[str, tuple[str, ...]] = {
    "conscious": ("unconscious",),
    "alive": ("dead",),
    "stabilized": ("bleeding",),
    "ok": tuple(ALL_STATUSES),
}


def _bounds(model: type[BaseModel], name: str) -> tuple[float | None, float | None]:
    """A numeric field's bounds from its ``Field(ge=..., le=...)`` constraints."""
    lo: float | None = None
    hi: float | None = None
    for m in model.model_fields[name].metadata:
        if isinstance(m, Ge):
            lo = float(m.ge)  # type: ignore[arg-type]
        elif isinstance(m, Gt):
            lo = float(m.gt) + 1  # type: ignore[arg-type]  # integer fields: the next whole number
        elif isinstance(m, Le):
            hi = float(m.le)  # type: ignore[arg-type]
        elif isinstance(m, Lt):
            hi = float(m.lt) - 1  # type: ignore[arg-type]
    return lo, hi


def _field_name(model: type[BaseModel], kind: str) -> str | None:
    """The model field an effect kind writes to, by name or alias."""
    for name, info in model.model_fields.items():
        if kind in (name, info.alias):
            return name
    return None


def statuses_for(state: object) -> dict[str, bool]:
    """Every Firefight-managed token status, on or off, for a ruleset that keeps one state."""
    on = STATE_STATUSES.get(str(state)) if state is not None else None
    return {status: status == on for status in ALL_STATUSES}


def status_changes(state: str) -> dict[str, bool]:
    """The token statuses a passing state turns on or off (rulesets with no state field)."""
    out = dict.fromkeys(STATE_CLEARS.get(state, ()), False)
    if state in STATE_STATUSES:
        out[STATE_STATUSES[state]] = True
    return out


def _with_delta(model: type[BaseModel], name: str, base: object, delta: int, index: int, *,
                ceiling: object = None) -> Any:
    """A numeric field moved by ``delta``, kept inside the field's bounds; healing (a rise) stops
    at ``ceiling`` (the actor's ``<field>_max``), as dnd5e's healing stops at max HP, but never
    lowers a value already above it."""
    if not isinstance(base, int | float | None):
        raise FirefightError(f"{name} is not a number: a delta cannot change it",
                             code="invalid_effects",
                             fields=[(f"effects[{index}].delta", f"{name} takes a value")])
    after: Any = (base or 0) + delta
    lo, hi = _bounds(model, name)
    if lo is not None:
        after = max(after, int(lo))
    if hi is not None:
        after = min(after, int(hi))
    if delta > 0 and isinstance(ceiling, int | float):
        after = min(after, max(base or 0, ceiling))
    return after


def apply_effects(model: type[BaseModel], stats: dict[str, Any], effects: list[dict[str, Any]]
                  ) -> dict[str, Any]:
    """New stats, the token statuses, the conditions and a list of changes, for one actor."""
    try:
        current = model.model_validate(stats)
    except ValidationError as exc:
        raise validation_error(exc, "actor data") from None
    data = current.model_dump(mode="json")  # by field name
    conditions: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    statuses: dict[str, bool] = {}
    state_changed = False
    for index, effect in enumerate(effects):
        kind = str(effect.get("kind", ""))
        if kind in TABLE_ONLY:
            continue
        if kind in (CONDITION_SET, CONDITION_END) and CONDITIONS_FIELD in model.model_fields:
            before_list = list(data.get(CONDITIONS_FIELD) or [])
            cid = effect.get("value")
            after_list = [c for c in before_list if c != cid]
            if kind == CONDITION_SET:
                after_list.append(cid)
            if after_list != before_list:
                data[CONDITIONS_FIELD] = after_list
                changes.append({"field": CONDITIONS_FIELD, "from": before_list, "to": after_list})
            continue
        name = _field_name(model, kind)
        if kind == "state" and effect.get("value") is not None:
            statuses.update(status_changes(str(effect["value"])))
        before = data.get(name) if name else None
        if name and effect.get("delta"):
            base = data.get("hp_max", 0) if before is None and name == "hp" else before
            data[name] = _with_delta(model, name, base, int(effect["delta"]), index,
                                     ceiling=data.get(f"{name}_max"))
        elif name and effect.get("value") is not None:
            data[name] = effect["value"]
        else:
            conditions.append({k: effect.get(k) for k in ("kind", "value", "delta", "label_key",
                                                         "params")})
            continue
        state_changed = state_changed or name == "state"
        changes.append({"field": name, "from": before, "to": data[name]})
    try:
        new = model.model_validate(data)
    except ValidationError as exc:
        raise FirefightError(
            "the effects would leave the actor's data invalid",
            code="invalid_effects",
            fields=[(".".join(str(p) for p in e["loc"]), e["msg"]) for e in exc.errors()],
        ) from None
    out = new.model_dump(mode="json", by_alias=True, exclude_none=True)
    if state_changed:  # one authoritative state: every managed status follows it
        statuses = statuses_for(getattr(new, "state", None))
    return {
        "stats": out,
        "statuses": statuses,
        "conditions": conditions,
        "changes": changes,
    }
