"""2300ad EXPLOSIVES, DEVIATION, MISSILE PROCEDURE, VEHICLE DAMAGE, BREACHING BARRIERS."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from firefight.errors import rule_error
from firefight.record import Recorder, num
from firefight.rulesets.dpv import cards, odds, tasks, wounds
from firefight.rulesets.dpv.data import armor_value, chance, exact, tables
from firefight.rulesets.dpv.models import (
    BreachRequest,
    DeviationRequest,
    DpvCombatant,
    DpvSettings,
    ExplosionRequest,
    Figure,
    MissileRequest,
    RepairRequest,
    TaskOptions,
    Vehicle,
    VehicleDamageRequest,
)

SRC_DEVIATION = "2300ad DEVIATION; Scatter Diagram"
SRC_CONCUSSION = "2300ad EXPLOSIVES, \"Concussion\""
SRC_FRAGMENTS = "2300ad EXPLOSIVES, \"Fragmentation\""
SRC_TAMPED = "2300ad EXPLOSIVES, \"Tamped Explosions\""
SRC_MISSILE = "2300ad MISSILE PROCEDURE"
SRC_VEHICLE = "2300ad VEHICLE DAMAGE"
SRC_BREACH = "2300ad EXPLOSIVES, \"Breaching Barriers\""
SRC_EVASIVE = "2300ad COMBAT TASKS, \"To drive evasively\"; MISSILE PROCEDURE"


# --- deviation -----------------------------------------------------------------------------

def deviation_multiplier(kind: str, range_m: float | None, indirect_range_m: float | None
                         ) -> tuple[int, bool]:
    """Metres per point of the 1D10; doubled for indirect fire past half its indirect range."""
    t = tables().explosives
    base = int(t["deviation_multiplier_m"][kind])
    doubled = (kind != "direct_fire" and range_m is not None and indirect_range_m is not None
               and range_m > indirect_range_m / 2)
    return base * (t["beyond_half_indirect_range_factor"] if doubled else 1), doubled


def scatter(roll: int) -> tuple[str, int]:
    """The scatter diagram: direction name and bearing (0 = beyond the target, 90 = right)."""
    s = tables().explosives["scatter"]
    direction: str = s["directions"][str(roll)]
    return direction, int(s["bearing_degrees"][direction])


def offset(distance_m: int, bearing: int) -> tuple[float, float]:
    """(metres farther along the line of fire, metres to the firer's right)."""
    rad = math.radians(bearing)
    return round(distance_m * math.cos(rad), 3), round(distance_m * math.sin(rad), 3)


def deviate(rec: Recorder, kind: str, range_m: float | None, indirect_range_m: float | None,
            *, shot: int = 1) -> dict[str, Any]:
    distance_roll, i = rec.roll(10, purpose=f"deviation distance, shot {shot}",
                                   purpose_key="roll.deviation_distance",
                                   purpose_params={"shot": str(shot)})
    direction_roll, j = rec.roll(10, purpose=f"deviation direction, shot {shot}",
                                    purpose_key="roll.deviation_direction",
                                    purpose_params={"shot": str(shot)})
    mult, doubled = deviation_multiplier(kind, range_m, indirect_range_m)
    direction, bearing = scatter(direction_roll)
    distance = distance_roll * mult
    forward, right = offset(distance, bearing)
    found: dict[str, Any] = {"distance_m": distance, "direction": direction, "bearing": bearing,
             "forward_m": forward, "right_m": right, "multiplier": mult, "shot": shot}
    rec.step(f"deviation_{shot}", "deviation", kind="table", dice=[i, j],
             numbers={"roll": distance_roll, "direction_roll": direction_roll,
                        "doubled": doubled, **found},
             outcome="deviation.result", source=SRC_DEVIATION,
             direction_key=f"FIREFIGHT.dpv.direction.{direction}")
    rec.effect("impact", value=found, label="effect.impact", target="attacker", **found)
    return found


def resolve_deviation(request: DeviationRequest, rec: Recorder) -> None:
    kind = request.deviation or (request.weapon.deviation if request.weapon else None)
    if kind is None:
        raise rule_error("dpv", "deviation_type", "a deviation needs the weapon type",
                         "deviation", "direct_fire, indirect_grenade, ...", refused=False)
    indirect = request.indirect_range_m or (request.weapon.indirect_range_m
                                            if request.weapon else None)
    found = deviate(rec, kind, request.range.metres() if request.range else None, indirect)
    rec.outcome.update(hit=False, **found, summary_key="FIREFIGHT.dpv.outcome.deviation")
    cards.title(rec, request)


# --- concussion and fragments ---------------------------------------------------------------

def concussion_value(ep: Fraction, distance_m: Fraction, tamped: bool = False) -> Fraction:
    """2 x EP within 5 m, halved for each further 5 m (or part); a tamped charge has half."""
    c = tables().explosives["concussion"]
    value = exact(c["ep_multiplier"]) * ep
    if tamped:
        value *= exact(c["tamped_factor"])
    beyond = distance_m - c["inner_radius_m"]
    if beyond > 0:
        value /= 2 ** math.ceil(beyond / c["halving_step_m"])
    return value


def concussion_reach(ep: Fraction, tamped: bool = False) -> int:
    """The farthest a concussion can hit: "hit ... if the concussion value or less is thrown on
    1D10", so no one where the halved value is below 1 (2300ad EXPLOSIVES, Concussion)."""
    c = tables().explosives["concussion"]
    value = concussion_value(ep, Fraction(0), tamped)
    if value < 1:
        return 0
    halvings = 0
    while value / 2 ** (halvings + 1) >= 1:
        halvings += 1
    return int(c["inner_radius_m"]) + int(c["halving_step_m"]) * halvings


def reach_steps(*, tamped: bool) -> list[dict[str, float]]:
    """The concussion's reach by EP, for the table to gather with before resolving: each
    entry holds from its ``ep`` up (the reach grows only where the value doubles, at powers
    of two)."""
    steps: list[dict[str, float]] = []
    for k in range(-2, 18):
        ep = Fraction(2) ** k
        reach = concussion_reach(ep, tamped)
        if reach and (not steps or reach != steps[-1]["reach_m"]):
            steps.append({"ep": float(ep), "reach_m": reach})
    return steps


def burst_radius(ep: Fraction) -> int:
    """5 m at EP 1, 5 m more per full doubling (EP 2: 10 m, EP 4: 15 m), 5 m less per halving;
    never below 0."""
    f = tables().explosives["fragmentation"]
    doublings = math.floor(math.log2(ep)) if ep > 0 else 0
    while 2 ** (doublings + 1) <= ep:  # guard float log2 at exact powers
        doublings += 1
    while Fraction(2) ** doublings > ep:
        doublings -= 1
    return max(0, int(f["radius_at_ep_1_m"]) + int(f["radius_per_doubling_m"]) * doublings)


def fragment_dpv(radius: int, distance: Fraction) -> Fraction | None:
    f = tables().explosives["fragmentation"]
    if distance <= radius:
        return exact(f["inner_dpv"])
    if distance <= radius * f["outer_radius_factor"]:
        return exact(f["outer_dpv"])
    return None


def resolve_explosion(request: ExplosionRequest, rec: Recorder) -> None:
    ep, options = exact(request.ep), request.options
    fragments = options.fragmentation or options.tamped
    radius = burst_radius(ep) if fragments else 0
    contact = ep * (tables().explosives["tamped_contact_factor"] if options.tamped else 1)
    concussion_m = concussion_reach(ep, options.tamped)
    reach = max(radius * 2, concussion_m)  # nobody farther is touched: the table gathers to it
    rec.step("blast", "blast", kind="info",
             numbers={"ep": request.ep, "concussion_5m": num(concussion_value(
                   ep, Fraction(0), options.tamped)), "burst_radius_m": radius,
                        "outer_radius_m": radius * 2, "contact_dpv": num(contact),
                        "concussion_reach_m": concussion_m, "tamped": options.tamped},
             outcome="blast.info", source=f"{SRC_CONCUSSION}; {SRC_FRAGMENTS}; {SRC_TAMPED}")
    rec.effect("blast", value={"burst_radius_m": radius, "outer_radius_m": radius * 2,
                                 "concussion_reach_m": concussion_m, "reach_m": reach},
               label="effect.blast", target="attacker", burst_radius_m=radius,
               outer_radius_m=radius * 2, concussion_reach_m=concussion_m, reach_m=reach)
    figures = [_blast_figure(rec, request, figure, index, radius if fragments else None)
               for index, figure in enumerate(request.targets)]
    rec.outcome.update(hit=any(f["hits"] for f in figures), burst_radius_m=radius,
                       contact_dpv=num(contact), figures=figures,
                       summary_key="FIREFIGHT.dpv.outcome.explosion")
    cards.title(rec, request)


def _blast_figure(rec: Recorder, request: ExplosionRequest, figure: Figure, index: int,
                  radius: int | None) -> dict[str, Any]:
    who: dict[str, Any] = {"figure": index, "name": figure.name, "actor_id": figure.actor_id,
           "token_id": figure.token_id}
    if figure.distance_m is None:
        raise rule_error("dpv", "blast_distance",
                         "each figure near an explosion needs its distance",
                         f"targets[{index}].distance_m", "metres from the blast", refused=False,
                         name=figure.name or f"#{index + 1}")
    distance = exact(figure.distance_m)
    vehicle = vehicle_of(figure)
    if vehicle is not None:
        return _blast_vehicle(rec, request, figure, vehicle, index=index, radius=radius, who=who)
    found: list[wounds.Wound] = []
    cv = concussion_value(exact(request.ep), distance, request.options.tamped)
    hit = _concussion_hit(rec, figure, index, cv)
    if hit:
        found.append(wounds.resolve_hit(rec, figure, cv, "blunt", request.settings,
                                        hit=len(found) + 1))
    frag = fragment_dpv(radius, distance) if radius is not None else None
    if frag is not None:
        found += _fragments(rec, request, figure, index, dpv=frag, already=len(found))
    condition = wounds.apply_wounds(rec, figure, found, **who)
    return {**who, "hits": len(found), "concussion": hit, "condition": condition}


@lru_cache(maxsize=1024)
def blast_points(armor: tuple[Fraction, ...], ep: Fraction, distance: Fraction, *,
                 tamped: bool, fragmentation: bool, location_rule: str, zero_dpv: str
                 ) -> tuple[tuple[wounds.Points, Fraction], ...]:
    """Exact chances of the points a blast at ``distance`` adds to a figure with this armor
    (``_blast_figure``'s every die: the concussion throw and its blunt hit at the concussion
    value, the fragments' 20 % and their 1D6 hits): the odds of an exploding round."""
    rules = {"location_rule": location_rule, "zero_dpv": zero_dpv}
    cv = concussion_value(ep, distance, tamped)
    p_concussion = Fraction(sum(1 for roll in range(1, 11) if roll <= cv), 10)
    found = wounds.points_after({0: 1 - p_concussion, 1: p_concussion},
                                wounds.hit_points(armor, cv, "blunt", **rules))
    radius = burst_radius(ep) if fragmentation or tamped else None
    frag = fragment_dpv(radius, distance) if radius is not None else None
    if frag is not None:
        found = wounds.points_after(_fragment_counts(),
                                    wounds.hit_points(armor, frag, "normal", **rules),
                                    start=found)
    return tuple(found.items())


@lru_cache(maxsize=1024)
def blast_vehicle_cdf(armor: float, ep: Fraction, distance: Fraction, *, tamped: bool,
                      fragmentation: bool) -> tuple[Fraction, ...]:
    """A vehicle ``distance`` from a blast (``_blast_vehicle``'s every die): the chance that
    its gravest VEHICLE DAMAGE result is at most each of ("none", *odds.VEHICLE)."""
    order = ("none", *odds.VEHICLE)
    cv = concussion_value(ep, distance, tamped)
    p_concussion = Fraction(sum(1 for roll in range(1, 11) if roll <= cv), 10)
    found = odds.count_cdf(vehicle_distribution(cv, armor),
                           {0: 1 - p_concussion, 1: p_concussion}, order)
    radius = burst_radius(ep) if fragmentation or tamped else None
    frag = fragment_dpv(radius, distance) if radius is not None else None
    if frag is not None:
        counts = _fragment_counts()
        found = [a * b for a, b in zip(found, odds.count_cdf(vehicle_distribution(frag, armor),
                                                            counts, order), strict=True)]
    return tuple(found)


def _fragment_counts() -> dict[int, Fraction]:
    """How many fragments hit: 1D10 of 1-2 (20 %), then 1D6 (2300ad EXPLOSIVES, Fragmentation)."""
    f = tables().explosives["fragmentation"]
    chance, die = Fraction(int(f["chance_on_d10"]), 10), int(f["fragment_die"])
    return {0: 1 - chance, **dict.fromkeys(range(1, die + 1), chance / die)}


def _concussion_hit(rec: Recorder, figure: Figure, index: int, cv: Fraction) -> bool:
    """"hit by concussion if the concussion value or less is thrown on 1D10"."""
    roll, i = rec.roll(10, purpose=f"concussion, {figure.name or index}", side="target",
                       purpose_key="roll.concussion",
                       purpose_params={"name": figure.name or str(index)})
    hit = roll <= cv
    rec.step(f"concussion_{index}", "concussion", dice=[i],
             numbers={"roll": roll, "concussion": num(cv), "distance_m": figure.distance_m,
                      "figure": index, "name": figure.name},
             success=hit, outcome="concussion." + ("hit" if hit else "miss"),
             source=SRC_CONCUSSION, name=figure.name)
    return hit


def vehicle_of(figure: DpvCombatant) -> Vehicle | None:
    """A figure whose actor data has a vehicle armor is a vehicle (VEHICLE DAMAGE)."""
    if figure.stats.vehicle_armor is None:
        return None
    return Vehicle(name=figure.name, actor_id=figure.actor_id, token_id=figure.token_id,
                   stats=figure.stats)


def _blast_vehicle(rec: Recorder, request: ExplosionRequest, figure: Figure, vehicle: Vehicle, *,
                   index: int, radius: int | None, who: dict[str, Any]) -> dict[str, Any]:
    """A vehicle near a blast: the concussion's and each fragment's DPV are hits on VEHICLE
    DAMAGE ("Roll 1d10 + 1 for each 5 DPV", after its armor), no wound table."""
    distance = exact(figure.distance_m or 0)
    cv = concussion_value(exact(request.ep), distance, request.options.tamped)
    hit = _concussion_hit(rec, figure, index, cv)
    dpvs = [cv] if hit else []
    frag = fragment_dpv(radius, distance) if radius is not None else None
    if frag is not None:
        dpvs += [frag] * _fragment_count(rec, figure, index, frag)
    results = [vehicle_damage(rec, dpv, vehicle, hit=n, step_id=f"vehicle_{index}_{n}",
                              **who)["vehicle_result"]
               for n, dpv in enumerate(dpvs, start=1)]
    return {**who, "hits": len(dpvs), "concussion": hit, "vehicle_results": results,
            "condition": "vehicle_hit" if results else "unhurt"}


def _fragments(rec: Recorder, request: ExplosionRequest, figure: Figure, index: int, *,
               dpv: Fraction, already: int) -> list[wounds.Wound]:
    count = _fragment_count(rec, figure, index, dpv)
    return [wounds.resolve_hit(rec, figure, dpv, "normal", request.settings,
                               hit=already + n) for n in range(1, count + 1)]


def _fragment_count(rec: Recorder, figure: Figure, index: int, dpv: Fraction) -> int:
    """A 20 % chance (1D10 of 1-2) of 1D6 fragments at DPV 0.4 (0.2 out to twice the radius)."""
    f = tables().explosives["fragmentation"]
    roll, i = rec.roll(10, purpose=f"fragments, {figure.name or index}", side="target",
                       purpose_key="roll.fragments",
                       purpose_params={"name": figure.name or str(index)})
    hit = roll <= f["chance_on_d10"]
    dice, count = [i], 0
    if hit:
        count, j = rec.roll(f["fragment_die"], purpose=f"fragment count, {figure.name or index}",
                            purpose_key="roll.fragment_count",
                            purpose_params={"name": figure.name or str(index)}, side="target")
        dice.append(j)
    rec.step(f"fragments_{index}", "fragments", dice=dice,
             numbers={"roll": roll, "fragments": count, "dpv": num(dpv), "figure": index,
                        "name": figure.name},
             success=hit, outcome="fragments." + ("hit" if hit else "miss"),
             source=SRC_FRAGMENTS, name=figure.name)
    return count


# --- missiles and vehicles ------------------------------------------------------------------

def missile_hits(roll: int, homing: int, evasive: int, rule: str) -> bool:
    """1D10 under homing - evasive; a 10 always misses."""
    if roll >= tables().explosives["missile_always_misses_on"]:
        return False
    need = homing - evasive
    return roll <= need if rule == "at_or_under" else roll < need


def missile_probability(homing: int, evasive: int, rule: str) -> Fraction:
    return Fraction(sum(missile_hits(r, homing, evasive, rule) for r in range(1, 11)), 10)


def missile_values(request: MissileRequest) -> tuple[int, Fraction, str]:
    """The missile's homing value, EP and name: as given, else the weapon's (a missile item)."""
    weapon = request.weapon
    homing = request.homing if request.homing is not None else (
        weapon.homing if weapon else None)
    if homing is None:
        raise rule_error("dpv", "missile_homing", "a missile needs its homing value",
                         "weapon.homing" if weapon else "homing",
                         "the missile's homing value (a missile weapon has one)", refused=False)
    ep = request.ep if request.ep is not None else (weapon.ep if weapon else None)
    if ep is None:
        raise rule_error("dpv", "missile_ep", "a missile needs its EP",
                         "weapon.ep" if weapon else "ep", "the missile's explosive power",
                         refused=False)
    return homing, exact(ep), request.name or (weapon.name if weapon else "")


def evasive_of(rec: Recorder | None, target: Vehicle, settings: DpvSettings) -> int:
    """MISSILE PROCEDURE's "evasive value of target": its own when given; from the vehicle's data
    only while it is driven evasively (COMBAT TASKS, "To drive evasively", this turn), unless the
    world counts it always (``evasive_rule``)."""
    if target.evasive is not None or target.stats is None:
        return target.evasive_value
    if settings.evasive_rule == "while_evading" and not target.stats.evading:
        if rec is not None and target.stats.evasive:
            rec.note("not_evading", SRC_EVASIVE, name=target.name)
        return 0
    return target.stats.evasive


def missile_odds(request: MissileRequest) -> dict[str, Any]:
    """Miss, or the vehicle damage of a hit (contact DPV 4 x EP against the armor)."""
    homing, ep, _ = missile_values(request)
    p = missile_probability(homing, evasive_of(None, request.target, request.settings),
                            request.settings.missile_hit)
    dist = vehicle_distribution(missile_dpv(ep), request.target.armor_value)
    return chance(p, net_modifier=0, modifiers=[],
                  outcomes=odds.shots(p, dist, 1, odds.VEHICLE, "vehicle_"))


def missile_dpv(ep: Fraction) -> Fraction:
    """"Damage is always as a tamped explosion": contact DPV = 4 x EP."""
    return ep * int(tables().explosives["tamped_contact_factor"])


def resolve_missile(request: MissileRequest, rec: Recorder) -> None:
    target = request.target
    homing, ep, _ = missile_values(request)
    evasive = evasive_of(rec, target, request.settings)
    roll, i = rec.roll(10, purpose="missile to-hit", purpose_key="roll.missile_to_hit")
    hit = missile_hits(roll, homing, evasive, request.settings.missile_hit)
    rec.step("missile", "missile", dice=[i],
             numbers={"roll": roll, "homing": homing, "evasive": evasive,
                        "needed": homing - evasive},
             success=hit, outcome="missile." + ("hit" if hit else "miss"), source=SRC_MISSILE)
    outcome: dict[str, Any] = {"hit": hit, "summary_key": "FIREFIGHT.dpv.outcome." + (
        "missile_hit" if hit else "miss")}
    if hit:
        outcome.update(vehicle_damage(rec, missile_dpv(ep), target))
    rec.outcome.update(outcome)
    cards.title(rec, request)


def vehicle_damage(rec: Recorder, dpv: Fraction, target: Vehicle, *, hit: int = 1,
                   step_id: str = "", **who: Any) -> dict[str, Any]:
    """1D10 + 1 for each full 5 DPV left after the vehicle's armor; ``who``: the figure's
    names on its effect (area fire)."""
    step_id = step_id or ("vehicle" if hit == 1 else f"vehicle_{hit}")
    t = tables()
    armor = target.armor_value
    remaining = dpv - exact(armor)
    if remaining <= 0:
        rec.step(step_id, "vehicle", kind="info",
                 numbers={"dpv": num(dpv), "armor": armor, "dpv_after_armor": 0},
                 outcome="vehicle.no_penetration", source=SRC_VEHICLE)
        return {"vehicle_result": "no_penetration", "dpv": num(dpv)}
    bonus = math.floor(remaining / t.vehicle_table["dpv_per_plus_one"])
    roll, i = rec.roll(10, purpose="vehicle damage" if hit == 1 else f"vehicle damage, hit {hit}",
                       purpose_key="roll.vehicle_damage" if hit == 1 else "roll.vehicle_damage_hit",
                       purpose_params={"hit": str(hit)})
    result = t.vehicle.lookup(roll + bonus)
    effects = t.vehicle_table["effects"][result]
    rec.step(step_id, "vehicle", kind="table", dice=[i],
             numbers={"roll": roll, "bonus": bonus, "total": roll + bonus, "dpv": num(dpv),
                        "armor": armor, "dpv_after_armor": num(remaining), **effects},
             outcome=f"vehicle.{result}", source=SRC_VEHICLE)
    rec.effect("vehicle", value=result, label=f"effect.vehicle.{result}", crew_dpv=num(remaining),
               **effects, **who)
    return {"vehicle_result": result, "dpv": num(dpv), **effects}


def resolve_vehicle_damage(request: VehicleDamageRequest, rec: Recorder) -> None:
    found = vehicle_damage(rec, exact(request.dpv), request.target)
    rec.outcome.update(hit=True, **found,
                       summary_key=f"FIREFIGHT.dpv.vehicle.{found['vehicle_result']}")
    cards.title(rec, request)


def vehicle_distribution(dpv: Fraction, armor: float) -> dict[str, Fraction]:
    remaining = dpv - exact(armor)
    if remaining <= 0:
        return {"no_penetration": Fraction(1)}
    t = tables()
    bonus = math.floor(remaining / t.vehicle_table["dpv_per_plus_one"])
    out: dict[str, Fraction] = {}
    for roll in range(1, 11):
        result = t.vehicle.lookup(roll + bonus)
        out[result] = out.get(result, Fraction(0)) + Fraction(1, 10)
    return out


def vehicle_odds(request: VehicleDamageRequest) -> dict[str, Any]:
    """The chance the hit does anything, and each result's."""
    dist = vehicle_distribution(exact(request.dpv), request.target.armor_value)
    p = 1 - dist.get("no_effect", Fraction(0)) - dist.get("no_penetration", Fraction(0))
    return chance(p, net_modifier=0, results={k: float(v) for k, v in sorted(dist.items())},
                  modifiers=[], outcomes=odds.listing(
                      (f"vehicle_{k}", dist.get(k, Fraction(0))) for k in odds.VEHICLE))


# --- repair ---------------------------------------------------------------------------------

SRC_REPAIR = "2300ad DAMAGE AND REPAIR"


def repair_task(request: RepairRequest) -> TaskOptions:
    """The repair task (in a shop) at the damage level's difficulty."""
    row = tables().tasks["repair"][request.options.damage]
    return TaskOptions(difficulty=row["repair_task"], skill=request.options.skill,
                       dm=request.options.dm)


def resolve_repair(request: RepairRequest, rec: Recorder) -> None:
    """The repair task, and its cost: 1D10 x the level's percent of the item's price (rolled
    whether the repair succeeds or not: the parts and the shop's time are spent)."""
    outcome = tasks.run_task(rec, request, request.actor, repair_task(request))
    row = tables().tasks["repair"][request.options.damage]
    roll, i = rec.roll(10, purpose="repair cost", purpose_key="roll.repair_cost")
    percent = roll * int(row["cost_percent_per_d10"])
    price = request.options.price
    cost = None if price is None else price * percent / 100
    rec.step("repair_cost", "repair_cost", kind="table", dice=[i],
             numbers={"roll": roll, "percent": percent, "price": price, "cost": cost,
                      "damage": request.options.damage},
             outcome="repair.cost", source=SRC_REPAIR)
    if outcome["success"]:
        rec.effect("vehicle", value="repaired", label="effect.vehicle.repaired",
                   damage=request.options.damage)
    rec.outcome.update(outcome, cost_percent=percent, cost=cost,
                       operable_before=bool(row["operable"]))
    cards.title(rec, request)


def repair_odds(request: RepairRequest) -> dict[str, Any]:
    rec = Recorder.for_odds("dpv")
    return tasks.spec_odds(tasks.task_spec(rec, request, request.actor, repair_task(request)),
                           rec)


# --- breaching --------------------------------------------------------------------------------

def resolve_breach(request: BreachRequest, rec: Recorder) -> None:
    """Penetration (cm) = contact DPV / armor value; breach diameter = penetration - thickness."""
    if request.contact_dpv is not None:
        contact = exact(request.contact_dpv)
    elif request.ep is not None:
        contact = exact(request.ep) * (tables().explosives["tamped_contact_factor"]
                                       if request.tamped else 1)
    else:
        raise rule_error("dpv", "breach_charge",
                         "a breach needs the contact DPV or the charge's EP",
                         "contact_dpv", "give contact_dpv or ep", refused=False)
    if request.armor_value is not None:
        av = exact(request.armor_value)
    elif request.material is not None:
        av = armor_value(request.material)
    else:
        raise rule_error("dpv", "breach_barrier",
                         "a breach needs the barrier's material or armor value",
                         "material", "give material or armor_value", refused=False)
    penetration = contact / av
    diameter = penetration - exact(request.thickness_cm)
    breached = diameter > 0
    rec.step("breach", "breach", kind="info",
             numbers={"contact_dpv": num(contact), "armor_value": num(av),
                        "penetration_cm": num(penetration), "thickness_cm": request.thickness_cm,
                        "diameter_cm": num(max(Fraction(0), diameter))},
             success=breached, outcome="breach." + ("yes" if breached else "no"),
             source=SRC_BREACH)
    rec.outcome.update(hit=breached, penetration_cm=num(penetration),
                       diameter_cm=num(max(Fraction(0), diameter)),
                       summary_key="FIREFIGHT.dpv.outcome.breach_" + ("yes" if breached else "no"))
    cards.title(rec, request)
