"""Errors the engine reports to players and referees as data, never as tracebacks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class FirefightError(Exception):
    """A problem with a request that a person can fix; carries the fields at fault."""

    code = "invalid_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        fields: Sequence[tuple[str, str]] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.fields = list(fields)

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message": self.message,
            "fields": [{"field": f, "reason": r} for f, r in self.fields],
        }


class RuleRefusalError(FirefightError):
    """The rules forbid the action (out of range, sniper without a scope, ...)."""

    code = "refused"


def field_path(loc: Sequence[int | str]) -> str:
    """A validation error's location as the request spells it: ``targets[0].stats.hp``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "request"


def validation_error(exc: Any, what: str) -> FirefightError:
    """A pydantic ``ValidationError`` as a FirefightError naming each bad field."""
    fields = [(field_path(tuple(e["loc"])), e["msg"]) for e in exc.errors(include_url=False)]
    first = f"{fields[0][0]}: {fields[0][1]}" if fields else "invalid"
    return FirefightError(f"invalid {what} request ({first})", fields=fields)
