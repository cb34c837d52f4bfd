"""The percentile compendium sources are fixtures: every document validates against the models
and every weapon fires."""

from __future__ import annotations

import re

from _examples import pack_docs

import firefight
from firefight.rulesets.percentile.models import PercentileStats, PercentileWeapon

ID = re.compile(r"^[A-Za-z0-9]{16}$")



def test_weapons_validate_and_cover_every_class() -> None:
    weapons = pack_docs("percentile-weapons")
    classes = set()
    for doc in weapons:
        assert ID.match(doc["_id"])
        assert doc["_key"] == f"!items!{doc['_id']}"
        weapon = PercentileWeapon.model_validate({"name": doc["name"], "item_id": doc["_id"],
                                                  **doc["flags"]["firefight"]["percentile"]})
        classes.add(weapon.weapon_class)
    assert classes == {"rifle", "carbine", "pistol", "smg", "automatic_rifle"}


def test_actors_validate_and_their_weapons_fire() -> None:
    ids: set[str] = set()
    for actor in pack_docs("percentile-actors"):
        assert actor["_id"] not in ids
        ids.add(actor["_id"])
        stats = PercentileStats.model_validate(actor["flags"]["firefight"]["percentile"])
        assert stats.life_force == 100
        for item in actor["items"]:
            assert item["_id"] not in ids
            ids.add(item["_id"])
            assert item["_key"] == f"!actors.items!{actor['_id']}.{item['_id']}"
            request = {
                "ruleset": "percentile",
                "attacker": {"name": actor["name"], "actor_id": actor["_id"],
                             "stats": actor["flags"]["firefight"]["percentile"]},
                "target": {"name": "Target", "stats": {"life_force": 100}},
                "weapon": {"name": item["name"], "item_id": item["_id"],
                           **item["flags"]["firefight"]["percentile"]},
                "range": {"value": 12, "units": "in"},
            }
            out = firefight.resolve(request, seed=5)
            assert "error" not in out, out
