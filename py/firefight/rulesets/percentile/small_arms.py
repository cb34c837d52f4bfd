"""percentile SMALL ARMS FIRE: the range in inches, the chance of a hit, the kill rule, the rolls.

The chance is "the basic percentage (BP), the number of rounds fired, and any modifiers", then
the hasty / blind fraction; then one D100 per round (bolt, semi) or per burst (automatic). A hit
at or under the kill number kills; any other hit reads the Casualty Table (``casualty``), its
percent multiplied inside 20" / 10" (not pistols). At 0 % life force the man dies.

Every number cites its line in ``tables/small_arms.json``; where the texts disagree the choice
is a setting, recorded in docs/rules-notes.md ("Percentile small arms").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import chain
from typing import Any, Literal, NamedTuple

from firefight.errors import named, rule_error
from firefight.models import UNIT_METRES, Distance
from firefight.record import Recorder
from firefight.registry import Engagement, Face
from firefight.rulesets.percentile.casualty import SOURCE as CASUALTY_SOURCE
from firefight.rulesets.percentile.casualty import beyond_table, casualty
from firefight.rulesets.percentile.data import tables
from firefight.rulesets.percentile.models import P, PercentileAttackRequest

# The step every chance modifier belongs to (and the one house rules may add to), and its rule:
# "add together the basic percentage (BP), the number of rounds fired, and any modifiers".
STEP = "chance"
STEP_SOURCE: str = tables().small_arms["rounds_fired"]["source"]

# --- distances ------------------------------------------------------------------------------

# The rules measure every range in tabletop inches ("at 30 inches", "less than 20\""): the one
# scale constant of the text. A scene measured in inches is the tabletop itself.
RULES_INCH = "in"
# Inch marks a scene may name that the core's UNIT_METRES does not.
INCH_MARKS = frozenset({'"', "″", "''"})


def range_inches(request: PercentileAttackRequest) -> Fraction:
    """The range in tabletop inches (exact to a billionth): the scene's distance in metres
    (``Distance.metres``, the core's units) over the metres one rules inch stands for.

    On a tabletop (a scene in inches) that is an inch, ``UNIT_METRES["in"]``; any other scene is
    ground, and one rules inch stands for the world's ground scale (``settings.inch_equals``
    ``inch_units``).
    """
    distance, settings = request.range, request.settings
    units = distance.units.strip().lower()
    if units in INCH_MARKS:
        distance, units = Distance(value=distance.value, units=RULES_INCH), RULES_INCH
    if UNIT_METRES.get(units) == UNIT_METRES[RULES_INCH]:
        metres_per_inch = UNIT_METRES[RULES_INCH]
    elif settings.inch_equals is None:
        raise rule_error(
            "percentile", "ground_scale",
            f"the scene is measured in {distance.units!r}, not inches: set the ground scale "
            "(how much ground one tabletop inch stands for)",
            "settings.inch_equals", "required unless the range is in inches (\"in\")",
            refused=False, units=distance.units)
    else:
        metres_per_inch = settings.inch_equals * UNIT_METRES[settings.inch_units]
    inches = distance.metres() / metres_per_inch  # names range.units if the unit is unknown
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
        name, said = named(weapon.name, "weapon")
        raise rule_error("percentile", "rounds_over_magazine",
                         f"{rounds} rounds is more than {name} holds "
                         f"({weapon.magazine} per magazine)",
                         "options.rounds", f"at most the magazine capacity, {weapon.magazine}",
                         rounds=rounds, name=said, magazine=weapon.magazine)
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


def whole_basic_percentage(weapon_class: str, range_in: Fraction) -> int:
    """``floor(basic_percentage(...))`` in whole numbers (issue 27: three Fraction operations
    were a fifth of a new request's shot plan)."""
    row = tables().small_arms["basic_percentage"][weapon_class]
    n, d = range_in.numerator, range_in.denominator
    return ((int(row["from"]) * d - n) * int(row["times"])) // d


# --- the chance of one roll: its modifiers, recorded ------------------------------------------

def _chance(rec: Recorder) -> int:
    return sum(m.value for m in rec.modifiers if m.step == STEP)


def _class_key(weapon_class: str) -> str:
    return f"{P}.opt.weapon_class.choices.{weapon_class}"


def hasty(request: PercentileAttackRequest) -> tuple[bool, bool]:
    """(hasty fire?, decided by the bearing?)"""
    bearing = request.options.bearing_deg
    if request.settings.facing == "ignore":  # the world does not track facing: only by hand
        bearing = None
    outside = bearing is not None and not within_arc(bearing)
    return request.options.hasty_fire or outside, outside


def _target_rows(rec: Recorder, request: PercentileAttackRequest) -> None:
    sa, opts = tables().small_arms, request.options
    if opts.target_prone:
        rec.modifier("mod.prone", sa["prone"]["value"], sa["prone"]["source"], STEP)
    if opts.cover != "none":
        row = sa["cover"][opts.cover]
        rec.modifier(f"mod.cover.{opts.cover}", row["value"], row["source"], STEP)


def _shooter_rows(rec: Recorder, request: PercentileAttackRequest) -> None:
    sa, opts, cls = tables().small_arms, request.options, request.weapon.weapon_class
    if request.attacker.stats.sharpshooter:
        row = sa["sharpshooter"]
        if cls in row["not_for"]:
            rec.note("sharpshooter_smg", row["source"])
        else:
            rec.modifier("mod.sharpshooter", row["value"], row["source"], STEP)
    rifle_rows = [("sighting_in", opts.sighting_turns, "sighting_turns"),
                  ("rested", int(opts.rested), "rested")]
    for key, times, option in rifle_rows:
        if not times:
            continue
        row = sa[key]
        if cls in row["only_for"]:
            rec.modifier(f"mod.{key}", row["value"] * times, row["source"], STEP, n=times)
        else:
            rec.note("rifles_carbines_only", row["source"],
                     what_key=f"{P}.opt.{option}.label", class_key=_class_key(cls))


def _fraction_row(rec: Recorder, request: PercentileAttackRequest) -> None:
    """"1/4 The chance of hitting" (hasty, blind), 1/8 for both: the whole chance is cut.

    A roll is a whole number, so roll <= chance/4 exactly when roll <= floor(chance/4): flooring
    loses nothing (and floor(floor(x)/n) == floor(x/n), so flooring BP first loses nothing).
    """
    sa, opts = tables().small_arms, request.options
    is_hasty, by_bearing = hasty(request)
    if by_bearing:
        rec.note("outside_arc", sa["firing_arc"]["source"],
                 bearing=f"{opts.bearing_deg:g}", half=sa["firing_arc"]["half_angle_deg"])
    fraction = ("hasty_and_blind" if is_hasty and opts.blind_fire else
                "hasty_fire" if is_hasty else "blind_fire" if opts.blind_fire else None)
    if fraction is not None:
        row = sa[fraction]
        before = _chance(rec)
        params: dict[str, Any] = {"factor": f"1/{row['divisor']}", "before": before}
        key, source = f"mod.{fraction}", row["source"]
        if by_bearing and not opts.hasty_fire:
            # Issue 15: facing made it hasty fire, not the dialog's box: the row says why.
            key, source = f"{key}_arc", f"{sa['firing_arc']['source']}; {source}"
            params.update(bearing=f"{opts.bearing_deg:g}", half=sa["firing_arc"]["half_angle_deg"])
        rec.modifier(key, before // row["divisor"] - before, source, STEP, **params)


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
    raise rule_error("percentile", "weapon_class", f"unknown weapon class {weapon_class!r}",
                     "weapon.weapon_class", "no kill rule for this class", refused=False,
                     weapon_class=weapon_class)


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


# --- the shot: everything known before the dice, shared by odds and resolve -------------------

@dataclass(frozen=True)
class Shot:
    range_in: Fraction
    plan: FirePlan
    bp: int
    chance: int
    kill_at: int
    kill_source: str
    multiplier: int
    multiplier_source: str


def plan_shot(request: PercentileAttackRequest, rec: Recorder) -> Shot:
    """BP + rounds fired + modifiers (house rules' too), then the hasty / blind fraction: the
    chance of one roll, its modifiers and notes recorded in ``rec`` (the odds pass one that
    rolls nothing)."""
    sa, cls = tables().small_arms, request.weapon.weapon_class
    range_in = range_inches(request)
    plan = fire_plan(request)
    bp = whole_basic_percentage(cls, range_in)
    rec.modifier(f"mod.bp.{cls}", bp, sa["basic_percentage"][cls]["source"], STEP,
                 range=f"{float(range_in):g}")
    rec.modifier("mod.rounds", plan.rounds_per_roll, sa["rounds_fired"]["source"], STEP,
                 n=plan.rounds_per_roll)
    _target_rows(rec, request)
    _shooter_rows(rec, request)
    rec.house(STEP, request)  # "and any modifiers": before the fraction cuts the whole chance
    _fraction_row(rec, request)
    kill, kill_source = kill_at(cls, plan.rounds_per_roll, burst=plan.burst,
                                rule=request.settings.kill_rule)
    multiplier, multiplier_source = damage_multiplier(cls, range_in,
                                                      request.settings.range_damage)
    return Shot(range_in, plan, bp, _chance(rec), kill, kill_source, multiplier,
                multiplier_source)


class RollResult(NamedTuple):  # a tuple: the odds build one for each of the 100 rolls
    roll: int
    hit: bool
    kill: bool
    table_percent: int = 0
    damage: int = 0


@lru_cache(maxsize=4096)  # pure: a burst of 60 rounds reads the same few again and again
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


# --- resolve ----------------------------------------------------------------------------------

def _roll_d100(rec: Recorder, label: str, which: dict[str, str]) -> tuple[int, int]:
    """Two d10, tens and ones: (the D100 read, index of the tens die)."""
    first, roll = rec.next_die, rec.roller.roll
    tens = roll(10, purpose=f"to-hit tens, {label}", side="attacker",
                purpose_key=f"{P}.roll.tens", purpose_params=which).results[0]
    ones = roll(10, purpose=f"to-hit ones, {label}", side="attacker",
                purpose_key=f"{P}.roll.ones", purpose_params=which).results[0]
    return d100(tens, ones), first


def _shot_notes(rec: Recorder, request: PercentileAttackRequest, shot: Shot) -> None:
    plan, options, weapon = shot.plan, request.options, request.weapon
    if not plan.declared:
        rec.note("whole_magazine", "percentile Small Arms, \"The number of rounds being fired "
                 "must be specified before firing or the entire clip or magazine capacity is "
                 "assumed to be fired\"", n=plan.rounds_fired)
    if plan.wasted:
        rec.note("climb", tables().small_arms["burst_limit"]["source"], wasted=plan.wasted,
                 limit=plan.rounds_per_roll)
    if options.single_shots and weapon.action != "automatic":
        rec.note("single_shots_ignored")
    if beyond_table(plan.rounds_per_roll):
        rec.note("beyond_table", CASUALTY_SOURCE, n=plan.rounds_per_roll)
    if shot.multiplier > 1:
        rec.note("range_damage", shot.multiplier_source, x=shot.multiplier,
                 range=f"{float(shot.range_in):g}")
    elif weapon.weapon_class == "pistol" and damage_multiplier(
            "rifle", shot.range_in, request.settings.range_damage)[0] > 1:
        rec.note("pistol_no_multiplier", "percentile Small Arms, \"EXCEPT FOR PISTOLS\"")
    if shot.chance <= 0:
        rec.note("no_chance", chance=shot.chance)


def resolve_attack(request: PercentileAttackRequest, rec: Recorder) -> None:
    shot = rec.once("plan_shot", lambda r: plan_shot(request, r))  # nothing but the request
    plan, chance = shot.plan, shot.chance
    life_before = life = request.target.stats.life_force
    rec.step(STEP, kind="info", numbers={"chance": chance, "rolls": plan.rolls,
                                         "rounds": plan.rounds_per_roll, "kill_at": shot.kill_at},
             outcome=f"outcome.{'chance' if shot.kill_at else 'chance_no_kill'}",
             source=shot.kill_source)
    hits = kills = damage_total = 0
    for i in range(plan.rolls):
        which = {"which_key": f"{P}.roll.burst"} if plan.burst else {
            "which_key": f"{P}.roll.round", "n": str(i + 1)}
        roll, first = _roll_d100(rec, "burst" if plan.burst else f"round {i + 1}", which)
        r = roll_result(roll, chance, shot.kill_at, plan.rounds_per_roll, shot.multiplier)
        numbers: dict[str, Any] = {"roll": roll, "chance": chance, "kill_at": shot.kill_at,
                                   "rounds": plan.rounds_per_roll}
        source = ""
        if r.kill:
            kills += 1
            life = 0
            outcome = "kill"
            source = shot.kill_source
        elif r.hit:
            damage_total += r.damage
            life = max(0, life - r.damage)
            outcome = "wound" if shot.multiplier == 1 else "wound_multiplied"
            numbers.update(table_percent=r.table_percent, multiplier=shot.multiplier,
                           damage=r.damage)
            source = casualty(roll, plan.rounds_per_roll).source
        else:
            outcome = "miss"
        hits += r.hit
        numbers["life_after"] = life
        # The roll is read against the chance step's total (numbers.chance); it has no
        # modifiers of its own.
        rec.step("burst" if plan.burst else f"round_{i + 1}",
                 "burst" if plan.burst else "round", kind="percentile", dice=[first, first + 1],
                 numbers=numbers, success=r.hit, outcome=f"outcome.roll.{outcome}",
                 source=source, n=i + 1, of=plan.rolls)

    state = ("already_dead" if life_before == 0 else "dead" if life == 0 else
             "wounded" if hits else "miss")
    rec.outcome = {
        "hit": hits > 0, "hits": hits, "kills": kills, "rolls": plan.rolls,
        "chance": chance, "damage": damage_total, "life_before": life_before,
        "life_after": life, "life_loss": life_before - life, "state": state,
        "rounds_fired": plan.rounds_fired, "rounds_wasted": plan.wasted,
        "summary_key": f"{P}.outcome.{state}",
    }
    if life != life_before:
        rec.effect("life_force", delta=life - life_before, loss=life_before - life,
                   before=life_before, after=life)
    if state == "dead":
        rec.effect("state", value="dead", label="effect.dead")
    _shot_notes(rec, request, shot)
    rec.card("title", attacker=request.attacker.name, target=request.target.name,
             weapon=request.weapon.name, rounds=plan.rounds_fired,
             range=f"{float(shot.range_in):g}",
             mode_key=f"{P}.mode.{'burst' if plan.burst else 'single'}")



# --- the balance lab --------------------------------------------------------------------------

def engage_attack(request: PercentileAttackRequest) -> Callable[[Face], Engagement]:
    """``resolve_attack`` for the balance lab (``Action.engage``): the same shot plan and
    ``roll_result`` of each D100, only what the lab counts (hit, state, effects)."""
    shot = plan_shot(request, Recorder.for_odds("percentile"))
    rolls, life_before = shot.plan.rolls, request.target.stats.life_force
    # What each D100 does, by its two d10 faces (tens * 11 + ones).
    reads: list[RollResult | None] = [None] * 121
    for tens in range(1, 11):
        for ones in range(1, 11):
            reads[tens * 11 + ones] = roll_result(d100(tens, ones), shot.chance, shot.kill_at,
                                                  shot.plan.rounds_per_roll, shot.multiplier)

    # A hit's (kill, damage) by the faces, None for a miss: plain tuples, read at C speed.
    hits = [None if r is None or not r.hit else (r.kill, r.damage) for r in reads]
    ends: dict[tuple[int, bool], Engagement] = {}  # what the lab counts, by (life left, hit)

    def run(face: Face) -> Engagement:
        life, hit = life_before, False
        for _ in range(rolls):
            r = hits[face(10) * 11 + face(10)]  # the tens die first, as _roll_d100 rolls
            if r is not None:
                hit = True
                life = 0 if r[0] else max(0, life - r[1])
                if life == 0:
                    break  # the man is dead: the rolls left change nothing counted
        found = ends.get((life, hit))
        if found is None:
            found = ends[life, hit] = end(life, hit)
        return found

    def end(life: int, hit: bool) -> Engagement:
        state = ("already_dead" if life_before == 0 else "dead" if life == 0 else
                 "wounded" if hit else "miss")
        effects: tuple[tuple[str, str | None], ...] = (
            (("life_force", None),) if life != life_before else ())
        if state == "dead":
            effects += (("state", "dead"),)
        # The life force left (the result's ``life_after``): all the shot leaves on the target.
        return (("hit", hit), ("state", state), ("life_after", life)), effects

    # What each roll takes off the target's life force, by its two faces less one (tens * 11
    # + ones; every die of an engagement is a d10), None for a miss: a kill takes more than
    # all of it.
    takes = [None if r is None else life_before + 1 if r[0] else r[1] for r in hits[12:]]

    def block() -> list[int | None]:
        """The next BLOCK rolls, from 2 * BLOCK uniforms, tens first (issue 27: a call of
        ``face`` per die was most of a burst's engagement)."""
        return [takes[int(draw() * 10) * 11 + int(draw() * 10)] for _ in range(BLOCK)]

    draw: Callable[[], float] = float

    def many(n: int, uniforms: Callable[[], float]) -> list[Engagement]:
        """``[run(face) for _ in range(n)]`` with ``face(faces) = int(uniforms() * faces) + 1``
        (``sim``): the same engagements from the same uniforms, read a block of rolls at a
        time (the last block's unread uniforms are drawn and left)."""
        nonlocal draw
        draw = uniforms
        roll = chain.from_iterable(iter(block, None)).__next__
        out = []
        for _ in range(n):
            life, hit = life_before, False
            for _ in range(rolls):
                r = roll()
                if r is not None:
                    hit = True
                    life -= r
                    if life <= 0:
                        life = 0
                        break  # dead: as ``run``
            found = ends.get((life, hit))
            if found is None:
                found = ends[life, hit] = end(life, hit)
            out.append(found)
        return out

    run.many = many  # type: ignore[attr-defined]
    run.whole = True  # type: ignore[attr-defined]  # an engagement says all (``sim.shots``)
    return run


# Rolls drawn at a time by the lab's ``many``.
BLOCK = 512
