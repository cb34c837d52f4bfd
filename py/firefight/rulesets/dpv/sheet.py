"""The working sheet of one resolution: dice, steps, modifiers, effects and notes, in order.

Every die goes through the ``Roller`` with a purpose; a step points at its dice by index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from firefight.dice import Roller
from firefight.models import Effect, Modifier, Note, Resolution, Step

P = "FIREFIGHT.dpv"


def num(x: Fraction | float | int) -> float | int:
    """A JSON number for the card: ints stay ints, fractions become floats."""
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else float(x)
    return x


@dataclass
class Sheet:
    roller: Roller
    steps: list[Step] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def roll(self, faces: int, *, purpose: str, side: str = "attacker", count: int = 1
             ) -> tuple[int, int]:
        """Roll ``count`` d``faces``; returns (total, index of the die record)."""
        record = self.roller.roll(faces, purpose=purpose, side=side, count=count)
        return record.total, len(self.roller.records) - 1

    def faces(self, index: int) -> tuple[int, ...]:
        return self.roller.records[index].results

    def modifier(self, name: str, value: int, source: str, step: str, *,
                 side: str = "attacker", **params: Any) -> Modifier:
        mod = Modifier(key=f"{P}.mod.{name}", value=value, source=source, step=step,
                       side="target" if side == "target" else "attacker", params=params)
        self.modifiers.append(mod)
        return mod

    def step(self, step_id: str, label: str, *, kind: str = "target_number",
             dice: list[int] | None = None, modifier_total: int = 0,
             numbers: dict[str, Any] | None = None, success: bool | None = None,
             outcome: str = "", source: str = "", **params: Any) -> Step:
        made = Step(id=step_id, label_key=f"{P}.step.{label}", kind=kind,
                    dice=dice or [], modifier_total=modifier_total, numbers=numbers or {},
                    success=success, outcome_key=f"{P}.{outcome}" if outcome else "",
                    params={**params, **({"source": source} if source else {})})
        self.steps.append(made)
        return made

    def effect(self, kind: str, *, delta: int = 0, value: Any = None, label: str = "",
               target: str = "target", **params: Any) -> None:
        self.effects.append(Effect(
            target="attacker" if target == "attacker" else "target", kind=kind, delta=delta,
            value=value, label_key=f"{P}.effect.{label or kind}", params=params))

    def for_referee(self, *, notes_from: int, steps_from: int) -> None:
        """Hide the notes and steps made since these counts from the player's card: a hidden
        result's verdict (2300ad UNCERTAIN TASKS)."""
        self.notes[notes_from:] = [n.model_copy(update={"referee": True})
                                   for n in self.notes[notes_from:]]
        self.steps[steps_from:] = [s.model_copy(update={"referee": True})
                                   for s in self.steps[steps_from:]]

    def note(self, key: str, source: str = "", **params: Any) -> None:
        self.notes.append(Note(key=f"{P}.note.{key}", source=source, params=params))

    def resolution(self, request: Any, *, outcome: dict[str, Any], odds: dict[str, Any] | None,
                   title: str, **card_params: Any) -> Resolution:
        return Resolution(
            ruleset="dpv", action=request.action,
            request=request.model_dump(mode="json"),
            dice=[r.to_dict() for r in self.roller.records], modifiers=self.modifiers,
            steps=self.steps, outcome=outcome, effects=self.effects, notes=self.notes,
            odds=odds or {},
            card={"template": "card.html.j2", "title_key": f"{P}.card.{title}",
                  "params": card_params},
        )
