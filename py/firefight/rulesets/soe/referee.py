"""The referee's tools: the derivations of soe sections 6-11 as actions whose dialog holds every
input and whose card shows each step with its numbers and its rule. Nothing is rolled.

- ``weapon_damage``: a weapon's Damage from its bullet's mass and impact velocity (10.3);
- ``creature_stats``: a creature's Toughness and Hit Points from its mass (10.5);
- ``armor_coverage``: how effective armor covering part of the body is (11.2.1);
- ``m3_hit``: the M3 hit probability (section 6) and the opposed-roll modifier for it (4);
- ``incapacitation``: P_hk, the Kokinakis-Sperrazza incapacitation formula (section 10).
"""

from __future__ import annotations

import math

from firefight.rant import modifier_for_probability
from firefight.record import Recorder
from firefight.rulesets.soe import armor, damage
from firefight.rulesets.soe.data import incapacitation_presets
from firefight.rulesets.soe.models import (
    SoeCoverageRequest,
    SoeCreatureRequest,
    SoeIncapacitationRequest,
    SoeM3Request,
    SoeWeaponDamageRequest,
)
from firefight.rulesets.soe.to_hit import m3_hit_probability, target_angle_mil


def g(x: float, digits: int = 4) -> str:
    """A number for the card: ``digits`` significant figures, no exponent below 1e12."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    if abs(x) >= 1e12:
        return f"{x:.{digits}g}"
    places = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def pct(p: float) -> str:
    return f"{100 * p:.1f} %"


def _sk_units(rec: Recorder, mass: float, velocity: float) -> float:
    sku = damage.sk_units(mass, velocity)
    rec.step("sk_units", kind="info", numbers={"mass_grains": mass, "velocity_fps": velocity,
                                               "sk_units": sku},
             outcome="tool.sk_units", source="soe section 10: SK units = m v^1.5",
             mass=g(mass), velocity=g(velocity), sku=g(sku, 6))
    return sku


def weapon_damage(request: SoeWeaponDamageRequest, rec: Recorder) -> None:
    opts = request.options
    sku = _sk_units(rec, opts.mass_grains, opts.velocity_fps)
    raw = damage.weapon_damage_raw(opts.mass_grains, opts.velocity_fps)
    value = damage.weapon_damage(opts.mass_grains, opts.velocity_fps)
    rec.step("weapon_damage", kind="info",
             numbers={"log10_sku": math.log10(sku), "raw": raw, "damage": value},
             outcome="tool.weapon_damage",
             source="soe 10.3: Damage Mod = -ROUND(64.79 - 10.94 LOG10(SKU))",
             sku=g(sku, 6), raw=g(raw), damage=f"{value:+d}")
    rec.outcome.update(sk_units=sku, damage=value, summary_key=rec.key("tool.summary.damage"))
    rec.card("weapon_damage", mass=g(opts.mass_grains), velocity=g(opts.velocity_fps))


def creature_stats(request: SoeCreatureRequest, rec: Recorder) -> None:
    mass = request.options.mass_kg
    raw_t = damage.creature_toughness(mass)
    toughness = damage.excel_round(raw_t)
    raw_hp = 0.393 * mass**0.73
    hp = damage.creature_hit_points(mass)
    rec.step("toughness", kind="info", numbers={"raw": raw_t, "toughness": toughness},
             outcome="tool.toughness", source="soe 10.5: Toughness = 0.43 mass^0.47 - 3",
             mass=g(mass), raw=g(raw_t), toughness=f"{toughness:+d}")
    rec.step("hit_points", kind="info", numbers={"raw": raw_hp, "hit_points": hp},
             outcome="tool.hit_points",
             source="soe 10.5: Hit Points = 0.393 mass^0.73 (the text prints 0.47; [48] eqn 9 "
                    "and Table 7 need 0.73)", mass=g(mass), raw=g(raw_hp), hp=hp)
    rec.outcome.update(toughness=toughness, hit_points=hp,
                       summary_key=rec.key("tool.summary.creature"))
    rec.card("creature_stats", mass=g(mass))


def armor_coverage(request: SoeCoverageRequest, rec: Recorder) -> None:
    coverage = request.options.coverage
    effectiveness = armor.coverage_effectiveness(coverage)
    rec.step("coverage", kind="info", numbers={"coverage": coverage,
                                               "effectiveness": effectiveness},
             outcome="tool.coverage", source="soe 11.2.1: Effectiveness = 1 - (1 - coverage)^2",
             coverage=g(coverage), covered=pct(coverage), effective=pct(effectiveness))
    rec.outcome.update(effectiveness=effectiveness, effective=pct(effectiveness),
                       summary_key=rec.key("tool.summary.coverage"))
    rec.card("armor_coverage", covered=pct(coverage))


def m3_hit(request: SoeM3Request, rec: Recorder) -> None:
    opts = request.options
    t_mil = target_angle_mil(opts.width_m, opts.distance_m)
    p = m3_hit_probability(opts.width_m, opts.distance_m, opts.sigma_mil)
    rec.step("angle", kind="info", numbers={"t_mil": t_mil}, outcome="tool.angle",
             source="soe section 6: T = target width / distance",
             width=g(opts.width_m), distance=g(opts.distance_m), t=g(t_mil))
    rec.step("m3", kind="info", numbers={"probability": p}, outcome="tool.m3",
             source="soe section 6, the M3 equation: P = 1 - e^-(T/sigma)^2",
             t=g(t_mil), sigma=g(opts.sigma_mil), p=pct(p))
    rec.outcome.update(t_mil=t_mil, probability=p, hit=pct(p),
                       summary_key=rec.key("tool.summary.m3"))
    if 0 < p < 1:  # section 6 step 4: the opposed-roll modifier that gives this chance
        modifier, exact = modifier_for_probability(p)
        rec.step("modifier", kind="info", numbers={"modifier": modifier,
                                                    "exact": f"{exact.numerator}/"
                                                             f"{exact.denominator}"},
                 outcome="tool.modifier",
                 source="soe sections 4 and 6: the opposed roll's modifier for a probability "
                        "(exact, not the normal approximation)",
                 p=pct(p), modifier=f"{modifier:+d}", chance=pct(float(exact)))
        rec.outcome["modifier"] = modifier
    rec.card("m3_hit", width=g(opts.width_m), distance=g(opts.distance_m),
             sigma=g(opts.sigma_mil))


def incapacitation(request: SoeIncapacitationRequest, rec: Recorder) -> None:
    opts = request.options
    a, b, n = opts.constants()
    sku = _sk_units(rec, opts.mass_grains, opts.velocity_fps)
    p = damage.incapacitation_probability(opts.mass_grains, opts.velocity_fps, a, b, n)
    preset = incapacitation_presets().get(opts.preset, {})
    source = "soe section 10: P_hk = 1 - exp(-a (m v^1.5 - b)^n)"
    if preset.get("source"):
        source += f"; {preset['source']}"
    rec.step("incapacitation", kind="info", numbers={"a": a, "b": b, "n": n, "p_hk": p},
             outcome="tool.p_hk" if sku > b else "tool.p_hk_threshold", source=source,
             a=g(a), b=g(b, 6), n=g(n, 5), sku=g(sku, 6), p=pct(p),
             preset_key=rec.key(f"opt.preset.choices.{opts.preset}"))
    rec.outcome.update(sk_units=sku, p_hk=p, incapacitated=pct(p),
                       summary_key=rec.key("tool.summary.p_hk"))
    rec.card("incapacitation", mass=g(opts.mass_grains), velocity=g(opts.velocity_fps))
