"""Models every ruleset shares: what a request names, and the immutable result it resolves to.

A result records every die and every modifier with its source; the card only renders it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from firefight.errors import FirefightError

# Scene units the shim may send, in metres (soe works in metres; other rulesets convert).
UNIT_METRES: dict[str, float] = {
    "m": 1.0,
    "meter": 1.0,
    "meters": 1.0,
    "metre": 1.0,
    "metres": 1.0,
    "km": 1000.0,
    "ft": 0.3048,
    "feet": 0.3048,
    "foot": 0.3048,
    "in": 0.0254,
    "inch": 0.0254,
    "inches": 0.0254,
    "yd": 0.9144,
    "yards": 0.9144,
    "hex": 1.0,  # soe section 2.3: "10 meters (hexes)"
    "hexes": 1.0,
}


class OptionLabels:
    """JSON-schema extras the generated dialogs and settings read: lang keys for a field
    (``<prefix>.opt.<field>.label``) and its choices (``<prefix>.opt.<field>.choices.<value>``).
    """

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def label(self, key: str, **extra: Any) -> dict[str, Any]:
        return {"x-label-key": f"{self.prefix}.opt.{key}.label", **extra}

    def choices(self, key: str, values: tuple[str, ...]) -> dict[str, Any]:
        keys = [f"{self.prefix}.opt.{key}.choices.{v}" for v in values]
        return self.label(key, **{"x-enum-label-keys": keys})

    def stat_choices(self, key: str, values: tuple[str, ...]) -> dict[str, Any]:
        """An actor-data field's choices on the sheet: ``<prefix>.statChoice.<field>.<value>``
        (the field's own label is ``<prefix>.stat.<field>``, ``registry.labelled``)."""
        return {"x-enum-label-keys": [f"{self.prefix}.statChoice.{key}.{v}" for v in values]}


class Strict(BaseModel):
    """Requests reject unknown fields, so a typo is reported instead of silently ignored."""

    # defer_build: each model's validator is built on its first use, not at import (issue 17:
    # `import firefight.bridge` in Pyodide 315 -> 239 ms CPU, the first shot no slower).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)  # as Strict's


# No firefight reaches further; the bound keeps exact arithmetic small (an absurd range once
# made the odds run for ever).
MAX_RANGE_M = 50_000.0
# Ids of actors, tokens (or their UUIDs), items and combatants.
ID_MAX = 200


# Rounds a weapon's magazine may hold (soe counts up to 10 000 projectiles in one action).
AMMO_MAX = 10_000
# Spare magazines a weapon's owner may carry (the referee sets the count).
SPARES_MAX = 1_000


class Ammo(Strict):
    """A weapon item's ammunition (``flags.firefight.ammo``), tracked by the table: the rounds
    its magazine holds, the rounds loaded now and the spare magazines its owner carries (a
    Reload takes one; none given: not counted). A weapon without it is not tracked."""

    capacity: int = Field(ge=1, le=AMMO_MAX, description="rounds a full magazine holds")
    loaded: int = Field(ge=0, le=AMMO_MAX, description="rounds in the magazine now")
    spares: int | None = Field(default=None, ge=0, le=SPARES_MAX,
                               description="full spare magazines (none given: not counted)")

    @model_validator(mode="after")
    def _fits(self) -> Ammo:
        if self.loaded > self.capacity:
            raise ValueError(f"loaded ({self.loaded}) is more than the capacity ({self.capacity})")
        return self


class HouseChoice(Strict):
    """A house rule's choices in a request: its dialog options and the world's settings for it."""

    options: dict[str, Any] = Field(default_factory=dict, max_length=50)
    settings: dict[str, Any] = Field(default_factory=dict, max_length=50)


class ActionRequest(Strict):
    """The base of every action's request: the ruleset and action it names, and the house rules'
    choices (``firefight.house``). Subclasses narrow ``ruleset`` and ``action`` to literals."""

    ruleset: str = Field(max_length=40)
    action: str = Field(max_length=40)
    house: dict[Annotated[str, Field(max_length=40)], HouseChoice] = Field(
        default_factory=dict, max_length=20)
    # The weapon's magazine before the action, as the table tracks it: the card says the rounds
    # an action that fires (``Action.rounds``) leaves in it.
    ammo: Ammo | None = None


class Distance(Strict):
    """A distance measured on the scene, in the scene's own units."""

    value: float = Field(ge=0, le=MAX_RANGE_M * 1000, allow_inf_nan=False,
                         description="distance between the tokens, in `units`")
    units: str = Field(default="m", max_length=20, description="the scene's grid units")

    def metres(self) -> float:
        factor = UNIT_METRES.get(self.units.strip().lower())
        if factor is None:
            raise FirefightError(
                f"unknown distance unit {self.units!r}",
                fields=[("range.units", f"use one of {', '.join(sorted(UNIT_METRES))}")],
            )
        metres = self.value * factor
        if metres > MAX_RANGE_M:
            raise FirefightError(
                f"range {metres:.0f} m is beyond {MAX_RANGE_M:.0f} m",
                fields=[("range.value", f"at most {MAX_RANGE_M / 1000:.0f} km")],
            )
        return metres


# When a condition ends (``Condition.ends``): at the start of the actor's next turn, at the
# start of the next round, or once a result its modifiers entered is applied.
CONDITION_ENDS = ("turn", "round", "apply")
# Conditions one actor may carry at once, by id in this field of its data.
CONDITIONS_MAX = 20
CONDITIONS_FIELD = "conditions"
# Effect kinds that set a condition on an actor and end it (``value``: the condition's id).
CONDITION_SET = "condition"
CONDITION_END = "condition_end"


class ConditionModifier(Frozen):
    """A modifier a condition adds to a step, while the actor under it is the request's
    ``side`` (the one acting, or its target)."""

    step: str = Field(max_length=40)
    value: int = Field(ge=-1000, le=1000)
    side: Literal["attacker", "target"] = "attacker"
    key: str = Field(default="", max_length=200,
                     description="its label (the condition's when empty)")


class Condition(Frozen):
    """A condition a house rule or ruleset declares (pf2e's conditions with their modifiers):
    set on an actor by a result (``Recorder.condition``), kept in its data (``conditions``),
    its modifiers in the odds and on the card like any other, until it ends."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    label_key: str = Field(max_length=200)
    ends: Literal["turn", "round", "apply"]
    modifiers: tuple[ConditionModifier, ...] = ()
    source: str = Field(default="", max_length=200, description="the rule (the card's source)")


class Participant(Strict):
    """Who acts or is acted on; ``stats`` is the ruleset's own data for the actor."""

    name: str = Field(default="", max_length=200)
    actor_id: str | None = Field(default=None, max_length=ID_MAX)
    token_id: str | None = Field(default=None, max_length=ID_MAX)
    pc: bool = Field(default=False, description="a player character (ties go its way)")


class Modifier(Frozen):
    """One modifier as the card shows it: a label key, a value, and the rule it comes from."""

    key: str
    value: int
    source: str
    step: str
    side: Literal["attacker", "target"] = "attacker"
    params: dict[str, Any] = Field(default_factory=dict)


class Step(Frozen):
    """One roll of a resolution (to-hit, to-damage, ...), in the order it was made."""

    id: str
    label_key: str
    # "pool": a dice pool whose faces are counted, not summed (the card shows no sum).
    kind: Literal["opposed", "percentile", "target_number", "table", "info", "pool"] = "opposed"
    dice: list[int] = Field(default_factory=list, description="indexes into the result's dice")
    modifier_total: int = 0
    numbers: dict[str, Any] = Field(default_factory=dict)
    success: bool | None = None
    outcome_key: str = ""
    params: dict[str, Any] = Field(default_factory=dict)
    # Only the referee sees it: part of a hidden result's verdict (2300ad UNCERTAIN TASKS).
    referee: bool = False


# Effects for the table to act on (draw a landing point or a blast), not to keep on an actor.
TABLE_ONLY = frozenset({"impact", "blast"})


class Effect(Frozen):
    """What the result does to an actor; the table applies it (and can undo it)."""

    target: Literal["attacker", "target"] = "target"
    kind: str
    delta: int = 0
    value: Any = None
    label_key: str = ""
    params: dict[str, Any] = Field(default_factory=dict)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def on_actor(self) -> bool:
        """False for an effect only the table acts on: no Apply for it (a grenade's miss)."""
        return self.kind not in TABLE_ONLY


class Note(Frozen):
    key: str
    params: dict[str, Any] = Field(default_factory=dict)
    source: str = ""
    referee: bool = False  # as Step.referee


class Resolution(Frozen):
    """The whole, immutable result of one action."""

    ruleset: str
    action: str
    version: int = 1
    request: dict[str, Any]
    dice: list[dict[str, Any]]
    modifiers: list[Modifier]
    steps: list[Step]
    outcome: dict[str, Any]
    effects: list[Effect] = Field(default_factory=list)
    notes: list[Note] = Field(default_factory=list)
    odds: dict[str, Any] = Field(default_factory=dict)
    card: dict[str, Any] = Field(default_factory=dict)
