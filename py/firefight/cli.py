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
    """soe sections 6-11: the derivations as referee tools."""
    from firefight.rulesets.soe import tools

    if args.tool == "weapon":
        _print({"sk_units": tools.sk_units(args.grains, args.fps),
                "damage": tools.weapon_damage(args.grains, args.fps),
                "source": "soe 10.3: -ROUND(64.79 - 10.94 log10(SKU))"})
    elif args.tool == "creature":
        _print({"toughness": round(tools.creature_toughness(args.mass), 2),
                "hit_points": tools.creature_hit_points(args.mass),
                "source": "soe 10.5 (hit points with exponent 0.73, as Table 7 needs)"})
    elif args.tool == "coverage":
        _print({"effectiveness": tools.coverage_effectiveness(args.coverage),
                "source": "soe 11.2.1: 1 - (1 - coverage)^2"})
    else:
        _print({"probability": tools.m3_hit_probability(args.width, args.distance, args.sigma),
                "source": "soe section 6, the M3 equation"})
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
    tools = t.add_subparsers(dest="tool", required=True)
    w = tools.add_parser("weapon", help="damage modifier from bullet mass and impact velocity")
    w.add_argument("--grains", type=float, required=True)
    w.add_argument("--fps", type=float, required=True, help="impact velocity, feet per second")
    c = tools.add_parser("creature", help="toughness and hit points from mass")
    c.add_argument("--mass", type=float, required=True, help="kg")
    v = tools.add_parser("coverage", help="armor effectiveness from coverage")
    v.add_argument("coverage", type=float, help="fraction of the body covered, 0..1")
    m = tools.add_parser("m3", help="hit probability by the M3 equation")
    m.add_argument("--width", type=float, required=True, help="target width, m")
    m.add_argument("--distance", type=float, required=True, help="m")
    m.add_argument("--sigma", type=float, required=True, help="aiming error, mil")
    t.set_defaults(func=_cmd_tool)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (OSError, json.JSONDecodeError) as exc:
        print(f"firefight: {exc}", file=sys.stderr)
        return 2
