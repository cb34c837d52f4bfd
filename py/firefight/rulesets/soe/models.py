"""Stars of Empire request models: actor stats, weapons, armor, the Shoot dialog's options, and
one request model per action (``firefight.models.ActionRequest``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import ConfigDict, Field, model_validator

from firefight.models import ID_MAX, ActionRequest, Distance, OptionLabels, Participant, Strict
from firefight.rulesets.soe.damage import creature_hit_points, creature_toughness, excel_round
from firefight.rulesets.soe.data import incapacitation_presets, table1, table10

P = "FIREFIGHT.soe"


_LABELS = OptionLabels(P)
label, choices, stat_choices = _LABELS.label, _LABELS.choices, _LABELS.stat_choices


def setting(key: str, values: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A world setting's schema extras: its label (and choices), and its own hint's lang key
    (``x-hint-key``), shown under it in the ruleset's settings menu."""
    extra = label(key) if values is None else choices(key, values)
    return {**extra, "x-hint-key": f"{P}.opt.{key}.hint"}


Mode = Literal["quickfire", "aimed", "sniper"]
Position = Literal["standing", "kneeling", "prone"]
Movement = Literal["none", "slow", "medium", "fast"]
# Table 1 "Target Size": each row is named by the target's width.
Size = Literal["2cm", "10cm", "30cm", "40cm", "50cm", "70cm", "90cm", "150cm", "3m", "9m", "18m"]
# Table 1's six rows, then Table 10's finer levels (used with the `visibility_table` setting).
Visibility = Literal["daylight", "indoors", "twilight", "full_moon", "starlight", "overcast_night",
                     "overcast", "office", "artificial_light", "corridor", "quarter_moon"]
Wind = Literal["vacuum", "none", "moderate", "high"]
CalledShot = Literal["none", "eye", "hand", "head", "limb", "torso"]
TraumaClass = Literal["trivial", "minor", "moderate", "severe", "critical", "untreatable", "fatal"]
InjuryMode = Literal["hit_points", "general_trauma"]
# World settings' choices.
TieRule = Literal["player", "attacker", "target"]
RangeFloor = Literal["off", "section6", "shifted"]
VisibilityTable = Literal["table1", "table10"]
PretraumaReading = Literal["caption", "example"]
SoloTies = Literal["acting", "referee"]

# The same choices as tuples (the dialog's label keys, tests), read off the types above.
MODES: tuple[str, ...] = get_args(Mode)
POSITIONS: tuple[str, ...] = get_args(Position)
MOVEMENTS: tuple[str, ...] = get_args(Movement)
SIZES: tuple[str, ...] = get_args(Size)
VISIBILITIES: tuple[str, ...] = get_args(Visibility)
WINDS: tuple[str, ...] = get_args(Wind)
CALLED_SHOTS: tuple[str, ...] = get_args(CalledShot)
TRAUMA_CLASSES: tuple[str, ...] = get_args(TraumaClass)
# A trauma class chosen in a dialog: labelled as the card names it (soe Table 3).
TRAUMA_CLASS_LABELS: dict[str, Any] = {
    "x-enum-label-keys": [f"{P}.injury.class.{c}" for c in TRAUMA_CLASSES]}


def visibility_rows() -> dict[str, Any]:
    """``x-choices-when`` of the ``visibility`` option: the rows each world setting offers
    (docs/extending.md, "Choices that depend on a world setting"): Table 1's six, or Table 10's.
    The lists are the tables' own keys, so a referee's edit of a table changes the dialog."""
    return {"x-choices-when": {"setting": "visibility_table", "values": {
        "table1": list(table1()["visibility"]), "table10": list(table10())}}}


class SoeStats(Strict):
    """An actor's Stars of Empire data (``flags.firefight.soe``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    kind: Literal["human", "creature"] = Field(
        default="human", json_schema_extra=stat_choices("kind", ("human", "creature")))
    marksmanship: int = Field(default=0, ge=0, le=200, description="marksmanship skill + fortes")
    strength: int = Field(default=10, ge=0, le=100, alias="str")
    agility: int = Field(default=10, ge=0, le=100, alias="agl")
    will: int = Field(default=10, ge=0, le=100)
    toughness: int | None = Field(default=None, ge=-50, le=100, description="creatures, Table 7")
    hp: int | None = Field(default=None, ge=-1000, le=10000, description="current hit points")
    hp_max: int = Field(default=8, ge=1, le=10000, description="soe 2.4: a human has 8")
    mass_kg: float | None = Field(default=None, gt=0, le=1_000_000)
    injury_mode: Literal["world", "hit_points", "general_trauma"] = Field(
        default="world", description="soe Table 3: the referee's choice for this actor",
        json_schema_extra=stat_choices("injury_mode", ("world", "hit_points", "general_trauma")))
    pretrauma: int = Field(default=0, ge=-10, le=0, description="current Pre-Trauma penalty")
    # The sheet edits it as a row per injury, each a choice of class (FIREFIGHT.soe.injury.class).
    delayed_injuries: list[Annotated[TraumaClass, Field(json_schema_extra={
        "x-enum-label-keys": [f"{P}.injury.class.{c}" for c in TRAUMA_CLASSES]})]] = Field(
        default_factory=list, max_length=50, description="possible delayed injuries (Table 3)")

    @model_validator(mode="before")
    @classmethod
    def _creature_from_mass(cls, data: Any) -> Any:
        """soe 10.5: a creature given only its mass gets Toughness and Hit Points from it (a
        value the data gives is kept). Derived here, where every request and every ``apply``
        validates the actor's data, so the table needs no rule of its own: a creature dragged
        in with a mass and nothing else fights with the derived values, and the first result
        applied to it writes them to its sheet."""
        if not isinstance(data, dict) or data.get("kind") != "creature":
            return data
        mass = data.get("mass_kg")
        if not isinstance(mass, int | float) or isinstance(mass, bool) or not 0 < mass <= 1e6:
            return data  # the field's own check names a bad mass
        derived = dict(data)
        if derived.get("toughness") is None:
            derived["toughness"] = excel_round(creature_toughness(mass))
        if derived.get("hp_max") is None:
            derived["hp_max"] = creature_hit_points(mass)
        return derived


class SoeArmor(Strict):
    """A worn piece of armor (soe Table 6)."""

    name: str = Field(default="", max_length=200)
    item_id: str | None = Field(default=None, max_length=ID_MAX)
    category: Literal["armor"] = "armor"
    vs_rifle: int = Field(ge=-50, le=0)
    vs_pistol: int = Field(ge=-50, le=0)
    coverage: float = Field(default=0.0, ge=0, le=1)
    thickness_mm: float = Field(default=0.0, ge=0)
    mass_kg: float = Field(default=0.0, ge=0)
    helmet: bool = False


class SoeCombatant(Participant):
    stats: SoeStats = Field(default_factory=SoeStats)
    armor: list[SoeArmor] = Field(default_factory=list, max_length=20)


class SoeWeapon(Strict):
    """A weapon (soe Table 5) and its ammunition."""

    name: str = Field(default="", max_length=200)
    item_id: str | None = Field(default=None, max_length=ID_MAX)
    category: Literal["weapon"] = "weapon"
    damage: int = Field(ge=-50, le=50, description="Table 5 Damage")
    to_hit: int | None = Field(
        default=None, ge=-50, le=50, description="Table 5 To-Hit: replaces the weapon-type row"
    )
    weapon_type: Literal["rifle", "pistol", "other"] = "rifle"
    armor_column: Literal["rifle", "pistol"] | None = Field(
        default=None, description="which Table 6 column armor uses; default by weapon type"
    )
    quality: Literal["very_poor", "poor", "standard", "high", "other"] = "standard"
    quality_modifier: int | None = Field(default=None, ge=-50, le=50)
    max_range_m: float | None = Field(default=None, gt=0)
    scope: bool = False
    scope_modifier: int = Field(default=table1()["scope"], ge=0, le=30,
                                description="Table 1 Scope: +6 or own")
    projectiles: int = Field(default=1, ge=1, le=10000, description="projectiles per action")


class SoeOptions(Strict):
    """What the shooter chooses in the Shoot dialog (soe Table 1)."""

    mode: Mode = Field(default="aimed", json_schema_extra=choices("mode", MODES))
    position: Position = Field(default="standing", json_schema_extra=choices("position", POSITIONS))
    target_movement: Movement = Field(
        default="none", json_schema_extra=choices("target_movement", MOVEMENTS)
    )
    target_size: Size = Field(default="70cm", json_schema_extra=choices("target_size", SIZES))
    visibility: Visibility = Field(
        default="daylight",
        json_schema_extra={**choices("visibility", VISIBILITIES), **visibility_rows()})
    wind: Wind = Field(default="none", json_schema_extra=choices("wind", WINDS))
    perfect_ranging: bool = Field(default=False, json_schema_extra=label("perfect_ranging"))
    target_dodging: bool = Field(default=False, json_schema_extra=label("target_dodging"))
    projectiles: int | None = Field(
        default=None, ge=1, le=10000, json_schema_extra=label("projectiles")
    )
    called_shot: CalledShot = Field(
        default="none", json_schema_extra=choices("called_shot", CALLED_SHOTS)
    )


class SoeSettings(Strict):
    """World settings (the referee's choices where the text allows two readings)."""

    tie_goes_to: TieRule = Field(
        default="player", json_schema_extra=setting("tie_goes_to", get_args(TieRule)))
    injury_mode: InjuryMode = Field(
        default="hit_points", json_schema_extra=setting("injury_mode", get_args(InjuryMode)))
    range_floor: RangeFloor = Field(
        default="off", json_schema_extra=setting("range_floor", get_args(RangeFloor)))
    visibility_table: VisibilityTable = Field(
        default="table1", json_schema_extra=setting("visibility_table", get_args(VisibilityTable)))
    delayed_injury: bool = Field(default=False, json_schema_extra=setting("delayed_injury"))
    pretrauma: bool = Field(default=False, json_schema_extra=setting("pretrauma"))
    pretrauma_reading: PretraumaReading = Field(
        default="caption",
        json_schema_extra=setting("pretrauma_reading", get_args(PretraumaReading)))
    # Table 1 "Scope": "Aimed fire only"; off, the derivation's sniper anchors hold (8.6).
    scope_in_sniper: bool = Field(default=False, json_schema_extra=setting("scope_in_sniper"))
    # "Ties go in the Player's favor" (4) says nothing of a roll no player takes part in.
    solo_ties: SoloTies = Field(
        default="acting", json_schema_extra=setting("solo_ties", get_args(SoloTies)))


TraumaTables = dict[TraumaClass, Annotated[list[Annotated[str, Field(max_length=500)]],
                                           Field(min_length=5, max_length=5)]]


class SoeAttackRequest(ActionRequest):
    """soe 2.3-2.4: a shot, the to-hit roll and on a hit the to-damage roll (the default action)."""

    ruleset: Literal["soe"]
    action: Literal["attack"] = "attack"
    attacker: SoeCombatant
    target: SoeCombatant
    weapon: SoeWeapon
    range: Distance
    options: SoeOptions = Field(default_factory=SoeOptions)
    settings: SoeSettings = Field(default_factory=SoeSettings)
    trauma_tables: TraumaTables | None = Field(
        default=None, description="the referee's General Trauma RollTables, five effects each")


class SoeWillCheckRequest(ActionRequest):
    """soe Table 3, Pre-trauma: a Will roll that, on success, ends the Pre-Trauma penalty."""

    ruleset: Literal["soe"]
    action: Literal["will_check"]
    character: SoeCombatant
    settings: SoeSettings = Field(default_factory=SoeSettings)


class SoeDelayedInjuryRequest(ActionRequest):
    """soe Table 3, Delayed Injury: after combat, an opposed roll modified by Strength."""

    ruleset: Literal["soe"]
    action: Literal["delayed_injury_check"]
    character: SoeCombatant
    trauma_class: TraumaClass = Field(json_schema_extra=TRAUMA_CLASS_LABELS)
    settings: SoeSettings = Field(default_factory=SoeSettings)


class SoeTraumaRequest(ActionRequest):
    """soe Table 3, General Trauma Table: effect ceil(1d20/4) of the class's five."""

    ruleset: Literal["soe"]
    action: Literal["general_trauma"]
    character: SoeCombatant
    trauma_class: TraumaClass = Field(json_schema_extra=TRAUMA_CLASS_LABELS)
    trauma_tables: TraumaTables | None = None


# --- a generic opposed roll (soe 2.1.2) ----------------------------------------------------

class SoeTaskOptions(Strict):
    """Any task as an opposed roll + RANT: the acting side's and the opposing side's modifiers
    (soe 2.1.2: "Situation specific modifiers are added and the higher total succeeds")."""

    task: str = Field(default="", max_length=200, json_schema_extra=label("task"),
                      description="what is tried (shown on the card)")
    modifier: int = Field(default=0, ge=-200, le=200, json_schema_extra=label("modifier"),
                          description="the acting side's modifiers (effective skill ...)")
    opposition: int = Field(default=0, ge=-200, le=200, json_schema_extra=label("opposition"),
                            description="the opposing side's modifier (a Difficult lock: +10)")


class SoeTaskRequest(ActionRequest):
    """soe 2.1.2 and 4: an opposed roll for any task; ``opponent`` when a character opposes
    (else the referee, for the environment)."""

    ruleset: Literal["soe"]
    action: Literal["task"]
    character: SoeCombatant = Field(default_factory=SoeCombatant)
    opponent: SoeCombatant | None = None
    options: SoeTaskOptions = Field(default_factory=SoeTaskOptions)
    settings: SoeSettings = Field(default_factory=SoeSettings)


# --- the referee's tools (sections 6-11): every input is a dialog option -------------------

Grains = Annotated[float, Field(gt=0, le=100_000, allow_inf_nan=False)]
Fps = Annotated[float, Field(gt=0, le=100_000, allow_inf_nan=False)]


class SoeWeaponDamageOptions(Strict):
    """soe 10.3: a weapon's Damage from its bullet's mass and impact velocity."""

    mass_grains: Grains = Field(default=63, json_schema_extra=label("mass_grains"))
    velocity_fps: Fps = Field(default=2362, json_schema_extra=label("velocity_fps"),
                              description="at impact (75-80 % of muzzle velocity, 11.2)")


class SoeCreatureOptions(Strict):
    """soe 10.5: a creature's Toughness and Hit Points from its mass."""

    mass_kg: float = Field(default=62, gt=0, le=1_000_000, allow_inf_nan=False,
                           json_schema_extra=label("mass_kg"))


class SoeCoverageOptions(Strict):
    """soe 11.2.1: how effective armor covering part of the body is."""

    coverage: float = Field(default=0.1, ge=0, le=1, allow_inf_nan=False,
                            json_schema_extra=label("coverage"),
                            description="fraction of the body covered (Table 6: 10% is 0.1)")


class SoeM3Options(Strict):
    """soe section 6: the M3 equation's hit probability (and the opposed-roll modifier for it,
    section 4)."""

    width_m: float = Field(default=0.37, gt=0, le=1000, allow_inf_nan=False,
                           json_schema_extra=label("width_m"),
                           description="target width; 0.37 m is the E-type silhouette")
    distance_m: float = Field(default=100, gt=0, le=50_000, allow_inf_nan=False,
                              json_schema_extra=label("distance_m"))
    sigma_mil: float = Field(default=3.9, gt=0, le=1000, allow_inf_nan=False,
                             json_schema_extra=label("sigma_mil"),
                             description="the shooter's aiming error (8.6's test shooter: 3.9)")


Preset = Literal["offense_winter_helmet", "nude_5min", "custom"]
PRESETS: tuple[str, ...] = get_args(Preset)


class SoeIncapacitationOptions(Strict):
    """soe section 10: P_hk for a projectile, with the text's two sets of constants or the
    referee's own (``custom``: then ``a``, ``b`` and ``n`` are needed)."""

    mass_grains: Grains = Field(default=63, json_schema_extra=label("mass_grains"))
    velocity_fps: Fps = Field(default=2362, json_schema_extra=label("velocity_fps"))
    preset: Preset = Field(default="offense_winter_helmet",
                           json_schema_extra=choices("preset", PRESETS))
    a: float | None = Field(default=None, gt=0, le=1, allow_inf_nan=False,
                            json_schema_extra=label("a"))
    b: float | None = Field(default=None, ge=0, le=1e12, allow_inf_nan=False,
                            json_schema_extra=label("b"))
    n: float | None = Field(default=None, gt=0, le=5, allow_inf_nan=False,
                            json_schema_extra=label("n"))

    @model_validator(mode="after")
    def _constants(self) -> SoeIncapacitationOptions:
        if self.preset == "custom" and None in (self.a, self.b, self.n):
            missing = [k for k in ("a", "b", "n") if getattr(self, k) is None]
            raise ValueError(f"custom constants need a, b and n (missing: {', '.join(missing)})")
        return self

    def constants(self) -> tuple[float, float, float]:
        """(a, b, n): the preset's (Table ``incapacitation.json``), each overridden if given."""
        base = incapacitation_presets().get(self.preset, {})
        a = self.a if self.a is not None else base["a"]
        b = self.b if self.b is not None else base["b"]
        n = self.n if self.n is not None else base["n"]
        return float(a), float(b), float(n)


class _ToolRequest(ActionRequest):
    ruleset: Literal["soe"]


class SoeWeaponDamageRequest(_ToolRequest):
    action: Literal["weapon_damage"]
    options: SoeWeaponDamageOptions = Field(default_factory=SoeWeaponDamageOptions)


class SoeCreatureRequest(_ToolRequest):
    action: Literal["creature_stats"]
    options: SoeCreatureOptions = Field(default_factory=SoeCreatureOptions)


class SoeCoverageRequest(_ToolRequest):
    action: Literal["armor_coverage"]
    options: SoeCoverageOptions = Field(default_factory=SoeCoverageOptions)


class SoeM3Request(_ToolRequest):
    action: Literal["m3_hit"]
    options: SoeM3Options = Field(default_factory=SoeM3Options)


class SoeIncapacitationRequest(_ToolRequest):
    action: Literal["incapacitation"]
    options: SoeIncapacitationOptions = Field(default_factory=SoeIncapacitationOptions)
