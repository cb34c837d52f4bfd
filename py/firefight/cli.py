"""``firefight`` on the command line: resolve, odds, sim, schema, card, rulesets."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import firefight
from firefight.rant import modifier_for_probability, success_probability


def _read_json(path: str) -> Any:
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    return json.loads(text)


def _faces(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError("--dice takes faces like 20,5,11") from None


def _print(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def _cmd_resolve(args: argparse.Namespace) -> int:
    result = firefight.resolve(_read_json(args.request), dice=args.dice, seed=args.seed)
    if "error" in result or args.format == "json":
        _print(result)
    else:
        print(firefight.render_card(result, fmt=args.format), end="")
    return 1 if "error" in result else 0


def _cmd_odds(args: argparse.Namespace) -> int:
    if args.probability is not None:
        m, p = modifier_for_probability(args.probability, ties_to_acting=not args.ties_lose)
        _print({"net_modifier": m, "probability": float(p), "exact": f"{p}"})
        return 0
    if args.modifier is not None:
        p = success_probability(args.modifier, ties_to_acting=not args.ties_lose)
        _print({"net_modifier": args.modifier, "probability": float(p), "exact": f"{p}"})
        return 0
    if args.request is None:
        print("odds needs a request file, --modifier N or --probability P", file=sys.stderr)
        return 2
    out = firefight.odds(_read_json(args.request))
    _print(out)
    return 1 if "error" in out else 0


class _Bar:
    """A progress bar on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.shown = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self.shown:
            filled = int(30 * done / max(total, 1))
            print(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done:,}/{total:,}", end="",
                  file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.shown:
            print(file=sys.stderr)


def _workers(args: argparse.Namespace) -> int:
    if args.workers is not None:
        if args.scheduler not in (None, "local"):
            raise SystemExit("firefight: --workers goes with local processes or --scheduler "
                             "local; a cluster's workers are its own")
        return int(args.workers)
    # A local Dask cluster gets a worker per core unless told; local processes only on request.
    return (os.cpu_count() or 1) if args.scheduler == "local" else 1


def _pct(p: float) -> str:
    return f"{100 * p:.2f}%"


def _interval(row: dict[str, Any]) -> str:
    low, high = row["interval95"]
    return f"{_pct(low)}-{_pct(high)}"


def _table(head: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell; the first left, the rest right aligned."""
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(r: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()

    return "\n".join([line(head), line(["-" * w for w in widths]), *map(line, rows)])


def _shots_text(shots: dict[str, Any]) -> str:
    if "unavailable" in shots:
        return f"shots until incapacitated: not for this request ({shots['unavailable']})"
    parts = [f"{k}: {_pct(r['share'])}" for k, r in shots["distribution"].items()]
    mean = "-" if shots["mean"] is None else f"{shots['mean']:.2f}"
    median = f"more than {shots['max']}" if shots["median"] is None else shots["median"]
    return (f"shots until incapacitated ({shots['chains']:,} chains, sampled): median {median}, "
            f"mean {mean} (of those within {shots['max']})\n  " + ", ".join(parts))


def sim_text(out: dict[str, Any]) -> str:
    """``firefight sim --format text``: one row per fact."""
    rows = []
    for label, row in out["outcomes"].items():
        exact = row.get("exact", {})
        # The fraction where it is short (9/20), else its percentage (60 rounds' are not).
        fraction = exact.get("exact", "")
        shown = fraction if 0 < len(fraction) <= 12 else _pct(exact["probability"]) if exact else ""
        rows.append([label, f"{row['count']:,}", _pct(row["share"]), _interval(row), shown,
                     ", ".join(row.get("same_as", []))])
    head = ["outcome", "count", "share", "95 % interval", "exact", "same as"]
    return (f"{out['ruleset']}: {out['n']:,} engagements, seed {out['seed']}\n"
            f"{_table(head, rows)}\n{_shots_text(out['shots_until_incapacitated'])}\n")


def sweep_text(out: dict[str, Any]) -> str:
    """``firefight sweep --format text``: a row per point, a column per fact; an exact figure
    is marked ``=``, a sampled one shows its 95 % interval's half width."""
    fields = [v["field"] for v in out["vary"]]
    labels = list(out["points"][0]["outcomes"]) if out["points"] else []
    rows = []
    for point in out["points"]:
        cells = [str(point["values"][f]) for f in fields]
        for label in labels:
            row = point["outcomes"][label]
            if "exact" in row:
                cells.append(f"={_pct(row['exact']['probability'])}")
            else:
                low, high = row["interval95"]
                cells.append(f"{_pct(row['share'])}±{100 * (high - low) / 2:.2f}")
        shots = point["shots_until_incapacitated"]
        cells.append("-" if shots.get("mean") is None else f"{shots['mean']:.2f}")
        rows.append(cells)
    head = [*fields, *labels, "mean shots"]
    table = _table(head, rows)
    return (f"{out['ruleset']}: {out['n']:,} engagements a point, seed {out['seed']}"
            f" (=: exact; ±: sampled, 95 % interval)\n{table}\n")


def _cmd_sim(args: argparse.Namespace) -> int:
    from firefight.sim import simulate

    bar = _Bar()
    out = simulate(_read_json(args.request), args.n, args.seed, workers=_workers(args),
                   scheduler=args.scheduler, progress=bar)
    bar.close()
    if "error" in out or args.format == "json":
        _print(out)
    else:
        print(sim_text(out), end="")
    return 1 if "error" in out else 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from firefight import lab_chart
    from firefight.errors import FirefightError
    from firefight.sweep import outputs, sweep, write

    try:
        lab_chart.require()
    except FirefightError as exc:
        _print({"error": exc.to_dict()})
        return 1
    bar = _Bar()
    out = sweep(_read_json(args.request), args.vary or [], args.n, args.seed,
                workers=_workers(args), scheduler=args.scheduler, progress=bar)
    bar.close()
    if "error" in out:
        _print(out)
        return 1
    written = write(Path(args.out), outputs(out, args.chart))
    if args.format == "json":
        _print(out)
    else:
        print(sweep_text(out), end="")
    print("wrote " + ", ".join(str(p) for p in written), file=sys.stderr)
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    out = firefight.schema(args.ruleset)
    _print(out)
    return 1 if "error" in out else 0


def _cmd_card(args: argparse.Namespace) -> int:
    print(firefight.render_card(_read_json(args.result), fmt=args.format), end="")
    return 0


def _cmd_tool(args: argparse.Namespace) -> int:
    """soe sections 6-11: the referee's tools, resolved as the table resolves them (the soe
    actions of ``firefight.rulesets.soe.referee``); prints the outcome, or the card."""
    actions = {"weapon": "weapon_damage", "creature": "creature_stats",
               "coverage": "armor_coverage", "m3": "m3_hit", "phk": "incapacitation"}
    fields = ("mass_grains", "velocity_fps", "mass_kg", "coverage", "width_m", "distance_m",
              "sigma_mil", "preset", "a", "b", "n")
    options = {k: getattr(args, k) for k in fields if getattr(args, k, None) is not None}
    result = firefight.resolve({"ruleset": "soe", "action": actions[args.tool],
                                "options": options})
    if "error" in result:
        _print(result)
        return 1
    if args.format != "json":
        print(firefight.render_card(result, fmt=args.format), end="")
        return 0
    _print({k: v for k, v in result["outcome"].items() if k != "summary_key"})
    return 0


def _cmd_rulesets(_: argparse.Namespace) -> int:
    _print(firefight.list_rulesets())
    return 0


def _add_sweep(sub: Any) -> None:
    w = sub.add_parser("sweep", help="balance lab: a request over a grid of varied fields, "
                                      "written as CSV, JSON and a chart")
    w.add_argument("request", nargs="?", default="-")
    w.add_argument("--vary", action="append", metavar="FIELD=START:STOP:STEP|V1,V2,...",
                   help="a dotted request field and its values (STOP included; a pack weapon "
                        "or armor by name); again for a second field, a line per value")
    w.add_argument("-n", type=int, default=100_000, help="engagements a point (default 100000)")
    w.add_argument("--seed", type=int, help="one seed for every point")
    w.add_argument("--out", default=".", help="directory for sweep.csv, sweep.json, the chart")
    w.add_argument("--chart", choices=("png", "svg", "html"), default="png")
    w.add_argument("--format", choices=("text", "json"), default="text",
                   help="what is printed (the files are the same)")
    _lab_arguments(w)
    w.set_defaults(func=_cmd_sweep)


def _lab_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, nargs="?", const=os.cpu_count() or 1,
                   help="local processes (--workers alone: one per core); with "
                        "--scheduler local, the LocalCluster's worker processes")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask cluster (tcp://host:8786), or 'local' for a "
                        "LocalCluster of this machine")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="firefight", description="Firefight rules engine")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("resolve", help="resolve a request (JSON file, or - for stdin)")
    r.add_argument("request", nargs="?", default="-")
    r.add_argument("--dice", type=_faces, help="scripted faces, e.g. 20,5,11")
    r.add_argument("--seed", type=int)
    r.add_argument("--format", choices=("json", "text", "html"), default="json")
    r.set_defaults(func=_cmd_resolve)

    o = sub.add_parser("odds", help="exact hit chance for a request or a net modifier")
    o.add_argument("request", nargs="?")
    o.add_argument("--modifier", type=int, help="net modifier of an opposed RANT roll")
    o.add_argument("--probability", type=float, help="the modifier for a probability")
    o.add_argument("--ties-lose", action="store_true", help="ties go to the other side")
    o.set_defaults(func=_cmd_odds)

    b = sub.add_parser("sim", help="balance lab: resolve a request N times, count the outcomes")
    b.add_argument("request", nargs="?", default="-")
    b.add_argument("-n", type=int, default=100_000, help="engagements (default 100000)")
    b.add_argument("--seed", type=int)
    _lab_arguments(b)
    b.add_argument("--format", choices=("json", "text"), default="json")
    b.set_defaults(func=_cmd_sim)

    _add_sweep(sub)

    s = sub.add_parser("schema", help="JSON schemas of a ruleset's request and options")
    s.add_argument("ruleset")
    s.set_defaults(func=_cmd_schema)

    c = sub.add_parser("card", help="render a result (JSON file, or -) as a card")
    c.add_argument("result", nargs="?", default="-")
    c.add_argument("--format", choices=("html", "text"), default="text")
    c.set_defaults(func=_cmd_card)

    sub.add_parser("rulesets", help="list the registered rulesets").set_defaults(
        func=_cmd_rulesets)

    t = sub.add_parser("tool", help="Stars of Empire referee tools (sections 6-11)")
    t.add_argument("--format", choices=("json", "text", "html"), default="json")
    tools = t.add_subparsers(dest="tool", required=True)
    w = tools.add_parser("weapon", help="damage modifier from bullet mass and impact velocity")
    w.add_argument("--grains", dest="mass_grains", type=float, required=True)
    w.add_argument("--fps", dest="velocity_fps", type=float, required=True,
                   help="impact velocity, feet per second")
    c = tools.add_parser("creature", help="toughness and hit points from mass")
    c.add_argument("--mass", dest="mass_kg", type=float, required=True, help="kg")
    v = tools.add_parser("coverage", help="armor effectiveness from coverage")
    v.add_argument("coverage", type=float, help="fraction of the body covered, 0..1")
    m = tools.add_parser("m3", help="hit probability by the M3 equation")
    m.add_argument("--width", dest="width_m", type=float, required=True, help="target width, m")
    m.add_argument("--distance", dest="distance_m", type=float, required=True, help="m")
    m.add_argument("--sigma", dest="sigma_mil", type=float, required=True,
                   help="aiming error, mil")
    k = tools.add_parser("phk", help="incapacitation probability P_hk (section 10)")
    k.add_argument("--grains", dest="mass_grains", type=float, required=True)
    k.add_argument("--fps", dest="velocity_fps", type=float, required=True)
    k.add_argument("--preset", choices=("offense_winter_helmet", "nude_5min", "custom"))
    for name in ("a", "b", "n"):
        k.add_argument(f"--{name}", type=float, help=f"the constant {name} (overrides the preset)")
    t.set_defaults(func=_cmd_tool)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"firefight: {exc}", file=sys.stderr)
        return 2
