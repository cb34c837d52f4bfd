"""Percentile small arms: the worked examples fed the texts' dice, and every rule of the issue."""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction
from typing import Any

import pytest
from _examples import example

import firefight
from firefight.rulesets.percentile import odds, small_arms

M = "FIREFIGHT.percentile.mod."


def d100_faces(*rolls: int) -> list[int]:
    """The two d10 faces (tens, ones; a 0 is the face 10) that read as each D100 roll."""
    faces: list[int] = []
    for roll in rolls:
        tens, ones = divmod(roll % 100, 10)
        faces += [tens or 10, ones or 10]
    return faces


def mods(result: dict[str, Any]) -> dict[str, int]:
    return {m["key"].removeprefix(M): m["value"] for m in result["modifiers"]}


def rolls(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in result["steps"] if s["kind"] == "percentile"]


def outcomes(result: dict[str, Any]) -> list[str]:
    return [s["outcome_key"].rsplit(".", 1)[1] for s in rolls(result)]


def note_keys(result: dict[str, Any]) -> list[str]:
    return [n["key"].rsplit(".", 1)[1] for n in result["notes"]]


@pytest.fixture
def rifle() -> dict[str, Any]:
    return copy.deepcopy(example("percentile_rifleman.json"))


@pytest.fixture
def smg() -> dict[str, Any]:
    return copy.deepcopy(example("percentile_submachine_gunner.json"))


# --- the worked examples ----------------------------------------------------------------------

def test_example_1_rifleman_three_rounds(rifle: dict[str, Any]) -> None:
    # "Subtract the range of 30 inches from 100 ... Add 1 for the single round fired at a time
    # ... 71%. He fires 3 rounds." Dice: 21, 82, 66.
    result = firefight.resolve(rifle, dice=d100_faces(21, 82, 66))
    assert mods(result) == {"bp.rifle": 70, "rounds": 1}
    assert result["outcome"]["chance"] == 71
    assert [s["numbers"]["roll"] for s in rolls(result)] == [21, 82, 66]
    assert outcomes(result) == ["wound", "miss", "wound"]
    first, _, third = rolls(result)
    # The text reads "7 percent" from row 15-21, column 1-5, whose printed value is 6: the
    # table wins (docs/rules-notes.md, "Percentile small arms"). Row 65-71 gives 13, as the
    # text says.
    assert first["numbers"]["table_percent"] == 6
    assert "D100 15-21, rounds 1-5" in first["params"]["source"]
    assert third["numbers"]["table_percent"] == 13
    assert "D100 65-71, rounds 1-5" in third["params"]["source"]
    # The text's net 20 % is 7 + 13; by the table it is 6 + 13 = 19.
    out = result["outcome"]
    assert (out["hits"], out["damage"], out["life_after"], out["state"]) == (2, 19, 81, "wounded")
    assert result["effects"][0] == {
        "target": "target", "kind": "life_force", "delta": -19, "value": None,
        "label_key": "FIREFIGHT.percentile.effect.life_force",
        "params": {"loss": 19, "before": 100, "after": 81}, "on_actor": True}


def test_example_2_submachine_gunner_burst(smg: dict[str, Any]) -> None:
    # "50 - 30 = 20 doubled is 40. Add the 30 rounds = 70"; the burst rolls 59: column 26-30,
    # row 58-64: "72 percent damage".
    result = firefight.resolve(smg, dice=d100_faces(59))
    assert mods(result) == {"bp.smg": 40, "rounds": 30}
    assert result["outcome"]["chance"] == 70
    (burst,) = rolls(result)
    assert burst["id"] == "burst"
    assert burst["numbers"]["roll"] == 59
    assert burst["numbers"]["table_percent"] == 72
    assert "D100 58-64, rounds 26-30" in burst["params"]["source"]
    assert result["outcome"]["life_after"] == 28
    assert [d["purpose"] for d in result["dice"]] == ["to-hit tens, burst", "to-hit ones, burst"]


def test_example_2_at_close_range_doubles_and_triples(smg: dict[str, Any]) -> None:
    # "the submachine gunner with the same die roll above would do 72 doubled to 144 percent".
    smg["range"]["value"] = 15
    result = firefight.resolve(smg, dice=d100_faces(59))
    burst = rolls(result)[0]["numbers"]
    assert (burst["table_percent"], burst["multiplier"], burst["damage"]) == (72, 2, 144)
    assert result["outcome"]["state"] == "dead"
    assert {"kind": "state", "value": "dead"}.items() <= result["effects"][1].items()
    smg["range"]["value"] = 5
    burst = rolls(firefight.resolve(smg, dice=d100_faces(59)))[0]["numbers"]
    assert (burst["multiplier"], burst["damage"]) == (3, 216)


@pytest.mark.parametrize(("inches", "below", "at_or_below"), [
    (25, 1, 1), (20.01, 1, 1), (20, 1, 2), (19.99, 2, 2), (10.5, 2, 2), (10, 2, 3), (9, 3, 3),
    (0, 3, 3),
])
def test_range_damage_boundary_setting(inches: float, below: int, at_or_below: int) -> None:
    r = Fraction(str(inches))
    assert small_arms.damage_multiplier("rifle", r, "below")[0] == below  # Small Arms: "less than"
    assert small_arms.damage_multiplier("rifle", r, "at_or_below")[0] == at_or_below  # the note
    assert small_arms.damage_multiplier("pistol", r, "at_or_below")[0] == 1  # "EXCEPT FOR PISTOLS"


def test_range_damage_setting_reaches_the_result(smg: dict[str, Any]) -> None:
    smg["range"]["value"] = 20
    assert rolls(firefight.resolve(smg, dice=d100_faces(59)))[0]["numbers"]["damage"] == 72
    smg["settings"] = {"range_damage": "at_or_below"}
    result = firefight.resolve(smg, dice=d100_faces(59))
    assert rolls(result)[0]["numbers"]["damage"] == 144
    assert "At or below 20″" in result["notes"][0]["source"]


def test_pistols_never_multiply(rifle: dict[str, Any]) -> None:
    rifle["weapon"] = {"name": "Pistol", "weapon_class": "pistol", "action": "semi",
                       "magazine": 8}
    rifle["range"]["value"] = 5
    result = firefight.resolve(rifle, dice=d100_faces(50, 60, 70))
    assert result["outcome"]["chance"] == 76  # (20 - 5) x 5 + 1
    assert [s["numbers"].get("damage") for s in rolls(result)] == [10, 12, 13]
    assert "pistol_no_multiplier" in note_keys(result)


# --- the chance ----------------------------------------------------------------------------

@pytest.mark.parametrize(("weapon_class", "inches", "bp"), [
    ("rifle", 30, 70), ("rifle", 0, 100), ("rifle", 120, -20), ("automatic_rifle", 30, 70),
    ("carbine", 30, 40), ("carbine", 10, 80), ("smg", 30, 40), ("smg", 55, -10),
    ("pistol", 10, 50), ("pistol", 25, -25), ("pistol", 0, 100),
])
def test_basic_percentage(weapon_class: str, inches: int, bp: int) -> None:
    assert small_arms.basic_percentage(weapon_class, Fraction(inches)) == bp


@pytest.mark.parametrize("weapon_class", ["rifle", "automatic_rifle", "carbine", "smg",
                                          "pistol"])
def test_the_shot_plans_whole_basic_percentage_is_its_floor(weapon_class: str) -> None:
    """The shot plan reads BP in whole numbers (issue 27): the floor of the exact one, at
    whole, fractional and billionth-of-an-inch ranges on both sides of 0."""
    for n in (*range(0, 200_000_000_000, 999_999_937), 29_999_999_999, 30_000_000_001):
        for inches in (Fraction(n, 10**9), Fraction(n // 10**9)):
            exact = small_arms.basic_percentage(weapon_class, inches)
            assert small_arms.whole_basic_percentage(weapon_class, inches) == exact // 1


def test_fractional_inches_floor_the_chance(rifle: dict[str, Any]) -> None:
    # BP 69.6 + 1 = 70.6: a roll of 70 hits, 71 does not, so the chance is 70.
    rifle["range"]["value"] = 30.4
    rifle["options"]["rounds"] = 1
    assert firefight.odds(rifle)["chance"] == 70
    assert outcomes(firefight.resolve(rifle, dice=d100_faces(70))) == ["wound"]
    assert outcomes(firefight.resolve(rifle, dice=d100_faces(71))) == ["miss"]


@pytest.mark.parametrize(("options", "key", "value"), [
    ({"target_prone": True}, "prone", -5),
    ({"cover": "soft"}, "cover.soft", -10),
    ({"cover": "half"}, "cover.half", -20),
    ({"cover": "head"}, "cover.head", -40),
    ({"sighting_turns": 1}, "sighting_in", 10),
    ({"sighting_turns": 3}, "sighting_in", 30),
    ({"rested": True}, "rested", 10),
])
def test_each_modifier(rifle: dict[str, Any], options: dict[str, Any], key: str,
                       value: int) -> None:
    rifle["options"].update(options)
    out = firefight.odds(rifle)
    got = {m["key"].removeprefix(M): m["value"] for m in out["modifiers"]}
    assert got == {"bp.rifle": 70, "rounds": 1, key: value}
    assert out["chance"] == 71 + value
    assert out["net_modifier"] == value
    assert all(m["source"].startswith("percentile Small Arms, ") for m in out["modifiers"])


def test_modifiers_add_up(rifle: dict[str, Any]) -> None:
    rifle["attacker"]["stats"]["sharpshooter"] = True
    rifle["options"].update(target_prone=True, cover="half", sighting_turns=2, rested=True)
    assert firefight.odds(rifle)["chance"] == 71 - 5 - 20 + 10 + 20 + 10


@pytest.mark.parametrize(("weapon_class", "applies"), [
    ("rifle", True), ("automatic_rifle", True), ("carbine", True), ("pistol", True),
    ("smg", False),
])
def test_sharpshooter_not_with_smgs(rifle: dict[str, Any], weapon_class: str,
                                    applies: bool) -> None:
    rifle["weapon"]["weapon_class"] = weapon_class
    rifle["attacker"]["stats"]["sharpshooter"] = True
    result = firefight.resolve(rifle, seed=1)
    assert ("sharpshooter" in mods(result)) is applies
    assert ("sharpshooter_smg" in note_keys(result)) is not applies


@pytest.mark.parametrize(("weapon_class", "applies"), [
    ("rifle", True), ("automatic_rifle", True), ("carbine", True), ("pistol", False),
    ("smg", False),
])
def test_sighting_in_and_rest_rifles_and_carbines_only(rifle: dict[str, Any], weapon_class: str,
                                                       applies: bool) -> None:
    rifle["weapon"]["weapon_class"] = weapon_class
    rifle["options"].update(sighting_turns=2, rested=True)
    result = firefight.resolve(rifle, seed=1)
    got = mods(result)
    assert ("sighting_in" in got, "rested" in got) == (applies, applies)
    assert note_keys(result).count("rifles_carbines_only") == (0 if applies else 2)


@pytest.mark.parametrize(("options", "chance", "key"), [
    ({"hasty_fire": True}, 17, "hasty_fire"),  # 71 x 1/4 = 17.75: rolls up to 17 hit
    ({"blind_fire": True}, 17, "blind_fire"),
    ({"hasty_fire": True, "blind_fire": True}, 8, "hasty_and_blind"),  # 1/8, "not 1/16"
    # Facing made it hasty fire (issue 15): the row says so.
    ({"bearing_deg": 46}, 17, "hasty_fire_arc"),
    ({"bearing_deg": -90, "blind_fire": True}, 8, "hasty_and_blind_arc"),
    ({"bearing_deg": 180}, 17, "hasty_fire_arc"),
    ({"bearing_deg": 200}, 17, "hasty_fire_arc"),
    ({"bearing_deg": 200, "hasty_fire": True}, 17, "hasty_fire"),
])
def test_hasty_and_blind_fire_cut_the_chance(rifle: dict[str, Any], options: dict[str, Any],
                                             chance: int, key: str) -> None:
    rifle["options"].update(options)
    out = firefight.odds(rifle)
    assert out["chance"] == chance
    last = out["modifiers"][-1]
    assert last["key"] == M + key
    assert last["value"] == chance - 71
    assert last["params"]["before"] == 71


@pytest.mark.parametrize("bearing", [0, 45, -45, 30, 315, 405 - 360, -350, 360])
def test_inside_the_arc_is_not_hasty(rifle: dict[str, Any], bearing: float) -> None:
    rifle["options"]["bearing_deg"] = bearing
    assert firefight.odds(rifle)["chance"] == 71


def test_bearing_outside_the_arc_is_noted(rifle: dict[str, Any]) -> None:
    rifle["options"]["bearing_deg"] = 100
    assert "outside_arc" in note_keys(firefight.resolve(rifle, seed=3))


def test_hasty_fraction_applies_after_the_modifiers(rifle: dict[str, Any]) -> None:
    rifle["options"].update(target_prone=True, hasty_fire=True)
    assert firefight.odds(rifle)["chance"] == (71 - 5) // 4


# --- the dice ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("tens", "ones", "roll"), [
    (2, 1, 21), (10, 5, 5), (10, 1, 1), (9, 10, 90), (10, 10, 100), (9, 9, 99), (1, 10, 10),
])
def test_d100_reads_tens_and_ones_00_is_100(tens: int, ones: int, roll: int) -> None:
    assert small_arms.d100(tens, ones) == roll


def test_a_hit_is_at_or_under_the_chance(rifle: dict[str, Any]) -> None:
    rifle["options"]["rounds"] = 2
    result = firefight.resolve(rifle, dice=d100_faces(71, 72))
    assert outcomes(result) == ["wound", "miss"]


def test_00_is_100_and_hits_a_chance_of_100(rifle: dict[str, Any]) -> None:
    rifle["range"]["value"] = 0
    rifle["options"]["rounds"] = 1
    result = firefight.resolve(rifle, dice=[10, 10])
    step = rolls(result)[0]
    assert step["numbers"]["roll"] == 100
    assert step["success"] is True
    assert step["numbers"]["table_percent"] == 17  # row 93-100, column 1-5


def test_every_roll_is_two_recorded_d10(rifle: dict[str, Any]) -> None:
    result = firefight.resolve(rifle, dice=d100_faces(21, 82, 66))
    assert [d["formula"] for d in result["dice"]] == ["1d10"] * 6
    assert [d["purpose"] for d in result["dice"][2:4]] == ["to-hit tens, round 2",
                                                          "to-hit ones, round 2"]
    assert [s["dice"] for s in rolls(result)] == [[0, 1], [2, 3], [4, 5]]
    assert [s["id"] for s in rolls(result)] == ["round_1", "round_2", "round_3"]


# --- the kill rule -------------------------------------------------------------------------

@pytest.mark.parametrize(("weapon_class", "rounds", "kill"), [
    ("rifle", 1, 1), ("carbine", 15, 15), ("pistol", 1, 1), ("smg", 30, 15), ("smg", 35, 17),
    ("automatic_rifle", 20, 10), ("automatic_rifle", 21, 10), ("smg", 1, 0),
])
def test_kill_number_by_weapon_class(weapon_class: str, rounds: int, kill: int) -> None:
    # The other reading (setting kill_rule: weapon_class): the class decides, however fired.
    burst = weapon_class in ("smg", "automatic_rifle")
    assert small_arms.kill_at(weapon_class, rounds, burst=not burst, rule="weapon_class")[0] == kill


@pytest.mark.parametrize(("weapon_class", "burst", "rounds", "kill"), [
    ("rifle", False, 1, 1), ("automatic_rifle", False, 1, 1), ("smg", False, 1, 1),
    ("rifle", True, 20, 10), ("automatic_rifle", True, 21, 10), ("smg", True, 35, 17),
])
def test_kill_number_follows_the_fire_mode(weapon_class: str, burst: bool, rounds: int,
                                           kill: int) -> None:
    # "When firing with pistol, rifle or carbine" / "When firing with SMG or automatic rifle":
    # what is fired decides: an automatic rifle's single shot kills on 01, a burst at half.
    assert small_arms.kill_at(weapon_class, rounds, burst=burst)[0] == kill


def test_an_automatic_rifle_fired_single_shots_can_kill_outright(rifle: dict[str, Any]) -> None:
    rifle["weapon"].update(weapon_class="automatic_rifle", action="automatic")
    rifle["options"].update(single_shots=True, rounds=3)
    assert firefight.odds(rifle)["kill_at"] == 1
    rifle["settings"] = {**rifle.get("settings", {}), "kill_rule": "weapon_class"}
    assert firefight.odds(rifle)["kill_at"] == 0


def test_only_smgs_climb_unless_the_setting_says_automatic_rifles_too(
        rifle: dict[str, Any]) -> None:
    # "When firing an SMG, no more than 35 rounds may be fired in a single burst".
    rifle["weapon"].update(weapon_class="automatic_rifle", action="automatic", magazine=50)
    rifle["options"].update(rounds=40)
    assert firefight.odds(rifle)["rounds_fired"] == 40
    assert firefight.odds(rifle)["kill_at"] == 20  # all 40 counted: half
    rifle["settings"] = {**rifle.get("settings", {}), "climb": "smg_and_automatic_rifle"}
    assert firefight.odds(rifle)["kill_at"] == 17  # 35 counted


def test_the_range_is_not_rounded_across_a_damage_boundary(rifle: dict[str, Any]) -> None:
    # 9.996" is below 10": triple damage (it used to round to 10.00" and double).
    rifle["range"] = {"value": 9.996, "units": "in"}
    assert firefight.odds(rifle)["damage_multiplier"] == 3
    rifle["range"] = {"value": 10, "units": "in"}
    assert firefight.odds(rifle)["damage_multiplier"] == 2


def test_single_rounds_kill_on_01(rifle: dict[str, Any]) -> None:
    # Each roll of a bolt or semi weapon counts its single round: a hit of 01 kills.
    result = firefight.resolve(rifle, dice=d100_faces(2, 1, 50))
    assert outcomes(result) == ["wound", "kill", "wound"]
    assert result["outcome"]["state"] == "dead"
    assert result["outcome"]["life_after"] == 0
    kinds = [(e["kind"], e["delta"], e["value"]) for e in result["effects"]]
    assert kinds[:2] == [("life_force", -100, None), ("state", 0, "dead")]


@pytest.mark.parametrize(("roll", "outcome"), [(1, "kill"), (15, "kill"), (16, "wound"),
                                               (70, "wound"), (71, "miss")])
def test_smg_burst_kills_at_half_the_rounds(smg: dict[str, Any], roll: int,
                                            outcome: str) -> None:
    assert outcomes(firefight.resolve(smg, dice=d100_faces(roll))) == [outcome]


def test_an_automatic_carbines_burst_kills_at_half_the_rounds(smg: dict[str, Any]) -> None:
    # A burst is automatic fire, whatever the class ("When firing with SMG or automatic rifle");
    # by the weapon_class reading a carbine kills at all its rounds.
    smg["weapon"] = {"name": "M2 carbine", "weapon_class": "carbine", "action": "automatic",
                     "magazine": 30}
    smg["options"]["rounds"] = 20
    assert firefight.odds(smg)["chance"] == 40 + 20
    assert outcomes(firefight.resolve(smg, dice=d100_faces(10))) == ["kill"]
    assert outcomes(firefight.resolve(smg, dice=d100_faces(11))) == ["wound"]
    smg["settings"] = {**smg.get("settings", {}), "kill_rule": "weapon_class"}
    assert outcomes(firefight.resolve(smg, dice=d100_faces(20))) == ["kill"]
    assert outcomes(firefight.resolve(smg, dice=d100_faces(21))) == ["wound"]


def test_a_kill_needs_a_hit(smg: dict[str, Any]) -> None:
    smg["options"].update(hasty_fire=True, blind_fire=True)  # 70 / 8: chance 8
    assert outcomes(firefight.resolve(smg, dice=d100_faces(8))) == ["kill"]
    assert outcomes(firefight.resolve(smg, dice=d100_faces(9))) == ["miss"]


# --- rounds fired ----------------------------------------------------------------------------

def test_bolt_and_semi_roll_per_round(rifle: dict[str, Any]) -> None:
    for action in ("bolt", "semi"):
        rifle["weapon"]["action"] = action
        rifle["options"]["rounds"] = 4
        result = firefight.resolve(rifle, seed=7)
        assert len(rolls(result)) == 4
        assert len(result["dice"]) == 8
        assert result["outcome"]["chance"] == 71  # each roll counts its single round


def test_automatic_rolls_once_per_burst_unless_single_shots(smg: dict[str, Any]) -> None:
    assert len(rolls(firefight.resolve(smg, seed=7))) == 1
    smg["options"]["single_shots"] = True
    result = firefight.resolve(smg, seed=7)
    assert len(rolls(result)) == 30
    assert result["outcome"]["chance"] == 41
    # A single round is not automatic fire: it kills on 01 (by the fire mode; the weapon_class
    # reading takes half of 1 round, no outright kill).
    assert result["steps"][0]["outcome_key"].endswith(".chance")
    smg["settings"] = {**smg.get("settings", {}), "kill_rule": "weapon_class"}
    by_class = firefight.resolve(smg, seed=7)
    assert by_class["steps"][0]["outcome_key"].endswith("chance_no_kill")


def test_undeclared_rounds_fire_the_whole_magazine(rifle: dict[str, Any],
                                                   smg: dict[str, Any]) -> None:
    del rifle["options"]["rounds"]
    result = firefight.resolve(rifle, seed=2)
    assert len(rolls(result)) == 5
    assert "whole_magazine" in note_keys(result)
    del smg["options"]["rounds"]
    assert firefight.odds(smg)["chance"] == 40 + 32


def test_smg_climbs_above_35_rounds(smg: dict[str, Any]) -> None:
    smg["weapon"]["magazine"] = 50
    smg["options"]["rounds"] = 50
    result = firefight.resolve(smg, dice=d100_faces(17))
    assert mods(result)["rounds"] == 35
    assert result["outcome"]["rounds_wasted"] == 15
    assert outcomes(result) == ["kill"]  # 17 <= 35 / 2
    assert "climb" in note_keys(result)
    assert result["outcome"]["rounds_fired"] == 50


def test_automatic_rifle_climbs_like_an_smg_by_the_setting(smg: dict[str, Any]) -> None:
    smg["weapon"] = {"name": "BAR", "weapon_class": "automatic_rifle", "action": "automatic",
                     "magazine": 40}
    smg["options"]["rounds"] = 40
    out = firefight.odds(smg)
    assert out["chance"] == 70 + 40  # the text names SMGs only
    smg["settings"] = {**smg.get("settings", {}), "climb": "smg_and_automatic_rifle"}
    out = firefight.odds(smg)
    assert out["chance"] == 70 + 35
    assert out["kill_at"] == 17


def test_no_climb_for_other_automatic_classes(smg: dict[str, Any]) -> None:
    smg["weapon"] = {"name": "Belt-fed", "weapon_class": "rifle", "action": "automatic",
                     "magazine": 100}
    smg["options"]["rounds"] = 60
    result = firefight.resolve(smg, dice=d100_faces(90))
    assert result["outcome"]["rounds_wasted"] == 0
    assert mods(result)["rounds"] == 60
    assert rolls(result)[0]["numbers"]["table_percent"] == 100  # the 46-50 column
    assert "beyond_table" in note_keys(result)


def test_more_rounds_than_the_magazine_is_refused(rifle: dict[str, Any]) -> None:
    rifle["options"]["rounds"] = 6
    out = firefight.resolve(rifle, seed=1)
    assert out["error"]["code"] == "refused"
    assert out["error"]["fields"][0]["field"] == "options.rounds"


@pytest.mark.parametrize(("path", "value", "field"), [
    (("options", "rounds"), -3, "options.rounds"),
    (("options", "rounds"), 0, "options.rounds"),
    (("weapon", "weapon_class"), "musket", "weapon.weapon_class"),
    (("weapon", "action"), "lever", "weapon.action"),
    (("weapon", "magazine"), 0, "weapon.magazine"),
    (("target", "stats"), {"life_force": -1}, "target.stats.life_force"),
    (("options", "cover"), "brick", "options.cover"),
    (("options", "sighting_turns"), -1, "options.sighting_turns"),
])
def test_bad_input_names_the_field(rifle: dict[str, Any], path: tuple[str, str], value: Any,
                                   field: str) -> None:
    rifle[path[0]][path[1]] = value
    out = firefight.resolve(rifle, seed=1)
    assert out["error"]["code"] == "invalid_request"
    assert out["error"]["fields"][0]["field"] == field


# --- distances -----------------------------------------------------------------------------

def test_scene_units_need_the_ground_scale(rifle: dict[str, Any]) -> None:
    rifle["range"] = {"value": 54.864, "units": "m"}  # 60 yards
    out = firefight.odds(rifle)
    assert out["error"]["fields"][0]["field"] == "settings.inch_equals"
    rifle["settings"] = {"inch_equals": 2, "inch_units": "yd"}  # 1" = 2 yd: 30"
    assert firefight.odds(rifle)["range_inches"] == 30
    assert firefight.odds(rifle)["chance"] == 71
    rifle["range"] = {"value": 180, "units": "ft"}
    assert firefight.odds(rifle)["range_inches"] == 30
    rifle["range"] = {"value": 3, "units": "furlongs"}
    assert firefight.odds(rifle)["error"]["fields"][0]["field"] == "range.units"


@pytest.mark.parametrize("units", ["in", "inch", "inches", "IN", '"'])
def test_a_scene_in_inches_is_the_tabletop(rifle: dict[str, Any], units: str) -> None:
    rifle["range"] = {"value": 30, "units": units}
    rifle["settings"] = {"inch_equals": 2}  # the ground scale does not apply to inches
    assert firefight.odds(rifle)["range_inches"] == 30


def test_one_conversion_the_cores_units_and_bound(rifle: dict[str, Any]) -> None:
    # Every scene goes through the core's Distance/UNIT_METRES: its names and its bound hold
    # for a tabletop in inches too (50 km of table is refused like 50 km of ground).
    rifle["settings"] = {"inch_equals": 1, "inch_units": "yd"}
    rifle["range"] = {"value": 30, "units": "yards"}
    assert firefight.odds(rifle)["range_inches"] == 30
    rifle["range"] = {"value": 2_000_000, "units": "in"}
    assert firefight.odds(rifle)["error"]["fields"][0]["field"] == "range.value"


# --- life force ------------------------------------------------------------------------------

def test_wounds_add_up_to_death(rifle: dict[str, Any]) -> None:
    rifle["target"]["stats"]["life_force"] = 15
    result = firefight.resolve(rifle, dice=d100_faces(21, 66, 30))
    assert [s["numbers"]["life_after"] for s in rolls(result)] == [9, 0, 0]
    assert result["outcome"]["state"] == "dead"
    assert result["effects"][0]["delta"] == -15  # life force stops at 0


def test_an_already_dead_target(rifle: dict[str, Any]) -> None:
    rifle["target"]["stats"]["life_force"] = 0
    result = firefight.resolve(rifle, dice=d100_faces(21, 66, 30))
    assert result["outcome"]["state"] == "already_dead"
    assert result["effects"] == []


def test_a_miss(rifle: dict[str, Any]) -> None:
    result = firefight.resolve(rifle, dice=d100_faces(80, 90, 100))
    assert result["outcome"]["hit"] is False
    assert result["outcome"]["state"] == "miss"
    assert result["effects"] == []


def test_no_chance_is_noted(rifle: dict[str, Any]) -> None:
    rifle["range"]["value"] = 150
    result = firefight.resolve(rifle, seed=1)
    assert result["outcome"]["chance"] == -49
    assert "no_chance" in note_keys(result)
    assert result["outcome"]["hit"] is False
    assert firefight.odds(rifle)["probability"] == 0


# --- odds ----------------------------------------------------------------------------------

def test_odds_example_1_exact(rifle: dict[str, Any]) -> None:
    out = firefight.odds(rifle)
    assert out["exact"] == "71/100"
    assert Fraction(out["any_hit_exact"]) == 1 - Fraction(29, 100) ** 3
    assert Fraction(out["kill_exact"]) == 1 - Fraction(99, 100) ** 3
    assert out["rolls"] == 3


def test_odds_example_2_exact(smg: dict[str, Any]) -> None:
    out = firefight.odds(smg)
    assert (out["exact"], out["kill_exact"], out["death_exact"]) == ("7/10", "3/20", "3/20")


def brute_force_death(chance: int, kill: int, rounds: int, mult: int, *, n: int,
                      life: int) -> Fraction:
    dead = 0
    for seq in itertools.product(range(1, 101), repeat=n):
        left = life
        for roll in seq:
            r = small_arms.roll_result(roll, chance, kill, rounds, mult)
            left = 0 if r.kill else max(0, left - r.damage)
        dead += left == 0
    return Fraction(dead, 100**n)


@pytest.mark.parametrize(("chance", "kill", "rounds", "mult", "n", "life"), [
    (71, 1, 1, 1, 2, 20), (90, 1, 1, 3, 2, 40), (100, 1, 1, 2, 2, 30), (50, 1, 1, 1, 2, 100),
    (70, 15, 30, 2, 1, 100), (0, 1, 1, 1, 2, 10),
])
def test_death_odds_match_enumeration(*, chance: int, kill: int, rounds: int, mult: int,
                                      n: int, life: int) -> None:
    got = odds.fire_odds(odds.roll_outcomes(chance, kill, rounds, mult), n, life).death
    assert got == brute_force_death(chance, kill, rounds, mult, n=n, life=life)


def test_odds_are_bounded_and_ordered(rifle: dict[str, Any]) -> None:
    rifle["range"]["value"] = 8
    rifle["target"]["stats"]["life_force"] = 40
    out = firefight.odds(rifle)
    assert 0 <= out["kill_probability"] <= out["death_probability"] <= out[
        "any_hit_probability"] <= 1


# --- the card and replay ---------------------------------------------------------------------

def test_card_shows_every_roll(rifle: dict[str, Any]) -> None:
    result = firefight.resolve(rifle, dice=d100_faces(21, 82, 66))
    html = firefight.render_card(result)
    assert "FIREFIGHT." not in html
    assert html.count('class="ff-die ') == 6
    for m in result["modifiers"]:
        assert m["source"].replace('"', "&#34;") in html
    text = firefight.render_card(result, fmt="text")
    assert "Round 2 of 3" in text
    assert "Rolled 82 (> 71): miss." in text
    assert "Rolled 21 (≤ 71): hit, 6% life force lost (94% left)." in text
    assert "−19% life force (100% → 81%)" in text


def test_card_text_for_kills_multipliers_and_notes(smg: dict[str, Any]) -> None:
    smg["range"]["value"] = 15
    smg["weapon"]["magazine"] = 40
    smg["options"].update(rounds=40, hasty_fire=True, target_prone=True)
    result = firefight.resolve(smg, dice=d100_faces(12))
    text = firefight.render_card(result, fmt="text")
    assert "FIREFIGHT." not in text
    assert "killed" in text
    smg["options"]["hasty_fire"] = False
    result = firefight.resolve(smg, dice=d100_faces(60))
    text = firefight.render_card(result, fmt="text")
    assert "× 2 =" in text
    assert "FIREFIGHT." not in text


def test_replay_from_the_record_is_exact(rifle: dict[str, Any], smg: dict[str, Any]) -> None:
    for request in (rifle, smg):
        for seed in range(20):
            first = firefight.resolve(request, seed=seed)
            faces = [f for die in first["dice"] for f in die["results"]]
            assert firefight.resolve(request, dice=faces) == first


def test_facing_can_be_ignored_by_the_world() -> None:
    from _examples import example

    request = example("percentile_rifleman.json")
    request.setdefault("options", {})["bearing_deg"] = 180  # the target is behind the shooter
    behind = firefight.odds(request)
    request["settings"] = {**request.get("settings", {}), "facing": "ignore"}
    ignored = firefight.odds(request)
    assert behind["probability"] < ignored["probability"]


def test_sighting_in_has_no_limit_in_the_text(rifle: dict[str, Any]) -> None:
    # "+10 For each consecutive chance to fire ... used sighting-in": the 51st is no input error.
    rifle["options"]["sighting_turns"] = 51
    out = firefight.odds(rifle)
    assert "error" not in out, out
    assert {m["key"].removeprefix(M): m["value"] for m in out["modifiers"]}["sighting_in"] == 510
