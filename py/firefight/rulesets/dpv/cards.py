"""The chat card of every dpv action: its title (``FIREFIGHT.dpv.card.<action>``) names who
acts, on whom, and with what."""

from __future__ import annotations

from typing import Any

from firefight.record import Recorder
from firefight.rulesets.dpv.models import DpvRequest

ROLES = ("attacker", "target", "actor", "patient", "medic")


def title(rec: Recorder, request: DpvRequest, **params: Any) -> None:
    """The card's title and its names: the request's people, its weapon (or the thing it
    names), and ``params`` an action adds."""
    fields = request.__dict__  # a model's own fields: no attribute errors raised and caught
    names: dict[str, Any] = {}
    for role in ROLES:
        who = fields.get(role)
        if who is not None and hasattr(who, "name"):
            names[role] = who.name
    weapon = fields.get("weapon")
    names["weapon"] = weapon.name if weapon is not None else fields.get("name", "")
    rec.card(request.action, **names, **params)
