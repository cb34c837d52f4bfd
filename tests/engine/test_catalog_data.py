"""The built-in rulesets' catalogs are data (issue 27): the ``hello`` reads each from
``catalog.json`` in its package and imports no ruleset. Each file must be exactly what its
ruleset computes, and the ``hello`` byte for byte what it would be computed (tools/
build_catalogs.py writes the files). Runs on CPython and inside Pyodide (the files in the wheel).
"""

from __future__ import annotations

import json

import pytest

import firefight
from firefight import api, bridge, registry
from firefight.i18n import LANGUAGES

BUILTINS = ["dpv", "percentile", "shock", "soe"]


def test_the_built_in_rulesets_are_the_engines_entry_points_not_plugins() -> None:
    assert registry.builtin_ids() == BUILTINS
    assert not [s for s in registry.plugin_status() if s["name"] in BUILTINS]


@pytest.mark.parametrize("ruleset_id", BUILTINS)
def test_each_catalog_file_is_what_its_ruleset_computes(ruleset_id: str) -> None:
    path = registry.catalog_file(ruleset_id)
    assert path is not None
    assert path.is_file(), f"{path} is missing: run tools/build_catalogs.py"
    computed = registry.catalog_text(registry.get(ruleset_id).catalog())
    assert path.read_text(encoding="utf-8") == computed, \
        f"{path} is stale: run tools/build_catalogs.py"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_hello_is_byte_for_byte_the_computed_catalog(lang: str) -> None:
    reply = bridge.handle(json.dumps({"op": "hello", "lang": lang}))
    value = api.catalog(lang)
    # with the fields any installed house rule adds (the example laser sight, in Pyodide)
    computed = {**value, "rulesets": [
        registry.with_house_fields(r["id"], registry.get(r["id"]).catalog())
        for r in value["rulesets"]]}
    assert {r["id"] for r in computed["rulesets"]} >= set(BUILTINS)
    assert reply == json.dumps({"ok": True, "value": {"version": firefight.__version__,
                                                      **computed}})
