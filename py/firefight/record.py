"""The one recorder a resolver writes to: dice, modifiers, steps, effects, notes, the outcome and
the card, in order. The core turns it into the immutable ``Resolution``.

Every die goes through the ``Roller`` with a purpose; a step points at its dice by index, and its
modifier total is computed here from the modifiers recorded for it, never typed by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from firefight import house
from firefight.dice import Roller
from firefight.models import Effect, Modifier, Note, Resolution, Step


def num(x: Fraction | float | int) -> float | int:
    """A JSON number for the card: ints stay ints, fractions become floats."""
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else float(x)
    return x


@dataclass
class Recorder:
    roller: Roller
    prefix: str  # "FIREFIGHT.<ruleset id>": keys without it are the ruleset's own
    ruleset: str = ""
    steps: list[Step] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    outcome: dict[str, Any] = field(default_factory=dict)
    title_key: str = "FIREFIGHT.card.title"
    card_params: dict[str, Any] = field(default_factory=dict)

    def key(self, name: str) -> str:
        """A lang key: ``mod.will`` -> ``FIREFIGHT.<id>.mod.will``; a full key stays as it is."""
        return name if not name or name.startswith("FIREFIGHT.") else f"{self.prefix}.{name}"

    # --- dice ----------------------------------------------------------------------------

    def roll(self, faces: int, *, purpose: str, side: str = "attacker", count: int = 1,
             purpose_key: str = "", purpose_params: dict[str, str] | None = None
             ) -> tuple[int, int]:
        """Roll ``count`` d``faces``; returns (total, index of the die record)."""
        record = self.roller.roll(faces, purpose=purpose, side=side, count=count,
                                  purpose_key=self.key(purpose_key) or None,
                                  purpose_params=purpose_params)
        return record.total, len(self.roller.records) - 1

    def faces(self, index: int) -> tuple[int, ...]:
        return self.roller.records[index].results

    @property
    def next_die(self) -> int:
        """The index the next die rolled will have (for steps of dice rolled by a helper)."""
        return len(self.roller.records)

    # --- modifiers and steps ---------------------------------------------------------------

    def modifier(self, name: str, value: int, source: str, step: str, *,
                 side: str = "attacker", **params: Any) -> Modifier:
        mod = Modifier(key=self.key(name), value=value, source=source, step=step,
                       side="target" if side == "target" else "attacker", params=params)
        self.modifiers.append(mod)
        return mod

    def add(self, mods: list[Modifier]) -> list[Modifier]:
        """Modifiers already built (by a ledger the odds share)."""
        self.modifiers += mods
        return mods

    def house(self, step: str, request: BaseModel) -> list[Modifier]:
        """The house rules' modifiers for ``step`` (recorded). A ledger that the odds share
        calls ``firefight.house.modifiers`` itself instead."""
        return self.add(house.modifiers(self.ruleset, step, request))

    def step(self, step_id: str, label: str = "", *, kind: str = "target_number",
             dice: list[int] | None = None, numbers: dict[str, Any] | None = None,
             success: bool | None = None, outcome: str = "", source: str = "",
             **params: Any) -> Step:
        made = Step(id=step_id, label_key=self.key(f"step.{label or step_id}"), kind=kind,
                    dice=dice or [], numbers=numbers or {}, success=success,
                    outcome_key=self.key(outcome),
                    params={**params, **({"source": source} if source else {})})
        self.steps.append(made)
        return made

    # --- effects, notes, card ------------------------------------------------------------

    def effect(self, kind: str, *, delta: int = 0, value: Any = None, label: str | None = None,
               target: str = "target", **params: Any) -> Effect:
        """``label``: the effect's whole lang key below the prefix (``effect.<kind>`` when left
        out, none when ""); unlike ``note`` and ``step``, nothing is added to it."""
        key = self.key(f"effect.{kind}") if label is None else self.key(label)
        made = Effect(target="attacker" if target == "attacker" else "target", kind=kind,
                      delta=delta, value=value, label_key=key, params=params)
        self.effects.append(made)
        return made

    def note(self, key: str, source: str = "", **params: Any) -> Note:
        """``key``: ``note.<key>`` of the ruleset when it has no dot, else as given below the
        prefix (or a whole ``FIREFIGHT.`` key)."""
        made = Note(key=self.key(key if "." in key else f"note.{key}"), source=source,
                    params=params)
        self.notes.append(made)
        return made

    def for_referee(self, *, notes_from: int, steps_from: int) -> None:
        """Hide the notes and steps made since these counts from the player's card: a hidden
        result's verdict (2300ad UNCERTAIN TASKS)."""
        self.notes[notes_from:] = [n.model_copy(update={"referee": True})
                                   for n in self.notes[notes_from:]]
        self.steps[steps_from:] = [s.model_copy(update={"referee": True})
                                   for s in self.steps[steps_from:]]

    def card(self, title: str, **params: Any) -> None:
        """The card's title (a lang key, ``card.<title>`` of the ruleset when short)."""
        self.title_key = self.key(title if "." in title else f"card.{title}")
        self.card_params = params

    def resolution(self, request: BaseModel, *, action: str, odds: dict[str, Any],
                   template: str) -> Resolution:
        totals: dict[str, int] = {}
        for mod in self.modifiers:
            totals[mod.step] = totals.get(mod.step, 0) + mod.value
        steps = [s if s.modifier_total == totals.get(s.id, 0)
                 else s.model_copy(update={"modifier_total": totals.get(s.id, 0)})
                 for s in self.steps]
        dumped = request.model_dump(mode="json", by_alias=True)
        if not dumped.get("house"):
            dumped.pop("house", None)  # no house rule chosen: the request as it always was
        return Resolution(
            ruleset=self.ruleset, action=action, request=dumped,
            dice=[r.to_dict() for r in self.roller.records], modifiers=self.modifiers,
            steps=steps, outcome=self.outcome, effects=self.effects, notes=self.notes,
            odds=odds,
            card={"template": template, "title_key": self.title_key, "params": self.card_params},
        )
