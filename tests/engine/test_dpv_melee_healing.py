"""dpv melee (strikes, blocks, diving blows, grapples, thrown) and healing."""

from __future__ import annotations

from typing import Any

import firefight


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


def melee(options: dict[str, Any], attacker: dict[str, Any] | None = None,
          target: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"ruleset": "dpv", "action": "melee",
            "attacker": attacker or {"name": "A", "stats": {"strength": 10,
                                                            "skills": {"melee": 2}}},
            "target": target or {"name": "B", "pc": True, "stats": {"strength": 8}},
            "options": options, **extra}


def test_strike_dpv_is_str_plus_melee_over_30_stun() -> None:
    # Routine 6+: 5 + Melee 2 = 7 hits. DPV (10 + 2) / 30 = 0.4, stun; location 3
    # (abdomen, serious), 1D10 of 4 <= 4: "Stun, KD".
    result = firefight.resolve(melee({}), dice=[5, 3, 4])
    assert step(result, "damage")["numbers"]["dpv"] == 0.4
    wound = step(result, "wound_1")["numbers"]
    assert (wound["wound_type"], wound["stun"], wound["knocked_down"]) == ("stun", 1, True)


def test_melee_4_may_choose_blunt() -> None:
    strong = {"name": "A", "stats": {"strength": 11, "skills": {"melee": 4}}}
    result = firefight.resolve(melee({"blunt": True}, attacker=strong), dice=[5, 3, 4])
    assert step(result, "damage")["numbers"]["wound_type"] == "blunt"
    weak = firefight.resolve(melee({"blunt": True}), dice=[5, 3, 4])
    assert step(weak, "damage")["numbers"]["wound_type"] == "stun"


def test_shorter_weapon_is_difficult_and_surprise_automatic() -> None:
    result = firefight.resolve(melee({"shorter_weapon": True}), dice=[7, 3, 3])
    assert step(result, "to_hit")["numbers"]["needed"] == 10
    surprise = firefight.resolve(melee({"surprise": True}), dice=[3, 4])
    assert surprise["outcome"]["hit"] is True
    assert surprise["dice"][0]["purpose"].startswith("hit location")


def test_block() -> None:
    # Strike hits (7), the defender's Difficult block with Melee 3: 7 + 3 = 10: blocked.
    target = {"name": "B", "stats": {"skills": {"melee": 3}}}
    result = firefight.resolve(melee({"block": True}, target=target), dice=[7, 7])
    assert result["outcome"]["hit"] is False
    assert step(result, "block")["success"] is True


def test_diving_blow_hurts_the_lesser() -> None:
    # Attacker 2 x SIZE 6 + 1D6 of 2 = 14 < defender STR 8 + SIZE 10 = 18: attacker takes it.
    attacker = {"name": "A", "stats": {"size": 6}}
    result = firefight.resolve(melee({"kind": "diving_blow"}, attacker=attacker),
                               dice=[2, 5, 3])
    assert result["outcome"]["loser"] == "attacker"
    wound = step(result, "wound_1")["numbers"]
    assert (wound["dpv"], wound["armor"]) == (0.5, 0)
    assert all(e["target"] == "attacker" for e in result["effects"])


def test_grapple_control_points() -> None:
    # Grapple hits; stun 1 (serious, column 2) + 7 previous = 8 = STR 8: ceases struggling.
    result = firefight.resolve(melee({"kind": "grapple", "control_points": 7}),
                               dice=[6, 4, 1])
    assert result["outcome"]["control_points"] == 8
    assert result["outcome"]["controlled"] is True


def test_thrown_weapon() -> None:
    attacker = {"name": "A", "stats": {"strength": 12, "throw_range_m": 40}}
    request = melee({"kind": "thrown", "object_weight_kg": 2}, attacker=attacker,
                    range={"value": 15})
    result = firefight.resolve(request, dice=[10, 7, 1])  # 15 m of 20: Difficult
    assert result["outcome"]["reach_m"] == 20
    assert step(result, "damage")["numbers"]["dpv"] == 0.6  # STR / 20
    far = melee({"kind": "thrown", "object_weight_kg": 2}, attacker=attacker,
                range={"value": 25})
    assert firefight.resolve(far, seed=1)["error"]["code"] == "refused"


def critical(shock: int, roll: int, point: int = 1, moved: bool = False,
             life: int = 5) -> dict[str, Any]:
    return firefight.resolve({"ruleset": "dpv", "action": "critical_point", "point": point,
                              "moved": moved,
                              "patient": {"pc": True, "stats": {"shock": shock,
                                                                "life_level": life}}},
                             dice=[roll])


def test_critical_points() -> None:
    assert critical(2, 2)["outcome"]["shock"] == 3  # at or under: one more
    assert critical(2, 3)["outcome"]["shock"] == 2
    assert critical(2, 3, moved=True)["outcome"]["shock"] == 3  # DM -1
    assert critical(4, 1)["outcome"]["state"] == "dead"
    assert critical(2, 9, point=5)["outcome"]["state"] == "stabilized"


def test_regain_consciousness() -> None:
    request = {"ruleset": "dpv", "action": "regain_consciousness", "hours_unconscious": 3}
    assert firefight.resolve(request, dice=[2])["outcome"]["hit"] is True
    assert firefight.resolve(request, dice=[3])["outcome"]["hit"] is False
    assert firefight.odds(request)["exact"] == "1/5"


def test_resuscitation_windows() -> None:
    base = {"ruleset": "dpv", "action": "resuscitate", "minutes_since_death": 20,
            "medic": {"stats": {"skills": {"medical": 3}}}}
    head = firefight.resolve({**base, "killed_by": "head"}, dice=[])
    assert head["outcome"]["possible"] is False
    late = firefight.resolve({**base, "killed_by": "torso", "minutes_since_death": 61}, dice=[])
    assert late["outcome"]["possible"] is False
    ok = firefight.resolve({**base, "killed_by": "shock"}, dice=[7, 3, 3, 3])
    assert ok["outcome"]["success"] is True  # 7 + 3 >= Difficult 10
    assert ok["outcome"]["seconds"] == 30 * 6  # 3D6 9 - 3 = 6 x 30 s


def test_natural_healing() -> None:
    request = {"ruleset": "dpv", "action": "natural_healing", "weeks": 2,
               "patient": {"stats": {"light_wounds": 3, "shock": 1}}}
    result = firefight.resolve(request, dice=[])
    assert [(e["kind"], e["delta"]) for e in result["effects"]] == [
        ("light_wounds", -2), ("shock", -1)]


def test_a_surprise_strike_cannot_be_blocked() -> None:
    # 2300ad MELEE: "Surprise attacks ... are automatically successful": no block roll.
    result = firefight.resolve(melee({"surprise": True, "block": True}), dice=[3, 4])
    assert result["outcome"]["hit"] is True
    assert all(s["id"] != "block" for s in result["steps"])
    assert all("block" not in d["purpose"] for d in result["dice"])
