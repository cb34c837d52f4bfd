"""percentile CASUALTY TABLE: the percent of life force a hit costs, "cross-indexing a D100 roll
which produced a hit with the number of rounds fired" (``tables/casualty.json``, the printed grid).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from firefight.rulesets.percentile.data import tables
from firefight.tables import Band

SOURCE = "percentile Casualty Table"


@dataclass(frozen=True)
class Casualty:
    percent: int
    row: Band[list[int]]
    column: Band[int]
    beyond_table: bool

    @cached_property  # the cell is cached (``casualty``): its text is made once
    def source(self) -> str:
        """The cell read, for the card."""
        return (f"{SOURCE}, D100 {self.row.lo}-{self.row.hi}, "
                f"rounds {self.column.lo}-{self.column.hi}")


@cache  # a pure reading of the static table: the odds read it for each of the 100 rolls
def casualty(roll: int, rounds: int) -> Casualty:
    """The Casualty Table: percent of life force lost, by the hitting roll and rounds fired.

    More rounds than the last column (50) read that column: the table stops there.
    """
    t = tables()
    beyond = beyond_table(rounds)
    column = t.casualty_columns.bands[-1] if beyond else t.casualty_columns.band_of(rounds)
    row = t.casualty_rows.band_of(roll)
    return Casualty(row.value[column.value], row, column, beyond)


def beyond_table(rounds: int) -> bool:
    """More rounds than the table's last column (46-50) counts: that column is read."""
    last = tables().casualty_columns.bands[-1]
    return last.hi is not None and rounds > last.hi
