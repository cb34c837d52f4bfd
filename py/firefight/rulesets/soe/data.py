"""Stars of Empire tables: the JSON files in ``tables/``, loaded once and validated.

Every number the rules read comes from here (or from the request); the referee edits the files.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from firefight.tables import BandTable, load_json

PKG = "firefight.rulesets.soe"


@dataclass(frozen=True)
class Tables:
    table1: dict[str, Any]
    table10: dict[str, int]
    called_shots: dict[str, float]
    trauma: dict[str, list[str]]
    projectiles: BandTable[int]
    injury: BandTable[str]
    delayed: BandTable[str | None]
    pretrauma: BandTable[int | None]
    multiplier_rows: BandTable[list[int]]
    multiplier_columns: BandTable[int]


@cache
def table1() -> dict[str, Any]:
    """soe Table 1, To-Hit Modifiers (the models read its Scope row for a weapon's default)."""
    found: dict[str, Any] = load_json(PKG, "table1.json")
    return found


@cache
def table10() -> dict[str, int]:
    """soe Table 10, Illumination Effects: the finer visibility rows."""
    found: dict[str, int] = load_json(PKG, "table10.json")["visibility"]
    return found


@cache
def incapacitation_presets() -> dict[str, dict[str, float]]:
    """soe section 10's two worked examples' P_hk constants (a, b, n), by preset name."""
    found: dict[str, dict[str, float]] = load_json(PKG, "incapacitation.json")["presets"]
    return found


@cache
def tables() -> Tables:
    t3 = load_json(PKG, "table3.json")
    t4 = load_json(PKG, "table4.json")
    columns = [{**c, "value": i} for i, c in enumerate(t4["projectile_columns"])]
    return Tables(
        table1=table1(),
        table10=table10(),
        called_shots={k: v["width_cm"] for k, v in
                      load_json(PKG, "called_shots.json")["parts"].items()},
        trauma=load_json(PKG, "trauma.json")["classes"],
        projectiles=BandTable[int].model_validate(load_json(PKG, "projectiles.json")),
        injury=BandTable[str].model_validate(t3["injury"]),
        delayed=BandTable[str | None].model_validate(t3["delayed"]),
        pretrauma=BandTable[int | None].model_validate(t3["pretrauma"]),
        multiplier_rows=BandTable[list[int]].model_validate(
            {"source": t4["source"], "bands": t4["rows"]}
        ),
        multiplier_columns=BandTable[int].model_validate(
            {"source": t4["source"], "bands": columns}
        ),
    )


def load_tables() -> None:
    """Read and validate the tables now (Ruleset.load_data: the worker's idle warm-up)."""
    tables()
