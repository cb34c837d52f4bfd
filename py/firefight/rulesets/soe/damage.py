"""soe section 10, "Damage": the Kokinakis-Sperrazza incapacitation formula (P_hk) on SK units,
the weapon damage modifier it gives (10.3), and creature toughness and hit points from mass
(10.5). The referee's tools (``referee``) and the creature stats (``models.SoeStats``) use these.
"""

from __future__ import annotations

import math


def sk_units(mass_grains: float, velocity_fps: float) -> float:
    """soe section 10: SK units ("Sperrazza energy") = m v^1.5, grains and feet per second."""
    return float(mass_grains * velocity_fps**1.5)


def incapacitation_probability(mass_grains: float, velocity_fps: float, a: float, b: float,
                               n: float) -> float:
    """soe section 10: P_hk = 1 - exp(-a (m v^1.5 - b)^n); zero at or below the threshold b."""
    excess = sk_units(mass_grains, velocity_fps) - b
    return 0.0 if excess <= 0 else 1 - math.exp(-a * excess**n)


def excel_round(x: float) -> int:
    """Excel's ROUND to an integer: halves away from zero (the text's formulas are Excel's)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def weapon_damage_raw(mass_grains: float, velocity_fps: float) -> float:
    """soe 10.3 before rounding: 64.79 - 10.94 log10(SKU), at impact velocity."""
    return 64.79 - 10.94 * math.log10(sk_units(mass_grains, velocity_fps))


def weapon_damage(mass_grains: float, velocity_fps: float) -> int:
    """soe 10.3: Damage Mod = -ROUND(64.79 - 10.94 log10(SKU))."""
    return -excel_round(weapon_damage_raw(mass_grains, velocity_fps))


def creature_toughness(mass_kg: float) -> float:
    """soe 10.5: Toughness = 0.43 mass^0.47 - 3 (unrounded; Table 7 agrees within one point)."""
    return float(0.43 * mass_kg**0.47 - 3)


def creature_hit_points(mass_kg: float) -> int:
    """soe 10.5: Hit Points = 0.393 mass^0.73, rounded.

    The text prints the exponent 0.47, but cites [48] eqn 9 (mass^0.73) and Table 7's values
    (human 8, rhino 65, elephant 149, horse 37, wolf 6) come out only with 0.73.
    """
    return round(float(0.393 * mass_kg**0.73))
