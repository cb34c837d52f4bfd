"""SHOCK gaps of issue 15: the referee's treatment and end of mission (Firefight procedures,
labelled, where the text names a need but gives no rule), "Max pool is equivalent to unit skill
level", Toughness and Awareness labelled as having no rule, the end-of-turn shock check for every
wounded unit, per-token cover declared for the table, and armor in the packs."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from _examples import pack_docs
from test_shock import attack

import firefight
from firefight.i18n import strings
from firefight.rulesets.shock import RULESET, activation, mission
from firefight.rulesets.shock import models as shock
from firefight.rulesets.shock.soldier import chits, skill_level

S = "FIREFIGHT.shock."


def unit(name: str, **stats: Any) -> dict[str, Any]:
    return {"name": name, "actor_id": f"A-{name}", "token_id": f"T-{name}", **stats}


def kinds(result: dict[str, Any]) -> list[tuple[str, str, int, Any]]:
    return [(e["params"].get("name", ""), e["kind"], e["delta"], e["value"])
            for e in result["effects"]]


def card(result: dict[str, Any], lang: str = "en") -> str:
    text: str = firefight.render_card(result, fmt="text", lang=lang)
    assert "FIREFIGHT." not in text, text
    return text


# --- treatment: "Wounds are additive unless properly treated" ---------------------------------

def treat(*units: dict[str, Any], **options: Any) -> dict[str, Any]:
    return {"ruleset": "shock", "action": "treat", "units": list(units), "options": options}


def test_treatment_removes_wound_counters_and_says_it_is_firefights_procedure() -> None:
    result = firefight.resolve(treat(unit("A", wounds=6), unit("B", wounds=3, state="shock"),
                                     unit("C", wounds=4, state="dead"), unit("D")), dice=[])
    assert result["dice"] == []
    assert kinds(result) == [("A", "wounds", -6, None), ("B", "wounds", -3, None)]
    assert result["outcome"]["treated"] == ["A", "B"]
    # Treatment does not end shock: the unit still has to be evacuated.
    notes = [n["key"] for n in result["notes"]]
    assert notes == [S + "note.treated_in_shock", S + "note.procedure_treat"]
    assert all("unless properly treated" in n["source"] for n in result["notes"][1:])
    assert "Firefight procedure" in card(result)
    assert "Firefight-Verfahren" in card(result, "de")
    # After treatment the unit's wounds are gone; the next WOUND starts from zero again.
    assert firefight.apply("shock", {"wounds": 6}, result["effects"][:1])["stats"]["wounds"] == 0


def test_treatment_of_some_counters() -> None:
    result = firefight.resolve(treat(unit("A", wounds=6), unit("B", wounds=1),
                                     wounds_removed=2), dice=[])
    assert kinds(result) == [("A", "wounds", -2, None), ("B", "wounds", -1, None)]
    assert firefight.odds(treat(unit("A", wounds=6), wounds_removed=2))["wounds_left"] == [4]


# --- the end of the mission: "must be evacuated by mission end or risk dying" -----------------

def mission_end(*units: dict[str, Any], **options: Any) -> dict[str, Any]:
    return {"ruleset": "shock", "action": "end_of_mission", "units": list(units),
            "options": options}


UNITS = (unit("Left", state="shock", wounds=2), unit("Carried", state="shock", evacuated=True),
         unit("Fine", wounds=3), unit("Gone", state="dead"))


@pytest.mark.parametrize(("face", "dies"), [(1, True), (5, True), (6, False), (10, False)])
def test_a_unit_in_shock_left_behind_rolls_to_live(face: int, dies: bool) -> None:
    result = firefight.resolve(mission_end(*UNITS), dice=[face])
    assert [d["purpose"] for d in result["dice"]] == ["risk of dying, Left"]
    assert kinds(result) == ([("Left", "state", 0, "dead")] if dies else [])
    assert result["outcome"]["at_risk"] == ["Left"]
    text = card(result)
    assert "Firefight procedure" in text
    assert "or risk dying" in text
    card(result, "de")


def test_the_dialog_chooses_what_risk_means_and_the_odds_follow() -> None:
    dies = firefight.resolve(mission_end(*UNITS, risk="dies"), dice=[])
    assert kinds(dies) == [("Left", "state", 0, "dead")]
    referee = firefight.resolve(mission_end(*UNITS, risk="referee"), dice=[])
    assert kinds(referee) == []
    assert referee["outcome"]["at_risk_names"] == "Left"
    card(referee)
    two = mission_end(*UNITS, unit("Also", state="shock"), dies_on=3)
    odds = firefight.odds(two)
    got = {o["key"].removeprefix(S + "odds."): Fraction(o["exact"]) for o in odds["outcomes"]}
    assert got == {"none_die": Fraction(7, 10) ** 2, "some_die": 1 - Fraction(7, 10) ** 2}
    assert [u["at_risk"] for u in odds["units"]] == [True, False, False, False, True]


def test_the_referee_actions_are_offered_with_their_dialogs() -> None:
    entry = RULESET.catalog()
    offered = entry["features"]["refereeActions"]
    assert set(offered) == {"treat", "end_of_mission"}
    keys = set(strings("en")) & set(strings("de"))
    for name in offered:
        assert name in entry["actions"]
        dialog = entry["options"][name]
        assert dialog["properties"], name
        for prop in dialog["properties"].values():
            assert prop["x-label-key"] in keys
            assert all(k in keys for k in prop.get("x-enum-label-keys", []))
        assert f"FIREFIGHT.ui.actions.shock.{name}" in keys
    # The evacuation mark the end of the mission reads lives on the unit's sheet.
    assert "evacuated" in entry["stats"]["properties"]


# --- "Max pool is equivalent to unit skill level" ---------------------------------------------

def test_skill_level_is_the_quality_rank_and_its_chits_a_turn() -> None:
    assert [skill_level(q) for q in shock.QUALITIES] == list(range(1, 9))
    assert [sum(chits(q)) for q in shock.QUALITIES] == list(range(1, 9))


def pool(quality: str, held: int, change: str = "hold") -> dict[str, Any]:
    return {"ruleset": "shock", "action": "activation_pool",
            "actor": {"name": "P", "quality": quality, "pool": held},
            "options": {"change": change}}


def test_the_pool_holds_at_most_the_skill_level() -> None:
    held = firefight.resolve(pool("green", 2), dice=[])
    assert kinds(held) == [("", "pool", 1, None)]
    assert held["outcome"]["pool"] == 3 == held["outcome"]["max"]
    full = firefight.resolve(pool("green", 3), dice=[])
    assert full["error"]["fields"][0]["field"] == "actor.pool"
    spent = firefight.resolve(pool("green", 3, "spend"), dice=[])
    assert kinds(spent) == [("", "pool", -1, None)]
    empty = firefight.resolve(pool("rainbow", 0, "spend"), dice=[])
    assert empty["error"]["fields"][0]["field"] == "actor.pool"
    card(held)
    card(spent, "de")


def test_the_chit_pull_caps_a_pool_above_the_skill_level() -> None:
    request = {"ruleset": "shock", "action": "draw_chits",
               "units": [unit("U", quality="untrained", pool=4), unit("R", pool=2)]}
    result = firefight.resolve(request, seed=3)
    assert kinds(result) == [("U", "pool", -3, None)]
    assert [(p["name"], p["pool"], p["max"]) for p in result["outcome"]["pools"]] == [
        ("U", 1, 1), ("R", 2, 4)]
    assert "skill level" in card(result)
    feature = RULESET.catalog()["features"]["activation"]
    assert feature["pool"] in shock.ChitUnit.model_fields
    assert feature["pool"] in shock.ShockStats.model_fields
    assert feature["poolAction"] == activation.POOL


# --- Toughness and Awareness: no rule in the text ---------------------------------------------

def test_toughness_and_awareness_are_labelled_as_having_no_rule() -> None:
    stats = RULESET.catalog()["stats"]["properties"]
    for lang in ("en", "de"):
        texts = strings(lang)
        for name in ("toughness", "awareness"):
            assert stats[name]["x-hint-key"] == S + "stat.no_rule"
            assert texts[S + "stat.no_rule"].strip()
            assert ("no rule" if lang == "en" else "keine Regel") in texts[stats[name][
                "x-label-key"]]
            assert "No rule in the SHOCK text" in stats[name]["description"]
    assert "x-hint-key" not in stats["prowess"]  # Prowess has the to-hit house rule


# --- every wounded unit checks shock at the end of the turn ------------------------------------

def test_every_wounded_unit_of_the_request_checks_and_the_table_is_told_the_fields() -> None:
    units = [unit("Shot", wounds=4), unit("Hurt earlier", wounds=2, state="stunned",
                                          skipped_turn=True),
             unit("Unhurt"), unit("Down", wounds=5, state="shock"),
             unit("Bled out", wounds=12)]
    request = {"ruleset": "shock", "action": "end_of_turn", "units": units}
    result = firefight.resolve(request, dice=[4, 9])
    assert [d["purpose"] for d in result["dice"]] == ["shock check, Shot",
                                                      "shock check, Hurt earlier"]
    assert result["outcome"]["checked"] == 3
    assert result["outcome"]["shocked"] == ["Shot", "Bled out"]
    odds = firefight.odds(request)
    got = [Fraction(o["exact"]) for o in odds["outcomes"]]
    assert got == [0, 1]  # ten or more wounds: shock for certain
    settle = RULESET.catalog()["features"]["activation"]["settleFields"]
    assert settle == list(shock.TurnUnit.model_fields)
    assert {"wounds", "state", "skipped_turn"} <= set(settle)


# --- per-token cover, declared for the table ---------------------------------------------------

def test_per_token_cover_is_declared_with_the_fields_the_engine_reads() -> None:
    cover = RULESET.catalog()["features"]["cover"]
    assert cover["fields"] == ["target.cover"]
    # The referee's editor is built from one entry's schema; the table adds `fixed`.
    props = cover["schema"]["properties"]
    assert set(props) | set(cover["fixed"]) <= set(shock.ShockProtection.model_fields)
    assert props["locations"]["items"]["enum"] == list(shock.LOCATIONS)
    assert props["stops"]["enum"] == list(shock.DAMAGE_CLASSES)
    assert cover["maxItems"] == 20
    entry = {"name": "Sandbags", **cover["fixed"], "locations": ["lower_torso", "leg"],
             "stops": "V"}
    result = firefight.resolve(attack(target__cover=[entry]), dice=[9, 5])
    assert result["outcome"]["stopped"] is True
    assert result["outcome"]["cover"] == "Sandbags"


# --- armor in the packs -----------------------------------------------------------------------

def test_the_packs_have_armor_and_the_better_troops_wear_it() -> None:
    items = pack_docs("shock-weapons")
    armor = [shock.ShockProtection.model_validate({"name": d["name"],
                                                   **d["flags"]["firefight"]["shock"]})
             for d in items if d["flags"]["firefight"]["shock"]["category"] == "armor"]
    assert len(armor) >= 3
    assert {a.stops for a in armor} < set(shock.DAMAGE_CLASSES) - {"VI"}  # nothing stops VI
    worn = {}
    for doc in pack_docs("shock-troops"):
        quality = doc["flags"]["firefight"]["shock"]["quality"]
        worn[quality] = [i for i in doc["items"]
                         if i["flags"]["firefight"]["shock"]["category"] == "armor"]
        for item in worn[quality]:
            assert item["flags"]["firefight"]["equipped"] is True
            shock.ShockProtection.model_validate(item["flags"]["firefight"]["shock"])
            # Head and torso only: arms and legs stay bare.
            assert set(item["flags"]["firefight"]["shock"]["locations"]) <= {
                "head", "upper_torso", "lower_torso"}
    assert {q for q, a in worn.items() if a} == {"experienced", "veteran", "elite", "rainbow"}
    # A helmet stops a pistol round to the head.
    helmet = next(a for a in armor if a.locations == ["head"])
    shot = attack(weapon={"name": "Glock 17", "damage_class": "II"},
                  target__armor=[helmet.model_dump()])
    assert firefight.resolve(shot, dice=[1, 5])["outcome"]["stopped"] is True


def test_mission_module_cites_the_text() -> None:
    assert "unless properly treated" in mission.TREAT_SOURCE
    assert "or risk dying" in mission.EVACUATE_SOURCE
