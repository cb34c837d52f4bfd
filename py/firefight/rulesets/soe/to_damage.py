"""soe 2.4, "The Rules: To-Damage Roll" (Table 2, To-Damage Modifiers), section 10 (damage
modifiers) and the multiple-projectile multiplier (Table 4, section 9.2).
"""

from __future__ import annotations

import math

from firefight.models import Modifier
from firefight.record import Recorder
from firefight.rulesets.soe.data import tables
from firefight.rulesets.soe.models import SoeAttackRequest, SoeCombatant

STEP = "to_damage"


def toughness_modifier(target: SoeCombatant) -> tuple[int, str]:
    """soe Table 2 "Toughness", against the shooter.

    Humans: ceil(Str/4) - 3 is the target's toughness (section 10.1; the pistol example's
    Strength 17 gives the target +2), so the shooter takes its negative. Creatures use their own
    toughness (Table 7; the rhino example: -8 for toughness +8).
    """
    stats = target.stats
    if stats.kind == "creature" or stats.toughness is not None:
        return -(stats.toughness or 0), "soe Table 2, \"Toughness\" (Table 7 for non-humans)"
    return -(math.ceil(stats.strength / 4) - 3), "soe Table 2, \"Toughness\"; section 10.1"


def armor_column(request: SoeAttackRequest) -> str:
    """Which Table 6 column the target's armor reads: the weapon's own, else by weapon type."""
    weapon = request.weapon
    if weapon.armor_column is not None:
        return weapon.armor_column
    return "pistol" if weapon.weapon_type == "pistol" else "rifle"


def to_damage_ledger(rec: Recorder, request: SoeAttackRequest) -> list[Modifier]:
    """soe Table 2: weapon damage, the target's toughness and the target's armor, then the
    house rules' for the step, recorded on ``rec`` (the odds and the roll share it). Returns the
    step's modifiers."""
    first = len(rec.modifiers)
    rec.modifier("mod.weapon_damage", request.weapon.damage,
                 "soe Table 2, \"Weapon\" (Table 5, \"Damage\")", STEP, weapon=request.weapon.name)
    toughness, source = toughness_modifier(request.target)
    rec.modifier("mod.toughness", toughness, source, STEP, str=request.target.stats.strength)
    column = armor_column(request)
    for piece in request.target.armor:
        value = piece.vs_rifle if column == "rifle" else piece.vs_pistol
        rec.modifier(f"mod.armor_{column}", value,
                     f"soe Table 2, \"Armor\" (Table 6, \"Vs. {column.title()}\")", STEP,
                     armor=piece.name)
    rec.house(STEP, request)
    return rec.modifiers[first:]


def damage_multiplier(to_hit_over_roll: int, projectiles: int) -> int:
    """soe Table 4: the multiplier from the to-hit over-roll and projectiles fired."""
    t = tables()
    column = t.multiplier_columns.lookup(projectiles)
    return t.multiplier_rows.lookup(to_hit_over_roll)[column]
