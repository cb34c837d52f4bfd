"""Laser Sight: a house rule for Firefight's Stars of Empire ruleset (soe).

A laser sight fitted to the weapon gives +2 to hit (the soe "to_hit" step): the shooter ticks it
in the dialog, or the weapon's item says it has one (the item field ``laser``). The dot is hard
to see far off: beyond 100 m the bonus counts only when the world's setting says so. A shot with
the laser on that misses at 50 m or less puts the dot in the target's eyes: it is dazzled, -2 to
hit on its own shots until its next turn starts.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pydantic import Field

from firefight import Condition, ConditionModifier, HouseRule, Modifier, Recorder
from firefight.models import OptionLabels, Strict

labels = OptionLabels("FIREFIGHT.laser_sight")
BONUS = 2
DOT_RANGE_M = 100
DAZZLE_RANGE_M = 50
DAZZLED = Condition(id="dazzled", label_key="FIREFIGHT.laser_sight.condition.dazzled",
                    ends="turn", source="Laser Sight house rule",
                    modifiers=(ConditionModifier(step="to_hit", value=-2, side="attacker"),))


class LaserOptions(Strict):
    """The shot dialog's "House rules" section."""

    fitted: bool = Field(default=False, json_schema_extra=labels.label("fitted"))


class LaserSettings(Strict):
    """A world setting (house.laser_sight.beyond_100m)."""

    beyond_100m: bool = Field(default=False, json_schema_extra=labels.label("beyond_100m"))


class LaserWeapon(Strict):
    """A field added to every soe weapon item (its label: FIREFIGHT.laser_sight.item.laser.label)."""

    laser: bool = False


class LaserSight(HouseRule):
    id = "laser_sight"
    ruleset = "soe"
    label_key = "FIREFIGHT.laser_sight.name"
    actions = ("attack",)
    options_model = LaserOptions
    settings_model = LaserSettings
    item_fields = {"weapon": LaserWeapon}  # noqa: RUF012 - a class attribute, never changed
    conditions = (DAZZLED,)

    def on(self, request: Any, options: Any, settings: Any) -> bool:
        """Whether the laser counts for this shot."""
        if not (options.fitted or request.weapon.laser):
            return False
        return request.range.metres() <= DOT_RANGE_M or settings.beyond_100m

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        if step != "to_hit" or not self.on(request, options, settings):
            return []
        return [Modifier(key="FIREFIGHT.laser_sight.mod.fitted", value=BONUS,
                         source="Laser Sight house rule", step=step)]

    def dazzles(self, request: Any, options: Any, settings: Any) -> bool:
        return self.on(request, options, settings) and request.range.metres() <= DAZZLE_RANGE_M

    def after(self, request: Any, rec: Recorder, options: Any, settings: Any) -> None:
        if self.dazzles(request, options, settings) and rec.outcome.get("hit") is False:
            rec.condition("dazzled", target="target")

    def odds(self, request: Any, odds: dict[str, Any], options: Any, settings: Any
             ) -> dict[str, Any]:
        if not self.dazzles(request, options, settings):
            return odds
        dazzled = 1 - Fraction(odds["exact"])  # a miss dazzles
        return {**odds, "dazzled_exact": str(dazzled), "dazzled_probability": float(dazzled)}


RULE = LaserSight()
