"""The one entry point for everything: CLI, browser bridge and tests.

JSON-ready dicts in and out. Bad input yields ``{"error": {...}}`` naming the field and the
reason; it never raises for a request a person got wrong.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Union

from pydantic import BaseModel, TypeAdapter, ValidationError

from firefight import house, i18n, registry
from firefight.dice import Roller, make_source
from firefight.errors import (
    FirefightError,
    error_field,
    field_path,
    with_item_labels,
    with_stat_labels,
)
from firefight.models import (
    CONDITION_END,
    CONDITION_ENDS,
    CONDITIONS_FIELD,
    UNIT_METRES,
    Ammo,
    Effect,
)

ErrorDict = dict[str, Any]
@functools.cache
def _effects() -> TypeAdapter[list[Effect]]:
    """The effects' validator, built on the first `apply` (not at import: issue 17, "Boot")."""
    return TypeAdapter(list[Effect])


def parse(request: object) -> tuple[registry.Ruleset, BaseModel]:
    """Pick the ruleset named by the request and validate the request with its action's model."""
    found = _parsed(request)
    return found.ruleset, found.model


def _parsed(request: object) -> registry.Parsed:
    """The request validated, from the parse cache (``registry.parse_cached``) when seen."""
    if not isinstance(request, dict):
        raise FirefightError("a request must be a JSON object",
                             fields=[("request", "expected an object")])
    return registry.parse_cached(request)


def _guarded(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return fn()
    except FirefightError as exc:
        return {"error": exc.to_dict()}


def resolve(request: dict[str, Any], *, dice: object = None, seed: int | None = None
            ) -> dict[str, Any]:
    """Resolve one action. ``dice``: a DiceSource, scripted faces (ints) or uniforms (floats)."""

    def run() -> dict[str, Any]:
        found = _parsed(request)
        return registry.resolve_dict(found.ruleset, found.model,
                                     Roller(make_source(dice, seed)), found)

    return _guarded(run)


def odds(request: dict[str, Any]) -> dict[str, Any]:
    """The exact chances a player sees before rolling."""

    def run() -> dict[str, Any]:
        found = _parsed(request)
        odds = found.ruleset.cached_odds(found.model, key=found.key)
        copied: dict[str, Any] = registry.json_copy(odds)  # the cache stays as is
        return copied

    return _guarded(run)


def _request_schema(ruleset: registry.Ruleset) -> dict[str, Any]:
    models = tuple(house.request_model(ruleset.id, a.request, ruleset.stats_model,  # house fields
                                       ruleset.item_models) for a in ruleset.actions)
    union = models[0] if len(models) == 1 else Union[models]  # noqa: UP007 - a runtime tuple
    schema: dict[str, Any] = TypeAdapter(union).json_schema(by_alias=True)  # type: ignore[arg-type]
    return i18n.label_request_fields(f"FIREFIGHT.{ruleset.id}", schema)


def schema(ruleset_id: str) -> dict[str, Any]:
    """JSON schemas of a ruleset's request, options (the Shoot dialog) and settings."""

    def run() -> dict[str, Any]:
        ruleset = registry.get(ruleset_id)
        cat = registry.with_house_fields(ruleset.id, ruleset.catalog())
        return {
            "ruleset": ruleset.id,
            "request": _request_schema(ruleset),
            "options": cat["options"].get(cat["default_action"], {}),
            "settings": cat["settings"],
            "stats": cat["stats"],
            "actions": cat["options"],
            "ammo": Ammo.model_json_schema(),  # a weapon's magazine (the item sheet's fields)
        }

    return _guarded(run)


def apply(ruleset_id: str, stats: dict[str, Any], effects: list[dict[str, Any]]
          ) -> dict[str, Any]:
    """One actor's data after the effects meant for it: ``{"stats", "statuses", "conditions",
    "changes"}``. The table writes ``stats`` back; undo writes back the data it had before."""

    def run() -> dict[str, Any]:
        if not isinstance(stats, dict):
            raise FirefightError("apply takes an object of actor data",
                                 fields=[("stats", "expected an object")])
        ruleset = registry.get(ruleset_id)
        try:
            _effects().validate_python(effects)  # each effect's shape; the ruleset reads the dicts
        except ValidationError as exc:
            raise FirefightError("invalid effects", fields=[
                (field_path(("effects", *e["loc"])), e["msg"]) for e in exc.errors()]) from None
        try:
            return registry.apply_with_house_fields(ruleset, stats, effects)
        except FirefightError as exc:
            raise with_stat_labels(exc, ruleset.id) from None

    return _guarded(run)


def end_conditions(ruleset_id: str, stats: dict[str, Any], when: str) -> dict[str, Any]:
    """One actor's data with the conditions that end ``when`` ("turn": its turn starts,
    "round": a round starts; ``Condition.ends``) ended, as ``apply`` returns it."""

    def run() -> dict[str, Any]:
        if when not in CONDITION_ENDS:
            raise FirefightError(f"conditions end at {', '.join(CONDITION_ENDS)}",
                                 fields=[("when", f"one of: {', '.join(CONDITION_ENDS)}")])
        declared = house.conditions(ruleset_id)
        held = stats.get(CONDITIONS_FIELD) if isinstance(stats, dict) else None
        ending = [{"kind": CONDITION_END, "value": cid} for cid in held or ()
                  if cid in declared and declared[cid].ends == when]
        return apply(ruleset_id, stats, ending)

    return _guarded(run)


def item(ruleset_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """An item's data for a ruleset (``flags.firefight.<ruleset>``, its ``category`` picking the
    model) checked before the item sheet saves it: ``{"item": <the data to store>}``."""

    def run() -> dict[str, Any]:
        ruleset = registry.get(ruleset_id)
        try:
            return {"item": ruleset.validate_item(data)}
        except FirefightError as exc:  # the fields by their labels on the item sheet
            raise with_item_labels(exc, ruleset.id) from None

    return _guarded(run)


def ammo(data: object) -> dict[str, Any]:
    """A weapon item's magazine (``flags.firefight.ammo``) checked by the core ``Ammo`` model
    before the item sheet saves it: ``{"ammo": <the magazine to store>}``."""

    def run() -> dict[str, Any]:
        try:
            return {"ammo": Ammo.model_validate(data).model_dump(exclude_none=True)}
        except ValidationError as exc:
            # The model's one rule over both fields (loaded within the capacity) is loaded's.
            whole = ("loaded",) if isinstance(data, dict) else ("ammo",)
            fields = [error_field(e, loc=tuple(e["loc"]) or whole)
                      for e in exc.errors(include_url=False)]
            raise FirefightError(f"invalid magazine ({fields[0][0]}: {fields[0][1]})",
                                 fields=fields, key="FIREFIGHT.error.invalid",
                                 params={"count": len(fields)}) from None

    return _guarded(run)


def list_rulesets() -> list[dict[str, Any]]:
    return [r.describe() for r in registry.all_rulesets()]


DEFAULT_RULESET = "soe"  # the first ruleset a new world plays (a built-in: pyproject.toml)


def catalog(lang: str = "en") -> dict[str, Any]:
    """What the table offers: every ruleset with its dialogs, settings, sheet fields and table
    features, the house rules, each plugin's status and the plugins' labels (``hello``)."""
    rulesets = []
    registry.refresh()  # finds the plugins first (one installed since too): their status shows
    status = registry.plugin_status()
    for ruleset_id in registry.ruleset_ids():
        try:  # a built-in's from its data file: the hello imports no ruleset
            rulesets.append(registry.ruleset_catalog(ruleset_id))
        except Exception as exc:
            status.append({"name": ruleset_id, "group": "firefight.rulesets", "dist": "",
                           "ok": False, "error": f"{type(exc).__name__}: {exc}"[:500]})
    rules = []
    for rule in house.house_rules():
        try:
            rules.append(rule.describe())
        except Exception as exc:
            status.append({"name": rule.id, "group": "firefight.house_rules", "dist": "",
                           "ok": False, "error": f"{type(exc).__name__}: {exc}"[:500]})
    ids = [r["id"] for r in rulesets]
    return {
        "default_ruleset": DEFAULT_RULESET if DEFAULT_RULESET in ids else (ids or [""])[0],
        "rulesets": rulesets,
        "house_rules": rules,
        "plugins": status,
        "strings": i18n.plugin_strings(lang),
        "units": dict(UNIT_METRES),
    }


def rescan(lang: str = "en") -> dict[str, Any]:
    """Discover wheels installed since boot (a plugin loaded at the table), then ``catalog``."""
    registry.rescan()
    return catalog(lang)
