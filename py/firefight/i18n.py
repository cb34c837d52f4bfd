"""Labels from ``lang/<lang>.json``, the same files Foundry loads for the module."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from firefight.resources import resource_dir

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# The languages the module ships (lang/<lang>.json): nothing else is read or cached.
LANGUAGES: tuple[str, ...] = tuple(sorted(
    p.name.removesuffix(".json") for p in resource_dir("lang").iterdir()
    if p.name.endswith(".json")))


def strings(lang: str = "en") -> dict[str, str]:
    """The flat labels of a shipped language (English for any other)."""
    return _strings(lang if lang in LANGUAGES else "en")


@cache
def _strings(lang: str) -> dict[str, str]:
    path = resource_dir("lang") / f"{lang}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    flat: dict[str, str] = {}

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        else:
            flat[prefix] = str(node)

    walk("", data)
    return flat


def translate(key: str, lang: str = "en", **params: Any) -> str:
    """Like Foundry's ``game.i18n.format``: ``{name}`` placeholders; a missing key shows itself."""
    text = strings(lang).get(key)
    if text is None and lang != "en":
        text = strings("en").get(key)
    if text is None:
        return key
    return _PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), text)
