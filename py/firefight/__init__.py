"""Firefight: gun combat for virtual tabletops. The rules engine, pure Python.

Everything goes through ``resolve``; see docs/architecture.md for the request and result shapes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from firefight.api import (
    apply,
    catalog,
    end_conditions,
    list_rulesets,
    odds,
    rescan,
    resolve,
    schema,
)
from firefight.dice import DiceSource, EntropyDice, ScriptedDice, SeededDice
from firefight.errors import FirefightError, named, rule_error
from firefight.house import HouseRule, register_house_rule
from firefight.models import ActionRequest, Condition, ConditionModifier, Modifier
from firefight.record import Recorder
from firefight.registry import Action, Ruleset, plugin_status, register

if TYPE_CHECKING:
    from firefight.cards import render_card, validate_result

__version__ = "0.1.0"

# Imported on first use (issue 17, "Boot": the engine is ready before Jinja2 and the card
# templates are needed; the first card loads them).
_LAZY = {"render_card": "firefight.cards", "validate_result": "firefight.cards"}


def __getattr__(name: str) -> Any:
    """``render_card`` and ``validate_result`` from ``firefight.cards``, imported on first use
    (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'firefight' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value  # later reads find it at once
    return value


def simulate(request: dict[str, Any], n: int = 100_000, seed: int | None = None,
             **kwargs: Any) -> dict[str, Any]:
    """The balance lab (``firefight.sim``): the distribution of outcomes over ``n`` engagements.
    Imported on first use, so the browser's boot does not pay for it."""
    from firefight.sim import simulate as run

    return run(request, n, seed, **kwargs)


__all__ = [
    "Action",
    "ActionRequest",
    "Condition",
    "ConditionModifier",
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
    "end_conditions",
    "list_rulesets",
    "named",
    "odds",
    "plugin_status",
    "register",
    "register_house_rule",
    "render_card",
    "rescan",
    "resolve",
    "rule_error",
    "schema",
    "simulate",
    "validate_result",
]
