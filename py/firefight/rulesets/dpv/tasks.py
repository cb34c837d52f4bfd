"""2300ad TASK RESOLUTION: difficulty, asset modifiers, fumbles, failure type, uncertain tasks.

A task succeeds when the roll (1D10, or 2D6 by world setting) plus the asset modifiers is at
least the difficulty's number. Every other roll of the ruleset (aimed fire, melee, healing) is a
task with its own difficulty, so this module is the core the others call.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from firefight.record import Recorder
from firefight.rulesets.dpv import cards, odds
from firefight.rulesets.dpv.data import chance, tables
from firefight.rulesets.dpv.models import (
    DpvCombatant,
    DpvRequest,
    DpvSettings,
    P,
    TaskOptions,
    TaskRequest,
)

SRC_DIFFICULTY = "2300ad TASK DIFFICULTY (1D10/2D6)"
# A task with neither a difficulty nor a preset (our reading: the ladder's middle rung).
DEFAULT_DIFFICULTY = "routine"
SRC_CHAR = "2300ad CHARACTERISTICS"
SRC_FUMBLE = "2300ad FUMBLE"
SRC_FAILURE = "2300ad FAILURE (2D6 OR 3D6)"
SRC_HASTY = "2300ad TASK TYPES, \"Hasty\""
SRC_UNCERTAIN = "2300ad UNCERTAIN TASKS"
SRC_MEDKIT = "2300ad HEALING, \"Note\" (Medkit only)"


@dataclass(frozen=True)
class Difficulty:
    """A rung of the difficulty ladder; ``excess`` counts levels beyond Impossible."""

    name: str
    excess: int = 0

    def number(self, dice: str) -> int:
        t = tables().tasks
        step = int(t["beyond_impossible_step"])
        return int(t["difficulties"][self.name][dice]) + step * self.excess

    @property
    def label(self) -> str:
        return self.name if not self.excess else f"{self.name}+{self.excess}"


def ladder(settings: DpvSettings) -> list[str]:
    t = tables().tasks
    return list(t["ladder_with_easy"] if settings.easy_in_ladder else t["ladder"])


def shift(name: str, levels: int, settings: DpvSettings) -> Difficulty:
    """``levels`` harder (negative: easier). Easy off the ladder sits between Simple and Routine.

    Easier than Simple stays Simple; harder than Impossible keeps adding the table's step (4).
    """
    rungs = ladder(settings)
    # Positions counted in half rungs (whole numbers: issue 27, Fractions were most of it);
    # Easy, when the world keeps it off the ladder (the table as printed), half below Routine.
    halves = 2 * rungs.index(name) if name in rungs else 2 * rungs.index("routine") - 1
    if levels == 0 and name not in rungs:
        return Difficulty(name)
    moved = halves + 2 * levels
    index = moved // 2 if levels > 0 else -(-moved // 2)  # the floor, or the ceiling, of a half
    index = max(0, index)
    top = len(rungs) - 1
    return Difficulty(rungs[min(index, top)], max(0, index - top))


def characteristic_asset(value: int) -> int:
    """2300ad CHARACTERISTICS: crucial characteristics / 4, fractions dropped (0 to 5)."""
    divisor = int(tables().tasks["characteristic_divisor"])
    return value // divisor


def dice_faces(dice: str) -> tuple[int, int]:
    """(count, faces) of the task dice (and the failure table's 2D6 / 3D6)."""
    return {"1d10": (1, 10), "3d6": (3, 6)}.get(dice, (2, 6))


def distribution(dice: str) -> Counter[int]:
    """How many ways each total of the task dice comes up."""
    count, faces = dice_faces(dice)
    dist: Counter[int] = Counter({0: 1})
    for _ in range(count):
        following: Counter[int] = Counter()
        for total, ways in dist.items():
            for face in range(1, faces + 1):
                following[total + face] += ways
        dist = following
    return dist


@dataclass(frozen=True)
class TaskSpec:
    """Everything that decides a task roll, already turned into numbers."""

    difficulty: Difficulty
    dm: int
    dice: str = "1d10"
    fumbles: bool = True
    failure_table: bool = True
    hazardous: bool = False
    uncertain: bool = False
    # 2300ad TIME: "asset modifiers subtracted": skill and characteristics, not the referee's
    # DM or an opponent's (None: the whole DM).
    assets: int | None = None

    @property
    def number(self) -> int:
        return self.difficulty.number(self.dice)

    @property
    def fumble_face(self) -> int:
        return int(tables().tasks["fumble_face"][self.dice])


@lru_cache(maxsize=1024)  # a TaskSpec is the numbers alone (issue 27: fresh requests)
def success_probability(spec: TaskSpec) -> Fraction:
    """Exact chance of success (a fumble always fails; the aimed-fire 1 is a miss as well)."""
    dist = distribution(spec.dice)
    n = sum(dist.values())
    if not spec.uncertain:
        ok = sum(c for face, c in dist.items()
                 if face != spec.fumble_face and face + spec.dm >= spec.number)
        return Fraction(ok, n)
    ok = sum(cp * cr for p, cp in dist.items() for r, cr in dist.items()
             if p != spec.fumble_face and Fraction(p + r, 2) + spec.dm >= spec.number)
    return Fraction(ok, n * n)


@dataclass
class TaskResult:
    natural: int
    total: Fraction
    success: bool
    fumble: bool
    dice: list[int] = field(default_factory=list)
    referee_natural: int | None = None
    failure_type: str | None = None
    mishap: str | None = None
    numbers: dict[str, Any] = field(default_factory=dict)


def roll_task(rec: Recorder, spec: TaskSpec, *, step_id: str, label: str, purpose: str,
              side: str = "attacker", source: str = "", purpose_key: str = "",
              purpose_params: dict[str, str] | None = None) -> TaskResult:
    """Roll a task, record the step, and roll the failure type when the task calls for it.
    The die's label is ``roll.<label>`` of the lang files unless ``purpose_key`` names one."""
    count, faces = dice_faces(spec.dice)
    natural, index = rec.roll(faces, count=count, purpose=purpose, side=side,
                              purpose_key=purpose_key or f"roll.{label}",
                              purpose_params=purpose_params)
    dice = [index]
    referee: int | None = None
    rolled: Fraction | int = natural
    if spec.uncertain:  # 2300ad UNCERTAIN TASKS: the referee rolls too, secretly
        referee, r_index = rec.roll(faces, count=count, purpose=f"{purpose} (referee, hidden)",
                                    side="referee", purpose_key="roll.referee_hidden")
        dice.append(r_index)
        rolled = Fraction(natural + referee, 2)
    fumble_face, number = spec.fumble_face, spec.number  # table reads: once a roll
    fumble = spec.fumbles and natural == fumble_face
    total = rolled + spec.dm  # a whole number unless the average of two rolls
    success = total >= number and natural != fumble_face
    numbers: dict[str, Any] = {
        "roll": natural, "dm": spec.dm, "total": float(total) if type(total) is Fraction
        and total.denominator > 1 else int(total), "needed": number,
        "difficulty": spec.difficulty.label, "dice": spec.dice}
    if referee is not None:
        numbers.update(referee_roll=referee, average=float(rolled))
        numbers["player_success"] = natural + spec.dm >= number and not fumble
        numbers["referee_success"] = referee + spec.dm >= number
    outcome = "task.fumble" if fumble else "task.success" if success else "task.failure"
    # Its modifier total (spec.dm) is the sum of the modifiers recorded for ``step_id``.
    rec.step(step_id, label, dice=dice, numbers=numbers,
             success=success, outcome=outcome, source=source or SRC_DIFFICULTY,
             difficulty_key=f"FIREFIGHT.dpv.difficulty.{spec.difficulty.name}")
    result = TaskResult(natural, Fraction(total), success, fumble, dice, referee, numbers=numbers)
    if fumble:
        rec.note("fumble", SRC_FUMBLE)
    if not success and spec.failure_table and not spec.uncertain:
        _failure(rec, spec, result, side)
    return result


def _failure(rec: Recorder, spec: TaskSpec, result: TaskResult, side: str) -> None:
    """2300ad FAILURE: 2D6, or 3D6 when hazardous; a mishap rolls its own 2D6 / 3D6."""
    t = tables()
    count = 3 if spec.hazardous else 2
    throw, index = rec.roll(6, count=count, purpose="failure type", side=side,
                          purpose_key="roll.failure_type")
    kind = t.failure.lookup(throw)
    result.failure_type = kind
    rec.step("failure", "failure", kind="table", dice=[index], numbers={"roll": throw},
             outcome=f"failure.{kind}", source=SRC_FAILURE)
    if kind in ("mishap", "serious_mishap"):
        m_count = int(t.tasks["mishap_dice"][kind])
        m_throw, m_index = rec.roll(6, count=m_count, purpose="mishap", side=side,
                                   purpose_key="roll.mishap")
        result.mishap = t.mishap.lookup(m_throw)
        rec.step("mishap", "mishap", kind="table", dice=[m_index], numbers={"roll": m_throw},
                 outcome=f"mishap.{result.mishap}", source="2300ad MISHAPS; DAMAGE AND REPAIR",
                 **t.tasks["repair"][result.mishap])


# --- the task action -----------------------------------------------------------------------

def _preset(options: TaskOptions) -> dict[str, Any]:
    return tables().presets[options.preset] if options.preset else {}


def skill_level(actor: DpvCombatant, names: list[str], rule: str = "only") -> int:
    skills = {str(k): v for k, v in actor.stats.skills.items()}
    levels = [skills.get(n, 0) for n in names]
    if not levels:
        return 0
    return min(levels) if rule == "lower" else max(levels)


def task_spec(rec: Recorder, request: DpvRequest, actor: DpvCombatant, options: TaskOptions,
              step: str = "task") -> TaskSpec:
    """The difficulty and the asset modifiers of a task ``actor`` makes for ``request``, each
    recorded with its line, and the house rules' modifiers for ``step`` (so the odds and the
    roll see the same)."""
    settings = request.settings
    preset = _preset(options)
    # The text names no default rung; a task with neither is Routine (docs/rules-notes.md,
    # "A task's default difficulty"), so the dialog's defaults roll.
    base = options.difficulty or preset.get("difficulty") or DEFAULT_DIFFICULTY
    levels = options.harder
    if options.harder:
        rec.note("harder", "2300ad DETERMINATION", levels=options.harder)
    if options.hasty:  # 2300ad TASK TYPES, "Hasty": one level harder
        levels += 1
        rec.note("hasty", SRC_HASTY)
    if options.medkit_only and preset.get("medical"):
        levels += 1
        rec.note("medkit_only", SRC_MEDKIT)
    dm, assets = _assets(rec, actor, options, preset, step)
    dm += sum(m.value for m in rec.house(step, request))
    uncertain = options.uncertain if options.uncertain is not None else bool(
        preset.get("uncertain"))
    return TaskSpec(shift(base, levels, settings), dm, settings.task_dice,
                    fumbles=preset.get("fumble", True),
                    failure_table=preset.get("failure_table", True),
                    hazardous=options.hazardous, uncertain=uncertain, assets=assets)


def _assets(rec: Recorder, actor: DpvCombatant, options: TaskOptions, preset: dict[str, Any],
            step: str) -> tuple[int, int]:
    """The task's whole DM, and its asset modifiers alone (skill and characteristics)."""
    dm = 0
    src = preset.get("source", "2300ad TASK FORMAT")
    skill = options.skill
    if skill is None and preset.get("skills"):
        skill = skill_level(actor, preset["skills"], preset.get("skill_rule", "only"))
    if skill:
        dm += rec.modifier("mod.skill", skill, src, step, skill=skill).value
    values = options.characteristics
    if values is None:
        values = [getattr(actor.stats, c) for c in preset.get("characteristics", [])]
    for value in values:
        asset = characteristic_asset(value)
        if asset:
            dm += rec.modifier("mod.characteristic", asset, SRC_CHAR, step, score=value).value
    assets = dm
    if options.dm:
        dm += rec.modifier("mod.referee_dm", options.dm, "2300ad SPECIAL CASES", step).value
    if options.opponent_asset:
        dm -= options.opponent_asset
        rec.modifier("mod.opponent", -options.opponent_asset, "2300ad COMPETITION TASKS", step)
    return dm, assets


def task_time(rec: Recorder, options: TaskOptions, preset: dict[str, Any], asset: int,
              side: str = "attacker") -> float | None:
    """2300ad TIME: 3D6 minus the asset modifiers (double when hasty), at least 3, x the time
    shown (one-tenth of the average); a Medkit alone doubles the roll."""
    seconds = options.time_seconds or preset.get("seconds")
    if seconds is None or preset.get("time", "standard") != "standard":
        return None
    t = tables().tasks["time"]
    throw, index = rec.roll(6, count=t["dice"], purpose="task time", side=side,
                       purpose_key="roll.task_time")
    minus = asset * (t["hasty_asset_multiplier"] if options.hasty else 1)
    result = max(t["minimum"], throw - max(0, minus))
    if options.medkit_only and preset.get("medical"):
        result *= t["medkit_multiplier"]
    duration = float(result * seconds)
    rec.step("time", "time", kind="table", dice=[index],
             numbers={"roll": throw, "asset": minus, "result": result, "seconds": duration},
             outcome="task.time", source="2300ad TIME")
    return duration


def resolve_task(request: TaskRequest, rec: Recorder) -> None:
    """The task action: one task roll of the actor, with its time and failure type."""
    outcome = run_task(rec, request, request.actor, request.options)
    rec.outcome.update(outcome)
    for kind, value in _preset(request.options).get("on_success", {}).items():
        if outcome["success"]:  # e.g. "To drive evasively": evading this combat turn
            rec.effect(kind, value=value)
    cards.title(rec, request, task_key=f"{P}.opt.preset.choices.{request.options.preset}"
                if request.options.preset else f"{P}.task.generic")


def run_task(rec: Recorder, request: DpvRequest, actor: DpvCombatant, options: TaskOptions
             ) -> dict[str, Any]:
    """A task of ``actor`` (the task action's, or one a healing action calls for); returns the
    outcome."""
    spec = task_spec(rec, request, actor, options)
    preset = _preset(options)
    if spec.uncertain:
        rec.note("uncertain", SRC_UNCERTAIN)
    notes_before = len(rec.notes)  # from here on, notes may tell the verdict
    result = roll_task(rec, spec, step_id="task", label="task", purpose="task",
                       source=preset.get("source", ""))
    # 2300ad TIME: a task takes its time whether it succeeds or not (DETERMINATION waits "10
    # times the actual duration of the failed task"), so the time tells no verdict.
    outcome_seconds = task_time(rec, options, preset,
                                spec.dm if spec.assets is None else spec.assets)
    steps_before = len(rec.steps)
    outcome: dict[str, Any] = {"hit": result.success, "success": result.success,
                               "fumble": result.fumble, "difficulty": spec.difficulty.label,
                               "needed": spec.number, "dm": spec.dm,
                               "failure_type": result.failure_type, "mishap": result.mishap}
    if spec.uncertain:
        _uncertain_outcome(rec, spec, result, options, outcome)
    else:
        outcome["summary_key"] = "FIREFIGHT.dpv.outcome." + (
            "fumble" if result.fumble else "success" if result.success else "failure")
    if outcome_seconds is not None:
        outcome["seconds"] = outcome_seconds
    if result.failure_type == "check_determination":
        rec.note("check_determination", "2300ad DETERMINATION")
    if spec.uncertain:
        rec.for_referee(notes_from=notes_before, steps_from=steps_before)
    return outcome


def _uncertain_outcome(rec: Recorder, spec: TaskSpec, result: TaskResult, options: TaskOptions,
                       outcome: dict[str, Any]) -> None:
    """2300ad UNCERTAIN TASKS: the player learns what the average implies, not the verdict."""
    margin = math.floor(result.total - spec.number)
    impression = tables().impressions.lookup(margin)
    outcome.update(hidden=True, impression=impression, margin=margin,
                   summary_key=f"FIREFIGHT.dpv.outcome.uncertain.{impression}",
                   player_summary_key=f"FIREFIGHT.dpv.outcome.uncertain.{impression}",
                   referee_summary_key="FIREFIGHT.dpv.outcome." + (
                       "fumble" if result.fumble else "success" if result.success
                       else "failure"))
    if options.preset == "emplace_charge":
        both_fail = not result.numbers["player_success"] and not result.numbers[
            "referee_success"]
        charge = "detonates_now" if both_fail else "dud" if not result.success else "ready"
        outcome["charge"] = charge
        rec.note(f"note.charge.{charge}",
                 "2300ad COMBAT TASKS, \"To emplace an explosive charge\"")


def spec_odds(spec: TaskSpec, rec: Recorder | None = None, preset: str | None = None
              ) -> dict[str, Any]:
    """Exact chances of one task roll: success, a fumble, and every outcome (``rec``: the dry
    run that recorded its modifiers)."""
    dist = distribution(spec.dice)
    fumble = Fraction(dist[spec.fumble_face], sum(dist.values())) if spec.fumbles else Fraction(0)
    return chance(success_probability(spec), net_modifier=spec.dm, needed=spec.number,
                  difficulty=spec.difficulty.label, fumble_probability=float(fumble),
                  modifiers=odds.dumped(rec.modifiers) if rec else [],
                  outcomes=odds.listing(task_outcomes(spec, preset).items()))


@cache
def _faces(dice: str) -> list[tuple[int, Fraction]]:
    dist = distribution(dice)
    n = sum(dist.values())
    return [(face, Fraction(ways, n)) for face, ways in sorted(dist.items())]


@cache
def failure_outcomes(hazardous: bool) -> dict[str, Fraction]:
    """2300ad FAILURE (2D6, 3D6 when hazardous), a mishap's own 2D6 / 3D6: each end's chance."""
    t = tables()
    out: dict[str, Fraction] = {}
    for throw, p in _faces("3d6" if hazardous else "2d6"):
        kind = t.failure.lookup(throw)
        if kind in ("mishap", "serious_mishap"):
            dice = f"{int(t.tasks['mishap_dice'][kind])}d6"
            for m_throw, q in _faces(dice):
                name = f"mishap_{t.mishap.lookup(m_throw)}"
                out[name] = out.get(name, Fraction(0)) + p * q
        else:
            out[kind] = out.get(kind, Fraction(0)) + p
    return out


FAILURE_ORDER = ("retry", "check_determination", "mishap_superficial", "mishap_minor",
                 "mishap_major", "mishap_total")
CHARGE_ORDER = ("charge_ready", "charge_dud", "charge_detonates_now")


def task_outcomes(spec: TaskSpec, preset: str | None = None) -> dict[str, Fraction]:
    """Success; a fumble; a failure, by its failure type when the task rolls one; for an
    uncertain task no failure type (it would tell the verdict), and for emplacing a charge the
    charge's fate (``roll_task``'s and ``_uncertain_outcome``'s every face)."""
    faces = _faces(spec.dice)
    out = {"success": Fraction(0), "fumble": Fraction(0), "failure": Fraction(0)}
    charge = dict.fromkeys(CHARGE_ORDER, Fraction(0))
    for p_face, p in faces:
        referees = faces if spec.uncertain else [(None, Fraction(1))]
        for r_face, q in referees:
            rolled = Fraction(p_face + r_face, 2) if r_face is not None else Fraction(p_face)
            fumble = spec.fumbles and p_face == spec.fumble_face
            success = rolled + spec.dm >= spec.number and p_face != spec.fumble_face
            name = "fumble" if fumble else "success" if success else "failure"
            out[name] += p * q
            if r_face is not None:
                player_ok = p_face + spec.dm >= spec.number and not fumble
                referee_ok = r_face + spec.dm >= spec.number
                fate = ("detonates_now" if not (player_ok or referee_ok)
                        else "dud" if not success else "ready")
                charge[f"charge_{fate}"] += p * q
    if spec.uncertain and preset == "emplace_charge":
        return charge
    if not spec.failure_table or spec.uncertain or not out["failure"]:
        return out
    split = failure_outcomes(spec.hazardous)
    return {"success": out["success"], "fumble": out["fumble"],
            **{k: out["failure"] * split.get(k, Fraction(0)) for k in FAILURE_ORDER}}


def task_odds(request: TaskRequest) -> dict[str, Any]:
    """The task action's odds (its modifiers recorded on a dry run, house rules' included)."""
    rec = Recorder.for_odds("dpv")
    spec = task_spec(rec, request, request.actor, request.options)
    return spec_odds(spec, rec, request.options.preset)
