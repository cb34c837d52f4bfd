"""Write the top-level lang/<lang>.json Foundry loads (module.json "languages") from the
engine's own lang files: the core's (py/firefight/lang/) and each built-in ruleset's
(py/firefight/rulesets/<id>/lang/). Edit those; ``--check`` fails when lang/ is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "py" / "firefight" / "lang"
RULESETS = ROOT / "py" / "firefight" / "rulesets"
OUT = ROOT / "lang"


def merge(into: dict[str, Any], new: dict[str, Any], where: str) -> None:
    for key, value in new.items():
        if key in into and (not isinstance(into[key], dict) or not isinstance(value, dict)):
            raise SystemExit(f"lang key {where}{key} is defined twice")
        if isinstance(value, dict):
            merge(into.setdefault(key, {}), value, f"{where}{key}.")
        else:
            into[key] = value


def built(lang: str) -> str:
    out: dict[str, Any] = {}
    sources = [CORE / f"{lang}.json", *sorted(RULESETS.glob(f"*/lang/{lang}.json"))]
    for path in sources:
        merge(out, json.loads(path.read_text(encoding="utf-8")), "")
    return json.dumps(out, ensure_ascii=False, indent=2) + "\n"


def main(argv: list[str]) -> int:
    stale = []
    for path in sorted(CORE.glob("*.json")):
        text = built(path.stem)
        target = OUT / path.name
        if "--check" in argv:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                stale.append(str(target.relative_to(ROOT)))
        else:
            OUT.mkdir(exist_ok=True)
            target.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {', '.join(stale)}; run tools/build_lang.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
