"""The one entry point for everything: CLI, browser bridge and tests.

JSON-ready dicts in and out. Bad input yields ``{"error": {...}}`` naming the field and the
reason; it never raises for a request a person got wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from firefight import registry
from firefight.dice import Roller, make_source
from firefight.errors import FirefightError
from firefight.models import Effect

ErrorDict = dict[str, Any]
_EFFECTS = TypeAdapter(list[Effect])


def _field(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "request"


def validation_error(exc: ValidationError, ruleset_id: str, tag: object = None,
                     keys: Collection[str] = ()) -> FirefightError:
    """Name each bad field by its path in the request (a union's tag is not part of it; a
    field named like the action, one of the request's ``keys``, is not a tag)."""
    fields = []
    for e in exc.errors(include_url=False):
        loc = tuple(e["loc"])
        if isinstance(tag, str) and tag not in keys and loc[:1] == (tag,):
            loc = loc[1:]
        if not loc and e["type"] == "union_tag_invalid":
            loc = ("action",)
        fields.append((_field(loc), e["msg"]))
    first = f"{fields[0][0]}: {fields[0][1]}" if fields else "invalid"
    return FirefightError(f"invalid {ruleset_id} request ({first})", fields=fields)


def parse(request: object) -> tuple[registry.Ruleset, BaseModel]:
    """Pick the ruleset named by the request and validate the request with its model."""
    if not isinstance(request, dict):
        raise FirefightError("a request must be a JSON object",
                             fields=[("request", "expected an object")])
    ruleset = registry.get(request.get("ruleset"))
    try:
        model = ruleset.request_model.model_validate(request)
    except ValidationError as exc:
        raise validation_error(exc, ruleset.id, request.get("action", "attack"),
                               keys=request.keys()) from None
    # A multi-action ruleset's model is a RootModel over its actions; its resolver unwraps it.
    return ruleset, model


def _guarded(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return fn()
    except FirefightError as exc:
        return {"error": exc.to_dict()}


def resolve(request: dict[str, Any], *, dice: object = None, seed: int | None = None
            ) -> dict[str, Any]:
    """Resolve one action. ``dice``: a DiceSource, scripted faces (ints) or uniforms (floats)."""

    def run() -> dict[str, Any]:
        ruleset, model = parse(request)
        roller = Roller(make_source(dice, seed))
        return ruleset.resolve(model, roller).model_dump(mode="json")

    return _guarded(run)


def _copied(value: Any) -> Any:
    """A copy of JSON-ready data (dicts, lists, scalars): copy.deepcopy is several times slower."""
    if type(value) is dict:
        return {k: _copied(v) for k, v in value.items()}
    if type(value) is list:
        return [_copied(v) for v in value]
    return value


def odds(request: dict[str, Any]) -> dict[str, Any]:
    """The exact chances a player sees before rolling."""

    def run() -> dict[str, Any]:
        ruleset, model = parse(request)
        copied: dict[str, Any] = _copied(ruleset.cached_odds(model))  # the cache stays as is
        return copied

    return _guarded(run)


def _labelled(ruleset_id: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Give every actor-data field a lang key, ``FIREFIGHT.<ruleset>.stat.<field>``."""
    for name, prop in schema.get("properties", {}).items():
        prop.setdefault("x-label-key", f"FIREFIGHT.{ruleset_id}.stat.{name}")
    return schema


def schema(ruleset_id: str) -> dict[str, Any]:
    """JSON schemas of a ruleset's request, options (the Shoot dialog) and settings."""

    def run() -> dict[str, Any]:
        ruleset = registry.get(ruleset_id)
        settings, stats = ruleset.settings_model, ruleset.stats_model
        return {
            "ruleset": ruleset.id,
            "request": ruleset.request_model.model_json_schema(by_alias=True),
            "options": ruleset.options_model.model_json_schema(by_alias=True),
            "settings": settings.model_json_schema(by_alias=True) if settings else None,
            "stats": _labelled(ruleset.id, stats.model_json_schema(by_alias=True))
            if stats else None,
            "actions": {name: model.model_json_schema(by_alias=True)
                        for name, model in ruleset.action_options.items()},
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
            _EFFECTS.validate_python(effects)  # each effect's shape; the ruleset reads the dicts
        except ValidationError as exc:
            raise FirefightError("invalid effects", fields=[
                (_field(("effects", *e["loc"])), e["msg"]) for e in exc.errors()]) from None
        return ruleset.apply(stats, effects)

    return _guarded(run)


def list_rulesets() -> list[dict[str, Any]]:
    return [r.describe() for r in registry.all_rulesets()]
