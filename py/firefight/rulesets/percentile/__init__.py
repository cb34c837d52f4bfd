"""Percentile small-arms fire (ruleset id ``percentile``).

Resolution of a shot: the chance (basic percentage by class and range in inches + rounds fired +
modifiers, then the hasty / blind fraction), then one D100 per round (bolt, semi) or per burst
(automatic). Each hitting roll kills (at or under the rounds fired, or half of them for SMGs and
automatic rifles) or reads the Casualty Table by the same roll and the rounds fired: the percent
of life force lost, multiplied inside 20" / 10" (not pistols). At 0 % the man dies.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from firefight.dice import Roller
from firefight.models import Effect, Modifier, Note, Resolution, Step
from firefight.registry import Ruleset
from firefight.rulesets.percentile import rules
from firefight.rulesets.percentile.models import (
    PercentileAttackRequest,
    PercentileOptions,
    PercentileSettings,
    PercentileStats,
)

P = "FIREFIGHT.percentile"
CASUALTY_SOURCE = "percentile Casualty Table"


def _exact(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


class _Shot:
    """Everything about a shot that is known before the dice: shared by odds and resolve."""

    def __init__(self, request: PercentileAttackRequest) -> None:
        self.request = request
        self.range_in = rules.range_inches(request)
        self.plan = rules.fire_plan(request)
        self.ledger = rules.chance_ledger(request, self.plan, self.range_in)
        self.chance = self.ledger.total
        cls = request.weapon.weapon_class
        self.kill_at, self.kill_source = rules.kill_at(
            cls, self.plan.rounds_per_roll, burst=self.plan.burst,
            rule=request.settings.kill_rule)
        self.multiplier, self.multiplier_source = rules.damage_multiplier(
            cls, self.range_in, request.settings.range_damage)

    def odds(self) -> dict[str, Any]:
        outcomes = rules.roll_outcomes(self.chance, self.kill_at, self.plan.rounds_per_roll,
                                       self.multiplier)
        fire = rules.fire_odds(outcomes, self.plan.rolls,
                               self.request.target.stats.life_force)
        return {
            "probability": float(fire.hit),
            "exact": _exact(fire.hit),
            "chance": self.chance,
            "net_modifier": self.chance - self.ledger.mods[0].value - self.plan.rounds_per_roll,
            "rolls": self.plan.rolls,
            "rounds_fired": self.plan.rounds_fired,
            "kill_at": self.kill_at,
            "damage_multiplier": self.multiplier,
            "range_inches": float(self.range_in),
            "any_hit_probability": float(fire.any_hit),
            "any_hit_exact": _exact(fire.any_hit),
            "kill_probability": float(fire.kill_rule),
            "kill_exact": _exact(fire.kill_rule),
            "death_probability": float(fire.death),
            "death_exact": _exact(fire.death),
            "modifiers": [m.model_dump(mode="json") for m in self.ledger.mods],
        }

    def notes(self) -> list[Note]:
        notes = list(self.ledger.notes)
        plan, options, weapon = self.plan, self.request.options, self.request.weapon
        if not plan.declared:
            notes.append(Note(key=f"{P}.note.whole_magazine", params={"n": plan.rounds_fired},
                              source="percentile Small Arms, \"The number of rounds being fired "
                                     "must be specified before firing or the entire clip or "
                                     "magazine capacity is assumed to be fired\""))
        if plan.wasted:
            notes.append(Note(key=f"{P}.note.climb", params={"wasted": plan.wasted,
                                                             "limit": plan.rounds_per_roll},
                              source=rules.tables().small_arms["burst_limit"]["source"]))
        if options.single_shots and weapon.action != "automatic":
            notes.append(Note(key=f"{P}.note.single_shots_ignored"))
        if plan.rounds_per_roll > 50:
            notes.append(Note(key=f"{P}.note.beyond_table", params={"n": plan.rounds_per_roll},
                              source=CASUALTY_SOURCE))
        if self.multiplier > 1:
            notes.append(Note(key=f"{P}.note.range_damage",
                              params={"x": self.multiplier, "range": f"{float(self.range_in):g}"},
                              source=self.multiplier_source))
        elif weapon.weapon_class == "pistol" and rules.damage_multiplier(
                "rifle", self.range_in, self.request.settings.range_damage)[0] > 1:
            notes.append(Note(key=f"{P}.note.pistol_no_multiplier",
                              source="percentile Small Arms, \"EXCEPT FOR PISTOLS\""))
        if self.chance <= 0:
            notes.append(Note(key=f"{P}.note.no_chance", params={"chance": self.chance}))
        return notes


class Percentile(Ruleset):
    id = "percentile"
    label_key = f"{P}.name"
    actions = ("attack",)
    request_model = PercentileAttackRequest
    options_model = PercentileOptions
    settings_model = PercentileSettings
    stats_model = PercentileStats

    def odds(self, request: PercentileAttackRequest) -> dict[str, Any]:
        return _Shot(request).odds()

    def resolve(self, request: PercentileAttackRequest, roller: Roller) -> Resolution:
        shot = _Shot(request)
        plan, chance = shot.plan, shot.chance
        odds = self.cached_odds(request)
        life_before = request.target.stats.life_force
        life = life_before
        steps = [Step(id="chance", label_key=f"{P}.step.chance", kind="info",
                      modifier_total=chance,
                      numbers={"chance": chance, "rolls": plan.rolls,
                               "rounds": plan.rounds_per_roll, "kill_at": shot.kill_at},
                      outcome_key=f"{P}.outcome.{'chance' if shot.kill_at else 'chance_no_kill'}",
                      params={"source": shot.kill_source})]
        hits = kills = damage_total = 0
        for i in range(plan.rolls):
            label = "burst" if plan.burst else f"round {i + 1}"
            first = len(roller.records)
            which = {"which_key": f"{P}.roll.burst"} if plan.burst else {
                "which_key": f"{P}.roll.round", "n": str(i + 1)}
            tens = roller.roll(10, purpose=f"to-hit tens, {label}", side="attacker",
                               purpose_key=f"{P}.roll.tens", purpose_params=which)
            ones = roller.roll(10, purpose=f"to-hit ones, {label}", side="attacker",
                               purpose_key=f"{P}.roll.ones", purpose_params=which)
            roll = rules.d100(tens.results[0], ones.results[0])
            r = rules.roll_result(roll, chance, shot.kill_at, plan.rounds_per_roll,
                                  shot.multiplier)
            numbers: dict[str, Any] = {"roll": roll, "chance": chance, "kill_at": shot.kill_at,
                                       "rounds": plan.rounds_per_roll}
            params: dict[str, Any] = {}
            if r.kill:
                kills += 1
                life = 0
                outcome = "kill"
                params["source"] = shot.kill_source
            elif r.hit:
                cas = rules.casualty(roll, plan.rounds_per_roll)
                damage_total += r.damage
                life = max(0, life - r.damage)
                outcome = "wound" if shot.multiplier == 1 else "wound_multiplied"
                numbers.update(table_percent=r.table_percent, multiplier=shot.multiplier,
                               damage=r.damage)
                params["source"] = (f"{CASUALTY_SOURCE}, D100 {cas.row.lo}-{cas.row.hi}, "
                                    f"rounds {cas.column.lo}-{cas.column.hi}")
            else:
                outcome = "miss"
            hits += r.hit
            numbers["life_after"] = life
            steps.append(Step(
                id="burst" if plan.burst else f"round_{i + 1}",
                label_key=f"{P}.step.{'burst' if plan.burst else 'round'}", kind="percentile",
                dice=[first, first + 1], modifier_total=chance, numbers=numbers, success=r.hit,
                outcome_key=f"{P}.outcome.roll.{outcome}",
                params={**params, "n": i + 1, "of": plan.rolls},
            ))

        state = ("already_dead" if life_before == 0 else "dead" if life == 0 else
                 "wounded" if hits else "miss")
        outcome_dict: dict[str, Any] = {
            "hit": hits > 0, "hits": hits, "kills": kills, "rolls": plan.rolls,
            "chance": chance, "damage": damage_total, "life_before": life_before,
            "life_after": life, "life_loss": life_before - life, "state": state,
            "rounds_fired": plan.rounds_fired, "rounds_wasted": plan.wasted,
            "summary_key": f"{P}.outcome.{state}",
        }
        effects: list[Effect] = []
        if life != life_before:
            effects.append(Effect(kind="life_force", delta=life - life_before,
                                  label_key=f"{P}.effect.life_force",
                                  params={"loss": life_before - life, "before": life_before,
                                          "after": life}))
        if state == "dead":
            effects.append(Effect(kind="state", value="dead", label_key=f"{P}.effect.dead"))
        return self._result(request, roller, shot, steps=steps, outcome=outcome_dict,
                            effects=effects, odds=odds)

    def _result(self, request: PercentileAttackRequest, roller: Roller, shot: _Shot, *,
                steps: list[Step], outcome: dict[str, Any], effects: list[Effect],
                odds: dict[str, Any]) -> Resolution:
        mods: list[Modifier] = list(shot.ledger.mods)
        return Resolution(
            ruleset=self.id, action=request.action,
            request=request.model_dump(mode="json", by_alias=True),
            dice=[r.to_dict() for r in roller.records], modifiers=mods, steps=steps,
            outcome=outcome, effects=effects, notes=shot.notes(),
            odds={k: odds[k] for k in ("probability", "exact", "chance", "net_modifier",
                                       "any_hit_probability", "kill_probability",
                                       "death_probability")},
            card={"template": "card.html.j2", "title_key": f"{P}.card.title",
                  "params": {"attacker": request.attacker.name, "target": request.target.name,
                             "weapon": request.weapon.name, "rounds": shot.plan.rounds_fired,
                             "range": f"{float(shot.range_in):g}",
                             "mode_key": f"{P}.mode.{'burst' if shot.plan.burst else 'single'}"}},
        )


RULESET = Percentile()
