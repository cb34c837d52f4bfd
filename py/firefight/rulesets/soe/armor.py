"""soe 11.2.1, "Armor Area Effectiveness": armor covering part of the body counts as much as the
square law says (the referee's armor tool, ``referee``)."""

from __future__ import annotations


def coverage_effectiveness(coverage: float) -> float:
    """soe 11.2.1: Effectiveness = 1 - (1 - coverage)^2 (10 % coverage is 19 % effective)."""
    if not 0 <= coverage <= 1:
        raise ValueError("coverage is a fraction between 0 and 1")
    return 1 - (1 - coverage) ** 2
