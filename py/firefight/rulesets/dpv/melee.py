"""2300ad MELEE DAMAGE and the melee combat tasks: strikes, blocks, diving blows, grapples,
thrown weapons."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from firefight.errors import RuleRefusalError
from firefight.record import Recorder, num
from firefight.rulesets.dpv import cards, tasks, wounds
from firefight.rulesets.dpv.data import exact, tables
from firefight.rulesets.dpv.models import DpvCombatant, MeleeRequest, P, TaskOptions

SRC_MELEE = "2300ad MELEE DAMAGE, \"Melee Attacks\""
SRC_DIVING = "2300ad MELEE DAMAGE, \"Diving Blows\""
SRC_GRAPPLE = "2300ad MELEE DAMAGE, \"Grapples\""
SRC_THROWN = "2300ad FIRE COMBAT, \"Thrown Weapons\""
SRC_STRIKE = "2300ad COMBAT TASKS, \"To strike\""


def melee_skill(actor: DpvCombatant) -> int:
    return actor.stats.skills.get("melee", 0)


def melee_dpv(actor: DpvCombatant) -> Fraction:
    """(Strength + Melee) / 30."""
    return Fraction(actor.stats.strength + melee_skill(actor), 30)


def melee_wound_type(actor: DpvCombatant, blunt: bool) -> str:
    """Stun, unless Melee-4 or higher, then stun or blunt trauma (the character's choice)."""
    return "blunt" if blunt and melee_skill(actor) >= 4 else "stun"


def resolve_melee(request: MeleeRequest, rec: Recorder) -> None:
    kind = request.options.kind
    if kind == "diving_blow":
        outcome = _diving_blow(rec, request)
    elif kind == "thrown":
        outcome = _thrown(rec, request)
    else:
        outcome = _strike_or_grapple(rec, request)
    rec.outcome.update(outcome)
    cards.title(rec, request, kind_key=f"{P}.opt.melee_kind.choices.{kind}")


def _strike_or_grapple(rec: Recorder, request: MeleeRequest) -> dict[str, Any]:
    options, settings = request.options, request.settings
    grapple = options.kind == "grapple"
    if options.surprise and not grapple:  # "Surprise attacks ... are automatically successful"
        rec.note("surprise", SRC_STRIKE)
        success = True
    else:
        task = TaskOptions(preset="grapple" if grapple else "strike", dm=options.dm,
                           difficulty="difficult" if options.shorter_weapon and not grapple
                           else None)
        if task.difficulty:
            rec.note("shorter_weapon", SRC_STRIKE)
        spec = tasks.task_spec(rec, request, request.attacker, task, step="to_hit")
        success = tasks.roll_task(rec, spec, step_id="to_hit", label="strike",
                                  purpose="grapple" if grapple else "strike",
                                  source=tables().presets[task.preset or ""]["source"]
                                  ).success
    # "Surprise attacks ... are automatically successful": no block either.
    if success and options.block and not grapple and not options.surprise:
        spec = tasks.task_spec(rec, request, request.target, TaskOptions(preset="block"),
                               step="block")
        blocked = tasks.roll_task(rec, spec, step_id="block", label="block", purpose="block",
                                  side="target",
                                  source="2300ad COMBAT TASKS, \"To block a strike\"").success
        success = not blocked
    if not success:
        return {"hit": False, "summary_key": "FIREFIGHT.dpv.outcome.miss"}
    dpv = melee_dpv(request.attacker)
    wound_type = "stun" if grapple else melee_wound_type(request.attacker, options.blunt)
    rec.step("damage", "damage", kind="info",
             numbers={"strength": request.attacker.stats.strength,
                        "melee": melee_skill(request.attacker), "dpv": num(dpv),
                        "wound_type": wound_type},
             outcome="damage.melee", source=SRC_GRAPPLE if grapple else SRC_MELEE)
    wound = wounds.resolve_hit(rec, request.target, dpv, wound_type, settings, hit=1)
    condition = wounds.apply_wounds(rec, request.target, [wound])
    outcome: dict[str, Any] = {"hit": True, "condition": condition, "dpv": num(dpv),
                               "summary_key": f"FIREFIGHT.dpv.outcome.{condition}"}
    if grapple:  # "Stun points taken are control points; at STR the target ceases struggling"
        control = options.control_points + wound.stun
        held = control >= request.target.stats.strength
        rec.effect("control_points", delta=wound.stun, label="effect.control_points", n=control)
        if held:
            rec.effect("state", value="controlled", label="effect.controlled")
        outcome.update(control_points=control, controlled=held)
    return outcome


def _diving_blow(rec: Recorder, request: MeleeRequest) -> dict[str, Any]:
    """1 stun hit at DPV 0.5, ignoring armor, to whichever is lesser: the attacker's
    2 x SIZE + 1D6 or the defender's STR + SIZE (ties: the defender)."""
    settings = request.settings
    if request.options.avoid:
        spec = tasks.task_spec(rec, request, request.target,
                               TaskOptions(preset="avoid_diving_blow"), step="avoid")
        if tasks.roll_task(rec, spec, step_id="avoid", label="avoid", purpose="avoid",
                           side="target",
                           source="2300ad COMBAT TASKS, \"To avoid a diving blow\"").success:
            return {"hit": False, "summary_key": "FIREFIGHT.dpv.outcome.avoided"}
    a, d = request.attacker.stats, request.target.stats
    roll, i = rec.roll(6, purpose="diving blow")
    attacker_total, defender_total = 2 * a.size + roll, d.strength + d.size
    loser = "attacker" if attacker_total < defender_total else "target"
    rec.step("diving_blow", "diving_blow", dice=[i],
             numbers={"roll": roll, "attacker_total": attacker_total,
                        "defender_total": defender_total, "loser": loser},
             outcome=f"diving.{loser}", source=SRC_DIVING)
    victim = request.attacker if loser == "attacker" else request.target
    wound = wounds.resolve_hit(rec, victim, exact(0.5), "stun", settings, hit=1,
                               ignore_armor=True)
    condition = wounds.apply_wounds(rec, victim, [wound], side=loser)
    return {"hit": loser == "target", "loser": loser, "condition": condition,
            "summary_key": f"FIREFIGHT.dpv.outcome.diving_{loser}"}


def _thrown(rec: Recorder, request: MeleeRequest) -> dict[str, Any]:
    """Thrown to Throw Range / weight; DPV = STR / 20, blunt trauma. To hit: the aimed-fire
    task with the maximum distance as the effective range (a reading; see the notes)."""
    stats, options = request.attacker.stats, request.options
    if stats.throw_range_m is None or options.object_weight_kg is None:
        raise RuleRefusalError("a throw needs the thrower's Throw Range and the object's weight",
                               fields=[("options.object_weight_kg", "and stats.throw_range_m")])
    reach = stats.throw_range_m / options.object_weight_kg
    distance = request.range.metres() if request.range else 0.0
    if distance > reach:
        raise RuleRefusalError(f"{distance:g} m is beyond the throw ({reach:g} m)",
                               fields=[("range", f"at most {reach:g} m")])
    band = "close" if distance <= reach / 2 else "effective"
    levels = 0 if band == "close" else 1
    dm = 0
    if options.dm:
        dm += rec.modifier("mod.referee_dm", options.dm, "2300ad SPECIAL CASES", "to_hit").value
    dm += sum(m.value for m in rec.house("to_hit", request))
    spec = tasks.TaskSpec(tasks.shift("routine", levels, request.settings), dm,
                          request.settings.task_dice, fumbles=False, failure_table=False)
    hit = tasks.roll_task(rec, spec, step_id="to_hit", label="throw", purpose="throw",
                          source=SRC_THROWN).success
    if not hit:
        return {"hit": False, "reach_m": reach, "summary_key": "FIREFIGHT.dpv.outcome.miss"}
    dpv = Fraction(stats.strength, 20)
    rec.step("damage", "damage", kind="info",
             numbers={"strength": stats.strength, "dpv": num(dpv), "wound_type": "blunt"},
             outcome="damage.melee", source=SRC_THROWN)
    wound = wounds.resolve_hit(rec, request.target, dpv, "blunt", request.settings, hit=1)
    condition = wounds.apply_wounds(rec, request.target, [wound])
    return {"hit": True, "reach_m": reach, "condition": condition,
            "summary_key": f"FIREFIGHT.dpv.outcome.{condition}"}
