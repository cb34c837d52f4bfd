"""Request files for the worked examples (tests/engine/examples)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).parent / "examples"
IN_PYODIDE = sys.platform == "emscripten"


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return data
