"""SHOCK golden tests: the text's worked example with its own dice, and every rule of the
text (and every reading of it, docs/rules-notes.md, "SHOCK skirmish") pinned to a test."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest
from _examples import example

import firefight
from firefight.rulesets.shock import damage, data, soldier, to_hit
from firefight.rulesets.shock import wounds as wounding
from firefight.rulesets.shock.models import ShockSettings, ShockStats


def attack(**changes: Any) -> dict[str, Any]:
    """A class IV rifle shot at a regular in the open, 30 m, the hit confirmed by the referee."""
    request: dict[str, Any] = {
        "ruleset": "shock", "action": "attack",
        "attacker": {"name": "Able", "actor_id": "A1", "token_id": "T1",
                     "stats": {"quality": "regular"}},
        "target": {"name": "Baker", "actor_id": "A2", "token_id": "T2",
                   "stats": {"quality": "regular", "wounds": 0, "state": "ok"}},
        "weapon": {"name": "AK-74", "damage_class": "IV"},
        "range": {"value": 30, "units": "m"},
        "options": {"referee_confirmed_hit": True},
    }
    for path, value in changes.items():
        node = request
        keys = path.split("__")
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value
    return copy.deepcopy(request)


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


def effects(result: dict[str, Any]) -> list[tuple[str, int, Any]]:
    return [(e["kind"], e["delta"], e["value"]) for e in result["effects"]]


# --- The worked example ---------------------------------------------------------------------

def test_dshk_upper_torso_rolling_4_turns_shock_into_death() -> None:
    # shock Damage Class: "if you were to hit someone in the upper torso with a DShK 12.7mm
    # machine gun round, and rolled a 4 on the severity, that SHOCK result becomes a DEATH result."
    result = firefight.resolve(example("shock_dshk.json"), dice=[6, 4])
    assert [d["purpose"] for d in result["dice"]] == ["hit location", "severity"]
    assert result["outcome"]["location"] == "upper_torso"
    severity = step(result, "severity")["numbers"]
    assert (severity["roll"], severity["tabled"], severity["result"]) == (4, "shock", "death")
    assert severity["upgraded"] is True
    assert result["outcome"]["state_after"] == "dead"
    assert effects(result) == [("state", 0, "dead")]
    # Class VI adds no roll modifier: it upgrades.
    assert [m for m in result["modifiers"] if m["step"] == "severity"] == []
    assert any(n["key"].endswith("note.upgrade") for n in result["notes"])


def test_the_same_hit_from_a_class_v_round_is_shock() -> None:
    request = example("shock_dshk.json")
    request["weapon"]["damage_class"] = "V"
    result = firefight.resolve(request, dice=[6, 4])  # 4 + 2 = row 6: SHOCK
    assert step(result, "severity")["numbers"]["row"] == 6
    assert result["outcome"]["result"] == "shock"
    assert [m["source"] for m in result["modifiers"]] == ['shock Damage Class, "V"']


# --- Troop quality and TAP ------------------------------------------------------------------

@pytest.mark.parametrize(("quality", "mod", "rating", "chits"), [
    ("untrained", -3, 2, (1, 0, 0, 0)), ("conscript", -2, 3, (1, 0, 1, 0)),
    ("green", -1, 4, (1, 1, 1, 0)), ("regular", 0, 5, (1, 1, 1, 1)),
    ("experienced", 1, 6, (2, 1, 1, 1)), ("veteran", 2, 7, (2, 1, 2, 1)),
    ("elite", 3, 8, (2, 2, 2, 1)), ("rainbow", 4, 9, (2, 2, 2, 2)),
])
def test_quality_table(quality: str, mod: int, rating: int, chits: tuple[int, ...]) -> None:
    # shock Troop Quality: Regular 5-5-5, untrained 2-2-2, rainbow 9-9-9; P1-P4 x / xx.
    assert data.tables().quality[quality].mod == mod
    assert soldier.generic_rating(quality) == rating
    assert soldier.tap(ShockStats(quality=quality)) == (rating, rating, rating)  # type: ignore[arg-type]
    assert soldier.chits(quality) == chits


def test_named_units_keep_their_own_tap() -> None:
    stats = ShockStats(quality="green", toughness=7, prowess=9)
    assert soldier.tap(stats) == (7, 4, 9)


# --- Hit location and cover -----------------------------------------------------------------

@pytest.mark.parametrize(("roll", "location"), [
    (1, "head"), (2, "head"), (3, "neck"), (4, "arm"), (5, "arm"), (6, "upper_torso"),
    (7, "upper_torso"), (8, "lower_torso"), (9, "leg"), (10, "leg"),
])
def test_hit_location(roll: int, location: str) -> None:
    assert damage.hit_location(roll) == location
    result = firefight.resolve(attack(), dice=[roll, 1])
    assert result["outcome"]["location"] == location


def test_cover_stops_a_round_of_its_class_or_lower_where_it_protects() -> None:
    wall = {"name": "Low brick wall", "locations": ["lower_torso", "leg"], "stops": "IV"}
    request = attack(target__cover=[wall])
    stopped = firefight.resolve(request, dice=[9])  # leg: behind the wall
    assert stopped["outcome"]["stopped"] is True
    assert stopped["outcome"]["cover"] == "Low brick wall"
    assert len(stopped["dice"]) == 1  # no severity roll
    assert stopped["effects"] == []
    assert step(stopped, "cover")["success"] is False
    over = firefight.resolve(request, dice=[6, 5])  # upper torso: above the wall
    assert over["outcome"]["stopped"] is False
    request["weapon"]["damage_class"] = "V"
    through = firefight.resolve(request, dice=[9, 5])  # a class V round goes through
    assert through["outcome"]["stopped"] is False
    assert any(n["key"].endswith("note.pierced") for n in through["notes"])


@pytest.mark.parametrize(("preset", "covered"), [
    ("none", set()), ("low", {8, 9, 10}), ("chest_high", {6, 7, 8, 9, 10}),
    ("all_but_head", set(range(3, 11))),
])
def test_dialog_cover_presets(preset: str, covered: set[int]) -> None:
    request = attack(options={"referee_confirmed_hit": True, "cover": preset,
                              "cover_stops": "IV"})
    for roll in range(1, 11):
        result = firefight.resolve(request, dice=[roll, 5])
        assert result["outcome"]["stopped"] is (roll in covered), (preset, roll)
    request["options"]["cover_stops"] = "III"  # a class IV round goes through
    assert not any(firefight.resolve(request, dice=[r, 5])["outcome"]["stopped"]
                   for r in range(1, 11))
    stopped = Fraction(firefight.odds(
        attack(options={"cover": preset}))["given_hit_exact"].get("stopped", "0"))
    assert stopped == Fraction(len(covered), 10)


def test_stopped_card_names_the_cover() -> None:
    result = firefight.resolve(attack(options={"referee_confirmed_hit": True, "cover": "low"}),
                               dice=[9])
    text = firefight.render_card(result, fmt="text")
    assert "Stopped by Cover." in text
    assert "FIREFIGHT." not in text


def test_armor_protects_like_cover() -> None:
    helmet = {"name": "Helmet", "category": "armor", "locations": ["head"], "stops": "II"}
    request = attack(target__armor=[helmet], weapon__damage_class="II")
    assert firefight.resolve(request, dice=[1])["outcome"]["stopped"] is True
    request["weapon"]["damage_class"] = "III"
    assert firefight.resolve(request, dice=[1, 1])["outcome"]["stopped"] is False


# --- Damage class and location severity ---------------------------------------------------------

@pytest.mark.parametrize(("damage_class", "mod"), [
    ("I", -2), ("II", -1), ("III", 0), ("IV", 1), ("V", 2), ("VI", None),
])
def test_damage_class_modifiers(damage_class: str, mod: int | None) -> None:
    assert damage.class_modifier(damage_class) == mod


@pytest.mark.parametrize(("location", "expected"), [
    ("head", ["stun", "wound", "shock"] + ["death"] * 7),
    ("neck", ["stun"] + ["wound"] * 4 + ["shock"] * 3 + ["death"] * 2),
    ("arm", ["stun"] * 5 + ["wound"] * 4 + ["shock"]),
    ("upper_torso", ["stun"] + ["wound"] * 2 + ["shock"] * 7),
    ("lower_torso", ["stun"] + ["wound"] * 5 + ["shock"] * 4),
    ("leg", ["stun"] + ["wound"] * 7 + ["shock"] * 2),
])
def test_severity_columns_read_by_filling_down(location: str, expected: list[str]) -> None:
    # An empty cell keeps the result above it: class III (no modifier), rolls 1..10.
    assert [damage.severity(location, r, "III").result for r in range(1, 11)] == expected


@pytest.mark.parametrize(("damage_class", "roll", "row"), [
    ("I", 1, 1), ("I", 2, 1), ("I", 3, 1), ("II", 1, 1), ("IV", 10, 10), ("V", 9, 10),
    ("V", 10, 10), ("IV", 9, 10), ("II", 10, 9),
])
def test_modified_roll_is_clamped_to_the_table(damage_class: str, roll: int, row: int) -> None:
    sev = damage.severity("arm", roll, damage_class)
    assert sev.modified == roll + (damage.class_modifier(damage_class) or 0)
    assert sev.row == row


def test_severity_modifier_and_clamp_on_the_card() -> None:
    result = firefight.resolve(attack(weapon__damage_class="V"), dice=[4, 9])  # arm, 9 + 2
    assert [(m["value"], m["source"]) for m in result["modifiers"]] == [
        (2, 'shock Damage Class, "V"')]
    assert step(result, "severity")["numbers"]["row"] == 10
    assert result["outcome"]["result"] == "shock"
    assert any(n["key"].endswith("note.clamped") for n in result["notes"])


@pytest.mark.parametrize(("tabled", "upgraded"), [
    ("stun", "wound"), ("wound", "shock"), ("shock", "death"), ("death", "death"),
])
def test_class_vi_upgrades_one_tier(tabled: str, upgraded: str) -> None:
    assert damage.upgrade(tabled) == upgraded


def test_class_vi_on_every_cell_is_the_next_tier() -> None:
    for location in data.tables().severity:
        for roll in range(1, 11):
            plain = damage.severity(location, roll, "III").result
            assert damage.severity(location, roll, "VI").result == damage.upgrade(plain)


# --- Effects ----------------------------------------------------------------------------------

def test_stun_skips_a_turn() -> None:
    result = firefight.resolve(attack(), dice=[4, 1])  # arm, 1 + 1 = 2: STUN
    assert result["outcome"]["result"] == "stun"
    assert effects(result) == [("state", 0, "stunned")]


@pytest.mark.parametrize(("scale", "damage_class", "counters"), [
    ("class", "I", 1), ("class", "II", 2), ("class", "III", 3), ("class", "IV", 4),
    ("class", "V", 5), ("class", "VI", 6), ("half", "I", 1), ("half", "II", 1),
    ("half", "III", 2), ("half", "IV", 2), ("half", "V", 3), ("half", "VI", 3),
])
def test_wound_counters_scale_with_damage_class(scale: str, damage_class: str, counters: int
                                                ) -> None:
    assert wounding.wound_counters(damage_class, scale) == counters


def test_wound_adds_counters_by_the_world_scale() -> None:
    result = firefight.resolve(attack(), dice=[9, 3])  # leg, 3 + 1 = 4: WOUND
    assert effects(result) == [("wounds", 4, None)]
    assert result["outcome"]["wounds_after"] == 4
    half = firefight.resolve(attack(settings={"wound_scale": "half"}), dice=[9, 3])
    assert effects(half) == [("wounds", 2, None)]


def test_class_vi_stun_becomes_a_wound_of_six() -> None:
    result = firefight.resolve(attack(weapon__damage_class="VI"), dice=[4, 1])
    assert result["outcome"]["result"] == "wound"
    assert effects(result) == [("wounds", 6, None)]


def test_ten_wounds_is_shock_at_once_and_the_counters_go() -> None:
    request = attack(target__stats={"wounds": 6})
    result = firefight.resolve(request, dice=[9, 3])  # +4: ten
    assert result["outcome"]["result"] == "shock"
    assert result["outcome"]["via"] == "wounds_ten"
    assert effects(result) == [("wounds", 4, None), ("state", 0, "shock"), ("wounds", -10, None)]
    assert result["outcome"]["wounds_after"] == 0
    request["target"]["stats"]["wounds"] = 5
    assert firefight.resolve(request, dice=[9, 3])["outcome"]["result"] == "wound"


def test_shock_result_incapacitates_and_keeps_counters() -> None:
    result = firefight.resolve(attack(target__stats={"wounds": 3}), dice=[6, 4])  # 4 + 1: SHOCK
    assert effects(result) == [("state", 0, "shock")]
    assert result["outcome"]["wounds_after"] == 3
    assert any(n["key"].endswith("note.evacuate") for n in result["notes"])


def test_death() -> None:
    result = firefight.resolve(attack(), dice=[1, 3])  # head, 3 + 1: DEATH
    assert effects(result) == [("state", 0, "dead")]


@pytest.mark.parametrize(("setting", "location", "roll", "dies"), [
    ("any_hit", 4, 1, True), ("any_hit", 9, 5, True),
    ("wound_or_worse", 4, 1, False), ("wound_or_worse", 9, 5, True),
])
def test_more_damage_in_shock_kills(setting: str, location: int, roll: int, dies: bool) -> None:
    # Class I: arm, 1 - 2 reads row 1 (STUN); leg, 5 - 2 = 3 (WOUND).
    request = attack(target__stats={"state": "shock"}, weapon__damage_class="I",
                     settings={"damage_in_shock": setting})
    result = firefight.resolve(request, dice=[location, roll])
    assert (effects(result) == [("state", 0, "dead")]) is dies
    assert result["outcome"]["via"] == "in_shock"


def test_a_stunned_target_takes_wounds_and_stays_stunned() -> None:
    result = firefight.resolve(attack(target__stats={"state": "stunned"}), dice=[9, 3])
    assert effects(result) == [("wounds", 4, None)]
    assert result["outcome"]["state_after"] == "stunned"


@pytest.mark.parametrize("state", ["stunned", "shock", "dead"])
def test_a_unit_that_cannot_act_cannot_shoot(state: str) -> None:
    out = firefight.resolve(attack(attacker__stats={"state": state}), dice=[1, 1])
    assert out["error"]["code"] == "refused"
    assert out["error"]["fields"][0]["field"] == "attacker.stats.state"


def test_the_dead_are_not_shot_again() -> None:
    out = firefight.resolve(attack(target__stats={"state": "dead"}), dice=[1, 1])
    assert out["error"]["fields"][0]["field"] == "target.stats.state"


# --- To hit: referee or house rule --------------------------------------------------------------

def test_referee_confirmed_hit_rolls_no_to_hit_die() -> None:
    result = firefight.resolve(attack(), dice=[9, 3])
    assert step(result, "to_hit")["kind"] == "info"
    assert result["dice"][0]["purpose"] == "hit location"
    assert any(n["key"].endswith("note.to_hit_referee") for n in result["notes"])
    assert result["odds"] == {}


def test_referee_mode_without_confirmation_is_no_hit() -> None:
    request = attack(options={}, settings={"to_hit": "referee"})
    result = firefight.resolve(request, dice=[])
    assert result["outcome"]["hit"] is False
    assert result["dice"] == []
    assert result["outcome"]["summary_key"].endswith("referee_unconfirmed")
    assert firefight.odds(request)["probability"] == 0


@pytest.mark.parametrize(("prowess", "roll", "hit"), [
    (5, 5, True), (5, 6, False), (2, 1, True), (9, 9, True), (9, 10, False),
])
def test_house_rule_hits_on_prowess_or_less(prowess: int, roll: int, hit: bool) -> None:
    request = attack(options={}, attacker__stats={"prowess": prowess})  # 30 m: no range mod
    result = firefight.resolve(request, dice=[roll, 1, 1])
    assert result["outcome"]["hit"] is hit
    assert result["dice"][0]["purpose"] == "to-hit (house rule), Able"
    assert all(m["source"] == "FIREFIGHT.shock.source.house" for m in result["modifiers"]
               if m["step"] == "to_hit")  # "Firefight house rule (not in SHOCK)", said in lang
    assert any(n["key"].endswith("note.to_hit_house") for n in result["notes"])


def test_house_rule_one_always_hits_ten_always_misses() -> None:
    hopeless = attack(options={"situational": -5, "shooter_moved": True},
                      attacker__stats={"prowess": 1}, range={"value": 900, "units": "m"})
    assert firefight.resolve(hopeless, dice=[1, 1, 1])["outcome"]["hit"] is True
    assert firefight.odds(hopeless)["exact"] == "1/10"
    sure = attack(options={"situational": 5, "aimed": True}, attacker__stats={"prowess": 10},
                  range={"value": 5, "units": "m"})
    assert firefight.resolve(sure, dice=[10])["outcome"]["hit"] is False
    assert firefight.odds(sure)["exact"] == "9/10"


@pytest.mark.parametrize("target_number", range(-6, 16))
def test_house_rule_odds_are_exact(target_number: int) -> None:
    expected = Fraction(min(max(target_number, 1), 9), 10)
    assert to_hit.hit_probability(target_number) == expected


@pytest.mark.parametrize(("metres", "mod"), [
    (0, 2), (10, 2), (10.9, 2), (11, 0), (50, 0), (51, -1), (150, -1), (151, -2), (300, -2),
    (301, -4), (600, -4), (601, -6), (5000, -6),
])
def test_house_rule_range_bands(metres: float, mod: int) -> None:
    out = firefight.odds(attack(options={}, range={"value": metres, "units": "m"}))
    assert out["net_modifier"] == 5 + mod


def test_house_rule_options() -> None:
    request = attack(options={"aimed": True, "shooter_moved": True, "target_moving": True,
                              "target_prone": True, "situational": 3})
    out = firefight.odds(request)
    got = {m["key"].removeprefix("FIREFIGHT.shock.mod."): m["value"] for m in out["modifiers"]
           if m["step"] == "to_hit"}
    assert got == {"prowess": 5, "range.short": 0, "aimed": 1, "shooter_moved": -2,
                   "target_moving": -1, "target_prone": -1, "situational": 3}
    assert out["net_modifier"] == 5
    assert out["exact"] == "1/2"


# --- Exact odds of what a hit does --------------------------------------------------------------

def test_outcome_odds_given_a_hit_class_iii() -> None:
    # By hand from the filled table (location weights 2,1,2,2,1,2 tenths):
    # death: head 2 x 7 + neck 1 x 2 = 16/100; stun: 2x1 + 1x1 + 2x5 + 2x1 + 1x1 + 2x1 = 18/100.
    out = firefight.odds(attack(weapon__damage_class="III"))
    assert out["given_hit_exact"] == {"stun": "9/50", "wound": "37/100", "shock": "29/100",
                                      "death": "4/25"}
    assert out["probability"] == 1.0
    assert out["incapacitate_probability"] == pytest.approx(0.45)


def test_outcome_odds_sum_to_one_and_cover_counts() -> None:
    wall = {"name": "Wall", "locations": ["lower_torso", "leg"], "stops": "V"}
    out = firefight.odds(attack(target__cover=[wall]))
    exact = {k: Fraction(v) for k, v in out["given_hit_exact"].items()}
    assert sum(exact.values()) == 1
    assert exact["stopped"] == Fraction(3, 10)


def test_outcome_odds_match_resolution_on_every_face() -> None:
    request = attack(target__stats={"wounds": 7})
    counts: dict[str, int] = {}
    for loc in range(1, 11):
        for sev in range(1, 11):
            outcome = firefight.resolve(request, dice=[loc, sev])["outcome"]
            counts[outcome["result"]] = counts.get(outcome["result"], 0) + 1
    exact = firefight.odds(request)["given_hit_exact"]
    assert {k: Fraction(v) for k, v in exact.items()} == {k: Fraction(n, 100)
                                                          for k, n in counts.items()}


# --- End of turn ------------------------------------------------------------------------------

def end_of_turn(*units: dict[str, Any]) -> dict[str, Any]:
    return {"ruleset": "shock", "action": "end_of_turn", "units": list(units)}


@pytest.mark.parametrize(("wounds", "roll", "shock"), [
    (1, 2, False), (1, 1, True), (4, 5, False), (4, 4, True), (9, 10, False), (9, 9, True),
])
def test_shock_check_must_roll_above_the_wounds(wounds: int, roll: int, shock: bool) -> None:
    result = firefight.resolve(end_of_turn({"name": "Baker", "actor_id": "A2",
                                            "wounds": wounds}), dice=[roll])
    assert result["dice"][0]["purpose"] == "shock check, Baker"
    assert result["steps"][0]["success"] is not shock
    if shock:
        assert [(e["kind"], e["delta"], e["value"]) for e in result["effects"]] == [
            ("state", 0, "shock"), ("wounds", -wounds, None)]
        assert result["effects"][0]["params"]["actor_id"] == "A2"
        assert result["outcome"]["shocked"] == ["Baker"]
    else:
        assert result["effects"] == []


def test_ten_wounds_at_the_end_of_the_turn_is_shock_without_a_roll() -> None:
    result = firefight.resolve(end_of_turn({"name": "C", "wounds": 10}), dice=[])
    assert result["dice"] == []
    assert result["outcome"]["shocked"] == ["C"]


def test_one_die_per_wounded_unit_only() -> None:
    units = [{"name": "ok", "wounds": 0}, {"name": "w", "wounds": 2},
             {"name": "in shock", "wounds": 3, "state": "shock"},
             {"name": "dead", "wounds": 5, "state": "dead"},
             {"name": "stunned", "wounds": 1, "state": "stunned"}]
    result = firefight.resolve(end_of_turn(*units), dice=[3, 8])
    assert [d["purpose"] for d in result["dice"]] == ["shock check, w", "shock check, stunned"]
    assert result["effects"] == []
    odds = firefight.odds(end_of_turn(*units))
    assert [u["exact"] for u in odds["units"]] == ["0/1", "1/5", "0/1", "0/1", "1/10"]
    assert odds["exact"] == "18/25"


def test_stun_ends_after_the_turn_it_skipped() -> None:
    units = [{"name": "skipped", "state": "stunned", "skipped_turn": True},
             {"name": "not yet", "state": "stunned"}]
    result = firefight.resolve(end_of_turn(*units), dice=[])
    assert [(e["params"]["name"], e["value"]) for e in result["effects"]] == [("skipped", "ok")]
    assert result["outcome"]["recovered"] == ["skipped"]


def test_a_stunned_unit_going_into_shock_does_not_recover() -> None:
    unit = {"name": "s", "state": "stunned", "skipped_turn": True, "wounds": 6}
    result = firefight.resolve(end_of_turn(unit), dice=[2])
    assert [e["value"] for e in result["effects"] if e["kind"] == "state"] == ["shock"]


@pytest.mark.parametrize("wounds", range(12))
def test_shock_check_probability_is_exact(wounds: int) -> None:
    assert wounding.shock_check_probability(wounds) == Fraction(min(wounds, 10), 10)


# --- Chit pull ----------------------------------------------------------------------------------

def draw(*units: dict[str, Any]) -> dict[str, Any]:
    return {"ruleset": "shock", "action": "draw_chits", "units": list(units)}


def test_chit_draws_are_dice_from_the_chits_left() -> None:
    request = draw({"name": "Vet", "quality": "veteran"}, {"name": "Raw", "quality": "untrained"})
    # Phase 1 cup: Vet#1, Vet#2, Raw#1. Draw 3rd of 3 (Raw), then 2nd of 2 (Vet#2), then 1 of 1.
    result = firefight.resolve(request, dice=[3, 2, 1, 1, 2, 1, 1])
    assert [d["formula"] for d in result["dice"]] == ["1d3", "1d2", "1d1", "1d1", "1d2", "1d1",
                                                      "1d1"]
    assert all(d["purpose"].startswith("chit draw, phase ") for d in result["dice"])
    phases = result["outcome"]["phases"]
    assert [(a["name"], a["chit"]) for a in phases[0]] == [("Raw", 1), ("Vet", 2), ("Vet", 1)]
    assert [(a["name"], a["chit"]) for a in phases[2]] == [("Vet", 2), ("Vet", 1)]
    assert [len(p) for p in phases] == [3, 1, 2, 1]
    assert [a["seq"] for a in result["outcome"]["order"]] == list(range(1, 8))


@pytest.mark.parametrize("quality", data.tables().quality)
def test_each_unit_draws_its_quality_s_chits(quality: str) -> None:
    units = [{"name": f"{quality} {n}", "quality": quality} for n in range(3)]
    result = firefight.resolve(draw(*units), seed=7)
    for phase, per_unit in enumerate(soldier.chits(quality)):
        drawn = result["outcome"]["phases"][phase]
        assert sorted(a["unit"] for a in drawn) == sorted(
            i for i in range(3) for _ in range(per_unit))


def test_units_in_shock_or_dead_put_no_chits_in_and_stunned_ones_are_flagged() -> None:
    request = draw({"name": "down", "state": "shock"}, {"name": "gone", "state": "dead"},
                   {"name": "dazed", "state": "stunned"}, {"name": "fine"})
    result = firefight.resolve(request, seed=3)
    names = {a["name"] for a in result["outcome"]["order"]}
    assert names == {"dazed", "fine"}
    assert all(a["stunned"] == (a["name"] == "dazed") for a in result["outcome"]["order"])
    assert firefight.odds(request)["chits"] == [2, 2, 2, 2]


def test_chit_draw_replays_exactly() -> None:
    request = draw(*[{"name": q, "quality": q} for q in data.tables().quality])
    for seed in range(10):
        first = firefight.resolve(request, seed=seed)
        faces = [f for d in first["dice"] for f in d["results"]]
        assert firefight.resolve(request, dice=faces) == first


# --- A round of fighting: a squad of each quality ----------------------------------------------

def apply(unit: dict[str, Any], effect: dict[str, Any]) -> None:
    """What the table does with an effect: add a delta, or set a value."""
    if effect["kind"] == "wounds":
        unit["wounds"] += effect["delta"]
    elif effect["kind"] == "state":
        unit["state"] = effect["value"]


def test_a_squad_of_each_quality_fights_a_round() -> None:
    setup = example("shock_squads.json")
    qualities = list(setup["weapons"])
    units = [{"name": f"{q} {n + 1}", "quality": q, "squad": s, "wounds": 0, "state": "ok",
              "skipped": False}
             for s, q in enumerate(qualities) for n in range(setup["squad_size"])]
    settings = ShockSettings().model_dump()
    order = firefight.resolve(draw(*[{"name": u["name"], "quality": u["quality"]}
                                     for u in units]), seed=2026)
    assert len(order["outcome"]["order"]) == sum(
        sum(soldier.chits(u["quality"])) for u in units)
    attacks = hits = 0
    for n, activation in enumerate(order["outcome"]["order"]):
        me = units[activation["unit"]]
        if me["state"] == "stunned":
            me["skipped"] = True
            continue
        if me["state"] != "ok":
            continue
        enemies = [u for u in units if u["squad"] == (me["squad"] + 1) % len(qualities)
                   and u["state"] != "dead"]
        if not enemies:
            continue
        target = enemies[0]
        request = {
            "ruleset": "shock", "action": "attack",
            "attacker": {"name": me["name"], "stats": {"quality": me["quality"]}},
            "target": {"name": target["name"],
                       "stats": {"quality": target["quality"], "wounds": target["wounds"],
                                 "state": target["state"]}},
            "weapon": setup["weapons"][me["quality"]],
            "range": {"value": 40, "units": "m"}, "settings": settings,
        }
        result = firefight.resolve(request, seed=n)
        assert "error" not in result, result
        attacks += 1
        hits += result["outcome"]["hit"]
        for effect in result["effects"]:
            apply(target, effect)
    end = firefight.resolve(end_of_turn(*[
        {"name": u["name"], "wounds": u["wounds"], "state": u["state"],
         "skipped_turn": u["skipped"]} for u in units]), seed=1)
    wounded = [u for u in units if u["wounds"] and u["state"] in ("ok", "stunned")]
    assert len(end["dice"]) == len(wounded)
    for effect in end["effects"]:
        apply(units[effect["params"]["unit"]], effect)
    assert attacks > 20
    assert hits > 5
    for u in units:
        assert u["wounds"] >= 0
        assert u["state"] in ("ok", "stunned", "shock", "dead")
        if u["name"] in end["outcome"]["shocked"]:
            assert (u["state"], u["wounds"]) == ("shock", 0)
