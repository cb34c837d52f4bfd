"""Percentile small-arms fire: the chance ledger, the kill rule and the casualty table.

Pure functions of a request. Every number cites its line in ``percentile-small-arms.md`` or
``percentile-casualty-table.md`` (in ``tables/small_arms.json`` beside the value); where the two
texts disagree the choice is a setting, recorded in docs/rules-notes.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, Literal, NamedTuple

from firefight.errors import FirefightError, RuleRefusalError
from firefight.models import UNIT_METRES, Modifier, Note
from firefight.rulesets.percentile.models import PercentileAttackRequest
from firefight.tables import Band, BandTable, load_json

PKG = "firefight.rulesets.percentile"
P = "FIREFIGHT.percentile"
STEP = "chance"

# Units a tabletop scene may be measured in: the rules' own inches, taken as they are.
INCH_UNITS = frozenset({"in", "inch", "inches", '"', "″", "''"})


@dataclass(frozen=True)
class Tables:
    small_arms: dict[str, Any]
    casualty_rows: BandTable[list[int]]
    casualty_columns: BandTable[int]


def casualty_tables(data: dict[str, Any]) -> tuple[BandTable[list[int]], BandTable[int]]:
    """Validate the Casualty Table data: contiguous bands, full rows, percents 0..100."""
    rows = BandTable[list[int]].model_validate({"source": data["source"], "bands": data["rows"]})
    columns = BandTable[int].model_validate({"source": data["source"],
                                             "bands": data["rounds_columns"]})
    width = len(columns.bands)
    if [b.value for b in columns.bands] != list(range(width)):
        raise ValueError(f"{data['source']}: columns must be numbered 0..{width - 1} in order")
    for band in rows.bands:
        if len(band.value) != width:
            raise ValueError(f"{data['source']}: row {band.lo}-{band.hi} has {len(band.value)} "
                             f"values for {width} columns")
        if not all(0 <= v <= 100 for v in band.value):
            raise ValueError(f"{data['source']}: row {band.lo}-{band.hi} has a value "
                             "outside 0..100")
    return rows, columns


@cache
def tables() -> Tables:
    rows, columns = casualty_tables(load_json(PKG, "casualty.json"))
    return Tables(small_arms=load_json(PKG, "small_arms.json"), casualty_rows=rows,
                  casualty_columns=columns)


# --- distances ------------------------------------------------------------------------------

def range_inches(request: PercentileAttackRequest) -> Fraction:
    """The range in tabletop inches (exact to a billionth).

    A scene measured in inches is the tabletop itself; any other length unit is ground, turned
    into inches by the world's ground scale (``settings.inch_equals`` ``inch_units``).
    """
    distance, settings = request.range, request.settings
    if not math.isfinite(distance.value):
        raise FirefightError("the range must be a finite distance",
                             fields=[("range.value", "must be finite")])
    if distance.units.strip().lower() in INCH_UNITS:
        inches = distance.value
    else:
        if settings.inch_equals is None:
            raise FirefightError(
                f"the scene is measured in {distance.units!r}, not inches: set the ground scale "
                "(how much ground one tabletop inch stands for)",
                fields=[("settings.inch_equals",
                         "required unless the range is in inches (\"in\")")],
            )
        metres = distance.metres()  # names range.units if the unit is unknown
        inches = metres / (settings.inch_equals * UNIT_METRES[settings.inch_units])
    # Exact to a billionth of an inch: float noise goes (10 m at 1 yd/inch is not 10.9361...
    # plus an ulp), a real 9.996" stays below 10" (no rounding across a damage boundary).
    return Fraction(round(inches * 10**9), 10**9)


def within_arc(bearing_deg: float) -> bool:
    """percentile Small Arms: the 90° arc, 45° to each side of the facing (45° itself is in)."""
    half: float = tables().small_arms["firing_arc"]["half_angle_deg"]
    b = (bearing_deg + 180.0) % 360.0 - 180.0
    return abs(b) <= half


# --- what is fired and how it is rolled -------------------------------------------------------

@dataclass(frozen=True)
class FirePlan:
    """Rounds spent, how many D100 rolls resolve them, and the rounds each roll counts."""

    rounds_fired: int
    declared: bool
    burst: bool
    rolls: int
    rounds_per_roll: int
    wasted: int


def fire_plan(request: PercentileAttackRequest) -> FirePlan:
    weapon, options = request.weapon, request.options
    declared = options.rounds is not None
    rounds = options.rounds if options.rounds is not None else weapon.magazine
    if rounds > weapon.magazine:
        raise RuleRefusalError(
            f"{rounds} rounds is more than {weapon.name or 'the weapon'} holds "
            f"({weapon.magazine} per magazine)",
            fields=[("options.rounds", f"at most the magazine capacity, {weapon.magazine}")],
        )
    # "Men firing automatic weapons roll D100 once to determine the result of each burst";
    # "bolt-action or semi-automatic weapons roll D100 ... of each round fired".
    burst = weapon.action == "automatic" and not options.single_shots
    if not burst:
        return FirePlan(rounds, declared, burst=False, rolls=rounds, rounds_per_roll=1, wasted=0)
    limit = tables().small_arms["burst_limit"]
    counted = rounds
    if weapon.weapon_class in limit["classes"][request.settings.climb]:
        counted = min(rounds, int(limit["rounds"]))  # the weapon "climbs": the excess is wasted
    return FirePlan(rounds, declared, burst=True, rolls=1, rounds_per_roll=counted,
                    wasted=rounds - counted)


def basic_percentage(weapon_class: str, range_in: Fraction) -> Fraction:
    """percentile Small Arms, "How to determine BP"; exact (a fractional inch stays one)."""
    row = tables().small_arms["basic_percentage"][weapon_class]
    return (int(row["from"]) - range_in) * int(row["times"])


# --- the chance ledger ----------------------------------------------------------------------

@dataclass
class Ledger:
    mods: list[Modifier] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def add(self, key: str, value: int, source: str, **params: Any) -> None:
        self.mods.append(Modifier(key=f"{P}.mod.{key}", value=value, source=source, step=STEP,
                                  params=params))

    def note(self, key: str, source: str = "", **params: Any) -> None:
        self.notes.append(Note(key=f"{P}.note.{key}", source=source, params=params))

    @property
    def total(self) -> int:
        return sum(m.value for m in self.mods)


def _class_key(weapon_class: str) -> str:
    return f"{P}.opt.weapon_class.choices.{weapon_class}"


def hasty(request: PercentileAttackRequest) -> tuple[bool, bool]:
    """(hasty fire?, decided by the bearing?)"""
    bearing = request.options.bearing_deg
    if request.settings.facing == "ignore":  # the world does not track facing: only by hand
        bearing = None
    outside = bearing is not None and not within_arc(bearing)
    return request.options.hasty_fire or outside, outside


def _target_rows(led: Ledger, request: PercentileAttackRequest) -> None:
    sa, opts = tables().small_arms, request.options
    if opts.target_prone:
        led.add("prone", sa["prone"]["value"], sa["prone"]["source"])
    if opts.cover != "none":
        row = sa["cover"][opts.cover]
        led.add(f"cover.{opts.cover}", row["value"], row["source"])


def _shooter_rows(led: Ledger, request: PercentileAttackRequest) -> None:
    sa, opts, cls = tables().small_arms, request.options, request.weapon.weapon_class
    if request.attacker.stats.sharpshooter:
        row = sa["sharpshooter"]
        if cls in row["not_for"]:
            led.note("sharpshooter_smg", row["source"])
        else:
            led.add("sharpshooter", row["value"], row["source"])
    rifle_rows = [("sighting_in", opts.sighting_turns, "sighting_turns"),
                  ("rested", int(opts.rested), "rested")]
    for key, times, option in rifle_rows:
        if not times:
            continue
        row = sa[key]
        if cls in row["only_for"]:
            led.add(key, row["value"] * times, row["source"], n=times)
        else:
            led.note("rifles_carbines_only", row["source"],
                     what_key=f"{P}.opt.{option}.label", class_key=_class_key(cls))


def _fraction_row(led: Ledger, request: PercentileAttackRequest) -> None:
    """"1/4 The chance of hitting" (hasty, blind), 1/8 for both: the whole chance is cut.

    A roll is a whole number, so roll <= chance/4 exactly when roll <= floor(chance/4): flooring
    loses nothing (and floor(floor(x)/n) == floor(x/n), so flooring BP first loses nothing).
    """
    sa, opts = tables().small_arms, request.options
    is_hasty, by_bearing = hasty(request)
    if by_bearing:
        led.note("outside_arc", sa["firing_arc"]["source"],
                 bearing=f"{opts.bearing_deg:g}", half=sa["firing_arc"]["half_angle_deg"])
    fraction = ("hasty_and_blind" if is_hasty and opts.blind_fire else
                "hasty_fire" if is_hasty else "blind_fire" if opts.blind_fire else None)
    if fraction is not None:
        row = sa[fraction]
        before = led.total
        led.add(fraction, before // row["divisor"] - before, row["source"],
                factor=f"1/{row['divisor']}", before=before)


def chance_ledger(request: PercentileAttackRequest, plan: FirePlan, range_in: Fraction
                  ) -> Ledger:
    """BP + rounds fired + modifiers, then the hasty / blind fraction: the chance of one roll."""
    sa, cls = tables().small_arms, request.weapon.weapon_class
    led = Ledger()
    led.add(f"bp.{cls}", math.floor(basic_percentage(cls, range_in)),
            sa["basic_percentage"][cls]["source"], range=f"{float(range_in):g}")
    led.add("rounds", plan.rounds_per_roll, sa["rounds_fired"]["source"], n=plan.rounds_per_roll)
    _target_rows(led, request)
    _shooter_rows(led, request)
    _fraction_row(led, request)
    return led


# --- one roll -------------------------------------------------------------------------------

def d100(tens_face: int, ones_face: int) -> int:
    """Two d10 read as tens and ones (a face of 10 reads 0); "00" reads 100."""
    value = (tens_face % 10) * 10 + ones_face % 10
    return value or 100


def kill_at(weapon_class: str, rounds: int, *, burst: bool,
            rule: Literal["fire_mode", "weapon_class"] = "fire_mode") -> tuple[int, str]:
    """The highest hitting roll that kills outright, and the rule's line.

    "pistol, rifle or carbine": at or under the rounds fired; "SMG or automatic rifle": at or
    under half the rounds (an integer roll <= n/2 exactly when it is <= n // 2). By default what
    decides is how the weapon is fired: a burst is automatic fire, a round at a time is not.
    """
    kill = tables().small_arms["kill"]
    if rule == "fire_mode":
        row = kill["half" if burst else "full"]
        return rounds // row["divisor"], row["source"]
    for row in kill.values():
        if weapon_class in row["classes"]:
            return rounds // row["divisor"], row["source"]
    raise FirefightError(f"unknown weapon class {weapon_class!r}",
                         fields=[("weapon.weapon_class", "no kill rule for this class")])


def damage_multiplier(weapon_class: str, range_in: Fraction,
                      boundary: Literal["below", "at_or_below"]) -> tuple[int, str]:
    """EXCEPT FOR PISTOLS: triple inside 10", double inside 20" (boundary: the setting)."""
    rd = tables().small_arms["range_damage"]
    if weapon_class in rd["not_for"]:
        return 1, ""
    for band in rd["bands"]:
        inside = range_in < band["inches"] if boundary == "below" else range_in <= band["inches"]
        if inside:
            source = band["source"] if boundary == "below" else band["source_at_or_below"]
            return int(band["multiplier"]), source
    return 1, ""


@dataclass(frozen=True)
class Casualty:
    percent: int
    row: Band[list[int]]
    column: Band[int]
    beyond_table: bool


@cache  # a pure reading of the static table: the odds read it for each of the 100 rolls
def casualty(roll: int, rounds: int) -> Casualty:
    """The Casualty Table: percent of life force lost, by the hitting roll and rounds fired.

    More rounds than the last column (50) read that column: the table stops there.
    """
    t = tables()
    last = t.casualty_columns.bands[-1]
    beyond = last.hi is not None and rounds > last.hi
    column = last if beyond else t.casualty_columns.band_of(rounds)
    row = t.casualty_rows.band_of(roll)
    return Casualty(row.value[column.value], row, column, beyond)


class RollResult(NamedTuple):  # a tuple: the odds build one for each of the 100 rolls
    roll: int
    hit: bool
    kill: bool
    table_percent: int = 0
    damage: int = 0


def roll_result(roll: int, chance: int, kill_threshold: int, rounds: int, multiplier: int
                ) -> RollResult:
    """One D100: miss above the chance; a hit at or under the kill number kills; else wounds."""
    if roll > chance:
        return RollResult(roll, hit=False, kill=False)
    if roll <= kill_threshold:
        return RollResult(roll, hit=True, kill=True)
    percent = casualty(roll, rounds).percent
    return RollResult(roll, hit=True, kill=False, table_percent=percent,
                      damage=percent * multiplier)


# --- exact odds -----------------------------------------------------------------------------

@dataclass(frozen=True)
class RollOutcomes:
    """Of the 100 equally likely D100 results: misses, kills, and wounds by damage."""

    miss: int
    kill: int
    wounds: dict[int, int]


def roll_outcomes(chance: int, kill_threshold: int, rounds: int, multiplier: int
                  ) -> RollOutcomes:
    miss = kill = 0
    wounds: dict[int, int] = {}
    for roll in range(1, 101):
        r = roll_result(roll, chance, kill_threshold, rounds, multiplier)
        if not r.hit:
            miss += 1
        elif r.kill:
            kill += 1
        else:
            wounds[r.damage] = wounds.get(r.damage, 0) + 1
    return RollOutcomes(miss, kill, wounds)


@dataclass(frozen=True)
class FireOdds:
    hit: Fraction
    any_hit: Fraction
    kill_rule: Fraction
    death: Fraction


def _alive_counts(wounds: dict[int, int], life_force: int, rolls: int) -> list[int]:
    """``counts[j]``: ordered sequences of ``j`` wounding D100 results whose damage adds up to
    less than ``life_force`` (the man is still alive after them), for j = 0, 1, ...

    The distribution of damage so far is a polynomial in x (coefficient of x**d: ways to have
    taken d); one more wound multiplies it by W(x) = sum n_d x**d. The polynomial is packed into
    one integer, ``width`` bits a coefficient (Kronecker substitution), so each step is a single
    integer product; coefficients at or above ``life_force`` are cut off, and the smallest
    wound is shifted out each step (the j-th polynomial starts at j * smallest). Exact: every
    coefficient is a whole count below 2**width, and the sum of a packed polynomial's
    coefficients is its value modulo 2**width - 1.
    """
    live = {d: n for d, n in wounds.items() if d < life_force and n}
    if not live:
        return [1]
    low = min(live)
    most = rolls if low <= 0 else min(rolls, (life_force - 1) // low)
    # A bound on any count: all j-wound sequences (hit**j), or the sequences of at least `low`
    # each adding up to less than life_force (stars and bars) times the most ways to roll one.
    hit, top, bound = sum(live.values()), max(live.values()), 1
    for j in range(1, most + 1):
        extra = life_force - 1 - j * low
        bound = max(bound, min(hit**j, math.comb(extra + j, j) * top**j))
    width = bound.bit_length() + 1
    step = 0
    for d, n in live.items():
        step |= n << ((d - low) * width)
    fold = (1 << width) - 1
    counts, poly = [1], 1
    for j in range(1, most + 1):
        room = life_force - j * low  # coefficients still below life_force, from j * low up
        poly = (poly * step) & ((1 << (room * width)) - 1)
        if not poly:
            break
        counts.append(poly % fold)
    return counts


def fire_odds(outcomes: RollOutcomes, rolls: int, life_force: int) -> FireOdds:
    """Exact chances over ``rolls`` independent D100s (integer counts over 100**rolls).

    ``death``: the target ends at 0 % life force, by the kill rule or by wounds adding up. He
    lives through exactly the sequences of misses and j wounds that add up to less than his
    life force: C(rolls, j) places for the wounds, misses elsewhere.
    """
    total = 100**rolls
    if life_force <= 0:
        dead = total
    else:
        alive = sum(math.comb(rolls, j) * outcomes.miss ** (rolls - j) * n
                    for j, n in enumerate(_alive_counts(outcomes.wounds, life_force, rolls)))
        dead = total - alive
    return FireOdds(
        hit=Fraction(100 - outcomes.miss, 100),
        any_hit=1 - Fraction(outcomes.miss, 100) ** rolls,
        kill_rule=1 - Fraction(100 - outcomes.kill, 100) ** rolls,
        death=Fraction(dead, total),
    )
