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
# A count's word in both forms, chosen by the count: "{n} {n:hit|hits}" (CLDR "one"/"other",
# the two forms English and German have; js-shim/core/i18n.mjs reads the same syntax).
_PLURAL = re.compile(r"\{(\w+):([^{}|]*)\|([^{}]*)\}")
# The decimal separator a language writes (CLDR; English's is the default).
_DECIMAL = {"de": ","}
# A number the engine wrote as text ("0.37", "85.3 %": significant figures a resolver chose).
_NUMBER_TEXT = re.compile(r"[−-]?\d+\.\d+(?: ?%)?")
# The sign after a percentage (CLDR: German sets it apart by a no-break space).
_PERCENT = {"de": "\u00a0%"}
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


def number(value: Any, lang: str = "en", digits: int | None = None) -> str:
    """A number as ``lang`` writes it (de ``68,28``); ``digits`` fixes the decimals. Whole
    numbers are written as they are, without grouping (a whole float too: ``2880``, not
    ``2880.0``); so is a number the engine wrote as text (``"0.37"``); anything else is ``str``."""
    if isinstance(value, str) and _NUMBER_TEXT.fullmatch(value):
        return value.replace(".", _DECIMAL.get(lang, "."))
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if digits is None and isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = f"{value:.{digits}f}" if digits is not None else str(value)
    return text.replace(".", _DECIMAL.get(lang, ".")) if isinstance(value, float) else text


def percent(probability: float, lang: str = "en") -> str:
    """A probability as a percentage with one decimal: en ``65.2%``, de ``65,2 %``."""
    return number(100 * probability, lang, 1) + _PERCENT.get(lang, "%")


def plural_form(count: Any, lang: str = "en") -> str:
    """CLDR's plural category of a count in English and German: "one" for exactly 1."""
    return "one" if count == 1 and not isinstance(count, bool) else "other"


def fill(text: str, lang: str = "en", params: dict[str, Any] | None = None) -> str:
    """``{name}`` placeholders (numbers as ``lang`` writes them) and ``{count:one|other}``
    plural forms; a placeholder without a value stays as it is."""
    given = params or {}

    def form(m: re.Match[str]) -> str:
        if m.group(1) not in given:
            return m.group(0)
        return m.group(2) if plural_form(given[m.group(1)], lang) == "one" else m.group(3)

    text = _PLURAL.sub(form, text)
    return _PLACEHOLDER.sub(
        lambda m: _param(given[m.group(1)], lang) if m.group(1) in given else m.group(0), text)


def _param(value: Any, lang: str) -> str:
    """A parameter as ``lang`` says it: a number, or a lang key's text ``{key, fallback,
    params}`` (errors.py ``named``: a stand-in for a thing without a name; dpv travel's
    duration in words), its own params filled as the shim's ``localize`` fills them."""
    if isinstance(value, dict) and isinstance(value.get("key"), str):
        text = strings(lang).get(value["key"]) or strings("en").get(value["key"])
        if text is None:
            return str(value.get("fallback", value["key"]))
        params = value.get("params")
        return fill(text, lang, params) if isinstance(params, dict) else text
    return number(value, lang)


def translate(key: str, lang: str = "en", **params: Any) -> str:
    """Like Foundry's ``game.i18n.format``: ``{name}`` placeholders, plural forms
    (:func:`fill`); a missing key shows itself."""
    text = strings(lang).get(key)
    if text is None and lang != "en":
        text = strings("en").get(key)
    if text is None:
        return key
    return fill(text, lang, params)


def _enum(node: dict[str, Any], defs: dict[str, Any]) -> list[Any] | None:
    if "$ref" in node:
        node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
    for alt in node.get("anyOf", []):
        found = _enum(alt, defs)
        if found:
            return found
    values = node.get("enum")
    return values if isinstance(values, list) else None


def label_request_fields(prefix: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A request schema's own fields (what an action's dialog offers besides its options)
    labelled with the ruleset's lang keys where it has them: the dialog option's of the same
    name (``<prefix>.opt.<field>.label``, ``….choices.<value>``), else the item field's
    (``<prefix>.item.<field>…``, ``registry.item_schema``). A field labelled in its model keeps
    its own keys."""
    en = strings("en")
    defs = schema.get("$defs", {})
    variants = [defs.get(v["$ref"].rsplit("/", 1)[-1], {}) if "$ref" in v else v
                for v in schema.get("anyOf", schema.get("oneOf", []))] or [schema]
    for variant in variants:
        for name, prop in variant.get("properties", {}).items():
            values = _enum(prop, defs)
            for head in (f"{prefix}.opt.{name}", f"{prefix}.item.{name}"):
                if "x-label-key" not in prop and f"{head}.label" in en:
                    prop["x-label-key"] = f"{head}.label"
                keys = [f"{head}.choices.{v}" for v in values or ()]
                if keys and "x-enum-label-keys" not in prop and all(k in en for k in keys):
                    prop["x-enum-label-keys"] = keys
    return schema
