"""The SHOCK tables, loaded from ``tables/*.json`` once and checked against the text's shape
(eight qualities, six locations, six damage classes, ten severity rows).

Each reading of the draft text is recorded in docs/rules-notes.md ("SHOCK skirmish") with the
line it comes from; the referee edits the JSON, never this code.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from firefight.rulesets.shock.models import (
    COVER_PRESETS,
    DAMAGE_CLASSES,
    LOCATIONS,
    QUALITIES,
    TIERS,
)
from firefight.tables import BandTable, load_json

PKG = "firefight.rulesets.shock"
D10 = 10  # every SHOCK roll is 1d10 (to hit, location, severity, shock check)
SEVERITY_ROWS = D10  # the Location Severity table's rows
PHASES = 4  # shock Troop Quality: a turn's phases, P1-P4


def exact(p: Fraction) -> str:
    """An exact chance as the odds show it: "3/10"."""
    return f"{p.numerator}/{p.denominator}"


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
    for level, row in enumerate(rows.values(), start=1):
        if len(row.phases) != PHASES or any(c not in ("", "x", "xx") for c in row.phases):
            raise ValueError(f"quality.json: {row.quality}: P1-P4 must be '', 'x' or 'xx'")
        # shock Unit Activation, "Max pool is equivalent to unit skill level": a unit never has
        # more activations in a turn than its skill level (its rank; as printed, exactly that).
        if sum(row.chits) > level:
            raise ValueError(f"quality.json: {row.quality}: {sum(row.chits)} chits a turn, more "
                             f"than its skill level {level} (the max pool)")
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
