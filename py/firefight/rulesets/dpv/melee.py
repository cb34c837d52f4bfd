"""2300ad MELEE DAMAGE and the melee combat tasks: strikes, blocks, diving blows, grapples,
thrown weapons."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from firefight.errors import rule_error
from firefight.record import Recorder, num
from firefight.rulesets.dpv import cards, odds, tasks, wounds
from firefight.rulesets.dpv.data import chance, exact, tables
from firefight.rulesets.dpv.models import DpvCombatant, DpvStats, MeleeRequest, P, TaskOptions

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


def _strike_spec(rec: Recorder, request: MeleeRequest) -> tasks.TaskSpec | None:
    """The strike's (or grapple's) task; None for a surprise strike ("Surprise attacks ... are
    automatically successful")."""
    options = request.options
    grapple = options.kind == "grapple"
    if options.surprise and not grapple:
        rec.note("surprise", SRC_STRIKE)
        return None
    task = TaskOptions(preset="grapple" if grapple else "strike", dm=options.dm,
                       difficulty="difficult" if options.shorter_weapon and not grapple
                       else None)
    if task.difficulty:
        rec.note("shorter_weapon", SRC_STRIKE)
    return tasks.task_spec(rec, request, request.attacker, task, step="to_hit")


def _block_spec(rec: Recorder, request: MeleeRequest) -> tasks.TaskSpec | None:
    """The defender's block, when tried; a surprise strike cannot be blocked."""
    options = request.options
    if not options.block or options.kind == "grapple" or options.surprise:
        return None
    return tasks.task_spec(rec, request, request.target, TaskOptions(preset="block"),
                           step="block")


def _wound_type(request: MeleeRequest) -> str:
    if request.options.kind == "grapple":
        return "stun"
    return melee_wound_type(request.attacker, request.options.blunt)


def _strike_or_grapple(rec: Recorder, request: MeleeRequest) -> dict[str, Any]:
    options, settings = request.options, request.settings
    grapple = options.kind == "grapple"
    spec = _strike_spec(rec, request)
    success = spec is None or tasks.roll_task(
        rec, spec, step_id="to_hit", label="strike", purpose="grapple" if grapple else "strike",
        purpose_key="roll.grapple" if grapple else "",
        source=tables().presets["grapple" if grapple else "strike"]["source"]).success
    block = _block_spec(rec, request) if success else None
    if block is not None:
        blocked = tasks.roll_task(rec, block, step_id="block", label="block", purpose="block",
                                  side="target",
                                  source="2300ad COMBAT TASKS, \"To block a strike\"").success
        success = not blocked
    if not success:
        return {"hit": False, "summary_key": "FIREFIGHT.dpv.outcome.miss"}
    dpv = melee_dpv(request.attacker)
    wound_type = _wound_type(request)
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
    spec = _avoid_spec(rec, request)
    if spec is not None and tasks.roll_task(
            rec, spec, step_id="avoid", label="avoid", purpose="avoid", side="target",
            source="2300ad COMBAT TASKS, \"To avoid a diving blow\"").success:
        return {"hit": False, "summary_key": "FIREFIGHT.dpv.outcome.avoided"}
    a, d = request.attacker.stats, request.target.stats
    roll, i = rec.roll(6, purpose="diving blow", purpose_key="roll.diving_blow")
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


def _avoid_spec(rec: Recorder, request: MeleeRequest) -> tasks.TaskSpec | None:
    if not request.options.avoid:
        return None
    return tasks.task_spec(rec, request, request.target, TaskOptions(preset="avoid_diving_blow"),
                           step="avoid")


def throw_reach(stats: DpvStats, weight_kg: float | None) -> float:
    """2300ad FIRE COMBAT, "Thrown Weapons": Throw Range / object weight."""
    if stats.throw_range_m is None or weight_kg is None:
        raise rule_error("dpv", "throw_needs",
                         "a throw needs the thrower's Throw Range and the object's weight",
                         "options.object_weight_kg", "and stats.throw_range_m")
    return stats.throw_range_m / weight_kg


def thrown_dpv(stats: DpvStats) -> Fraction:
    """"DPV is STR/20 and causes blunt trauma damage"."""
    return Fraction(stats.strength, int(tables().combat["thrown_dpv_strength_divisor"]))


def _thrown_spec(rec: Recorder, request: MeleeRequest) -> tuple[tasks.TaskSpec, float]:
    """The throw's to-hit task (a house reading: Routine within half the reach, Difficult
    beyond, no fumble) and the reach; refuses a throw past the reach."""
    options = request.options
    reach = throw_reach(request.attacker.stats, options.object_weight_kg)
    distance = request.range.metres() if request.range else 0.0
    if distance > reach:
        raise rule_error("dpv", "throw_reach", f"{distance:g} m is beyond the throw ({reach:g} m)",
                         "range", f"at most {reach:g} m", distance=f"{distance:g}",
                         reach=f"{reach:g}")
    levels = 0 if distance <= reach / 2 else 1
    dm = 0
    if options.dm:
        dm += rec.modifier("mod.referee_dm", options.dm, "2300ad SPECIAL CASES", "to_hit").value
    dm += sum(m.value for m in rec.house("to_hit", request))
    return tasks.TaskSpec(tasks.shift("routine", levels, request.settings), dm,
                          request.settings.task_dice, fumbles=False, failure_table=False), reach


def melee_odds(request: MeleeRequest) -> dict[str, Any]:
    """Miss (or avoided, or the attacker's own blow), or the gravest wound level of the hit,
    exact over every die the resolution rolls; the modifiers as the card shows them."""
    rec = Recorder.for_odds("dpv")
    options, target = request.options, request.target
    if options.kind == "diving_blow":
        avoid = _avoid_spec(rec, request)
        p_avoid = tasks.success_probability(avoid) if avoid else Fraction(0)
        a, d = request.attacker.stats, target.stats
        p_attacker = Fraction(sum(1 for roll in range(1, 7)
                                  if 2 * a.size + roll < d.strength + d.size), 6)
        bare = target.model_copy(update={"armor": []})  # diving blows ignore armor
        per_hit = odds.tiers_only(wounds.hit_distribution(bare, exact(0.5), "stun",
                                                          request.settings))
        p_target = (1 - p_avoid) * (1 - p_attacker)
        outcomes = odds.listing([("avoided", p_avoid),
                                 ("diving_attacker", (1 - p_avoid) * p_attacker),
                                 *((t, p_target * per_hit[t]) for t in odds.TIERS)])
        return chance(p_target, net_modifier=sum(m.value for m in rec.modifiers
                                                 if m.step == "avoid"),
                      modifiers=odds.dumped(rec.modifiers), outcomes=outcomes)
    if options.kind == "thrown":
        thrown, reach = _thrown_spec(rec, request)
        spec: tasks.TaskSpec | None = thrown
        p_hit = tasks.success_probability(thrown)
        dpv, wound_type = thrown_dpv(request.attacker.stats), "blunt"
        extra: dict[str, Any] = {"reach_m": reach}
    else:
        strike = _strike_spec(rec, request)
        block = _block_spec(rec, request)
        p_hit = tasks.success_probability(strike) if strike else Fraction(1)
        if block is not None:
            p_hit *= 1 - tasks.success_probability(block)
        spec = strike
        dpv, wound_type, extra = melee_dpv(request.attacker), _wound_type(request), {}
    per_hit = odds.tiers_only(wounds.hit_distribution(target, dpv, wound_type,
                                                      request.settings))
    return chance(p_hit, net_modifier=spec.dm if spec else 0,
                  needed=spec.number if spec else None, dpv=num(dpv),
                  modifiers=odds.dumped(rec.modifiers),
                  outcomes=odds.shots(p_hit, per_hit, 1), **extra)


def _thrown(rec: Recorder, request: MeleeRequest) -> dict[str, Any]:
    """Thrown to Throw Range / weight; DPV = STR / 20, blunt trauma. To hit: the aimed-fire
    task with the maximum distance as the effective range (a reading; see the notes)."""
    stats = request.attacker.stats
    spec, reach = _thrown_spec(rec, request)
    hit = tasks.roll_task(rec, spec, step_id="to_hit", label="throw", purpose="throw",
                          source=SRC_THROWN).success
    if not hit:
        return {"hit": False, "reach_m": reach, "summary_key": "FIREFIGHT.dpv.outcome.miss"}
    dpv = thrown_dpv(stats)
    rec.step("damage", "damage", kind="info",
             numbers={"strength": stats.strength, "dpv": num(dpv), "wound_type": "blunt"},
             outcome="damage.melee", source=SRC_THROWN)
    wound = wounds.resolve_hit(rec, request.target, dpv, "blunt", request.settings, hit=1)
    condition = wounds.apply_wounds(rec, request.target, [wound])
    return {"hit": True, "reach_m": reach, "condition": condition,
            "summary_key": f"FIREFIGHT.dpv.outcome.{condition}"}
