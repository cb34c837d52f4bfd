"""Request files for the worked examples (tests/engine/examples)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).parent / "examples"
PACK_SOURCES = Path(__file__).resolve().parents[2] / "packs" / "_source"
IN_PYODIDE = sys.platform == "emscripten"
# One attack example a ruleset (the requests every-option and fuzz tests start from).
RULESET_EXAMPLES = ["soe_rhino.json", "percentile_rifleman.json", "dpv_attack.json",
                    "shock_dshk.json"]


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return data


def pack_docs(pack: str) -> list[dict[str, Any]]:
    """The documents of a compendium pack's sources; skips where the checkout has no packs
    (the engine tests inside Pyodide see only tests/engine)."""
    folder = PACK_SOURCES / pack
    if not folder.is_dir():
        pytest.skip(f"{folder} is not in this checkout")
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def assert_invalid_field_named(request: dict[str, Any], path: tuple[str, ...], value: object
                               ) -> None:
    """Put ``value`` at ``path`` in ``request``: resolving must fail naming that field."""
    import firefight

    node = request
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    out = firefight.resolve(request, seed=1)
    assert out["error"]["code"] == "invalid_request", out
    named = [f["field"] for f in out["error"]["fields"]]
    assert any(n.startswith(".".join(path)) for n in named), named


def _action_requests() -> dict[tuple[str, str], dict[str, Any]]:
    """A request for every action of every built-in ruleset (the attack examples' people and
    weapons, the other fields a dialog fills): the card and lang tests go over them all."""
    dpv, soe = example("dpv_attack.json"), example("soe_rhino.json")
    who = {"name": "Rifleman", "actor_id": "a1", "state": "ok"}
    chit, hurt = {**who, "quality": "regular", "pool": 0}, {**who, "wounds": 2}
    thrower = {**dpv["attacker"], "stats": {**dpv["attacker"]["stats"], "throw_range_m": 30}}
    extra: dict[tuple[str, str], dict[str, Any]] = {
        ("dpv", "area_fire"): {"weapon": dpv["weapon"], "range": dpv["range"],
                               "targets": [dpv["target"]]},
        ("dpv", "task"): {"options": {"difficulty": "routine", "skill": 2}},
        ("dpv", "explosion"): {"ep": 2, "targets": [{**dpv["target"], "distance_m": 3}]},
        ("dpv", "deviation"): {"deviation": "indirect_grenade",
                               "range": {"value": 40, "units": "m"}},
        ("dpv", "missile"): {"homing": 8, "ep": 2},
        ("dpv", "vehicle_damage"): {"dpv": 2},
        ("dpv", "breach"): {"contact_dpv": 4, "material": "wood", "thickness_cm": 10},
        ("dpv", "melee"): {"attacker": dpv["attacker"], "target": dpv["target"]},
        ("dpv", "critical_point"): {"patient": dpv["target"], "point": 1},
        ("dpv", "regain_consciousness"): {"hours_unconscious": 2},
        ("dpv", "resuscitate"): {"killed_by": "torso", "minutes_since_death": 3},
        ("dpv", "natural_healing"): {"weeks": 1},
        ("dpv", "throw_range"): {"actor": thrower, "options": {"object_weight_kg": 1}},
        ("dpv", "travel"): {"options": {"hexes": 2}},
        ("shock", "end_of_turn"): {"units": [hurt]},
        ("shock", "draw_chits"): {"units": [chit]},
        ("shock", "activation_pool"): {"actor": chit},
        ("shock", "treat"): {"units": [hurt]},
        ("shock", "end_of_mission"): {"units": [hurt]},
        ("soe", "will_check"): {"character": soe["attacker"]},
        ("soe", "delayed_injury_check"): {"character": soe["attacker"], "trauma_class": "minor"},
        ("soe", "general_trauma"): {"character": soe["attacker"], "trauma_class": "minor"},
    }
    out = {(r, "attack"): example(f) for r, f in (("soe", "soe_rhino.json"),
           ("percentile", "percentile_rifleman.json"), ("dpv", "dpv_attack.json"),
           ("shock", "shock_dshk.json"))}
    for r, names in (("dpv", ("treat", "combat_turn", "repair", "movement", "interface",
                              "stutterwarp")),
                     ("soe", ("task", "weapon_damage", "creature_stats", "armor_coverage",
                              "m3_hit", "incapacitation"))):
        for name in names:
            extra[(r, name)] = {}
    for (r, name), fields in extra.items():
        out[(r, name)] = {"ruleset": r, "action": name, **fields}
    return out


ACTION_REQUESTS = _action_requests()
