"""The balance lab's sweeps (``firefight sweep``): one request with some of its fields varied over
a grid, every point run as ``firefight sim`` runs one request (``firefight.sim``).

Each point gets the same seed, so the points differ only by what was varied (their curves do not
jitter against one another), and a point's figures equal ``simulate(point, n, seed)``'s. All the
points' chunks go through one pool of processes or one Dask cluster (``sim.run_jobs``). The
files are written only when every point has run: ``sweep.csv``, ``sweep.json`` and the chart
(``chart``: matplotlib, docs/building.md "Balance lab").
"""

from __future__ import annotations

import copy
import csv
import io
import itertools
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from firefight import api, registry
from firefight.errors import FirefightError
from firefight.sim import (
    Chunk,
    Labels,
    _check,
    chunks,
    exact_figures,
    facts,
    figure,
    merge,
    report,
    run_jobs,
)

MAX_POINTS = 1000
MAX_VALUES = 200  # values of one varied field
CHARTS = ("png", "svg", "html")
# An empty list for a list field (``--vary target.armor=none``).
NONE = "none"
# What the CSV gives per outcome, after the varied values.
COLUMNS = ("figure", "from", "share", "low", "high", "exact")


@dataclass(frozen=True)
class Vary:
    """One varied field: its dotted path in the request and the values it takes (``shown``:
    how the CSV and the chart name each, e.g. a pack item's name)."""

    field: str
    values: tuple[Any, ...]
    shown: tuple[Any, ...]


def _bad(field: str, reason: str, message: str | None = None) -> FirefightError:
    return FirefightError(message or f"--vary {field}: {reason}",
                          fields=[(field, reason)], code="invalid_vary")


def _literal(text: str) -> Any:
    """A value as typed: a JSON number, true, false or null, else the text itself."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, int | float | bool) or value is None else text


def _number(field: str, text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise _bad(field, f"{text!r} is not a number (START:STOP:STEP)") from None
    if not value.is_finite():
        raise _bad(field, f"{text!r} is not a finite number")
    return value


def parse_vary(text: str) -> tuple[str, list[Any]]:
    """``FIELD=START:STOP:STEP`` (STOP included) or ``FIELD=V1,V2,...`` -> (field, values)."""
    field, sep, spec = text.partition("=")
    field = field.strip()
    if not sep or not field or not spec.strip():
        raise _bad(field or text, "expected FIELD=START:STOP:STEP or FIELD=V1,V2,...")
    if spec.count(":") == 2 and "," not in spec:
        start, stop, step = (_number(field, part.strip()) for part in spec.split(":"))
        if step == 0 or (stop - start) * step < 0:
            raise _bad(field, f"{spec!r}: STEP must lead from START to STOP")
        count = int((stop - start) / step) + 1
        if count > MAX_VALUES:
            raise _bad(field, f"{spec!r} gives {count} values, at most {MAX_VALUES}")
        numbers = [start + i * step for i in range(count)]
        whole = all(x == x.to_integral_value() for x in numbers)
        return field, [int(x) if whole else float(x) for x in numbers]
    # CSV, so a name holding a comma can be quoted: weapon='"Cei-Rigotti, 6.5mm",Kar98k'
    values = [_literal(part.strip()) for part in next(csv.reader([spec], skipinitialspace=True))]
    if len(values) > MAX_VALUES:
        raise _bad(field, f"{len(values)} values, at most {MAX_VALUES}")
    return field, values


def _node(schema: dict[str, Any], node: Any) -> list[dict[str, Any]]:
    """A schema node with its $refs followed and its anyOf/oneOf/allOf branches listed."""
    if not isinstance(node, dict):
        return []
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _node(schema, schema.get("$defs", {}).get(ref.removeprefix("#/$defs/")))
    branches = [b for key in ("anyOf", "oneOf", "allOf") for b in node.get(key, [])]
    if branches:
        return [n for b in branches for n in _node(schema, b)]
    return [node]


def field_schema(schema: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """The schema nodes a dotted request path can be (empty: the path is not in the request
    schema). A field under an open object (``additionalProperties``) is taken as it is."""
    nodes = _node(schema, schema)
    for part in field.split("."):
        found: list[dict[str, Any]] = []
        for node in nodes:
            props = node.get("properties") or {}
            if part in props:
                found += _node(schema, props[part])
            elif node.get("type") == "array" and part.isdigit():
                found += _node(schema, node.get("items"))
            elif node.get("additionalProperties") not in (None, False):
                extra = node["additionalProperties"]
                found += _node(schema, extra) if isinstance(extra, dict) and extra else [{}]
        if not found:
            return []
        nodes = found
    return nodes


def _packs_dirs() -> list[Path]:
    here = Path(__file__).resolve().parents[2] / "packs" / "_source"  # a source checkout
    return [d for d in (Path.cwd() / "packs" / "_source", here) if d.is_dir()]


def pack_items(ruleset: str) -> dict[str, dict[str, Any]]:
    """The compendium packs' items for a ruleset by lower-case name: the entry a request takes
    for it, as the table builds it (``js-shim/workflow/request.mjs`` ``itemEntry``)."""
    items: dict[str, dict[str, Any]] = {}
    for folder in _packs_dirs():
        for path in sorted(folder.glob("*/*.json")):
            doc = json.loads(path.read_text(encoding="utf-8"))
            data = (doc.get("flags", {}).get("firefight") or {}).get(ruleset)
            if isinstance(data, dict) and "category" in data and isinstance(doc.get("name"), str):
                items.setdefault(doc["name"].lower(), {"name": doc["name"],
                                                       "item_id": doc.get("_id"), **data})
        if items:
            break
    return items


def _is_object(nodes: list[dict[str, Any]]) -> bool:
    return any(n.get("type") == "object" or "properties" in n for n in nodes)


def _item_value(field: str, nodes: list[dict[str, Any]], value: Any,
                items: Callable[[], dict[str, dict[str, Any]]]) -> Any:
    """A pack item's entry for a weapon or armor field named by the item's name."""
    listed = [n for n in nodes if n.get("type") == "array"]
    if not isinstance(value, str) or not (listed or _is_object(nodes)):
        return value
    if listed and value.lower() == NONE:
        return []
    category = field.rsplit(".", 1)[-1]
    kind = category if category in ("weapon", "armor") else None
    mine = {name: item for name, item in items().items()
            if kind is None or item["category"] == kind}
    # The item's name, or the start of only one (``Kar98k`` for "Kar98k rifle (7.92x57mm)").
    found = mine.get(value.lower())
    starts = [item for name, item in mine.items() if name.startswith(value.lower())]
    if found is None and len(starts) == 1:
        found = starts[0]
    if found is None:
        what = f"{kind or 'pack'} item"
        reason = (f"{value!r} names {len(starts)} {what}s: "
                  + "; ".join(i["name"] for i in starts[:5])) if starts else (
                  f"no {what} named {value!r} in the compendium packs (packs/_source)")
        raise _bad(field, reason)
    return [found] if listed else found


def resolve_varies(request: dict[str, Any], texts: Sequence[str]) -> list[Vary]:
    """The ``--vary`` options checked against the request's schema: each field a path of the
    request, each pack name an item's entry."""
    if not texts:
        raise FirefightError("a sweep needs at least one --vary FIELD=...",
                             fields=[("vary", "at least one")], code="invalid_vary")
    ruleset, model = api.parse(request)
    action = str(getattr(model, "action", ""))
    schema = ruleset.action(action).request.model_json_schema(by_alias=True)
    cache: dict[str, dict[str, Any]] = {}

    def items() -> dict[str, dict[str, Any]]:
        if not cache:
            cache.update(pack_items(ruleset.id))
        return cache

    out: list[Vary] = []
    for text in texts:
        field, values = parse_vary(text)
        nodes = field_schema(schema, field)
        if not nodes or field in ("ruleset", "action"):
            raise _bad(field, f"not a field of a {ruleset.id} {action} request")
        if field in (v.field for v in out):
            raise _bad(field, "varied twice")
        out.append(Vary(field, tuple(_item_value(field, nodes, v, items) for v in values),
                        tuple(values)))
    total = 1
    for vary in out:
        total *= len(vary.values)
    if total > MAX_POINTS:
        raise FirefightError(f"{total} points, at most {MAX_POINTS}",
                             fields=[("vary", f"at most {MAX_POINTS} points")],
                             code="invalid_vary")
    return out


def _put(request: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
    """A copy of ``request`` with ``value`` at the dotted ``field`` (objects on the way made;
    a list's element must be there: ``target.armor.0.coverage``)."""
    point = copy.deepcopy(request)
    node: Any = point
    parts = field.split(".")
    try:
        for part in parts[:-1]:
            node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
        if isinstance(node, list):
            node[int(parts[-1])] = copy.deepcopy(value)
        else:
            node[parts[-1]] = copy.deepcopy(value)
    except (IndexError, ValueError, AttributeError, TypeError):
        raise _bad(field, "the request has nothing there to vary (a list too short, or not an "
                          "object)") from None
    return point


def points(request: dict[str, Any], varies: Sequence[Vary]) -> list[tuple[dict[str, Any],
                                                                          dict[str, Any]]]:
    """Every combination: (the varied values as shown, the point's request), each request
    checked (a value the model or the rules refuse names its field and the point)."""
    out = []
    for combo in itertools.product(*(range(len(v.values)) for v in varies)):
        shown = {v.field: v.shown[i] for v, i in zip(varies, combo, strict=True)}
        point = request
        for vary, i in zip(varies, combo, strict=True):
            point = _put(point, vary.field, vary.values[i])
        try:
            ruleset, model = api.parse(point)
            ruleset.cached_odds(model)
        except FirefightError as exc:
            where = ", ".join(f"{k}={v}" for k, v in shown.items())
            exc.message = f"at {where}: {exc.message}"
            raise
        out.append((shown, point))
    return out


def sweep(request: dict[str, Any], vary: Sequence[str], n: int = 100_000,
          seed: int | None = None, *, workers: int = 1, scheduler: Any = None,
          progress: Callable[[int, int], None] | None = None,
          timeout: float | None = None) -> dict[str, Any]:
    """Every point of the grid ``vary`` (``--vary`` texts) spans, ``n`` engagements each:
    ``{"ruleset", "n", "seed", "vary": [{"field", "values"}], "points": [{"values",
    "outcomes", "shots_until_incapacitated"}]}``, or ``{"error"}`` naming the field."""
    try:
        _check(request, n, seed, workers)
        varies = resolve_varies(request, vary)
        grid = points(request, varies)
    except FirefightError as exc:
        return {"error": exc.to_dict()}
    seed = seed if seed is not None else int.from_bytes(os.urandom(6), "big")
    jobs = [chunks(point, n, seed) for _, point in grid]
    flat = [job for per_point in jobs for job in per_point]
    total, done = n * len(grid), 0

    def step(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done, total)

    try:
        parts = run_jobs(flat, workers=workers, scheduler=scheduler, progress=step,
                         timeout=timeout)
    except FirefightError as exc:
        return {"error": exc.to_dict()}
    merged: list[tuple[Counter[Labels], Counter[int] | str]] = []
    at = 0
    for per_point in jobs:
        mine: list[Chunk] = parts[at:at + len(per_point)]
        merged.append(merge(mine))
        at += len(per_point)
    folded = facts(counts for counts, _ in merged)
    rows = []
    for (shown, point), (counts, taken) in zip(grid, merged, strict=True):
        ruleset, model = api.parse(point)
        figures = report(ruleset.id, n, counts, exact_figures(ruleset.cached_odds(model)),
                         taken=taken, folded=folded)
        rows.append({"values": shown, "outcomes": figures["outcomes"],
                     "shots_until_incapacitated": figures["shots_until_incapacitated"]})
    run: dict[str, Any] = {"seed": seed, "workers": workers}
    if scheduler is not None:
        run["scheduler"] = scheduler if isinstance(scheduler, str) else "client"
    return {"ruleset": registry.get(request["ruleset"]).id, "n": n, **run,
            "vary": [{"field": v.field, "values": list(v.shown)} for v in varies],
            "points": rows}


def to_csv(result: dict[str, Any]) -> str:
    """One row per point: the varied values, then per outcome its figure, where it comes from
    (exact or sampled), the sampled share, its 95 % interval and the exact value; then the
    shots until incapacitated (median, mean, share past the last)."""
    fields = [v["field"] for v in result["vary"]]
    labels = list(result["points"][0]["outcomes"]) if result["points"] else []
    head = [*fields, *(f"{label}.{c}" for label in labels for c in COLUMNS),
            "shots.median", "shots.mean", "shots.more"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(head)
    for point in result["points"]:
        row: list[Any] = [point["values"][f] for f in fields]
        for label in labels:
            o = point["outcomes"][label]
            value, exact = figure(o)
            given = o.get("exact", {})
            row += [value, "exact" if exact else "sampled", o["share"], *o["interval95"],
                    given.get("exact", given.get("probability", ""))]
        shots = point["shots_until_incapacitated"]
        more = shots.get("distribution", {}).get(f">{shots.get('max')}", {})
        row += [shots.get("median") or "", shots.get("mean") or "", more.get("share", "")]
        writer.writerow(["" if v is None else v for v in row])
    return out.getvalue()


def write(out_dir: Path, files: dict[str, bytes]) -> list[Path]:
    """Every file or none: each is written to a temporary file beside it first, then all are
    moved into place."""
    out_dir.mkdir(parents=True, exist_ok=True)
    umask = os.umask(0)
    os.umask(umask)
    staged: list[tuple[str, Path]] = []
    try:
        for name, data in files.items():
            fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{name}.")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            Path(tmp).chmod(0o666 & ~umask)  # as open() would make it, not mkstemp's 0600
            staged.append((tmp, out_dir / name))
    except OSError:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    for tmp, final in staged:
        Path(tmp).replace(final)
    return [final for _, final in staged]


def outputs(result: dict[str, Any], chart: str) -> dict[str, bytes]:
    """The files of a sweep: ``sweep.csv``, ``sweep.json``, ``sweep.<chart>``."""
    from firefight import lab_chart

    table = to_csv(result)
    return {"sweep.csv": table.encode(),
            "sweep.json": (json.dumps(result, indent=2, ensure_ascii=False) + "\n").encode(),
            f"sweep.{chart}": lab_chart.render(result, chart, table)}
