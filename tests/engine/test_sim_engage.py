"""The balance lab's fast paths (``Action.engage``, issue 17): for the same faces, what an
engagement comes to is what ``resolve`` records, label for label. Each request below is resolved
in full with fresh faces; the fast path then reads those faces (a prefix of them: it may stop
once nothing counted can change) and must give the same labels."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from _examples import example

import firefight
from firefight import sim
from firefight.dice import Roller


def _variant(name: str, **changes: Any) -> dict[str, Any]:
    """An example request with ``changes`` ("a.b.c": value) made."""
    request = copy.deepcopy(example(name))
    for path, value in changes.items():
        *parents, last = path.split(".")
        node = request
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return request


def _faces(read: list[tuple[int, int]]) -> Any:
    it: Iterator[tuple[int, int]] = iter(read)

    def face(faces: int) -> int:
        die, value = next(it)  # StopIteration: the fast path read more dice than resolve
        assert die == faces, "the fast path rolled another die than resolve"
        return value

    return face


def _same_as_resolve(request: dict[str, Any], engagements: int, seed: int) -> set[Any]:
    ruleset, model = firefight.api.parse(request)
    engage = ruleset.action(model.action).engage
    assert engage is not None
    run = engage(model)
    assert run is not None
    rng = random.Random(seed)
    seen = set()
    for _ in range(engagements):
        dice = sim._PathDice([], rng.random)
        expected = sim.labels(ruleset, ruleset.resolve(model, Roller(dice)))
        outcome, effects = run(_faces(dice.read))
        assert sim.tally(ruleset, dict(outcome), effects) == expected, dice.read
        seen.add(expected)
    return seen


SOE = "soe_rhino.json"


@pytest.mark.parametrize(("request_", "must_see"), [
    (example(SOE), {"state:dead", "state:wounded", "state:unhurt"}),
    # A single projectile (no Table 4 multiplier); few HP: dying at exactly 0 and dead below.
    (_variant(SOE, **{"weapon.projectiles": 1, "target.stats.hp": 6}),
     {"state:dying", "state:dead", "state:wounded"}),
    (_variant(SOE, **{"settings.injury_mode": "general_trauma"}),
     {"state:injured", "state:dead", "effect:trauma"}),
    # A human, ties to the target (an NPC shooting a PC), the actor's own injury mode.
    (_variant(SOE, **{"target": {"name": "Ada", "pc": True, "stats": {
        "str": 10, "agl": 12, "injury_mode": "general_trauma"}}, "attacker.pc": False,
        "weapon.projectiles": 1, "options.mode": "quickfire"}), {"state:unhurt"}),
])
def test_soe_engagements_are_what_resolve_records(request_: dict[str, Any],
                                                   must_see: set[str]) -> None:
    seen = _same_as_resolve(request_, 600, seed=3)
    labels = {label for found in seen for label in found}
    assert must_see <= labels  # the branches each variant is here for were played


def test_soe_leaves_the_optional_checks_to_the_full_resolve() -> None:
    for setting in ("delayed_injury", "pretrauma"):
        ruleset, model = firefight.api.parse(_variant(SOE, **{f"settings.{setting}": True}))
        engage = ruleset.action("attack").engage
        assert engage is not None
        assert engage(model) is None


@pytest.mark.parametrize(("request_", "must_see"), [
    (example("percentile_rifleman.json"), {"state:dead", "state:miss"}),
    (example("percentile_semi_60.json"), {"state:dead"}),  # 60 rounds at 30": always dead
    (example("percentile_submachine_gunner.json"), {"state:dead", "state:miss"}),
    (_variant("percentile_rifleman.json", **{"target.stats.life_force": 0}),
     {"state:already_dead"}),
    (_variant("percentile_rifleman.json", **{"target.stats.life_force": 30}),
     {"state:wounded", "state:dead"}),
    (_variant("percentile_semi_60.json", **{"options.rounds": 5, "options.hasty_fire": True,
                                            "weapon.weapon_class": "pistol"}),
     {"state:miss"}),
])
def test_percentile_engagements_are_what_resolve_records(request_: dict[str, Any],
                                                         must_see: set[str]) -> None:
    seen = _same_as_resolve(request_, 300, seed=5)
    labels = {label for found in seen for label in found}
    assert must_see <= labels


def test_the_lab_takes_the_fast_path_and_counts_every_engagement() -> None:
    out = firefight.simulate(example("percentile_semi_60.json"), 3_000, seed=1)
    states = [r["count"] for k, r in out["outcomes"].items()
              if any(x.startswith("state:") for x in (k, *r.get("same_as", [])))]
    assert sum(states) == 3_000
    assert out == firefight.simulate(example("percentile_semi_60.json"), 3_000, seed=1)


@pytest.mark.parametrize("request_", [
    example("percentile_semi_60.json"), example("percentile_rifleman.json"),
    _variant("percentile_rifleman.json", **{"target.stats.life_force": 0}),
    _variant("percentile_rifleman.json", **{"target.stats.life_force": 30}),
    _variant("percentile_semi_60.json", **{"options.rounds": 5, "options.hasty_fire": True,
                                           "weapon.weapon_class": "pistol"}),
])
def test_many_engagements_at_once_are_those_one_at_a_time(request_: dict[str, Any]) -> None:
    """The lab's ``many`` (a block of rolls drawn at a time) gives the engagements ``run``
    gives from the same uniforms, in order, and leaves the uniforms read the same way."""
    ruleset, model = firefight.api.parse(request_)
    engage = ruleset.action(model.action).engage
    assert engage is not None
    run = engage(model)
    assert run is not None
    many = run.many  # type: ignore[attr-defined]
    for seed in (1, 2):
        draw = random.Random(seed).random

        def face(faces: int, draw: Any = draw) -> int:
            return int(draw() * faces) + 1

        one_by_one = [run(face) for _ in range(2_000)]
        assert many(2_000, random.Random(seed).random) == one_by_one
        # In two calls (a chunk's stream read on where the last left it): the same again,
        # after the first call's last block.
        rng = random.Random(seed)
        first = many(700, rng.random)
        assert first == one_by_one[:700]


SOE_WHOLE = [example(SOE), _variant(SOE, **{"weapon.projectiles": 1, "target.stats.hp": 6}),
             _variant(SOE, **{"target.stats.hp": 20})]


@pytest.mark.parametrize("request_", SOE_WHOLE)
def test_soe_many_engagements_at_once_are_those_one_at_a_time(request_: dict[str, Any]
                                                                ) -> None:
    """soe's ``many`` reads the RANT dice inline: the same engagements as ``run`` one by one
    from the same uniforms, and the same uniforms read."""
    ruleset, model = firefight.api.parse(request_)
    run = ruleset.action("attack").engage(model)  # type: ignore[misc]
    assert run is not None
    for seed in (1, 2):
        rng = random.Random(seed)

        def face(faces: int, draw: Any = rng.random) -> int:
            return int(draw() * faces) + 1

        one_by_one = [run(face) for _ in range(3_000)]
        after = rng.random()
        again = random.Random(seed)
        assert run.many(3_000, again.random) == one_by_one  # type: ignore[attr-defined]
        assert again.random() == after


def _data_after(ruleset: Any, request: dict[str, Any], model: Any, dice: Any) -> str:
    """The target's data after a resolve with ``dice`` (what ``sim.shots`` carries on)."""
    result = ruleset.resolve(model, Roller(dice))
    effects = [e.model_dump(mode="json") for e in result.effects
               if e.target == "target" and e.on_actor]
    stats = request["target"].get("stats", {})
    return json.dumps(ruleset.apply(stats, effects)["stats"] if effects else stats,
                      sort_keys=True)


@pytest.mark.parametrize("request_", [
    *SOE_WHOLE, example("percentile_rifleman.json"),
    _variant("percentile_rifleman.json", **{"target.stats.life_force": 30}),
    example("percentile_submachine_gunner.json"),
])
def test_a_whole_engagement_says_the_targets_data_after_the_shot(request_: dict[str, Any]
                                                                  ) -> None:
    """``run.whole``: equal engagements leave the target's data equal, whatever it was before
    (``sim.shots`` resolves one shot of each in full): here from two states of the target, the
    request's and one a few shots on."""
    ruleset, model = firefight.api.parse(request_)
    assert ruleset.action(model.action).engage(model).whole  # type: ignore[union-attr]
    after: dict[Any, str] = {}
    for stats_change in ({}, {"hp": 9} if ruleset.id == "soe" else {"life_force": 12}):
        request = copy.deepcopy(request_)
        request["target"]["stats"].update(stats_change)
        ruleset, model = firefight.api.parse(request)
        run = ruleset.action(model.action).engage(model)  # type: ignore[misc]
        rng = random.Random(6)
        for _ in range(800):
            dice = sim._PathDice([], rng.random)
            data = _data_after(ruleset, request, model, dice)
            engagement = run(_faces(dice.read))
            assert after.setdefault(engagement, data) == data, engagement
    assert len(after) > 10


def test_general_trauma_engagements_are_not_whole() -> None:
    """General Trauma's effect roll is left to the full resolve: its engagement is not all."""
    ruleset, model = firefight.api.parse(_variant(SOE, **{"settings.injury_mode":
                                                           "general_trauma"}))
    run = ruleset.action("attack").engage(model)  # type: ignore[misc]
    assert run is not None
    assert not run.whole  # type: ignore[attr-defined]
