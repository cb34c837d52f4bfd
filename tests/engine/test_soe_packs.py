"""The Stars of Empire compendium sources are fixtures: they validate against the engine."""

from __future__ import annotations

from _examples import pack_docs

import firefight
from firefight.rulesets.soe.data import tables
from firefight.rulesets.soe.models import TRAUMA_CLASSES, SoeArmor, SoeStats, SoeWeapon
from firefight.tables import band_problems


def test_armory_is_table_5_and_every_weapon_fires() -> None:
    weapons = [SoeWeapon.model_validate({"name": d["name"], **d["flags"]["firefight"]["soe"]})
               for d in pack_docs("soe-weapons")]
    assert len(weapons) == 19  # every row of Table 5
    target = {"name": "T", "stats": {"str": 10}}
    for w in weapons:
        request = {"ruleset": "soe", "attacker": {"name": "A", "stats": {"marksmanship": 12}},
                   "target": target, "weapon": w.model_dump(by_alias=True, exclude_none=True),
                   "range": {"value": 20, "units": "m"}}
        assert "error" not in firefight.resolve(request, seed=1), w.name


def test_armor_is_table_6() -> None:
    armor = [SoeArmor.model_validate({"name": d["name"], **d["flags"]["firefight"]["soe"]})
             for d in pack_docs("soe-armor")]
    assert len(armor) == 12
    helmet = next(a for a in armor if "Helmet" in a.name)
    assert (helmet.vs_rifle, helmet.vs_pistol, helmet.helmet) == (-1, -1, True)


def test_bestiary_is_table_7() -> None:
    beasts = {d["name"]: SoeStats.model_validate(d["flags"]["firefight"]["soe"])
              for d in pack_docs("soe-bestiary")}
    rhino = beasts["Lesser Venusian Rhino (Table 7)"]
    assert (rhino.kind, rhino.toughness, rhino.hp_max, rhino.mass_kg) == ("creature", 8, 65, 1100)
    assert len(beasts) == 5
    for d in pack_docs("soe-actors"):
        SoeStats.model_validate(d["flags"]["firefight"]["soe"])
        for item in d.get("items", []):
            data = item["flags"]["firefight"]["soe"]
            model = SoeWeapon if data["category"] == "weapon" else SoeArmor
            model.model_validate({"name": item["name"], **data})


def test_trauma_roll_tables_match_the_engine() -> None:
    tables_by_class = {d["flags"]["firefight"]["soe"]["trauma_class"]: d
                       for d in pack_docs("soe-trauma")}
    assert set(tables_by_class) == set(TRAUMA_CLASSES)
    for cls, table in tables_by_class.items():
        assert table["formula"] == "1d20"
        ranges = [tuple(r["range"]) for r in table["results"]]
        assert band_problems(ranges) == []
        assert (ranges[0][0], ranges[-1][1]) == (1, 20)
        # ceil(d20 / 4): result i covers 4i-3 .. 4i (soe Table 3, General Trauma)
        assert ranges == [(4 * i - 3, 4 * i) for i in range(1, 6)]
        assert [r["text"] for r in table["results"]] == tables().trauma[cls]
