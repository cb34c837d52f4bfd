"""SHOCK, a small-arms tactical skirmish system (ruleset id ``shock``).

Three actions:

- ``attack``: to-hit (a switchable house rule, or a hit the referee confirms: the text has no
  to-hit rule), hit location (1d10), cover, location severity (1d10 + damage class Mod; class
  VI upgrades the result one tier), then stun / wound / shock / death on the target.
- ``end_of_turn``: every wounded unit checks shock (1d10 above its wounds, else shock; ten or
  more wounds is shock at once); stunned units that skipped their turn recover.
- ``draw_chits``: the chit cup for a turn of four phases (troop quality P1-P4: x one chit, xx
  two), every draw a die (1dN from the N chits left).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar

from pydantic import BaseModel

from firefight.dice import Roller
from firefight.models import Effect, Modifier, Note, Resolution, Step
from firefight.registry import Ruleset
from firefight.rulesets.shock import rules
from firefight.rulesets.shock.models import (
    AttackRequest,
    ChitUnit,
    DrawChitsRequest,
    EndOfTurnRequest,
    NoOptions,
    ShockOptions,
    ShockProtection,
    ShockRequest,
    ShockSettings,
    ShockStats,
    TurnUnit,
)

P = "FIREFIGHT.shock"
AnyRequest = AttackRequest | EndOfTurnRequest | DrawChitsRequest


def _exact(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _unwrap(request: ShockRequest | AnyRequest) -> AnyRequest:
    return request.root if isinstance(request, ShockRequest) else request


class Shock(Ruleset):
    id = "shock"
    label_key = f"{P}.name"
    actions = ("attack", "end_of_turn", "draw_chits")
    request_model = ShockRequest
    options_model = ShockOptions
    action_options: ClassVar[dict[str, type[BaseModel]]] = {
        "attack": ShockOptions, "end_of_turn": NoOptions, "draw_chits": NoOptions}
    settings_model = ShockSettings
    stats_model = ShockStats
    # shock SHOCK: a unit in shock is incapacitated.
    incapacitated_states = frozenset({"dead", "shock"})

    # --- odds ---------------------------------------------------------------------------------

    def odds(self, request: ShockRequest | AnyRequest) -> dict[str, Any]:
        req = _unwrap(request)
        if isinstance(req, AttackRequest):
            return self._attack_odds(req)
        if isinstance(req, EndOfTurnRequest):
            return self._end_of_turn_odds(req)
        return self._draw_odds(req)

    def _attack_odds(self, request: AttackRequest) -> dict[str, Any]:
        rules.check_attack_allowed(request)
        out: dict[str, Any] = {}
        if request.options.referee_confirmed_hit or request.settings.to_hit == "referee":
            # No to-hit roll: the referee says whether it hit (SHOCK has no to-hit rule).
            p_hit = Fraction(1 if request.options.referee_confirmed_hit else 0)
            out.update(to_hit="referee", net_modifier=0)
        else:
            mods = rules.house_to_hit_ledger(request)
            target_number = sum(m.value for m in mods)
            p_hit = rules.house_hit_probability(target_number)
            out.update(to_hit="house", net_modifier=target_number, target_number=target_number,
                       modifiers=[m.model_dump(mode="json") for m in mods])
        given_hit = rules.outcome_distribution(request)
        out.update(
            probability=float(p_hit), exact=_exact(p_hit),
            given_hit={k: float(v) for k, v in given_hit.items() if v},
            given_hit_exact={k: _exact(v) for k, v in given_hit.items() if v},
            incapacitate_probability=float(p_hit * (given_hit["shock"] + given_hit["death"])),
        )
        return out

    def _end_of_turn_odds(self, request: EndOfTurnRequest) -> dict[str, Any]:
        all_pass = Fraction(1)
        units = []
        for unit in request.units:
            p = rules.shock_check_probability(unit.wounds) if _checks(unit) else Fraction(0)
            all_pass *= 1 - p
            units.append({"name": unit.name, "wounds": unit.wounds, "shock": float(p),
                          "exact": _exact(p)})
        return {"probability": float(all_pass), "exact": _exact(all_pass), "units": units}

    def _draw_odds(self, request: DrawChitsRequest) -> dict[str, Any]:
        cups = [len(_cup(request.units, phase)) for phase in range(4)]
        return {"probability": 1.0, "exact": "1/1", "chits": cups}

    # --- resolve ------------------------------------------------------------------------------

    def resolve(self, request: ShockRequest | AnyRequest, roller: Roller) -> Resolution:
        req = _unwrap(request)
        if isinstance(req, AttackRequest):
            return self._attack(req, roller)
        if isinstance(req, EndOfTurnRequest):
            return self._end_of_turn(req, roller)
        return self._draw_chits(req, roller)

    def _to_hit(self, request: AttackRequest, roller: Roller
                ) -> tuple[bool, Step, list[Modifier], Note]:
        """The text has no to-hit rule: a referee's confirmation, or the house rule."""
        opts, attacker = request.options, request.attacker
        if opts.referee_confirmed_hit or request.settings.to_hit == "referee":
            hit = opts.referee_confirmed_hit
            key = "confirmed" if hit else "unconfirmed"
            step = Step(id="to_hit", label_key=f"{P}.step.to_hit_referee", kind="info",
                        success=hit, outcome_key=f"{P}.outcome.referee_{key}")
            return hit, step, [], Note(key=f"{P}.note.to_hit_referee",
                                       source="shock: no to-hit rule in the text")
        mods = rules.house_to_hit_ledger(request)
        target_number = sum(m.value for m in mods)
        first = len(roller.records)
        die = roller.roll(10, purpose=f"to-hit (house rule), {attacker.name}".rstrip(", "),
                          side="attacker", purpose_key=f"{P}.roll.to_hit")
        hit = rules.house_hits(die.total, target_number)
        step = Step(id="to_hit", label_key=f"{P}.step.to_hit_house", kind="target_number",
                    dice=[first], modifier_total=target_number,
                    numbers={"roll": die.total, "target_number": target_number},
                    success=hit, outcome_key=f"{P}.outcome.{'hit' if hit else 'miss'}",
                    params={"source": rules.HOUSE})
        return hit, step, mods, Note(key=f"{P}.note.to_hit_house", source=rules.HOUSE)

    def _attack(self, request: AttackRequest, roller: Roller) -> Resolution:
        rules.check_attack_allowed(request)
        odds = self.cached_odds(request, self._attack_odds)
        weapon_class = request.weapon.damage_class
        hit, to_hit, mods, to_hit_note = self._to_hit(request, roller)
        steps, notes = [to_hit], [to_hit_note]
        outcome: dict[str, Any] = {"hit": hit, "damage_class": weapon_class}
        if not hit:
            outcome["summary_key"] = f"{P}.outcome.{to_hit.outcome_key.rsplit('.', 1)[-1]}"
            return self._attack_result(request, roller, mods=mods, steps=steps,
                                       outcome=outcome, effects=[], notes=notes, odds=odds)

        # shock Hit Location: 1d10.
        first = len(roller.records)
        loc_die = roller.roll(10, purpose="hit location", side="target",
                              purpose_key=f"{P}.roll.location")
        location = rules.hit_location(loc_die.total)
        steps.append(Step(id="location", label_key=f"{P}.step.location", kind="table",
                          dice=[first], numbers={"roll": loc_die.total, "location": location},
                          outcome_key=f"{P}.location.{location}",
                          params={"source": "shock Hit Location"}))
        outcome["location"] = location

        # Cover (and armor) over that location stops rounds of its class and below.
        stopper, pierced = rules.stopping_protection(request, location)
        for protection in pierced:
            notes.append(Note(key=f"{P}.note.pierced", source="shock Damage Class",
                              params={**_named(protection), "stops": protection.stops,
                                      "damage_class": weapon_class}))
        if stopper is not None:
            steps.append(Step(id="cover", label_key=f"{P}.step.cover", kind="info",
                              success=False, outcome_key=f"{P}.outcome.cover_stopped",
                              params={**_named(stopper), "stops": stopper.stops,
                                      "location_key": f"{P}.location.{location}",
                                      "source": "shock Hit Location; Damage Class"}))
            named = _named(stopper)
            outcome.update(stopped=True, summary_key=f"{P}.outcome.stopped",
                           **{"cover" + k.removeprefix("name"): v for k, v in named.items()})
            return self._attack_result(request, roller, mods=mods, steps=steps,
                                       outcome=outcome, effects=[], notes=notes, odds=odds)
        outcome["stopped"] = False

        # shock Location Severity: 1d10 + class Mod (class VI: the next tier instead).
        first = len(roller.records)
        sev_die = roller.roll(10, purpose="severity", side="target",
                              purpose_key=f"{P}.roll.severity")
        sev = rules.severity(location, sev_die.total, weapon_class)
        if sev.upgraded:
            notes.append(Note(key=f"{P}.note.upgrade", source='shock Damage Class, "VI"',
                              params={"from_key": f"{P}.severity.{sev.tabled}",
                                      "to_key": f"{P}.severity.{sev.result}"}))
        else:
            mods.append(Modifier(key=f"{P}.mod.damage_class", value=sev.modifier,
                                 source=f'shock Damage Class, "{weapon_class}"', step="severity",
                                 side="target", params={"damage_class": weapon_class}))
        if sev.row != sev.modified:
            notes.append(Note(key=f"{P}.note.clamped", source="shock Location Severity",
                              params={"modified": sev.modified, "row": sev.row}))
        if sev.printed is None:
            notes.append(Note(key=f"{P}.note.filled", source="shock Location Severity",
                              params={"row": sev.row, "result_key": f"{P}.severity.{sev.tabled}",
                                      "location_key": f"{P}.location.{location}"}))
        steps.append(Step(id="severity", label_key=f"{P}.step.severity", kind="table",
                          dice=[first], modifier_total=sev.modifier,
                          numbers={"roll": sev.roll, "modified": sev.modified, "row": sev.row,
                                   "tabled": sev.tabled, "result": sev.result,
                                   "upgraded": sev.upgraded},
                          outcome_key=f"{P}.severity.{sev.result}",
                          params={"source": "shock Location Severity"}))

        # The result on the unit as it stands (stunned, wounded, in shock).
        stats = request.target.stats
        c = rules.consequence(stats, sev.result, weapon_class, request.settings)
        if c.via == "in_shock":
            notes.append(Note(key=f"{P}.note.in_shock_{'dies' if c.effects else 'stun'}",
                              source="shock SHOCK"))
        if c.outcome == "stun":
            notes.append(Note(key=f"{P}.note.stun", source="shock STUN"))
        if c.outcome == "wound":
            notes.append(Note(key=f"{P}.note.wound", source="shock WOUND",
                              params={"total": c.wounds_after}))
        if c.outcome == "shock":
            notes.append(Note(key=f"{P}.note.evacuate", source="shock SHOCK"))
        outcome.update(severity=sev.result, result=c.outcome, via=c.via,
                       wounds_added=c.wounds_added, wounds_before=stats.wounds,
                       wounds_after=c.wounds_after, state_before=stats.state,
                       state_after=c.state_after,
                       summary_key=f"{P}.outcome.{c.outcome}"
                       + ("_from_wounds" if c.via == "wounds_ten" else ""))
        return self._attack_result(request, roller, mods=mods, steps=steps, outcome=outcome,
                                   effects=list(c.effects), notes=notes, odds=odds)

    def _attack_result(self, request: AttackRequest, roller: Roller, *, mods: list[Modifier],
                       steps: list[Step], outcome: dict[str, Any], effects: list[Effect],
                       notes: list[Note], odds: dict[str, Any]) -> Resolution:
        shown = ("probability", "exact", "net_modifier", "incapacitate_probability")
        return Resolution(
            ruleset=self.id, action="attack", request=request.model_dump(mode="json"),
            dice=[r.to_dict() for r in roller.records], modifiers=mods, steps=steps,
            outcome={**outcome, "to_hit": odds["to_hit"]}, effects=effects, notes=notes,
            odds={k: odds[k] for k in shown} if odds["to_hit"] == "house" else {},
            card={"template": "card.html.j2", "title_key": f"{P}.card.attack",
                  "params": {"attacker": request.attacker.name, "target": request.target.name,
                             "weapon": request.weapon.name,
                             "damage_class": request.weapon.damage_class,
                             "range": round(request.range.value, 1),
                             "units": request.range.units}},
        )

    def _end_of_turn(self, request: EndOfTurnRequest, roller: Roller) -> Resolution:
        steps: list[Step] = []
        effects: list[Effect] = []
        shocked: list[str] = []
        recovered: list[str] = []
        for i, unit in enumerate(request.units):
            who = _who(i, unit.name, unit.actor_id, unit.token_id, unit.combatant_id)
            state: str = unit.state
            if _checks(unit):
                state = self._shock_check(i, unit, roller, who=who, steps=steps, effects=effects)
                if state == "shock":
                    shocked.append(unit.name)
            if state == "stunned":
                if unit.skipped_turn:
                    # shock STUN: the stunned unit has skipped its turn; the stun is spent.
                    effects.append(Effect(kind="state", value="ok",
                                          label_key=f"{P}.effect.recovered", params=who))
                    recovered.append(unit.name)
                else:
                    steps.append(Step(id=f"unit_{i}", label_key=f"{P}.step.still_stunned",
                                      kind="info", params={**who, "source": "shock STUN"}))
        return Resolution(
            ruleset=self.id, action="end_of_turn", request=request.model_dump(mode="json"),
            dice=[r.to_dict() for r in roller.records], modifiers=[], steps=steps,
            outcome={"checked": sum(_checks(u) for u in request.units), "shocked": shocked,
                     "recovered": recovered, "shocked_names": ", ".join(shocked),
                     "summary_key": f"{P}.outcome.end_of_turn" if shocked
                     else f"{P}.outcome.end_of_turn_none"},
            effects=effects,
            notes=[Note(key=f"{P}.note.shock_check", source="shock WOUND")],
            card={"template": "card.html.j2", "title_key": f"{P}.card.end_of_turn",
                  "params": {"n": len(request.units)}},
        )

    def _shock_check(self, i: int, unit: TurnUnit, roller: Roller, *, who: dict[str, Any],
                     steps: list[Step], effects: list[Effect]) -> str:
        """shock WOUND: 1d10 above the unit's wounds, else shock; ten or more: shock at once."""
        if unit.wounds >= rules.SHOCK_AT_WOUNDS:
            passed, dice, numbers = False, [], {"wounds": unit.wounds}
        else:
            first = len(roller.records)
            name = unit.name or f"unit {i + 1}"
            die = roller.roll(10, purpose=f"shock check, {name}", side="target",
                              purpose_key=f"{P}.roll.shock_check", purpose_params={"name": name})
            passed = rules.passes_shock_check(die.total, unit.wounds)
            dice, numbers = [first], {"roll": die.total, "wounds": unit.wounds}
        steps.append(Step(id=f"unit_{i}", label_key=f"{P}.step.shock_check", kind="target_number",
                          dice=dice, numbers=numbers, success=passed,
                          outcome_key=f"{P}.outcome.shock_check_"
                          + ("passed" if passed else "failed" if dice else "ten"),
                          params={**who, "source": "shock WOUND"}))
        if passed:
            return unit.state
        # shock SHOCK: "A unit who passes into shock from wounds removes the wound counters."
        effects.append(Effect(kind="state", value="shock", label_key=f"{P}.effect.shock_check",
                              params=who))
        effects.append(Effect(kind="wounds", delta=-unit.wounds,
                              label_key=f"{P}.effect.wounds_removed_unit",
                              params={**who, "n": unit.wounds}))
        return "shock"

    def _draw_chits(self, request: DrawChitsRequest, roller: Roller) -> Resolution:
        """The cup: each phase, every chit of every unit that can act, drawn one at a time."""
        steps: list[Step] = []
        phases: list[list[dict[str, Any]]] = []
        order: list[dict[str, Any]] = []
        for phase in range(4):
            cup = _cup(request.units, phase)
            first = len(roller.records)
            drawn: list[dict[str, Any]] = []
            while cup:
                die = roller.roll(len(cup), purpose=f"chit draw, phase {phase + 1}",
                                  side="attacker", purpose_key=f"{P}.roll.chit_draw",
                                  purpose_params={"phase": str(phase + 1)})
                i, chit = cup.pop(die.total - 1)
                unit = request.units[i]
                drawn.append({**_who(i, unit.name, unit.actor_id, unit.token_id,
                                     unit.combatant_id),
                              "phase": phase + 1, "chit": chit, "seq": len(order) + len(drawn) + 1,
                              "stunned": unit.state == "stunned"})
            phases.append(drawn)
            order += drawn
            steps.append(Step(id=f"phase_{phase + 1}", label_key=f"{P}.step.phase", kind="table",
                              dice=list(range(first, len(roller.records))),
                              numbers={"chits": len(drawn)},
                              outcome_key=f"{P}.outcome.phase_order" if drawn
                              else f"{P}.outcome.phase_empty",
                              params={"phase": phase + 1,
                                      "order": ", ".join(d["name"] or f"unit {d['unit'] + 1}"
                                                         for d in drawn),
                                      "source": "shock Troop Quality, P1-P4"}))
        left_out = [u.name for u in request.units if not rules.can_act(u.state)
                    and u.state != "stunned"]
        notes = [Note(key=f"{P}.note.chits", source="shock Unit Activation; Troop Quality")]
        if left_out:
            notes.append(Note(key=f"{P}.note.no_chits", source="shock SHOCK",
                              params={"names": ", ".join(left_out)}))
        if any(u.state == "stunned" for u in request.units):
            notes.append(Note(key=f"{P}.note.stunned_chits", source="shock STUN"))
        return Resolution(
            ruleset=self.id, action="draw_chits", request=request.model_dump(mode="json"),
            dice=[r.to_dict() for r in roller.records], modifiers=[], steps=steps,
            outcome={"turn": request.turn, "phases": phases, "order": order,
                     "summary_key": f"{P}.outcome.draw_chits"},
            notes=notes,
            card={"template": "card.html.j2", "title_key": f"{P}.card.draw_chits",
                  "params": {"turn": request.turn, "n": len(order)}},
        )


def _named(protection: ShockProtection) -> dict[str, str]:
    """A protection's name for the card; a nameless one (the dialog's cover) by its kind."""
    if protection.name:
        return {"name": protection.name}
    return {"name_key": f"{P}.cover.{protection.category}"}


def _who(i: int, name: str, actor_id: str | None, token_id: str | None,
         combatant_id: str | None) -> dict[str, Any]:
    """Which unit of a multi-unit request an entry is about (``params`` of steps and effects)."""
    return {"unit": i, "name": name, "actor_id": actor_id, "token_id": token_id,
            "combatant_id": combatant_id}


def _checks(unit: TurnUnit) -> bool:
    """shock WOUND: "Every character with a wound" checks; units in shock or dead do not."""
    return unit.wounds > 0 and unit.state in ("ok", "stunned")


def _cup(units: list[ChitUnit], phase: int) -> list[tuple[int, int]]:
    """The chits in the cup for one phase, in unit order: (unit index, its chit 1 or 2).
    Units in shock or dead put none in; a stunned unit's chits are drawn and skipped."""
    return [(i, n + 1) for i, unit in enumerate(units) if unit.state in ("ok", "stunned")
            for n in range(rules.chits(unit.quality)[phase])]


RULESET = Shock()
