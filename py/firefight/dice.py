"""Dice sources and the recording roller.

Randomness is a parameter: every die comes from a ``DiceSource`` passed in (seeded, scripted,
or the VTT's entropy stream). Never the global ``random``. The ``Roller`` records every die it
rolls (formula, faces, results, purpose) so a result can be rendered and replayed exactly.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol, runtime_checkable

from firefight.errors import FirefightError

# The most dice one request may need: the longest entropy list the table sends for a resolve
# (js-shim/workflow/roll.mjs ``resolveWithEntropy``: 64, then 4 times more while within
# js-shim/core/config.mjs ENTROPY_MAX 8192, so 4096). Rulesets bound their requests so the worst
# accepted one fits (tests/engine/test_bridge_fuzz.py checks the shim's figure against this).
MAX_DICE = 4096


@runtime_checkable
class DiceSource(Protocol):
    """Anything that can produce one face of a fair die with ``faces`` sides."""

    def face(self, faces: int) -> int: ...


class DiceExhaustedError(FirefightError):
    code = "dice_exhausted"


class EntropyExhaustedError(FirefightError):
    code = "entropy_exhausted"


class SeededDice:
    """A private ``random.Random`` seeded once: repeatable, independent of global state."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed if seed is not None else int.from_bytes(os.urandom(8), "big")
        self._rng = random.Random(self.seed)
        self._below: Callable[[int], int] = self._rng._randbelow  # type: ignore[attr-defined]

    def face(self, faces: int) -> int:
        # randint(1, faces) is 1 + _randbelow(faces) (CPython's random.py, 3.11 to 3.14): the
        # same faces for the same seed without its argument checks (tests/engine/
        # test_fast_engine.py compares them). Anything but a whole number >= 1 goes to randint.
        if type(faces) is int and faces > 0:
            return self._below(faces) + 1
        return self._rng.randint(1, faces)


class ScriptedDice:
    """Faces given in advance, in order: worked examples from the rule texts, tests, replay."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    def face(self, faces: int) -> int:
        if self._next >= len(self._faces):
            raise DiceExhaustedError(
                f"the scripted dice ran out after {len(self._faces)} faces",
                fields=[("dice", f"needs more than {len(self._faces)} faces")],
            )
        value = self._faces[self._next]
        self._next += 1
        if not 1 <= value <= faces:
            raise DiceExhaustedError(
                f"scripted face {value} cannot come up on a d{faces}",
                fields=[(f"dice[{self._next - 1}]", f"must be between 1 and {faces}")],
            )
        return value

    @property
    def used(self) -> int:
        return self._next


class EntropyDice:
    """Uniform floats in [0, 1) handed in by the VTT (Foundry's ``CONFIG.Dice.randomUniform``)."""

    def __init__(self, uniforms: Sequence[float]) -> None:
        self._uniforms = list(uniforms)
        self._next = 0

    def face(self, faces: int) -> int:
        if self._next >= len(self._uniforms):
            raise EntropyExhaustedError(
                f"the entropy stream ran out after {len(self._uniforms)} values",
                fields=[("entropy", f"needs more than {len(self._uniforms)} values")],
            )
        u = self._uniforms[self._next]
        self._next += 1
        if not 0.0 <= u < 1.0:
            raise EntropyExhaustedError(
                f"entropy value {u!r} is not in [0, 1)",
                fields=[(f"entropy[{self._next - 1}]", "must be in [0, 1)")],
            )
        # Same mapping as Foundry's Die: ceil(u * faces), with u == 0 giving 1.
        return min(faces, int(u * faces) + 1)


def make_source(dice: object = None, seed: int | None = None) -> DiceSource:
    """Turn the ``dice=`` / ``seed=`` arguments of the public API into a source."""
    if dice is None:
        return SeededDice(seed)
    if isinstance(dice, DiceSource):
        return dice
    if isinstance(dice, list | tuple):
        values = list(dice)
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return ScriptedDice(values)
        if all(isinstance(v, float | int) and not isinstance(v, bool) for v in values):
            return EntropyDice([float(v) for v in values])
    raise FirefightError(
        "dice must be a dice source, a list of faces (ints) or a list of uniforms (floats)",
        code="invalid_dice",
        fields=[("dice", "unsupported type")],
    )


@dataclass(frozen=True, init=False)
class DieRecord:
    """One die as the players saw it: a formula, its faces, every result, and why it was rolled."""

    formula: str
    faces: int
    results: tuple[int, ...]
    purpose: str
    side: str
    explode_on: int | None = None
    # A lang key (and its parameters) for the purpose, so cards can show it in any language.
    purpose_key: str | None = None
    purpose_params: tuple[tuple[str, str], ...] = ()

    def __init__(  # noqa: PLR0917 - the dataclass's own signature
            self, formula: str, faces: int, results: tuple[int, ...], purpose: str,
            side: str, explode_on: int | None = None, purpose_key: str | None = None,
            purpose_params: tuple[tuple[str, str], ...] = ()) -> None:
        # The dataclass's own __init__ of a frozen class sets each field through
        # object.__setattr__; one update of the instance dict is several times quicker. The
        # total is summed here once: the instance dict wins over the cached_property below.
        self.__dict__.update(formula=formula, faces=faces, results=results, purpose=purpose,
                             side=side, explode_on=explode_on, purpose_key=purpose_key,
                             purpose_params=purpose_params, total=sum(results))

    @cached_property
    def total(self) -> int:
        return sum(self.results)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "formula": self.formula,
            "faces": self.faces,
            "explode_on": self.explode_on,
            "results": list(self.results),
            "total": self.total,
            "purpose": self.purpose,
            "side": self.side,
        }
        if self.purpose_key:
            out["purpose_key"] = self.purpose_key
            out["purpose_params"] = dict(self.purpose_params)
        return out


# A RANT chain of 20s longer than this has probability 20**-64: treat it as a broken source.
MAX_EXPLOSIONS = 64


def exploding(face: Callable[[int], int], faces: int, first: int | None = None) -> list[int]:
    """The faces of one die rolled again and added on its highest face, again and again (the
    RANT die, soe 2.1.2), from ``face`` (a ``DiceSource.face``). ``first``: its first face, when
    the caller has read it already (the balance lab reads one face and calls this only when it
    is the highest)."""
    results = [face(faces) if first is None else first]
    while results[-1] == faces:
        if len(results) > MAX_EXPLOSIONS:
            raise DiceExhaustedError(
                "the dice source returned the highest face too many times in a row",
                fields=[("dice", "not a fair source")],
            )
        results.append(face(faces))
    return results


@dataclass
class Roller:
    """Rolls dice from a source and keeps the record of every die, in order."""

    source: DiceSource
    records: list[DieRecord] = field(default_factory=list)

    def roll(self, faces: int, *, purpose: str, side: str, count: int = 1,
             purpose_key: str | None = None, purpose_params: dict[str, str] | None = None
             ) -> DieRecord:
        face = self.source.face
        results = (face(faces),) if count == 1 else tuple([face(faces) for _ in range(count)])
        record = DieRecord(f"{count}d{faces}", faces, results, purpose, side, None, purpose_key,
                           tuple(purpose_params.items()) if purpose_params else ())
        self.records.append(record)
        return record

    def roll_exploding(self, faces: int, *, purpose: str, side: str,
                       purpose_key: str | None = None,
                       purpose_params: dict[str, str] | None = None) -> DieRecord:
        """One die that is rolled again and added on its highest face, again and again."""
        results = exploding(self.source.face, faces)
        record = DieRecord(f"1d{faces}x{faces}", faces, tuple(results), purpose, side, faces,
                           purpose_key, tuple((purpose_params or {}).items()))
        self.records.append(record)
        return record

    def replay_faces(self) -> list[int]:
        return [r for record in self.records for r in record.results]
