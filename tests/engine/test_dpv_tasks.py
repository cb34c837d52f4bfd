"""dpv task resolution: the TASK DIFFICULTY, CHARACTERISTICS, FUMBLE, FAILURE and UNCERTAIN
TASKS rules, fed their own dice."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import firefight
from firefight.rulesets.dpv import tasks
from firefight.rulesets.dpv.models import DpvSettings


def task(dice: list[int], **options: Any) -> dict[str, Any]:
    actor = options.pop("actor", {})
    settings = options.pop("settings", {})
    return firefight.resolve({"ruleset": "dpv", "action": "task", "actor": actor,
                              "options": options, "settings": settings}, dice=dice)


def step(result: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["id"] == step_id)


@pytest.mark.parametrize(("name", "d10", "d2d6"), [
    ("simple", 2, 3), ("easy", 4, 5), ("routine", 6, 7), ("difficult", 10, 11),
    ("formidable", 14, 15), ("impossible", 18, 19)])
def test_difficulty_table(name: str, d10: int, d2d6: int) -> None:
    # 2300ad TASK DIFFICULTY (1D10/2D6); Easy is not printed: the documented 4+/5+.
    level = tasks.Difficulty(name)
    assert (level.number("1d10"), level.number("2d6")) == (d10, d2d6)


def test_ladder_and_easy() -> None:
    printed, with_easy = DpvSettings(), DpvSettings(easy_in_ladder=True)
    assert tasks.shift("routine", 1, printed).name == "difficult"
    assert tasks.shift("routine", -1, printed).name == "simple"
    assert tasks.shift("routine", -1, with_easy).name == "easy"
    assert tasks.shift("easy", 1, printed).name == "routine"
    assert tasks.shift("easy", -1, printed).name == "simple"
    assert tasks.shift("simple", -3, printed).name == "simple"
    beyond = tasks.shift("formidable", 2, printed)
    assert (beyond.label, beyond.number("1d10")) == ("impossible+1", 22)


@pytest.mark.parametrize(("value", "asset"), [(0, 0), (3, 0), (4, 1), (7, 1), (8, 2), (20, 5),
                                              (23, 5)])
def test_characteristics_divided_by_4(value: int, asset: int) -> None:
    assert tasks.characteristic_asset(value) == asset


def test_routine_success_with_assets() -> None:
    # Skill 2 + Dexterity 13 / 4 = 3: DM +5; a 1D10 of 2 makes 7 >= 6.
    result = task([2], difficulty="routine", skill=2, characteristics=[13])
    assert result["outcome"]["success"] is True
    assert [m["value"] for m in result["modifiers"]] == [2, 3]
    assert step(result, "task")["numbers"]["total"] == 7
    assert len(result["dice"]) == 1  # no time rolled without a time


def test_natural_1_fumbles_regardless_of_assets() -> None:
    result = task([1, 3, 3], difficulty="simple", skill=10)
    assert result["outcome"]["fumble"] is True
    assert result["outcome"]["success"] is False
    assert result["outcome"]["failure_type"] == "retry"  # 2D6 = 6


@pytest.mark.parametrize(("faces", "kind"), [
    ([3, 3], "retry"), ([3, 4], "check_determination"), ([5, 5], "check_determination"),
    ([5, 6], "mishap"), ([6, 6], "mishap")])
def test_failure_table_2d6(faces: list[int], kind: str) -> None:
    result = task([2, *faces, 1, 1], difficulty="routine")
    assert result["outcome"]["failure_type"] == kind


def test_hazardous_uses_3d6_and_serious_mishap_rolls_3d6() -> None:
    result = task([2, 5, 5, 5, 6, 6, 6], difficulty="routine", hazardous=True)
    assert result["outcome"]["failure_type"] == "serious_mishap"
    assert result["dice"][1]["formula"] == "3d6"
    assert result["dice"][2]["formula"] == "3d6"
    assert result["outcome"]["mishap"] == "total"
    mishap = task([2, 6, 5, 1, 1], difficulty="routine")  # 11: mishap, 2D6 of 2: superficial
    assert (mishap["outcome"]["failure_type"], mishap["outcome"]["mishap"]) == (
        "mishap", "superficial")


def test_hasty_is_one_level_harder() -> None:
    result = task([9, 1, 1], difficulty="routine", hasty=True)
    assert step(result, "task")["numbers"]["needed"] == 10
    assert result["outcome"]["success"] is False


def test_determination_preset_is_difficult_without_failure_roll() -> None:
    result = task([9], preset="determination", actor={"stats": {"skills": {"determination": 1}}})
    assert result["outcome"]["success"] is True  # 9 + 1 = 10
    assert len(task([8], preset="determination")["dice"]) == 1


def test_a_task_with_neither_difficulty_nor_preset_is_routine_and_a_preset_keeps_its_own() -> None:
    # Issue 25 item 4: the Task dialog's defaults roll (docs/rules-notes.md, "A task's default
    # difficulty"); the default does not replace a preset's rung (determination: Difficult).
    assert step(task([6]), "task")["numbers"]["needed"] == 6
    assert task([6])["outcome"]["success"] is True
    assert step(task([9], preset="determination"), "task")["numbers"]["needed"] == 10
    assert step(task([9], preset="determination", difficulty="simple"),
                "task")["numbers"]["needed"] == 2


def test_two_d6_setting() -> None:
    result = task([3, 4], difficulty="routine", settings={"task_dice": "2d6"})
    assert result["dice"][0]["formula"] == "2d6"
    assert step(result, "task")["numbers"]["needed"] == 7
    assert result["outcome"]["success"] is True


def test_uncertain_task_judged_on_the_average() -> None:
    # Player 4, referee 8: average 6 >= Routine 6: succeeds, but the card only gives an
    # impression; the referee's die is marked hidden.
    result = task([4, 8], difficulty="routine", uncertain=True)
    outcome = result["outcome"]
    assert outcome["success"] is True
    assert outcome["hidden"] is True
    assert outcome["impression"] == "hopeful"
    assert result["dice"][1]["side"] == "referee"
    assert "hidden" in result["dice"][1]["purpose"]
    # Only the player's natural 1 fumbles.
    assert task([1, 10], difficulty="simple", uncertain=True)["outcome"]["fumble"] is True
    assert task([10, 1], difficulty="simple", uncertain=True)["outcome"]["fumble"] is False


@pytest.mark.parametrize(("faces", "charge"), [([2, 3], "detonates_now"), ([5, 2], "dud"),
                                               ([3, 9], "ready")])
def test_emplacing_a_charge(faces: list[int], charge: str) -> None:
    # Easy (4+), Demolitions 0. Both fail: detonates now; the average fails: a dud.
    result = task([*faces, 3, 3, 3], preset="emplace_charge")
    assert result["outcome"]["charge"] == charge


def test_time_is_3d6_minus_assets_at_least_3_times_the_time_shown() -> None:
    result = task([9, 6, 5, 4], difficulty="routine", skill=2, time_seconds=60)
    assert step(result, "time")["numbers"]["result"] == 13  # 15 - 2
    assert result["outcome"]["seconds"] == 13 * 60
    hasty = task([9, 1, 1, 2], difficulty="simple", skill=2, time_seconds=60, hasty=True)
    assert step(hasty, "time")["numbers"]["result"] == 3  # 4 - 4, minimum 3


def test_medkit_only_is_harder_and_doubles_the_time() -> None:
    result = task([9, 6, 5, 4], preset="stabilize", medkit_only=True,
                  actor={"stats": {"skills": {"medical": 1}}})
    assert step(result, "task")["numbers"]["needed"] == 10  # Routine -> Difficult
    assert step(result, "time")["numbers"]["result"] == (15 - 1) * 2


def test_exact_task_probabilities() -> None:
    spec = tasks.TaskSpec(tasks.Difficulty("routine"), 2)
    assert tasks.success_probability(spec) == Fraction(7, 10)  # 4..10
    spec2 = tasks.TaskSpec(tasks.Difficulty("routine"), 0, dice="2d6")
    assert tasks.success_probability(spec2) == Fraction(21, 36)
    uncertain = tasks.TaskSpec(tasks.Difficulty("routine"), 0, uncertain=True)
    ok = sum(1 for p in range(2, 11) for r in range(1, 11) if p + r >= 12)
    assert tasks.success_probability(uncertain) == Fraction(ok, 100)
    odds = firefight.odds({"ruleset": "dpv", "action": "task",
                           "options": {"difficulty": "difficult", "skill": 3}})
    assert odds["exact"] == "2/5"
    assert odds["fumble_probability"] == 0.1


def test_uncertain_task_card_shows_the_player_only_the_impression() -> None:
    # 2300ad UNCERTAIN TASKS: "the referee should give the player information based on the
    # average of the rolls but should not directly tell the player if the task was a success".
    import json

    from firefight import bridge

    result = task([4, 8], difficulty="routine", uncertain=True)
    player = firefight.render_card(result, view="player")
    gm = firefight.render_card(result)
    assert 'data-results="8"' not in player  # the referee's hidden die
    assert 'data-results="8"' in gm
    assert "ff-success" not in player
    assert "Chance" not in player
    reply = json.loads(bridge.handle(json.dumps({"op": "resolve", "request": result["request"],
                                                 "entropy": [0.35, 0.75, 0.5, 0.5]})))
    assert reply["value"]["hidden_dice"] == [1]
    assert "gm_html" in reply["value"]


@pytest.mark.parametrize(("faces", "extra"), [
    ([4, 8, 3, 3, 3], {"difficulty": "routine", "uncertain": True, "time_seconds": 60}),
    ([1, 10], {"difficulty": "simple", "uncertain": True}),
    ([2, 3, 3, 3, 3], {"preset": "emplace_charge"}),
    ([5, 2, 3, 3, 3], {"preset": "emplace_charge"}),
    ([3, 9, 3, 3, 3], {"preset": "emplace_charge"}),
])
def test_the_players_view_of_an_uncertain_task_tells_no_verdict(
        faces: list[int], extra: dict[str, Any]) -> None:
    # 2300ad UNCERTAIN TASKS: no verdict-bearing note, step, effect or die on the player's card.
    result = task(faces, **extra)
    assert result["outcome"]["hidden"] is True
    player = firefight.render_card(result, view="player")
    gm = firefight.render_card(result)
    for verdict in ("charge is set", "fail to detonate", "detonates immediately",
                    "determination", "fumble"):
        assert verdict not in player.lower(), verdict
    shown = [n for n in result["notes"] if not n.get("referee")]
    assert [n["key"] for n in shown] == ["FIREFIGHT.dpv.note.uncertain"]
    assert "uncertain" in player.lower() or "average" in player.lower()
    assert len(gm) > len(player)


def test_a_failed_task_takes_its_time_too_and_the_referees_dm_does_not_shorten_it() -> None:
    # 2300ad TIME: "The throw for time is 3D6, with asset modifiers subtracted" (skill and
    # characteristics); DETERMINATION waits "10 times the actual duration of the failed task".
    failed = task([2, 1, 2, 6, 5, 4], difficulty="difficult", skill=2, time_seconds=60)
    assert failed["outcome"]["success"] is False
    assert step(failed, "time")["numbers"]["result"] == 13  # 15 - 2
    with_dm = task([9, 6, 5, 4], difficulty="routine", skill=2, dm=3, time_seconds=60)
    assert step(with_dm, "time")["numbers"]["asset"] == 2
    assert step(with_dm, "time")["numbers"]["result"] == 13
