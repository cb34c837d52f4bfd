"""2300ad FIRE COMBAT: range bands, aimed fire, area fire, ducking, damage at range, cover."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from firefight.dice import MAX_DICE
from firefight.errors import named, rule_error
from firefight.record import Recorder, dump_recorded, num
from firefight.rulesets.dpv import cards, explosives, odds, tasks, wounds
from firefight.rulesets.dpv.data import Ratio, armor_value, chance, exact, ratio, tables
from firefight.rulesets.dpv.models import (
    AreaFireRequest,
    AttackRequest,
    Cover,
    DpvCombatant,
    DpvSettings,
    DpvWeapon,
    Figure,
    Vehicle,
)

SRC_RANGES = "2300ad RANGES"
SRC_DAMAGE = "2300ad FIRE COMBAT, \"Damage\""
SRC_AFV = "2300ad FIRE COMBAT, \"Area Fire Value (AFV)\""
SRC_AREA = "2300ad FIRE COMBAT, \"Area Fire\""
SRC_MOVING = "2300ad FIRE COMBAT, \"Moving Area Fire\""
SRC_DUCK = "2300ad FIRE COMBAT, \"Ducking\""
SRC_ROF = "2300ad FIRE COMBAT, \"Rate of Fire\""
# 2300ad FIRE COMBAT, "Rate of Fire": ROF shots of aimed fire a round "at targets with[in a]
# 30 degree arc" (docs/rules-notes.md, "Several targets in one shot").
AIMED_ARC_DEG = 30
SRC_AIMED = "2300ad COMBAT TASKS, \"To hit a target with aimed fire\""
SRC_COVER = "2300ad ARMOR VALUES; BREACHING BARRIERS"
# Dice of one area-fire figure at most: its duck throw and its 1D10 ("Area Fire", "Ducking"),
# then per hit the location, the severity and the DPV x 10 throw (``wounds.resolve_hit``).
AREA_DICE_PER_FIGURE = 2
AREA_DICE_PER_HIT = 3


def bands() -> list[str]:
    found: list[str] = tables().combat["bands"]
    return found


def range_band(range_m: float, effective_m: float) -> str | None:
    """2300ad RANGES: close <= half effective, effective, long <= 2x, extreme <= 4x; None
    beyond extreme."""
    limits = tables().combat["band_limit_x_effective"]
    r, e = exact(range_m), exact(effective_m)
    for band in bands():
        limit = exact(limits[band])
        # range <= effective x limit, exactly, in whole numbers (issue 27: three Fraction
        # operations a band were a twentieth of a new request's resolve)
        if (r.numerator * e.denominator * limit.denominator
                <= e.numerator * limit.numerator * r.denominator):
            return band
    return None


def band_or_refuse(range_m: float, weapon: DpvWeapon) -> str:
    band = range_band(range_m, weapon.effective_range_m)
    if band is None:
        limit, (name, said) = weapon.effective_range_m * 4, named(weapon.name, "weaponDative")
        raise rule_error("dpv", "beyond_extreme",
                         f"{range_m:g} m is beyond extreme range of {name} ({limit:g} m)",
                         "range", f"at most {limit:g} m (4 x effective)",
                         range=f"{range_m:g}", name=said, limit=f"{limit:g}")
    return band


def dpv_at_range(weapon: DpvWeapon, band: str) -> tuple[Fraction, Fraction]:
    """2300ad FIRE COMBAT, "Damage": doubled at close, halved at extreme; shotguns halve at
    long range too. Returns (DPV, factor)."""
    return _dpv_at(weapon.dpv, weapon.kind, band)


@lru_cache(maxsize=1024, typed=True)  # a pure reading of the weapon's DPV and the static table
def _dpv_at(dpv: float, kind: str, band: str) -> tuple[Fraction, Fraction]:
    table = tables().combat["dpv_factor"]
    factor = exact(table.get(kind, table["default"])[band])
    return exact(dpv) * factor, factor


def cover_armor(cover: Cover | None) -> Fraction:
    """Cover stops armor value (per cm) x thickness of DPV (the BREACHING BARRIERS rule)."""
    if cover is None:
        return wounds.NONE
    return armor_value(cover.material) * exact(cover.thickness_cm)


def past_cover(dpv: Fraction, cover: Fraction) -> Fraction:
    """The DPV the cover lets through, never below 0 (a DPV is never below 0: without cover,
    the DPV itself)."""
    return dpv if cover is wounds.NONE else max(wounds.NONE, dpv - cover)


def _damage_step(rec: Recorder, weapon: DpvWeapon, band: str, cover: Fraction) -> Fraction:
    dpv, factor = dpv_at_range(weapon, band)
    after = past_cover(dpv, cover)
    rec.step("damage", "damage", kind="info",
             numbers={"weapon_dpv": weapon.dpv, "band": band, "factor": num(factor),
                      "dpv": num(dpv), "cover": num(cover), "dpv_after_cover": num(after)},
             outcome="damage.dpv", source=f"{SRC_DAMAGE}; {SRC_COVER}",
             band_key=f"FIREFIGHT.dpv.band.{band}")
    return after


# --- aimed fire ----------------------------------------------------------------------------

def aimed_spec(rec: Recorder, request: AttackRequest, band: str) -> tasks.TaskSpec:
    """The aimed-fire task: Routine at close, one level harder per band beyond, one easier
    against a stationary target in the open; a 1 is a miss, never a fumble. The to-hit
    ledger: the odds and the roll both build it, house rules' modifiers included."""
    options, settings = request.options, request.settings
    preset_name = {"aimed": "aimed_fire", "indirect": "indirect_fire",
                   "laser_designation": "laser_designation"}[options.fire]
    preset = tables().presets[preset_name]
    if options.fire == "aimed":
        levels = bands().index(band)
        if levels:
            rec.note("range_harder", SRC_AIMED, levels=levels,
                     band_key=f"FIREFIGHT.dpv.band.{band}")
        if options.stationary_in_open:
            levels -= 1
            rec.note("stationary", SRC_AIMED)
        difficulty = tasks.shift(preset["difficulty"], levels, settings)
    else:
        difficulty = tasks.shift(preset["difficulty"], 0, settings)
    skill = tasks.skill_level(request.attacker, preset["skills"], preset.get("skill_rule", "only"))
    dm = 0
    if skill:
        dm += rec.modifier("mod.skill", skill, preset["source"], "to_hit", skill=skill).value
    if options.dm:
        dm += rec.modifier("mod.referee_dm", options.dm, "2300ad SPECIAL CASES", "to_hit").value
    dm += sum(m.value for m in rec.house("to_hit", request))
    return tasks.TaskSpec(difficulty, dm, settings.task_dice,
                          fumbles=preset.get("fumble", True),
                          failure_table=preset.get("failure_table", True))


def check_shots(request: AttackRequest) -> None:
    if request.weapon.homing is not None:  # MISSILE PROCEDURE: not an aimed-fire task
        name, said = named(request.weapon.name, "weapon")
        raise rule_error("dpv", "missile_fired",
                         f"{name} is a missile: fire it with the missile action",
                         "weapon.homing", "a missile hits on 1D10 under homing - evasive",
                         name=said)
    shots, rof = request.options.shots, request.weapon.rof
    if shots > rof:
        raise rule_error("dpv", "shots_over_rof",
                         f"{shots} shots exceed the rate of fire ({rof})",
                         "options.shots", f"at most the weapon's ROF, {rof}", shots=shots, rof=rof)


def _cover(request: AttackRequest) -> Fraction:
    """The cover the shooter declared: its material and thickness (none when left out)."""
    options = request.options
    if options.cover_material is None or options.cover_thickness_cm <= 0:
        return wounds.NONE
    return cover_armor(Cover(material=options.cover_material,
                             thickness_cm=options.cover_thickness_cm))


def resolve_attack(request: AttackRequest, rec: Recorder) -> None:
    """Aimed fire: a to-hit task per shot (ROF), then damage, location and wound per hit."""
    band = band_or_refuse(request.range.metres(), request.weapon)
    check_shots(request)
    first = len(rec.modifiers)
    spec = rec.once("aimed_spec", lambda r: aimed_spec(r, request, band))  # the request's own
    # Every shot is the same task: its modifiers count for each shot's step (the card showed
    # them only on the first, with the later shots' totals typed by hand).
    shot_mods = rec.modifiers[first:]
    options = request.options
    cover = _cover(request)
    if options.shots > 1:
        rec.note("shots", SRC_ROF, n=options.shots)
    hits: list[wounds.Wound] = []
    vehicle = as_vehicle(request.target)
    results: list[str] = []
    dpv: Fraction | None = None
    for shot in range(1, options.shots + 1):
        step_id = "to_hit" if shot == 1 else f"to_hit_{shot}"
        if shot > 1:
            rec.add([m.model_copy(update={"step": step_id}) for m in shot_mods])
        result = tasks.roll_task(rec, spec, step_id=step_id, label="to_hit",
                                 purpose=f"to-hit, shot {shot}", source=SRC_AIMED,
                                 purpose_key="roll.to_hit_shot", purpose_params={"shot": str(shot)})
        if not result.success:
            if request.weapon.deviation is not None:
                explosives.deviate(rec, request.weapon.deviation, request.range.metres(),
                                   request.weapon.indirect_range_m, shot=shot)
            continue
        if dpv is None:
            dpv = _damage_step(rec, request.weapon, band, cover)
        if vehicle is not None:  # VEHICLE DAMAGE: a hit on a vehicle rolls on its table
            results.append(explosives.vehicle_damage(rec, dpv, vehicle,
                                                     hit=len(results) + 1)["vehicle_result"])
            continue
        hits.append(wounds.resolve_hit(rec, request.target, dpv, request.weapon.wound_type,
                                       request.settings, hit=len(hits) + 1,
                                       called=options.location))
    common = {"shots": options.shots, "band": band, "difficulty": spec.difficulty.label,
              "needed": spec.number, "dm": spec.dm}
    if vehicle is not None:
        rec.outcome.update(hit=bool(results), hits=len(results), vehicle_results=results,
                           **common, summary_key="FIREFIGHT.dpv.outcome." + (
                               "vehicle_hit" if results else "miss"))
        cards.title(rec, request)
        return
    condition = wounds.apply_wounds(rec, request.target, hits)
    summary = "miss" if not hits else condition
    rec.outcome.update(
        hit=bool(hits), hits=len(hits), **common, condition=condition,
        wounds=[w.tier for w in hits], summary_key=f"FIREFIGHT.dpv.outcome.{summary}")
    cards.title(rec, request)


def as_vehicle(target: DpvCombatant) -> Vehicle | None:
    """A target whose actor data has a vehicle armor is a vehicle (VEHICLE DAMAGE)."""
    return explosives.vehicle_of(target)


def attack_odds(request: AttackRequest) -> dict[str, Any]:
    band = band_or_refuse(request.range.metres(), request.weapon)
    check_shots(request)
    rec = Recorder.for_odds("dpv", request)  # the spec shared with the resolve
    spec = rec.once("aimed_spec", lambda r: aimed_spec(r, request, band))
    p_hit = tasks.success_probability(spec)
    options = request.options
    dpv = past_cover(dpv_at_range(request.weapon, band)[0], _cover(request))
    vehicle = as_vehicle(request.target)
    # Keyed by whole numbers: a Fraction's hash and equality are Python code (issue 27).
    shown = _shot_figures(ratio(p_hit), wounds.hit_key(request.target, dpv,
                                                       request.weapon.wound_type,
                                                       request.settings, called=options.location),
                          options.shots, ratio(dpv),
                          None if vehicle is None else vehicle.armor_value)
    if request.weapon.ep is not None:  # the blast is part of what the shot can end in
        shown = {**shown, "outcomes": odds.listing(_exploding_outcomes(request, p_hit, dpv))}
    return chance(
        p_hit, net_modifier=spec.dm, needed=spec.number, difficulty=spec.difficulty.label,
        band=band, dpv=num(dpv), any_hit_probability=shown["any_hit_probability"],
        outcomes=[dict(o) for o in shown["outcomes"]],
        **{k: dict(shown[k]) for k in ("per_shot", "per_hit", "per_hit_exact")},
        modifiers=dump_recorded(rec.modifiers),
    )


@lru_cache(maxsize=1024)
def _shot_figures(hit_ratio: Ratio, per_hit_ratios: tuple[tuple[str, Ratio], ...], shots: int,
                  dpv_ratio: Ratio, vehicle_armor: float | None) -> dict[str, Any]:
    """The aimed-fire odds' figures, cached by what decides them (issue 27: a new request with
    the numbers of one seen before, a shot at another range in the same band, is most of a
    table's): the chance of a hit, a hit's (sorted) distribution, the shots, the DPV and a
    vehicle's armor, each fraction as its (numerator, denominator). Copied before they are
    handed out."""
    p_hit, dpv = Fraction(*hit_ratio), Fraction(*dpv_ratio)
    per_hit = [(k, Fraction(*v)) for k, v in per_hit_ratios]
    if vehicle_armor is not None:
        results = explosives.vehicle_distribution(dpv, vehicle_armor)
        outcomes = odds.shots(p_hit, results, shots, odds.VEHICLE, "vehicle_")
    else:
        outcomes = odds.shots(p_hit, odds.tiers_only(dict(per_hit)), shots)
    return {
        "any_hit_probability": float(1 - (1 - p_hit) ** shots), "outcomes": outcomes,
        "per_shot": {k: float(p_hit * v) for k, v in per_hit},
        "per_hit": {k: float(v) for k, v in per_hit},
        "per_hit_exact": {k: f"{v.numerator}/{v.denominator}" for k, v in per_hit},
    }


def _exploding_outcomes(request: AttackRequest, p_hit: Fraction, dpv: Fraction
                        ) -> list[tuple[str, Fraction]]:
    """A round that explodes (a weapon with EP): the target's gravest condition (a vehicle's
    gravest damage) on the cards the shot ends in, the shot's and the blast's
    (docs/rules-notes.md, "A grenade's odds"). The table sets the blast off where the round
    lands (js-shim/canvas/features.mjs, ``afterExplodingShot``): at the target when every shot
    hits; where the first miss deviates to (2300ad DEVIATION: 1D10 x the weapon type's metres,
    in the scatter diagram's direction, so always that far from the target); nowhere when a
    round that does not deviate misses. Both cards read the target as the shot found it (the
    shot's wounds are applied after the blast is resolved)."""
    weapon, shots = request.weapon, request.options.shots
    landing: dict[Fraction, Fraction] = {}  # a miss's blast: metres from the target -> chance
    if weapon.deviation is not None:
        mult, _ = explosives.deviation_multiplier(weapon.deviation, request.range.metres(),
                                                  weapon.indirect_range_m)
        landing = {Fraction(roll * mult): Fraction(1, 10) for roll in range(1, 11)}
    vehicle = as_vehicle(request.target)
    out: dict[str, Fraction] = {}
    for k in range(shots + 1):
        p_k = math.comb(shots, k) * p_hit ** k * (1 - p_hit) ** (shots - k)
        where = landing if k < shots and landing else {Fraction(0): Fraction(1)} if k else {}
        found = (_figure_cards(request, dpv, k, where) if vehicle is None
                 else _vehicle_cards(request, vehicle, dpv, k, where))
        for name, p in found.items():
            if k:
                key = f"hit_{name}" if vehicle is None else f"vehicle_{name}"
            else:
                key = "miss" if name in ("unhurt", "none") else (
                    f"blast_{name}" if vehicle is None else f"blast_vehicle_{name}")
            out[key] = out.get(key, Fraction(0)) + p_k * p
    if vehicle is not None:
        names = ["miss", *(f"blast_vehicle_{r}" for r in odds.VEHICLE),
                 *(f"vehicle_{r}" for r in odds.VEHICLE)]
    else:
        names = ["miss", *(f"blast_{c}" for c in wounds.CONDITIONS[1:]),
                 *(f"hit_{c}" for c in wounds.CONDITIONS)]
    return [(name, out.get(name, Fraction(0))) for name in names]


def _figure_cards(request: AttackRequest, dpv: Fraction, hits: int,
                  where: dict[Fraction, Fraction]) -> dict[str, Fraction]:
    """The target's gravest condition of the shot's card (``hits`` hits) and the blast's (at
    each distance ``where`` gives; no blast when empty)."""
    weapon, target, settings = request.weapon, request.target, request.settings
    rules = {"location_rule": settings.location_rule, "zero_dpv": settings.zero_dpv}
    armor = wounds.armor_profile(target)
    direct = wounds.hit_points(armor, dpv, weapon.wound_type, called=request.options.location,
                               **rules)
    shot_card: dict[str, Fraction] = {}
    for points, p in wounds.points_after({hits: Fraction(1)}, direct).items():
        name = wounds.condition(target, points)
        shot_card[name] = shot_card.get(name, Fraction(0)) + p
    blast_card = {} if where else {"unhurt": Fraction(1)}
    for distance, weight in where.items():
        for points, p in explosives.blast_points(armor, exact(weapon.ep or 0), distance,
                                                 tamped=False, fragmentation=True, **rules):
            name = wounds.condition(target, points)
            blast_card[name] = blast_card.get(name, Fraction(0)) + weight * p
    out: dict[str, Fraction] = {}
    for a, pa in shot_card.items():
        for b, pb in blast_card.items():
            worst = max(a, b, key=wounds.CONDITIONS.index)
            out[worst] = out.get(worst, Fraction(0)) + pa * pb
    return out


def _vehicle_cards(request: AttackRequest, vehicle: Vehicle, dpv: Fraction, hits: int,
                   where: dict[Fraction, Fraction]) -> dict[str, Fraction]:
    """A vehicle's gravest VEHICLE DAMAGE result of the shot's ``hits`` and the blast's
    (``_blast_vehicle``); ``none`` when neither card has one."""
    order = ("none", *odds.VEHICLE)
    shot = odds.count_cdf(explosives.vehicle_distribution(dpv, vehicle.armor_value),
                          {hits: Fraction(1)}, order)
    blast = [Fraction(1)] * len(order) if not where else [Fraction(0)] * len(order)
    for distance, weight in where.items():
        at = explosives.blast_vehicle_cdf(vehicle.armor_value, exact(request.weapon.ep or 0),
                                          distance, tamped=False, fragmentation=True)
        blast = [b + weight * c for b, c in zip(blast, at, strict=True)]
    return odds.from_cdf([a * b for a, b in zip(shot, blast, strict=True)], order)


# --- area fire -----------------------------------------------------------------------------

def area_band(request: AreaFireRequest, rec: Recorder | None = None) -> tuple[str, str]:
    """(actual band, band the fire is read at). Moving area fire: not with ROF 1, never at
    extreme; trotting reads each band one farther."""
    weapon, moving = request.weapon, request.options.moving
    band = band_or_refuse(request.range.metres(), weapon)
    if weapon.afv is None:
        name, said = named(weapon.name, "weapon")
        raise rule_error("dpv", "no_afv", f"{name} has no AFV: no area fire",
                         "weapon.afv", "area fire needs an AFV", name=said)
    bursts, rof = request.options.bursts, weapon.rof
    if bursts > rof:
        raise rule_error("dpv", "bursts_over_rof",
                         f"{bursts} bursts exceed the rate of fire ({rof})",
                         "options.bursts", f"at most the weapon's ROF, {rof}",
                         bursts=bursts, rof=rof)
    if moving != "stationary":
        if weapon.rof == 1:
            raise rule_error("dpv", "moving_rof1", "weapons with ROF 1 cannot use moving area fire",
                             "options.moving", "stationary only for ROF 1")
        if band == "extreme":
            raise rule_error("dpv", "moving_extreme",
                             "moving area fire cannot be performed at extreme range",
                             "options.moving", "stationary only at extreme")
    read = band
    if moving == "trotting":
        read = bands()[min(bands().index(band) + 1, len(bands()) - 1)]
        if rec is not None:
            rec.note("trotting", SRC_MOVING, band_key=f"FIREFIGHT.dpv.band.{read}")
    factors = tables().combat["afv_factor"]
    if factors.get(weapon.kind, factors["default"])[read] is None:
        raise rule_error("dpv", "area_extreme",
                         f"{weapon.kind} cannot employ area fire at extreme range",
                         "range", "shotguns and flechette: not at extreme", kind=weapon.kind)
    _check_area_dice(request, hits_for(1, afv_at(weapon, read) * bursts, bursts * weapon.rpb))
    return band, read


def _check_area_dice(request: AreaFireRequest, most: int) -> None:
    """Every figure hit ``most`` times (a 1D10 of 1) must fit the dice a table sends
    (``MAX_DICE``); more figures are refused before any die, naming how many fit."""
    per_figure = AREA_DICE_PER_FIGURE + AREA_DICE_PER_HIT * most
    figures = len(request.targets)
    if figures * per_figure > MAX_DICE:
        fit = MAX_DICE // per_figure
        raise rule_error("dpv", "area_dice",
                         f"area fire at {figures} figures may need {figures * per_figure} dice,"
                         f" more than the {MAX_DICE} a table rolls",
                         "targets", f"at most {fit} figures at up to {most} hits each",
                         figures=figures, dice=figures * per_figure, max=MAX_DICE, fit=fit,
                         hits=most, refused=False)  # the table's limit, not the rules'


def afv_at(weapon: DpvWeapon, band: str) -> Fraction:
    """2300ad FIRE COMBAT, "AFV": doubled at close, halved at long and extreme (shotguns not
    halved at long; flechette grenades not doubled at close)."""
    factors = tables().combat["afv_factor"]
    if weapon.afv is None:
        return Fraction(0)
    return exact(weapon.afv) * exact(factors.get(weapon.kind, factors["default"])[band])


def hits_for(roll: int, number: Fraction, cap: int) -> int:
    """At or under the number: one hit; at or under half: two; a third: three... capped."""
    return min(cap, int(number / roll)) if roll <= number else 0


def _ducks(rec: Recorder, figure: Figure, weapon: DpvWeapon, index: int) -> bool:
    """PCs choose; an NPC ducks when 1D10 + the weapon's AFV exceeds its Coolness."""
    if figure.duck is not None or figure.pc:
        return bool(figure.duck)
    coolness = wounds.npc_coolness(figure)
    if coolness is None:
        rec.note("no_coolness", SRC_DUCK, name=figure.name)
        return False
    roll, i = rec.roll(10, purpose=f"duck, {figure.name or index}", side="target",
                       purpose_key="roll.duck", purpose_params={"name": figure.name or str(index)})
    afv = exact(weapon.afv or 0)
    ducked = roll + afv > coolness
    rec.step(f"duck_{index}", "duck", dice=[i],
             numbers={"roll": roll, "afv": num(afv), "total": num(roll + afv),
                      "coolness": coolness, "figure": index, "name": figure.name},
             success=ducked, outcome="duck." + ("yes" if ducked else "no"), source=SRC_DUCK)
    return ducked


def resolve_area_fire(request: AreaFireRequest, rec: Recorder) -> None:
    """Area fire: the AFV at range x bursts, then a 1D10 per figure (ducking first)."""
    weapon, bursts = request.weapon, request.options.bursts
    band, read = area_band(request, rec)
    number = afv_at(weapon, read) * bursts
    cap = bursts * weapon.rpb
    dpv, _ = dpv_at_range(weapon, read)
    rec.step("area", "area", kind="info",
             numbers={"afv": weapon.afv, "band": read, "afv_at_range": num(afv_at(weapon, read)),
                      "bursts": bursts, "number": num(number), "max_hits": cap,
                      "dpv": num(dpv)},
             outcome="area.number", source=f"{SRC_AFV}; {SRC_AREA}")
    figures = []
    for index, figure in enumerate(request.targets):
        figures.append(_area_figure(rec, request, figure, index, band=band, number=number,
                                    cap=cap, dpv=dpv))
    rec.outcome.update(hit=any(f["hits"] for f in figures), band=band, read_band=read,
                       number=num(number), max_hits=cap, figures=figures,
                       summary_key="FIREFIGHT.dpv.outcome.area")
    cards.title(rec, request)


def figure_number(request: AreaFireRequest, figure: Figure, band: str, number: Fraction
                  ) -> Fraction | None:
    """The to-hit number against one figure, or None when the fire does not reach it: "Figures
    in the line of fire beyond the target area are attacked by half the weapon's AFV if in the
    same range band as the target area. Figures beyond this range are not affected"; and no
    figure past extreme range, 4 x effective (RANGES), whatever its place."""
    own = (range_band(figure.distance_m, request.weapon.effective_range_m)
           if figure.distance_m is not None else None)
    if figure.distance_m is not None and own is None:
        return None
    if figure.place == "beyond":
        if own != band:
            return None
        return number * exact(tables().combat["beyond_area_afv_factor"])
    return number


def _area_figure(rec: Recorder, request: AreaFireRequest, figure: Figure, index: int, *,
                 band: str, number: Fraction, cap: int, dpv: Fraction) -> dict[str, Any]:
    who: dict[str, Any] = {"figure": index, "name": figure.name, "actor_id": figure.actor_id,
           "token_id": figure.token_id}
    reached = figure_number(request, figure, band, number)
    if reached is None:
        past = figure.distance_m is not None and range_band(
            figure.distance_m, request.weapon.effective_range_m) is None
        rec.note("past_extreme" if past else "beyond_unaffected",
                 f"{SRC_RANGES}; {SRC_AREA}" if past else SRC_AREA, name=figure.name)
        return {**who, "hits": 0, "condition": "unaffected"}
    number = reached
    vehicle = as_vehicle(figure)
    if vehicle is not None:  # VEHICLE DAMAGE for each hit; a vehicle does not duck
        roll, i = rec.roll(10, purpose=f"area fire, {figure.name or index}",
                           purpose_key="roll.area_fire",
                           purpose_params={"name": figure.name or str(index)})
        hits = hits_for(roll, number, cap)
        rec.step(f"area_{index}", "area_figure", dice=[i],
                 numbers={"roll": roll, "number": num(number), "hits": hits, "figure": index,
                          "name": figure.name, "place": figure.place, "cover": 0},
                 success=hits > 0, outcome="area.hits", source=SRC_AREA, name=figure.name)
        results = [explosives.vehicle_damage(rec, dpv, vehicle, hit=n,
                                             step_id=f"vehicle_{index}_{n}",
                                             **who)["vehicle_result"]
                   for n in range(1, hits + 1)]
        return {**who, "hits": hits, "ducked": False, "vehicle_results": results,
                "condition": "vehicle_hit" if results else "unhurt"}
    ducked = _ducks(rec, figure, request.weapon, index)
    if ducked:
        # "forfeits remaining actions for the turn": the actor's flag, cleared by combat_turn
        rec.effect("ducked", value=True, label="effect.ducked", **who)
    cover = cover_armor(figure.cover) if ducked else Fraction(0)
    roll, i = rec.roll(10, purpose=f"area fire, {figure.name or index}",
                       purpose_key="roll.area_fire",
                       purpose_params={"name": figure.name or str(index)})
    hits = hits_for(roll, number, cap)
    rec.step(f"area_{index}", "area_figure", dice=[i],
             numbers={"roll": roll, "number": num(number), "hits": hits, "figure": index,
                      "name": figure.name, "place": figure.place, "cover": num(cover)},
             success=hits > 0, outcome="area.hits", source=SRC_AREA, name=figure.name)
    found = [wounds.resolve_hit(rec, figure, max(Fraction(0), dpv - cover),
                                request.weapon.wound_type, request.settings,
                                hit=n, side="attacker")
             for n in range(1, hits + 1)]
    condition = wounds.apply_wounds(rec, figure, found, **who)
    return {**who, "hits": hits, "ducked": ducked, "condition": condition}


def area_odds(request: AreaFireRequest) -> dict[str, Any]:
    """The chance of hits on a figure in the area, and each figure's whole outcome (its place,
    armor, ducking and cover counted); ``outcomes`` are the first figure's."""
    band, read = area_band(request)
    number = afv_at(request.weapon, read) * request.options.bursts
    cap = request.options.bursts * request.weapon.rpb
    dpv, _ = dpv_at_range(request.weapon, read)
    dist: dict[int, Fraction] = {}
    for roll in range(1, 11):
        k = hits_for(roll, number, cap)
        dist[k] = dist.get(k, Fraction(0)) + Fraction(1, 10)
    figures = [{"figure": index, "name": figure.name, "token_id": figure.token_id,
                "outcomes": odds.listing(_figure_outcomes(request, figure, band, number=number,
                                                          cap=cap, dpv=dpv).items())}
               for index, figure in enumerate(request.targets)]
    return chance(1 - dist.get(0, Fraction(0)), net_modifier=0, band=band, read_band=read,
                  number=num(number), hits={str(k): float(v) for k, v in sorted(dist.items())},
                  modifiers=[], outcomes=figures[0]["outcomes"], figures=figures)


def duck_probability(figure: Figure, weapon: DpvWeapon) -> Fraction:
    """PCs choose (``duck``); an NPC ducks when 1D10 + the weapon's AFV > its Coolness."""
    if figure.duck is not None or figure.pc:
        return Fraction(int(bool(figure.duck)))
    coolness = wounds.npc_coolness(figure)
    if coolness is None:
        return Fraction(0)
    afv = exact(weapon.afv or 0)
    return Fraction(sum(1 for roll in range(1, 11) if roll + afv > coolness), 10)


def _figure_outcomes(request: AreaFireRequest, figure: Figure, band: str, *, number: Fraction,
                     cap: int, dpv: Fraction) -> dict[str, Fraction]:
    """Miss, or the gravest wound of the figure's hits (``_area_figure``'s every die)."""
    reached = figure_number(request, figure, band, number)
    if reached is None:
        return {"miss": Fraction(1)}
    number = reached
    vehicle = as_vehicle(figure)
    if vehicle is not None:
        results = explosives.vehicle_distribution(dpv, vehicle.armor_value)
        out = {"miss": Fraction(0)}
        for roll in range(1, 11):
            k = hits_for(roll, number, cap)
            found = ({"miss": Fraction(1)} if not k else
                     {f"vehicle_{r}": p for r, p in odds.gravest(results, k,
                                                                 odds.VEHICLE).items()})
            for name, p in found.items():
                out[name] = out.get(name, Fraction(0)) + p / 10
        return out
    return dict(_area_outcomes(wounds.armor_profile(figure), dpv,
                               cover=cover_armor(figure.cover),
                               p_duck=duck_probability(figure, request.weapon), number=number,
                               cap=cap, wound_type=request.weapon.wound_type,
                               settings=request.settings))


@lru_cache(maxsize=2048)
def _area_outcomes(armor: tuple[Fraction, ...], dpv: Fraction, *, cover: Fraction,
                   p_duck: Fraction, number: Fraction, cap: int, wound_type: str,
                   settings: DpvSettings) -> tuple[tuple[str, Fraction], ...]:
    """One figure's outcomes from what decides them (figures alike are computed once)."""
    hits: dict[int, Fraction] = {}  # the 1D10's faces grouped by the hits they give
    for roll in range(1, 11):
        k = hits_for(roll, number, cap)
        hits[k] = hits.get(k, Fraction(0)) + Fraction(1, 10)
    cases = []
    for ducked, weight in ((True, p_duck), (False, 1 - p_duck)):
        if not weight:
            continue
        per_hit = odds.tiers_only(wounds.profile_distribution(
            armor, max(Fraction(0), dpv - (cover if ducked else 0)), wound_type, settings))
        cases += [(weight * p, {"miss": Fraction(1)} if not k else odds.gravest(per_hit, k))
                  for k, p in hits.items()]
    found = odds.mixture(cases)
    return tuple((name, found.get(name, Fraction(0))) for name in ("miss", *odds.TIERS))
