"""The dpv tables, loaded from ``tables/*.json`` once and validated (no gaps, no overlaps)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from firefight.tables import BandTable, load_json

PKG = "firefight.rulesets.dpv"


@dataclass(frozen=True)
class Tables:
    tasks: dict[str, Any]
    failure: BandTable[str]
    mishap: BandTable[str]
    impressions: BandTable[str]
    presets: dict[str, dict[str, Any]]
    wounding: dict[str, Any]
    locations: BandTable[str]
    potential: BandTable[str]
    target_hits: dict[str, Any]
    combat: dict[str, Any]
    armor_values: dict[str, Any]
    npcs: dict[str, Any]
    vehicle: BandTable[str]
    vehicle_table: dict[str, Any]
    explosives: dict[str, Any]


@cache
def tables() -> Tables:
    tasks = load_json(PKG, "tasks.json")
    hits = load_json(PKG, "target_hits.json")
    vehicle = load_json(PKG, "vehicle_damage.json")
    return Tables(
        tasks=tasks,
        failure=BandTable[str].model_validate(tasks["failure"]),
        mishap=BandTable[str].model_validate(tasks["mishap"]),
        impressions=BandTable[str].model_validate(tasks["uncertain_impressions"]),
        presets=load_json(PKG, "presets.json")["presets"],
        wounding=load_json(PKG, "wounding.json"),
        locations=BandTable[str].model_validate(hits["locations"]),
        potential=BandTable[str].model_validate(hits["potential"]),
        target_hits=hits,
        combat=load_json(PKG, "combat.json"),
        armor_values=load_json(PKG, "armor_values.json"),
        npcs=load_json(PKG, "npcs.json"),
        vehicle=BandTable[str].model_validate(
            {"source": vehicle["source"], "bands": vehicle["bands"]}),
        vehicle_table=vehicle,
        explosives=load_json(PKG, "explosives.json"),
    )


@lru_cache(maxsize=4096, typed=True)  # Fractions are immutable; parsing one costs microseconds
def exact(x: float | int | str) -> Fraction:
    """A decimal from a request or a table as an exact fraction (0.4 is 2/5, not a float)."""
    return Fraction(repr(x) if isinstance(x, float) else x)


# A fraction as its (numerator, denominator): a cache key that hashes and compares at C speed.
Ratio = tuple[int, int]


def ratio(x: Fraction) -> Ratio:
    return x.numerator, x.denominator


def armor_value(material: str) -> Fraction:
    """2300ad ARMOR VALUES: armor value per cm of the material."""
    return exact(tables().armor_values["materials"][material])


def chance(p: Fraction, **more: Any) -> dict[str, Any]:
    """Odds as the table shows them: the probability, and exactly as a fraction."""
    return {"probability": float(p), "exact": f"{p.numerator}/{p.denominator}", **more}
