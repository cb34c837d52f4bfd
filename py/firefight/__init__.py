"""Firefight: gun combat for virtual tabletops. The rules engine, pure Python.

Everything goes through ``resolve``; see docs/architecture.md for the request and result shapes.
"""

from __future__ import annotations

from typing import Any

from firefight.api import apply, catalog, list_rulesets, odds, rescan, resolve, schema
from firefight.cards import render_card, validate_result
from firefight.dice import DiceSource, EntropyDice, ScriptedDice, SeededDice
from firefight.errors import FirefightError
from firefight.house import HouseRule, register_house_rule
from firefight.models import ActionRequest, Modifier
from firefight.record import Recorder
from firefight.registry import Action, Ruleset, plugin_status, register

__version__ = "0.1.0"


def simulate(request: dict[str, Any], n: int = 100_000, seed: int | None = None,
             **kwargs: Any) -> dict[str, Any]:
    """The balance lab (``firefight.sim``): the distribution of outcomes over ``n`` engagements.
    Imported on first use, so the browser's boot does not pay for it."""
    from firefight.sim import simulate as run

    return run(request, n, seed, **kwargs)


__all__ = [
    "Action",
    "ActionRequest",
    "DiceSource",
    "EntropyDice",
    "FirefightError",
    "HouseRule",
    "Modifier",
    "Recorder",
    "Ruleset",
    "ScriptedDice",
    "SeededDice",
    "__version__",
    "apply",
    "catalog",
    "list_rulesets",
    "odds",
    "plugin_status",
    "register",
    "register_house_rule",
    "render_card",
    "rescan",
    "resolve",
    "schema",
    "simulate",
    "validate_result",
]
