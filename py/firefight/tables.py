"""Tables as data: bands of integers mapped to values, loaded beside the code that reads them.

Every ruleset keeps its tables as JSON in its own ``tables/`` folder. A band table is validated
on load: bands ascend, never overlap and leave no gap over the domain they claim to cover.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from importlib.resources import files
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, PrivateAttr, model_validator

V = TypeVar("V")


class Band(BaseModel, Generic[V]):
    """``lo``..``hi`` inclusive; ``hi`` None means "and above", ``lo`` None "and below"."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    lo: int | None
    hi: int | None
    value: V

    def contains(self, x: int) -> bool:
        return (self.lo is None or x >= self.lo) and (self.hi is None or x <= self.hi)


class BandTable(BaseModel, Generic[V]):
    """Contiguous bands: the lookup is total over [first lo, last hi]."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    source: str
    bands: list[Band[V]]
    # Each band's lower bound (the first may be open) and upper bound (the last may be open):
    # the bands ascend without gaps, so a value's band is found by bisection (issue 17: a
    # lookup scanned every band). Kept as one plain tuple: pydantic's private attributes are
    # slow to read, and a table is read several times a shot.
    _index: tuple[list[float], list[float], list[Band[V]]] = PrivateAttr(
        default_factory=lambda: ([], [], []))

    @model_validator(mode="after")
    def _contiguous(self) -> BandTable[V]:
        problems = band_problems([(b.lo, b.hi) for b in self.bands])
        if problems:
            raise ValueError(f"{self.source}: " + "; ".join(problems))
        self._index = ([float("-inf") if b.lo is None else b.lo for b in self.bands],
                       [float("inf") if b.hi is None else b.hi for b in self.bands],
                       list(self.bands))
        return self

    def lookup(self, x: int) -> V:
        return self.band_of(x).value

    def band_of(self, x: int) -> Band[V]:
        starts, ends, bands = self.__pydantic_private__["_index"]  # type: ignore[index]
        i = bisect_right(starts, x) - 1
        if i >= 0 and x <= ends[i]:
            return bands[i]  # type: ignore[no-any-return]
        raise KeyError(f"{self.source}: no band holds {x}")


def band_problems(bands: list[tuple[int | None, int | None]]) -> list[str]:
    """Gaps, overlaps and inverted bands in an ascending list of inclusive bands."""
    problems: list[str] = []
    for i, (lo, hi) in enumerate(bands):
        if lo is not None and hi is not None and lo > hi:
            problems.append(f"band {i} runs backwards ({lo}..{hi})")
        if i and lo is None:
            problems.append(f"band {i} is open below but is not the first")
        if i + 1 < len(bands) and hi is None:
            problems.append(f"band {i} is open above but is not the last")
    for i in range(1, len(bands)):
        prev_hi, lo = bands[i - 1][1], bands[i][0]
        if prev_hi is None or lo is None:
            continue
        if lo <= prev_hi:
            problems.append(f"bands {i - 1} and {i} overlap at {lo}..{prev_hi}")
        elif lo > prev_hi + 1:
            problems.append(f"gap between bands {i - 1} and {i}: {prev_hi + 1}..{lo - 1}")
    return problems


def load_json(package: str, name: str) -> Any:
    """A table file from ``<package>/tables/<name>``."""
    return json.loads(files(package).joinpath("tables", name).read_text(encoding="utf-8"))
