"""SHOCK, a small-arms tactical skirmish system (ruleset id ``shock``).

Read top to bottom: ``models`` (requests, options, settings, actor data), ``data`` (the tables
in ``tables/``), then one module per chapter of the text: ``soldier`` (TAP, Troop Quality),
``activation`` (chit pull), ``damage`` (Hit Location, Damage Class, Location Severity: the
attack), ``wounds`` (Details of Severity: stun, wound, shock, death; the end-of-turn shock check),
and ``to_hit`` (the switchable house rule: the text has no to-hit rule).

Three actions:

- ``attack``: to-hit, hit location (1d10), cover, location severity (1d10 + damage class Mod;
  class VI upgrades the result one tier), then stun / wound / shock / death on the target.
- ``end_of_turn``: every wounded unit checks shock (1d10 above its wounds, else shock; ten or
  more wounds is shock at once); stunned units that skipped their turn recover.
- ``draw_chits``: the chit cup for a turn of four phases (troop quality P1-P4: x one chit, xx
  two), every draw a die (1dN from the N chits left).
"""

from __future__ import annotations

from typing import Any, ClassVar

from firefight.registry import Action, Ruleset
from firefight.rulesets.shock import activation, damage, to_hit, wounds
from firefight.rulesets.shock.models import (
    ID,
    STATES,
    AttackRequest,
    DrawChitsRequest,
    EndOfTurnRequest,
    NoOptions,
    P,
    ShockOptions,
    ShockSettings,
    ShockStats,
)


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
               odds_on_card=to_hit.rolls),
        # Their odds are the dialog's; their cards show none.
        Action(activation.SETTLE, request=EndOfTurnRequest, resolve=wounds.end_of_turn,
               odds=wounds.end_of_turn_odds, options=NoOptions, shown_odds=()),
        Action(activation.DRAW, request=DrawChitsRequest, resolve=activation.draw_chits,
               odds=activation.draw_odds, options=NoOptions, shown_odds=()),
    )
    settings_model = ShockSettings
    stats_model = ShockStats
    # shock SHOCK: a unit in shock is incapacitated (and the dead are dead).
    incapacitated_states = frozenset(STATES) - wounds.IN_THE_FIGHT
    # Combat by chit pull (shock Unit Activation), run by the table's combat tracker.
    features: ClassVar[dict[str, Any]] = {"activation": activation.ACTIVATION}
    house_steps: ClassVar[dict[str, str]] = {
        to_hit.STEP: f"{to_hit.HOUSE}: 1d10 <= Prowess + modifiers (only when it rolls)",
        damage.SEVERITY: "shock Location Severity: 1d10 + damage class Mod",
    }


RULESET = Shock()
