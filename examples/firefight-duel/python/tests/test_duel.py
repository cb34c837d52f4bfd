"""Duel's own tests, as docs/extending.md writes them: the rules fed their own dice, and the odds
checked exactly. Run them with the wheel installed: ``python -m pytest tests``."""

import itertools
import json
import re
from fractions import Fraction
from importlib import resources
from typing import Any

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


BRAWL = {"ruleset": "duel", "action": "brawl",
         "attacker": {"name": "Ada", "stats": {"skill": 2}}, "target": {"name": "Bo",
                                                                   "stats": {"hp": 2}}}


def test_a_brawl_counts_its_successes_and_prints_no_sum() -> None:
    result = firefight.resolve(BRAWL, dice=[1, 5, 6, 2])  # 2 + skill 2: four d6
    assert result["steps"][0]["numbers"] == {"successes": 2}
    assert result["outcome"]["state"] == "unconscious"
    text = firefight.render_card(result, fmt="text")
    assert "4d6 -> 1, 5, 6, 2\n" in text  # the faces, no "= 14"
    assert "2 successes" in text


def test_the_brawl_odds_are_exact_over_every_roll() -> None:
    odds = firefight.odds(BRAWL)
    counts = [0] * 5
    for roll in itertools.product(range(1, 7), repeat=4):
        counts[firefight.resolve(BRAWL, dice=list(roll))["outcome"]["successes"]] += 1
    assert [o["exact"] for o in odds["outcomes"]] == [
        str(Fraction(c, 6**4)) for c in counts]
    assert Fraction(odds["exact"]) == 1 - Fraction(counts[0], 6**4)
    assert [m["key"] for m in odds["modifiers"]] == ["FIREFIGHT.duel.mod.pool",
                                                     "FIREFIGHT.duel.mod.skill"]


def test_a_duellist_who_is_down_is_refused_by_field() -> None:
    down = {**ATTACK, "attacker": {"name": "", "stats": {"state": "unconscious"}}}
    error = firefight.odds(down)["error"]
    assert error["message"] == "the attacker is down and cannot attack"
    assert error["key"] == "FIREFIGHT.duel.error.down.message"
    field = error["fields"][0]
    assert (field["field"], field["label_key"]) == ("attacker.stats.state",
                                                     "FIREFIGHT.duel.stat.state")
    assert firefight.resolve(down, dice=[9, 5])["error"]["key"] == error["key"]


def test_a_gun_fires_its_rounds() -> None:
    gun = {**ATTACK, "weapon": {"name": "Pistol", "damage": 6, "rounds": 1}}
    assert firefight.odds(gun)["rounds_fired"] == 1
    assert firefight.resolve(gun, dice=[9, 5])["outcome"]["rounds_fired"] == 1
    assert firefight.odds(ATTACK)["rounds_fired"] == 0  # a sabre fires none


def test_the_balance_labs_fast_path_is_the_resolver_face_by_face() -> None:
    from firefight_duel.attack import engage_attack
    from firefight_duel.models import DuelAttack

    request = DuelAttack.model_validate(ATTACK)
    run = engage_attack(request)
    for roll in range(1, 21):
        for damage in range(1, 7):
            faces = iter([roll, damage])
            outcome, effects = run(lambda _sides: next(faces))
            result = firefight.resolve(ATTACK, dice=[roll, damage])
            assert dict(outcome) == {k: result["outcome"][k] for k, _ in outcome}
            assert [k for k, _ in effects] == [e["kind"] for e in result["effects"]]


def flat(node: Any, prefix: str = "") -> dict[str, Any]:
    """A lang file's strings by their whole keys: {"FIREFIGHT": {"duel": {"name": ...}}} ->
    {"FIREFIGHT.duel.name": ...}."""
    if not isinstance(node, dict):
        return {prefix: node}
    out: dict[str, Any] = {}
    for key, value in node.items():
        out.update(flat(value, f"{prefix}.{key}" if prefix else key))
    return out


def placeholders(text: str) -> set[str]:
    """The parameters a string uses: ``{name}``, and ``n`` of a count's ``{n:one|other}``."""
    return set(re.findall(r"\{(\w+)(?::[^{}]*)?\}", text))


def test_every_language_has_every_key_with_the_same_placeholders() -> None:
    """Each lang file of the package (lang/<code>.json) has English's keys, no more, and each
    string uses the same parameters as its English one."""
    folder = resources.files("firefight_duel") / "lang"
    langs = {f.name.removesuffix(".json"): flat(json.loads(f.read_text(encoding="utf-8")))
             for f in folder.iterdir() if f.name.endswith(".json")}
    english = langs.pop("en")
    assert langs, "a language besides English"
    for code, strings in langs.items():
        assert set(strings) == set(english), (code, sorted(set(strings) ^ set(english)))
        for key, text in english.items():
            assert placeholders(strings[key]) == placeholders(text), (code, key, strings[key])
