"""SHOCK request models: TAP stats and troop quality, cover, weapons by damage class, the three
actions (``attack``, ``end_of_turn``, ``draw_chits``), the attack dialog's options and the world
settings.

The request model is a ``RootModel`` over the three action requests, discriminated on
``"action"`` (a request without one is an attack). Validation errors name the field as the
player wrote it (``weapon.damage_class``), without the union's tag in front.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Discriminator,
    Field,
    RootModel,
    Tag,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from firefight.models import ID_MAX, Distance, OptionLabels, Participant, Strict

P = "FIREFIGHT.shock"


_LABELS = OptionLabels(P)
label, choices = _LABELS.label, _LABELS.choices


# shock Troop Quality table, top to bottom.
QUALITIES = ("untrained", "conscript", "green", "regular", "experienced", "veteran", "elite",
             "rainbow")
# shock Hit Location table, in the order of the Location Severity columns.
LOCATIONS = ("head", "neck", "arm", "upper_torso", "lower_torso", "leg")
# shock Damage Class table.
DAMAGE_CLASSES = ("I", "II", "III", "IV", "V", "VI")
# What a unit can be: "ok", or the lasting results of the Location Severity table.
STATES = ("ok", "stunned", "shock", "dead")
ACTIONS = ("attack", "end_of_turn", "draw_chits")
TO_HIT_RULES = ("house", "referee")
WOUND_SCALES = ("class", "half")
DAMAGE_IN_SHOCK = ("any_hit", "wound_or_worse")
COVER_PRESETS = ("none", "low", "chest_high", "all_but_head")

Quality = Literal["untrained", "conscript", "green", "regular", "experienced", "veteran", "elite",
                  "rainbow"]
Location = Literal["head", "neck", "arm", "upper_torso", "lower_torso", "leg"]
DamageClass = Literal["I", "II", "III", "IV", "V", "VI"]
State = Literal["ok", "stunned", "shock", "dead"]

TAP = Field(default=None, ge=1, le=10,
            description="1-10; omitted: the generic rating for the unit's quality")


class ShockStats(Strict):
    """A unit's SHOCK data (``flags.firefight.shock``): TAP, quality, wound counters, state."""

    quality: Quality = "regular"
    toughness: int | None = TAP
    awareness: int | None = TAP
    prowess: int | None = TAP
    wounds: int = Field(default=0, ge=0, le=99, description="wound counters")
    state: State = "ok"


class ShockProtection(Strict):
    """Cover or armor: the hit locations it protects and the highest damage class it stops."""

    name: str = Field(default="", max_length=200)
    item_id: str | None = Field(default=None, max_length=ID_MAX)
    category: Literal["cover", "armor"] = "cover"
    locations: list[Location] = Field(min_length=1, max_length=6)
    stops: DamageClass = Field(description="it stops rounds of this class and every lower one")


class ShockUnit(Participant):
    """A unit in an attack: its stats, the armor it wears and the cover it is behind."""

    stats: ShockStats = Field(default_factory=ShockStats)
    armor: list[ShockProtection] = Field(default_factory=list, max_length=20)
    cover: list[ShockProtection] = Field(default_factory=list, max_length=20)


class ShockWeapon(Strict):
    """A weapon: its damage class is all SHOCK needs of it."""

    name: str = Field(default="", max_length=200)
    item_id: str | None = Field(default=None, max_length=ID_MAX)
    category: Literal["weapon"] = "weapon"
    damage_class: DamageClass
    calibre: str = Field(default="", max_length=100)


class ShockOptions(Strict):
    """The attack dialog: the referee's confirmation, the cover the target is behind (a preset
    of ``tables/cover.json``), and the to-hit house rule's modifiers."""

    referee_confirmed_hit: bool = Field(default=False,
                                        json_schema_extra=label("referee_confirmed_hit"))
    cover: Literal["none", "low", "chest_high", "all_but_head"] = Field(
        default="none", json_schema_extra=choices("cover", COVER_PRESETS))
    cover_stops: DamageClass = Field(
        default="IV", json_schema_extra=choices("cover_stops", DAMAGE_CLASSES))
    aimed: bool = Field(default=False, json_schema_extra=label("aimed"))
    shooter_moved: bool = Field(default=False, json_schema_extra=label("shooter_moved"))
    target_moving: bool = Field(default=False, json_schema_extra=label("target_moving"))
    target_prone: bool = Field(default=False, json_schema_extra=label("target_prone"))
    situational: int = Field(default=0, ge=-5, le=5, json_schema_extra=label("situational"))


class ShockSettings(Strict):
    """World settings: the referee's choices where the text is silent or open."""

    to_hit: Literal["house", "referee"] = Field(
        default="house", json_schema_extra=choices("to_hit", TO_HIT_RULES))
    wound_scale: Literal["class", "half"] = Field(
        default="class", json_schema_extra=choices("wound_scale", WOUND_SCALES))
    damage_in_shock: Literal["any_hit", "wound_or_worse"] = Field(
        default="any_hit", json_schema_extra=choices("damage_in_shock", DAMAGE_IN_SHOCK))


class NoOptions(Strict):
    """Actions the table runs without a dialog."""


class AttackRequest(Strict):
    ruleset: Literal["shock"]
    action: Literal["attack"] = "attack"
    attacker: ShockUnit
    target: ShockUnit
    weapon: ShockWeapon
    range: Distance
    options: ShockOptions = Field(default_factory=ShockOptions)
    settings: ShockSettings = Field(default_factory=ShockSettings)


class TurnUnit(Strict):
    """A unit at the end of a turn (shock WOUND: every wounded character checks shock)."""

    name: str = Field(default="", max_length=200)
    actor_id: str | None = Field(default=None, max_length=ID_MAX)
    token_id: str | None = Field(default=None, max_length=ID_MAX)
    combatant_id: str | None = Field(default=None, max_length=ID_MAX)
    wounds: int = Field(default=0, ge=0, le=99)
    state: State = "ok"
    skipped_turn: bool = Field(
        default=False, description="stunned, it skipped an activation this turn (its stun ends)")


class EndOfTurnRequest(Strict):
    ruleset: Literal["shock"]
    action: Literal["end_of_turn"]
    units: list[TurnUnit] = Field(min_length=1, max_length=500)
    settings: ShockSettings = Field(default_factory=ShockSettings)


class ChitUnit(Strict):
    """A unit putting its chits in the cup: how many depends on its quality."""

    name: str = Field(default="", max_length=200)
    actor_id: str | None = Field(default=None, max_length=ID_MAX)
    token_id: str | None = Field(default=None, max_length=ID_MAX)
    combatant_id: str | None = Field(default=None, max_length=ID_MAX)
    quality: Quality = "regular"
    state: State = "ok"


class DrawChitsRequest(Strict):
    ruleset: Literal["shock"]
    action: Literal["draw_chits"]
    units: list[ChitUnit] = Field(min_length=1, max_length=500)
    turn: int = Field(default=1, ge=1, le=100_000)
    settings: ShockSettings = Field(default_factory=ShockSettings)


AnyRequest = AttackRequest | EndOfTurnRequest | DrawChitsRequest


def action_of(data: Any) -> str | None:
    """The union's tag: the request's ``action``, an attack when it names none."""
    if isinstance(data, dict):
        action = data.get("action", "attack")
        return action if isinstance(action, str) else repr(action)
    return getattr(data, "action", None)


class ShockRequest(RootModel[Annotated[
    Annotated[AttackRequest, Tag("attack")]
    | Annotated[EndOfTurnRequest, Tag("end_of_turn")]
    | Annotated[DrawChitsRequest, Tag("draw_chits")],
    Discriminator(action_of),
]]):
    """Any SHOCK request, picked by its ``action``."""

    model_config = ConfigDict(frozen=True)

    @model_validator(mode="wrap")
    @classmethod
    def _field_names_without_the_tag(cls, data: Any, handler: ValidatorFunctionWrapHandler
                                     ) -> Any:
        try:
            return handler(data)
        except ValidationError as exc:
            raise ValidationError.from_exception_data(
                exc.title, [_untagged(e, data) for e in exc.errors()]) from None


def _untagged(error: Any, data: Any) -> InitErrorDetails:
    loc = tuple(error["loc"])
    kind: str | PydanticCustomError = error["type"]
    if loc and loc[0] in ACTIONS:
        loc = loc[1:]
    elif kind == "union_tag_invalid":
        loc = ("action",)
        kind = PydanticCustomError("unknown_action", "unknown action {action}; one of: {known}",
                                   {"action": action_of(data), "known": ", ".join(ACTIONS)})
    detail: InitErrorDetails = {"type": kind, "loc": loc, "input": error["input"]}
    if "ctx" in error and not isinstance(kind, PydanticCustomError):
        detail["ctx"] = error["ctx"]
    return detail
