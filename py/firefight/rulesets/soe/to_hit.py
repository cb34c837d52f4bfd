"""soe 2.3, "The Rules: To-Hit Roll" (Table 1, To-Hit Modifiers, applied to the shooter), with the
derivations of sections 6-9.1 that the table's formulas come from.

Every modifier carries its label key, value and the table row it comes from. Where the text
offers two readings the choice is a setting and is recorded in docs/rules-notes.md.
"""

from __future__ import annotations

import math
import re
from typing import Any

from firefight.errors import named, rule_error
from firefight.models import Modifier
from firefight.record import Recorder
from firefight.rulesets.soe import pretrauma
from firefight.rulesets.soe.data import tables
from firefight.rulesets.soe.models import SoeAttackRequest, SoeSettings

STEP = "to_hit"


def m3_hit_probability(target_width_m: float, distance_m: float, sigma_mil: float) -> float:
    """soe section 6, the M3 equation: P = 1 - exp(-(T / sigma)^2), T = width / distance (mil)."""
    if distance_m <= 0 or sigma_mil <= 0:
        raise ValueError("distance and sigma must be positive")
    return 1 - math.exp(-((target_angle_mil(target_width_m, distance_m) / sigma_mil) ** 2))


def target_angle_mil(target_width_m: float, distance_m: float) -> float:
    """soe section 6: T, the target's angular size, width / distance, in mil."""
    return 1000 * target_width_m / distance_m


def effective_skill(marksmanship: int, strength: int, agility: int) -> int:
    """soe Table 1, "Effective Skill": floor(Skill/2 + (Str + Agl)/20)."""
    return math.floor(marksmanship / 2 + (strength + agility) / 20)


def mode_modifier(mode: str, range_m: float, floor: str = "off") -> tuple[int, int]:
    """soe Table 1 "Mode": base - per x full steps of range (rounded down, the 15 m example).

    Returns (modifier, full steps). ``floor``: "off", "section6" (the M constants as printed
    in section 6), or "shifted" (M moved by the same amount Table 1 moved B).
    """
    row = tables().table1["modes"][mode]
    steps = math.floor(range_m / row["step_m"])
    value = row["base"] - row["per"] * steps
    if floor == "section6":
        value = max(row["section6"]["M"], value)
    elif floor == "shifted":
        value = max(row["section6"]["M"] + row["base"] - row["section6"]["B"], value)
    return value, steps


def dodge_modifier(agility: int) -> int:
    """soe Table 1 "Target Dodging": -ceil(Target Agility / 6)."""
    divisor: int = tables().table1["dodging_divisor"]
    return -math.ceil(agility / divisor)


def projectile_modifier(projectiles: int) -> int:
    """soe section 9.1 bands (Table 1's own rows have a gap and an overlap)."""
    return tables().projectiles.lookup(projectiles)


def shots(request: SoeAttackRequest) -> int:
    """Projectiles fired: the dialog's number, else the weapon's (soe 9)."""
    return request.options.projectiles or request.weapon.projectiles


_WIDTH = re.compile(r"^(\d+)(cm|m)$")


def row_width_cm(row: str) -> float:
    """The width a Table 1 "Target Size" row is named by ("70cm", "3m"), in cm."""
    found = _WIDTH.match(row)
    if found is None:
        raise ValueError(f"Table 1 target size row {row!r} is not named by a width")
    return int(found[1]) * (100 if found[2] == "m" else 1)


def size_row(width_cm: float) -> str:
    """The Table 1 "Target Size" row nearest a width, on a log scale (sizes span 2 cm - 18 m)."""
    rows: dict[str, int] = tables().table1["target_size"]
    return min(rows, key=lambda row: abs(math.log(row_width_cm(row) / width_cm)))


def visibility_modifier(level: str, settings: SoeSettings) -> tuple[int, str]:
    """Table 1's six rows, or Table 10's finer levels when the world chooses them."""
    if settings.visibility_table == "table10":
        table, source = tables().table10, "soe Table 10, \"Compressed even integer\""
    else:
        table, source = tables().table1["visibility"], "soe Table 1, \"Visibility\""
    if level not in table:
        number = 10 if settings.visibility_table == "table10" else 1
        raise rule_error(
            "soe", "visibility_row",
            f"visibility {level!r} is not a row of Table {number}, which this world uses",
            "options.visibility", f"choose one of {', '.join(table)}", refused=False,
            level=level, table=number, rows=", ".join(table))
    return table[level], source


def check_allowed(request: SoeAttackRequest, range_m: float) -> None:
    """The limits section 2.3 puts on a shot; a refused shot names the reason."""
    weapon, options = request.weapon, request.options
    if weapon.max_range_m is not None and range_m > weapon.max_range_m:
        (name, said), most = named(weapon.name, "weaponDative"), f"{weapon.max_range_m:g}"
        raise rule_error("soe", "beyond_max_range",
                         f"{range_m:g} m is beyond the maximum range of {name} ({most} m)",
                         "range", f"at most {most} m for this weapon",
                         range=f"{range_m:g}", name=said, max=most)
    if options.mode == "sniper":
        if options.position != "prone":
            raise rule_error("soe", "sniper_position",
                             "Sniper fire needs a prone or supported position (soe 2.3)",
                             "options.position", "must be prone / supported for Sniper mode")
        long_range = tables().table1["long_range_m"]
        if range_m > long_range and not (weapon.scope and weapon.weapon_type == "rifle"):
            raise rule_error("soe", "sniper_scope",
                             f"Sniper fire beyond {long_range} m needs a rifle with a scope "
                             "(soe 2.3)", "weapon.scope",
                             f"a scoped rifle is needed beyond {long_range} m", range=long_range)


def _add(rec: Recorder, key: str, value: int, source: str, **params: Any) -> None:
    rec.modifier(f"mod.{key}", value, source, STEP, **params)


def _beyond_long_range(rec: Recorder, range_m: float, key: str, value: int,
                       source: str) -> None:
    """Wind, perfect ranging and scope count "for ranges > 200m only" (soe Table 1); the
    note names the modifier by its own label."""
    if range_m > tables().table1["long_range_m"]:
        _add(rec, key, value, source)
    else:
        rec.note("long_range_only", f"{source}: for ranges > 200m only",
                 what_key=rec.key(f"mod.{key}"))


def _shooter_rows(rec: Recorder, request: SoeAttackRequest, range_m: float) -> None:
    t1, opts, shooter = tables().table1, request.options, request.attacker.stats
    mode_value, steps = mode_modifier(opts.mode, range_m, request.settings.range_floor)
    row = t1["modes"][opts.mode]
    _add(rec, f"mode.{opts.mode}", mode_value, row["source"], range=round(range_m, 1),
         steps=steps, step_m=row["step_m"])
    if opts.mode == "sniper":
        rec.note("sniper_turns", "soe 2.3, \"Sniper\"")
    _add(rec, "effective_skill",
         effective_skill(shooter.marksmanship, shooter.strength, shooter.agility),
         "soe Table 1, \"Effective Skill\"", skill=shooter.marksmanship,
         str=shooter.strength, agl=shooter.agility)
    if opts.wind != "none":
        _beyond_long_range(rec, range_m, f"wind.{opts.wind}", t1["wind"][opts.wind],
                           "soe Table 1, \"Wind\"")
    if opts.perfect_ranging:
        _beyond_long_range(rec, range_m, "perfect_ranging", t1["perfect_ranging"],
                           "soe Table 1, \"Perfect Ranging\"")
    if t1["position"][opts.position]:
        _add(rec, f"position.{opts.position}", t1["position"][opts.position],
             "soe Table 1, \"Position\"")


def _weapon_rows(rec: Recorder, request: SoeAttackRequest, range_m: float) -> None:
    t1, weapon, mode = tables().table1, request.weapon, request.options.mode
    if weapon.quality == "other":
        _add(rec, "quality.other", weapon.quality_modifier or 0,
             "soe Table 1, \"Weapon Quality\", Other: specific to weapon")
    elif t1["quality"][weapon.quality]:
        _add(rec, f"quality.{weapon.quality}", t1["quality"][weapon.quality],
             "soe Table 1, \"Weapon Quality\"")
    if weapon.to_hit is not None:
        _add(rec, "weapon_type.own", weapon.to_hit, "soe Table 5, \"To-Hit\" (Table 1 \"Other\")",
             weapon=weapon.name)
    elif t1["weapon_type"][weapon.weapon_type]:
        _add(rec, f"weapon_type.{weapon.weapon_type}", t1["weapon_type"][weapon.weapon_type],
             "soe Table 1, \"Weapon Type\"")
    if weapon.scope:
        if mode == "quickfire":
            rec.note("scope_quickfire", "soe 2.3, \"Quickfire\"")
        elif mode == "sniper" and not request.settings.scope_in_sniper:
            rec.note("scope_aimed_only", "soe Table 1, \"Scope\": Aimed fire only")
        else:
            _beyond_long_range(rec, range_m, "scope", weapon.scope_modifier,
                               "soe Table 1, \"Scope\"")
    n = shots(request)
    if n > 1:
        _add(rec, "projectiles", projectile_modifier(n),
             "soe section 9.1 (Table 1, \"# Projectiles\")", n=n)


def _target_rows(rec: Recorder, request: SoeAttackRequest) -> None:
    t1, opts = tables().table1, request.options
    if opts.target_movement != "none":
        _add(rec, f"movement.{opts.target_movement}", t1["movement"][opts.target_movement],
             "soe Table 1, \"Movement\"")
    if opts.called_shot != "none":
        # soe 10.4: a called shot's chance comes from the size table, at the part's width.
        row = size_row(tables().called_shots[opts.called_shot])
        _add(rec, f"called_shot.{opts.called_shot}", t1["target_size"][row],
             "soe section 10.4 (Table 1, \"Target Size\")", row=row)
        rec.note("called_shot", "soe section 10.4")
    elif t1["target_size"][opts.target_size]:
        _add(rec, f"target_size.{opts.target_size}", t1["target_size"][opts.target_size],
             "soe Table 1, \"Target Size\"")
    value, source = visibility_modifier(opts.visibility, request.settings)
    if value:
        _add(rec, f"visibility.{opts.visibility}", value, source)
    if opts.target_dodging:
        agility = request.target.stats.agility
        _add(rec, "dodging", dodge_modifier(agility), "soe Table 1, \"Target Dodging\"",
             agl=agility)


def to_hit_ledger(rec: Recorder, request: SoeAttackRequest, range_m: float) -> list[Modifier]:
    """Every Table 1 modifier that applies to this shot, then the house rules' for the step
    (``Ruleset.house_steps``), recorded on ``rec`` with notes for the rows that did not apply.
    The odds and the roll both build the step with it. Returns the step's modifiers."""
    first = len(rec.modifiers)
    _shooter_rows(rec, request, range_m)
    _weapon_rows(rec, request, range_m)
    _target_rows(rec, request)
    pretrauma.penalty(rec, request.attacker.stats, STEP,
                      source=f"{pretrauma.SOURCE}: a negative modifier to all tasks")
    rec.house(STEP, request)
    return rec.modifiers[first:]
