"""The browser bridge: JSON string in, JSON string out. The one module the Web Worker calls.

Nothing here imports ``js`` or ``pyodide``: the worker passes strings, so the same function is
tested on CPython. Every failure, even an unexpected one, comes back as an error reply.
"""

from __future__ import annotations

import json
import re
import traceback
from collections.abc import Callable
from typing import Any

import firefight
from firefight import api, registry
from firefight.dice import DiceSource, EntropyDice, ScriptedDice
from firefight.errors import FirefightError
from firefight.i18n import LANGUAGES

# Bounds on what a client may send (reliability audit D7, D8, D11): a message's size, how deep
# its JSON nests (Pyodide's json.loads overflows the stack long before CPython's limit), the
# digits of one number, the length of one string and of one list.
MAX_MESSAGE_CHARS = 2_000_000
MAX_DEPTH = 64
MAX_INT_DIGITS = 30
MAX_STRING_CHARS = 10_000
MAX_LIST_ITEMS = 10_000
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")
# A JSON text's strings and punctuation, for naming the field where it nests too deep.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]')
_INTS = frozenset({int})
_NUMBERS = frozenset({int, float})
_UNSIZED = frozenset({int, float, bool, type(None)})
_SIZED = (str, list, dict)
_KEY_CHARS = 40  # of one key in a field's name (a name never echoes a long payload)


class _Refused:
    """Where the parser met a number it must not make (more than MAX_INT_DIGITS digits: a
    5000-digit int costs seconds; NaN, Infinity): a mark until ``_check_sizes`` names its
    field."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


_LONG = _Refused(f"a number of at most {MAX_INT_DIGITS} digits")
_CONSTANT = _Refused("NaN and Infinity are not numbers JSON allows")


def _bad(field: str, reason: str) -> FirefightError:
    return FirefightError(f"{field}: {reason}", code="bad_message", fields=[(field, reason)])


def _check_nesting(message: str) -> None:
    """Refuse JSON nested deeper than MAX_DEPTH before the parser sees it."""
    if message.count("[") + message.count("{") <= MAX_DEPTH:
        return  # fewer brackets than that, even counting those in strings: nothing to scan
    depth = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", message)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            raise _bad(_too_deep_field(message), f"nested deeper than {MAX_DEPTH} levels")


def _too_deep_field(message: str) -> str:
    """The field whose value nests too deep: the path to the first container past MAX_DEPTH,
    up to its last key (``request.attacker.stats`` for a list of lists there); ``message``
    when the message itself is that deep."""
    path: list[list[Any]] = []  # per open container: [is_object, its key or index]
    last = ""
    for tok in _TOKENS.findall(message):
        if tok[0] == '"':
            last = tok
        elif tok == ":" and path and path[-1][0]:
            path[-1][1] = _key(last)
        elif tok == "," and path:
            path[-1][1] = path[-1][1] + 1 if not path[-1][0] else None
        elif tok in "[{":
            if len(path) == MAX_DEPTH:
                break
            path.append([tok == "{", None if tok == "{" else 0])
        elif path:
            path.pop()
    steps = [(obj, at) for obj, at in path if at is not None]
    while steps and not steps[-1][0]:
        steps.pop()  # list indexes after the last key: the field is the list's
    return _field_name(at for _, at in steps) or "message"


def _key(literal: str) -> str:
    try:
        text = str(json.loads(literal))
    except ValueError:
        text = literal.strip('"')
    return text[:_KEY_CHARS]


def _field_name(steps: Any) -> str:
    """``request.targets[0].stats``: keys joined by dots, list indexes in brackets."""
    out = ""
    for at in steps:
        out += f"[{at}]" if isinstance(at, int) else f".{at}" if out else str(at)
    return out


def _int(text: str) -> int | _Refused:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        return _LONG
    return int(text)


def _constant(text: str) -> _Refused:
    return _CONSTANT


def _check_sizes(value: Any, path: str = "") -> None:
    """Every string and list a client sends has a bound, every number at most MAX_INT_DIGITS
    digits and none NaN or Infinity; the error names where it is. (A path is spelled out only
    for what may hold something too long: an entropy stream's hundreds of numbers cost
    nothing.)"""
    if isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            raise _bad(path or "message", f"at most {MAX_STRING_CHARS} characters")
    elif isinstance(value, list):
        if len(value) > MAX_LIST_ITEMS:
            raise _bad(path or "message", f"at most {MAX_LIST_ITEMS} items")
        if _UNSIZED.issuperset(map(type, value)):
            return  # numbers only (an entropy stream): nothing more to check
        for i, item in enumerate(value):
            if isinstance(item, _SIZED) or type(item) is _Refused:
                _check_sizes(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_sizes(key, path or "message")
            if isinstance(item, _SIZED) or type(item) is _Refused:
                _check_sizes(item, f"{path}.{key}" if path else key)
    elif type(value) is _Refused:
        raise _bad(path or "message", value.reason)


def _parse(message: object) -> dict[str, Any]:
    if not isinstance(message, str):
        raise _bad("message", "expected a JSON string")
    if len(message) > MAX_MESSAGE_CHARS:
        raise _bad("message", f"at most {MAX_MESSAGE_CHARS} characters")
    _check_nesting(message)
    msg = json.loads(message, parse_int=_int, parse_constant=_constant)
    if not isinstance(msg, dict):
        raise FirefightError("a message must be a JSON object", code="bad_message")
    _check_sizes(msg)
    return msg


def _lang(msg: dict[str, Any]) -> str:
    """Only the languages the module ships (lang/<lang>.json)."""
    lang = msg.get("lang", "en")
    if lang not in LANGUAGES:
        raise FirefightError(f"unknown language {str(lang)[:20]!r}",
                             fields=[("lang", f"one of {', '.join(LANGUAGES)}")])
    return str(lang)


def _choice(msg: dict[str, Any], field: str, choices: tuple[str, ...]) -> str:
    value = msg.get(field, choices[0])
    if value not in choices:
        raise FirefightError(f"{field} must be one of {', '.join(choices)}",
                             fields=[(field, f"one of {', '.join(choices)}")])
    return str(value)


def _dice(msg: dict[str, Any]) -> DiceSource | None:
    """``entropy``: uniforms from the VTT (always, even when one is exactly 0); ``faces``: the
    recorded faces of a result, to replay it (the GM's check before applying)."""
    entropy, faces = msg.get("entropy"), msg.get("faces")
    if faces is not None:
        # JSON gives exact ints and floats (a bool is its own type): the types checked at C speed.
        if not isinstance(faces, list) or not _INTS.issuperset(map(type, faces)):
            raise FirefightError("faces must be a list of whole numbers",
                                 fields=[("faces", "expected a list of die faces")])
        return ScriptedDice(faces)
    if entropy is None:
        return None
    if not isinstance(entropy, list) or not _NUMBERS.issuperset(map(type, entropy)):
        raise FirefightError("entropy must be a list of numbers in [0, 1)",
                             fields=[("entropy", "expected a list of numbers")])
    return EntropyDice(list(map(float, entropy)))


def _resolve(msg: dict[str, Any]) -> Any:
    result = firefight.resolve(msg.get("request"), dice=_dice(msg))  # type: ignore[arg-type]
    if "error" in result:
        return result
    lang = _lang(msg)
    # No text card here: the shim posts the html one (issue 17: the text card cost every shot
    # its rendering and nothing read it); the `card` op renders text when asked.
    reply: dict[str, Any] = {
        "result": result,
        "html": firefight.render_card(result, fmt="html", lang=lang, view="player"),
    }
    if result.get("outcome", {}).get("hidden"):
        # Uncertain tasks: the table whispers the full card to the GM and keeps the referee's
        # dice off the public message.
        reply["gm_html"] = firefight.render_card(result, fmt="html", lang=lang)
        reply["hidden_dice"] = [i for i, d in enumerate(result["dice"])
                                if d.get("side") == "referee"]
    return reply


def _card(msg: dict[str, Any]) -> Any:
    fmt = _choice(msg, "fmt", ("html", "text"))
    view = _choice(msg, "view", ("gm", "player"))
    return firefight.render_card(firefight.validate_result(msg.get("result")), fmt=fmt,
                                 lang=_lang(msg), view=view)


def _hello(msg: dict[str, Any]) -> Any:
    return {"version": firefight.__version__, **api.catalog(_lang(msg))}


OPS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "hello": _hello,
    "rulesets": lambda _: firefight.list_rulesets(),
    "rescan": lambda m: {"version": firefight.__version__, **api.rescan(_lang(m))},
    "schema": lambda m: firefight.schema(str(m.get("ruleset"))),
    "odds": lambda m: firefight.odds(m.get("request")),  # type: ignore[arg-type]
    "resolve": _resolve,
    "card": _card,
    "item": lambda m: api.item(str(m.get("ruleset")), m.get("data")),  # type: ignore[arg-type]
    "ammo": lambda m: api.ammo(m.get("data")),
    "apply": lambda m: firefight.apply(str(m.get("ruleset")), m.get("stats"),  # type: ignore[arg-type]
                                       m.get("effects")),  # type: ignore[arg-type]
    "end_conditions": lambda m: api.end_conditions(str(m.get("ruleset")), m.get("stats"),  # type: ignore[arg-type]
                                                   str(m.get("when"))),
}


def _reply(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"error"}:
        return json.dumps({"ok": False, "error": value["error"]})
    return json.dumps({"ok": True, "value": value})


def _dispatch(message: str) -> str:
    msg = _parse(message)
    op = msg.get("op")
    if not isinstance(op, str) or op not in OPS:
        raise FirefightError(f"unknown op {str(op)[:40]!r}", code="bad_message",
                             fields=[("op", f"one of {', '.join(sorted(OPS))}")])
    return _reply(OPS[op](msg))


# The installed rulesets and house rules found now, at the worker's import: the browser's memory
# snapshot then holds the scan (importlib.metadata), and a ``hello`` after a restore reads only
# the built-ins' catalog files and imports no ruleset (issue 27).
registry.discover()


def warm_up(ruleset_id: object = "") -> None:
    """Load ahead what a player's first request waits for (issue 27): the card module (Jinja2),
    and the world's ruleset (``ruleset_id``, the default one when empty) imported, its requests'
    validators built (``defer_build``), its tables loaded (``Ruleset.load_data``) and its card
    template compiled. The worker calls it before taking the memory snapshot, so a return
    restores all of it, and once idle after ``ready`` (a restored boot of another world's
    ruleset; again it costs nothing). A ruleset the engine does not know (a plugin's, whose
    wheel loads after the snapshot, or failed) is left to its first request, which names the
    error."""
    from firefight import cards

    try:
        ruleset = registry.get(ruleset_id or api.DEFAULT_RULESET)
    except FirefightError:
        return
    for model in dict.fromkeys(act.request for act in ruleset.actions):
        model.model_rebuild()
    ruleset.load_data()
    cards.environment().get_template(ruleset.card_template)


def handle(message: str) -> str:
    """Answer one message from the worker (see docs/architecture.md, "The bridge")."""
    try:
        return _dispatch(message)
    except FirefightError as exc:
        return json.dumps({"ok": False, "error": exc.to_dict()})
    except (json.JSONDecodeError, RecursionError) as exc:
        return json.dumps({"ok": False, "error": {"code": "bad_message", "message": str(exc)[:200],
                                                  "fields": [{"field": "message",
                                                              "reason": "not valid JSON"}]}})
    except Exception as exc:
        return json.dumps({"ok": False, "error": {
            "code": "internal_error", "message": f"{type(exc).__name__}: {exc}", "fields": [],
            "detail": traceback.format_exc(limit=5)}})
