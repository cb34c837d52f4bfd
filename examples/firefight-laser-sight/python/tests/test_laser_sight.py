"""The laser sight's own tests: a Stars of Empire shot with it and without it. Run them with the
wheel installed: ``python -m pytest tests``."""

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
