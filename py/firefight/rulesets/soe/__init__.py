"""Stars of Empire experimental combat (ruleset id ``soe``).

A shot (``attack``): the to-hit opposed roll (``to_hit``, Table 1); on a hit the to-damage opposed
roll (``to_damage``, Table 2) whose over-roll gives the injury (``injury``, Table 3: hit points or
General Trauma), multiplied for several projectiles (Table 4); optionally the possible delayed
injury (``delayed_injury``) and the Pre-Trauma Will check (``pretrauma``). Every roll is the
opposed d20 + RANT roll of ``opposed``. Other actions: the Will roll that ends Pre-Trauma, the
after-combat delayed-injury roll, a General Trauma effect roll, any task as an opposed roll
(``task``), and the referee's tools of sections 6-11 (``referee``, on the derivations of
``to_hit``, ``damage`` and ``armor``). ``odds`` gives a shot's every outcome before the roll.
Tables are JSON in ``tables/`` (``data``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from firefight.registry import Action, Ruleset
from firefight.rulesets.soe import (
    actor,
    attack,
    delayed_injury,
    injury,
    pretrauma,
    referee,
    task,
    to_hit,
)
from firefight.rulesets.soe.data import load_tables
from firefight.rulesets.soe.models import (
    SoeArmor,
    SoeAttackRequest,
    SoeCoverageOptions,
    SoeCoverageRequest,
    SoeCreatureOptions,
    SoeCreatureRequest,
    SoeDelayedInjuryRequest,
    SoeIncapacitationOptions,
    SoeIncapacitationRequest,
    SoeM3Options,
    SoeM3Request,
    SoeOptions,
    SoeSettings,
    SoeStats,
    SoeTaskOptions,
    SoeTaskRequest,
    SoeTraumaRequest,
    SoeWeapon,
    SoeWeaponDamageOptions,
    SoeWeaponDamageRequest,
    SoeWillCheckRequest,
)

# soe Table 1 "# Projectiles", "firing multiple projectiles in one action": the magazine is
# counted in projectiles (a shotgun's holds shells x pellets; docs/rules-notes.md).
ATTACK = Action("attack", request=SoeAttackRequest, resolve=attack.resolve_attack,
                odds=attack.attack_odds, options=SoeOptions, rounds=to_hit.shots,
                engage=attack.engage_attack)
WILL_CHECK = Action("will_check", request=SoeWillCheckRequest,
                    resolve=pretrauma.resolve_will_check, odds=pretrauma.will_check_odds)
DELAYED_INJURY_CHECK = Action("delayed_injury_check", request=SoeDelayedInjuryRequest,
                              resolve=delayed_injury.resolve_check,
                              odds=delayed_injury.check_odds)
# A table roll: nothing to succeed at, so no odds.
GENERAL_TRAUMA = Action("general_trauma", request=SoeTraumaRequest,
                        resolve=injury.resolve_general_trauma)
# soe 2.1.2: any task as an opposed roll; a dialog (its options) in the table's actions menu.
TASK = Action("task", request=SoeTaskRequest, resolve=task.resolve_task, odds=task.task_odds,
              options=SoeTaskOptions)
# The referee's tools (sections 6-11): dialogs whose cards show the derivation; nothing rolled.
TOOLS = (
    Action("weapon_damage", request=SoeWeaponDamageRequest, resolve=referee.weapon_damage,
           options=SoeWeaponDamageOptions),
    Action("creature_stats", request=SoeCreatureRequest, resolve=referee.creature_stats,
           options=SoeCreatureOptions),
    Action("armor_coverage", request=SoeCoverageRequest, resolve=referee.armor_coverage,
           options=SoeCoverageOptions),
    Action("m3_hit", request=SoeM3Request, resolve=referee.m3_hit, options=SoeM3Options),
    Action("incapacitation", request=SoeIncapacitationRequest, resolve=referee.incapacitation,
           options=SoeIncapacitationOptions),
)


class StarsOfEmpire(Ruleset):
    id = "soe"
    label_key = "FIREFIGHT.soe.name"
    actions = (ATTACK, WILL_CHECK, DELAYED_INJURY_CHECK, GENERAL_TRAUMA, TASK, *TOOLS)
    settings_model = SoeSettings
    stats_model = SoeStats
    item_models: ClassVar[dict[str, type[BaseModel]]] = {"weapon": SoeWeapon, "armor": SoeArmor}
    # soe Table 3: at 0 HP the character dies next turn, below 0 at once.
    incapacitated_states = frozenset({"dead", "dying"})
    features: ClassVar[dict[str, Any]] = {
        # Buttons on the Firefight sheet tab; `each`: one button per entry of that stats list,
        # sent as `field`; `badge`: a stat shown on the button when below 0; `tables`: RollTables
        # whose flags.firefight.soe.<by> names the class, their texts sent as `field`.
        "sheetActions": [
            {"action": WILL_CHECK.name, "badge": pretrauma.STAT},
            {"action": DELAYED_INJURY_CHECK.name, "each": delayed_injury.STAT,
             "field": "trauma_class", "labelKey": "injury.class"},
            {"action": GENERAL_TRAUMA.name, "dialog": True,
             "tables": {"field": "trauma_tables", "by": "trauma_class"}},
        ],
        # When a combat ends: effects applied to every combatant whose stat is below 0.
        "combatEnd": [pretrauma.combat_end()],
        # RollTables an action's request carries (issue 15: Shoot sent none, so a General
        # Trauma shot showed placeholders): flags.firefight.soe.<by> names the class, the five
        # texts go in the request's <field>, as for the sheet's General Trauma button.
        "actionTables": {ATTACK.name: {"field": "trauma_tables", "by": "trauma_class"}},
        # What follows a state at a later turn (docs/rules-notes.md, "Zero hit points").
        "followUp": [injury.DYING_FOLLOW_UP],
        # Actions only the referee is offered (the generic actions menu hides them from
        # players): the derivations of sections 6-11.
        # (one key and one shape for every ruleset: action -> its spec, {} here).
        "refereeActions": {a.name: {} for a in TOOLS},
        # Who is who in the opposed roll: the selected token is the `character`, the targeted
        # one the optional `opponent` (soe 2.1.2).
        "roles": {TASK.name: {"actor": "character", "target": "opponent"}},
    }
    # Steps a house rule may add modifiers to (firefight.house): each one's ledger asks for them.
    house_steps: ClassVar[dict[str, str]] = {
        "to_hit": "soe 2.3, Table 1 (To-Hit Modifiers, applied to the shooter)",
        "to_damage": "soe 2.4, Table 2 (To-Damage Modifiers)",
        "pretrauma": "soe 2.4, \"Pre-trauma\": the target's opposed roll modified by Will",
        "will_check": "soe Table 3, \"Pretrauma\": the Will roll that ends it",
        "delayed_injury": "soe Table 3, \"Delayed Injury\": opposed roll, strength",
        "task": "soe 2.1.2, \"Opposed Roll + RANT\": any task's situation specific modifiers",
    }
    apply = staticmethod(actor.apply)
    # The tables, read and validated on first use (data.tables): ahead of the first shot.
    load_data = staticmethod(load_tables)


RULESET = StarsOfEmpire()
