"""Labels from the lang files: Firefight's core ``lang/<lang>.json`` (the same keys Foundry loads
for the module) and each registered ruleset's or house rule's own ``<package>/lang/``."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from firefight.resources import resource_dir

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_CORE = resource_dir("lang")
# The languages the module ships (lang/<lang>.json): nothing else is read or cached.
LANGUAGES: tuple[str, ...] = tuple(sorted(
    p.name.removesuffix(".json") for p in _CORE.iterdir() if p.name.endswith(".json")))
_FIREFIGHT = Path(__file__).resolve().parent
# Lang folders of the rulesets and house rules: (folder, shipped in Foundry's lang/ or a
# plugin's). The built-ins' are known before they are imported (labels need no boot).
_SOURCES: list[tuple[Path, bool]] = [
    (p, True) for p in sorted((_FIREFIGHT / "rulesets").glob("*/lang")) if p.is_dir()]


def add_source(path: Path) -> None:
    """A registered package's lang folder; its keys join every language's strings."""
    path = path.resolve()
    if any(p.resolve() == path for p, _ in _SOURCES):
        return
    _SOURCES.append((path, path.is_relative_to(_FIREFIGHT)))
    _strings.cache_clear()
    _nested.cache_clear()


def strings(lang: str = "en") -> dict[str, str]:
    """The flat labels of a shipped language (English for any other)."""
    return _strings(lang if lang in LANGUAGES else "en")


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _flatten(node: Any, prefix: str, flat: dict[str, str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            _flatten(v, f"{prefix}.{k}" if prefix else k, flat)
    else:
        flat[prefix] = str(node)


@cache
def _strings(lang: str) -> dict[str, str]:
    flat: dict[str, str] = {}
    for folder in [_CORE, *(p for p, _ in _SOURCES)]:
        _flatten(_read(folder / f"{lang}.json"), "", flat)
    return flat


@cache
def _nested(lang: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for folder, shipped in _SOURCES:
        if shipped:
            continue
        for source in ("en", lang) if lang != "en" else ("en",):
            _merge(out, _read(folder / f"{source}.json"))
    return out


def _merge(into: dict[str, Any], new: dict[str, Any]) -> None:
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v


def plugin_strings(lang: str = "en") -> dict[str, Any]:
    """The nested labels of the plugins (packages not shipped in Firefight's lang/), for the
    table to merge into Foundry's translations: ``lang``, English where it has none."""
    return _nested(lang if lang in LANGUAGES else "en")


def translate(key: str, lang: str = "en", **params: Any) -> str:
    """Like Foundry's ``game.i18n.format``: ``{name}`` placeholders; a missing key shows itself."""
    text = strings(lang).get(key)
    if text is None and lang != "en":
        text = strings("en").get(key)
    if text is None:
        return key
    return _PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), text)
