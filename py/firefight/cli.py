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


def _cmd_sim(args: argparse.Namespace) -> int:
    from firefight.sim import simulate

    bar = _Bar()
    workers = args.workers if args.workers is not None else 1
    out = simulate(_read_json(args.request), args.n, args.seed, workers=workers, progress=bar)
    bar.close()
    _print(out)
    return 1 if "error" in out else 0


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
    b.add_argument("--workers", type=int, nargs="?", const=os.cpu_count() or 1,
                   help="processes (--workers alone: one per core)")
    b.add_argument("--seed", type=int)
    b.set_defaults(func=_cmd_sim)

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
