"""Stars of Empire golden tests: the text's worked examples, fed the text's own dice."""

from __future__ import annotations

from typing import Any

import pytest
from _examples import example

import firefight
from firefight.rulesets.soe import to_damage, to_hit
from firefight.rulesets.soe.models import SoeAttackRequest


def mods(result: dict[str, Any], step: str) -> dict[str, int]:
    return {m["key"].removeprefix("FIREFIGHT.soe.mod."): m["value"]
            for m in result["modifiers"] if m["step"] == step}


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


def test_rhino_example_is_60_hp() -> None:
    # soe 2.4: Cei-Rigotti (Damage +12) fires 20 projectiles, to-hit over-roll 14. Rhino
    # toughness 8: shooter +12 -8 +13 (roll) = 17 vs 7: base damage 10, x6 (Table 4) = 60 HP.
    request = example("soe_rhino.json")
    # to-hit: +4 aimed, +7 skill, -2 weapon, +14 (20 projectiles) = +23; 1 + 23 - 10 = 14.
    result = firefight.resolve(request, dice=[1, 10, 13, 7])
    assert step(result, "to_hit")["numbers"]["over_roll"] == 14
    assert mods(result, "to_damage") == {"weapon_damage": 12, "toughness": -8}
    damage = step(result, "to_damage")["numbers"]
    assert (damage["acting_total"], damage["opposing_total"], damage["over_roll"]) == (17, 7, 10)
    assert result["outcome"]["multiplier"] == 6
    assert result["outcome"]["hp_loss"] == 60
    # "enough to seriously wound, but not kill the beast": 65 HP -> 5.
    assert result["outcome"]["hp_after"] == 5
    assert result["outcome"]["state"] == "wounded"
    assert result["effects"][0] == {"target": "target", "kind": "hp", "delta": -60, "value": None,
                                    "label_key": "FIREFIGHT.soe.effect.hp",
                                    "params": {"loss": 60}, "on_actor": True}


def bergmann_request() -> dict[str, Any]:
    return {
        "ruleset": "soe",
        "attacker": {"name": "Shooter", "stats": {"marksmanship": 20}},
        "target": {"name": "Character", "pc": True, "stats": {"str": 17, "will": 10},
                   "armor": [{"name": "CNT Plastron", "vs_rifle": -5, "vs_pistol": -4,
                              "coverage": 0.2, "thickness_mm": 2.6, "mass_kg": 1.3}]},
        "weapon": {"name": "5mm Bergmann", "damage": -5, "to_hit": -8, "weapon_type": "pistol"},
        "range": {"value": 5, "units": "m"},
        "options": {"mode": "quickfire"},
    }


def test_pistol_example_over_roll_minus_3() -> None:
    # soe 2.4 (pre-trauma example): -5 (pistol) -2 (toughness, Str 17) -4 (armor) +11 = 0
    # against the character's 3: "Shooter fails. Over-roll = -3".
    result = firefight.resolve(bergmann_request(), dice=[20, 1, 1, 11, 3])
    assert result["outcome"]["hit"] is True
    assert mods(result, "to_damage") == {"weapon_damage": -5, "toughness": -2, "armor_pistol": -4}
    damage = step(result, "to_damage")["numbers"]
    assert (damage["acting_total"], damage["opposing_total"], damage["over_roll"]) == (0, 3, -3)
    assert result["outcome"]["hp_loss"] == 0
    assert result["effects"] == []


def test_quickfire_15m_is_minus_2() -> None:
    # soe 2.3: "a target 15m away would have a modifier of -2": range rounds down.
    assert to_hit.mode_modifier("quickfire", 15) == (-2, 1)


@pytest.mark.parametrize(("mode", "range_m", "expected"), [
    ("quickfire", 0, 2), ("quickfire", 9.9, 2), ("quickfire", 10, -2), ("quickfire", 35, -10),
    ("aimed", 24, 4), ("aimed", 25, 1), ("aimed", 100, -8), ("aimed", 700, -80),
    ("sniper", 99, 4), ("sniper", 700, -17), ("sniper", 1500, -41),
])
def test_mode_rows(mode: str, range_m: float, expected: int) -> None:
    assert to_hit.mode_modifier(mode, range_m)[0] == expected


def test_range_floor_settings() -> None:
    # soe section 6: M = -16 (aimed), -50 (sniper, quickfire); "shifted" moves M with B.
    assert to_hit.mode_modifier("aimed", 700, "section6")[0] == -16
    assert to_hit.mode_modifier("aimed", 700, "shifted")[0] == -28
    assert to_hit.mode_modifier("sniper", 3000, "shifted")[0] == -71
    assert to_hit.mode_modifier("quickfire", 500, "section6")[0] == -50


@pytest.mark.parametrize(("skill", "strength", "agility", "expected"), [
    (12, 10, 10, 7), (30, 10, 10, 16), (60, 15, 15, 31), (13, 9, 10, 7), (0, 0, 0, 0),
])
def test_effective_skill(skill: int, strength: int, agility: int, expected: int) -> None:
    assert to_hit.effective_skill(skill, strength, agility) == expected


@pytest.mark.parametrize(("agility", "expected"), [(1, -1), (6, -1), (7, -2), (12, -2), (20, -4)])
def test_dodging_rounds_up(agility: int, expected: int) -> None:
    assert to_hit.dodge_modifier(agility) == expected


@pytest.mark.parametrize(("n", "expected"), [
    (1, 0), (2, 4), (3, 8), (6, 8), (7, 12), (10, 12), (11, 14), (25, 14), (26, 16), (37, 16),
    (38, 16), (39, 12), (75, 12), (76, 14), (500, 14),
])
def test_projectile_bands_section_9_1(n: int, expected: int) -> None:
    assert to_hit.projectile_modifier(n) == expected


@pytest.mark.parametrize(("strength", "expected"), [(17, -2), (10, 0), (9, 0), (8, 1), (4, 2),
                                                    (20, -2), (21, -3)])
def test_human_toughness_counts_against_the_shooter(strength: int, expected: int) -> None:
    target = SoeAttackRequest.model_validate({**example("soe_rhino.json"), "target": {
        "stats": {"str": strength}}}).target
    assert to_damage.toughness_modifier(target)[0] == expected


def test_every_table_1_row_reaches_the_card(soe_request: dict[str, Any]) -> None:
    soe_request["range"] = {"value": 300, "units": "m"}
    soe_request["weapon"].update(quality="high", scope=True)
    soe_request["target"]["stats"]["agl"] = 13
    soe_request["options"] = {"mode": "aimed", "position": "kneeling", "wind": "moderate",
                              "perfect_ranging": True, "target_movement": "medium",
                              "target_size": "90cm", "visibility": "twilight",
                              "target_dodging": True, "projectiles": 3}
    out = firefight.odds(soe_request)
    got = {m["key"].removeprefix("FIREFIGHT.soe.mod."): m["value"] for m in out["modifiers"]
           if m["step"] == "to_hit"}  # the to-damage modifiers follow (issue 15)
    assert got == {"mode.aimed": 4 - 3 * 12, "effective_skill": 7, "wind.moderate": -10,
                   "quality.high": 2, "perfect_ranging": 2, "position.kneeling": 2,
                   "movement.medium": -12, "target_size.90cm": 2, "visibility.twilight": -6,
                   "dodging": -3, "scope": 6, "projectiles": 8}
    assert out["net_modifier"] == sum(got.values())
    for m in out["modifiers"]:
        assert m["source"].startswith("soe ")


def test_long_range_rows_apply_beyond_200m_only(soe_request: dict[str, Any]) -> None:
    soe_request["range"] = {"value": 200, "units": "m"}
    soe_request["weapon"]["scope"] = True
    soe_request["options"].update(wind="high", perfect_ranging=True)
    result = firefight.resolve(soe_request, seed=1)
    keys = set(mods(result, "to_hit"))
    assert not keys & {"wind.high", "perfect_ranging", "scope"}
    assert len([n for n in result["notes"] if n["key"].endswith("long_range_only")]) == 3


def test_quickfire_cannot_use_a_scope(soe_request: dict[str, Any]) -> None:
    soe_request["range"] = {"value": 250, "units": "m"}
    soe_request["weapon"]["scope"] = True
    soe_request["options"]["mode"] = "quickfire"
    result = firefight.resolve(soe_request, seed=1)
    assert "scope" not in mods(result, "to_hit")
    assert any(n["key"].endswith("scope_quickfire") for n in result["notes"])


def test_sniper_needs_prone_and_a_scope_beyond_200m(soe_request: dict[str, Any]) -> None:
    soe_request["options"]["mode"] = "sniper"
    out = firefight.resolve(soe_request, seed=1)
    assert out["error"]["code"] == "refused"
    assert out["error"]["fields"][0]["field"] == "options.position"
    soe_request["options"]["position"] = "prone"
    soe_request["range"]["value"] = 400
    out = firefight.resolve(soe_request, seed=1)
    assert out["error"]["fields"][0]["field"] == "weapon.scope"
    soe_request["weapon"]["scope"] = True
    assert "error" not in firefight.resolve(soe_request, seed=1)


def test_maximum_range_refuses_the_shot(soe_request: dict[str, Any]) -> None:
    soe_request["weapon"]["max_range_m"] = 50
    out = firefight.resolve(soe_request, seed=1)
    assert out["error"]["code"] == "refused"
    assert "maximum range" in out["error"]["message"]


def test_range_in_feet_is_converted(soe_request: dict[str, Any]) -> None:
    soe_request["range"] = {"value": 100, "units": "ft"}  # 30.48 m: one full 25 m step
    assert firefight.odds(soe_request)["modifiers"][0]["value"] == 1


@pytest.mark.parametrize(("over_roll", "hp_before", "state"), [
    (1, 8, "wounded"), (7, 8, "wounded"), (8, 8, "dying"), (9, 8, "dead"), (0, 8, "unhurt"),
])
def test_hit_point_mode(over_roll: int, hp_before: int, state: str,
                        soe_request: dict[str, Any]) -> None:
    # soe Table 3, Hit Point Reduction: at 0 HP the target dies next turn, below 0 at once.
    soe_request["weapon"]["damage"] = 0
    soe_request["target"]["stats"].update(hp=hp_before, str=10)
    # to-hit 20 vs 1 hits at any modifier here; then damage: 10 + over_roll vs 10.
    result = firefight.resolve(soe_request, dice=[19, 1, 10 + over_roll, 10])
    assert result["outcome"]["state"] == state
    assert result["outcome"]["hp_after"] == hp_before - over_roll


def test_ties_go_to_player_characters_by_default(soe_request: dict[str, Any]) -> None:
    soe_request["options"]["mode"] = "quickfire"  # +2 at 100 m: 2 - 40 = -38
    soe_request["range"]["value"] = 0
    soe_request["attacker"]["stats"] = {"marksmanship": 0, "str": 0, "agl": 0}  # skill 0
    # net to-hit +2: a tie needs the target's die 2 higher.
    npc_shoots_pc = {**soe_request, "attacker": {**soe_request["attacker"], "pc": False},
                     "target": {**soe_request["target"], "pc": True}}
    assert firefight.resolve(npc_shoots_pc, dice=[5, 7])["outcome"]["hit"] is False
    assert firefight.resolve(soe_request, dice=[5, 7, 1, 1])["outcome"]["hit"] is True
    referee_choice = {**npc_shoots_pc, "settings": {"tie_goes_to": "attacker"}}
    assert firefight.resolve(referee_choice, dice=[5, 7, 1, 1])["outcome"]["hit"] is True


def test_odds_are_exact_fractions(soe_request: dict[str, Any]) -> None:
    out = firefight.odds(soe_request)
    num, den = (int(x) for x in out["exact"].split("/"))
    assert out["probability"] == pytest.approx(num / den)
    assert 0 < out["injury_probability"] < out["probability"]


def test_replay_from_the_record_is_exact(soe_request: dict[str, Any]) -> None:
    for seed in range(30):
        first = firefight.resolve(soe_request, seed=seed)
        faces = [f for die in first["dice"] for f in die["results"]]
        assert firefight.resolve(soe_request, dice=faces) == first
