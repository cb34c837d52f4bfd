"""Laser Sight: a house rule for Firefight's Stars of Empire ruleset (soe).

A laser sight fitted to the weapon gives +2 to hit (the soe "to_hit" step). The dot is hard to
see far off: beyond 100 m the bonus counts only when the world's setting says so.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from firefight import HouseRule, Modifier
from firefight.models import OptionLabels, Strict

labels = OptionLabels("FIREFIGHT.laser_sight")
BONUS = 2
DOT_RANGE_M = 100


class LaserOptions(Strict):
    """The shot dialog's "House rules" section."""

    fitted: bool = Field(default=False, json_schema_extra=labels.label("fitted"))


class LaserSettings(Strict):
    """A world setting (house.laser_sight.beyond_100m)."""

    beyond_100m: bool = Field(default=False, json_schema_extra=labels.label("beyond_100m"))


class LaserSight(HouseRule):
    id = "laser_sight"
    ruleset = "soe"
    label_key = "FIREFIGHT.laser_sight.name"
    actions = ("attack",)
    options_model = LaserOptions
    settings_model = LaserSettings

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        if step != "to_hit" or not options.fitted:
            return []
        if request.range.metres() > DOT_RANGE_M and not settings.beyond_100m:
            return []
        return [Modifier(key="FIREFIGHT.laser_sight.mod.fitted", value=BONUS,
                         source="Laser Sight house rule", step=step)]


RULE = LaserSight()
