"""The dpv NPC templates (NON-PLAYER CHARACTERS table) are fixtures: each validates against the
models, matches its table row, and can be shot at."""

from __future__ import annotations

import re

from _examples import pack_docs

import firefight
from firefight.rulesets.dpv.data import tables
from firefight.rulesets.dpv.models import DpvStats

ID = re.compile(r"^[A-Za-z0-9]{16}$")



def test_npc_templates_match_the_table() -> None:
    seen = set()
    for doc in pack_docs("dpv-npcs"):
        assert ID.match(doc["_id"])
        assert doc["_key"] == f"!actors!{doc['_id']}"
        stats = DpvStats.model_validate(doc["flags"]["firefight"]["dpv"])
        assert stats.experience is not None
        row = tables().npcs["experience"][stats.experience]
        assert (stats.coolness, stats.incapacitation) == (row["coolness"], row["incapacitation"])
        assert stats.skills.get("marksmanship") == row["primary_skills"]
        seen.add(stats.experience)
        out = firefight.resolve({
            "ruleset": "dpv", "action": "attack",
            "attacker": {"stats": doc["flags"]["firefight"]["dpv"]},
            "target": {"name": doc["name"], "actor_id": doc["_id"],
                       "stats": doc["flags"]["firefight"]["dpv"]},
            "weapon": {"effective_range_m": 100, "dpv": 1}, "range": {"value": 50}}, seed=3)
        assert "error" not in out, out
    assert seen == {"green", "experienced", "veteran", "elite"}


def test_house_armory_validates_and_arms_the_npcs() -> None:
    from firefight.rulesets.dpv.models import DpvWeapon

    weapons = [DpvWeapon.model_validate({"name": d["name"], **d["flags"]["firefight"]["dpv"]})
               for d in pack_docs("dpv-weapons")]
    assert {w.kind for w in weapons} >= {"firearm", "shotgun", "explosive", "melee"}
    for npc in pack_docs("dpv-npcs"):
        carried = [i["flags"]["firefight"]["dpv"] for i in npc["items"]]
        assert any(c["kind"] == "firearm" for c in carried), npc["name"]
        rifle = next(c for c in carried if c["kind"] == "firearm")
        shot = firefight.resolve({
            "ruleset": "dpv", "attacker": {"name": npc["name"],
                                           "stats": npc["flags"]["firefight"]["dpv"]},
            "target": {"name": "T"}, "weapon": {"name": "rifle", **rifle},
            "range": {"value": 120, "units": "m"}}, seed=3)
        assert "error" not in shot, shot
