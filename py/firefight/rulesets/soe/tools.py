"""Tools for referees and module authors: the derivations of soe sections 6-11 as functions.

They let a referee stat a new weapon, armor or creature the way the text's tables were made.
"""

from __future__ import annotations

import math
from fractions import Fraction

from firefight.rant import modifier_for_probability, success_probability


def sk_units(mass_grains: float, velocity_fps: float) -> float:
    """soe section 10: SK units ("Sperrazza energy") = m v^1.5, grains and feet per second."""
    return float(mass_grains * velocity_fps**1.5)


def weapon_damage(mass_grains: float, velocity_fps: float) -> int:
    """soe 10.3: Damage Mod = -ROUND(64.79 - 10.94 log10(SKU)), at impact velocity.

    Excel's ROUND rounds halves away from zero; so does this.
    """
    x = 64.79 - 10.94 * math.log10(sk_units(mass_grains, velocity_fps))
    return -int(math.copysign(math.floor(abs(x) + 0.5), x))


def incapacitation_probability(mass_grains: float, velocity_fps: float, a: float, b: float,
                               n: float) -> float:
    """soe 10: P_hk = 1 - exp(-a (m v^1.5 - b)^n); zero below the threshold b."""
    excess = sk_units(mass_grains, velocity_fps) - b
    return 0.0 if excess <= 0 else 1 - math.exp(-a * excess**n)


def creature_toughness(mass_kg: float) -> float:
    """soe 10.5: Toughness = 0.43 mass^0.47 - 3 (unrounded; Table 7 agrees within one point)."""
    return float(0.43 * mass_kg**0.47 - 3)


def creature_hit_points(mass_kg: float) -> int:
    """soe 10.5: Hit Points = 0.393 mass^0.73, rounded.

    The text prints the exponent 0.47, but cites [48] eqn 9 (mass^0.73) and Table 7's values
    (human 8, rhino 65, elephant 149, horse 37, wolf 6) come out only with 0.73.
    """
    return round(float(0.393 * mass_kg**0.73))


def coverage_effectiveness(coverage: float) -> float:
    """soe 11.2.1: Effectiveness = 1 - (1 - coverage)^2 (10 % coverage is 19 % effective)."""
    if not 0 <= coverage <= 1:
        raise ValueError("coverage is a fraction between 0 and 1")
    return 1 - (1 - coverage) ** 2


def m3_hit_probability(target_width_m: float, distance_m: float, sigma_mil: float) -> float:
    """soe section 6, the M3 equation: P = 1 - exp(-(T / sigma)^2), T = width / distance (mil)."""
    if distance_m <= 0 or sigma_mil <= 0:
        raise ValueError("distance and sigma must be positive")
    t_mil = 1000 * target_width_m / distance_m
    return 1 - math.exp(-((t_mil / sigma_mil) ** 2))


def modifier_for(probability: float) -> tuple[int, Fraction]:
    """soe sections 4 and 7: the opposed-roll modifier for a probability, exactly."""
    return modifier_for_probability(probability)


def probability_for(modifier: int) -> Fraction:
    """The exact chance of an opposed RANT roll at a net modifier (ties to the acting side)."""
    return success_probability(modifier)
