"""SHOCK rules as pure functions: troop quality, hit location, cover, damage class, location
severity (the sparse printed table read by filling down), effects, shock checks, the chit cup
and the to-hit house rule.

Each reading of the draft text is recorded in docs/rules-notes.md ("SHOCK skirmish") with the
line it comes from; the tables are data in ``tables/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from firefight.errors import RuleRefusalError
from firefight.models import Effect, Modifier
from firefight.rulesets.shock.models import (
    COVER_PRESETS,
    DAMAGE_CLASSES,
    LOCATIONS,
    QUALITIES,
    AttackRequest,
    ShockProtection,
    ShockSettings,
    ShockStats,
)
from firefight.tables import BandTable, load_json

PKG = "firefight.rulesets.shock"
P = "FIREFIGHT.shock"

# shock Location Severity, "Details of Severity": the four results, least to most severe. A
# class VI round "becomes the next tier of severity" along this order.
TIERS = ("stun", "wound", "shock", "death")
SEVERITY_ROWS = 10  # the Location Severity table's 1d10 rows
SHOCK_AT_WOUNDS = 10  # shock WOUND: "a total of ten or more ... immediately succumbs to shock"


@dataclass(frozen=True)
class QualityRow:
    quality: str
    label: str
    mod: int
    phases: tuple[str, ...]  # the P1-P4 cells as printed: "", "x" or "xx"

    @property
    def chits(self) -> tuple[int, ...]:
        """Chits this quality puts in the cup in each phase: one per printed "x"."""
        return tuple(len(cell) for cell in self.phases)


@dataclass(frozen=True)
class DamageClassRow:
    damage_class: str
    mod: int | None  # None: the printed "U", a severity upgrade instead of a modifier
    type: str


@dataclass(frozen=True)
class Tables:
    quality: dict[str, QualityRow]
    generic_base: int
    location: BandTable[str]
    damage_class: dict[str, DamageClassRow]
    severity_printed: dict[str, tuple[str | None, ...]]
    severity: dict[str, tuple[str, ...]]
    wound_scales: dict[str, dict[str, int]]
    house: dict[str, Any]
    house_range: BandTable[int]
    cover_presets: dict[str, tuple[str, ...]]


def fill_down(column: tuple[str | None, ...], name: str = "") -> tuple[str, ...]:
    """The sparse Location Severity column read as printed: an empty cell keeps the result
    above it (head: 1 stun, 2 wound, 3 shock, 4-10 death)."""
    out: list[str] = []
    for row, cell in enumerate(column, start=1):
        if cell is None:
            if not out:
                raise ValueError(f"severity column {name!r}: row {row} is empty with nothing above")
            out.append(out[-1])
        else:
            if cell not in TIERS:
                raise ValueError(f"severity column {name!r}, row {row}: unknown result {cell!r}")
            out.append(cell)
    return tuple(out)


def _quality_rows(data: dict[str, Any]) -> dict[str, QualityRow]:
    rows = {r["quality"]: QualityRow(r["quality"], r["label"], int(r["mod"]), tuple(r["phases"]))
            for r in data["rows"]}
    if tuple(rows) != QUALITIES:
        raise ValueError(f"quality.json: rows must be {QUALITIES}, got {tuple(rows)}")
    for row in rows.values():
        if len(row.phases) != 4 or any(c not in ("", "x", "xx") for c in row.phases):
            raise ValueError(f"quality.json: {row.quality}: P1-P4 must be '', 'x' or 'xx'")
    return rows


def _severity(data: dict[str, Any]) -> dict[str, tuple[str | None, ...]]:
    columns: list[str] = data["columns"]
    if tuple(columns) != LOCATIONS:
        raise ValueError(f"severity.json: columns must be {LOCATIONS}")
    rows = data["rows"]
    if [r["roll"] for r in rows] != list(range(1, SEVERITY_ROWS + 1)):
        raise ValueError("severity.json: rows must be rolls 1..10 in order")
    return {loc: tuple(r["cells"][i] for r in rows) for i, loc in enumerate(columns)}


def _cover_presets(data: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    presets = {name: tuple(locations) for name, locations in data["presets"].items()}
    if tuple(presets) != COVER_PRESETS:
        raise ValueError(f"cover.json: presets must be {COVER_PRESETS}")
    for name, locations in presets.items():
        if not set(locations) <= set(LOCATIONS):
            raise ValueError(f"cover.json: {name}: unknown location in {locations}")
    return presets


@cache
def tables() -> Tables:
    quality = load_json(PKG, "quality.json")
    classes = {r["class"]: DamageClassRow(r["class"], None if r["mod"] == "U" else int(r["mod"]),
                                          r["type"])
               for r in load_json(PKG, "damage_class.json")["rows"]}
    if tuple(classes) != DAMAGE_CLASSES:
        raise ValueError(f"damage_class.json: rows must be {DAMAGE_CLASSES}")
    printed = _severity(load_json(PKG, "severity.json"))
    house = load_json(PKG, "house_to_hit.json")
    scales = load_json(PKG, "wound_scale.json")["scales"]
    return Tables(
        quality=_quality_rows(quality),
        generic_base=int(quality["generic_base"]),
        location=BandTable[str].model_validate(load_json(PKG, "location.json")),
        damage_class=classes,
        severity_printed=printed,
        severity={loc: fill_down(col, loc) for loc, col in printed.items()},
        wound_scales=scales,
        house=house,
        house_range=BandTable[int].model_validate(house["range"]),
        cover_presets=_cover_presets(load_json(PKG, "cover.json")),
    )


# --- The soldier -------------------------------------------------------------------------------

def generic_rating(quality: str) -> int:
    """shock Troop Quality: a generic is 5 + MOD in each of T, A and P (Regular 5-5-5,
    Untrained 2-2-2, Rainbow 9-9-9)."""
    t = tables()
    return t.generic_base + t.quality[quality].mod


def tap(stats: ShockStats) -> tuple[int, int, int]:
    """Toughness, Awareness, Prowess; a stat left out is the generic rating for the quality."""
    generic = generic_rating(stats.quality)
    return (stats.toughness or generic, stats.awareness or generic, stats.prowess or generic)


def chits(quality: str) -> tuple[int, ...]:
    """shock Troop Quality, P1-P4: chits in the cup in each phase of the turn (x 1, xx 2)."""
    return tables().quality[quality].chits


def can_act(state: str) -> bool:
    """Stunned: skips its turn (shock STUN); shock: "can no longer act"; dead: dead."""
    return state == "ok"


def check_attack_allowed(request: AttackRequest) -> None:
    state = request.attacker.stats.state
    if not can_act(state):
        why = {"stunned": "is stunned and skips this turn (shock STUN)",
               "shock": "is in shock and can no longer act (shock SHOCK)",
               "dead": "is dead"}[state]
        raise RuleRefusalError(f"{request.attacker.name or 'the attacker'} {why}",
                               fields=[("attacker.stats.state", f"{state}: cannot attack")])
    if request.target.stats.state == "dead":
        raise RuleRefusalError(f"{request.target.name or 'the target'} is already dead",
                               fields=[("target.stats.state", "dead: nothing more to resolve")])


# --- To hit: the house rule ---------------------------------------------------------------------

HOUSE = "Firefight house rule (not in SHOCK)"


def house_to_hit_ledger(request: AttackRequest) -> list[Modifier]:
    """The house rule's modifiers to the shooter's Prowess (all sourced as the house rule)."""
    t, opts = tables(), request.options
    house = t.house
    prowess = tap(request.attacker.stats)[2]
    metres = request.range.metres()
    band = t.house_range.band_of(math.floor(metres))
    band_name = house["range_names"][t.house_range.bands.index(band)]
    mods = [
        Modifier(key=f"{P}.mod.prowess", value=prowess, source=f"{HOUSE}: shooter's Prowess",
                 step="to_hit",
                 params={"quality_key": f"{P}.quality.{request.attacker.stats.quality}"}),
        Modifier(key=f"{P}.mod.range.{band_name}", value=band.value,
                 source=f"{HOUSE}: range band", step="to_hit",
                 params={"range": round(metres, 1)}),
    ]
    for flag in ("aimed", "shooter_moved", "target_moving", "target_prone"):
        if getattr(opts, flag):
            mods.append(Modifier(key=f"{P}.mod.{flag}", value=int(house[flag]),
                                 source=f"{HOUSE}: {flag.replace('_', ' ')}", step="to_hit"))
    if opts.situational:
        mods.append(Modifier(key=f"{P}.mod.situational", value=opts.situational,
                             source=f"{HOUSE}: referee's situational modifier", step="to_hit"))
    return mods


def house_hits(roll: int, target_number: int) -> bool:
    """Hit on 1d10 <= target number; a 1 always hits, a 10 always misses."""
    house = tables().house
    if roll == house["always_hit"]:
        return True
    if roll == house["always_miss"]:
        return False
    return roll <= target_number


def house_hit_probability(target_number: int) -> Fraction:
    """Exact: faces 1..10 that hit."""
    return Fraction(sum(house_hits(face, target_number) for face in range(1, 11)), 10)


# --- Where it hits, and whether cover stops it --------------------------------------------------

def hit_location(roll: int) -> str:
    """shock Hit Location (1d10)."""
    return tables().location.lookup(roll)


def class_rank(damage_class: str) -> int:
    return DAMAGE_CLASSES.index(damage_class)


def cover_in_play(request: AttackRequest) -> list[ShockProtection]:
    """The dialog's cover preset, then the target's own cover and armor."""
    opts = request.options
    dialog = []
    if opts.cover != "none":
        dialog.append(ShockProtection(
            name="", category="cover", stops=opts.cover_stops,
            locations=list(tables().cover_presets[opts.cover]),
        ))
    return [*dialog, *request.target.cover, *request.target.armor]


def stopping_protection(request: AttackRequest, location: str,
                        in_play: list[ShockProtection] | None = None
                        ) -> tuple[ShockProtection | None, list[ShockProtection]]:
    """shock Hit Location: "Cover might mitigate what would otherwise be a hit if the cover is of
    sufficient protection to stop the attack." Cover (and armor) protects its locations against
    rounds of its ``stops`` class and below. Returns (what stopped it, what it went through)."""
    damage_class = request.weapon.damage_class
    pierced: list[ShockProtection] = []
    for protection in cover_in_play(request) if in_play is None else in_play:
        if location not in protection.locations:
            continue
        if class_rank(damage_class) <= class_rank(protection.stops):
            return protection, pierced
        pierced.append(protection)
    return None, pierced


# --- Severity ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Severity:
    roll: int
    modifier: int  # the class Mod (0 for class VI, which upgrades instead)
    modified: int  # roll + modifier
    row: int  # the modified roll clamped to the table, 1..10
    printed: str | None  # the cell as printed (None: empty, filled from above)
    tabled: str  # the table's result at that row
    result: str  # after a class VI upgrade
    upgraded: bool


def class_modifier(damage_class: str) -> int | None:
    """shock Damage Class "Mod"; None for class VI ("U": a severity upgrade)."""
    return tables().damage_class[damage_class].mod


def upgrade(result: str) -> str:
    """shock Damage Class: class VI "constitute[s] a severity upgrade ... Whatever result you
    receive becomes the next tier of severity"; death stays death."""
    return TIERS[min(TIERS.index(result) + 1, len(TIERS) - 1)]


@cache  # a pure reading of the static tables: the odds read all 100 cells every time
def severity(location: str, roll: int, damage_class: str) -> Severity:
    """shock Location Severity: 1d10 + class Mod, clamped to rows 1..10, read by filling down."""
    t = tables()
    mod = class_modifier(damage_class)
    modified = roll + (mod or 0)
    row = min(max(modified, 1), SEVERITY_ROWS)
    tabled = t.severity[location][row - 1]
    vi = mod is None
    return Severity(roll=roll, modifier=mod or 0, modified=modified, row=row,
                    printed=t.severity_printed[location][row - 1], tabled=tabled,
                    result=upgrade(tabled) if vi else tabled, upgraded=vi)


# --- What the result does to the unit -----------------------------------------------------------

def wound_counters(damage_class: str, scale: str) -> int:
    """shock WOUND: wounds "scale in effect with the damage class of the round"."""
    return int(tables().wound_scales[scale][damage_class])


@dataclass(frozen=True)
class Consequence:
    outcome: str  # what happened: stun, wound, shock, death, or "none" (a stun in shock)
    via: str  # severity, wounds_ten (ten or more wounds), in_shock (damage while in shock)
    wounds_added: int
    wounds_after: int
    state_after: str
    effects: tuple[Effect, ...]


def _effect(kind: str, *, delta: int = 0, value: Any = None, label: str, **params: Any
            ) -> Effect:
    return Effect(kind=kind, delta=delta, value=value, label_key=f"{P}.effect.{label}",
                  params=params)


def consequence(stats: ShockStats, result: str, damage_class: str, settings: ShockSettings
                ) -> Consequence:
    """The severity result applied to the unit as it stands."""
    wounds = stats.wounds
    if stats.state == "shock":
        # shock SHOCK: "Units who take more damage in this state die."
        if settings.damage_in_shock == "any_hit" or result != "stun":
            return Consequence("death", "in_shock", 0, wounds, "dead",
                               (_effect("state", value="dead", label="dead_in_shock"),))
        return Consequence("none", "in_shock", 0, wounds, "shock", ())
    if result == "wound":
        return _wound(wounds, wound_counters(damage_class, settings.wound_scale), stats.state)
    # STUN: skips its current or next turn; SHOCK: incapacitated; DEATH.
    state = {"stun": "stunned", "shock": "shock", "death": "dead"}[result]
    return Consequence(result, "severity", 0, wounds, state,
                       (_effect("state", value=state, label=state),))


def _wound(wounds: int, added: int, state: str) -> Consequence:
    total = wounds + added
    gained = _effect("wounds", delta=added, label="wounds", n=added, total=total)
    if total >= SHOCK_AT_WOUNDS:
        # shock WOUND: ten or more "immediately succumbs to shock"; shock SHOCK: "A unit who
        # passes into shock from wounds removes the wound counters."
        return Consequence("shock", "wounds_ten", added, 0, "shock", (
            gained, _effect("state", value="shock", label="shock_from_wounds", total=total),
            _effect("wounds", delta=-total, label="wounds_removed", n=total)))
    return Consequence("wound", "severity", added, total, state, (gained,))


# --- End of turn -------------------------------------------------------------------------------

def passes_shock_check(roll: int, wounds: int) -> bool:
    """shock WOUND: "a single 1d10 roll ... attempting to roll higher than the total sum of
    wounds"."""
    return roll > wounds


def shock_check_probability(wounds: int) -> Fraction:
    """Chance a unit with ``wounds`` counters goes into shock at the end of the turn."""
    if wounds <= 0:
        return Fraction(0)
    if wounds >= SHOCK_AT_WOUNDS:
        return Fraction(1)
    return Fraction(sum(not passes_shock_check(f, wounds) for f in range(1, 11)), 10)


# --- Exact odds of an attack --------------------------------------------------------------------

OUTCOMES = ("miss", "stopped", "none", "stun", "wound", "shock", "death")


def outcome_distribution(request: AttackRequest) -> dict[str, Fraction]:
    """Exact chances of each outcome *given a hit*: every hit location x every severity roll.

    Counted in whole hundredths; the consequence of each distinct severity result is worked out
    once (it depends on the unit and the result only), not once per cell."""
    counts = dict.fromkeys(OUTCOMES, 0)
    weapon_class = request.weapon.damage_class
    in_play = cover_in_play(request)
    outcome_of: dict[str, str] = {}
    for loc_roll in range(1, 11):
        location = hit_location(loc_roll)
        stopper, _ = stopping_protection(request, location, in_play)
        if stopper is not None:
            counts["stopped"] += 10
            continue
        for sev_roll in range(1, 11):
            result = severity(location, sev_roll, weapon_class).result
            if result not in outcome_of:
                outcome_of[result] = consequence(request.target.stats, result, weapon_class,
                                                 request.settings).outcome
            counts[outcome_of[result]] += 1
    return {k: Fraction(v, 100) for k, v in counts.items()}
