"""Issue 16, "Half German": numbers in the client's language, plural forms instead of "(s)",
the verdict said once, sheet choices and validation errors with lang keys (en and de)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _examples import RULESET_EXAMPLES, example

import firefight
from firefight import api
from firefight.cards import context
from firefight.errors import ERROR_KEY, ERROR_TYPES
from firefight.i18n import fill, number, percent, strings, translate

REPO = Path(__file__).resolve().parents[2]
LANGS = ("en", "de")


def test_numbers_and_plurals_in_each_language() -> None:
    assert number(68.28, "de") == "68,28"
    assert number(68.28, "en") == "68.28"
    assert number(7980, "de") == "7980"  # whole numbers as they are
    assert percent(0.652, "de") == "65,2\u00a0%"
    assert percent(0.652, "en") == "65.2%"
    text = "{n} {n:Runde|Runden}, {d} m"
    assert fill(text, "de", {"n": 1, "d": 2.5}) == "1 Runde, 2,5 m"
    assert fill(text, "de", {"n": 3, "d": 2.5}) == "3 Runden, 2,5 m"
    assert fill("{n:a|b} {text}", "en", {"text": "t"}) == "{n:a|b} t"  # no count: as it is


@pytest.mark.parametrize("path", sorted(
    str(p.relative_to(REPO)) for p in (REPO / "py/firefight").rglob("lang/*.json")))
def test_no_lang_string_writes_a_plural_in_brackets(path: str) -> None:
    """ "1 hit(s)", "Wunde(n)", "Wurf/Würfe": a count's word takes its form from the count."""
    flat: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for v in node.values():
                walk(v)
        else:
            flat.append(str(node))

    walk(json.loads((REPO / path).read_text("utf-8")))
    bad = [s for s in flat if re.search(r"\w\((s|e|n|en|er|es)\)|Wurf/Würfe", s)]
    assert bad == []


def _cards(name: str, lang: str) -> list[dict[str, Any]]:
    results = [firefight.resolve(example(name), seed=seed) for seed in range(12)]
    assert all("error" not in r for r in results)
    return [context(r, lang) for r in results]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", RULESET_EXAMPLES)
def test_a_card_says_its_verdict_once(name: str, lang: str) -> None:
    """No "Miss / Miss" (step outcome and summary) nor "Killed / Killed" (summary and effect);
    two rolls of a burst may well read alike."""
    for card in _cards(name, lang):
        lines = {s["outcome"] for s in card["steps"]} | set(card["effects"])
        assert not card["summary"] or card["summary"] not in lines


@pytest.mark.parametrize("lang", LANGS)
def test_a_miss_is_said_once(soe_request: dict[str, Any], lang: str) -> None:
    card = context(firefight.resolve(soe_request, dice=[1, 20, 5]), lang)  # test_text_card's miss
    said = [s["outcome"] for s in card["steps"]] + [card["summary"]]
    assert said.count(translate("FIREFIGHT.soe.outcome.miss", lang)) == 1, said


def test_a_german_card_writes_german_numbers() -> None:
    de = firefight.render_card(firefight.resolve(example("soe_rhino.json"), seed=0), lang="de")
    en = firefight.render_card(firefight.resolve(example("soe_rhino.json"), seed=0), lang="en")
    assert re.search(r"\d,\d\u00a0%", de)
    assert re.search(r"\d\.\d%", en)
    assert "20,0 m" in de
    assert "20.0 m" in en
    assert not re.search(r"\d\.\d", re.sub(r"section [\d.]+|6\.5×52mm", "", de))


def test_every_sheet_choice_has_a_label_in_each_language() -> None:
    """soe kind and injury mode, SHOCK quality and state, 2300 AD experience: the sheet's
    selects read ``x-enum-label-keys`` (js-shim/form.mjs), in en and de."""
    checked = 0
    for ruleset in api.catalog()["rulesets"]:
        schema = ruleset["stats"] or {}
        for name, field in schema.get("properties", {}).items():
            prop = field.get("items", field)  # a list's entries (soe delayed injuries)
            node = next((a for a in prop.get("anyOf", []) if "enum" in a), prop)
            if "$ref" in node:
                node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
            if "enum" not in node:
                continue
            keys = prop.get("x-enum-label-keys") or node.get("x-enum-label-keys")
            assert keys, (ruleset["id"], name)
            assert len(keys) == len(node["enum"]), (ruleset["id"], name)
            for lang in LANGS:
                assert [k for k in keys if k not in strings(lang)] == [], (lang, name)
            checked += 1
    assert checked >= 6


def test_every_error_type_is_worded_in_each_language() -> None:
    for lang in LANGS:
        keys = [ERROR_KEY + k for k in (*ERROR_TYPES, "invalid")]
        keys += ["FIREFIGHT.error.invalid", "FIREFIGHT.error.field"]
        assert [k for k in keys if k not in strings(lang)] == []


def test_a_bad_stat_names_its_label_and_a_localized_reason() -> None:
    error = api.apply("soe", {"marksmanship": 500, "kind": "robot"}, [])["error"]
    fields = {f["field"]: f for f in error["fields"]}
    mark = fields["marksmanship"]
    assert mark["label_key"] == "FIREFIGHT.soe.stat.marksmanship"
    assert translate(mark["label_key"], "de") == "Schießen"
    assert translate(mark["key"], "de", **mark["params"]) == "darf höchstens 200 sein"
    kind = fields["kind"]
    assert translate(kind["key"], "en", **kind["params"]) == "must be one of: human, creature"
    assert translate(error["key"], "de", **error["params"]) == "Ungültige Eingabe (2 Felder)"


def test_a_bad_option_in_a_request_names_its_dialog_label() -> None:
    request = example("soe_rhino.json")
    request.setdefault("options", {})["projectiles"] = 0
    error = firefight.resolve(request)["error"]
    field = error["fields"][0]
    assert field["field"] == "options.projectiles"
    assert field["label_key"] == "FIREFIGHT.soe.opt.projectiles.label"
    assert translate(field["key"], "de", **field["params"]) == "muss mindestens 1 sein"


def test_every_field_an_action_dialog_offers_is_labelled_in_each_language() -> None:
    """A request's own scalar fields (the referee's tools, 2300 AD's explosion, breach ...) are
    labelled (``i18n.label_request_fields``), their text choices too: no pydantic title."""
    checked = 0
    for ruleset in api.catalog()["rulesets"]:
        schema = api.schema(ruleset["id"])["request"]
        defs = schema.get("$defs", {})
        variants = [defs[v["$ref"].rsplit("/", 1)[-1]] if "$ref" in v else v
                    for v in schema.get("anyOf", [])] or [schema]
        for variant in variants:
            for name, prop in variant.get("properties", {}).items():
                node = next((a for a in prop.get("anyOf", []) if a.get("type") != "null"), prop)
                if "$ref" in node:
                    node = defs[node["$ref"].rsplit("/", 1)[-1]]
                if name in ("ruleset", "action") or node.get("type") not in (
                        "string", "integer", "number", "boolean"):
                    continue
                keys = [prop.get("x-label-key")]
                if node.get("type") == "string" and "enum" in node:
                    keys += prop.get("x-enum-label-keys") or [None]
                for lang in LANGS:
                    assert [k for k in keys if k not in strings(lang)] == [], (lang, name)
                checked += 1
    assert checked >= 20
