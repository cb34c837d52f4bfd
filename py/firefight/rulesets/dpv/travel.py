"""2300ad TRAVEL: typical travel times per 100 km hex, maximum speeds, and the interface table.

A reference lookup: no dice. Times are printed as "2d", "30m", "1h", "90s"; "+12h" adds to the
hex's terrain, "-12h" takes off (a highway for riders), "no" is impassable and "-" does not apply.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from firefight.errors import RuleRefusalError
from firefight.record import Recorder
from firefight.rulesets.dpv import cards
from firefight.rulesets.dpv.models import InterfaceRequest, TravelRequest
from firefight.tables import load_json

PKG = "firefight.rulesets.dpv"
SRC_TRAVEL = "2300ad TYPICAL TRAVEL TIMES (per 100km hex)"
SRC_INTERFACE = "2300ad TRAVEL TIME - INTERFACE"
_DURATION = re.compile(r"^([+-]?)(\d+(?:\.\d+)?)(s|m|h|d)$")
_MINUTES = {"s": 1 / 60, "m": 1, "h": 60, "d": 24 * 60}
TERRAINS = ("flat", "hilly", "broken", "mountain", "savannah", "woods", "forest", "swamp",
            "desert", "volcano", "craters", "river", "lake", "glacier", "city_town", "cropland",
            "road_grid", "highway", "calm_seas", "high_seas", "coastal_waters")
MODES = ("foot", "horse", "hover", "wheel", "tracked", "aircraft", "lta", "ship", "hydrofoil",
         "boat")
CRAFTS = ("rocket", "rocket_plane", "scramjet", "catapult", "beanstalk", "parachute", "deadfall",
          "lifting_body")


@cache
def table() -> dict[str, Any]:
    return dict(load_json(PKG, "travel.json"))


def minutes(text: str) -> tuple[str, float | None]:
    """("add" | "set" | "no" | "na", minutes) for one printed cell."""
    if text == "no":
        return "no", None
    if text == "-":
        return "na", None
    m = _DURATION.match(text)
    if m is None:
        raise ValueError(f"unreadable travel time {text!r}")
    sign, amount, unit = m.groups()
    value = float(amount) * _MINUTES[unit]
    return ("add", -value if sign == "-" else value) if sign else ("set", value)


def _cell_notes(terrain: str, mode: str) -> list[str]:
    t = table()
    found = list(t["mode_notes"].get(mode, [])) + list(t["row_notes"].get(terrain, []))
    for cell in t["cell_notes"]:
        if (cell["terrain"], cell["mode"]) == (terrain, mode):
            found += cell["notes"]
    return [str(n) for n in sorted(set(found))]


def resolve_travel(request: TravelRequest, rec: Recorder) -> None:
    """Time to cross ``hexes`` hexes of a terrain by one mode, with the features that add time."""
    t = table()
    base_text = t["times"][request.terrain][request.mode]
    kind, base = minutes(base_text)
    if kind in ("no", "na") or kind == "add":
        reason = "impassable" if kind == "no" else "not_applicable"
        raise RuleRefusalError(
            f"{request.mode} travel over {request.terrain} is "
            + ("impossible" if kind == "no" else "not given by the table"),
            fields=[("terrain", f"{reason} for {request.mode} ({SRC_TRAVEL})")])
    per_hex = base or 0.0
    rows = [{"terrain": request.terrain, "printed": base_text, "minutes": base}]
    cells = [(f, t["times"][f][request.mode]) for f in request.features]
    # A road's own time replaces the terrain's (travel along it); then rivers, settlements,
    # crops and volcanoes add theirs ("+12h"), and a highway takes riders' time off ("-12h").
    cells.sort(key=lambda cell: minutes(cell[1])[0] != "set")
    for feature, text in cells:
        f_kind, value = minutes(text)
        if f_kind == "no":
            raise RuleRefusalError(f"{request.mode} cannot cross {feature}",
                                   fields=[("features", f"{feature} is impassable")])
        if f_kind == "na" or value is None:
            continue
        per_hex = per_hex + value if f_kind == "add" else value
        rows.append({"terrain": feature, "printed": text, "minutes": value})
    total = max(0.0, per_hex) * request.hexes
    for n in sorted({n for row in rows for n in _cell_notes(row["terrain"], request.mode)},
                    key=int):
        rec.note(f"note.travel.{n}", SRC_TRAVEL)
    rec.step("travel", "travel", kind="table",
             numbers={"per_hex_minutes": round(per_hex, 2), "hexes": request.hexes,
                      "total_minutes": round(total, 2), "rows": rows},
             outcome="outcome.travel", source=SRC_TRAVEL, time=describe(total))
    rec.outcome.update(per_hex_minutes=per_hex, total_minutes=total, time=describe(total),
                       summary_key="FIREFIGHT.dpv.outcome.travel")
    cards.title(rec, request)


def resolve_interface(request: InterfaceRequest, rec: Recorder) -> None:
    """Preparation, travel time, cleanup and turn-around for a craft going up or coming down."""
    t = table()
    row = t["interface"][request.direction].get(request.craft)
    if row is None:
        raise RuleRefusalError(
            f"{request.craft} is not listed for {request.direction.replace('_', ' ')}",
            fields=[("craft", f"one of {', '.join(t['interface'][request.direction])}")])
    values = dict(zip(t["interface_columns"], row, strict=True))
    rec.step("interface", "interface", kind="table", numbers=values,
             outcome="outcome.interface", source=SRC_INTERFACE, **values)
    rec.outcome.update(values, summary_key="FIREFIGHT.dpv.outcome.interface")
    cards.title(rec, request)


def describe(total_minutes: float) -> str:
    """A duration as the table prints them: days, hours, minutes."""
    days, rest = divmod(round(total_minutes), 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{days}d"] if days else []
    parts += [f"{hours}h"] if hours else []
    parts += [f"{mins}m"] if mins or not parts else []
    return " ".join(parts)
