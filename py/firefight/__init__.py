"""Firefight: gun combat for virtual tabletops. The rules engine, pure Python.

Everything goes through ``resolve``; see docs/architecture.md for the request and result shapes.
"""

from __future__ import annotations

from typing import Any

from firefight.api import apply, list_rulesets, odds, resolve, schema
from firefight.cards import render_card, validate_result
from firefight.dice import DiceSource, EntropyDice, ScriptedDice, SeededDice
from firefight.errors import FirefightError
from firefight.registry import Ruleset, register

__version__ = "0.1.0"


def simulate(request: dict[str, Any], n: int = 100_000, seed: int | None = None,
             **kwargs: Any) -> dict[str, Any]:
    """The balance lab (``firefight.sim``): the distribution of outcomes over ``n`` engagements.
    Imported on first use, so the browser's boot does not pay for it."""
    from firefight.sim import simulate as run

    return run(request, n, seed, **kwargs)


__all__ = [
    "DiceSource",
    "EntropyDice",
    "FirefightError",
    "Ruleset",
    "ScriptedDice",
    "SeededDice",
    "__version__",
    "apply",
    "list_rulesets",
    "odds",
    "register",
    "render_card",
    "resolve",
    "schema",
    "simulate",
    "validate_result",
]
