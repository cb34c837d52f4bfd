"""No raw lang key on any card line: every option of every ruleset's example, in en and de."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from _examples import RULESET_EXAMPLES, example

import firefight

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
