"""Item data (weapons, armor): the catalog's item forms and the engine's check before the item
sheet saves (issue 16, "Weapon and armor data")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import firefight
from firefight import api, bridge
from firefight.i18n import strings

PACKS = Path(__file__).resolve().parents[2] / "packs" / "_source"


def _items() -> dict[str, dict[str, Any]]:
    return {r["id"]: r["items"] for r in api.catalog()["rulesets"]}


def test_every_ruleset_offers_a_form_for_its_weapons() -> None:
    items = _items()
    assert set(items) >= {"soe", "percentile", "shock", "dpv"}
    for rid, forms in items.items():
        assert "weapon" in forms, rid
        for schema in forms.values():
            # The document's own fields and the category (chosen when data is added) are not
            # in the form.
            assert not {"name", "item_id", "category"} & set(schema["properties"]), rid


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_item_field_and_choice_is_translated(lang: str) -> None:
    keys = set(strings(lang))
    for forms in _items().values():
        for schema in forms.values():
            for prop in schema["properties"].values():
                assert prop["x-label-key"] in keys, prop["x-label-key"]
                holder = prop.get("items", prop)
                for k in holder.get("x-enum-label-keys", []):
                    assert k in keys, k


def test_item_data_is_checked_and_a_bad_field_named() -> None:
    ok = api.item("soe", {"category": "weapon", "damage": 3})
    assert ok["item"]["damage"] == 3
    assert ok["item"]["category"] == "weapon"
    assert "name" not in ok["item"]
    bad = api.item("soe", {"category": "weapon", "damage": 99})
    assert [f["field"] for f in bad["error"]["fields"]] == ["damage"]
    wrong = api.item("percentile", {"category": "armor"})
    assert wrong["error"]["fields"][0]["field"] == "category"
    data = {"category": "armor", "locations": [], "stops": "II"}
    reply = json.loads(bridge.handle(json.dumps({"op": "item", "ruleset": "shock", "data": data})))
    assert not reply["ok"]
    assert reply["error"]["fields"][0]["field"] == "locations"


def test_every_pack_item_passes_the_item_check() -> None:
    checked = 0
    for path in sorted(PACKS.glob("*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for item in [doc, *doc.get("items", [])]:
            for rid, data in item.get("flags", {}).get("firefight", {}).items():
                if isinstance(data, dict) and data.get("category") in ("weapon", "armor"):
                    result = firefight.api.item(rid, data)
                    assert "error" not in result, (path.name, result)
                    checked += 1
    assert checked > 50
