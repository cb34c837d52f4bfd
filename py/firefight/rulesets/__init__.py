"""The built-in rulesets. Each is a package that can be read top to bottom."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firefight.registry import Ruleset


def builtin() -> list[Ruleset]:
    from firefight.rulesets.dpv import RULESET as DPV
    from firefight.rulesets.percentile import RULESET as PERCENTILE
    from firefight.rulesets.shock import RULESET as SHOCK
    from firefight.rulesets.soe import RULESET as SOE

    return [SOE, PERCENTILE, SHOCK, DPV]
