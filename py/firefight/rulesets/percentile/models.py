"""Percentile small-arms request models: actors, weapons, the Shoot dialog's options, settings."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from firefight.models import ID_MAX, ActionRequest, Distance, OptionLabels, Participant, Strict

P = "FIREFIGHT.percentile"


_LABELS = OptionLabels(P)
label, choices = _LABELS.label, _LABELS.choices


def setting(key: str, values: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A world setting's schema extras: its label (and choices), and its own hint's lang key
    (``x-hint-key``), shown under it in the ruleset's settings menu."""
    extra = label(key) if values is None else choices(key, values)
    return {**extra, "x-hint-key": f"{P}.opt.{key}.hint"}


WEAPON_CLASSES = ("rifle", "carbine", "pistol", "smg", "automatic_rifle")
ACTIONS = ("bolt", "semi", "automatic")
COVERS = ("none", "soft", "half", "head")
RANGE_DAMAGE = ("below", "at_or_below")
GROUND_UNITS = ("m", "ft", "yd")

# The most sighting-in chances a shot counts: the request's bound, and the table's
# (``Percentile.features["sighting"]["max"]``), from this one constant.
SIGHTING_TURNS_MAX = 10_000

WeaponClass = Literal["rifle", "carbine", "pistol", "smg", "automatic_rifle"]
WeaponAction = Literal["bolt", "semi", "automatic"]
Cover = Literal["none", "soft", "half", "head"]


class PercentileStats(Strict):
    """An actor's percentile data (``flags.firefight.percentile``)."""

    life_force: int = Field(default=100, ge=0, le=100,
                            description="percent of life force remaining; every man starts at 100")
    sharpshooter: bool = Field(default=False, description="+10 to hit (not with SMGs)")


class PercentileCombatant(Participant):
    stats: PercentileStats = Field(default_factory=PercentileStats)
    # The shim sends every combatant's equipped armor; these rules have none, so it is ignored.
    armor: list[dict[str, Any]] = Field(default_factory=list, max_length=50,
                                        description="ignored: the percentile rules have no armor")


class PercentileWeapon(Strict):
    """A small arm: its class (for BP, kill rule, bursts), its action and magazine capacity."""

    name: str = Field(default="", max_length=200)
    item_id: str | None = Field(default=None, max_length=ID_MAX)
    category: Literal["weapon"] = "weapon"
    weapon_class: WeaponClass = Field(description="rifle, carbine, pistol, smg, automatic_rifle")
    action: WeaponAction = Field(
        description="bolt and semi roll per round; automatic once per burst")
    magazine: int = Field(ge=1, le=250, description="rounds per clip or magazine")


class PercentileOptions(Strict):
    """What the shooter chooses in the Shoot dialog."""

    rounds: int | None = Field(
        default=None, ge=1, le=250, json_schema_extra=label("rounds"),
        description="rounds fired; not declared: the whole magazine",
    )
    target_prone: bool = Field(default=False, json_schema_extra=label("target_prone"))
    cover: Cover = Field(default="none", json_schema_extra=choices("cover", COVERS))
    # "+10 For each consecutive chance to fire ... used sighting-in": the text sets no limit, the
    # bound only refuses absurd input; the table stops counting there (``features.sighting``).
    sighting_turns: int = Field(
        default=0, ge=0, le=SIGHTING_TURNS_MAX, json_schema_extra=label("sighting_turns"),
        description="consecutive chances to fire spent sighting in on this target (the table "
                    "remembers them per shooter and target)",
    )
    rested: bool = Field(default=False, json_schema_extra=label("rested"))
    bearing_deg: float | None = Field(
        default=None, ge=-360, le=360, json_schema_extra=label("bearing_deg"),
        description="angle from the shooter's facing to the target, degrees (the shim computes "
                    "it from the token's rotation); beyond 45 either side is hasty fire",
    )
    hasty_fire: bool = Field(default=False, json_schema_extra=label("hasty_fire"))
    blind_fire: bool = Field(default=False, json_schema_extra=label("blind_fire"))
    single_shots: bool = Field(
        default=False, json_schema_extra=label("single_shots"),
        description="an automatic weapon fired round by round (one roll per round)",
    )


class PercentileSettings(Strict):
    """World settings: the ground scale, and the reading of the range-damage boundary."""

    inch_equals: float | None = Field(
        default=None, gt=0, le=100_000, json_schema_extra=setting("inch_equals"),
        description="ground distance one tabletop inch stands for, in `inch_units`; needed "
                    "unless the scene is measured in inches",
    )
    inch_units: Literal["m", "ft", "yd"] = Field(
        default="yd", json_schema_extra=setting("inch_units", GROUND_UNITS))
    range_damage: Literal["below", "at_or_below"] = Field(
        default="below", json_schema_extra=setting("range_damage", RANGE_DAMAGE),
        description="double / triple damage for ranges below 20\"/10\" (Small Arms) or at or "
                    "below (the Casualty Table's note)",
    )
    facing: Literal["token_rotation", "ignore"] = Field(
        default="token_rotation", json_schema_extra=setting("facing", ("token_rotation", "ignore")),
        description="hasty fire from the shooter's facing (token rotation), or only when chosen",
    )
    # "When firing with pistol, rifle or carbine ... When firing with SMG or automatic rifle":
    # read as how the weapon is fired (a burst kills at half its rounds), or by its class.
    kill_rule: Literal["fire_mode", "weapon_class"] = Field(
        default="fire_mode",
        json_schema_extra=setting("kill_rule", ("fire_mode", "weapon_class")),
    )
    # "When firing an SMG, no more than 35 rounds may be fired in a single burst": the text
    # names SMGs only; automatic rifles too is the other reading.
    climb: Literal["smg", "smg_and_automatic_rifle"] = Field(
        default="smg", json_schema_extra=setting("climb", ("smg", "smg_and_automatic_rifle")),
    )


class PercentileAttackRequest(ActionRequest):
    """A shot: the Small Arms Fire action."""

    ruleset: Literal["percentile"]
    action: Literal["attack"] = "attack"
    attacker: PercentileCombatant
    target: PercentileCombatant
    weapon: PercentileWeapon
    range: Distance
    options: PercentileOptions = Field(default_factory=PercentileOptions)
    settings: PercentileSettings = Field(default_factory=PercentileSettings)
