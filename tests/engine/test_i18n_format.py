"""Issue 16, "Half German": numbers in the client's language, plural forms instead of "(s)",
the verdict said once, sheet choices and validation errors with lang keys (en and de)."""

from __future__ import annotations

import ast
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
    # A whole number reads whole (UX walkthrough 3 #6: "1.0 hex", "2880.0 minutes").
    assert "20 m" in de
    assert "20 m" in en
    assert "20,0 m" not in de
    assert not re.search(r"\d\.\d", re.sub(r"section [\d.]+|6\.5×52mm", "", de))


def test_every_sheet_choice_has_a_label_in_each_language() -> None:
    """soe kind and injury mode, SHOCK quality and state, 2300 AD experience: the sheet's
    selects read ``x-enum-label-keys`` (js-shim/core/form.mjs), in en and de."""
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


_RAISED = ("FirefightError", "RuleRefusalError")
_PLACE = re.compile(r"\{(\w+)(?::[^{}]*)?\}")


def _rule_errors() -> tuple[list[str], list[tuple[str, str, set[str]]]]:
    """Scan the rulesets' modules: (raises without a lang key, every ``rule_error`` call as
    (ruleset, name, its parameters))."""
    bare: list[str] = []
    calls: list[tuple[str, str, set[str]]] = []
    for path in sorted((REPO / "py/firefight/rulesets").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            if node.func.id in _RAISED and not any(k.arg == "key" for k in node.keywords):
                bare.append(where)
            elif node.func.id == "rule_error":
                ruleset, name = node.args[:2]
                assert isinstance(ruleset, ast.Constant), where
                assert isinstance(name, ast.Constant), where
                calls.append((str(ruleset.value), str(name.value),
                              {str(k.arg) for k in node.keywords if k.arg != "refused"}))
    return bare, calls


def test_every_error_a_ruleset_raises_is_worded_in_each_language() -> None:
    """A rule's refusal ("... has no activations", "beyond maximum range") is shown at the table
    in the client's language: each carries a key of its ruleset's lang files, message and field,
    in en and de, whose placeholders are the parameters the error gives."""
    bare, calls = _rule_errors()
    assert bare == [], "raise these with errors.rule_error (a lang key)"
    assert len(calls) >= 30
    for ruleset, name, params in calls:
        for part in ("message", "field"):
            key = f"FIREFIGHT.{ruleset}.error.{name}.{part}"
            for lang in LANGS:
                assert key in strings(lang), (lang, key)
                assert set(_PLACE.findall(strings(lang)[key])) <= params, (lang, key)


def test_a_refusal_carries_its_key_and_reads_in_german(soe_request: dict[str, Any]) -> None:
    soe_request["options"] = {"mode": "sniper", "position": "standing"}
    error = firefight.resolve(soe_request)["error"]
    assert error["code"] == "refused"
    assert translate(error["key"], "en", **error["params"]) == error["message"]
    assert translate(error["key"], "de", **error["params"]) == (
        "Scharfschützenfeuer braucht eine liegende oder aufgelegte Stellung (soe 2.3)")
    field = error["fields"][0]
    assert field["label_key"] == "FIREFIGHT.soe.opt.position.label"
    assert translate(field["key"], "de", **field["params"]) == (
        "muss im Scharfschützenmodus liegend / aufgelegt sein")
    soe_request["options"] = {"mode": "aimed"}
    soe_request["weapon"]["max_range_m"] = 50.5
    error = firefight.resolve(soe_request)["error"]
    assert translate(error["key"], "en", **error["params"]) == error["message"]
    assert translate(error["key"], "de", **error["params"]) == (
        "100 m liegen jenseits der Höchstreichweite von Rifle (50,5 m)")


def test_a_bad_item_field_names_its_item_sheet_label() -> None:
    error = api.item("dpv", {"category": "weapon", "rof": 0, "effective_range_m": 30, "dpv": 1})
    field = error["error"]["fields"][0]
    assert field["field"] == "rof"
    assert field["label_key"] == "FIREFIGHT.dpv.item.rof.label"
    assert translate(field["key"], "de", **field["params"]) == "muss mindestens 1 sein"


@pytest.mark.parametrize(("name", "change", "de"), [
    ("soe_rhino.json", lambda r: (r["weapon"].update(name="", max_range_m=5.5)),
     "20 m liegen jenseits der Höchstreichweite von der Waffe (5,5 m)"),
    ("shock_dshk.json",
     lambda r: (r["target"].update(name=""), r["target"]["stats"].update(state="dead")),
     "das Ziel ist bereits tot"),
])
def test_a_thing_without_a_name_is_named_in_the_tables_language(
        name: str, change: Any, de: str) -> None:
    """A refusal naming a weapon or a token without a name says "the weapon" in the client's
    language (errors.named), not in English inside German text."""
    request = example(name)
    change(request)
    error = firefight.resolve(request)["error"]
    assert translate(error["key"], "en", **error["params"]) == error["message"]
    assert translate(error["key"], "de", **error["params"]) == de
