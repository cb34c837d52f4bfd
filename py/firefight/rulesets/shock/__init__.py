"""SHOCK, a small-arms tactical skirmish system (ruleset id ``shock``).

Read top to bottom: ``models`` (requests, options, settings, actor data), ``data`` (the tables
in ``tables/``), then one module per chapter of the text: ``soldier`` (TAP, Troop Quality),
``activation`` (chit pull), ``damage`` (Hit Location, Damage Class, Location Severity: the
attack), ``wounds`` (Details of Severity: stun, wound, shock, death; the end-of-turn shock check),
``to_hit`` (the switchable house rule: the text has no to-hit rule) and ``mission`` (the
referee's treatment and the end of the mission: Firefight procedures where the text is silent).

Six actions:

- ``attack``: to-hit, hit location (1d10), cover, location severity (1d10 + damage class Mod;
  class VI upgrades the result one tier), then stun / wound / shock / death on the target.
- ``end_of_turn``: every wounded unit checks shock (1d10 above its wounds, else shock; ten or
  more wounds is shock at once); stunned units that skipped their turn recover.
- ``draw_chits``: the chit cup for a turn of four phases (troop quality P1-P4: x one chit, xx
  two), every draw a die (1dN from the N chits left); held activations capped at skill level.
- ``activation_pool``: hold an activation, or spend a held one ("Max pool is equivalent to unit
  skill level").
- ``treat`` and ``end_of_mission``: the referee's (``mission``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from firefight.registry import Action, Ruleset
from firefight.rulesets.shock import activation, damage, mission, to_hit, wounds
from firefight.rulesets.shock.data import tables
from firefight.rulesets.shock.models import (
    ID,
    STATES,
    AttackRequest,
    DrawChitsRequest,
    EndOfMissionOptions,
    EndOfMissionRequest,
    EndOfTurnRequest,
    NoOptions,
    P,
    PoolOptions,
    PoolRequest,
    ShockOptions,
    ShockProtection,
    ShockSettings,
    ShockStats,
    ShockUnit,
    ShockWeapon,
    TreatOptions,
    TreatRequest,
)


# Per-token cover (issue 15): the engine takes a list of protections per side; the table keeps
# each token's own in a token flag (the referee's editor is built from `schema`: one entry,
# ``ShockProtection`` without the fields the table sets) and sends the target's in ``target.cover``
# (`fields`), each entry with the `fixed` fields added, up to `maxItems` entries.
def _cover_schema() -> dict[str, Any]:
    schema = ShockProtection.model_json_schema()
    for table_set in ("item_id", "category"):
        schema["properties"].pop(table_set)
    return schema


COVER_FEATURE: dict[str, Any] = {
    "schema": _cover_schema(),
    "fields": ["target.cover"],
    "fixed": {"category": "cover"},
    "maxItems": ShockUnit.model_fields["cover"].metadata[0].max_length,
}


class Shock(Ruleset):
    id = ID
    label_key = f"{P}.name"
    actions = (
        # The card shows the chance to hit only when the house rule rolls (``resolve`` below).
        Action("attack", request=AttackRequest, resolve=damage.attack, odds=damage.attack_odds,
               options=ShockOptions, shown_odds=("probability", "exact", "net_modifier",
                                                 "incapacitate_probability"),
               # The referee decided the hit: no chance to hit on the card (the dialog's
               # odds still say 1 or 0).
               odds_on_card=to_hit.rolls,
               # One round an attack: the draft text has no rate of fire (docs/rules-notes.md).
               rounds=lambda request: 1),
        # Their odds are the dialog's; their cards show none.
        Action(activation.SETTLE, request=EndOfTurnRequest, resolve=wounds.end_of_turn,
               odds=wounds.end_of_turn_odds, options=NoOptions, shown_odds=()),
        Action(activation.DRAW, request=DrawChitsRequest, resolve=activation.draw_chits,
               odds=activation.draw_odds, options=NoOptions, shown_odds=()),
        # Issue 15: "Max pool is equivalent to unit skill level": hold or spend an activation.
        Action(activation.POOL, request=PoolRequest, resolve=activation.activation_pool,
               odds=activation.pool_odds, options=PoolOptions, shown_odds=()),
        # Issue 15: the referee's procedures where the text names a need but gives no rule.
        Action(mission.TREAT, request=TreatRequest, resolve=mission.treat,
               odds=mission.treat_odds, options=TreatOptions, shown_odds=()),
        Action(mission.END_OF_MISSION, request=EndOfMissionRequest,
               resolve=mission.end_of_mission, odds=mission.end_of_mission_odds,
               options=EndOfMissionOptions, shown_odds=()),
    )
    settings_model = ShockSettings
    stats_model = ShockStats
    # Worn armor ("cover" is the dialog's, never an item's).
    item_models: ClassVar[dict[str, type[BaseModel]]] = {
        "weapon": ShockWeapon, "armor": ShockProtection}
    # shock SHOCK: a unit in shock is incapacitated (and the dead are dead).
    incapacitated_states = frozenset(STATES) - wounds.IN_THE_FIGHT
    # Combat by chit pull (shock Unit Activation), run by the table's combat tracker; the
    # referee's actions (the actions menu, GM only) and what they take; per-token cover.
    features: ClassVar[dict[str, Any]] = {
        "activation": activation.ACTIVATION,
        # Actions only the referee is offered (one key for every ruleset): `list` is the
        # request's list of units, filled `from` the targeted tokens (treat) or every token of
        # the scene (end of mission), each entry's fields from the actor's flags.firefight.shock.
        "refereeActions": {
            mission.TREAT: {"list": "units", "from": "targeted"},
            mission.END_OF_MISSION: {"list": "units", "from": "scene"},
        },
        "cover": COVER_FEATURE,
    }
    house_steps: ClassVar[dict[str, str]] = {
        to_hit.STEP: "Firefight house rule (not in SHOCK): 1d10 <= Prowess + modifiers (only "
                     "when it rolls)",
        damage.SEVERITY: "shock Location Severity: 1d10 + damage class Mod",
    }

    def load_data(self) -> None:
        tables()  # read and validated on first use (data.tables): ahead of the first shot


RULESET = Shock()
