#!/usr/bin/env python3
"""Write every ruleset's world-settings and actor-data JSON schemas for the shim.

    python tools/dump_schemas.py [runtime/schemas.json]

Foundry registers settings at ``init``, long before the engine has booted in its Web Worker, so
the shim reads the schemas from this file (shipped in the module zip beside the wheels). The file
is only rewritten when its content changes, so ``make runtime`` stays quick.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import firefight

REPO = Path(__file__).resolve().parent.parent


def schemas() -> dict[str, object]:
    out: dict[str, object] = {"version": firefight.__version__, "rulesets": {}}
    rulesets: dict[str, object] = {}
    for info in firefight.list_rulesets():
        rid = str(info["id"])
        schema = firefight.schema(rid)
        if "error" in schema:
            raise SystemExit(f"schema({rid!r}) failed: {schema['error']}")
        rulesets[rid] = {
            "label_key": info.get("label_key"),
            "actions": info.get("actions"),
            "settings": schema.get("settings"),
            "stats": schema.get("stats"),
        }
    out["rulesets"] = rulesets
    return out


def main(argv: list[str]) -> None:
    target = Path(argv[0]) if argv else REPO / "runtime" / "schemas.json"
    text = json.dumps(schemas(), indent=1) + "\n"
    if target.exists() and target.read_text("utf-8") == text:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, "utf-8")
    print(f"wrote {target.relative_to(REPO) if target.is_relative_to(REPO) else target}")


if __name__ == "__main__":
    main(sys.argv[1:])
