"""2300 AD-style combat resolution (ruleset id ``dpv``).

Every roll is a task (``tasks``): 1D10 (or 2D6) plus asset modifiers against a difficulty.
Aimed and area fire (``fire``) hit for a Damage Point Value that armor reduces; the hit's
location and potential wound and the WOUNDING table (``wounds``) turn it into kills, shock,
stun and light wounds. Explosions, deviation, missiles and vehicles are in ``explosives``,
hand-to-hand in ``melee``, recovery in ``healing``. Tables are JSON in ``tables/``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, ClassVar

from pydantic import BaseModel

from firefight.dice import Roller, ScriptedDice
from firefight.models import Resolution
from firefight.registry import Ruleset
from firefight.rulesets.dpv import explosives, fire, healing, melee, tasks, travel
from firefight.rulesets.dpv.models import (
    AreaFireOptions,
    AttackOptions,
    DpvRequest,
    DpvSettings,
    DpvStats,
    ExplosionOptions,
    MeleeOptions,
    TaskOptions,
)
from firefight.rulesets.dpv.sheet import Sheet

P = "FIREFIGHT.dpv"

RESOLVERS: dict[str, Callable[[Sheet, Any], dict[str, Any]]] = {
    "attack": fire.resolve_attack,
    "area_fire": fire.resolve_area_fire,
    "task": lambda sheet, r: tasks.resolve_task(sheet, r.actor, r.options, r.settings),
    "explosion": explosives.resolve_explosion,
    "deviation": explosives.resolve_deviation,
    "missile": explosives.resolve_missile,
    "vehicle_damage": explosives.resolve_vehicle_damage,
    "breach": explosives.resolve_breach,
    "melee": melee.resolve_melee,
    "critical_point": healing.resolve_critical_point,
    "regain_consciousness": healing.resolve_regain_consciousness,
    "resuscitate": healing.resolve_resuscitate,
    "natural_healing": healing.resolve_natural_healing,
    "travel": travel.resolve_travel,
    "interface": travel.resolve_interface,
}


def _exact(p: Fraction) -> dict[str, Any]:
    return {"probability": float(p), "exact": f"{p.numerator}/{p.denominator}",
            "net_modifier": 0}


def _task_odds(request: Any) -> dict[str, Any]:
    sheet = Sheet(Roller(ScriptedDice([])))  # records the modifiers; rolls nothing
    return tasks.task_odds(tasks.task_spec(sheet, request.actor, request.options,
                                           request.settings))


def _vehicle_odds(request: Any) -> dict[str, Any]:
    dist = explosives.vehicle_distribution(Fraction(repr(request.dpv)), request.target.armor)
    p = 1 - dist.get("no_effect", Fraction(0)) - dist.get("no_penetration", Fraction(0))
    return {**_exact(p), "results": {k: float(v) for k, v in sorted(dist.items())}}


# Exact chances before rolling, for the actions that have a chance to show.
ODDS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "attack": fire.attack_odds,
    "area_fire": fire.area_odds,
    "task": _task_odds,
    "missile": lambda r: _exact(explosives.missile_probability(
        r.homing, r.target.evasive, r.settings.missile_hit)),
    "vehicle_damage": _vehicle_odds,
    "regain_consciousness": lambda r: _exact(Fraction(min(10, r.hours_unconscious - 1), 10)),
}


def _odds(request: Any) -> dict[str, Any]:
    found = ODDS.get(request.action)
    return found(request) if found else {}


def _title(request: Any) -> tuple[str, dict[str, Any]]:
    action = request.action
    names: dict[str, Any] = {}
    for role in ("attacker", "target", "actor", "patient", "medic"):
        who = getattr(request, role, None)
        if who is not None and hasattr(who, "name"):
            names[role] = who.name
    weapon = getattr(request, "weapon", None)
    names["weapon"] = weapon.name if weapon is not None else getattr(request, "name", "")
    if action == "task":
        preset = request.options.preset
        names["task_key"] = f"{P}.opt.preset.choices.{preset}" if preset else f"{P}.task.generic"
    if action == "melee":
        names["kind_key"] = f"{P}.opt.melee_kind.choices.{request.options.kind}"
    return action, names


class TwoThousandThreeHundred(Ruleset):
    id = "dpv"
    label_key = f"{P}.name"
    actions = tuple(RESOLVERS)
    request_model = DpvRequest
    options_model = AttackOptions
    action_options: ClassVar[dict[str, type[BaseModel]]] = {
        "attack": AttackOptions, "area_fire": AreaFireOptions, "task": TaskOptions,
        "explosion": ExplosionOptions, "melee": MeleeOptions,
    }
    settings_model = DpvSettings
    stats_model = DpvStats
    # 2300AD wounds: unconscious and incapacitated figures are out of the fight.
    incapacitated_states = frozenset({"dead", "unconscious", "incapacitated"})

    def odds(self, request: DpvRequest) -> dict[str, Any]:
        return _odds(request.root)

    def resolve(self, request: DpvRequest, roller: Roller) -> Resolution:
        inner = request.root
        sheet = Sheet(roller)
        outcome = RESOLVERS[inner.action](sheet, inner)
        odds = self.cached_odds(inner, _odds)
        shown: dict[str, Any] = {k: odds[k] for k in ("probability", "exact", "net_modifier")
                                 if k in odds}
        if shown and inner.action not in ("attack", "area_fire", "missile"):
            shown["label_key"] = "FIREFIGHT.card.chance_success"
        title, params = _title(inner)
        return sheet.resolution(inner, outcome=outcome, odds=shown, title=title, **params)


RULESET = TwoThousandThreeHundred()
