"""Shared fixtures. These tests run on CPython and again inside Pyodide (tests/pyodide/run.mjs)."""

from __future__ import annotations

import copy
from typing import Any

import pytest


@pytest.fixture
def soe_request() -> dict[str, Any]:
    """A plain aimed rifle shot at a standing human, 100 m, nothing else."""
    return copy.deepcopy({
        "ruleset": "soe",
        "attacker": {"name": "Ada", "pc": True,
                     "stats": {"marksmanship": 12, "str": 10, "agl": 10}},
        "target": {"name": "Bandit", "pc": False, "stats": {"str": 10, "agl": 12}},
        "weapon": {"name": "Rifle", "damage": 10, "weapon_type": "rifle"},
        "range": {"value": 100, "units": "m"},
        "options": {"mode": "aimed"},
    })
