"""The laser sight's own tests: a Stars of Empire shot with it and without it. Run them with the
wheel installed: ``python -m pytest tests``."""

from fractions import Fraction

import firefight

SHOT = {
    "ruleset": "soe",
    "attacker": {"name": "Ada", "pc": True, "stats": {"marksmanship": 12}},
    "target": {"name": "Bandit", "stats": {"agl": 12}},
    "weapon": {"name": "Rifle", "damage": 10, "weapon_type": "rifle"},
    "range": {"value": 100, "units": "m"},
    "options": {"mode": "aimed"},
}
LASER = {"laser_sight": {"options": {"fitted": True}, "settings": {"beyond_100m": False}}}


def test_the_laser_sight_adds_two_to_hit() -> None:
    plain, fitted = firefight.odds(SHOT), firefight.odds({**SHOT, "house": LASER})
    assert fitted["net_modifier"] == plain["net_modifier"] + 2
    assert fitted["probability"] > plain["probability"]


def test_a_bad_choice_names_its_field() -> None:
    bad = firefight.odds({**SHOT, "house": {"laser_sight": {"options": {"fitted": "very"}}}})
    assert bad["error"]["fields"][0]["field"] == "house.laser_sight.options.fitted"


def test_a_weapon_item_with_a_laser_needs_no_tick() -> None:
    plain = firefight.odds(SHOT)
    on_item = firefight.odds({**SHOT, "weapon": {**SHOT["weapon"], "laser": True}})
    assert on_item["net_modifier"] == plain["net_modifier"] + 2
    bad = firefight.odds({**SHOT, "weapon": {**SHOT["weapon"], "laser": "red"}})
    assert bad["error"]["fields"][0]["field"] == "weapon.laser"


def test_a_miss_close_in_dazzles_the_target() -> None:
    close = {**SHOT, "range": {"value": 30, "units": "m"}, "house": LASER}
    odds = firefight.odds(close)
    assert odds["dazzled_exact"] == str(1 - Fraction(odds["exact"]))
    miss = firefight.resolve(close, dice=[1, 20, 5])  # the shooter 1, the target 20 then 5
    assert miss["outcome"]["hit"] is False
    dazzled = [e for e in miss["effects"] if e["kind"] == "condition"]
    assert [(e["target"], e["value"]) for e in dazzled] == [("target", "dazzled")]
    after = firefight.apply("soe", {"agl": 12}, dazzled)
    assert after["stats"]["conditions"] == ["dazzled"]


def test_a_dazzled_shooter_has_two_less_to_hit() -> None:
    plain = firefight.odds(SHOT)
    dazzled = {**SHOT, "attacker": {**SHOT["attacker"],
                                    "stats": {"marksmanship": 12, "conditions": ["dazzled"]}}}
    assert firefight.odds(dazzled)["net_modifier"] == plain["net_modifier"] - 2
    ends = firefight.end_conditions("soe", {"conditions": ["dazzled"]}, "turn")
    assert ends["stats"]["conditions"] == []
