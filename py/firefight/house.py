"""House rules: a modifier, a dialog option or an optional rule added to an existing ruleset from
outside, without forking it.

A house rule names the ruleset and actions it joins, a model of its dialog options and one of
its world settings, and returns modifiers for the steps the ruleset opens to house rules
(``Ruleset.house_steps``). The ruleset's ledgers ask ``modifiers()`` for each such step, so the
odds and the roll both see them, and the card shows them with their source like any other.
A request carries the choices as ``house: {"<rule id>": {"options": {...}, "settings": {...}}}``.

As pf2e's rule elements do, a house rule may also add validated fields to the ruleset's item
categories and actor data (``item_fields``, ``stats_fields``: the request, the item sheet and
the actor's Firefight tab take them), declare conditions (``Condition``: modifiers an actor
carries until its turn, the round or the next result ends them; a ruleset declares its own in
``Ruleset.conditions``), and hook around the resolution: ``before`` changes the request the odds
and the roll both see, ``after`` records on the result's recorder, ``odds`` keeps the chances
exact when ``after`` changes them.
"""

from __future__ import annotations

import copy
import re
import types
from typing import Annotated, Any, ClassVar, Literal, Union, cast, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    create_model,
    model_serializer,
)

from firefight.errors import FirefightError, validation_error
from firefight.models import CONDITIONS_FIELD, CONDITIONS_MAX, Condition, Modifier, Strict

ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class HouseRule:
    """Subclass it, fill the class attributes, return modifiers; register with
    ``firefight.register_house_rule`` or the ``firefight.house_rules`` entry-point group."""

    id: ClassVar[str]
    ruleset: ClassVar[str]
    label_key: ClassVar[str] = ""
    actions: ClassVar[tuple[str, ...]] = ("attack",)
    options_model: ClassVar[type[BaseModel] | None] = None  # fields added to the dialog
    settings_model: ClassVar[type[BaseModel] | None] = None  # world settings
    # Fields added to an item category's data (``flags.firefight.<ruleset>`` of the item), by
    # category ("weapon"): validated in every request, shown on the item sheet's Firefight tab.
    item_fields: ClassVar[dict[str, type[BaseModel]]] = {}
    # Fields added to the actor's data (``flags.firefight.<ruleset>``; the sheet's tab).
    stats_fields: ClassVar[type[BaseModel] | None] = None
    # Conditions the rule declares (set by ``Recorder.condition``, kept in the actor's data).
    conditions: ClassVar[tuple[Condition, ...]] = ()

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        """Modifiers for one step of a request (``options``/``settings``: validated models,
        or None when the rule has no such model)."""
        return []

    def before(self, request: Any, options: Any, settings: Any) -> Any:
        """The request to resolve, before the odds and the roll (both see what it returns:
        ``request.model_copy(update=...)``; validated again by the action's model). The result
        records the request as asked, so re-resolving it runs this once again: it must depend
        on the request, options and settings alone."""
        return request

    def after(self, request: Any, rec: Any, options: Any, settings: Any) -> None:
        """After the ruleset's resolver, on its ``Recorder``: record effects, notes,
        conditions (``rec.condition``), or roll more dice. One that changes the chance of
        the outcome the odds report must change ``odds`` to match."""

    def odds(self, request: Any, odds: dict[str, Any], options: Any, settings: Any
             ) -> dict[str, Any]:
        """The action's exact odds with what ``after`` does (the ruleset's, unchanged)."""
        return odds

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id, "ruleset": self.ruleset, "label_key": self.label_key,
            "actions": list(self.actions),
            "options": self.options_model.model_json_schema(by_alias=True)
            if self.options_model else None,
            "settings": self.settings_model.model_json_schema(by_alias=True)
            if self.settings_model else None,
            "conditions": [c.model_dump() for c in self.conditions],
        }


_RULES: dict[str, HouseRule] = {}
# Called after a rule is registered (the registry clears its odds cache and adds lang files).
_LISTENERS: list[Any] = []


def register_house_rule(rule: HouseRule, *, replace: bool = False) -> HouseRule:
    for name in ("id", "ruleset"):
        value = getattr(rule, name, None)
        if not isinstance(value, str) or not ID_PATTERN.match(value):
            raise ValueError(f"house rule {name} {value!r}: lower-case letters, digits and _")
    if not replace and rule.id in _RULES and _RULES[rule.id] is not rule:
        raise ValueError(f"a house rule with id {rule.id!r} is already registered")
    rule.describe()  # its schemas must build: fail here, not in every dialog
    for cond in rule.conditions:
        if not isinstance(cond, Condition):
            raise TypeError(f"house rule {rule.id!r}: conditions must be firefight Conditions")
    _RULES[rule.id] = rule
    _EXTENDED.clear()
    for listener in _LISTENERS:
        listener(rule)
    return rule


def unregister_house_rule(rule_id: str) -> None:
    _RULES.pop(rule_id, None)
    _EXTENDED.clear()
    for listener in _LISTENERS:
        listener(None)


def house_rules(ruleset_id: str | None = None) -> list[HouseRule]:
    return [r for k, r in sorted(_RULES.items()) if ruleset_id in (None, r.ruleset)]


def _parsed(rule: HouseRule, choice: Any) -> tuple[Any, Any]:
    raw = choice if isinstance(choice, dict) else {}
    out: list[Any] = []
    for part, model in (("options", rule.options_model), ("settings", rule.settings_model)):
        data = raw.get(part) or {}
        if model is None:
            if data:
                raise FirefightError(f"house rule {rule.id!r} has no {part}",
                                     fields=[(f"house.{rule.id}.{part}", "not expected")])
            out.append(None)
            continue
        try:
            out.append(model.model_validate(data))
        except ValidationError as exc:
            fields = [(".".join(["house", rule.id, part, *map(str, e["loc"])]), e["msg"])
                      for e in exc.errors(include_url=False)]
            raise FirefightError(f"invalid house rule {rule.id} ({fields[0][0]}: "
                                 f"{fields[0][1]})", fields=fields) from None
    return out[0], out[1]


def validate(ruleset_id: str, action: str, house: dict[str, Any]) -> None:
    """Every rule a request names exists for its ruleset and action, its choices valid."""
    for rule_id, choice in house.items():
        rule = _RULES.get(rule_id)
        if rule is None or rule.ruleset != ruleset_id or action not in rule.actions:
            raise FirefightError(f"no house rule {rule_id!r} for {ruleset_id} {action}",
                                 fields=[(f"house.{rule_id}", "not a house rule of this action")])
        _parsed(rule, _plain(choice))


def modifiers(ruleset_id: str, step: str, request: Any) -> list[Modifier]:
    """The house rules' modifiers for one step of a (validated) request."""
    if not _RULES and not _RULESET_CONDITIONS:  # none (the usual table): asked twice a shot
        return []
    action = getattr(request, "action", "")
    chosen: dict[str, Any] = getattr(request, "house", None) or {}
    out: list[Modifier] = condition_modifiers(ruleset_id, step, request)
    for rule in house_rules(ruleset_id):
        if action not in rule.actions:
            continue
        options, settings = _parsed(rule, _plain(chosen.get(rule.id)))
        for mod in rule.modifiers(step, request, options, settings):
            if not isinstance(mod, Modifier) or mod.step != step:
                raise FirefightError(f"house rule {rule.id!r} returned a modifier for another "
                                     f"step than {step!r}", code="plugin_error")
            out.append(mod if mod.source else mod.model_copy(
                update={"source": f"house rule: {rule.id}"}))
    return out


def _plain(choice: Any) -> Any:
    return choice.model_dump() if isinstance(choice, BaseModel) else choice


# --- hooks around the resolution ---------------------------------------------------------------

def _hooked(ruleset_id: str, request: Any, hook: str) -> list[tuple[HouseRule, Any, Any]]:
    """The rules of the request's ruleset and action that override ``hook``, with their
    validated options and settings."""
    if not _RULES:
        return []
    action = getattr(request, "action", "")
    chosen: dict[str, Any] = getattr(request, "house", None) or {}
    return [(rule, *_parsed(rule, _plain(chosen.get(rule.id))))
            for rule in house_rules(ruleset_id)
            if action in rule.actions and getattr(type(rule), hook) is not getattr(HouseRule, hook)]


def before(ruleset_id: str, request: BaseModel) -> BaseModel:
    """The request after every rule's ``before``, validated again by its own model."""
    for rule, options, settings in _hooked(ruleset_id, request, "before"):
        changed = rule.before(request, options, settings)
        if not isinstance(changed, type(request)):
            raise FirefightError(f"house rule {rule.id!r}: before() must return the request",
                                 code="plugin_error")
        try:
            request = type(request).model_validate(changed.model_dump(by_alias=True))
        except ValidationError as exc:
            raise validation_error(exc, f"{ruleset_id} (house rule {rule.id})",
                                   ruleset=ruleset_id) from None
    return request


def has_after(ruleset_id: str, request: BaseModel) -> bool:
    """Whether a rule's ``after`` hook runs for this request (the balance lab's fast path
    knows no hooks)."""
    return bool(_hooked(ruleset_id, request, "after"))


def after(ruleset_id: str, request: BaseModel, rec: Any) -> None:
    for rule, options, settings in _hooked(ruleset_id, request, "after"):
        rule.after(request, rec, options, settings)


def odds(ruleset_id: str, request: BaseModel, found: dict[str, Any]) -> dict[str, Any]:
    for rule, options, settings in _hooked(ruleset_id, request, "odds"):
        found = rule.odds(request, dict(found), options, settings)
    return found


# --- conditions ----------------------------------------------------------------------------------

# A ruleset's own conditions (``Ruleset.conditions``), by ruleset id (the registry fills it).
_RULESET_CONDITIONS: dict[str, tuple[Condition, ...]] = {}


def declare_conditions(ruleset_id: str, conditions: tuple[Condition, ...]) -> None:
    if conditions:
        _RULESET_CONDITIONS[ruleset_id] = tuple(conditions)
    else:
        _RULESET_CONDITIONS.pop(ruleset_id, None)
    _EXTENDED.clear()


def conditions(ruleset_id: str) -> dict[str, Condition]:
    """Every condition declared for a ruleset (its own, then its house rules'), by id."""
    found = {c.id: c for c in _RULESET_CONDITIONS.get(ruleset_id, ())}
    for rule in house_rules(ruleset_id):
        for cond in rule.conditions:
            found.setdefault(cond.id, cond)
    return found


def condition_modifiers(ruleset_id: str, step: str, request: Any) -> list[Modifier]:
    """The modifiers the conditions of the request's attacker and target add to ``step``."""
    declared = conditions(ruleset_id)
    out: list[Modifier] = []
    if not declared:
        return out
    for side in ("attacker", "target"):
        stats = getattr(getattr(request, side, None), "stats", None)
        for cid in getattr(stats, CONDITIONS_FIELD, None) or ():
            cond = declared.get(cid)
            for m in cond.modifiers if cond is not None else ():
                if m.step == step and m.side == side:
                    out.append(Modifier(key=m.key or cond.label_key, value=m.value,  # type: ignore[union-attr]
                                        source=cond.source or f"condition: {cid}",  # type: ignore[union-attr]
                                        step=step, side=side, params={"condition": cid}))
    return out


def ended_by_apply(ruleset_id: str, modifiers: list[Modifier]) -> list[tuple[str, str]]:
    """(side, condition id) of each condition ending "apply" whose modifiers a result
    recorded: the result ends it."""
    out: list[tuple[str, str]] = []
    if not _RULES and not _RULESET_CONDITIONS:
        return out
    declared = conditions(ruleset_id)
    for mod in modifiers:
        cid = mod.params.get("condition") if mod.params else None
        cond = declared.get(cid) if isinstance(cid, str) else None
        if cond is not None and cond.ends == "apply" and (mod.side, cond.id) not in out:
            out.append((mod.side, cond.id))
    return out


# --- fields added to items and actors -----------------------------------------------------------

# Extended models, by (model, what it is extended with): rebuilt when a rule registers.
_EXTENDED: dict[Any, type[BaseModel] | None] = {}


def _labelled(info: Any, key: str) -> Any:
    """A copy of a field's info with its lang key (the rule's own namespace) when it has none."""
    made = copy.copy(info)
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    made.json_schema_extra = {"x-label-key": key, **extra}
    return made


def _held_once(ids: list[str]) -> list[str]:
    if len(set(ids)) != len(ids):
        raise ValueError("each condition at most once")
    return ids


def _conditions_field(ruleset_id: str) -> dict[str, Any]:
    """The actor-data field of the conditions declared for a ruleset: a set of their ids
    (``uniqueItems``: the sheet draws a checkbox per condition, labelled by its ``label_key``)."""
    ids = tuple(conditions(ruleset_id))
    if not ids:
        return {}
    keys = [c.label_key for c in conditions(ruleset_id).values()]
    kind = Literal[ids]  # type: ignore[valid-type]
    return {CONDITIONS_FIELD: (Annotated[list[Annotated[kind, Field(json_schema_extra={
        "x-enum-label-keys": keys})]], AfterValidator(_held_once)], Field(
            default_factory=list, max_length=CONDITIONS_MAX,
            json_schema_extra={"x-label-key": "FIREFIGHT.condition.field", "uniqueItems": True}))}


def added_fields(ruleset_id: str, kind: str) -> dict[str, Any]:
    """The fields the house rules (and conditions) add to ``kind``: "stats" (the actor's data)
    or an item category, as ``create_model`` takes them, each labelled in its rule's namespace
    (``FIREFIGHT.<rule>.stat.<field>``, ``FIREFIGHT.<rule>.item.<field>.label``)."""
    fields: dict[str, Any] = _conditions_field(ruleset_id) if kind == "stats" else {}
    for rule in house_rules(ruleset_id):
        model = rule.stats_fields if kind == "stats" else rule.item_fields.get(kind)
        for name, info in (model.model_fields.items() if model is not None else ()):
            if name in fields:
                raise ValueError(f"house rule {rule.id!r}: {kind} field {name!r} is added twice")
            key = (f"FIREFIGHT.{rule.id}.stat.{name}" if kind == "stats"
                   else f"FIREFIGHT.{rule.id}.item.{name}.label")
            fields[name] = (info.annotation, _labelled(info, key))
    return fields


class _Added(BaseModel):
    """The base of an extended model: the fields house rules added are dumped only when set,
    so a request or an actor that names none of them is dumped as it always was."""

    __added__: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _unset_added_left_out(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            # (a plain instance may stand where the extended model is: it has none to leave out)
            for name in getattr(self, "__added__", frozenset()) - self.model_fields_set:
                data.pop(name, None)
        return data


def added_model(ruleset_id: str, kind: str) -> type[BaseModel] | None:
    """The fields the house rules add to ``kind`` as a model of their own (None: no field)."""
    if not _RULES and ruleset_id not in _RULESET_CONDITIONS:
        return None
    key = (ruleset_id, kind, None)
    if key not in _EXTENDED:
        fields = added_fields(ruleset_id, kind)
        _EXTENDED[key] = create_model(
            f"Added_{kind}", __base__=Strict, **fields) if fields else None
    return _EXTENDED[key]


def extended(ruleset_id: str, kind: str, model: type[BaseModel]) -> type[BaseModel]:
    """``model`` (the ruleset's stats model or an item category's) with the fields the house
    rules add to it; ``model`` itself when none does."""
    if not _RULES and ruleset_id not in _RULESET_CONDITIONS:
        return model
    key = (ruleset_id, kind, model)
    found = _EXTENDED.get(key)
    if found is None:
        fields = added_fields(ruleset_id, kind)
        for name in fields:
            if name in model.model_fields:
                raise FirefightError(f"a house rule adds {name!r}, already a field of "
                                     f"{model.__name__}", code="plugin_error")
        found = _EXTENDED[key] = create_model(
            model.__name__, __base__=(model, _Added), __module__=model.__module__, **fields
        ) if fields else model
        if found is not model:
            cast("type[_Added]", found).__added__ = frozenset(fields)
    return found


def request_model(ruleset_id: str, request: type[BaseModel], stats: type[BaseModel] | None,
                  items: dict[str, type[BaseModel]]) -> type[BaseModel]:
    """An action's request model in which the ruleset's stats and item models are the
    extended ones (``extended``), wherever they are nested; ``request`` when nothing is."""
    if not _RULES and ruleset_id not in _RULESET_CONDITIONS:
        return request
    key = (ruleset_id, "request", request)
    found = _EXTENDED.get(key)
    if found is None:
        swap: dict[Any, Any] = {}
        if stats is not None:
            swap[stats] = extended(ruleset_id, "stats", stats)
        for cat, model in items.items():
            swap[model] = extended(ruleset_id, cat, model)
        swap = {k: v for k, v in swap.items() if k is not v}
        found = _EXTENDED[key] = _swapped(request, swap, {}) if swap else request
    return found


def _swapped(model: type[BaseModel], swap: dict[Any, Any], seen: dict[Any, Any]
             ) -> type[BaseModel]:
    """``model`` rebuilt (a subclass) with the swapped models in its fields' types."""
    if model in seen:
        return seen[model]  # type: ignore[no-any-return]
    seen[model] = model  # a model that nests itself stays as it is
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        ann = _swap_type(info.annotation, swap, seen)
        if ann is not info.annotation:
            made = copy.copy(info)
            made.annotation = ann
            factory = info.default_factory  # ``Field(default_factory=SoeCombatant)``: rebuilt too
            rebuilt = swap.get(factory) or seen.get(factory)
            if rebuilt is not None and rebuilt is not factory:
                made.default_factory = rebuilt
            fields[name] = (ann, made)
    found: type[BaseModel] = create_model(
        model.__name__, __base__=model, __module__=model.__module__, **fields) if fields else model
    seen[model] = found
    return found


def _swap_type(ann: Any, swap: dict[Any, Any], seen: dict[Any, Any]  # noqa: PLR0911
               ) -> Any:
    """A field's type with the swapped models in it (a model, Optional, a union, a list...)."""
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return swap.get(ann) or _swapped(ann, swap, seen)
    origin, args = get_origin(ann), get_args(ann)
    if origin is None or not args:
        return ann
    new = tuple(_swap_type(a, swap, seen) for a in args)
    if all(a is b for a, b in zip(new, args, strict=True)):
        return ann
    if origin is Annotated:
        return Annotated[(new[0], *ann.__metadata__)]
    if origin in (Union, types.UnionType):
        return Union[new]  # noqa: UP007 - a runtime tuple
    if origin in (list, tuple, dict, set, frozenset):
        return origin[new]
    return ann
