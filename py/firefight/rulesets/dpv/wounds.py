"""2300ad WOUNDING: hit location and potential wound, the wounding table, the wound effects.

A hit has a potential (kill / serious / light, from the target-hits roll), a wound type
(normal / blunt / stun) and a DPV after armor. DPV 1 or more reads the first column; below 1,
1D10 at or under DPV x 10 reads the second column, over it the third.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from firefight.record import Recorder, num
from firefight.rulesets.dpv.data import Ratio, exact, ratio, tables
from firefight.rulesets.dpv.healing import CRITICAL_HOURS, SRC_POINTS
from firefight.rulesets.dpv.models import LOCATIONS, DpvCombatant, DpvSettings, DpvStats

SRC_WOUNDING = "2300ad WOUNDING"
SRC_HITS = "2300ad TARGET HITS"
SRC_OPTIONAL = "2300ad OPTIONAL WOUND RULES"
SRC_EFFECTS = "2300ad Wound Effects"
SRC_ARMOR = "2300ad ARMOR EFFECTS"
SRC_NPC = "2300ad NON-PLAYER CHARACTERS"


class Wound(NamedTuple):  # a tuple: made for every hit and every figure's total (issue 17)
    location: str
    potential: str
    column: int | None
    kill: bool = False
    shock: int = 0
    stun: int = 0
    light: int = 0
    knocked_down: bool = False

    @property
    def tier(self) -> str:
        """The gravest effect, for odds and summaries."""
        for name, present in (("kill", self.kill), ("shock", self.shock), ("stun", self.stun),
                              ("light_wound", self.light), ("knocked_down", self.knocked_down)):
            if present:
                return name
        return "none"


def location_potential(first: int, second: int | None, rule: str) -> tuple[str, str, int]:
    """(location, potential, severity throw). Diagram: one 1D10 gives both. Optional rule: the
    second 1D10 plus the location's modifier gives the potential (bands open at both ends)."""
    t = tables()
    location = t.locations.lookup(first)
    if rule == "diagram" or second is None:
        return location, t.potential.lookup(first), first
    severity = second + int(t.target_hits["severity_modifiers"][location])
    return location, t.potential.lookup(severity), severity


def called_first_face(location: str) -> int:
    """A called location stands for the lowest face of its band (abdomen: 3)."""
    band = next(b for b in tables().locations.bands if b.value == location)
    return band.lo or 1


def armor_on(target: DpvCombatant, location: str) -> Fraction:
    """2300ad ARMOR EFFECTS: the armor values worn over a location, added up."""
    pieces = [exact(a.value) for a in target.armor if location in a.locations]
    if len(pieces) < 2:  # the usual case: no sum of Fractions to make
        return pieces[0] if pieces else NONE
    return sum(pieces, NONE)


NONE = Fraction(0)  # no armor (a Fraction is immutable: one serves every location)
UNARMORED = tuple(NONE for _ in LOCATIONS)  # the armor profile of a target wearing none
UNARMORED_RATIOS = tuple((0, 1) for _ in LOCATIONS)


def column_for(dpv: Fraction, roll: int | None, settings: DpvSettings) -> int | None:
    """The WOUNDING column: 0 for DPV 1+, else 1 if 1D10 <= DPV x 10, else 2; None: no effect."""
    if dpv >= 1:
        return 0
    if dpv <= 0 and settings.zero_dpv == "no_effect":
        return None
    return 1 if roll is not None and roll <= dpv * 10 else 2


def cell(potential: str, wound_type: str, column: int) -> dict[str, Any]:
    found: dict[str, Any] = tables().wounding["rows"][potential][wound_type][column]
    return found


def amount(rule: str, dpv: Fraction) -> int:
    """"DPV x" counts whole DPV (fractions dropped, at least 1); "4 Stun (or DPV x Stun, if
    more)" is at least 4."""
    if rule == "dpv":
        return max(1, math.floor(dpv))
    if rule == "dpv_min_4":
        return max(4, math.floor(dpv))
    return 1


def wound_from(location: str, potential: str, wound_type: str, column: int | None,
               dpv: Fraction) -> Wound:
    if column is None:
        return Wound(location, potential, None)
    c = cell(potential, wound_type, column)
    n = amount(c.get("amount", "one"), dpv)
    kd = bool(c.get("kd"))
    effect = c["effect"]
    if effect == "kill":
        return Wound(location, potential, column, kill=True)
    points = {"shock": 0, "stun": 0, "light": 0}
    if effect == "shock" and c.get("odd_shock_is_stun"):
        # the WOUNDING note: every odd Shock (the first, third, fifth...) is a Stun instead
        points.update(shock=n // 2, stun=n - n // 2)
    elif effect in ("shock", "stun"):
        points[effect] = n
    elif effect == "light_wound":
        points["light"] = n
    return Wound(location, potential, column, shock=points["shock"], stun=points["stun"],
                 light=points["light"], knocked_down=kd)


def resolve_hit(rec: Recorder, target: DpvCombatant, dpv: Fraction, wound_type: str,
                settings: DpvSettings, *, hit: int, called: str | None = None,
                ignore_armor: bool = False, side: str = "target") -> Wound:
    """One hit: location and potential, armor on the location, the wounding column, the cell."""
    dice: list[int] = []
    if called is not None:
        first = called_first_face(called)
    else:
        first, i = rec.roll(10, purpose=f"hit location, hit {hit}", side=side,
                             purpose_key="roll.hit_location", purpose_params={"hit": str(hit)})
        dice.append(i)
    second = None
    if settings.location_rule == "optional_severity":
        second, i = rec.roll(10, purpose=f"wound severity, hit {hit}", side=side,
                             purpose_key="roll.wound_severity", purpose_params={"hit": str(hit)})
        dice.append(i)
    location, potential, severity = location_potential(first, second, settings.location_rule)
    armor = NONE if ignore_armor else armor_on(target, location)
    remaining = dpv - armor if armor else dpv
    roll = None
    if 0 < remaining < 1 or (remaining <= 0 and settings.zero_dpv == "third_column"):
        roll, i = rec.roll(10, purpose=f"DPV x 10, hit {hit}", side=side,
                             purpose_key="roll.dpv_x10", purpose_params={"hit": str(hit)})
        dice.append(i)
    column = column_for(remaining, roll, settings)
    wound = wound_from(location, potential, wound_type, column, remaining)
    rec.step(f"wound_{hit}", "wound", kind="table", dice=dice,
             numbers={"hit": hit, "location": location, "potential": potential,
                        "severity_roll": severity, "dpv": num(dpv), "armor": num(armor),
                        "dpv_after_armor": num(remaining), "column": column,
                        "column_roll": roll, "wound_type": wound_type, "kill": wound.kill,
                        "shock": wound.shock, "stun": wound.stun, "light": wound.light,
                        "knocked_down": wound.knocked_down},
             outcome=f"wound.{wound.tier}",
             source=f"{SRC_HITS}; {SRC_ARMOR}; {SRC_WOUNDING}",
             hit=hit, location_key=f"FIREFIGHT.dpv.location.{location}",
             potential_key=f"FIREFIGHT.dpv.potential.{potential}")
    return wound


def npc_incapacitation(target: DpvCombatant) -> int | None:
    stats = target.stats
    if stats.incapacitation is not None:
        return stats.incapacitation
    if stats.experience is None:
        return None
    value: int = tables().npcs["experience"][stats.experience]["incapacitation"]
    return value


def npc_coolness(target: DpvCombatant) -> int | None:
    stats = target.stats
    if stats.coolness is not None:
        return stats.coolness
    if stats.experience is None:
        return None
    value: int = tables().npcs["experience"][stats.experience]["coolness"]
    return value


def apply_wounds(rec: Recorder, target: DpvCombatant, wounds: list[Wound], *,
                 side: str = "target", **who: Any) -> str:
    """The effects of this action's wounds on one figure; returns its condition."""
    who = {**who, "target": side}
    if not wounds:
        return "unhurt"
    kill = next((w for w in wounds if w.kill), None)
    if kill is not None:
        rec.effect("state", value="dead", label="effect.dead", location=kill.location,
                   resuscitable=kill.location != "head", source=SRC_EFFECTS, **who)
        return "dead"
    total = Wound("", "", None, shock=sum(w.shock for w in wounds),
                  stun=sum(w.stun for w in wounds), light=sum(w.light for w in wounds),
                  knocked_down=any(w.knocked_down for w in wounds))
    _point_effects(rec, total, who)
    found = condition(target, points_of(total))
    if found != "unhurt":
        _threshold_effects(rec, target, found, who)
    return found


class Points(NamedTuple):
    """What one action's wounds add up to on a figure (all its condition needs of them)."""

    kill: bool = False
    shock: int = 0
    stun: int = 0
    light: int = 0
    knocked_down: bool = False


KILLED = Points(kill=True)
NO_POINTS = Points()
# The conditions an action leaves a figure in (``apply_wounds``), mildest first: the order the
# gravest of two cards is taken in (an NPC past both thresholds is unconscious: ``condition``).
CONDITIONS = ("unhurt", "wounded", "incapacitated", "unconscious", "dead")


def added(a: Points, b: Points) -> Points:
    """Two hits' points together, as ``apply_wounds`` adds them (a kill is a kill)."""
    if a.kill or b.kill:
        return KILLED
    return Points(False, a.shock + b.shock, a.stun + b.stun, a.light + b.light,
                  a.knocked_down or b.knocked_down)


def points_of(wound: Wound) -> Points:
    if wound.kill:
        return KILLED
    return Points(False, wound.shock, wound.stun, wound.light, wound.knocked_down)


def condition(target: DpvCombatant, points: Points) -> str:
    """The figure's condition after this action's wounds (2300ad Wound Effects; NON-PLAYER
    CHARACTERS): what ``apply_wounds`` returns, without its effects (the odds' reading)."""
    if points.kill:
        return "dead"
    if not (points.shock or points.stun or points.light or points.knocked_down):
        return "unhurt"
    stats = target.stats
    total_shock, total_stun = stats.shock + points.shock, stats.stun + points.stun
    if target.pc:
        return _pc_condition(stats, total_shock, total_stun)
    npcs = tables().npcs
    if total_shock >= npcs["npc_unconscious_shock"] or total_stun >= npcs["npc_unconscious_stun"]:
        return "unconscious"
    incap = npc_incapacitation(target)
    out = incap is not None and stats.light_wounds + points.light >= incap
    return "incapacitated" if out else "wounded"


def _point_effects(rec: Recorder, total: Wound, who: dict[str, Any]) -> None:
    npcs = tables().npcs
    shock, stun, light, knocked = total.shock, total.stun, total.light, total.knocked_down
    if shock:
        rec.effect("shock", delta=shock, n=shock, **who)
        rec.effect("critical_points", value="start", label="effect.critical_points",
                   hours=list(CRITICAL_HOURS), source=SRC_POINTS, **who)
    if stun:
        rec.effect("stun", delta=stun, n=stun, **who)
    if light:
        rec.effect("light_wounds", delta=light, label="effect.light_wound", n=light, **who)
        # "immobilized for the rest of the combat turn": the actor's flag, cleared by
        # ``combat_turn`` at the end of the turn.
        rec.effect("immobilized", value=True, label="effect.immobilized", **who)
    if knocked:
        rec.effect("state", value="knocked_down", label="effect.knocked_down", **who)
    if shock or stun:  # "Dazed remains ... turns equal to the total of shock and stun points"
        rec.effect("dazed_turns", delta=shock + stun, label="effect.dazed", turns=shock + stun,
                   **who)
    elif knocked:  # "If no shock or stun points, dazed applies only until the end of the turn"
        rec.effect("dazed_turn_end", value=True, label="effect.dazed_turn", **who)
    loss = -(npcs["initiative_per_shock_or_stun"] * (shock + stun)
             + npcs["initiative_per_light_wound"] * light)
    if loss:  # the actor's initiative_loss; ``combat_turn`` reads the initiative from it
        rec.effect("initiative_loss", delta=loss, label="effect.initiative",
                   floor=npcs["initiative_floor"], n=loss, **who)


def _pc_condition(stats: DpvStats, total_shock: int, total_stun: int) -> str:
    """A PC dies at its life level of shock, falls unconscious at its consciousness level of
    shock and stun (2300ad Wound Effects)."""
    if stats.life_level is not None and total_shock >= stats.life_level:
        return "dead"
    if (stats.consciousness_level is not None
            and total_shock + total_stun >= stats.consciousness_level):
        return "unconscious"
    return "wounded"


def _threshold_effects(rec: Recorder, target: DpvCombatant, found: str, who: dict[str, Any]
                       ) -> None:
    """The state a threshold crossed puts the figure in (``condition`` found which)."""
    stats = target.stats
    if target.pc:
        if found == "dead":
            rec.effect("state", value="dead", label="effect.dead_shock", cause="shock", **who)
            return
        if stats.consciousness_level is None or stats.life_level is None:
            rec.note("pc_levels_missing", SRC_EFFECTS)
        if found == "unconscious":
            rec.effect("state", value="unconscious", label="effect.unconscious", **who)
        return
    if found in ("unconscious", "incapacitated"):
        rec.effect("state", value=found, label=f"effect.{found}", source=SRC_NPC, **who)


# --- exact odds of one hit -------------------------------------------------------------------

def hit_distribution(target: DpvCombatant, dpv: Fraction, wound_type: str,
                     settings: DpvSettings, called: str | None = None) -> dict[str, Fraction]:
    """Exact chances of each potential and each gravest effect of one hit (all dice
    enumerated: location, severity, the DPV x 10 throw). Cached by what decides it: the
    armor on each location, the DPV, the wound type and the two settings (issue 17: odds
    are computed on every option change)."""
    return dict(_hit_distribution(_ratios(armor_profile(target)), ratio(dpv), wound_type,
                                  location_rule=settings.location_rule,
                                  zero_dpv=settings.zero_dpv, called=called))


def hit_key(target: DpvCombatant, dpv: Fraction, wound_type: str, settings: DpvSettings,
            called: str | None = None) -> tuple[tuple[str, Ratio], ...]:
    """``hit_distribution`` as a cache key: its items sorted, each chance as (numerator,
    denominator) (the aimed-fire odds' figures are cached by it, ``fire._shot_figures``)."""
    return _hit_key(_ratios(armor_profile(target)), ratio(dpv), wound_type,
                    location_rule=settings.location_rule, zero_dpv=settings.zero_dpv,
                    called=called)


@lru_cache(maxsize=1024)
def _hit_key(armor_ratios: tuple[Ratio, ...], dpv_ratio: Ratio, wound_type: str, *,
             location_rule: str, zero_dpv: str, called: str | None
             ) -> tuple[tuple[str, Ratio], ...]:
    found = _hit_distribution(armor_ratios, dpv_ratio, wound_type, location_rule=location_rule,
                              zero_dpv=zero_dpv, called=called)
    return tuple((k, ratio(v)) for k, v in sorted(found.items()))


def armor_profile(target: DpvCombatant) -> tuple[Fraction, ...]:
    """The armor on each location (LOCATIONS order): all a hit's chances need of a target."""
    if not target.armor:
        return UNARMORED
    return tuple(armor_on(target, loc) for loc in LOCATIONS)


def profile_distribution(armor: tuple[Fraction, ...], dpv: Fraction, wound_type: str,
                         settings: DpvSettings) -> dict[str, Fraction]:
    """``hit_distribution`` of a target given by its ``armor_profile`` (cached)."""
    return _hit_distribution(_ratios(armor), ratio(dpv), wound_type,
                             location_rule=settings.location_rule, zero_dpv=settings.zero_dpv,
                             called=None)


def _ratios(armor: tuple[Fraction, ...]) -> tuple[Ratio, ...]:
    """An armor profile as a cache key: a Fraction's hash and equality are Python code (issue
    27: hashing the key's Fractions was a twentieth of a new request's odds)."""
    if armor is UNARMORED:
        return UNARMORED_RATIOS
    return tuple([(a.numerator, a.denominator) for a in armor])


@lru_cache(maxsize=1024)
def _hit_distribution(armor_ratios: tuple[Ratio, ...], dpv_ratio: Ratio, wound_type: str, *,
                      location_rule: str, zero_dpv: str, called: str | None
                      ) -> dict[str, Fraction]:
    armor, dpv = tuple(Fraction(*a) for a in armor_ratios), Fraction(*dpv_ratio)
    out: dict[str, Fraction] = {}
    for potential, wound, weight in _hit_cases(armor, dpv, wound_type, location_rule=location_rule,
                                               zero_dpv=zero_dpv, called=called):
        out[f"potential_{potential}"] = out.get(f"potential_{potential}", Fraction(0)) + weight
        out[wound.tier] = out.get(wound.tier, Fraction(0)) + weight
    return out


def _hit_cases(armor: tuple[Fraction, ...], dpv: Fraction, wound_type: str, *,
               location_rule: str, zero_dpv: str, called: str | None
               ) -> list[tuple[str, Wound, Fraction]]:
    """Every way one hit goes (``resolve_hit``'s dice: location, severity, the DPV x 10
    throw): (potential, wound, chance); a potential is counted once per location and severity."""
    settings = DpvSettings.model_validate({"location_rule": location_rule, "zero_dpv": zero_dpv})
    on = dict(zip(LOCATIONS, armor, strict=True))
    out: list[tuple[str, Wound, Fraction]] = []
    firsts = [called_first_face(called)] if called else list(range(1, 11))
    seconds: list[int | None] = (list(range(1, 11)) if settings.location_rule ==
                                 "optional_severity" else [None])
    weight = Fraction(1, len(firsts) * len(seconds))
    for first in firsts:
        for second in seconds:
            location, potential, _ = location_potential(first, second, settings.location_rule)
            remaining = dpv - on[location]
            for roll, w in _column_rolls(remaining, settings):
                wound = wound_from(location, potential, wound_type,
                                   column_for(remaining, roll, settings), remaining)
                out.append((potential, wound, weight * w))
    return out


@lru_cache(maxsize=1024)
def hit_points(armor: tuple[Fraction, ...], dpv: Fraction, wound_type: str, *,
               location_rule: str, zero_dpv: str, called: str | None = None
               ) -> tuple[tuple[Points, Fraction], ...]:
    """Exact chances of the points one hit adds (all its dice enumerated), for the odds of a
    figure's condition (``condition``) after several hits."""
    out: dict[Points, Fraction] = {}
    for _, wound, weight in _hit_cases(armor, dpv, wound_type, location_rule=location_rule,
                                       zero_dpv=zero_dpv, called=called):
        points = points_of(wound)
        out[points] = out.get(points, Fraction(0)) + weight
    return tuple(out.items())


def points_after(hits: dict[int, Fraction], per_hit: tuple[tuple[Points, Fraction], ...],
                 start: dict[Points, Fraction] | None = None) -> dict[Points, Fraction]:
    """The points of a number of independent hits (``hits``: how many -> its chance), added to
    ``start`` (the points of other hits of the same action, none by default)."""
    hits = {n: p for n, p in hits.items() if p}
    current = dict(start or {NO_POINTS: Fraction(1)})
    out: dict[Points, Fraction] = {}
    most = max(hits, default=0)
    for n in range(most + 1):
        if hits.get(n):
            for points, p in current.items():
                out[points] = out.get(points, Fraction(0)) + p * hits[n]
        if n == most:
            break
        after: dict[Points, Fraction] = {}
        for points, p in current.items():
            for more, q in per_hit:
                key = added(points, more)
                after[key] = after.get(key, Fraction(0)) + p * q
        current = after
    return out


def _column_rolls(dpv: Fraction, settings: DpvSettings) -> list[tuple[int | None, Fraction]]:
    if dpv >= 1 or (dpv <= 0 and settings.zero_dpv == "no_effect"):
        return [(None, Fraction(1))]
    return [(r, Fraction(1, 10)) for r in range(1, 11)]
