"""The browser bridge: JSON string in, JSON string out. The one module the Web Worker calls.

Nothing here imports ``js`` or ``pyodide``: the worker passes strings, so the same function is
tested on CPython. Every failure, even an unexpected one, comes back as an error reply.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from typing import Any

import firefight
from firefight.dice import DiceSource, EntropyDice, ScriptedDice
from firefight.errors import FirefightError


def _dice(msg: dict[str, Any]) -> DiceSource | None:
    """``entropy``: uniforms from the VTT (always, even when one is exactly 0); ``faces``: the
    recorded faces of a result, to replay it (the GM's check before applying)."""
    entropy, faces = msg.get("entropy"), msg.get("faces")
    if faces is not None:
        if not isinstance(faces, list) or not all(
                isinstance(f, int) and not isinstance(f, bool) for f in faces):
            raise FirefightError("faces must be a list of whole numbers",
                                 fields=[("faces", "expected a list of die faces")])
        return ScriptedDice(faces)
    if entropy is None:
        return None
    if not isinstance(entropy, list) or not all(
            isinstance(u, int | float) and not isinstance(u, bool) for u in entropy):
        raise FirefightError("entropy must be a list of numbers in [0, 1)",
                             fields=[("entropy", "expected a list of numbers")])
    return EntropyDice([float(u) for u in entropy])


def _resolve(msg: dict[str, Any]) -> Any:
    result = firefight.resolve(msg.get("request"), dice=_dice(msg))  # type: ignore[arg-type]
    if "error" in result:
        return result
    lang = str(msg.get("lang", "en"))
    reply: dict[str, Any] = {
        "result": result,
        "html": firefight.render_card(result, fmt="html", lang=lang, view="player"),
        "text": firefight.render_card(result, fmt="text", lang=lang, view="player"),
    }
    if result.get("outcome", {}).get("hidden"):
        # Uncertain tasks: the table whispers the full card to the GM and keeps the referee's
        # dice off the public message.
        reply["gm_html"] = firefight.render_card(result, fmt="html", lang=lang)
        reply["hidden_dice"] = [i for i, d in enumerate(result["dice"])
                                if d.get("side") == "referee"]
    return reply


def _card(msg: dict[str, Any]) -> Any:
    return firefight.render_card(msg["result"], fmt=str(msg.get("fmt", "html")),
                                 lang=str(msg.get("lang", "en")),
                                 view=str(msg.get("view", "gm")))


def _hello(_: dict[str, Any]) -> Any:
    return {"version": firefight.__version__, "rulesets": firefight.list_rulesets()}


OPS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "hello": _hello,
    "rulesets": lambda _: firefight.list_rulesets(),
    "schema": lambda m: firefight.schema(str(m.get("ruleset"))),
    "odds": lambda m: firefight.odds(m.get("request")),  # type: ignore[arg-type]
    "resolve": _resolve,
    "card": _card,
    "apply": lambda m: firefight.apply(str(m.get("ruleset")), m.get("stats"),  # type: ignore[arg-type]
                                       m.get("effects")),  # type: ignore[arg-type]
}


def _reply(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"error"}:
        return json.dumps({"ok": False, "error": value["error"]})
    return json.dumps({"ok": True, "value": value})


def _dispatch(message: str) -> str:
    msg = json.loads(message)
    if not isinstance(msg, dict):
        raise FirefightError("a message must be a JSON object", code="bad_message")
    op = msg.get("op")
    if op not in OPS:
        raise FirefightError(f"unknown op {op!r}", code="bad_message",
                             fields=[("op", f"one of {', '.join(sorted(OPS))}")])
    return _reply(OPS[op](msg))


def handle(message: str) -> str:
    """Answer one message from the worker (see docs/architecture.md, "The bridge")."""
    try:
        return _dispatch(message)
    except FirefightError as exc:
        return json.dumps({"ok": False, "error": exc.to_dict()})
    except json.JSONDecodeError as exc:
        return json.dumps({"ok": False, "error": {"code": "bad_message", "message": str(exc),
                                                  "fields": []}})
    except Exception as exc:
        return json.dumps({"ok": False, "error": {
            "code": "internal_error", "message": f"{type(exc).__name__}: {exc}", "fields": [],
            "detail": traceback.format_exc(limit=5)}})
