"""Percentile small-arms fire (ruleset id ``percentile``): a D100 skirmish wargame.

Read top to bottom: ``models`` (requests, settings, actor data), ``small_arms`` (the SMALL ARMS
FIRE chapter: range in inches, the chance, the kill rule, the rolls), ``casualty`` (the
CASUALTY TABLE), ``odds`` (exact odds before the dice), ``data`` (``tables/*.json``), ``lang/``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from firefight.registry import Action, Ruleset
from firefight.rulesets.percentile import odds, small_arms
from firefight.rulesets.percentile.data import tables
from firefight.rulesets.percentile.models import (
    SIGHTING_TURNS_MAX,
    P,
    PercentileAttackRequest,
    PercentileOptions,
    PercentileSettings,
    PercentileStats,
    PercentileWeapon,
)


class Percentile(Ruleset):
    id = "percentile"
    label_key = f"{P}.name"
    actions = (
        Action("attack", request=PercentileAttackRequest, resolve=small_arms.resolve_attack,
               odds=odds.attack_odds, options=PercentileOptions,
               shown_odds=("probability", "exact", "chance", "net_modifier",
                           "any_hit_probability", "kill_probability", "death_probability"),
               # "The number of rounds being fired must be specified before firing or the
               # entire clip or magazine capacity is assumed to be fired" (percentile Small Arms)
               rounds=lambda request: small_arms.fire_plan(request).rounds_fired,
               engage=small_arms.engage_attack),
    )
    settings_model = PercentileSettings
    stats_model = PercentileStats
    item_models: ClassVar[dict[str, type[BaseModel]]] = {"weapon": PercentileWeapon}
    # Table-side actions offered in the actions menu: "sight_in" counts the consecutive chances
    # spent sighting in (the shot's ``options.sighting_turns``), per shooter and target, and
    # stops counting at ``max``: the request's own bound (issue 15: the table counted on past it
    # and the next shot was an input error).
    features: ClassVar[dict[str, Any]] = {
        "actions": ["sight_in"],
        "sighting": {"action": "sight_in", "field": "sighting_turns", "max": SIGHTING_TURNS_MAX},
    }
    house_steps: ClassVar[dict[str, str]] = {small_arms.STEP: small_arms.STEP_SOURCE}

    def load_data(self) -> None:
        tables()  # read and validated on first use (data.tables): ahead of the first shot


RULESET = Percentile()
