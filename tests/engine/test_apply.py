"""Applying a result's effects to actor data: exact, clamped, validated, and undoable."""

from __future__ import annotations

import json
from typing import Any

import firefight
from firefight import bridge


def test_rhino_loses_60_hp_and_stays_up() -> None:
    from _examples import example

    result = firefight.resolve(example("soe_rhino.json"), dice=[1, 10, 13, 7])
    target = [e for e in result["effects"] if e["target"] == "target"]
    out = firefight.apply("soe", {"kind": "creature", "toughness": 8, "hp": 65, "hp_max": 65},
                          target)
    assert out["stats"]["hp"] == 5
    assert out["changes"] == [{"field": "hp", "from": 65, "to": 5}]
    assert out["statuses"] == {}


def test_hp_starts_from_hp_max_and_death_shows_on_the_token() -> None:
    out = firefight.apply("soe", {"str": 10}, [
        {"kind": "hp", "delta": -9}, {"kind": "state", "value": "dead"}])
    assert out["stats"]["hp"] == -1
    assert out["statuses"]["dead"] is True
    assert out["conditions"][0]["kind"] == "state"  # soe keeps no state field: a condition


def test_healing_stops_at_hp_max_but_never_lowers_hp_above_it() -> None:
    healed = firefight.apply("soe", {"hp": 5, "hp_max": 8}, [{"kind": "hp", "delta": 6}])
    assert healed["stats"]["hp"] == 8
    above = firefight.apply("soe", {"hp": 10, "hp_max": 8}, [{"kind": "hp", "delta": 3}])
    assert above["stats"]["hp"] == 10
    hurt = firefight.apply("soe", {"hp": 10, "hp_max": 8}, [{"kind": "hp", "delta": -3}])
    assert hurt["stats"]["hp"] == 7


def test_life_force_is_clamped_at_zero() -> None:
    out = firefight.apply("percentile", {"life_force": 30}, [{"kind": "life_force", "delta": -72}])
    assert out["stats"]["life_force"] == 0


def test_a_state_field_drives_every_status() -> None:
    out = firefight.apply("shock", {"toughness": 5, "awareness": 5, "prowess": 5},
                          [{"kind": "state", "value": "shock"}, {"kind": "wounds", "delta": 3}])
    assert out["stats"]["state"] == "shock"
    assert out["stats"]["wounds"] == 3
    assert out["statuses"]["unconscious"] is True
    assert out["statuses"]["dead"] is False


def test_passing_states_clear_statuses() -> None:
    out = firefight.apply("dpv", {}, [{"kind": "state", "value": "conscious"}])
    assert out["statuses"] == {"unconscious": False}


def test_delayed_injuries_accumulate_and_resolve() -> None:
    out = firefight.apply("soe", {}, [{"kind": "delayed_injury", "value": "critical"}])
    assert out["stats"]["delayed_injuries"] == ["critical"]
    out = firefight.apply("soe", out["stats"], [{"kind": "delayed_injury", "value": "severe"},
                                                {"kind": "delayed_injury_resolved",
                                                 "value": "critical"}])
    assert out["stats"]["delayed_injuries"] == ["severe"]


def test_undo_is_restoring_the_data_before() -> None:
    before = {"kind": "human", "str": 12, "hp": 8, "hp_max": 8, "pretrauma": 0}
    out = firefight.apply("soe", before, [{"kind": "hp", "delta": -3},
                                          {"kind": "pretrauma", "value": -7}])
    assert (out["stats"]["hp"], out["stats"]["pretrauma"]) == (5, -7)
    again = firefight.apply("soe", before, [])
    assert again["stats"] == firefight.apply("soe", before, [])["stats"]
    assert again["changes"] == []


def test_bad_actor_data_names_the_field() -> None:
    out = firefight.apply("soe", {"hp_max": "lots"}, [])
    assert out["error"]["fields"][0]["field"] == "hp_max"


def test_bridge_apply() -> None:
    reply = json.loads(bridge.handle(json.dumps({
        "op": "apply", "ruleset": "percentile", "stats": {"life_force": 100},
        "effects": [{"kind": "life_force", "delta": -7}]})))
    assert reply["ok"] is True
    value: dict[str, Any] = reply["value"]
    assert value["stats"]["life_force"] == 93


def test_pretrauma_shows_on_the_token_and_clears() -> None:
    out = firefight.apply("soe", {}, [{"kind": "pretrauma", "value": -8}])
    assert out["statuses"] == {"fear": True}
    out = firefight.apply("soe", out["stats"], [{"kind": "pretrauma", "value": 0}])
    assert out["statuses"] == {"fear": False}


def test_table_only_effects_are_not_kept_on_the_actor() -> None:
    out = firefight.apply("dpv", {}, [{"kind": "impact", "value": {"forward_m": 3}},
                                      {"kind": "blast", "value": {"burst_radius_m": 5}}])
    assert out["conditions"] == []
    assert out["changes"] == []


def test_non_attack_cards_say_chance_of_success() -> None:
    request = {"ruleset": "soe", "action": "will_check",
               "character": {"name": "C", "stats": {"will": 10}}}
    html = firefight.render_card(firefight.resolve(request, dice=[10, 5]))
    assert "Chance of success" in html
    assert "Chance to hit" not in html
