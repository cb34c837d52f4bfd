"""Several targets in one shot, declared as data (issue 16; docs/rules-notes.md, "Several
targets in one shot"): 2300 AD's aimed fire takes ROF shots a round at targets within a 30 degree
arc (FIRE COMBAT, "Rate of Fire"); the other three texts shoot at one target, so their rulesets
declare no ``multiTarget`` and the table refuses several targeted tokens for them."""

from __future__ import annotations

import firefight
from firefight.rulesets.dpv import fire
from firefight.rulesets.dpv.models import AttackOptions, DpvWeapon


def _features() -> dict[str, dict[str, object]]:
    return {r["id"]: r["features"] for r in firefight.catalog()["rulesets"]}


def test_dpv_declares_aimed_fire_at_several_targets_by_rate_of_fire() -> None:
    spec = _features()["dpv"]["multiTarget"]
    # The fields it names exist: each target's shots, the weapon's budget of shots a round.
    assert spec["shots"] in AttackOptions.model_fields
    assert spec["budget"] in DpvWeapon.model_fields
    # "Rate of Fire equals number of shots of aimed fire at targets with 30 degree arc per round"
    assert spec["arcDeg"] == fire.AIMED_ARC_DEG == 30


def test_one_target_rulesets_declare_none() -> None:
    features = _features()
    for ruleset in ("soe", "percentile", "shock"):
        assert "multiTarget" not in features[ruleset], ruleset
