"""Write each built-in ruleset's catalog (what the ``hello`` offers of it: dialogs, settings,
sheet fields, table features, item forms) to ``py/firefight/rulesets/<id>/catalog.json``, so
the ``hello`` reads data and imports no ruleset (issue 27). Run it after changing a ruleset's
models or features; ``--check`` fails when a file is stale (tests/engine/test_catalog_data.py
checks the same, on CPython and in Pyodide).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from firefight import registry  # noqa: E402 - the checkout's engine


def built() -> dict[Path, str]:
    """Each built-in's catalog file and the text it must hold (computed by its ruleset)."""
    out = {}
    for ruleset_id in registry.builtin_ids():
        path = registry.catalog_file(ruleset_id)
        if path is None:
            raise SystemExit(f"ruleset {ruleset_id!r} is not a package: no place for its catalog")
        out[path] = registry.catalog_text(registry.get(ruleset_id).catalog())
    return out


def main(argv: list[str]) -> int:
    stale = []
    for path, text in built().items():
        if "--check" in argv:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {', '.join(stale)}; run tools/build_catalogs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
