"""House rules: a modifier, a dialog option or an optional rule added to an existing ruleset from
outside, without forking it.

A house rule names the ruleset and actions it joins, a model of its dialog options and one of
its world settings, and returns modifiers for the steps the ruleset opens to house rules
(``Ruleset.house_steps``). The ruleset's ledgers ask ``modifiers()`` for each such step, so the
odds and the roll both see them, and the card shows them with their source like any other.
A request carries the choices as ``house: {"<rule id>": {"options": {...}, "settings": {...}}}``.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from firefight.errors import FirefightError
from firefight.models import Modifier

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

    def modifiers(self, step: str, request: Any, options: Any, settings: Any
                  ) -> list[Modifier]:
        """Modifiers for one step of a request (``options``/``settings``: validated models,
        or None when the rule has no such model)."""
        return []

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id, "ruleset": self.ruleset, "label_key": self.label_key,
            "actions": list(self.actions),
            "options": self.options_model.model_json_schema(by_alias=True)
            if self.options_model else None,
            "settings": self.settings_model.model_json_schema(by_alias=True)
            if self.settings_model else None,
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
    _RULES[rule.id] = rule
    for listener in _LISTENERS:
        listener(rule)
    return rule


def unregister_house_rule(rule_id: str) -> None:
    _RULES.pop(rule_id, None)
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
    if not _RULES:  # none registered (the usual table): asked twice a shot
        return []
    action = getattr(request, "action", "")
    chosen: dict[str, Any] = getattr(request, "house", None) or {}
    out: list[Modifier] = []
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
