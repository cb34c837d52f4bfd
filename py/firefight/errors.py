"""Errors the engine reports to players and referees as data, never as tracebacks.

Each field at fault carries, besides the engine's English ``reason``, a lang key and its
parameters (``FIREFIGHT.error.type.<pydantic error type>``) and, where the field is an actor's
data, a dialog option or a world setting of a ruleset, the lang key of its label: the table
shows the error in the client's language, naming the field as the sheet or dialog does."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from firefight.i18n import strings

# A field: (path, English reason) or (path, English reason, {key, params, label_key}).
FieldAtFault = tuple[str, str] | tuple[str, str, Mapping[str, Any]]
# The pydantic error types the lang files word (FIREFIGHT.error.type.<type>); any other is
# shown as "invalid value" with the engine's reason.
ERROR_TYPES = frozenset({
    "missing", "extra_forbidden", "less_than_equal", "less_than", "greater_than_equal",
    "greater_than", "int_parsing", "int_type", "int_from_float", "float_parsing", "float_type",
    "finite_number", "bool_parsing", "bool_type", "string_type", "string_too_long",
    "string_too_short", "too_long", "too_short", "literal_error", "enum", "dict_type",
    "model_type", "list_type", "multiple_of", "value_error"})
ERROR_KEY = "FIREFIGHT.error.type."  # + the type


class FirefightError(Exception):
    """A problem with a request that a person can fix; carries the fields at fault. ``key`` and
    ``params`` word the message in the lang files (else the English ``message`` is shown)."""

    code = "invalid_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        fields: Sequence[FieldAtFault] = (),
        key: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.fields = list(fields)
        self.key = key
        self.params = dict(params or {})

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "code": self.code,
            "message": self.message,
            "fields": [{"field": f[0], "reason": f[1], **(dict(f[2]) if len(f) > 2 else {})}
                       for f in self.fields],
        }
        if self.key:
            out.update(key=self.key, params=self.params)
        return out


class RuleRefusalError(FirefightError):
    """The rules forbid the action (out of range, sniper without a scope, ...)."""

    code = "refused"


def rule_error(ruleset: str, name: str, message: str, field: str, reason: str, /, *,
               refused: bool = True, **params: Any) -> FirefightError:
    """A ruleset's refusal (``refused``: the rules forbid it) or a request missing what a rule
    needs, worded by the ruleset's lang keys ``FIREFIGHT.<ruleset>.error.<name>.message`` and
    ``.field`` (the field's reason) with ``params``; the English ``message`` and ``reason`` stay
    the fallback. The field at fault carries the lang key of its label where one is known."""
    key = f"FIREFIGHT.{ruleset}.error.{name}"
    extra: dict[str, Any] = {"key": f"{key}.field", "params": params}
    label = label_key(re.split(r"[.\[]", field), ruleset)
    if label:
        extra["label_key"] = label
    cls = RuleRefusalError if refused else FirefightError
    return cls(message, fields=[(field, reason, extra)], key=f"{key}.message", params=params)


# Stand-ins for a thing without a name, said in the table's language: FIREFIGHT.error.unnamed.<what>
# (German asks for the dative after "von": weaponDative).
UNNAMED = {"weapon": "the weapon", "weaponDative": "the weapon", "unit": "the unit",
           "attacker": "the attacker", "target": "the target"}


def named(name: str | None, what: str) -> tuple[str, str | dict[str, str]]:
    """A thing's name in an error: (English text, lang parameter of rule_error): its own name
    twice, or the stand-in UNNAMED[what] and its lang key, which the table says in its language
    (a parameter ``{key, fallback}``; i18n ``fill`` and the shim's ``t`` say it)."""
    if name:
        return name, name
    return UNNAMED[what], {"key": f"FIREFIGHT.error.unnamed.{what}", "fallback": UNNAMED[what]}


def field_path(loc: Sequence[int | str]) -> str:
    """A validation error's location as the request spells it: ``targets[0].stats.hp``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "request"


def label_key(loc: Sequence[int | str], ruleset: str | None, stats: bool = False) -> str | None:
    """The lang key of a ruleset's field a location ends in, by the rulesets' conventions:
    actor data ``FIREFIGHT.<id>.stat.<field>`` (``registry.labelled``; ``stats``: the location
    is in the actor's data itself), options and settings ``FIREFIGHT.<id>.opt.<field>.label``
    (``models.OptionLabels``), a request's own field as its dialog labels it
    (``i18n.label_request_fields``), an item's field by the item sheet's label wherever the
    request holds the item (``weapon.automatic``, ``registry.item_schema``). None where no such
    key is known (the path names it)."""
    if not ruleset:
        return None
    parts = [p for p in loc if isinstance(p, str)]
    key = None
    if stats and parts:
        key = f"FIREFIGHT.{ruleset}.stat.{parts[0]}"
    elif len(parts) == 1:
        key = next((k for k in (f"FIREFIGHT.{ruleset}.opt.{parts[0]}.label",
                                f"FIREFIGHT.{ruleset}.item.{parts[0]}.label")
                    if k in strings("en")), None)
    for i, part in enumerate(parts[:-1]):
        if part == "stats":
            key = f"FIREFIGHT.{ruleset}.stat.{parts[i + 1]}"
        elif part in ("options", "settings"):
            key = f"FIREFIGHT.{ruleset}.opt.{parts[i + 1]}.label"
    if key is None and len(parts) > 1:  # an item's field where the request holds the item
        key = f"FIREFIGHT.{ruleset}.item.{parts[-1]}.label"  # (weapon.automatic)
    return key if key and key in strings("en") else None


def _params(error: Mapping[str, Any]) -> dict[str, Any]:
    """A pydantic error's context as lang parameters: numbers and short strings; a literal's
    expected values as a plain list (pydantic's "'a' or 'b'" is English)."""
    ctx = error.get("ctx") or {}
    out: dict[str, Any] = {}
    for k, v in ctx.items():
        if isinstance(v, bool) or not isinstance(v, int | float | str):
            continue
        if k == "expected" and isinstance(v, str):
            out[k] = (", ".join(re.findall(r"'([^']*)'", v)) or v)[:200]
        else:
            out[k] = v if not isinstance(v, str) else v[:200]
    out["reason"] = str(error.get("msg", ""))[:300]
    return out


def error_field(error: Mapping[str, Any], loc: Sequence[int | str] | None = None,
                ruleset: str | None = None, stats: bool = False) -> FieldAtFault:
    """One pydantic error as a field at fault: path, English reason, key, params, label key."""
    where = tuple(error["loc"]) if loc is None else tuple(loc)
    kind = str(error.get("type", ""))
    extra: dict[str, Any] = {
        "key": ERROR_KEY + (kind if kind in ERROR_TYPES else "invalid"),
        "params": _params(error),
    }
    label = label_key(where, ruleset, stats)
    if label:
        extra["label_key"] = label
    return (field_path(where), str(error.get("msg", "")), extra)


def validation_error(exc: Any, what: str, *, ruleset: str | None = None) -> FirefightError:
    """A pydantic ``ValidationError`` as a FirefightError naming each bad field (with the
    ruleset, by the lang key of its label too)."""
    fields = [error_field(e, ruleset=ruleset) for e in exc.errors(include_url=False)]
    first = f"{fields[0][0]}: {fields[0][1]}" if fields else "invalid"
    return FirefightError(f"invalid {what} request ({first})", fields=fields,
                          key="FIREFIGHT.error.invalid", params={"count": len(fields)})


def with_stat_labels(exc: FirefightError, ruleset: str) -> FirefightError:
    """An error in an actor's data (validated without its ruleset's name): each field gets
    the lang key of its label on the sheet, ``FIREFIGHT.<id>.stat.<field>``."""
    fields: list[FieldAtFault] = []
    for f in exc.fields:
        extra = dict(f[2]) if len(f) > 2 else {}
        key = label_key(re.split(r"[.\[]", f[0]), ruleset, stats=True)
        if key and "label_key" not in extra:
            extra["label_key"] = key
        fields.append((f[0], f[1], extra) if extra else (f[0], f[1]))
    exc.fields = fields
    return exc


def with_item_labels(exc: FirefightError, ruleset: str) -> FirefightError:
    """An error in an item's data: each field gets the lang key of its label on the item sheet,
    ``FIREFIGHT.<id>.item.<top field>.label`` (``registry.item_schema``)."""
    fields: list[FieldAtFault] = []
    for f in exc.fields:
        extra = dict(f[2]) if len(f) > 2 else {}
        key = f"FIREFIGHT.{ruleset}.item.{re.split(r'[.[]', f[0])[0]}.label"
        if key in strings("en") and "label_key" not in extra:
            extra["label_key"] = key
        fields.append((f[0], f[1], extra) if extra else (f[0], f[1]))
    exc.fields = fields
    return exc
