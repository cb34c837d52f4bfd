"""Chat cards: a display context prepared from a result, rendered by a Jinja template.

The template holds no rules and computes nothing; every string a user or pack author wrote
(names of actors, weapons, armor) is escaped by Jinja's autoescape.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateNotFound,
    UndefinedError,
    pass_context,
    select_autoescape,
)
from jinja2.runtime import Context
from pydantic import BaseModel, Field, ValidationError

from firefight import registry
from firefight.errors import FirefightError
from firefight.i18n import number, percent, translate
from firefight.models import Resolution
from firefight.resources import TEMPLATE_DIRS, resource_dir


class _RulesetTemplates(PrefixLoader):
    """``<ruleset id>/<name>`` from that ruleset's package ``templates/`` (registered with it),
    so a plugin's card may extend or replace the generic ``card.html.j2``."""

    def __init__(self) -> None:
        super().__init__({})

    def get_loader(self, template: str) -> tuple[BaseLoader, str]:
        prefix, _, name = template.partition("/")
        folder = TEMPLATE_DIRS.get(prefix)
        if folder is None or not name:
            raise TemplateNotFound(template)
        return FileSystemLoader(folder), name


@pass_context
def _number(ctx: Context, value: Any) -> str:
    """``{{ x|number }}``: a number as the card's language writes it (de ``68,28``)."""
    return number(value, ctx.get("lang", "en"))


@cache
def environment() -> Environment:
    env = Environment(
        loader=ChoiceLoader([FileSystemLoader(str(resource_dir("templates"))),
                             _RulesetTemplates()]),
        # Autoescape on for every template but the plain-text CLI cards.
        autoescape=select_autoescape(enabled_extensions=("html.j2", "html"),
                                     disabled_extensions=("txt.j2",), default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["number"] = _number
    return env


def signed(value: int) -> str:
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "±0"


def _params(params: dict[str, Any], lang: str) -> dict[str, Any]:
    """Parameters whose name ends in ``_key`` are lang keys themselves: translate them."""
    out = dict(params)
    for k, v in params.items():
        if k.endswith("_key") and isinstance(v, str):
            out[k[: -len("_key")]] = translate(v, lang, **params)
    return out


def _player_view(result: dict[str, Any]) -> dict[str, Any]:
    """A hidden result as the player may see it (2300ad UNCERTAIN TASKS: "information based on
    the average of the rolls", not the verdict): no referee dice, no success marks, no chance."""
    dice = result.get("dice", [])
    steps = []
    for step in result.get("steps", []):
        if step.get("referee"):
            continue
        shown = [i for i in step.get("dice", []) if 0 <= i < len(dice)
                 and dice[i].get("side") != "referee"]
        steps.append({**step, "dice": shown, "success": None, "outcome_key": ""})
    outcome = dict(result.get("outcome", {}))
    outcome["summary_key"] = outcome.get("player_summary_key", "")
    outcome.pop("hit", None)
    notes = [n for n in result.get("notes", []) if not n.get("referee")]
    # Every effect of a hidden result is its verdict (a wound healed, a charge set).
    return {**result, "steps": steps, "outcome": outcome, "odds": {}, "notes": notes,
            "effects": []}


def _ruleset_label(ruleset_id: object) -> str:
    try:
        return registry.get(ruleset_id).label_key
    except FirefightError:
        return f"FIREFIGHT.{ruleset_id}.name"


def context(result: dict[str, Any], lang: str = "en", view: str = "gm") -> dict[str, Any]:
    """Everything the card shows, as display rows; ``view="player"`` hides a hidden result."""
    if view == "player" and result.get("outcome", {}).get("hidden"):
        result = _player_view(result)

    def t(key: str, params: dict[str, Any] | None = None) -> str:
        return translate(key, lang, **_params(params or {}, lang))

    def source(text: object) -> str:
        """A rule's citation as written, or one Firefight words itself (a lang key: a house
        rule's, shock ``to_hit.HOUSE``) in the reader's language. A step's params are free, so
        anything else in them reads as its text."""
        if not isinstance(text, str):
            return "" if text is None else str(text)
        return t(text) if text.startswith("FIREFIGHT.") else text

    dice = result.get("dice", [])
    steps = []
    for step in result.get("steps", []):
        mods = [m for m in result.get("modifiers", []) if m["step"] == step["id"]]
        steps.append({
            "id": step["id"],
            "kind": step["kind"],
            "label": t(step["label_key"], step.get("params")),
            "modifiers": [{"label": t(m["key"], m.get("params")), "value": signed(m["value"]),
                           "raw": m["value"], "source": source(m["source"]), "side": m["side"]}
                          for m in mods],
            "modifier_total": signed(step.get("modifier_total", 0)),
            # "exploded": the card shows the die's sum (never a pool's: its faces are counted)
            "dice": [{**dice[i], "exploded": len(dice[i]["results"]) > 1
                      and step["kind"] != "pool",
                      "purpose": t(dice[i]["purpose_key"], dice[i].get("purpose_params"))
                      if dice[i].get("purpose_key") else dice[i]["purpose"]}
                     for i in step.get("dice", []) if 0 <= i < len(dice)],
            "numbers": step.get("numbers", {}),
            "success": step.get("success"),
            "outcome": t(step["outcome_key"], {**step.get("numbers", {}),
                                               **step.get("params", {})})
            if step.get("outcome_key") else "",
            "source": source(step.get("params", {}).get("source", "")),
        })
    card = result.get("card", {})
    outcome = result.get("outcome", {})
    odds = result.get("odds", {})
    effects = [t(e["label_key"], e.get("params")) for e in result.get("effects", [])
               if e.get("label_key")]
    summary = t(outcome.get("summary_key", ""), outcome) if outcome.get("summary_key") else ""
    # The verdict is said once (issue 16: no "Miss / Miss"): in the summary, unless a step
    # cites its source for it or an effect says it.
    for s in steps:
        if summary and s["outcome"] == summary and not s["source"]:
            s["outcome"] = ""
    if summary in [s["outcome"] for s in steps] + effects:
        summary = ""
    return {
        "lang": lang,
        "ruleset": result.get("ruleset", ""),
        "ruleset_label": t(_ruleset_label(result.get("ruleset"))),
        "title": t(card.get("title_key", "FIREFIGHT.card.title"), card.get("params", {})),
        "steps": steps,
        "summary": summary,
        "success": outcome.get("hit"),
        "chance": percent(odds["probability"], lang) if "probability" in odds else "",
        "chance_label": t(odds.get("label_key", "FIREFIGHT.card.chance")),
        "effects": effects,
        "rounds": _rounds(outcome, t),
        "notes": [{"text": t(n["key"], n.get("params")), "source": source(n.get("source", ""))}
                  for n in result.get("notes", [])],
        # A plugin's own strings in the card's language: ``t("duel.pool.success", n=2)`` is
        # FIREFIGHT.duel.pool.success (a whole key as given).
        "t": lambda key, **params: t(key if key.startswith("FIREFIGHT.") else f"FIREFIGHT.{key}",
                                     params),
        "labels": {k: t(f"FIREFIGHT.card.{k}") for k in (
            "modifiers", "dice", "total", "versus", "over_roll", "chance", "effects", "notes",
            "source", "roll", "exploded", "details")},
    }


def _rounds(outcome: dict[str, Any], t: Callable[..., str]) -> str:
    """The rounds an action fired and, when the table sent the magazine, those left in it."""
    fired = outcome.get("rounds_fired")
    if not isinstance(fired, int) or isinstance(fired, bool) or fired <= 0:
        return ""
    if isinstance(outcome.get("rounds_left"), int):
        return t("FIREFIGHT.card.rounds_left", outcome)
    return t("FIREFIGHT.card.rounds_fired", outcome)


class DieView(BaseModel):
    """A recorded die as the card reads it (``firefight.dice.DieRecord`` as JSON)."""

    formula: str
    faces: int
    results: list[int] = Field(min_length=1)
    purpose: str
    side: str
    purpose_key: str | None = None
    purpose_params: dict[str, Any] = Field(default_factory=dict)


class CardView(BaseModel):
    title_key: str = "FIREFIGHT.card.title"
    params: dict[str, Any] = Field(default_factory=dict)


class OutcomeView(BaseModel):
    summary_key: str | None = None
    player_summary_key: str | None = None


class OddsView(BaseModel):
    probability: float | None = None
    label_key: str | None = None


def validate_result(result: object) -> dict[str, Any]:
    """A result from outside (a chat message's flags) checked against the result model, each
    die against its record; errors name the field (``result.steps[0].id``)."""
    if not isinstance(result, dict):
        raise FirefightError("result must be an object", fields=[("result", "expected an object")])
    try:
        checked = Resolution.model_validate(result)
        registry.get(checked.ruleset)
        CardView.model_validate(checked.card)
        OutcomeView.model_validate(checked.outcome)
        OddsView.model_validate(checked.odds)
        for i, die in enumerate(checked.dice):
            try:
                DieView.model_validate(die)
            except ValidationError as exc:
                raise FirefightError("invalid result", fields=[
                    (f"result.dice[{i}]." + ".".join(str(p) for p in e["loc"]), e["msg"])
                    for e in exc.errors()]) from None
    except ValidationError as exc:
        raise FirefightError("invalid result", fields=[
            ("result." + ".".join(str(p) for p in e["loc"]), e["msg"]) for e in exc.errors()
        ]) from None
    return result


def render_card(result: dict[str, Any], *, fmt: str = "html", lang: str = "en",
                view: str = "gm") -> str:
    """The chat card for a result, as HTML (for the chat log) or plain text (for the CLI).

    ``view="player"`` is what the players may see of a hidden result (uncertain tasks). The
    template is the ruleset's, never one a result names (a result may come from a client).
    """
    if fmt not in ("html", "text"):
        raise FirefightError("fmt must be 'html' or 'text'", fields=[("fmt", "html or text")])
    if view not in ("gm", "player"):
        raise FirefightError("view must be 'gm' or 'player'", fields=[("view", "gm or player")])
    name = registry.get(result.get("ruleset")).card_template
    if fmt == "text":
        name = name.replace(".html.j2", ".txt.j2")
    try:
        rendered = environment().get_template(name).render(**context(result, lang, view))
    except (UndefinedError, TypeError, ValueError, KeyError) as exc:
        # A result from outside that passed the model but lacks what its card shows.
        raise FirefightError("the result cannot be shown as a card",
                             fields=[("result", str(exc)[:200])]) from None
    return rendered.strip() + "\n"
