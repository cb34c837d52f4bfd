"""The balance lab (issue 17): ``firefight.simulate`` and ``firefight sim``. Sampling here only
cross-checks the exact odds: the sampled shares must agree with them."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from _examples import EXAMPLES, IN_PYODIDE, example

import firefight
from firefight import sim


def _agrees(row: dict[str, Any], n: int) -> None:
    """The exact chance lies in the sampled share's interval (99.99 %: a fixed seed, but no
    run should hinge on a 1-in-20 miss)."""
    p = float(Fraction(row["exact"]["exact"])) if "exact" in row["exact"] else row["exact"][
        "probability"]
    low, high = sim.wilson(row["count"], n, z=3.9)
    assert low <= p <= high, (row, p)


@pytest.mark.parametrize("name", ["shock_dshk.json", "percentile_submachine_gunner.json",
                                  "percentile_rifleman.json", "dpv_attack.json",
                                  "soe_rhino.json"])
def test_sampled_shares_agree_with_the_exact_odds(name: str) -> None:
    n = 20_000
    out = firefight.simulate(example(name), n, seed=11)
    checked = [label for label, row in out["outcomes"].items() if "exact" in row]
    assert "hit" in checked
    for label in checked:
        _agrees(out["outcomes"][label], n)
    # The 95 % interval holds the share.
    for row in out["outcomes"].values():
        assert row["interval95"][0] <= row["share"] <= row["interval95"][1]


def test_shock_reports_each_result_killed_and_incapacitated() -> None:
    n = 20_000
    request = example("shock_dshk.json")
    out = firefight.simulate(request, n, seed=5)["outcomes"]
    odds = firefight.odds(request)
    given = {k: Fraction(v) for k, v in odds["given_hit_exact"].items()}
    # One label per fact: a death result is the kill (and the dead state), a shock result the
    # shock state, a wound result the unchanged state with its wounds.
    assert out["killed"]["same_as"] == ["result:death", "state:dead"]
    assert out["result:shock"]["same_as"] == ["state:shock"]
    assert out["result:wound"]["same_as"] == ["state:ok", "effect:wounds"]
    reported = set(out) | {x for row in out.values() for x in row.get("same_as", [])}
    assert {f"result:{k}" for k in given} - {"result:miss", "result:stopped"} <= reported
    assert out["killed"]["exact"]["exact"] == str(given["death"])
    for result in ("shock", "wound"):
        assert out[f"result:{result}"]["exact"]["exact"] == str(given[result])
    assert out["incapacitated"]["count"] == out["killed"]["count"] + out["result:shock"]["count"]
    _agrees(out["incapacitated"], n)
    _agrees(out["killed"], n)


def test_each_fact_is_reported_once() -> None:
    """Labels that marked the same engagements are one row; the rest stay apart (issue 28)."""
    out = firefight.simulate(example("soe_rhino.json"), 20_000, seed=5)["outcomes"]
    folded = [x for row in out.values() for x in row.get("same_as", [])]
    assert len(folded) == len(set(folded))
    assert not set(folded) & set(out)
    assert out["killed"]["same_as"] == ["state:dead"]
    assert "same_as" not in out["incapacitated"]  # dying is incapacitated, not killed
    assert out["incapacitated"]["count"] > out["killed"]["count"]
    # Where only death puts a target out, incapacitated is killed, exact figure and all.
    rifle = firefight.simulate(example("percentile_rifleman.json"), 5_000, seed=5)["outcomes"]
    assert rifle["incapacitated"]["same_as"] == ["killed"]
    assert rifle["incapacitated"]["exact"] == rifle["killed"]["exact"]


def test_shots_until_incapacitated() -> None:
    """A DShK hit the referee confirmed puts a fresh rifleman out at once with the exact odds'
    chance; a wound carries into the next shot, which then puts him out."""
    request = example("shock_dshk.json")
    out = firefight.simulate(request, 50_000, seed=2)
    shots = out["shots_until_incapacitated"]
    assert shots["chains"] == 50_000 // sim.SHOTS_EVERY
    dist = shots["distribution"]
    p = float(Fraction(firefight.odds(request)["incapacitate_probability"]).limit_denominator())
    low, high = sim.wilson(dist["1"]["count"], shots["chains"], z=3.9)
    assert low <= p <= high
    assert sum(r["count"] for r in dist.values()) == shots["chains"]
    assert shots["median"] == 1
    assert 1 < shots["mean"] < 2
    # The target carries each shot's effects: a rifleman loses life force shot by shot, so the
    # shots that put him out are fewer than a fresh rifleman's 3 % a shot would need (a median
    # of 23, past the limit).
    rifle = firefight.simulate(example("percentile_rifleman.json"), 10_000, seed=2)
    shots = rifle["shots_until_incapacitated"]
    assert rifle["outcomes"]["killed"]["share"] < 0.05
    assert shots["median"] is not None
    assert 2 <= shots["median"] <= 10
    assert shots["distribution"][sim.MORE]["share"] < 0.1
    # A request without a target's stats has no such figure, and says why.
    out = sim.shots_report("the request has no target stats to repeat the shot on")
    assert out == {"unavailable": "the request has no target stats to repeat the shot on"}


def test_percentile_killed_share_agrees_with_the_exact_death_odds() -> None:
    out = firefight.simulate(example("percentile_rifleman.json"), 20_000, seed=2)
    row = out["outcomes"]["killed"]
    assert row["exact"]["exact"] == firefight.odds(example("percentile_rifleman.json"))[
        "death_exact"]
    _agrees(row, 20_000)


def test_the_same_seed_gives_the_same_counts_and_another_does_not() -> None:
    request = example("dpv_attack.json")
    a = firefight.simulate(request, 5_000, seed=9)
    assert a == firefight.simulate(request, 5_000, seed=9)
    assert a["outcomes"] != firefight.simulate(request, 5_000, seed=10)["outcomes"]


def test_the_lab_resolves_with_the_rulesets_own_resolve() -> None:
    """Engagements with no new dice path reuse a leaf; every leaf came from ``resolve``: the
    counts equal resolving every engagement in full with the same faces."""
    request = example("shock_dshk.json")
    ruleset, model = firefight.api.parse(request)
    import random

    from firefight.dice import Roller

    lab = sim._Engagements(ruleset, model)
    counts = lab.run(3_000, random.Random(4))
    rng = random.Random(4)
    full: dict[tuple[str, ...], int] = {}
    for _ in range(3_000):
        dice = sim._PathDice([], rng.random)
        found = sim.labels(ruleset, ruleset.resolve(model, Roller(dice)))
        full[found] = full.get(found, 0) + 1
    assert dict(counts) == full


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"n": 0}, "n"), ({"n": "many"}, "n"), ({"n": 10, "seed": "x"}, "seed"),
    ({"n": 10, "workers": 0}, "workers"),
])
def test_bad_arguments_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    out = firefight.simulate(example("soe_rhino.json"), **kwargs)
    assert [f["field"] for f in out["error"]["fields"]] == [field]


def test_a_bad_request_names_the_field() -> None:
    request = example("shock_dshk.json")
    request["weapon"]["damage_class"] = "IX"
    out = firefight.simulate(request, 100, seed=1)
    assert any(f["field"].startswith("weapon.damage_class") for f in out["error"]["fields"])


@pytest.mark.skipif(IN_PYODIDE, reason="no processes inside the browser runtime")
def test_workers_share_the_engagements_deterministically() -> None:
    request = example("shock_dshk.json")
    a = firefight.simulate(request, 120_000, seed=3, workers=2)
    assert a["n"] == 120_000
    assert a["workers"] == 2
    assert a == firefight.simulate(request, 120_000, seed=3, workers=2)
    # The chunks follow from n and the seed alone: one process counts the same.
    one = firefight.simulate(request, 120_000, seed=3, workers=1)
    assert one["outcomes"] == a["outcomes"]
    assert one["shots_until_incapacitated"] == a["shots_until_incapacitated"]
    # Every engagement has one result: killed (a death), shock or wound.
    assert sum(a["outcomes"][k]["count"] for k in ("killed", "result:shock", "result:wound")
               ) == 120_000


@pytest.mark.skipif(IN_PYODIDE, reason="no CLI inside the browser runtime")
def test_the_sim_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from firefight.cli import main

    assert main(["sim", str(EXAMPLES / "shock_dshk.json"), "-n", "2000", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["n"] == 2000
    assert out["outcomes"]["hit"]["count"] == 2000
    assert captured.err == ""  # the progress bar only on a terminal
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"ruleset": "shock", "action": "attack"}), encoding="utf-8")
    assert main(["sim", str(bad), "-n", "10"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["fields"]


@pytest.mark.skipif(IN_PYODIDE, reason="no CLI inside the browser runtime")
def test_the_sim_command_as_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    from firefight.cli import main

    args = ["sim", str(EXAMPLES / "shock_dshk.json"), "-n", "2000", "--seed", "1"]
    assert main([*args, "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    lines = text.splitlines()
    assert lines[0] == "shock: 2,000 engagements, seed 1"
    assert lines[1].split() == ["outcome", "count", "share", "95", "%", "interval", "exact",
                                "same", "as"]
    rows = {line.split()[0]: line for line in lines[3:] if not line.startswith(" ")}
    assert list(rows)[:len(out["outcomes"])] == list(out["outcomes"])
    killed = out["outcomes"]["killed"]
    assert f"{killed['count']:,}" in rows["killed"].split()
    assert "9/20" in rows["killed"].split()
    assert rows["killed"].endswith("result:death, state:dead")
    assert "shots until incapacitated" in text
    # 60 rounds' exact fractions run to 120 digits: the table shows their percentage.
    from firefight.cli import sim_text

    wide = sim_text(firefight.simulate(example("percentile_semi_60.json"), 500, seed=1))
    assert max(len(line) for line in wide.splitlines()) < 120


def test_a_tree_walk_from_faces_drawn_already_is_their_resolve() -> None:
    """``shots`` plays a chain's shot by the action's fast path first and, when the target is
    not out, walks the tree from the faces that path read (``_Engagements.one(draw, given)``):
    the leaf is what ``resolve`` makes of those faces, whether the tree knew the path or not."""
    from firefight.dice import Roller

    for name in ("percentile_rifleman.json", "soe_rhino.json"):
        ruleset, model = firefight.api.parse(example(name))
        tree = sim._Engagements(ruleset, model)
        rng = random.Random(4)

        def no_draw() -> float:
            raise AssertionError("the given faces were all the resolve needed")

        for _ in range(300):
            dice = sim._PathDice([], rng.random)
            expected = sim.labels(ruleset, ruleset.resolve(model, Roller(dice)))
            assert tree.one(no_draw, [v for _, v in dice.read]) == expected
        assert tree.leaves > 1


@pytest.mark.parametrize("name", ["soe_rhino.json", "percentile_rifleman.json"])
def test_chains_of_whole_engagements_count_as_chains_resolved_shot_by_shot(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``shots`` resolves one shot of each ``whole`` engagement in full and reuses what it
    left on the target: the same counts as resolving every shot that did not end a chain."""
    import dataclasses

    request = example(name)
    ruleset, _ = firefight.api.parse(request)
    whole = sim.shots(ruleset, request, 300, random.Random(3))
    calls = []

    def not_whole(model: Any) -> Any:
        run = engage(model)
        calls.append(run.whole)

        def again(face: Any) -> Any:
            return run(face)
        return again

    engage = ruleset.action("attack").engage
    assert engage is not None
    monkeypatch.setattr(type(ruleset), "actions", tuple(
        dataclasses.replace(a, engage=not_whole) if a.name == "attack" else a
        for a in ruleset.actions))
    assert sim.shots(ruleset, request, 300, random.Random(3)) == whole
    assert calls
    assert all(calls)
