"""2300ad TRAVEL: typical travel times per 100 km hex, maximum speeds, and the interface table.

A reference lookup: no dice. Times are printed as "2d", "30m", "1h", "90s"; "+12h" adds to the
hex's terrain, "-12h" takes off (a highway for riders), "no" is impassable and "-" does not apply.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

from firefight.errors import rule_error
from firefight.record import Recorder
from firefight.rulesets.dpv import cards
from firefight.rulesets.dpv.models import InterfaceRequest, StutterwarpRequest, TravelRequest
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
    o = request.options
    base_text = t["times"][o.terrain][o.mode]
    kind, base = minutes(base_text)
    if kind in ("no", "na") or kind == "add":
        if kind == "no":
            raise rule_error("dpv", "travel_impossible",
                             f"{o.mode} travel over {o.terrain} is impossible", "options.terrain",
                             f"impassable for {o.mode} ({SRC_TRAVEL})",
                             mode=o.mode, terrain=o.terrain, source=SRC_TRAVEL)
        raise rule_error("dpv", "travel_not_given",
                         f"{o.mode} travel over {o.terrain} is not given by the table",
                         "options.terrain", f"not_applicable for {o.mode} ({SRC_TRAVEL})",
                         mode=o.mode, terrain=o.terrain, source=SRC_TRAVEL)
    per_hex = base or 0.0
    rows = [{"terrain": o.terrain, "printed": base_text, "minutes": base}]
    cells = [(f, t["times"][f][o.mode]) for f in o.features]
    # A road's own time replaces the terrain's (travel along it); then rivers, settlements,
    # crops and volcanoes add theirs ("+12h"), and a highway takes riders' time off ("-12h").
    cells.sort(key=lambda cell: minutes(cell[1])[0] != "set")
    for feature, text in cells:
        f_kind, value = minutes(text)
        if f_kind == "no":
            raise rule_error("dpv", "travel_feature", f"{o.mode} cannot cross {feature}",
                             "options.features", f"{feature} is impassable",
                             mode=o.mode, feature=feature)
        if f_kind == "na" or value is None:
            continue
        per_hex = per_hex + value if f_kind == "add" else value
        rows.append({"terrain": feature, "printed": text, "minutes": value})
    total = max(0.0, per_hex) * o.hexes
    for n in sorted({n for row in rows for n in _cell_notes(row["terrain"], o.mode)},
                    key=int):
        rec.note(f"note.travel.{n}", SRC_TRAVEL)
    rec.step("travel", "travel", kind="table",
             numbers={"per_hex_minutes": round(per_hex, 2), "hexes": o.hexes,
                      "total_minutes": round(total, 2), "rows": rows},
             outcome="outcome.travel", source=SRC_TRAVEL, time=describe(total),
             duration=said_duration(total))
    rec.outcome.update(per_hex_minutes=per_hex, total_minutes=total, time=describe(total),
                       duration=said_duration(total),
                       hexes=o.hexes, summary_key="FIREFIGHT.dpv.outcome.travel")
    cards.title(rec, request)


def resolve_interface(request: InterfaceRequest, rec: Recorder) -> None:
    """Preparation, travel time, cleanup and turn-around for a craft going up or coming down."""
    t = table()
    o = request.options
    row = t["interface"][o.direction].get(o.craft)
    if row is None:
        direction, crafts = o.direction.replace("_", " "), ", ".join(t["interface"][o.direction])
        raise rule_error("dpv", "interface_craft", f"{o.craft} is not listed for {direction}",
                         "options.craft", f"one of {crafts}",
                         craft=o.craft, direction=direction, crafts=crafts)
    values = dict(zip(t["interface_columns"], row, strict=True))
    rec.step("interface", "interface", kind="table", numbers=values,
             outcome="outcome.interface", source=SRC_INTERFACE, **values)
    rec.outcome.update(values, summary_key="FIREFIGHT.dpv.outcome.interface")
    cards.title(rec, request)


def resolve_stutterwarp(request: StutterwarpRequest, rec: Recorder) -> None:
    """Interstellar: distance / speed, with a 40-hour stop in a gravity well after every
    7.7 ly (the last leg ends in one). Interplanetary (within a gravity well): speed x 0.645
    au/day."""
    o, s = request.options, table()["stutterwarp"]
    legs = math.ceil(o.distance_ly / s["leg_limit_ly"]) if o.distance_ly else 0
    stops = max(0, legs - 1)
    ly_days = o.distance_ly / o.speed_ly_per_day
    au_per_day = o.speed_ly_per_day * s["au_per_day_per_ly_per_day"]
    au_days = o.distance_au / au_per_day
    total = (ly_days + au_days) * 24 * 60 + stops * s["stop_hours"] * 60
    rec.step("stutterwarp", "stutterwarp", kind="table",
             numbers={"speed_ly_per_day": o.speed_ly_per_day, "distance_ly": o.distance_ly,
                      "legs": legs, "stops": stops, "stop_hours": s["stop_hours"],
                      "au_per_day": round(au_per_day, 4), "distance_au": o.distance_au,
                      "total_minutes": round(total, 2)},
             outcome="outcome.stutterwarp", source=s["source"], time=describe(total),
             duration=said_duration(total))
    rec.outcome.update(total_minutes=total, stops=stops, au_per_day=au_per_day,
                       time=describe(total), duration=said_duration(total),
                       summary_key="FIREFIGHT.dpv.outcome.stutterwarp")
    cards.title(rec, request)


def _parts(total_minutes: float) -> tuple[int, int, int]:
    days, rest = divmod(round(total_minutes), 24 * 60)
    hours, mins = divmod(rest, 60)
    return days, hours, mins


def said_duration(total_minutes: float) -> dict[str, Any]:
    """A duration in words in the reader's language (a lang key with its params, as
    ``i18n.fill`` and the shim's ``localize`` say it): "2 days 4 hours", "2 Tage 4 Stunden";
    parts that are zero are left out, as :func:`describe` leaves them out."""
    days, hours, mins = _parts(total_minutes)
    shape = ("d" if days else "") + ("h" if hours else "") + ("m" if mins else "")
    return {"key": f"FIREFIGHT.dpv.duration.{shape or 'm'}", "fallback": describe(total_minutes),
            "params": {"days": days, "hours": hours, "minutes": mins}}


def describe(total_minutes: float) -> str:
    """A duration as the table prints them: days, hours, minutes."""
    days, hours, mins = _parts(total_minutes)
    parts = [f"{days}d"] if days else []
    parts += [f"{hours}h"] if hours else []
    parts += [f"{mins}m"] if mins or not parts else []
    return " ".join(parts)
