"""Stars of Empire experimental combat (ruleset id ``soe``).

Resolution of a shot: the to-hit opposed roll (Table 1), then, on a hit, the to-damage opposed
roll (Table 2) whose over-roll gives the injury (Table 3, hit-point mode), multiplied for
several projectiles (Table 4).
"""

from __future__ import annotations

from typing import Any

from firefight.dice import Roller
from firefight.models import Effect, Modifier, Note, Resolution, Step
from firefight.rant import opposed_roll, over_roll_at_least, success_probability
from firefight.registry import Ruleset
from firefight.rulesets.soe import rules
from firefight.rulesets.soe.models import SoeAttackRequest, SoeOptions, SoeSettings

P = "FIREFIGHT.soe"


def _total(mods: list[Modifier]) -> int:
    return sum(m.value for m in mods)


class StarsOfEmpire(Ruleset):
    id = "soe"
    label_key = f"{P}.name"
    actions = ("attack",)
    request_model = SoeAttackRequest
    options_model = SoeOptions
    settings_model = SoeSettings

    def odds(self, request: SoeAttackRequest) -> dict[str, Any]:
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

    def resolve(self, request: SoeAttackRequest, roller: Roller) -> Resolution:
        range_m = request.range.metres()
        rules.check_allowed(request, range_m)
        odds = self.odds(request)
        ties = rules.ties_to_attacker(request)
        hit_mods, notes = rules.to_hit_ledger(request, range_m)
        steps: list[Step] = []
        effects: list[Effect] = []

        # soe 2.3: the to-hit roll, every modifier applied to the shooter.
        first = len(roller.records)
        hit = opposed_roll(roller, acting_modifier=_total(hit_mods), ties_to_acting=ties,
                           purpose="to-hit")
        steps.append(Step(id="to_hit", label_key=f"{P}.step.to_hit", dice=[first, first + 1],
                          modifier_total=_total(hit_mods), numbers=hit.to_dict(),
                          success=hit.success,
                          outcome_key=f"{P}.outcome.{'hit' if hit.success else 'miss'}"))
        mods = list(hit_mods)
        outcome: dict[str, Any] = {"hit": hit.success, "to_hit_over_roll": hit.over_roll}
        if not hit.success:
            outcome["summary_key"] = f"{P}.outcome.miss"
            return self._result(request, roller, mods=mods, steps=steps, outcome=outcome,
                            effects=effects, notes=notes, odds=odds)

        # soe 2.4: the to-damage roll.
        dmg_mods = rules.to_damage_ledger(request)
        mods += dmg_mods
        first = len(roller.records)
        dmg = opposed_roll(roller, acting_modifier=_total(dmg_mods), ties_to_acting=ties,
                           purpose="to-damage")
        steps.append(Step(id="to_damage", label_key=f"{P}.step.to_damage", dice=[first, first + 1],
                          modifier_total=_total(dmg_mods), numbers=dmg.to_dict(),
                          success=dmg.success and dmg.over_roll > 0))
        base = dmg.over_roll
        n = rules.shots(request)
        multiplier = rules.damage_multiplier(hit.over_roll, n) if n > 1 else 1
        injury = rules.tables().injury.lookup(base)
        outcome.update(damage_over_roll=base, injury=injury, multiplier=multiplier)

        # soe Table 3, hit-point mode: lose HP equal to the over-roll (x Table 4 multiplier).
        stats = request.target.stats
        hp_before = stats.hp if stats.hp is not None else stats.hp_max
        loss = max(0, base) * multiplier
        hp_after = hp_before - loss
        state = "unhurt" if loss == 0 else "wounded" if hp_after > 0 else (
            "dying" if hp_after == 0 else "dead")
        outcome.update(hp_before=hp_before, hp_loss=loss, hp_after=hp_after, state=state,
                       summary_key=f"{P}.outcome.{state}")
        steps.append(Step(id="injury", label_key=f"{P}.step.injury", kind="table",
                          numbers={"over_roll": base, "multiplier": multiplier, "hp_loss": loss,
                                   "hp_before": hp_before, "hp_after": hp_after},
                          outcome_key=f"{P}.injury.{injury}",
                          params={"source": "soe Table 3, \"Injury\"; Hit Point Reduction"}))
        if multiplier > 1:
            notes.append(Note(key=f"{P}.note.multiplier", source="soe Table 4",
                              params={"n": n, "over_roll": hit.over_roll, "x": multiplier}))
        if loss:
            effects.append(Effect(kind="hp", delta=-loss, label_key=f"{P}.effect.hp",
                                  params={"loss": loss}))
        if state in ("dying", "dead"):
            effects.append(Effect(kind="state", value=state, label_key=f"{P}.effect.{state}"))
        return self._result(request, roller, mods=mods, steps=steps, outcome=outcome,
                            effects=effects, notes=notes, odds=odds)

    def _result(self, request: SoeAttackRequest, roller: Roller, *, mods: list[Modifier],
                steps: list[Step], outcome: dict[str, Any], effects: list[Effect],
                notes: list[Note], odds: dict[str, Any]) -> Resolution:
        return Resolution(
            ruleset=self.id, action=request.action,
            request=request.model_dump(mode="json", by_alias=True),
            dice=[r.to_dict() for r in roller.records], modifiers=mods, steps=steps,
            outcome=outcome, effects=effects, notes=notes,
            odds={k: odds[k] for k in ("probability", "exact", "net_modifier",
                                       "injury_probability")},
            card={"template": "card.html.j2", "title_key": f"{P}.card.title",
                  "params": {"attacker": request.attacker.name, "target": request.target.name,
                             "weapon": request.weapon.name,
                             "range": round(request.range.value, 1),
                             "units": request.range.units,
                             "mode_key": f"{P}.opt.mode.choices.{request.options.mode}"}},
        )


RULESET = StarsOfEmpire()
