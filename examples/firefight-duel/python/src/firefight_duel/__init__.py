"""Duel: a small complete ruleset for Firefight, as a module author writes one.

This file only declares; the rules are in ``attack.py`` and ``brawl.py``, the models in ``models.py``, the
labels in ``lang/`` and the card in ``templates/``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from firefight import Action, Ruleset
from firefight_duel import attack, brawl
from firefight_duel.models import (
    BrawlOptions,
    DuelAttack,
    DuelBrawl,
    DuelOptions,
    DuelSettings,
    DuelStats,
    DuelWeapon,
)


class Duel(Ruleset):
    id = "duel"
    label_key = "FIREFIGHT.duel.name"
    actions = (Action("attack", DuelAttack, attack.attack, attack.odds, options=DuelOptions,
                      odds_label_key="FIREFIGHT.duel.odds.hit",
                      rounds=lambda request: request.weapon.rounds,  # off its magazine
                      engage=attack.engage_attack),
               Action("brawl", DuelBrawl, brawl.brawl, brawl.odds, options=BrawlOptions,
                      odds_label_key="FIREFIGHT.duel.odds.brawl"))
    settings_model = DuelSettings
    stats_model = DuelStats
    # The item sheet's Firefight tab edits a weapon's flags.firefight.duel with this model.
    item_models: ClassVar[dict[str, type[BaseModel]]] = {"weapon": DuelWeapon}
    card_template = "duel/card.html.j2"  # templates/card.html.j2 of this package
    killed_states = frozenset({"dead"})
    incapacitated_states = frozenset({"dead", "unconscious"})
    features: ClassVar[dict[str, Any]] = {}  # no table features beyond the attack
    house_steps: ClassVar[dict[str, str]] = {"to_hit": "Duel rule 2"}


RULESET = Duel()
