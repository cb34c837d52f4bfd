"""The one core rulesets plug into, and the registry of rulesets keyed by id.

A ruleset declares its actions; each names its request model, its dialog options, its resolver
and its exact odds. The core validates and dispatches every action the same way and builds the
result from one ``Recorder``. The built-in rulesets are found as a plugin's are, by the
``firefight.rulesets`` entry points of the engine's own distribution (pyproject.toml), and each
is imported on its first request: until then the table reads its catalog from the data file
beside it (``catalog.json``, tools/build_catalogs.py), so the ``hello`` imports none. A module
author's ruleset or house rule registers with ``register()`` / ``register_house_rule()`` or
through the ``firefight.rulesets`` / ``firefight.house_rules`` entry-point groups of an
installed wheel. A plugin that fails to load is recorded in ``plugin_status()``, never raised:
the rest plays on.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import marshal
import os
import sys
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from pydantic import BaseModel, ValidationError

from firefight import house, i18n
from firefight.dice import Roller
from firefight.effects import apply_effects
from firefight.errors import FirefightError, validation_error
from firefight.models import CONDITION_END, CONDITION_SET, ActionRequest, Condition, Resolution
from firefight.record import Recorder, answering, dump_request, forget_once
from firefight.resources import TEMPLATE_DIRS, package_dir

# Odds keys a result keeps for its card (the rest is the dialog's).
SHOWN_ODDS = ("probability", "exact", "net_modifier", "injury_probability", "label_key")
# A die's face for the balance lab: ``face(faces)`` (the ``DiceSource.face`` of a fair die).
Face = Callable[[int], int]
# What the lab counts of one engagement (``firefight.sim.tally``): the outcome's ``hit``, result
# and state fields (``sim.RESULT_FIELDS``, ``sim.STATE_FIELDS``) as (field, value) pairs, and
# each effect as (kind, its value when a string, else None).
Engagement = tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, str | None], ...]]
# Where an action that fires rounds says how many: its odds (before the dice) and its result's
# outcome. The table takes them off the weapon's magazine (``flags.firefight.ammo``).
ROUNDS_FIRED = "rounds_fired"
# And, when the request carries the magazine (``ActionRequest.ammo``), the rounds left in it and
# its capacity: the card says them.
ROUNDS_LEFT = "rounds_left"
ROUNDS_CAPACITY = "rounds_capacity"


@dataclass(frozen=True)
class Action:
    """One thing a ruleset resolves: a shot, a check, a table roll."""

    name: str
    request: type[BaseModel]
    resolve: Callable[[Any, Recorder], None]
    odds: Callable[[Any], dict[str, Any]] | None = None
    options: type[BaseModel] | None = None  # the action's dialog
    shown_odds: tuple[str, ...] = SHOWN_ODDS
    odds_label_key: str = ""  # put on the odds (the dialog's and the card's) carrying none
    # Whether a request's card shows its odds at all (None: always); e.g. not when the referee
    # decided the hit and nothing was rolled for it.
    odds_on_card: Callable[[Any], bool] | None = None
    # Rounds a request fires from the weapon's magazine (None: the action fires none).
    rounds: Callable[[Any], int] | None = None
    # The balance lab's fast path (``firefight.sim``; None: every engagement is a full resolve):
    # ``engage(request)`` does the request's own work once and returns ``run(face)``, which plays
    # one engagement with dice from ``face(faces)`` and returns what the lab counts of what
    # ``resolve`` would record with those faces, or None for a request it does not cover. It
    # reuses the resolver's rule functions; tests/engine/test_sim_engage.py checks it against
    # ``resolve`` face by face. ``run`` may carry ``run.many(n, uniforms)``: the engagements of
    # ``n`` runs at once, each face ``int(uniforms() * faces) + 1``, the same as one by one;
    # and ``run.whole = True`` when an engagement says the target's data after the shot (equal
    # engagements of a chain leave equal data, whatever the target's before: the lab's chains
    # resolve one of each in full, ``sim.shots``).
    engage: Callable[[Any], Callable[[Face], Engagement] | None] | None = None


class Ruleset:
    """What a ruleset provides. Subclass it, fill the class attributes, and ``register()`` it."""

    id: ClassVar[str]
    label_key: ClassVar[str]
    actions: ClassVar[tuple[Action, ...]] = ()
    settings_model: ClassVar[type[BaseModel] | None] = None
    # The actor data the ruleset keeps in ``flags.firefight.<id>`` (effects are applied to it).
    stats_model: ClassVar[type[BaseModel] | None] = None
    # The chat card's template: the core's, or "<id>/<name>" from the package's templates/.
    # Cards never take a template from a result.
    card_template: ClassVar[str] = "card.html.j2"
    # States (outcome fields or ``state`` effects) the balance lab counts as killed, and as out
    # of the fight (``firefight.sim``).
    killed_states: ClassVar[frozenset[str]] = frozenset({"dead"})
    incapacitated_states: ClassVar[frozenset[str]] = frozenset({"dead"})
    # Table features as data, read by the table's generic mechanisms (docs/extending.md).
    features: ClassVar[dict[str, Any]] = {}
    # Steps a house rule may add modifiers to: step id -> the rule it follows.
    house_steps: ClassVar[dict[str, str]] = {}
    # The item data the ruleset keeps in an item's ``flags.firefight.<id>``, by its ``category``
    # ("weapon", "armor"): the item sheet's Firefight tab is a form of it (``item_schema``).
    item_models: ClassVar[dict[str, type[BaseModel]]] = {}
    # Conditions the ruleset declares (``firefight.models.Condition``), as house rules may.
    conditions: ClassVar[tuple[Condition, ...]] = ()

    # --- the actions -------------------------------------------------------------------------

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.actions)

    def action(self, name: object) -> Action:
        for act in self.actions:
            if act.name == name:
                found: Action = act
                return found
        raise FirefightError(f"unknown {self.id} action {str(name)[:40]!r}",
                             fields=[("action", f"must be one of: {', '.join(self.action_names)}")])

    def parse(self, data: dict[str, Any]) -> BaseModel:
        """Validate a request with its action's own model (the first action when none named);
        errors name the request's own fields. The request the odds and the roll see: after
        the house rules' ``before`` hooks."""
        return house.before(self.id, self.parse_asked(data))

    def parse_asked(self, data: dict[str, Any]) -> BaseModel:
        """The request as asked, validated: before any house rule's ``before`` hook (what a
        result records, so re-resolving it runs each hook once again: issue 26)."""
        act = self.action(data.get("action", self.actions[0].name))
        try:  # with the fields house rules add to its items and actors
            model = house.request_model(self.id, act.request, self.stats_model,
                                        self.item_models).model_validate(data)
        except ValidationError as exc:
            raise validation_error(exc, self.id, ruleset=self.id) from None
        house.validate(self.id, act.name, getattr(model, "house", None) or {})
        return model

    def resolve(self, request: Any, roller: Roller) -> Resolution:
        """Resolve a validated request with dice from ``roller``; pure apart from the dice."""
        act, rec, dumped, shown = self._run(request, roller)
        return rec.resolution(request, action=act.name, odds=shown,
                              template=self.card_template, dumped=dumped)

    def recorded(self, request: Any, roller: Roller, key: str | bytes | None = None
                 ) -> tuple[Action, Recorder]:
        """The action resolved into a recorder (its house rules' ``after`` hooks, the
        conditions it ends and the rounds it fires included), without the request's dump or
        the card's odds: what the balance lab reads of a resolve (``firefight.sim``).
        ``key``: the request's key (``Parsed.key``), which keys ``Recorder.once``."""
        act = self.action(request.action)
        rec = Recorder(roller, f"FIREFIGHT.{self.id}", ruleset=self.id, request_key=key)
        act.resolve(request, rec)
        house.after(self.id, request, rec)
        for side, cid in house.ended_by_apply(self.id, rec.modifiers):  # Condition.ends "apply"
            rec.effect(CONDITION_END, value=cid, target=side, label="FIREFIGHT.condition.ends",
                       condition={"key": house.conditions(self.id)[cid].label_key})
        if act.rounds is not None:
            fired = rec.outcome[ROUNDS_FIRED] = act.rounds(request)
            ammo = getattr(request, "ammo", None)
            if ammo is not None:  # the magazine after the shot, for the card
                rec.outcome[ROUNDS_LEFT] = max(0, ammo.loaded - fired)
                rec.outcome[ROUNDS_CAPACITY] = ammo.capacity
        return act, rec

    def _run(self, request: Any, roller: Roller, parsed: Parsed | None = None
             ) -> tuple[Action, Recorder, dict[str, Any], dict[str, Any]]:
        """The action resolved into a recorder, the dumped request, and the card's odds.
        ``parsed``: the request's entry in the parse cache (``parse_cached``): its JSON keys
        the odds and the work done once per request (``Recorder.once``)."""
        act, rec = self.recorded(request, roller, None if parsed is None else parsed.key)
        if parsed is not None and parsed.asked is not None:  # a before hook changed it:
            dumped = json_copy(parsed.asked)  # the result records the request as asked
        else:
            dumped = dump_request(request)  # pydantic's dump: quicker than copying a kept one
        odds = self.cached_odds(request, key=None if parsed is None else parsed.key
                                ) if act.odds else {}
        shown = {k: odds[k] for k in act.shown_odds if k in odds}
        if act.odds_on_card is not None and not act.odds_on_card(request):
            shown = {}
        if not rec.roller.records:  # no die decided anything: no chance on the card
            shown = {}
        if shown and act.odds_label_key and "label_key" not in shown:
            shown["label_key"] = act.odds_label_key
        return act, rec, dumped, shown

    def load_data(self) -> None:
        """Load what a first request reads beyond the ruleset's modules (its tables, validated
        once): the worker's warm-up calls it once idle after ``ready`` (``bridge.warm_up``).
        Nothing by default."""

    def odds(self, request: Any) -> dict[str, Any]:
        """Exact chances a player sees before rolling (at least ``probability`` of success)."""
        act = self.action(request.action)
        found = house.odds(self.id, request, act.odds(request) if act.odds else {})
        if act.odds_label_key and found and "label_key" not in found:  # the dialog's title too
            found = {**found, "label_key": act.odds_label_key}
        if act.rounds is not None:  # known before the dice: a shot short of rounds is refused
            found = {**found, ROUNDS_FIRED: act.rounds(request)}
        return found

    def cached_odds(self, request: BaseModel,
                    compute: Callable[[Any], dict[str, Any]] | None = None, *,
                    key: str | bytes | None = None) -> dict[str, Any]:
        """``odds`` (or ``compute``) of a validated request, computed once per distinct request
        and kept in a bounded cache (issue 17: odds were recomputed inside every resolve).
        Odds depend on nothing but the request, so the key is the request itself (``key``:
        its key in the parse cache, ``Parsed.key``, when the caller has it; else its
        ``model_dump_json()``). The dict is shared: read it, never change it (``firefight.odds``
        hands out a copy)."""
        fn = compute or self.odds
        request_key = request.model_dump_json() if key is None else key
        cache_key = (self.id, getattr(fn, "__qualname__", repr(fn)), type(request), request_key)
        found = _ODDS_CACHE.get(cache_key)
        if found is not None:
            _ODDS_CACHE.move_to_end(cache_key)
            return found
        with answering(request, request_key):  # the odds' recorder keys ``once`` by it too
            value = fn(request)
        _ODDS_CACHE[cache_key] = value
        if len(_ODDS_CACHE) > ODDS_CACHE_SIZE:
            _ODDS_CACHE.popitem(last=False)  # least recently used
        return value

    def apply(self, stats: dict[str, Any], effects: list[dict[str, Any]]) -> dict[str, Any]:
        """An actor's data after a result's effects (see ``firefight.effects``)."""
        if self.stats_model is None:
            raise FirefightError(f"ruleset {self.id!r} keeps no actor data", code="no_stats_model")
        return apply_effects(self.stats_model, stats, effects)

    def validate_item(self, data: object) -> dict[str, Any]:
        """An item's ``flags.firefight.<id>`` checked by its category's model: the data to
        store (the item's name and id are the document's own, never stored here)."""
        if not isinstance(data, dict):
            raise FirefightError("item data must be an object",
                                 fields=[("item", "expected an object")])
        category = data.get("category")
        model = self.item_models.get(category)  # type: ignore[arg-type]
        if model is not None:  # with the fields house rules add to it
            model = house.extended(self.id, str(category), model)
        if model is None:
            cats = ", ".join(self.item_models) or "none"
            what = str(data.get("category"))[:40]
            raise FirefightError(f"{self.id} has no item category {what!r}",
                                 fields=[("category", f"one of: {cats}")])
        try:
            item = model.model_validate(data)
        except ValidationError as exc:
            raise validation_error(exc, f"{self.id} {data['category']}") from None
        dumped: dict[str, Any] = item.model_dump(mode="json", by_alias=True,
                                                 exclude=set(ITEM_OWN_FIELDS))
        return dumped

    # --- what the table learns --------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "label_key": self.label_key, "actions": list(self.action_names)}

    def catalog(self) -> dict[str, Any]:
        """Everything the table needs to offer this ruleset: its dialogs, world settings,
        sheet fields, table features and house-rule steps (the ``hello`` op)."""
        settings, stats = self.settings_model, self.stats_model
        dialogs = {a.name: a.options.model_json_schema(by_alias=True)
                   for a in self.actions if a.options is not None}
        return {
            **self.describe(),
            "builtin": type(self).__module__.startswith("firefight.rulesets."),
            "default_action": self.action_names[0],
            "options": dialogs,
            "settings": settings.model_json_schema(by_alias=True) if settings else None,
            "stats": labelled(self.id, stats.model_json_schema(by_alias=True))
            if stats else None,
            "features": self.features,
            "house_steps": self.house_steps,
            "items": {cat: item_schema(self.id, model) for cat, model in self.item_models.items()},
        }


def resolve_dict(ruleset: Ruleset, request: Any, roller: Roller,
                 parsed: Parsed | None = None) -> dict[str, Any]:
    """``ruleset.resolve(request, roller).model_dump(mode="json")``, without building the
    Resolution when the ruleset keeps the core's ``resolve`` (``Recorder.result``).
    ``parsed``: the request's entry in the parse cache, when it came from there."""
    if type(ruleset).resolve is not Ruleset.resolve:  # a plugin's own resolve: honour it
        out: dict[str, Any] = ruleset.resolve(request, roller).model_dump(mode="json")
        if parsed is not None and parsed.asked is not None:  # the request as asked, as below
            out["request"] = json_copy(parsed.asked)
        return out
    act, rec, dumped, shown = ruleset._run(request, roller, parsed)
    return rec.result(request, action=act.name, odds=shown, template=ruleset.card_template,
                      dumped=dumped)


def labelled(ruleset_id: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Give every actor-data field a lang key, ``FIREFIGHT.<ruleset>.stat.<field>``."""
    for name, prop in schema.get("properties", {}).items():
        prop.setdefault("x-label-key", f"FIREFIGHT.{ruleset_id}.stat.{name}")
    return schema


# An item model's fields that the item document itself holds (its name and id).
ITEM_OWN_FIELDS = ("name", "item_id")


def item_schema(ruleset_id: str, model: type[BaseModel]) -> dict[str, Any]:
    """An item category's form: its model's schema without the document's own fields, every
    field labelled ``FIREFIGHT.<ruleset>.item.<field>.label`` and its choices
    ``….item.<field>.choices.<value>`` (a list of choices: its entries')."""
    schema = model.model_json_schema(by_alias=True)
    props = schema.get("properties", {})
    for name in (*ITEM_OWN_FIELDS, "category"):  # the category is chosen when data is added
        props.pop(name, None)
    schema["required"] = [r for r in schema.get("required", []) if r in props]
    defs = schema.get("$defs", {})

    def enum_of(node: dict[str, Any]) -> list[Any] | None:
        if "$ref" in node:
            node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
        for alt in node.get("anyOf", []):
            found = enum_of(alt)
            if found:
                return found
        return node.get("enum")

    for name, prop in props.items():
        key = f"FIREFIGHT.{ruleset_id}.item.{name}"
        prop.setdefault("x-label-key", f"{key}.label")
        holder = prop["items"] if prop.get("type") == "array" and "items" in prop else prop
        values = enum_of(holder)
        if values and "x-enum-label-keys" not in holder:
            holder["x-enum-label-keys"] = [f"{key}.choices.{v}" for v in values]
    return schema


_RULESETS: dict[str, Ruleset] = {}
# Distinct requests whose odds are kept (a table's open dialogs and a balance-lab run fit).
ODDS_CACHE_SIZE = 512
_ODDS_CACHE: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()


# Requests a table sends again and again (the same shot, its odds then its roll): each
# distinct one is validated once (issue 17). The key is the request written by ``marshal``
# (version 2: no references, so equal data is equal bytes), which keeps what JSON would blur
# (the key 1 and "1", True and 1 and 1.0, a list and a tuple) and refuses anything but plain
# data (a subclass, a Fraction): such a request is validated every time. Resolvers never change
# a request.
PARSE_CACHE_SIZE = 512


class Parsed(NamedTuple):
    ruleset: Ruleset
    model: BaseModel
    # The key of its odds and of ``Recorder.once``: the request as the parse cache keys it (the
    # model is a function of it), else ``model.model_dump_json()`` (issue 27: writing the JSON
    # was a twentieth of a new request's resolve, and the odds wrote it again).
    key: str | bytes
    # The request as asked (``dump_request`` of ``Ruleset.parse_asked``) when a house rule's
    # ``before`` hook changed it, else None. A result records it, never the hooked one: the
    # GM's client re-resolves a message's request with its dice, and a hooked request would
    # go through the hooks a second time (issue 26: a spotter's halved range halved again).
    asked: dict[str, Any] | None = None


_PARSE_CACHE: OrderedDict[bytes, Parsed] = OrderedDict()


def parse_cached(request: dict[str, Any]) -> Parsed:
    """``get(request["ruleset"]).parse(request)`` of a plain-data request, once per distinct
    one (bounded, least recently used out)."""
    try:
        key: bytes | None = marshal.dumps(request, 2)
    except (ValueError, RecursionError):  # not plain data, or nested too deep: no key
        key = None
    if key is not None:
        found = _PARSE_CACHE.get(key)
        if found is not None:
            _PARSE_CACHE.move_to_end(key)
            return found
    ruleset = get(request.get("ruleset"))
    asked = ruleset.parse_asked(request)
    model = house.before(ruleset.id, asked)
    made = Parsed(ruleset, model, model.model_dump_json() if key is None else key,
                  None if model is asked else _changed(asked, model))
    if key is not None:
        _PARSE_CACHE[key] = made
        if len(_PARSE_CACHE) > PARSE_CACHE_SIZE:
            _PARSE_CACHE.popitem(last=False)
    return made


def _changed(asked: BaseModel, model: BaseModel) -> dict[str, Any] | None:
    """``asked`` dumped when the hooks made ``model`` another request, else None."""
    dumped = dump_request(asked)
    return None if dumped == dump_request(model) else dumped


def clear_odds_cache(*_: object) -> None:
    """Forget every request's odds, every parsed request and the work ``Recorder.once``
    kept (a house rule or a ruleset registered since may validate or count it otherwise)."""
    _ODDS_CACHE.clear()
    _PARSE_CACHE.clear()
    forget_once()


def _house_registered(rule: house.HouseRule | None) -> None:
    clear_odds_cache()  # a house rule changes the odds of requests that name nothing new
    folder = package_dir(rule, "lang") if rule is not None else None
    if folder is not None:
        i18n.add_source(folder)


house._LISTENERS.append(_house_registered)


def _check(ruleset: Ruleset, *, schemas: bool = True) -> None:
    """A ruleset must declare what the core needs: fail at registration, not at the table.
    ``schemas=False``: its catalog is not built here (a built-in's, which the engine tests
    build; the ``hello`` builds it once more otherwise, issue 17 "Boot")."""
    rid = getattr(ruleset, "id", None)
    if not isinstance(rid, str) or not house.ID_PATTERN.match(rid):
        raise ValueError(f"ruleset id {rid!r}: lower-case letters, digits and _ (at most 40)")
    if not getattr(ruleset, "label_key", None):
        raise ValueError(f"ruleset {rid!r} has no label_key")
    if not ruleset.actions or not all(isinstance(a, Action) for a in ruleset.actions):
        raise ValueError(f"ruleset {rid!r} declares no actions (a tuple of firefight.Action)")
    for act in ruleset.actions:
        if not issubclass(act.request, ActionRequest):
            raise TypeError(f"ruleset {rid!r} action {act.name!r}: its request model must "
                             "subclass firefight.models.ActionRequest")
    if schemas:
        ruleset.catalog()  # its schemas must build


def register(ruleset: Ruleset, *, replace: bool = False) -> Ruleset:
    _check(ruleset)
    return _add(ruleset, replace=replace)


def _add(ruleset: Ruleset, *, replace: bool, builtin: bool = False) -> Ruleset:
    if not replace and (ruleset.id in _PENDING or (
            ruleset.id in _RULESETS and _RULESETS[ruleset.id] is not ruleset)):
        raise ValueError(f"a ruleset with id {ruleset.id!r} is already registered")
    _PENDING.pop(ruleset.id, None)
    if not builtin:  # one that replaces a built-in has its own catalog
        _CATALOGS.pop(ruleset.id, None)
    _RULESETS[ruleset.id] = ruleset
    house.declare_conditions(ruleset.id, tuple(ruleset.conditions))
    clear_odds_cache()  # a replaced ruleset's odds are not the new one's
    folder = package_dir(ruleset, "lang")
    if folder is not None:
        i18n.add_source(folder)
    templates = package_dir(ruleset, "templates")
    if templates is not None:
        TEMPLATE_DIRS[ruleset.id] = str(templates)
    return ruleset


def unregister(ruleset_id: str) -> None:
    _RULESETS.pop(ruleset_id, None)
    house.declare_conditions(ruleset_id, ())
    _PENDING.pop(ruleset_id, None)
    _CATALOGS.pop(ruleset_id, None)
    TEMPLATE_DIRS.pop(ruleset_id, None)
    clear_odds_cache()


# --- plugins and the built-ins ---------------------------------------------------------------

RULESETS_GROUP = "firefight.rulesets"
GROUPS: dict[str, tuple[type, Callable[[Any], Any]]] = {
    RULESETS_GROUP: (Ruleset, register),
    "firefight.house_rules": (house.HouseRule, house.register_house_rule),
}
# The distribution whose ``firefight.rulesets`` entry points are the built-in rulesets, each
# named by its ruleset id (pyproject.toml); every other distribution's are plugins.
ENGINE_DIST = "firefight"
# A built-in's catalog as data, in its package (tools/build_catalogs.py writes it).
CATALOG_FILE = "catalog.json"
_seen: set[tuple[str, str, str]] = set()
_status: list[dict[str, Any]] = []
_scanned = False
_installed_at_scan: frozenset[str] = frozenset()
# By built-in ruleset id: its entry point; its catalog as read from its file (dropped when a
# plugin's ruleset replaces it); and, until its first request imports it, its entry point.
_BUILTIN: dict[str, Any] = {}
_CATALOGS: dict[str, dict[str, Any]] = {}
_PENDING: dict[str, Any] = {}


def entry_points(*, group: str) -> Any:
    """importlib.metadata's entry points of `group`. Imported on first use, not with this
    module (it brings the email package): the bridge's import scans (``discover``), so the
    browser's memory snapshot holds it; the command line and the tests scan on first use."""
    from importlib.metadata import entry_points as found

    return found(group=group)


def _installed() -> frozenset[str]:
    """The distributions on ``sys.path`` by their metadata folders' names: one installed since
    (a plugin wheel loaded at the table) adds a name. A listing of each folder, no file read."""
    names: set[str] = set()
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                names.update(e.name for e in found
                             if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:  # a zip (the standard library), a folder gone
            continue
    return frozenset(names)


def rescan() -> list[dict[str, Any]]:
    """Discover plugins installed since the last scan (a wheel loaded at the table); each is
    loaded once. Returns the status of every plugin met so far. The engine's own rulesets are
    kept to import on their first request (``_builtin``), not reported as plugins."""
    global _installed_at_scan  # noqa: PLW0603 - what the scan saw, for ``refresh``
    importlib.invalidate_caches()
    _installed_at_scan = _installed()
    for group, (kind, add) in GROUPS.items():
        for ep in entry_points(group=group):
            key = (group, ep.name, ep.value)
            if key in _seen:
                continue
            _seen.add(key)
            dist = getattr(getattr(ep, "dist", None), "name", "") or ""
            if group == RULESETS_GROUP and dist == ENGINE_DIST:
                _builtin(ep)
                continue
            entry: dict[str, Any] = {"name": ep.name, "group": group, "dist": dist, "ok": True,
                                     "error": None}
            try:
                add(_instance(ep.load(), kind, ep.value))
            except Exception as exc:
                entry.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:500])
            _status.append(entry)
    return plugin_status()


def _builtin(ep: Any) -> None:
    """A built-in ruleset's entry point: its catalog read now, the ruleset imported on its
    first request (``get``). One without a catalog file (a checkout not built) is imported now."""
    _BUILTIN[ep.name] = ep
    path = catalog_file(ep.name)
    if ep.name in _RULESETS or path is None or not path.is_file():
        _PENDING[ep.name] = ep
        _import_builtin(ep.name)
        return
    _CATALOGS[ep.name] = json.loads(path.read_text(encoding="utf-8"))
    _PENDING[ep.name] = ep


def catalog_file(ruleset_id: str) -> Path | None:
    """Where a built-in ruleset's catalog data is: ``catalog.json`` in its package, found
    without importing the package."""
    ep = _BUILTIN.get(ruleset_id)
    spec = importlib.util.find_spec(ep.module) if ep is not None else None
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    return Path(folders[0]) / CATALOG_FILE if folders else None


def _import_builtin(ruleset_id: str) -> Ruleset:
    ep = _PENDING[ruleset_id]
    ruleset = _instance(ep.load(), Ruleset, ep.value)
    if ruleset.id != ruleset_id:
        raise ValueError(f"entry point {ep.name!r} = {ep.value!r} is ruleset {ruleset.id!r}")
    _check(ruleset, schemas=False)  # its catalog: the data file, kept equal by a test
    return _add(ruleset, replace=True, builtin=True)


def builtin_ids() -> list[str]:
    """The built-in rulesets' ids (the engine's own entry points)."""
    discover()
    return sorted(_BUILTIN)


def catalog_text(catalog: dict[str, Any]) -> str:
    """A built-in's catalog as its data file holds it (tools/build_catalogs.py)."""
    return json.dumps(catalog, indent=1, ensure_ascii=False) + "\n"


def _instance(obj: Any, kind: type, where: str) -> Any:
    made = obj() if isinstance(obj, type) else obj
    if not isinstance(made, kind):
        raise TypeError(f"{where} is not a firefight {kind.__name__}")
    return made


def plugin_status() -> list[dict[str, Any]]:
    return [dict(s) for s in _status]


def discover() -> None:
    """The first scan of the installed rulesets and house rules (once; every lookup asks for
    it). The bridge asks at its import, so the browser's memory snapshot holds the scan."""
    global _scanned  # noqa: PLW0603 - one-time discovery
    if _scanned:
        return
    _scanned = True
    rescan()


def refresh() -> None:
    """``discover``, then a scan again if a distribution was installed since the last one
    (the ``hello``: a plugin wheel the worker loaded after the engine's import)."""
    discover()
    if _installed() != _installed_at_scan:
        rescan()


def get(ruleset_id: object) -> Ruleset:
    discover()
    if isinstance(ruleset_id, str):
        found = _RULESETS.get(ruleset_id)
        if found is not None:
            return found
        if ruleset_id in _PENDING:
            return _import_builtin(ruleset_id)  # its first request
    raise FirefightError(
        f"unknown ruleset {str(ruleset_id)[:40]!r}",
        code="unknown_ruleset",
        fields=[("ruleset", f"must be one of: {', '.join(ruleset_ids())}")],
    )


def ruleset_ids() -> list[str]:
    """Every ruleset's id, sorted: the registered ones and the built-ins not imported yet."""
    discover()
    return sorted({*_RULESETS, *_PENDING})


def all_rulesets() -> list[Ruleset]:
    """Every ruleset, sorted by id (the built-ins imported)."""
    return [get(k) for k in ruleset_ids()]


def ruleset_catalog(ruleset_id: str) -> dict[str, Any]:
    """A ruleset's catalog (``Ruleset.catalog``): a built-in's from its data file, imported or
    not (tests/engine/test_catalog_data.py keeps the files equal to the computed ones); a
    plugin's computed."""
    discover()
    kept = _CATALOGS.get(ruleset_id)
    found: dict[str, Any] = json_copy(kept) if kept is not None else get(ruleset_id).catalog()
    return with_house_fields(ruleset_id, found)


def with_house_fields(ruleset_id: str, catalog: dict[str, Any]) -> dict[str, Any]:
    """A ruleset's catalog with the fields its house rules add to its actors' data and items
    (the sheet's and the item sheet's Firefight tabs) and the conditions declared for it."""
    declared = house.conditions(ruleset_id)
    if declared:
        catalog["conditions"] = [c.model_dump() for c in declared.values()]
    stats = house.added_model(ruleset_id, "stats")
    if stats is not None and catalog.get("stats") is not None:
        added = stats.model_json_schema(by_alias=True)
        catalog["stats"]["properties"].update(added.get("properties", {}))
        catalog["stats"].setdefault("$defs", {}).update(added.get("$defs", {}))
    for category, form in (catalog.get("items") or {}).items():
        model = house.added_model(ruleset_id, category)
        if model is not None:
            added = item_schema(ruleset_id, model)
            form["properties"].update(added.get("properties", {}))
            form.setdefault("$defs", {}).update(added.get("$defs", {}))
    return catalog


def apply_with_house_fields(ruleset: Ruleset, stats: dict[str, Any],
                            effects: list[dict[str, Any]]) -> dict[str, Any]:
    """``ruleset.apply``, the fields house rules add to the actor's data (its conditions
    too) kept apart from the ruleset's own: the ruleset applies the rest of the effects."""
    added = house.added_model(ruleset.id, "stats")
    if added is None:
        return ruleset.apply(stats, effects)
    names = set(added.model_fields)
    mine = [e for e in effects if e.get("kind") in names | {CONDITION_SET, CONDITION_END}]
    out = ruleset.apply({k: v for k, v in stats.items() if k not in names},
                        [e for e in effects if e not in mine])
    part = apply_effects(added, {k: v for k, v in stats.items() if k in names}, mine)
    changed = {c["field"] for c in part["changes"]}
    out["stats"].update({k: v for k, v in part["stats"].items() if k in stats or k in changed})
    out["changes"] += part["changes"]
    out["conditions"] += part["conditions"]
    return out


def json_copy(value: Any) -> Any:
    """A copy of JSON-ready data (dicts, lists, scalars): copy.deepcopy is several times
    slower."""
    kind = type(value)
    if kind is dict:
        out = dict(value)  # scalars copied at C speed; only dicts and lists go deeper
        for k, v in out.items():
            if type(v) in _NESTED:
                out[k] = json_copy(v)
        return out
    if kind is list:
        return [json_copy(v) if type(v) in _NESTED else v for v in value]
    return value


_NESTED = frozenset({dict, list})
