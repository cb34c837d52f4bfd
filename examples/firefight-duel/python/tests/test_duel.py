"""Duel's own tests, as docs/extending.md writes them: the rules fed their own dice, and the odds
checked exactly. Run them with the wheel installed: ``python -m pytest tests``."""

import firefight

ATTACK = {
    "ruleset": "duel",
    "attacker": {"name": "Ada", "stats": {"skill": 3}},
    "target": {"name": "Bo", "stats": {"hp": 5}},
    "weapon": {"name": "Sabre", "damage": 6},
    "range": {"value": 25, "units": "m"},
    "options": {"aim": True},
}


def test_a_hit_takes_the_target_down() -> None:
    result = firefight.resolve(ATTACK, dice=[9, 5])  # d20: 9 + 3 skill + 2 aim - 2 range = 12
    assert result["steps"][0]["numbers"] == {"roll": 9, "total": 12, "target": 12}
    assert result["steps"][0]["modifier_total"] == 3
    assert [(e["kind"], e["delta"], e["value"]) for e in result["effects"]] == [
        ("hp", -5, None), ("state", 0, "unconscious")]


def test_the_odds_are_exact() -> None:
    odds = firefight.odds(ATTACK)
    assert odds["exact"] == "3/5"  # faces 9 to 20 hit
    assert odds["down_exact"] == "13/60"  # (11 faces x 2 of 6) + (the 20 x 4 of 6), of 120
