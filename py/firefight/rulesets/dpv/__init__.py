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

from firefight.registry import Action, Ruleset
from firefight.rulesets.dpv import explosives, fire, healing, melee, tasks, travel
from firefight.rulesets.dpv.models import (
    AreaFireOptions,
    AreaFireRequest,
    AttackOptions,
    AttackRequest,
    BreachRequest,
    CriticalPointRequest,
    DeviationRequest,
    DpvSettings,
    DpvStats,
    ExplosionOptions,
    ExplosionRequest,
    InterfaceRequest,
    MeleeOptions,
    MeleeRequest,
    MissileRequest,
    NaturalHealingRequest,
    P,
    RegainConsciousnessRequest,
    ResuscitateRequest,
    TaskOptions,
    TaskRequest,
    TravelRequest,
    VehicleDamageRequest,
)

# The card names a chance that is not a hit's "chance of success".
SUCCESS = "FIREFIGHT.card.chance_success"


class TwoThousandThreeHundred(Ruleset):
    id = "dpv"
    label_key = f"{P}.name"
    actions = (
        Action("attack", AttackRequest, fire.resolve_attack, fire.attack_odds,
               options=AttackOptions),
        Action("area_fire", AreaFireRequest, fire.resolve_area_fire, fire.area_odds,
               options=AreaFireOptions),
        Action("task", TaskRequest, tasks.resolve_task, tasks.task_odds, options=TaskOptions,
               odds_label_key=SUCCESS),
        Action("explosion", ExplosionRequest, explosives.resolve_explosion,
               options=ExplosionOptions),
        Action("deviation", DeviationRequest, explosives.resolve_deviation),
        Action("missile", MissileRequest, explosives.resolve_missile, explosives.missile_odds),
        Action("vehicle_damage", VehicleDamageRequest, explosives.resolve_vehicle_damage,
               explosives.vehicle_odds, odds_label_key=SUCCESS),
        Action("breach", BreachRequest, explosives.resolve_breach),
        Action("melee", MeleeRequest, melee.resolve_melee, options=MeleeOptions),
        Action("critical_point", CriticalPointRequest, healing.resolve_critical_point),
        Action("regain_consciousness", RegainConsciousnessRequest,
               healing.resolve_regain_consciousness, healing.regain_odds,
               odds_label_key=SUCCESS),
        Action("resuscitate", ResuscitateRequest, healing.resolve_resuscitate),
        Action("natural_healing", NaturalHealingRequest, healing.resolve_natural_healing),
        Action("travel", TravelRequest, travel.resolve_travel),
        Action("interface", InterfaceRequest, travel.resolve_interface),
    )
    settings_model = DpvSettings
    stats_model = DpvStats
    # 2300AD wounds: unconscious and incapacitated figures are out of the fight.
    incapacitated_states = frozenset({"dead", "unconscious", "incapacitated"})
    # Read by the table's generic mechanisms (docs/extending.md, "Table features").
    features: ClassVar[dict[str, Any]] = {
        "actions": ["advance_time"],
        # Exploding rounds: the weapon's power field, the effect kinds and the action that
        # resolves the blast.
        "explosion": {"action": "explosion", "power": "ep", "impact": "impact",
                      "blast": "blast"},
        # The healing clock: the condition that starts it, its points (hours) and the actions run.
        "healing": {"condition": "critical_points", "action": "critical_point",
                    "hours": list(healing.CRITICAL_HOURS), "unconscious": "unconscious",
                    "wake": "regain_consciousness", "over": ["stabilized", "dead"]},
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


RULESET = TwoThousandThreeHundred()
