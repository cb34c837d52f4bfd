"""Duel's models: a duellist's sheet, the weapon, the attack dialog, the world settings and the
request the table sends."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from firefight.models import ActionRequest, Distance, OptionLabels, Participant, Strict

P = "FIREFIGHT.duel"
labels = OptionLabels(P)  # "x-label-key": FIREFIGHT.duel.opt.<field>.label


class DuelStats(Strict):
    """A duellist's sheet (flags.firefight.duel on the actor)."""

    hp: int | None = Field(default=None, ge=0, le=99, description="hit points left")
    hp_max: int = Field(default=10, ge=1, le=99)
    skill: int = Field(default=2, ge=0, le=10)
    state: Literal["ok", "unconscious", "dead"] = Field(
        default="ok", json_schema_extra={"x-enum-label-keys": [
            f"{P}.state.ok", f"{P}.state.unconscious", f"{P}.state.dead"]})


class Duellist(Participant):
    stats: DuelStats = Field(default_factory=DuelStats)
    armor: list[dict[str, Any]] = Field(default_factory=list, max_length=20,
                                        description="the table sends it; Duel has no armor")


class DuelWeapon(Strict):
    """A weapon (flags.firefight.duel on the item: {"category": "weapon", "damage": 6})."""

    name: str = Field(default="", max_length=200)
    item_id: str | None = Field(default=None, max_length=200)
    category: Literal["weapon"] = "weapon"
    damage: Literal[4, 6, 8, 10, 12] = Field(default=6, description="the damage die")
    rounds: int = Field(default=0, ge=0, le=10, description="rounds an attack fires (a blade: 0)")


class DuelOptions(Strict):
    """The attack dialog."""

    aim: bool = Field(default=False, json_schema_extra=labels.label("aim"))
    cover: Literal["none", "partial", "full"] = Field(
        default="none", json_schema_extra=labels.choices("cover", ("none", "partial", "full")))


class DuelSettings(Strict):
    """World settings."""

    target_number: int = Field(default=12, ge=2, le=30,
                               json_schema_extra=labels.label("target_number"))
    critical_on_20: bool = Field(default=True, json_schema_extra=labels.label("critical_on_20"))


class DuelAttack(ActionRequest):
    ruleset: Literal["duel"]
    action: Literal["attack"] = "attack"
    attacker: Duellist
    target: Duellist
    weapon: DuelWeapon = Field(default_factory=DuelWeapon)
    range: Distance = Field(default_factory=lambda: Distance(value=0))
    options: DuelOptions = Field(default_factory=DuelOptions)
    settings: DuelSettings = Field(default_factory=DuelSettings)


class BrawlOptions(Strict):
    """The brawl dialog."""

    all_in: bool = Field(default=False, json_schema_extra=labels.label("all_in"))


class DuelBrawl(ActionRequest):
    ruleset: Literal["duel"]
    action: Literal["brawl"] = "brawl"
    attacker: Duellist
    target: Duellist
    options: BrawlOptions = Field(default_factory=BrawlOptions)
