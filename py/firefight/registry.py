"""The registry of rulesets, keyed by id.

Built-in rulesets register on import; a module author's ruleset registers with ``register()``
or through the ``firefight.rulesets`` entry-point group of an installed wheel, without touching
ours (pf2e's rule-element map works the same way).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any, ClassVar

from pydantic import BaseModel

from firefight.dice import Roller
from firefight.effects import apply_effects
from firefight.errors import FirefightError
from firefight.models import Resolution


class Ruleset(ABC):
    """What a ruleset provides. Subclass it, fill the class attributes, and ``register()`` it."""

    id: ClassVar[str]
    label_key: ClassVar[str]
    actions: ClassVar[tuple[str, ...]] = ("attack",)
    request_model: ClassVar[type[BaseModel]]
    options_model: ClassVar[type[BaseModel]]
    # Rulesets with several actions: the options (dialog) model of each, by action name. The
    # request model is then a RootModel over a union discriminated on "action".
    action_options: ClassVar[dict[str, type[BaseModel]]] = {}
    settings_model: ClassVar[type[BaseModel] | None] = None
    # The actor data the ruleset keeps in ``flags.firefight.<id>`` (effects are applied to it).
    stats_model: ClassVar[type[BaseModel] | None] = None
    # The chat card's template (templates/); cards never take a template from a result.
    card_template: ClassVar[str] = "card.html.j2"
    # States (outcome fields or ``state`` effects) the balance lab counts as killed, and as out
    # of the fight (``firefight.sim``).
    killed_states: ClassVar[frozenset[str]] = frozenset({"dead"})
    incapacitated_states: ClassVar[frozenset[str]] = frozenset({"dead"})

    @abstractmethod
    def resolve(self, request: Any, roller: Roller) -> Resolution:
        """Resolve a validated request with dice from ``roller``; pure apart from the dice."""

    @abstractmethod
    def odds(self, request: Any) -> dict[str, Any]:
        """Exact chances a player sees before rolling (at least ``probability`` of success)."""

    def cached_odds(self, request: BaseModel,
                    compute: Callable[[Any], dict[str, Any]] | None = None) -> dict[str, Any]:
        """``odds`` (or ``compute``) of a validated request, computed once per distinct request
        and kept in a bounded cache (issue 17: odds were recomputed inside every resolve).
        Odds depend on nothing but the request, so the key is the request itself. The dict is
        shared: read it, never change it (``firefight.odds`` hands out a copy)."""
        fn = compute or self.odds
        key = (self.id, getattr(fn, "__qualname__", repr(fn)), type(request),
               request.model_dump_json())
        found = _ODDS_CACHE.get(key)
        if found is not None:
            _ODDS_CACHE.move_to_end(key)
            return found
        value = fn(request)
        _ODDS_CACHE[key] = value
        if len(_ODDS_CACHE) > ODDS_CACHE_SIZE:
            _ODDS_CACHE.popitem(last=False)  # least recently used
        return value

    def apply(self, stats: dict[str, Any], effects: list[dict[str, Any]]) -> dict[str, Any]:
        """An actor's data after a result's effects (see ``firefight.effects``)."""
        if self.stats_model is None:
            raise FirefightError(f"ruleset {self.id!r} keeps no actor data", code="no_stats_model")
        return apply_effects(self.stats_model, stats, effects)

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "label_key": self.label_key, "actions": list(self.actions)}


_RULESETS: dict[str, Ruleset] = {}
# Distinct requests whose odds are kept (a table's open dialogs and a balance-lab run fit).
ODDS_CACHE_SIZE = 512
_ODDS_CACHE: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()


def clear_odds_cache() -> None:
    _ODDS_CACHE.clear()

_loaded_entry_points = False


def register(ruleset: Ruleset, *, replace: bool = False) -> Ruleset:
    if not replace and ruleset.id in _RULESETS and _RULESETS[ruleset.id] is not ruleset:
        raise ValueError(f"a ruleset with id {ruleset.id!r} is already registered")
    _RULESETS[ruleset.id] = ruleset
    _ODDS_CACHE.clear()  # a replaced ruleset's odds are not the new one's
    return ruleset


def _load() -> None:
    global _loaded_entry_points  # noqa: PLW0603 - one-time discovery
    if _loaded_entry_points:
        return
    _loaded_entry_points = True
    from firefight.rulesets import builtin

    for ruleset in builtin():
        register(ruleset, replace=True)
    for ep in entry_points(group="firefight.rulesets"):
        if ep.name in _RULESETS:
            continue
        obj = ep.load()
        register(obj() if isinstance(obj, type) else obj)


def get(ruleset_id: object) -> Ruleset:
    _load()
    if not isinstance(ruleset_id, str) or ruleset_id not in _RULESETS:
        known = ", ".join(sorted(_RULESETS))
        raise FirefightError(
            f"unknown ruleset {ruleset_id!r}",
            code="unknown_ruleset",
            fields=[("ruleset", f"must be one of: {known}")],
        )
    return _RULESETS[ruleset_id]


def all_rulesets() -> list[Ruleset]:
    _load()
    return [_RULESETS[k] for k in sorted(_RULESETS)]
