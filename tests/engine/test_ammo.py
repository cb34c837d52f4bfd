"""Ammunition: every ruleset's shot says how many rounds it fires, before the dice (its odds)
and in its result; a weapon item's magazine (``flags.firefight.ammo``) is bounded by the core
``Ammo`` model; the packs' magazines validate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import firefight
from firefight.models import AMMO_MAX, Ammo
from firefight.registry import ROUNDS_FIRED

EXAMPLES = Path(__file__).parent / "examples"
PACKS = Path(__file__).resolve().parents[2] / "packs" / "_source"


def example(name: str, **options: Any) -> dict[str, Any]:
    request: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text())
    request["options"] = {**request.get("options", {}), **options}
    return request


def area_fire(bursts: int, rpb: int) -> dict[str, Any]:
    return {"ruleset": "dpv", "action": "area_fire",
            "weapon": {"name": "SMG", "effective_range_m": 100, "dpv": 0.7, "afv": 1, "rof": 3,
                       "rpb": rpb},
            "range": {"value": 80}, "options": {"bursts": bursts},
            "targets": [{"name": "A", "pc": True, "place": "in_area"}]}


def rounds(request: dict[str, Any]) -> tuple[Any, Any]:
    """(rounds in the odds, rounds in the result's outcome)."""
    odds = firefight.odds(request)
    result = firefight.resolve(request, seed=7)
    assert "error" not in odds, odds
    assert "error" not in result, result
    return odds.get(ROUNDS_FIRED), result["outcome"].get(ROUNDS_FIRED)


@pytest.mark.parametrize(("request_", "fired"), [
    # soe Table 1 "# Projectiles": the weapon's number (the worked example's 20)...
    (example("soe_rhino"), 20),
    # ... or the dialog's.
    (example("soe_rhino", projectiles=3), 3),
    # percentile Small Arms: as declared, else "the entire clip or magazine capacity".
    (example("percentile_submachine_gunner"), 30),
    (example("percentile_submachine_gunner", rounds=None), 32),
    (example("percentile_rifleman"), 3),
    # shock: the draft has no rate of fire: one round an attack.
    (example("shock_dshk"), 1),
    # 2300ad FIRE COMBAT, "Rate of Fire": a round each aimed shot; bursts x RPB in area fire.
    (example("dpv_attack", shots=3), 3),
    (area_fire(bursts=2, rpb=3), 6),
])
def test_each_rulesets_shot_says_the_rounds_it_fires(request_: dict[str, Any], fired: int
                                                     ) -> None:
    assert rounds(request_) == (fired, fired)


def test_climbing_rounds_are_fired_all_the_same() -> None:
    # percentile: an SMG burst over 35 "climbs": the excess is wasted, but it left the magazine.
    request = example("percentile_submachine_gunner", rounds=50)
    request["weapon"]["magazine"] = 71
    assert rounds(request) == (50, 50)


def test_an_action_that_fires_nothing_says_nothing() -> None:
    task = {"ruleset": "soe", "action": "task", "options": {"modifier": 2}}
    odds, outcome = rounds(task)
    assert odds is None
    assert outcome is None


def test_rounds_stay_off_the_cards_odds() -> None:
    result = firefight.resolve(example("shock_dshk"), seed=1)
    assert ROUNDS_FIRED not in result["odds"]


@pytest.mark.parametrize("data", [
    {"capacity": 30, "loaded": 30}, {"capacity": 1, "loaded": 0},
    {"capacity": AMMO_MAX, "loaded": AMMO_MAX},
])
def test_a_magazine_within_its_bounds(data: dict[str, int]) -> None:
    assert Ammo.model_validate(data).model_dump(exclude_none=True) == data


@pytest.mark.parametrize(("data", "field"), [
    ({"capacity": 0, "loaded": 0}, "capacity"),
    ({"capacity": AMMO_MAX + 1, "loaded": 0}, "capacity"),
    ({"capacity": 10, "loaded": -1}, "loaded"),
    ({"capacity": 10, "loaded": 11}, ""),
    ({"capacity": 10, "loaded": 2.5}, "loaded"),
    ({"capacity": 10}, "loaded"),
    ({"capacity": 10, "loaded": 1, "spare": 3}, "spare"),
])
def test_a_magazine_out_of_bounds_is_refused(data: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as err:
        Ammo.model_validate(data)
    assert any(".".join(map(str, e["loc"])) == field for e in err.value.errors())


def _weapon_items() -> list[tuple[str, dict[str, Any]]]:
    """(file, flags.firefight) of every weapon in the pack sources, actors' items too."""
    found = []
    for path in sorted(PACKS.glob("*/*.json")):
        doc = json.loads(path.read_text())
        for item in [doc, *doc.get("items", [])]:
            ff = item.get("flags", {}).get("firefight", {})
            if any(isinstance(v, dict) and v.get("category") == "weapon" for v in ff.values()):
                found.append((f"{path.parent.name}/{path.name}:{item['name']}", ff))
    return found


def test_every_packed_magazine_is_valid_and_percentiles_hold_their_capacity() -> None:
    weapons = _weapon_items()
    assert weapons
    armory = 0
    for where, ff in weapons:
        if "ammo" in ff:
            Ammo.model_validate(ff["ammo"])
        if "percentile" in ff and ("ammo" in ff or where.startswith("percentile-weapons/")):
            # percentile Small Arms: "the entire clip or magazine capacity": the one number.
            armory += 1
            magazine = ff["percentile"]["magazine"]
            assert ff.get("ammo") == {"capacity": magazine, "loaded": magazine}, where
    assert armory >= 24


def test_spare_magazines_are_a_bounded_count() -> None:
    assert Ammo(capacity=5, loaded=5).spares is None  # not counted
    assert Ammo(capacity=5, loaded=5, spares=3).spares == 3
    for bad in (-1, 1001, 1.5, "two"):
        with pytest.raises(ValidationError):
            Ammo.model_validate({"capacity": 5, "loaded": 5, "spares": bad})


def test_the_card_says_the_rounds_fired_and_left() -> None:
    """UX walkthrough 3 #11: the card never said rounds fired or left. The request carries the
    magazine before the shot (``ActionRequest.ammo``); the outcome and the card say the rest."""
    request = example("percentile_rifleman", rounds=3)
    plain = firefight.resolve(request, seed=1)
    assert "rounds_left" not in plain["outcome"]
    assert "3 rounds fired" in firefight.render_card(plain, fmt="text")
    request["ammo"] = {"capacity": 5, "loaded": 4, "spares": 1}
    result = firefight.resolve(request, seed=1)
    assert (result["outcome"][ROUNDS_FIRED], result["outcome"]["rounds_left"],
            result["outcome"]["rounds_capacity"]) == (3, 1, 5)
    assert "3 rounds fired, 1 of 5 left" in firefight.render_card(result, fmt="text")
    assert "3 Patronen verschossen, noch 1 von 5" in firefight.render_card(result, lang="de")
    request["ammo"] = {"capacity": 5, "loaded": 6}
    assert firefight.resolve(request, seed=1)["error"]["fields"][0]["field"] == "ammo"
