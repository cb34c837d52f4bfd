"""Errors the engine reports to players and referees as data, never as tracebacks."""

from __future__ import annotations

from collections.abc import Sequence


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
