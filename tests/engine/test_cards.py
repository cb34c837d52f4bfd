"""Cards render from the result alone, escape what users wrote, and label every modifier."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import firefight
from firefight.i18n import strings


def test_card_shows_every_modifier_and_die(soe_request: dict[str, Any]) -> None:
    result = firefight.resolve(soe_request, dice=[15, 3, 12, 4])
    html = firefight.render_card(result)
    for m in result["modifiers"]:
        assert m["source"].replace('"', "&#34;") in html
    assert html.count('class="ff-die ') == len(result["dice"])
    assert "FIREFIGHT." not in html  # every label key has a translation


def test_card_escapes_untrusted_names(soe_request: dict[str, Any]) -> None:
    soe_request["attacker"]["name"] = "<img src=x onerror=alert(1)>"
    soe_request["weapon"]["name"] = "<script>alert('pwn')</script>"
    soe_request["target"]["armor"] = [{"name": "<b>vest</b>", "vs_rifle": -1, "vs_pistol": -1}]
    html = firefight.render_card(firefight.resolve(soe_request, dice=[19, 1, 10, 1]))
    assert "<script>" not in html
    assert "<img" not in html
    assert "<b>vest" not in html
    assert "&lt;script&gt;" in html


def test_text_card(soe_request: dict[str, Any]) -> None:
    text = firefight.render_card(firefight.resolve(soe_request, dice=[1, 20, 5]), fmt="text")
    assert "Miss" in text
    assert "1d20x20 -> 20 + 5 = 25" in text


def test_every_label_key_the_engine_uses_is_in_en_json() -> None:
    keys = set(strings("en"))
    source = "".join(p.read_text(encoding="utf-8") for p in
                     Path(firefight.__file__).parent.rglob("*.py"))
    # Every whole key written out in the engine (not a prefix such as P = "FIREFIGHT.soe", nor
    # the head of a key completed at run time, "...breach_" + kind).
    literal = {k for k in re.findall(r'(?<![\w{])"(FIREFIGHT\.[\w.]+)"', source)
               if k.count(".") >= 2 and not k.endswith(("_", "."))}
    assert len(literal) >= 10
    assert sorted(k for k in literal if k not in keys) == []
    for ruleset_schema in [firefight.schema(r["id"]) for r in firefight.list_rulesets()]:
        for prop in ruleset_schema["options"]["properties"].values():
            assert prop["x-label-key"] in keys
            for k in prop.get("x-enum-label-keys", []):
                assert k in keys, k


def test_lang_files_have_the_same_keys() -> None:
    from firefight.resources import resource_dir

    files = sorted(resource_dir("lang").glob("*.json"))
    flat = {}
    for f in files:
        data = json.loads(f.read_text(encoding="utf-8"))
        out: dict[str, str] = {}

        def walk(prefix: str, node: Any, out: dict[str, str] = out) -> None:
            if isinstance(node, dict):
                for k, v in node.items():
                    walk(f"{prefix}.{k}" if prefix else k, v)
            else:
                out[prefix] = node

        walk("", data)
        flat[f.name] = set(out)
    for name, keys in flat.items():
        assert keys == flat["en.json"], name


def test_every_actor_data_field_is_labelled() -> None:
    keys = set(strings("en"))
    for r in firefight.list_rulesets():
        stats = firefight.schema(r["id"])["stats"]
        for prop in stats["properties"].values():
            assert prop["x-label-key"] in keys, prop["x-label-key"]


def test_dice_purposes_are_translated(soe_request: dict[str, Any]) -> None:
    result = firefight.resolve(soe_request, dice=[15, 3, 12, 4])
    assert result["dice"][0]["purpose_key"] == "FIREFIGHT.card.die_purpose"
    assert "to-hit, attacker" in firefight.render_card(result)
    german = firefight.render_card(result, lang="de")
    assert "Trefferwurf, Angreifer" in german
    assert "to-hit" not in german


def test_nested_label_keys_get_the_same_parameters() -> None:
    from _examples import example

    result = firefight.resolve(example("percentile_rifleman.json"), seed=5)
    html = firefight.render_card(result)
    assert "to-hit tens die, round 1" in html
    assert "{n}" not in html
    assert "Zehnerwürfel, Schuss 1" in firefight.render_card(result, lang="de")


def test_a_step_source_that_is_not_text_still_renders(soe_request: dict[str, Any]) -> None:
    # A step's params are free: the bridge fuzz found a `source` of None failing the card
    # (internal_error) once sources could be lang keys.
    result = firefight.resolve(soe_request, dice=[15, 3, 12, 4])
    for value in (None, 7):
        result["steps"][0].setdefault("params", {})["source"] = value
        html = firefight.render_card(result)
        assert "firefight-card" in html
