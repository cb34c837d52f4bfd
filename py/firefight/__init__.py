"""Firefight: gun combat for virtual tabletops. The rules engine, pure Python.

Everything goes through ``resolve``; see docs/architecture.md for the request and result shapes.
"""

from __future__ import annotations

from firefight.api import apply, list_rulesets, odds, resolve, schema
from firefight.cards import render_card, validate_result
from firefight.dice import DiceSource, EntropyDice, ScriptedDice, SeededDice
from firefight.errors import FirefightError
from firefight.registry import Ruleset, register

__version__ = "0.1.0"

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
    "validate_result",
]
