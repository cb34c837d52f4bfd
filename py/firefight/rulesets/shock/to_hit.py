"""To hit. The SHOCK text has no to-hit rule (its to-hit section is empty; rule texts README:
"add a clearly labelled, switchable house rule"). The world setting ``to_hit`` picks one of:

- ``house`` (default): **Firefight house rule, not SHOCK**: hit on 1d10 <= the shooter's
  Prowess + modifiers (``tables/house_to_hit.json``); a 1 always hits, a 10 always misses.
- ``referee``: no roll; the referee confirms the hit in the dialog.

The dialog's ``referee_confirmed_hit`` also skips the roll. Every card says which it was.
"""

from __future__ import annotations

import math
from fractions import Fraction

from firefight import house
from firefight.models import Modifier
from firefight.record import Recorder
from firefight.rulesets.shock.data import D10, tables
from firefight.rulesets.shock.models import ID, AttackRequest, P
from firefight.rulesets.shock.soldier import tap

# The source of every modifier, step and note of the house rule: a lang key (the card and the
# dialog say it in the reader's language; UX walkthrough 3 #8), the modifier's label saying what.
HOUSE = "FIREFIGHT.shock.source.house"
STEP = "to_hit"


def rolls(request: AttackRequest) -> bool:
    """Whether the house rule rolls (else the referee's confirmation decides)."""
    return not (request.options.referee_confirmed_hit or request.settings.to_hit == "referee")


def ledger(request: AttackRequest) -> list[Modifier]:
    """The house rule's modifiers to the shooter's Prowess (all sourced as the house rule), and
    any house rule's (``firefight.house``) for this step: odds and roll share them."""
    t, opts = tables(), request.options
    rule = t.house
    prowess = tap(request.attacker.stats)[2]
    metres = request.range.metres()
    band = t.house_range.band_of(math.floor(metres))
    band_name = rule["range_names"][t.house_range.bands.index(band)]
    mods = [
        Modifier(key=f"{P}.mod.prowess", value=prowess, source=HOUSE,
                 step=STEP,
                 params={"quality_key": f"{P}.quality.{request.attacker.stats.quality}"}),
        Modifier(key=f"{P}.mod.range.{band_name}", value=band.value,
                 source=HOUSE, step=STEP,
                 params={"range": round(metres, 1)}),
    ]
    for flag in ("aimed", "shooter_moved", "target_moving", "target_prone"):
        if getattr(opts, flag):
            mods.append(Modifier(key=f"{P}.mod.{flag}", value=int(rule[flag]),
                                 source=HOUSE, step=STEP))
    if opts.situational:
        mods.append(Modifier(key=f"{P}.mod.situational", value=opts.situational,
                             source=HOUSE, step=STEP))
    return mods + house.modifiers(ID, STEP, request)


def hits(roll: int, target_number: int) -> bool:
    """Hit on 1d10 <= target number; a 1 always hits, a 10 always misses."""
    rule = tables().house
    if roll == rule["always_hit"]:
        return True
    if roll == rule["always_miss"]:
        return False
    return roll <= target_number


def hit_probability(target_number: int) -> Fraction:
    """Exact: faces 1..10 that hit."""
    return Fraction(sum(hits(face, target_number) for face in range(1, D10 + 1)), D10)


def roll_to_hit(request: AttackRequest, rec: Recorder) -> bool:
    """The to-hit step of an attack, on the card with the note saying how it was decided."""
    if not rolls(request):
        hit = request.options.referee_confirmed_hit
        rec.step(STEP, "to_hit_referee", kind="info", success=hit,
                 outcome=f"outcome.referee_{'confirmed' if hit else 'unconfirmed'}")
        rec.note("to_hit_referee", source="shock: no to-hit rule in the text")
        return hit
    target_number = sum(m.value for m in rec.add(ledger(request)))
    name = request.attacker.name
    roll, die = rec.roll(D10, purpose=f"to-hit (house rule), {name}".rstrip(", "),
                         side="attacker", purpose_key="roll.to_hit")
    hit = hits(roll, target_number)
    rec.step(STEP, "to_hit_house", kind="target_number", dice=[die],
             numbers={"roll": roll, "target_number": target_number}, success=hit,
             outcome=f"outcome.{'hit' if hit else 'miss'}", source=HOUSE)
    rec.note("to_hit_house", source=HOUSE)
    return hit
