"""Stars of Empire experimental combat (ruleset id ``soe``).

A shot: the to-hit opposed roll (Table 1); on a hit the to-damage opposed roll (Table 2) whose
over-roll gives the injury (Table 3, hit points or General Trauma), multiplied for several
projectiles (Table 4); optionally the possible delayed injury and the Pre-Trauma Will check.
Other actions: the Will roll that ends Pre-Trauma, the after-combat delayed-injury roll, and a
General Trauma effect roll.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from pydantic import BaseModel

from firefight.dice import Roller
from firefight.models import Effect, Modifier, Note, Resolution, Step
from firefight.rant import OpposedRoll, opposed_roll, over_roll_at_least, success_probability
from firefight.registry import Ruleset
from firefight.rulesets.soe import rules
from firefight.rulesets.soe.models import (
    SoeAttackRequest,
    SoeCombatant,
    SoeDelayedInjuryRequest,
    SoeOptions,
    SoeRequest,
    SoeSettings,
    SoeStats,
    SoeTraumaRequest,
    SoeWillCheckRequest,
    TraumaTables,
)

P = "FIREFIGHT.soe"
AnyRequest = SoeAttackRequest | SoeWillCheckRequest | SoeDelayedInjuryRequest | SoeTraumaRequest


def _total(mods: list[Modifier]) -> int:
    return sum(m.value for m in mods)


class _Record:
    """What a resolution accumulates, step by step."""

    def __init__(self, roller: Roller) -> None:
        self.roller = roller
        self.mods: list[Modifier] = []
        self.steps: list[Step] = []
        self.effects: list[Effect] = []
        self.notes: list[Note] = []
        self.outcome: dict[str, Any] = {}

    def opposed(self, step_id: str, mods: list[Modifier], *, ties: bool, purpose: str,
                acting: str = "attacker", opposing: str = "target",
                success_key: str = "", failure_key: str = "") -> OpposedRoll:
        first = len(self.roller.records)
        roll = opposed_roll(self.roller, acting_modifier=_total(mods), ties_to_acting=ties,
                            purpose=purpose, acting_side=acting, opposing_side=opposing,
                            purpose_key=f"{P}.roll.{step_id}")
        self.mods += mods
        key = success_key if roll.success else failure_key
        self.steps.append(Step(id=step_id, label_key=f"{P}.step.{step_id}",
                               dice=[first, first + 1], modifier_total=_total(mods),
                               numbers=roll.to_dict(), success=roll.success,
                               outcome_key=f"{P}.{key}" if key else ""))
        return roll


def _ties_for(character: SoeCombatant, settings: SoeSettings) -> bool:
    """Ties on a roll the character makes against the referee (soe 4: the player's favour;
    with no player taking part, the ``solo_ties`` setting decides)."""
    if settings.tie_goes_to == "player":
        return character.pc or settings.solo_ties == "acting"
    return settings.tie_goes_to == "attacker"


def _trauma_effect(rec: _Record, trauma_class: str, tables: TraumaTables | None,
                   purpose: str) -> None:
    """soe Table 3, General Trauma: five effects a class, effect ceil(1d20 / 4)."""
    first = len(rec.roller.records)
    die = rec.roller.roll(20, purpose=purpose, side="target",
                          purpose_key=f"{P}.roll.general_trauma")
    index = math.ceil(die.total / 4)
    effects = (tables or {}).get(trauma_class) or rules.tables().trauma[trauma_class]  # type: ignore[call-overload]
    text = effects[index - 1]
    rec.steps.append(Step(id="general_trauma", label_key=f"{P}.step.general_trauma",
                          kind="table", dice=[first],
                          numbers={"roll": die.total, "effect": index},
                          outcome_key=f"{P}.trauma.effect",
                          params={"class_key": f"{P}.injury.class.{trauma_class}", "text": text,
                                  "index": index,
                                  "source": "soe Table 3, General Trauma Table (1D20/4)"}))
    rec.effects.append(Effect(kind="trauma", value={"class": trauma_class, "effect": index,
                                                    "text": text},
                              label_key=f"{P}.effect.trauma",
                              params={"class_key": f"{P}.injury.class.{trauma_class}",
                                      "text": text}))
    rec.outcome.update(trauma_class=trauma_class, trauma_effect=index, trauma_text=text)
    if trauma_class == "fatal":  # soe Table 3, "Fatal": whatever the effect, the victim dies
        rec.outcome.update(state="dead", summary_key=f"{P}.outcome.fatal")
        rec.effects.append(Effect(kind="state", value="dead", label_key=f"{P}.effect.dead"))


class StarsOfEmpire(Ruleset):
    id = "soe"
    label_key = f"{P}.name"
    actions = ("attack", "will_check", "delayed_injury_check", "general_trauma")
    request_model = SoeRequest
    options_model = SoeOptions
    action_options: ClassVar[dict[str, type[BaseModel]]] = {"attack": SoeOptions}
    settings_model = SoeSettings
    stats_model = SoeStats
    # soe Table 3: at 0 HP the character dies next turn, below 0 at once.
    incapacitated_states = frozenset({"dead", "dying"})

    def apply(self, stats: dict[str, Any], effects: list[dict[str, Any]]) -> dict[str, Any]:
        """Possible delayed injuries accumulate on the actor until rolled for after combat."""
        pending = list(stats.get("delayed_injuries", []))
        rest = []
        for effect in effects:
            if effect.get("kind") == "delayed_injury":
                pending.append(effect["value"])
            elif effect.get("kind") == "delayed_injury_resolved":
                if effect.get("value") in pending:
                    pending.remove(effect["value"])
            else:
                rest.append(effect)
        if pending != list(stats.get("delayed_injuries", [])):
            rest.append({"kind": "delayed_injuries", "value": pending})
        out = super().apply(stats, rest)
        if any(c["field"] == "pretrauma" for c in out["changes"]):
            # soe Table 3: Pre-Trauma shows on the token (Foundry's core "fear" status).
            out["statuses"]["fear"] = out["stats"].get("pretrauma", 0) < 0
        return out

    # --- odds ------------------------------------------------------------------------------

    def odds(self, request: SoeRequest | AnyRequest) -> dict[str, Any]:
        req = request.root if isinstance(request, SoeRequest) else request
        if isinstance(req, SoeAttackRequest):
            return self._attack_odds(req)
        if isinstance(req, SoeTraumaRequest):
            return {}  # a table roll: nothing to succeed at
        character = req.character
        modifier = (character.stats.will if isinstance(req, SoeWillCheckRequest)
                    else character.stats.strength) + character.stats.pretrauma
        p = success_probability(modifier, ties_to_acting=_ties_for(character, req.settings))
        return {"probability": float(p), "exact": f"{p.numerator}/{p.denominator}",
                "net_modifier": modifier, "label_key": "FIREFIGHT.card.chance_success"}

    def _attack_odds(self, request: SoeAttackRequest) -> dict[str, Any]:
        range_m = request.range.metres()
        rules.check_allowed(request, range_m)
        hit_mods, _ = rules.to_hit_ledger(request, range_m)
        dmg_mods = rules.to_damage_ledger(request)
        ties = rules.ties_to_attacker(request)
        p_hit = success_probability(_total(hit_mods), ties_to_acting=ties)
        p_injure = over_roll_at_least(1, _total(dmg_mods))
        return {
            "probability": float(p_hit),
            "exact": f"{p_hit.numerator}/{p_hit.denominator}",
            "net_modifier": _total(hit_mods),
            "ties_to_attacker": ties,
            "injury_probability": float(p_hit * p_injure),
            "damage_modifier": _total(dmg_mods),
            "modifiers": [m.model_dump(mode="json") for m in hit_mods],
        }

    # --- resolution ------------------------------------------------------------------------

    def resolve(self, request: SoeRequest | AnyRequest, roller: Roller) -> Resolution:
        req = request.root if isinstance(request, SoeRequest) else request
        rec = _Record(roller)
        if isinstance(req, SoeAttackRequest):
            self._attack(req, rec)
            title, params = f"{P}.card.title", {
                "attacker": req.attacker.name, "target": req.target.name,
                "weapon": req.weapon.name, "range": round(req.range.value, 1),
                "units": req.range.units, "mode_key": f"{P}.opt.mode.choices.{req.options.mode}"}
        elif isinstance(req, SoeWillCheckRequest):
            self._will_check(req, rec)
            title, params = f"{P}.card.will_check", {"character": req.character.name}
        elif isinstance(req, SoeDelayedInjuryRequest):
            self._delayed_check(req, rec)
            title, params = f"{P}.card.delayed_injury", {
                "character": req.character.name,
                "class_key": f"{P}.injury.class.{req.trauma_class}"}
        else:
            _trauma_effect(rec, req.trauma_class, req.trauma_tables, "General Trauma, effect")
            rec.outcome["summary_key"] = f"{P}.outcome.trauma"
            title, params = f"{P}.card.general_trauma", {
                "character": req.character.name,
                "class_key": f"{P}.injury.class.{req.trauma_class}"}
        odds = self.cached_odds(req)
        return Resolution(
            ruleset=self.id, action=req.action,
            request=req.model_dump(mode="json", by_alias=True),
            dice=[r.to_dict() for r in roller.records], modifiers=rec.mods, steps=rec.steps,
            outcome=rec.outcome, effects=rec.effects, notes=rec.notes,
            odds={k: odds[k] for k in ("probability", "exact", "net_modifier",
                                       "injury_probability", "label_key") if k in odds},
            card={"template": "card.html.j2", "title_key": title, "params": params},
        )

    def _attack(self, request: SoeAttackRequest, rec: _Record) -> None:
        range_m = request.range.metres()
        rules.check_allowed(request, range_m)
        ties = rules.ties_to_attacker(request)
        hit_mods, notes = rules.to_hit_ledger(request, range_m)
        rec.notes += notes

        # soe 2.3: the to-hit roll, every modifier applied to the shooter.
        hit = rec.opposed("to_hit", hit_mods, ties=ties, purpose="to-hit",
                          success_key="outcome.hit", failure_key="outcome.miss")
        rec.outcome.update(hit=hit.success, to_hit_over_roll=hit.over_roll)
        if not hit.success:
            rec.outcome["summary_key"] = f"{P}.outcome.miss"
            return

        # soe 2.4: the to-damage roll; its over-roll is the base damage.
        dmg = rec.opposed("to_damage", rules.to_damage_ledger(request), ties=ties,
                          purpose="to-damage")
        base = dmg.over_roll
        n = rules.shots(request)
        multiplier = rules.damage_multiplier(hit.over_roll, n) if n > 1 else 1
        damage = max(0, base) * multiplier
        if multiplier > 1:
            rec.notes.append(Note(key=f"{P}.note.multiplier", source="soe Table 4",
                                  params={"n": n, "over_roll": hit.over_roll, "x": multiplier}))
        rec.outcome.update(damage_over_roll=base, multiplier=multiplier, damage=damage)

        stats = request.target.stats
        mode = request.settings.injury_mode if stats.injury_mode == "world" else stats.injury_mode
        if mode == "hit_points":
            self._hit_points(request, rec, damage, base, multiplier)
        else:
            self._general_trauma(request, rec, damage)
        if request.settings.delayed_injury:
            self._possible_delayed_injury(rec, base)
        if request.settings.pretrauma and base > -10:
            self._pretrauma(request, rec, base)

    def _hit_points(self, request: SoeAttackRequest, rec: _Record, loss: int, base: int,
                    multiplier: int) -> None:
        """soe Table 3, Hit Point Reduction: at 0 HP death next turn, below 0 at once."""
        stats = request.target.stats
        hp_before = stats.hp if stats.hp is not None else stats.hp_max
        hp_after = hp_before - loss
        state = "unhurt" if loss == 0 else "wounded" if hp_after > 0 else (
            "dying" if hp_after == 0 else "dead")
        injury = rules.tables().injury.lookup(loss)
        rec.outcome.update(injury=injury, hp_before=hp_before, hp_loss=loss, hp_after=hp_after,
                           state=state, summary_key=f"{P}.outcome.{state}")
        rec.steps.append(Step(id="injury", label_key=f"{P}.step.injury", kind="table",
                              numbers={"over_roll": base, "multiplier": multiplier,
                                       "hp_loss": loss, "hp_before": hp_before,
                                       "hp_after": hp_after},
                              # HP mode reads no trauma class: a 65 HP rhino losing 22 is
                              # wounded, not "Fatal" (the class stays in the outcome).
                              outcome_key=f"{P}.injury.hp_loss",
                              params={"source": "soe Table 3, \"Injury\"; Hit Point Reduction"}))
        if loss:
            rec.effects.append(Effect(kind="hp", delta=-loss, label_key=f"{P}.effect.hp",
                                      params={"loss": loss}))
        if state in ("dying", "dead"):
            rec.effects.append(Effect(kind="state", value=state,
                                      label_key=f"{P}.effect.{state}"))

    def _general_trauma(self, request: SoeAttackRequest, rec: _Record, damage: int) -> None:
        """soe Table 3, General Trauma Table: the class by over-roll, then its effect."""
        injury = rules.tables().injury.lookup(damage)
        rec.outcome["injury"] = injury
        if injury == "none":
            rec.outcome.update(state="unhurt", summary_key=f"{P}.outcome.unhurt")
            return
        rec.outcome.update(state="injured", summary_key=f"{P}.outcome.trauma")
        _trauma_effect(rec, injury, request.trauma_tables, "General Trauma, effect")

    def _possible_delayed_injury(self, rec: _Record, base: int) -> None:
        """soe Table 3 column 2: over-rolls -2..8 may bring a delayed injury after combat."""
        delayed = rules.tables().delayed.lookup(base)
        if delayed is None:
            return
        rec.outcome["delayed_injury"] = delayed
        rec.effects.append(Effect(kind="delayed_injury", value=delayed,
                                  label_key=f"{P}.effect.delayed_injury",
                                  params={"class_key": f"{P}.injury.class.{delayed}"}))

    def _pretrauma(self, request: SoeAttackRequest, rec: _Record, base: int) -> None:
        """soe Table 3 column 4: a Will roll; on failure a penalty to all tasks.

        The caption keys column 4 to the to-damage over-roll (default); the worked example
        reads it at the Will check's margin (setting ``pretrauma_reading = "example"``).
        """
        target = request.target
        will = [Modifier(key=f"{P}.mod.will", value=target.stats.will,
                         source="soe Table 3, \"Pretrauma\": opposed roll modified by Will",
                         step="pretrauma", side="target")]
        if target.stats.pretrauma:
            will.append(Modifier(key=f"{P}.mod.pretrauma", value=target.stats.pretrauma,
                                 source="soe Table 3, \"Pretrauma\"", step="pretrauma",
                                 side="target"))
        check = rec.opposed("pretrauma", will, ties=_ties_for(target, request.settings),
                            purpose="Pre-Trauma Will check", acting="target",
                            opposing="referee", success_key="outcome.steady",
                            failure_key="outcome.shaken")
        if check.success:
            return
        row = base if request.settings.pretrauma_reading == "caption" else check.over_roll
        penalty = rules.tables().pretrauma.lookup(row)
        if penalty is None or penalty >= target.stats.pretrauma:
            return
        rec.outcome["pretrauma"] = penalty
        rec.effects.append(Effect(kind="pretrauma", value=penalty,
                                  label_key=f"{P}.effect.pretrauma",
                                  params={"penalty": penalty, "row": row}))

    def _will_check(self, request: SoeWillCheckRequest, rec: _Record) -> None:
        """soe Table 3: Pre-Trauma lasts "until combat ends or they make a successful Will roll"."""
        stats = request.character.stats
        mods = [Modifier(key=f"{P}.mod.will", value=stats.will, source="soe Table 3, \"Pretrauma\"",
                         step="will_check", side="attacker")]
        if stats.pretrauma:
            mods.append(Modifier(key=f"{P}.mod.pretrauma", value=stats.pretrauma,
                                 source="soe Table 3, \"Pretrauma\"", step="will_check"))
        check = rec.opposed("will_check", mods, ties=_ties_for(request.character, request.settings),
                            purpose="Will roll", acting="character", opposing="referee",
                            success_key="outcome.steady", failure_key="outcome.shaken")
        rec.outcome.update(success=check.success, summary_key=f"{P}.outcome."
                           + ("recovered" if check.success else "still_shaken"))
        if check.success and stats.pretrauma:
            rec.effects.append(Effect(kind="pretrauma", value=0,
                                      label_key=f"{P}.effect.pretrauma_ends"))

    def _delayed_check(self, request: SoeDelayedInjuryRequest, rec: _Record) -> None:
        """soe Table 3 column 2: after combat, an opposed roll modified by Strength; on failure
        medical treatment is needed within 12 hours or the listed General Trauma follows."""
        stats = request.character.stats
        mods = [Modifier(key=f"{P}.mod.strength", value=stats.strength,
                         source="soe Table 3, \"Delayed Injury\": opposed roll, strength",
                         step="delayed_injury", side="attacker")]
        if stats.pretrauma:
            mods.append(Modifier(key=f"{P}.mod.pretrauma", value=stats.pretrauma,
                                 source="soe Table 3, \"Pretrauma\"", step="delayed_injury"))
        check = rec.opposed("delayed_injury", mods,
                            ties=_ties_for(request.character, request.settings),
                            purpose="delayed injury", acting="character", opposing="referee",
                            success_key="outcome.no_delayed", failure_key="outcome.delayed")
        rec.outcome.update(success=check.success, trauma_class=request.trauma_class,
                           summary_key=f"{P}.outcome."
                           + ("no_delayed" if check.success else "needs_treatment"))
        rec.effects.append(Effect(kind="delayed_injury_resolved", value=request.trauma_class,
                                  label_key=""))
        if not check.success:
            rec.effects.append(Effect(kind="needs_treatment",
                                      value={"class": request.trauma_class, "hours": 12},
                                      label_key=f"{P}.effect.needs_treatment",
                                      params={"class_key":
                                              f"{P}.injury.class.{request.trauma_class}"}))


RULESET = StarsOfEmpire()
