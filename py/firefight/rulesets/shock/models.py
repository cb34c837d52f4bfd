"""SHOCK request models: TAP stats and troop quality, cover, weapons by damage class, the three
actions' requests (``attack``, ``end_of_turn``, ``draw_chits``, each its own
``firefight.models.ActionRequest``), the attack dialog's options and the world settings.

Each enumeration is written once, as a ``Literal``; the tuples the tables are checked against
are read from it.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field

from firefight.models import ID_MAX, ActionRequest, Distance, OptionLabels, Participant, Strict

ID = "shock"  # the ruleset id (the request models name it as a Literal)
P = f"FIREFIGHT.{ID}"  # its lang keys


_LABELS = OptionLabels(P)
label, choices, stat_choices = _LABELS.label, _LABELS.choices, _LABELS.stat_choices


def setting(key: str, values: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A world setting's schema extras: its label (and choices), and its own hint's lang key
    (``x-hint-key``), shown under it in the ruleset's settings menu."""
    extra = label(key) if values is None else choices(key, values)
    return {**extra, "x-hint-key": f"{P}.opt.{key}.hint"}


# shock Troop Quality table, top to bottom.
Quality = Literal["untrained", "conscript", "green", "regular", "experienced", "veteran", "elite",
                  "rainbow"]
# shock Hit Location table, in the order of the Location Severity columns.
Location = Literal["head", "neck", "arm", "upper_torso", "lower_torso", "leg"]
# shock Damage Class table.
DamageClass = Literal["I", "II", "III", "IV", "V", "VI"]
# shock Location Severity, "Details of Severity": the four results, least to most severe. A
# class VI round "becomes the next tier of severity" along this order.
Tier = Literal["stun", "wound", "shock", "death"]
# What a unit can be: "ok", or the lasting results of the Location Severity table.
State = Literal["ok", "stunned", "shock", "dead"]
# The referee's choices where the text is silent or open (docs/rules-notes.md, SHOCK skirmish).
ToHitRule = Literal["house", "referee"]
WoundScale = Literal["class", "half"]
DamageInShock = Literal["any_hit", "wound_or_worse"]
# The dialog's cover presets (tables/cover.json).
CoverPreset = Literal["none", "low", "chest_high", "all_but_head"]

QUALITIES: tuple[str, ...] = get_args(Quality)
LOCATIONS: tuple[str, ...] = get_args(Location)
DAMAGE_CLASSES: tuple[str, ...] = get_args(DamageClass)
TIERS: tuple[str, ...] = get_args(Tier)
STATES: tuple[str, ...] = get_args(State)
TO_HIT_RULES: tuple[str, ...] = get_args(ToHitRule)
WOUND_SCALES: tuple[str, ...] = get_args(WoundScale)
DAMAGE_IN_SHOCK: tuple[str, ...] = get_args(DamageInShock)
COVER_PRESETS: tuple[str, ...] = get_args(CoverPreset)

TAP = Field(default=None, ge=1, le=10,
            description="1-10; omitted: the generic rating for the unit's quality")
# shock Unit Stats name Toughness and Awareness but no rule uses them (issue 15): the sheet says
# so (``x-hint-key``, and the label itself), and they change nothing.
NO_RULE_TAP = Field(default=None, ge=1, le=10,
                    description="1-10; omitted: the generic rating for the unit's quality. "
                                "No rule in the SHOCK text uses it: carried and shown, changes "
                                "nothing",
                    json_schema_extra={"x-hint-key": f"{P}.stat.no_rule", "x-no-rule": True})
# shock WOUND: wound counters add up (ten or more is shock at once; the bound is generous).
WOUNDS = Field(default=0, ge=0, le=99, description="wound counters")


# shock Unit Activation: held activations (the cap is the unit's skill level, at most 8).
POOL = Field(default=0, ge=0, le=99, description="activations held in the unit's pool")


class ShockStats(Strict):
    """A unit's SHOCK data (``flags.firefight.shock``): TAP, quality, wound counters, state."""

    quality: Quality = Field(default="regular", json_schema_extra={
        "x-enum-label-keys": [f"{P}.quality.{q}" for q in QUALITIES]})
    toughness: int | None = NO_RULE_TAP
    awareness: int | None = NO_RULE_TAP
    prowess: int | None = TAP
    wounds: int = WOUNDS
    state: State = Field(default="ok", json_schema_extra=stat_choices("state", STATES))
    # shock Unit Activation: "Max pool is equivalent to unit skill level" (the activations a
    # unit holds; ``activation.pool``).
    pool: int = POOL
    # shock SHOCK: "must be evacuated by mission end" (the referee ticks it; ``end_of_mission``).
    evacuated: bool = Field(default=False, description="evacuated before the mission's end")


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
    cover: CoverPreset = Field(
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

    to_hit: ToHitRule = Field(
        default="house", json_schema_extra=setting("to_hit", TO_HIT_RULES))
    wound_scale: WoundScale = Field(
        default="class", json_schema_extra=setting("wound_scale", WOUND_SCALES))
    damage_in_shock: DamageInShock = Field(
        default="any_hit", json_schema_extra=setting("damage_in_shock", DAMAGE_IN_SHOCK))


class NoOptions(Strict):
    """Actions the table runs without a dialog."""


class ShockRequest(ActionRequest):
    """What every SHOCK action's request names."""

    ruleset: Literal["shock"]


class AttackRequest(ShockRequest):
    action: Literal["attack"] = "attack"
    attacker: ShockUnit
    target: ShockUnit
    weapon: ShockWeapon
    range: Distance
    options: ShockOptions = Field(default_factory=ShockOptions)
    settings: ShockSettings = Field(default_factory=ShockSettings)


class UnitRef(Strict):
    """Which unit of a multi-unit request (a combat's combatants) an entry is about."""

    name: str = Field(default="", max_length=200)
    actor_id: str | None = Field(default=None, max_length=ID_MAX)
    token_id: str | None = Field(default=None, max_length=ID_MAX)
    combatant_id: str | None = Field(default=None, max_length=ID_MAX)

    def who(self, i: int) -> dict[str, Any]:
        """The unit's index and identity, for the ``params`` of its steps and effects."""
        return {"unit": i, "name": self.name, "actor_id": self.actor_id,
                "token_id": self.token_id, "combatant_id": self.combatant_id}


class TurnUnit(UnitRef):
    """A unit at the end of a turn (shock WOUND: every wounded character checks shock)."""

    wounds: int = WOUNDS
    state: State = "ok"
    skipped_turn: bool = Field(
        default=False, description="stunned, it skipped an activation this turn (its stun ends)")


class EndOfTurnRequest(ShockRequest):
    action: Literal["end_of_turn"]
    units: list[TurnUnit] = Field(min_length=1, max_length=500)
    settings: ShockSettings = Field(default_factory=ShockSettings)


class ChitUnit(UnitRef):
    """A unit putting its chits in the cup: how many depends on its quality."""

    quality: Quality = "regular"
    state: State = "ok"
    pool: int = POOL


class DrawChitsRequest(ShockRequest):
    action: Literal["draw_chits"]
    units: list[ChitUnit] = Field(min_length=1, max_length=500)
    turn: int = Field(default=1, ge=1, le=100_000)
    settings: ShockSettings = Field(default_factory=ShockSettings)


# --- the activation pool ("Max pool is equivalent to unit skill level") ------------------------

PoolChange = Literal["hold", "spend"]
POOL_CHANGES: tuple[str, ...] = get_args(PoolChange)


class PoolOptions(Strict):
    """Hold the activation the unit's chit gave it, or spend one it held."""

    change: PoolChange = Field(default="hold", json_schema_extra=choices("change", POOL_CHANGES))


class PoolUnit(UnitRef):
    quality: Quality = "regular"
    state: State = "ok"
    pool: int = POOL


class PoolRequest(ShockRequest):
    action: Literal["activation_pool"]
    actor: PoolUnit
    options: PoolOptions = Field(default_factory=PoolOptions)
    settings: ShockSettings = Field(default_factory=ShockSettings)


# --- the referee's procedures where the text is silent (``mission``) ---------------------------

class TreatUnit(UnitRef):
    """A unit being treated: its wound counters and state."""

    wounds: int = WOUNDS
    state: State = "ok"


class TreatOptions(Strict):
    """shock WOUND: "Wounds are additive unless properly treated": the referee's treatment."""

    wounds_removed: int | None = Field(
        default=None, ge=1, le=99, json_schema_extra=label("wounds_removed"),
        description="wound counters the treatment removes from each unit; empty: all of them",
    )


class TreatRequest(ShockRequest):
    action: Literal["treat"]
    units: list[TreatUnit] = Field(min_length=1, max_length=500)
    options: TreatOptions = Field(default_factory=TreatOptions)
    settings: ShockSettings = Field(default_factory=ShockSettings)


# What "or risk dying" does to a unit in shock left on the field (the text gives no rule).
EvacuationRisk = Literal["roll", "dies", "referee"]
EVACUATION_RISKS: tuple[str, ...] = get_args(EvacuationRisk)


class MissionUnit(UnitRef):
    """A unit at the mission's end: its state and whether it was evacuated."""

    wounds: int = WOUNDS
    state: State = "ok"
    evacuated: bool = False


class EndOfMissionOptions(Strict):
    """shock SHOCK: "must be evacuated by mission end or risk dying"."""

    risk: EvacuationRisk = Field(default="roll",
                                 json_schema_extra=choices("risk", EVACUATION_RISKS))
    dies_on: int = Field(
        default=5, ge=1, le=10, json_schema_extra=label("dies_on"),
        description="with risk 'roll': 1d10 at or under this dies (Firefight procedure)",
    )


class EndOfMissionRequest(ShockRequest):
    action: Literal["end_of_mission"]
    units: list[MissionUnit] = Field(min_length=1, max_length=500)
    options: EndOfMissionOptions = Field(default_factory=EndOfMissionOptions)
    settings: ShockSettings = Field(default_factory=ShockSettings)
