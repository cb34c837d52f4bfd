"""Request files for the worked examples (tests/engine/examples)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).parent / "examples"
PACK_SOURCES = Path(__file__).resolve().parents[2] / "packs" / "_source"
IN_PYODIDE = sys.platform == "emscripten"
# One attack example a ruleset (the requests every-option and fuzz tests start from).
RULESET_EXAMPLES = ["soe_rhino.json", "percentile_rifleman.json", "dpv_attack.json",
                    "shock_dshk.json"]


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return data


def pack_docs(pack: str) -> list[dict[str, Any]]:
    """The documents of a compendium pack's sources; skips where the checkout has no packs
    (the engine tests inside Pyodide see only tests/engine)."""
    folder = PACK_SOURCES / pack
    if not folder.is_dir():
        pytest.skip(f"{folder} is not in this checkout")
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def assert_invalid_field_named(request: dict[str, Any], path: tuple[str, ...], value: object
                               ) -> None:
    """Put ``value`` at ``path`` in ``request``: resolving must fail naming that field."""
    import firefight

    node = request
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    out = firefight.resolve(request, seed=1)
    assert out["error"]["code"] == "invalid_request", out
    named = [f["field"] for f in out["error"]["fields"]]
    assert any(n.startswith(".".join(path)) for n in named), named
