"""The percentile tables, loaded from ``tables/*.json`` once and validated.

``small_arms.json``: every Small Arms number beside the line it cites. ``casualty.json``: the
Casualty Table grid (contiguous bands, full rows, percents 0..100). Where the two texts
disagree the choice is a setting, recorded in docs/rules-notes.md ("Percentile small arms").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from firefight.tables import BandTable, load_json

PKG = "firefight.rulesets.percentile"


@dataclass(frozen=True)
class Tables:
    small_arms: dict[str, Any]
    casualty_rows: BandTable[list[int]]
    casualty_columns: BandTable[int]


def casualty_tables(data: dict[str, Any]) -> tuple[BandTable[list[int]], BandTable[int]]:
    """Validate the Casualty Table data: contiguous bands, full rows, percents 0..100."""
    rows = BandTable[list[int]].model_validate({"source": data["source"], "bands": data["rows"]})
    columns = BandTable[int].model_validate({"source": data["source"],
                                             "bands": data["rounds_columns"]})
    width = len(columns.bands)
    if [b.value for b in columns.bands] != list(range(width)):
        raise ValueError(f"{data['source']}: columns must be numbered 0..{width - 1} in order")
    for band in rows.bands:
        if len(band.value) != width:
            raise ValueError(f"{data['source']}: row {band.lo}-{band.hi} has {len(band.value)} "
                             f"values for {width} columns")
        if not all(0 <= v <= 100 for v in band.value):
            raise ValueError(f"{data['source']}: row {band.lo}-{band.hi} has a value "
                             "outside 0..100")
    return rows, columns


@cache
def tables() -> Tables:
    rows, columns = casualty_tables(load_json(PKG, "casualty.json"))
    return Tables(small_arms=load_json(PKG, "small_arms.json"), casualty_rows=rows,
                  casualty_columns=columns)
