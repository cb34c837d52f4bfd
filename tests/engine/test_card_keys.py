"""No raw lang key on any card line: every option of every ruleset's example, in en and de."""

from __future__ import annotations

import copy
import html
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from _examples import ACTION_REQUESTS, RULESET_EXAMPLES, example

import firefight
from firefight.i18n import strings

SEEDS = range(4)


def _choices(schema: dict[str, Any], prop: dict[str, Any]) -> list[Any]:
    """The values a dialog offers for an option: each enum value, or True for a flag."""
    node = prop
    if "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    for sub in node.get("anyOf", []):
        if "$ref" in sub or "enum" in sub:
            return _choices(schema, sub)
    if "enum" in node:
        return list(node["enum"])
    if node.get("type") == "boolean":
        return [True]
    return []


def _variants(name: str) -> list[dict[str, Any]]:
    base = example(name)
    options = firefight.schema(base["ruleset"])["options"]
    out = [base]
    for field, prop in options.get("properties", {}).items():
        for value in _choices(options, prop):
            request = copy.deepcopy(base)
            request.setdefault("options", {})[field] = value
            out.append(request)
    if base["ruleset"] == "soe":  # the weapon's scope, near and far (soe Table 1 "Scope")
        for metres in (100, 300):
            request = copy.deepcopy(base)
            request["weapon"]["scope"] = True
            request["range"] = {"value": metres, "units": "m"}
            request.setdefault("options", {})["mode"] = "sniper" if metres > 200 else "aimed"
            out.append(request)
    return out


@pytest.mark.parametrize("name", RULESET_EXAMPLES)
@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_card_line_shows_a_raw_key(name: str, lang: str) -> None:
    rendered = 0
    for request in _variants(name):
        for seed in SEEDS:
            result = firefight.resolve(request, seed=seed)
            if "error" in result:
                continue  # an option that does not fit this example
            for view in ("gm", "player"):
                card = firefight.render_card(result, lang=lang, view=view)
                assert "FIREFIGHT." not in card, (request.get("options"), card)
            rendered += 1
    assert rendered > len(SEEDS)


# --- every action's card, in every language (UX walkthrough 3 #6, #8; issue 25 item 6) -------

_WORD = re.compile(r"[^\W\d_]{3,}(?:-[^\W\d_]+)*")
# A rule's citation is the rule text's own words (English by design): not said by the card.
_SOURCE = re.compile(r'<(span|td|p)[^>]*class="[^"]*ff-mod-source[^"]*"[^>]*>.*?</\1>', re.S)
_LEFT = re.compile(r"\{\w+(?::[^{}]*)?\}")
# The soe General Trauma Table is the world's (the rule text prints none: trauma.json is a
# placeholder the referee replaces by a RollTable); a German world's own table, here.
_TRAUMA = {c: [f"Wirkung {i}" for i in range(1, 6)]
           for c in ("trivial", "minor", "moderate", "severe", "critical", "untreatable", "fatal")}


def _words(texts: Iterable[str]) -> set[str]:
    return {w for text in texts for w in _WORD.findall(text)}


def _said(node: Any) -> list[str]:
    """Every string a request carries (names a person typed, not the card's words)."""
    if isinstance(node, dict):
        return [s for v in node.values() for s in _said(v)]
    if isinstance(node, list):
        return [s for v in node for s in _said(v)]
    return [node] if isinstance(node, str) else []


BUILT_IN = ("soe", "percentile", "dpv", "shock")  # a plugin loaded here (Pyodide's run) is its own


def test_every_action_has_a_request_here() -> None:
    actions = {(r["id"], a) for r in firefight.list_rulesets() if r["id"] in BUILT_IN
               for a in r["actions"]}
    assert {r for r, _ in actions} == set(BUILT_IN)
    assert actions <= set(ACTION_REQUESTS), sorted(actions - set(ACTION_REQUESTS))


@pytest.mark.parametrize("key", sorted(ACTION_REQUESTS), ids="-".join)
def test_every_action_card_speaks_the_language(key: tuple[str, str]) -> None:
    """No raw key, no ``{placeholder}`` left, every die labelled by a lang key, and in German
    no word only English uses (the rule citations and the request's own names set aside)."""
    request = copy.deepcopy(ACTION_REQUESTS[key])
    if key == ("soe", "general_trauma"):
        request["trauma_tables"] = _TRAUMA
    english_only = _words(strings("en").values()) - _words(strings("de").values())
    for seed in SEEDS:
        result = firefight.resolve(request, seed=seed)
        assert "error" not in result, result
        for die in result["dice"]:
            assert die.get("purpose_key"), die
        for lang in ("en", "de"):
            for view in ("gm", "player"):
                card = firefight.render_card(result, lang=lang, view=view)
                assert "FIREFIGHT." not in card, card
                assert _LEFT.findall(html.unescape(card)) == [], card
                if lang != "de":
                    continue
                text = html.unescape(re.sub(r"<[^>]+>", " ", _SOURCE.sub(" ", card)))
                for name in sorted(_said(result["request"]), key=len, reverse=True):
                    text = text.replace(name, " ") if len(name) > 2 else text
                assert sorted(set(_WORD.findall(text)) & english_only) == [], card


def _placeholders(text: str) -> set[str]:
    """The names a string fills: ``{n}`` and the count of a plural form ``{n:one|other}``."""
    return {m.group(1) for m in re.finditer(r"\{(\w+)(?::[^{}]*)?\}", text)}


def _lang_folders() -> list[Path]:
    root = Path(firefight.__file__).parent
    return [root / "lang", *sorted((root / "rulesets").glob("*/lang"))]


# Placeholders a translation leaves out on purpose: their values are English ids (a travel
# mode, a terrain, a unit's state), which the German sentence says without.
_ENGLISH_IDS = {
    "FIREFIGHT.dpv.error.travel_impossible.message": {"mode", "terrain"},
    "FIREFIGHT.dpv.error.travel_impossible.field": {"mode"},
    "FIREFIGHT.dpv.error.travel_not_given.message": {"mode", "terrain"},
    "FIREFIGHT.dpv.error.travel_not_given.field": {"mode"},
    "FIREFIGHT.dpv.error.travel_feature.message": {"mode", "feature"},
    "FIREFIGHT.dpv.error.travel_feature.field": {"feature"},
    "FIREFIGHT.dpv.error.interface_craft.message": {"craft", "direction"},
    "FIREFIGHT.dpv.error.interface_craft.field": {"crafts"},
    "FIREFIGHT.dpv.error.area_extreme.message": {"kind"},
    "FIREFIGHT.shock.error.no_activations.message": {"state"},
    "FIREFIGHT.shock.error.no_activations.field": {"state"},
}


@pytest.mark.parametrize("folder", _lang_folders(), ids=lambda p: str(p.parent.name))
def test_every_translation_fills_the_same_placeholders(folder: Path) -> None:
    """A German string names the same placeholders as its English one (a misspelt ``{usr}``
    would show raw at the table), but for an English id it says without (``_ENGLISH_IDS``)."""
    english = _flat(json.loads((folder / "en.json").read_text(encoding="utf-8")))
    for other in sorted(set(folder.glob("*.json")) - {folder / "en.json"}):
        theirs = _flat(json.loads(other.read_text(encoding="utf-8")))
        wrong = {k: (sorted(_placeholders(english[k])), sorted(_placeholders(v)))
                 for k, v in theirs.items() if k in english
                 and _placeholders(english[k]) - _ENGLISH_IDS.get(k, set()) != _placeholders(v)}
        assert wrong == {}, other


def _flat(node: Any, prefix: str = "") -> dict[str, str]:
    if not isinstance(node, dict):
        return {prefix: str(node)}
    out: dict[str, str] = {}
    for k, v in node.items():
        out.update(_flat(v, f"{prefix}.{k}" if prefix else k))
    return out


def test_a_house_rules_source_is_said_in_the_readers_language() -> None:
    """SHOCK's house to-hit rule cited itself in English on a German card ("Firefight house rule
    (not in SHOCK): shooter's Prowess", UX walkthrough 3 #8): its source is a lang key now."""
    request = example("shock_dshk.json")
    request["options"]["referee_confirmed_hit"] = False  # the house rule rolls
    result = firefight.resolve(request, seed=2)
    assert {m["source"] for m in result["modifiers"] if m["step"] == "to_hit"} == {
        "FIREFIGHT.shock.source.house"}
    german = firefight.render_card(result, lang="de")
    assert "Firefight-Hausregel (nicht in SHOCK)" in german
    assert "house rule" not in german
    assert "FIREFIGHT." not in german
    assert "Firefight house rule (not in SHOCK)" in firefight.render_card(result)
    odds = firefight.odds(request)
    assert {m["source"] for m in odds["modifiers"]} == {"FIREFIGHT.shock.source.house"}
