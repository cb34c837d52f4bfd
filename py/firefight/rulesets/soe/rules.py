"""Stars of Empire to-hit (Table 1) and to-damage (Table 2) ledgers, pure functions of a request.

Every modifier carries its label key, value and the table row it comes from. Where the text
offers two readings the choice is a setting and is recorded in docs/rules-notes.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from firefight.errors import FirefightError, RuleRefusalError
from firefight.models import Modifier, Note
from firefight.rulesets.soe.models import SoeAttackRequest, SoeCombatant, SoeSettings
from firefight.tables import BandTable, load_json

PKG = "firefight.rulesets.soe"
P = "FIREFIGHT.soe"


@dataclass(frozen=True)
class Tables:
    table1: dict[str, Any]
    table10: dict[str, int]
    called_shots: dict[str, float]
    trauma: dict[str, list[str]]
    projectiles: BandTable[int]
    injury: BandTable[str]
    delayed: BandTable[str | None]
    pretrauma: BandTable[int | None]
    multiplier_rows: BandTable[list[int]]
    multiplier_columns: BandTable[int]


@cache
def tables() -> Tables:
    t3 = load_json(PKG, "table3.json")
    t4 = load_json(PKG, "table4.json")
    columns = [{**c, "value": i} for i, c in enumerate(t4["projectile_columns"])]
    return Tables(
        table1=load_json(PKG, "table1.json"),
        table10=load_json(PKG, "table10.json")["visibility"],
        called_shots={k: v["width_cm"] for k, v in
                      load_json(PKG, "called_shots.json")["parts"].items()},
        trauma=load_json(PKG, "trauma.json")["classes"],
        projectiles=BandTable[int].model_validate(load_json(PKG, "projectiles.json")),
        injury=BandTable[str].model_validate(t3["injury"]),
        delayed=BandTable[str | None].model_validate(t3["delayed"]),
        pretrauma=BandTable[int | None].model_validate(t3["pretrauma"]),
        multiplier_rows=BandTable[list[int]].model_validate(
            {"source": t4["source"], "bands": t4["rows"]}
        ),
        multiplier_columns=BandTable[int].model_validate(
            {"source": t4["source"], "bands": columns}
        ),
    )


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


def toughness_modifier(target: SoeCombatant) -> tuple[int, str]:
    """soe Table 2 "Toughness", against the shooter.

    Humans: ceil(Str/4) - 3 is the target's toughness (section 10.1; the pistol example's
    Strength 17 gives the target +2), so the shooter takes its negative. Creatures use their own
    toughness (Table 7; the rhino example: -8 for toughness +8).
    """
    stats = target.stats
    if stats.kind == "creature" or stats.toughness is not None:
        return -(stats.toughness or 0), "soe Table 2, \"Toughness\" (Table 7 for non-humans)"
    return -(math.ceil(stats.strength / 4) - 3), "soe Table 2, \"Toughness\"; section 10.1"


def shots(request: SoeAttackRequest) -> int:
    return request.options.projectiles or request.weapon.projectiles


def check_allowed(request: SoeAttackRequest, range_m: float) -> None:
    """The limits section 2.3 puts on a shot; a refused shot names the reason."""
    weapon, options = request.weapon, request.options
    if weapon.max_range_m is not None and range_m > weapon.max_range_m:
        raise RuleRefusalError(
            f"{range_m:g} m is beyond the maximum range of {weapon.name or 'the weapon'} "
            f"({weapon.max_range_m:g} m)",
            fields=[("range", f"at most {weapon.max_range_m:g} m for this weapon")],
        )
    if options.mode == "sniper":
        if options.position != "prone":
            raise RuleRefusalError(
                "Sniper fire needs a prone or supported position (soe 2.3)",
                fields=[("options.position", "must be prone / supported for Sniper mode")],
            )
        long_range = tables().table1["long_range_m"]
        if range_m > long_range and not (weapon.scope and weapon.weapon_type == "rifle"):
            raise RuleRefusalError(
                f"Sniper fire beyond {long_range} m needs a rifle with a scope (soe 2.3)",
                fields=[("weapon.scope", "a scoped rifle is needed beyond 200 m")],
            )


class _Ledger:
    """Collects one step's modifiers and the notes that explain rows that did not apply."""

    def __init__(self, step: str, long_range: bool) -> None:
        self.step, self.long_range = step, long_range
        self.mods: list[Modifier] = []
        self.notes: list[Note] = []

    def add(self, key: str, value: int, source: str, **params: Any) -> None:
        self.mods.append(Modifier(key=f"{P}.mod.{key}", value=value, source=source,
                                  step=self.step, params=params))

    def note(self, key: str, source: str, **params: Any) -> None:
        self.notes.append(Note(key=f"{P}.note.{key}", source=source, params=params))

    def beyond_200m(self, key: str, value: int, source: str) -> None:
        """Wind, perfect ranging and scope count "for ranges > 200m only" (soe Table 1); the
        note names the modifier by its own label."""
        if self.long_range:
            self.add(key, value, source)
        else:
            self.note("long_range_only", f"{source}: for ranges > 200m only",
                      what_key=f"{P}.mod.{key}")


def _shooter_rows(led: _Ledger, request: SoeAttackRequest, range_m: float) -> None:
    t1, opts, shooter = tables().table1, request.options, request.attacker.stats
    mode_value, steps = mode_modifier(opts.mode, range_m, request.settings.range_floor)
    row = t1["modes"][opts.mode]
    led.add(f"mode.{opts.mode}", mode_value, row["source"], range=round(range_m, 1),
            steps=steps, step_m=row["step_m"])
    if opts.mode == "sniper":
        led.note("sniper_turns", "soe 2.3, \"Sniper\"")
    led.add("effective_skill",
            effective_skill(shooter.marksmanship, shooter.strength, shooter.agility),
            "soe Table 1, \"Effective Skill\"", skill=shooter.marksmanship,
            str=shooter.strength, agl=shooter.agility)
    if opts.wind != "none":
        led.beyond_200m(f"wind.{opts.wind}", t1["wind"][opts.wind],
                        "soe Table 1, \"Wind\"")
    if opts.perfect_ranging:
        led.beyond_200m("perfect_ranging", t1["perfect_ranging"],
                        "soe Table 1, \"Perfect Ranging\"")
    if t1["position"][opts.position]:
        led.add(f"position.{opts.position}", t1["position"][opts.position],
                "soe Table 1, \"Position\"")


def _weapon_rows(led: _Ledger, request: SoeAttackRequest) -> None:
    t1, weapon, mode = tables().table1, request.weapon, request.options.mode
    if weapon.quality == "other":
        led.add("quality.other", weapon.quality_modifier or 0,
                "soe Table 1, \"Weapon Quality\", Other: specific to weapon")
    elif t1["quality"][weapon.quality]:
        led.add(f"quality.{weapon.quality}", t1["quality"][weapon.quality],
                "soe Table 1, \"Weapon Quality\"")
    if weapon.to_hit is not None:
        led.add("weapon_type.own", weapon.to_hit, "soe Table 5, \"To-Hit\" (Table 1 \"Other\")",
                weapon=weapon.name)
    elif t1["weapon_type"][weapon.weapon_type]:
        led.add(f"weapon_type.{weapon.weapon_type}", t1["weapon_type"][weapon.weapon_type],
                "soe Table 1, \"Weapon Type\"")
    if weapon.scope:
        if mode == "quickfire":
            led.note("scope_quickfire", "soe 2.3, \"Quickfire\"")
        elif mode == "sniper" and not request.settings.scope_in_sniper:
            led.note("scope_aimed_only", "soe Table 1, \"Scope\": Aimed fire only")
        else:
            led.beyond_200m("scope", weapon.scope_modifier, "soe Table 1, \"Scope\"")
    n = shots(request)
    if n > 1:
        led.add("projectiles", projectile_modifier(n),
                "soe section 9.1 (Table 1, \"# Projectiles\")", n=n)


def _target_rows(led: _Ledger, request: SoeAttackRequest) -> None:
    t1, opts = tables().table1, request.options
    if opts.target_movement != "none":
        led.add(f"movement.{opts.target_movement}", t1["movement"][opts.target_movement],
                "soe Table 1, \"Movement\"")
    if opts.called_shot != "none":
        # soe 10.4: a called shot's chance comes from the size table, at the part's width.
        row = size_row(tables().called_shots[opts.called_shot])
        led.add(f"called_shot.{opts.called_shot}", t1["target_size"][row],
                "soe section 10.4 (Table 1, \"Target Size\")", row=row)
        led.note("called_shot", "soe section 10.4")
    elif t1["target_size"][opts.target_size]:
        led.add(f"target_size.{opts.target_size}", t1["target_size"][opts.target_size],
                "soe Table 1, \"Target Size\"")
    value, source = visibility_modifier(opts.visibility, request.settings)
    if value:
        led.add(f"visibility.{opts.visibility}", value, source)
    if opts.target_dodging:
        agility = request.target.stats.agility
        led.add("dodging", dodge_modifier(agility), "soe Table 1, \"Target Dodging\"", agl=agility)


def to_hit_ledger(request: SoeAttackRequest, range_m: float) -> tuple[list[Modifier], list[Note]]:
    """Every Table 1 modifier that applies to this shot, with notes for rows that did not."""
    led = _Ledger("to_hit", long_range=range_m > tables().table1["long_range_m"])
    _shooter_rows(led, request, range_m)
    _weapon_rows(led, request)
    _target_rows(led, request)
    if request.attacker.stats.pretrauma:
        led.add("pretrauma", request.attacker.stats.pretrauma,
                "soe Table 3, \"Pretrauma\": a negative modifier to all tasks")
    return led.mods, led.notes


def size_row(width_cm: float) -> str:
    """The Table 1 "Target Size" row nearest a width, on a log scale (sizes span 2 cm - 18 m)."""
    widths = {"2cm": 2, "10cm": 10, "30cm": 30, "40cm": 40, "50cm": 50, "70cm": 70, "90cm": 90,
              "150cm": 150, "3m": 300, "9m": 900, "18m": 1800}
    return min(widths, key=lambda k: abs(math.log(widths[k] / width_cm)))


def visibility_modifier(level: str, settings: SoeSettings) -> tuple[int, str]:
    """Table 1's six rows, or Table 10's finer levels when the world chooses them."""
    if settings.visibility_table == "table10":
        table, source = tables().table10, "soe Table 10, \"Compressed even integer\""
    else:
        table, source = tables().table1["visibility"], "soe Table 1, \"Visibility\""
    if level not in table:
        which = "Table 10" if settings.visibility_table == "table10" else "Table 1"
        raise FirefightError(
            f"visibility {level!r} is not a row of {which}, which this world uses",
            fields=[("options.visibility", f"choose one of {', '.join(table)}")],
        )
    return table[level], source


def armor_column(request: SoeAttackRequest) -> str:
    weapon = request.weapon
    if weapon.armor_column is not None:
        return weapon.armor_column
    return "pistol" if weapon.weapon_type == "pistol" else "rifle"


def to_damage_ledger(request: SoeAttackRequest) -> list[Modifier]:
    """soe Table 2: weapon damage, the target's toughness and the target's armor."""
    mods = [
        Modifier(key=f"{P}.mod.weapon_damage", value=request.weapon.damage,
                 source="soe Table 2, \"Weapon\" (Table 5, \"Damage\")", step="to_damage",
                 params={"weapon": request.weapon.name}),
    ]
    toughness, source = toughness_modifier(request.target)
    mods.append(Modifier(key=f"{P}.mod.toughness", value=toughness, source=source,
                         step="to_damage", params={"str": request.target.stats.strength}))
    column = armor_column(request)
    for piece in request.target.armor:
        value = piece.vs_rifle if column == "rifle" else piece.vs_pistol
        mods.append(Modifier(key=f"{P}.mod.armor_{column}", value=value,
                             source=f"soe Table 2, \"Armor\" (Table 6, \"Vs. {column.title()}\")",
                             step="to_damage", params={"armor": piece.name}))
    return mods


def damage_multiplier(to_hit_over_roll: int, projectiles: int) -> int:
    """soe Table 4: the multiplier from the to-hit over-roll and projectiles fired."""
    t = tables()
    column = t.multiplier_columns.lookup(projectiles)
    return t.multiplier_rows.lookup(to_hit_over_roll)[column]


def ties_to_attacker(request: SoeAttackRequest) -> bool:
    """soe section 4: ties go in the player's favour; the referee may choose otherwise."""
    rule = request.settings.tie_goes_to
    if rule == "attacker":
        return True
    if rule == "target":
        return False
    # A PC shooting, or both / neither PCs: the acting side; an NPC shooting a PC: the PC.
    return not (request.target.pc and not request.attacker.pc)
