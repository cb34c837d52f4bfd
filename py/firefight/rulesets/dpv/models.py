"""2300 AD-style (``dpv``) models: one request per action (the core validates each with its own
model, ``firefight.registry.Action``), the dialogs, the world settings and the actor data.

DPVs are decimals in this system (0.4, 0.025): they are floats here and become exact
``Fraction``s inside the rules (``data.exact``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from firefight.models import ID_MAX, ActionRequest, Distance, OptionLabels, Participant, Strict

P = "FIREFIGHT.dpv"
# 2300ad FIRE COMBAT prints no weapon, so a weapon's area-fire figures have our bounds, each the
# point past which the rules change nothing (docs/rules-notes.md, "Area fire bounds"):
# AFV 10: every NPC of the table (Coolness at most 10, elite) ducks on any 1D10 + AFV ("Ducking").
MAX_AFV = 10
# ROF: "number of area fire bursts per round" (l. 420); ten bursts at AFV 10 hit 200 times.
MAX_ROF = 10
# A burst hits at most 2 x AFV times (doubled at close, on a 1D10 of 1: "a third the number
# equals three hits"), so rounds per burst past 2 x MAX_AFV never hit ("Area Fire", l. 426).
MAX_RPB = 2 * MAX_AFV


_LABELS = OptionLabels(P)
label, choices, stat_choices = _LABELS.label, _LABELS.choices, _LABELS.stat_choices


def setting(key: str, values: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A world setting's schema extras: its label (and choices), and its own hint's lang key
    (``x-hint-key``), shown under it in the ruleset's settings menu."""
    extra = label(key) if values is None else choices(key, values)
    return {**extra, "x-hint-key": f"{P}.opt.{key}.hint"}


DIFFICULTIES = ("simple", "easy", "routine", "difficult", "formidable", "impossible")
Difficulty = Literal["simple", "easy", "routine", "difficult", "formidable", "impossible"]
SKILLS = ("marksmanship", "forward_observer", "melee", "demolitions", "vehicle", "medical",
          "determination")
Skill = Literal["marksmanship", "forward_observer", "melee", "demolitions", "vehicle", "medical",
                "determination"]
CHARACTERISTICS = ("strength", "dexterity", "size", "endurance", "intelligence", "education")
Characteristic = Literal["strength", "dexterity", "size", "endurance", "intelligence",
                         "education"]
EXPERIENCES = ("green", "experienced", "veteran", "elite")
Experience = Literal["green", "experienced", "veteran", "elite"]
WOUND_TYPES = ("normal", "blunt", "stun")
WoundType = Literal["normal", "blunt", "stun"]
LOCATIONS = ("head", "chest", "abdomen", "upper_leg", "lower_leg", "arm")
Location = Literal["head", "chest", "abdomen", "upper_leg", "lower_leg", "arm"]
MATERIALS = ("wood", "loose_dirt", "packed_dirt_stone", "brick_cement", "reinforced_concrete",
             "construction_steel", "hardened_steel", "aligned_crystal_steel",
             "construction_composites", "composite_matrix_armor")
Material = Literal["wood", "loose_dirt", "packed_dirt_stone", "brick_cement",
                   "reinforced_concrete", "construction_steel", "hardened_steel",
                   "aligned_crystal_steel", "construction_composites", "composite_matrix_armor"]
WEAPON_KINDS = ("firearm", "shotgun", "flechette_grenade", "explosive", "melee", "thrown")
DEVIATION_TYPES = ("direct_fire", "indirect_grenade", "indirect_mortar", "indirect_missile",
                   "indirect_rocket")
DeviationType = Literal["direct_fire", "indirect_grenade", "indirect_mortar", "indirect_missile",
                        "indirect_rocket"]
PRESETS = ("aimed_fire", "indirect_fire", "laser_designation", "strike", "block",
           "avoid_diving_blow", "grapple", "escape", "drive_double_speed", "drive_evasively",
           "avoid_crash", "emplace_charge", "determination", "competition", "resuscitate",
           "stabilize", "heal")
Preset = Literal["aimed_fire", "indirect_fire", "laser_designation", "strike", "block",
                 "avoid_diving_blow", "grapple", "escape", "drive_double_speed", "drive_evasively",
                 "avoid_crash", "emplace_charge", "determination", "competition", "resuscitate",
                 "stabilize", "heal"]
Level = Annotated[int, Field(ge=0, le=30)]
Dpv = Annotated[float, Field(ge=0, le=10_000, allow_inf_nan=False)]


class DpvStats(Strict):
    """An actor's 2300 AD data (``flags.firefight.dpv``)."""

    strength: Level = 10
    dexterity: Level = 10
    size: Level = 10
    endurance: Level = 10
    intelligence: Level = 10
    education: Level = 10
    skills: dict[Skill, Level] = Field(default_factory=dict)
    experience: Experience | None = Field(default=None, description="NPCs: the NPC table row",
                                          json_schema_extra=stat_choices("experience", EXPERIENCES))
    coolness: int | None = Field(default=None, ge=0, le=30)
    incapacitation: int | None = Field(default=None, ge=1, le=30,
                                       description="NPCs: light wounds to incapacitate")
    consciousness_level: int | None = Field(default=None, ge=1, le=100)
    life_level: int | None = Field(default=None, ge=1, le=100)
    shock: int = Field(default=0, ge=0, le=100)
    stun: int = Field(default=0, ge=0, le=100)
    light_wounds: int = Field(default=0, ge=0, le=100)
    throw_range_m: float | None = Field(default=None, gt=0, le=10_000, allow_inf_nan=False)
    # Wound Effects as state the combat tracker counts down (action ``combat_turn``).
    initiative: int | None = Field(default=None, ge=0, le=30,
                                   description="PCs: the initiative level (NPCs: Coolness)")
    initiative_loss: int = Field(default=0, ge=0, le=300,
                                 description="-3 per shock or stun point, -1 per light wound")
    dazed_turns: int = Field(default=0, ge=0, le=300,
                             description="turns of dazed left (shock + stun points received)")
    dazed_turn_end: bool = Field(default=False,
                                 description="dazed until the end of this combat turn")
    immobilized: bool = Field(default=False,
                              description="a light wound: immobilized for the rest of the turn")
    ducked: bool = Field(default=False,
                         description="ducked under area fire: no more actions this turn")
    moved: bool = Field(default=False,
                        description="moved since the last critical point: DM -1 at the next")
    # A vehicle (VEHICLE DAMAGE, MISSILE PROCEDURE): its armor and evasive value.
    vehicle_armor: float | None = Field(default=None, ge=0, le=100_000, allow_inf_nan=False,
                                        description="set: this actor is a vehicle")
    evasive: int = Field(default=0, ge=0, le=20,
                         description="vehicles: evasive value (missiles need homing - it)")
    evading: bool = Field(default=False,
                          description="driven evasively this combat turn (COMBAT TASKS)")


def _all_locations() -> list[Location]:
    return ["head", "chest", "abdomen", "upper_leg", "lower_leg", "arm"]


class DpvArmor(Strict):
    """Worn armor: its value is subtracted from the DPV of a hit on a covered location."""

    name: str = Field(default="", max_length=200)
    item_id: str | None = Field(default=None, max_length=ID_MAX)
    category: Literal["armor"] = "armor"
    value: Dpv
    locations: list[Location] = Field(default_factory=_all_locations, max_length=6)


class Cover(Strict):
    """Cover between the weapon and the figure: material armor value x thickness."""

    material: Material
    thickness_cm: float = Field(gt=0, le=100_000, allow_inf_nan=False)


class DpvCombatant(Participant):
    stats: DpvStats = Field(default_factory=DpvStats)
    armor: list[DpvArmor] = Field(default_factory=list, max_length=20)


class DpvWeapon(Strict):
    """A weapon's 2300 AD line: effective range, DPV, AFV, ROF, rounds per burst."""

    name: str = Field(default="", max_length=200)
    item_id: str | None = Field(default=None, max_length=ID_MAX)
    category: Literal["weapon"] = "weapon"
    kind: Literal["firearm", "shotgun", "flechette_grenade", "explosive", "melee", "thrown"] = (
        "firearm")
    effective_range_m: float = Field(gt=0, le=1_000_000, allow_inf_nan=False)
    dpv: Dpv
    wound_type: WoundType = "normal"
    afv: float | None = Field(default=None, ge=0, le=MAX_AFV, allow_inf_nan=False)
    rof: int = Field(default=1, ge=1, le=MAX_ROF)
    rpb: int = Field(default=1, ge=1, le=MAX_RPB, description="rounds per burst")
    ep: float | None = Field(default=None, gt=0, le=100_000, allow_inf_nan=False,
                             description="explosive power of an exploding round")
    deviation: DeviationType | None = Field(default=None,
                                            description="exploding rounds: deviation type")
    indirect_range_m: float | None = Field(default=None, gt=0, le=10_000_000,
                                           allow_inf_nan=False)
    homing: int | None = Field(default=None, ge=0, le=30,
                               description="missiles: homing value (MISSILE PROCEDURE)")


FIRE_MODES = ("aimed", "indirect", "laser_designation")
TASK_DICE = ("1d10", "2d6")
LOCATION_RULES = ("diagram", "optional_severity")
ZERO_DPV = ("no_effect", "third_column")
MISSILE_HIT = ("at_or_under", "under")
EVASIVE_RULES = ("while_evading", "always")


class DpvSettings(Strict):
    """World settings: the referee's choice where the text allows two readings."""

    task_dice: Literal["1d10", "2d6"] = Field(
        default="1d10", json_schema_extra=setting("task_dice", TASK_DICE))
    easy_in_ladder: bool = Field(default=False, json_schema_extra=setting("easy_in_ladder"))
    location_rule: Literal["diagram", "optional_severity"] = Field(
        default="diagram", json_schema_extra=setting("location_rule", LOCATION_RULES))
    zero_dpv: Literal["no_effect", "third_column"] = Field(
        default="no_effect", json_schema_extra=setting("zero_dpv", ZERO_DPV))
    # MISSILE PROCEDURE: "Roll 1d10 under (homing value of missile - evasive value of target)".
    missile_hit: Literal["at_or_under", "under"] = Field(
        default="under", json_schema_extra=setting("missile_hit", MISSILE_HIT))
    # MISSILE PROCEDURE's "evasive value of target" and COMBAT TASKS' "To drive evasively":
    # counted only while the vehicle is driven evasively (the task succeeded this turn), or
    # always (docs/rules-notes.md).
    evasive_rule: Literal["while_evading", "always"] = Field(
        default="while_evading", json_schema_extra=setting("evasive_rule", EVASIVE_RULES))


class AttackOptions(Strict):
    """The Shoot dialog for aimed fire."""

    fire: Literal["aimed", "indirect", "laser_designation"] = Field(
        default="aimed", json_schema_extra=choices("fire", FIRE_MODES))
    shots: int = Field(default=1, ge=1, le=100, json_schema_extra=label("shots"))
    stationary_in_open: bool = Field(default=False, json_schema_extra=label("stationary_in_open"))
    dm: int = Field(default=0, ge=-20, le=20, json_schema_extra=label("dm"))
    cover_material: Material | None = Field(
        default=None, json_schema_extra=choices("cover_material", MATERIALS))
    cover_thickness_cm: float = Field(default=0, ge=0, le=100_000, allow_inf_nan=False,
                                      json_schema_extra=label("cover_thickness_cm"))
    location: Location | None = Field(
        default=None, json_schema_extra=choices("location", LOCATIONS),
        description="a called location instead of the target-hits roll (referee's choice)")


class DpvRequest(ActionRequest):
    """What every dpv request carries: the ruleset and the world's settings."""

    ruleset: Literal["dpv"]
    settings: DpvSettings = Field(default_factory=DpvSettings)


class AttackRequest(DpvRequest):
    action: Literal["attack"] = "attack"  # the default action (the first declared)
    attacker: DpvCombatant
    target: DpvCombatant
    weapon: DpvWeapon
    range: Distance
    options: AttackOptions = Field(default_factory=AttackOptions)


class TaskOptions(Strict):
    preset: Preset | None = Field(default=None, json_schema_extra=choices("preset", PRESETS))
    # None: the preset's difficulty, else Routine (tasks.DEFAULT_DIFFICULTY); a default rung
    # here would override every preset's.
    difficulty: Difficulty | None = Field(
        default=None, json_schema_extra={**choices("difficulty", DIFFICULTIES),
                                         "x-hint-key": f"{P}.opt.difficulty.hint"})
    skill: int | None = Field(default=None, ge=0, le=30, json_schema_extra=label("skill"),
                              description="skill level; default: the preset's skill of the actor")
    characteristics: list[Level] | None = Field(
        default=None, max_length=6, json_schema_extra=label("characteristics"),
        description="crucial characteristic values (each divided by 4)")
    dm: int = Field(default=0, ge=-30, le=30, json_schema_extra=label("dm"))
    opponent_asset: int = Field(default=0, ge=0, le=60, json_schema_extra=label("opponent_asset"))
    hasty: bool = Field(default=False, json_schema_extra=label("hasty"))
    hazardous: bool = Field(default=False, json_schema_extra=label("hazardous"))
    uncertain: bool | None = Field(default=None, json_schema_extra=label("uncertain"))
    medkit_only: bool = Field(default=False, json_schema_extra=label("medkit_only"))
    harder: int = Field(default=0, ge=-5, le=5, json_schema_extra=label("harder"),
                        description="extra difficulty levels (a failed determination: +1)")
    time_seconds: float | None = Field(default=None, gt=0, le=1e9, allow_inf_nan=False,
                                       json_schema_extra=label("time_seconds"))


class TaskRequest(DpvRequest):
    action: Literal["task"]
    actor: DpvCombatant = Field(default_factory=DpvCombatant)
    options: TaskOptions = Field(default_factory=TaskOptions)


class Figure(DpvCombatant):
    """A figure under area fire or near an explosion."""

    distance_m: float | None = Field(default=None, ge=0, le=10_000_000, allow_inf_nan=False,
                                     description="from the weapon (area fire) or the blast")
    place: Literal["in_area", "line_of_fire", "beyond"] = "in_area"
    duck: bool | None = Field(default=None, description="PCs choose; NPCs roll when None")
    cover: Cover | None = None


MOVING = ("stationary", "walking", "trotting")


class AreaFireOptions(Strict):
    bursts: int = Field(default=1, ge=1, le=MAX_ROF, json_schema_extra=label("bursts"))
    moving: Literal["stationary", "walking", "trotting"] = Field(
        default="stationary", json_schema_extra=choices("moving", MOVING))


class AreaFireRequest(DpvRequest):
    action: Literal["area_fire"]
    attacker: DpvCombatant = Field(default_factory=DpvCombatant)
    weapon: DpvWeapon
    range: Distance
    targets: list[Figure] = Field(min_length=1, max_length=50)
    options: AreaFireOptions = Field(default_factory=AreaFireOptions)


class ExplosionOptions(Strict):
    tamped: bool = Field(default=False, json_schema_extra=label("tamped"))
    fragmentation: bool = Field(default=True, json_schema_extra=label("fragmentation"))


class ExplosionRequest(DpvRequest):
    action: Literal["explosion"]
    ep: float = Field(gt=0, le=100_000, allow_inf_nan=False, description="explosive power")
    name: str = Field(default="", max_length=200)
    targets: list[Figure] = Field(default_factory=list, max_length=50)
    options: ExplosionOptions = Field(default_factory=ExplosionOptions)


class DeviationRequest(DpvRequest):
    action: Literal["deviation"]
    weapon: DpvWeapon | None = None
    deviation: DeviationType | None = None
    range: Distance | None = None
    indirect_range_m: float | None = Field(default=None, gt=0, le=10_000_000,
                                           allow_inf_nan=False)


class Vehicle(Participant):
    """A vehicle hit by a missile or a weapon (the table sends the targeted token like any
    participant): ``armor`` and ``evasive`` as given, or from its actor data
    (``stats.vehicle_armor``, ``stats.evasive``) when left out."""

    armor: float | None = Field(default=None, ge=0, le=100_000, allow_inf_nan=False)
    evasive: int | None = Field(default=None, ge=0, le=20)
    stats: DpvStats | None = None

    @property
    def armor_value(self) -> float:
        if self.armor is not None:
            return self.armor
        return (self.stats.vehicle_armor or 0) if self.stats else 0

    @property
    def evasive_value(self) -> int:
        if self.evasive is not None:
            return self.evasive
        return self.stats.evasive if self.stats else 0


class MissileRequest(DpvRequest):
    """A missile at a target: its homing value and EP as given, or from the weapon (a missile
    item of the firer's: ``weapon.homing``, ``weapon.ep``)."""

    action: Literal["missile"]
    attacker: DpvCombatant = Field(default_factory=DpvCombatant)
    weapon: DpvWeapon | None = None
    name: str = Field(default="", max_length=200)
    homing: int | None = Field(default=None, ge=0, le=30)
    ep: float | None = Field(default=None, gt=0, le=100_000, allow_inf_nan=False)
    target: Vehicle = Field(default_factory=Vehicle)


class VehicleDamageRequest(DpvRequest):
    action: Literal["vehicle_damage"]
    dpv: Dpv
    weapon_name: str = Field(default="", max_length=200)
    target: Vehicle = Field(default_factory=Vehicle)


class BreachRequest(DpvRequest):
    action: Literal["breach"]
    contact_dpv: Dpv | None = None
    ep: float | None = Field(default=None, gt=0, le=100_000, allow_inf_nan=False)
    tamped: bool = False
    material: Material | None = Field(default=None, json_schema_extra={
        "x-enum-label-keys": [f"{P}.opt.cover_material.choices.{m}" for m in MATERIALS]})
    armor_value: float | None = Field(default=None, gt=0, le=1000, allow_inf_nan=False)
    thickness_cm: float = Field(ge=0, le=100_000, allow_inf_nan=False)


MELEE_KINDS = ("strike", "diving_blow", "grapple", "thrown")


class MeleeOptions(Strict):
    kind: Literal["strike", "diving_blow", "grapple", "thrown"] = Field(
        default="strike", json_schema_extra=choices("melee_kind", MELEE_KINDS))
    shorter_weapon: bool = Field(default=False, json_schema_extra=label("shorter_weapon"))
    surprise: bool = Field(default=False, json_schema_extra=label("surprise"))
    block: bool = Field(default=False, json_schema_extra=label("block"))
    avoid: bool = Field(default=False, json_schema_extra=label("avoid"))
    blunt: bool = Field(default=False, json_schema_extra=label("blunt"),
                        description="Melee-4 or better may choose blunt trauma")
    control_points: int = Field(default=0, ge=0, le=100, json_schema_extra=label("control_points"))
    object_weight_kg: float | None = Field(default=None, gt=0, le=1000, allow_inf_nan=False,
                                           json_schema_extra=label("object_weight_kg"))
    dm: int = Field(default=0, ge=-20, le=20, json_schema_extra=label("dm"))


class MeleeRequest(DpvRequest):
    action: Literal["melee"]
    attacker: DpvCombatant
    target: DpvCombatant
    range: Distance | None = None
    options: MeleeOptions = Field(default_factory=MeleeOptions)


class CriticalPointRequest(DpvRequest):
    action: Literal["critical_point"]
    patient: DpvCombatant
    point: Literal[1, 2, 3, 4, 5] = Field(
        description="which critical point (healing.CRITICAL_HOURS: 2300ad CRITICAL POINTS)")
    moved: bool = Field(default=False, description="or the patient's stats.moved")


class RegainConsciousnessRequest(DpvRequest):
    action: Literal["regain_consciousness"]
    patient: DpvCombatant = Field(default_factory=DpvCombatant)
    hours_unconscious: int = Field(ge=1, le=10_000)


class ResuscitateRequest(DpvRequest):
    action: Literal["resuscitate"]
    medic: DpvCombatant = Field(default_factory=DpvCombatant)
    patient: DpvCombatant = Field(default_factory=DpvCombatant)
    killed_by: Literal["head", "torso", "shock"]
    minutes_since_death: float = Field(ge=0, le=1e7, allow_inf_nan=False)
    medkit_only: bool = False


TRAVEL_MODES = ("foot", "horse", "hover", "wheel", "tracked", "aircraft", "lta", "ship",
                "hydrofoil", "boat")
TERRAINS = ("flat", "hilly", "broken", "mountain", "savannah", "woods", "forest", "swamp",
            "desert", "craters", "lake", "glacier", "road_grid", "highway", "calm_seas",
            "high_seas", "coastal_waters")
TRAVEL_FEATURES = ("volcano", "river", "city_town", "cropland", "road_grid", "highway")


class TravelOptions(Strict):
    """The travel dialog (2300ad TYPICAL TRAVEL TIMES)."""

    mode: Literal["foot", "horse", "hover", "wheel", "tracked", "aircraft", "lta", "ship",
                  "hydrofoil", "boat"] = Field(
        default="foot", json_schema_extra=choices("travel_mode", TRAVEL_MODES))
    terrain: Literal["flat", "hilly", "broken", "mountain", "savannah", "woods", "forest",
                     "swamp", "desert", "craters", "lake", "glacier", "road_grid", "highway",
                     "calm_seas", "high_seas", "coastal_waters"] = Field(
        default="flat", json_schema_extra=choices("terrain", TERRAINS))
    features: list[Literal["volcano", "river", "city_town", "cropland", "road_grid",
                           "highway"]] = Field(
        default_factory=list, max_length=6,
        json_schema_extra=choices("travel_features", TRAVEL_FEATURES))
    hexes: float = Field(default=1, gt=0, le=10_000, allow_inf_nan=False,
                         json_schema_extra=label("hexes"))


class TravelRequest(DpvRequest):
    """2300ad TYPICAL TRAVEL TIMES: a reference lookup (no dice)."""

    action: Literal["travel"]
    options: TravelOptions = Field(default_factory=TravelOptions)


CRAFTS = ("rocket", "rocket_plane", "scramjet", "catapult", "beanstalk", "parachute",
          "deadfall", "lifting_body")


class InterfaceOptions(Strict):
    """2300ad TRAVEL TIME - INTERFACE: going into orbit or returning to the surface."""

    direction: Literal["to_orbit", "to_surface"] = Field(
        default="to_orbit", json_schema_extra=choices("direction", ("to_orbit", "to_surface")))
    craft: Literal["rocket", "rocket_plane", "scramjet", "catapult", "beanstalk", "parachute",
                   "deadfall", "lifting_body"] = Field(
        default="rocket", json_schema_extra=choices("craft", CRAFTS))


class InterfaceRequest(DpvRequest):
    action: Literal["interface"]
    options: InterfaceOptions = Field(default_factory=InterfaceOptions)


class StutterwarpOptions(Strict):
    """2300ad INTERSTELLAR / INTERPLANETARY TRAVEL TIME."""

    speed_ly_per_day: float = Field(default=1, ge=0.15, le=9.5, allow_inf_nan=False,
                                    json_schema_extra=label("speed_ly_per_day"),
                                    description="the ship's interstellar speed (0.15-9.5)")
    distance_ly: float = Field(default=0, ge=0, le=1000, allow_inf_nan=False,
                               json_schema_extra=label("distance_ly"))
    distance_au: float = Field(default=0, ge=0, le=100_000, allow_inf_nan=False,
                               json_schema_extra=label("distance_au"),
                               description="within a gravity well")


class StutterwarpRequest(DpvRequest):
    action: Literal["stutterwarp"]
    options: StutterwarpOptions = Field(default_factory=StutterwarpOptions)


MOVES = ("crawling", "walking", "trotting", "running")


class MovementOptions(Strict):
    """2300ad MOVEMENT: metres per combat turn."""

    move: Literal["crawling", "walking", "trotting", "running"] = Field(
        default="walking", json_schema_extra=choices("move", MOVES))
    turns: int = Field(default=1, ge=1, le=1000, json_schema_extra=label("turns"))


class MovementRequest(DpvRequest):
    action: Literal["movement"]
    actor: DpvCombatant = Field(default_factory=DpvCombatant)
    options: MovementOptions = Field(default_factory=MovementOptions)


class ThrowOptions(Strict):
    """2300ad FIRE COMBAT, "Thrown Weapons": how far, how hard."""

    object_weight_kg: float = Field(default=1, gt=0, le=1000, allow_inf_nan=False,
                                    json_schema_extra=label("object_weight_kg"))


class ThrowRangeRequest(DpvRequest):
    action: Literal["throw_range"]
    actor: DpvCombatant = Field(default_factory=DpvCombatant)
    options: ThrowOptions = Field(default_factory=ThrowOptions)


REPAIR_LEVELS = ("superficial", "minor", "major", "total")


class RepairOptions(Strict):
    """2300ad DAMAGE AND REPAIR: the repair task (in a shop) and its cost."""

    damage: Literal["superficial", "minor", "major", "total"] = Field(
        default="minor", json_schema_extra=choices("damage", REPAIR_LEVELS))
    skill: int = Field(default=0, ge=0, le=30, json_schema_extra=label("skill"),
                       description="the mechanic's skill level for the repair")
    dm: int = Field(default=0, ge=-30, le=30, json_schema_extra=label("dm"))
    price: float | None = Field(default=None, ge=0, le=1e12, allow_inf_nan=False,
                                json_schema_extra=label("price"),
                                description="the item's price, for the cost in money")


class RepairRequest(DpvRequest):
    action: Literal["repair"]
    actor: DpvCombatant = Field(default_factory=DpvCombatant)
    target: Vehicle = Field(default_factory=Vehicle)
    options: RepairOptions = Field(default_factory=RepairOptions)


CARE = ("stabilize", "heal")


class TreatOptions(Strict):
    """2300ad HEALING: the medic's task on the patient."""

    care: Literal["stabilize", "heal"] = Field(
        default="stabilize", json_schema_extra=choices("care", CARE))
    medkit_only: bool = Field(default=False, json_schema_extra=label("medkit_only"))
    dm: int = Field(default=0, ge=-30, le=30, json_schema_extra=label("dm"))


class TreatRequest(DpvRequest):
    """A medic treats a patient: the task's effects change the patient's wounds."""

    action: Literal["treat"]
    medic: DpvCombatant = Field(default_factory=DpvCombatant)
    patient: DpvCombatant = Field(default_factory=DpvCombatant)
    options: TreatOptions = Field(default_factory=TreatOptions)


PHASES = ("start", "end")


class CombatTurnOptions(Strict):
    phase: Literal["start", "end"] = Field(
        default="end", json_schema_extra=choices("phase", PHASES),
        description="start: the initiative now; end: dazed and immobilized count down")


class CombatTurnRequest(DpvRequest):
    """One figure at the start or end of a combat turn (Wound Effects)."""

    action: Literal["combat_turn"]
    actor: DpvCombatant = Field(default_factory=DpvCombatant)
    options: CombatTurnOptions = Field(default_factory=CombatTurnOptions)


class NaturalHealingRequest(DpvRequest):
    action: Literal["natural_healing"]
    patient: DpvCombatant = Field(default_factory=DpvCombatant)
    weeks: int = Field(ge=1, le=520)
