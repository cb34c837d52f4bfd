"""2300 AD-style combat resolution (ruleset id ``dpv``).

Every roll is a task (``tasks``): 1D10 (or 2D6) plus asset modifiers against a difficulty.
Aimed and area fire (``fire``) hit for a Damage Point Value that armor reduces; the hit's
location and potential wound and the WOUNDING table (``wounds``) turn it into kills, shock,
stun and light wounds. Explosions, deviation, missiles and vehicles are in ``explosives``,
hand-to-hand in ``melee``, recovery in ``healing``, travel times in ``travel``. Requests,
dialogs, settings and actor data are in ``models``; tables are JSON in ``tables/``; the card's
title is ``cards``. This module only declares.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from firefight.registry import Action, Ruleset
from firefight.rulesets.dpv import explosives, fire, healing, melee, tasks, travel, turn
from firefight.rulesets.dpv.data import tables
from firefight.rulesets.dpv.models import (
    AreaFireOptions,
    AreaFireRequest,
    AttackOptions,
    AttackRequest,
    BreachRequest,
    CombatTurnOptions,
    CombatTurnRequest,
    Cover,
    CriticalPointRequest,
    DeviationRequest,
    DpvArmor,
    DpvSettings,
    DpvStats,
    DpvWeapon,
    ExplosionOptions,
    ExplosionRequest,
    InterfaceOptions,
    InterfaceRequest,
    MeleeOptions,
    MeleeRequest,
    MissileRequest,
    MovementOptions,
    MovementRequest,
    NaturalHealingRequest,
    P,
    RegainConsciousnessRequest,
    RepairOptions,
    RepairRequest,
    ResuscitateRequest,
    StutterwarpOptions,
    StutterwarpRequest,
    TaskOptions,
    TaskRequest,
    ThrowOptions,
    ThrowRangeRequest,
    TravelOptions,
    TravelRequest,
    TreatOptions,
    TreatRequest,
    VehicleDamageRequest,
)

# The card names a chance that is not a hit's "chance of success".
SUCCESS = "FIREFIGHT.card.chance_success"


# The per-token cover's fields -> the aimed-fire options they fill (FIRE COMBAT, "Cover").
COVER_OPTIONS = {"material": "cover_material", "thickness_cm": "cover_thickness_cm"}
# A scene wall without cover of its own (issue 14: cover from walls; docs/rules-notes.md).
WALL_COVER = {"material": "brick_cement", "thickness_cm": 20}


def _cover_schema() -> dict[str, Any]:
    """``Cover``'s schema with the labels of the aimed-fire options it fills."""
    schema = Cover.model_json_schema()
    options = AttackOptions.model_json_schema()["properties"]
    for field, option in COVER_OPTIONS.items():
        schema["properties"][field].update(
            {k: v for k, v in options[option].items() if k.startswith("x-")})
    return schema


class TwoThousandThreeHundred(Ruleset):
    id = "dpv"
    label_key = f"{P}.name"
    actions = (
        # 2300ad FIRE COMBAT, "Rate of Fire": shots of aimed fire (a round each), or area
        # fire bursts of the weapon's "rounds per burst (RPB)".
        Action("attack", AttackRequest, fire.resolve_attack, fire.attack_odds,
               options=AttackOptions, rounds=lambda request: request.options.shots),
        Action("area_fire", AreaFireRequest, fire.resolve_area_fire, fire.area_odds,
               options=AreaFireOptions,
               rounds=lambda request: request.options.bursts * request.weapon.rpb),
        Action("task", TaskRequest, tasks.resolve_task, tasks.task_odds, options=TaskOptions,
               odds_label_key=SUCCESS),
        Action("explosion", ExplosionRequest, explosives.resolve_explosion,
               options=ExplosionOptions),
        Action("deviation", DeviationRequest, explosives.resolve_deviation),
        Action("missile", MissileRequest, explosives.resolve_missile, explosives.missile_odds),
        Action("vehicle_damage", VehicleDamageRequest, explosives.resolve_vehicle_damage,
               explosives.vehicle_odds, odds_label_key=SUCCESS),
        Action("breach", BreachRequest, explosives.resolve_breach),
        Action("melee", MeleeRequest, melee.resolve_melee, melee.melee_odds,
               options=MeleeOptions),
        Action("critical_point", CriticalPointRequest, healing.resolve_critical_point,
               healing.critical_odds),
        Action("regain_consciousness", RegainConsciousnessRequest,
               healing.resolve_regain_consciousness, healing.regain_odds,
               odds_label_key=SUCCESS),
        Action("resuscitate", ResuscitateRequest, healing.resolve_resuscitate),
        Action("natural_healing", NaturalHealingRequest, healing.resolve_natural_healing),
        Action("treat", TreatRequest, healing.resolve_treat, healing.treat_odds,
               options=TreatOptions, odds_label_key=SUCCESS),
        Action("combat_turn", CombatTurnRequest, turn.resolve_combat_turn,
               options=CombatTurnOptions),
        Action("repair", RepairRequest, explosives.resolve_repair, explosives.repair_odds,
               options=RepairOptions, odds_label_key=SUCCESS),
        # The referee's tools: reference lookups, no dice.
        Action("movement", MovementRequest, turn.resolve_movement, options=MovementOptions),
        Action("throw_range", ThrowRangeRequest, turn.resolve_throw_range, options=ThrowOptions),
        Action("travel", TravelRequest, travel.resolve_travel, options=TravelOptions),
        Action("interface", InterfaceRequest, travel.resolve_interface,
               options=InterfaceOptions),
        Action("stutterwarp", StutterwarpRequest, travel.resolve_stutterwarp,
               options=StutterwarpOptions),
    )
    settings_model = DpvSettings
    stats_model = DpvStats
    item_models: ClassVar[dict[str, type[BaseModel]]] = {"weapon": DpvWeapon, "armor": DpvArmor}
    # 2300AD wounds: unconscious and incapacitated figures are out of the fight.
    incapacitated_states = frozenset({"dead", "unconscious", "incapacitated"})
    # Read by the table's generic mechanisms (docs/extending.md, "Part 5: table features, as data").
    features: ClassVar[dict[str, Any]] = {
        # Table-side actions the menu offers: the healing clock, and area fire at a placed
        # area (`areaFire` below).
        "actions": ["advance_time", "area_fire_placed"],
        # Offered to the referee only (one key for every ruleset): the clock and what it runs,
        # and the travel tables (issue 14: referee tools reachable from the table).
        "refereeActions": {name: {} for name in (
            "advance_time", "critical_point", "regain_consciousness", "travel", "interface",
            "stutterwarp")},
        # Exploding rounds: the weapon's power field, the effect kinds and the action that
        # resolves the blast.
        # `reach`: the blast effect's param to gather tokens out to (concussion carries past
        # the fragments); `concussionReach`: the same reach by EP before any resolve (the
        # last entry whose `ep` <= the charge's), from the one rule (explosives.concussion_reach).
        "explosion": {"action": "explosion", "power": "ep", "impact": "impact",
                      "blast": "blast", "reach": "reach_m",
                      "concussionReach": explosives.reach_steps(tamped=False),
                      "concussionReachTamped": explosives.reach_steps(tamped=True),
                      # the option that picks the tamped steps; the blast's params drawn as
                      # circles, param -> role (issue 14 defect 4: the concussion ring too).
                      "tamped": "tamped",
                      "circles": {"concussion_reach_m": "concussion", "outer_radius_m": "outer",
                                  "burst_radius_m": "burst"}},
        # The healing clock: the condition that starts it, its points (hours) and the actions
        # run; `moved`: the patient's flag the table sets when it moves a token whose clock runs
        # (DM -1 at the next crisis point; the critical point clears it).
        "healing": {"condition": "critical_points", "action": "critical_point",
                    "hours": list(healing.CRITICAL_HOURS), "unconscious": "unconscious",
                    "wake": "regain_consciousness", "over": ["stabilized", "dead"],
                    "moved": "moved", "treat": "treat"},
        # FIRE COMBAT, "Area Fire": a circular template of `diameterM` the shooter places;
        # every token inside is a figure `in_area`, every token the line from the weapon to
        # the area's centre crosses is `line_of_fire`, every token past the area on that line
        # (out to 4 x effective range) is `beyond` with its `distance_m` from the weapon (the
        # engine keeps those in the area's band, at half AFV). Figures go in `targets`.
        "areaFire": {"action": "area_fire", "diameterM": tables().combat["area_diameter_m"],
                     "figures": "targets", "place": "place", "distance": "distance_m",
                     "places": {"inside": "in_area", "line": "line_of_fire",
                                "beyond": "beyond"},
                     "duck": "duck", "cover": "cover"},
        # Ducking: per figure, `duck` true/false for a PC (the player's choice; a ducking
        # figure gets its cover and forfeits its actions); left out for an NPC, which rolls
        # 1D10 + AFV > Coolness. Cover: the referee marks it per token (`schema`), sent as the
        # figure's `cover` in area fire and as the options below in aimed fire.
        # `schema`: one entry, labelled as the aimed-fire options it fills; `fields`: where the
        # token's cover goes (each figure's `cover`); `options`: entry field -> aimed-fire option.
        # `wall`: what a scene wall between the weapon and the token gives when neither the
        # token nor the wall has its own (ARMOR VALUES "Brick, Cement", 20 cm: docs/rules-notes.md).
        "cover": {"schema": _cover_schema(), "fields": ["targets[].cover"],
                  "options": dict(COVER_OPTIONS), "duck": "duck", "duckNpc": "roll",
                  "wall": dict(WALL_COVER)},
        # Wound Effects at the combat tracker: run `action` for every combatant with dpv data
        # at the start of each combat turn (phase start: set the combatant's initiative from
        # the outcome's `initiative`, skip its actions while `can_act` is false) and at its
        # end (phase end: apply the effects: dazed counts down). `statuses`: a stat that is
        # non-zero / true shows that token status.
        "turn": {"action": "combat_turn", "phase": "phase", "initiative": "initiative",
                 "canAct": "can_act", "canMove": "can_move",
                 "statuses": {"dazed_turns": "stun", "dazed_turn_end": "stun",
                              "immobilized": "restrain", "ducked": "prone"}},
        # Vehicles: an actor whose `vehicle_armor` stat is set is a vehicle; aimed fire at it rolls
        # VEHICLE DAMAGE; a missile's `target` is built from it (`stats`).
        "vehicle": {"armor": "vehicle_armor", "evasive": "evasive", "missile": "missile",
                    "repair": "repair", "effect": "vehicle"},
        # An action's weapon list: only the items whose data has this field (MISSILE PROCEDURE:
        # a missile is a weapon with a homing value).
        "actionWeapons": {"missile": "homing"},
        # Who is who in actions that are not a shot: the acting token fills `actor`, the
        # targeted token `target` (effects with target "target" are the targeted token's).
        "roles": {"treat": {"actor": "medic", "target": "patient"},
                  "resuscitate": {"actor": "medic", "target": "patient"},
                  "critical_point": {"target": "patient"},
                  "regain_consciousness": {"target": "patient"},
                  "natural_healing": {"target": "patient"},
                  "repair": {"actor": "actor", "target": "target"},
                  "missile": {"actor": "attacker", "target": "target"},
                  "combat_turn": {"actor": "actor"}, "movement": {"actor": "actor"},
                  "throw_range": {"actor": "actor"}},
        # Several targets in one shot (FIRE COMBAT, "Rate of Fire"): aimed fire at each
        # targeted token, one request per target with its `shots`, all of them together at
        # most the weapon's `budget` (ROF), the targets within `arcDeg` as the shooter sees them.
        "multiTarget": {"shots": "shots", "budget": "rof", "arcDeg": fire.AIMED_ARC_DEG},
    }
    # Steps a house rule may add modifiers to; each is built by one ledger the odds share
    # (fire.aimed_spec, tasks.task_spec, melee's throw).
    house_steps: ClassVar[dict[str, str]] = {
        "to_hit": "2300ad COMBAT TASKS, \"To hit a target with aimed fire\", \"To strike\"; "
                  "FIRE COMBAT, \"Thrown Weapons\"",
        "task": "2300ad TASK FORMAT",
        "block": "2300ad COMBAT TASKS, \"To block a strike\"",
        "avoid": "2300ad COMBAT TASKS, \"To avoid a diving blow\"",
    }

    def load_data(self) -> None:
        tables()  # read and validated on first use (data.tables): ahead of the first shot


RULESET = TwoThousandThreeHundred()
