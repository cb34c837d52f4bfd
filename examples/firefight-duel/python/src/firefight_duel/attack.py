"""Duel's one chapter, the attack.

Rule 1: roll d20 + modifiers; the attack hits on the world's target number or more.
Rule 2: the attacker adds their skill, +2 for aiming, and -1 for every full 10 m of range.
Rule 3: partial cover gives -2, full cover -5.
Rule 4: a natural 20 always hits and doubles the damage (the "critical on 20" setting).
Rule 5: a hit deals the weapon's damage die in hit points; at 0 hit points the target is down
(unconscious), or dead if the hit was critical.
Rule 8: a duellist who is down (unconscious or dead) attacks no one (nor brawls: brawl.py).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from firefight import Modifier, Recorder, house, named, rule_error
from firefight_duel.models import DuelAttack, Duellist, P

# What the balance lab counts of one engagement (Action.engage): a die's faces -> a face, and
# (the outcome's fields, the effects) as pairs.
Face = Callable[[int], int]
Engagement = tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, str | None], ...]]
COVER = {"none": 0, "partial": -2, "full": -5}  # rule 3


def to_hit_ledger(request: DuelAttack) -> list[Modifier]:
    """Every modifier of the to-hit roll; the odds and the roll share it (house rules too)."""
    mods = [Modifier(key=f"{P}.mod.skill", value=request.attacker.stats.skill,
                     source="Duel rule 2", step="to_hit")]
    if request.options.aim:
        mods.append(Modifier(key=f"{P}.mod.aim", value=2, source="Duel rule 2", step="to_hit"))
    tens = int(request.range.metres() // 10)
    if tens:
        mods.append(Modifier(key=f"{P}.mod.range", value=-tens, source="Duel rule 2",
                             step="to_hit", params={"metres": tens * 10}))
    if COVER[request.options.cover]:
        mods.append(Modifier(key=f"{P}.mod.cover.{request.options.cover}",
                             value=COVER[request.options.cover], source="Duel rule 3",
                             step="to_hit", side="target"))
    return mods + house.modifiers("duel", "to_hit", request)


def refuse_if_down(attacker: Duellist) -> None:
    """Rule 8, in the language of the client that acted (lang keys FIREFIGHT.duel.error.down)."""
    if attacker.stats.state != "ok":
        name, said = named(attacker.name, "attacker")
        raise rule_error("duel", "down", f"{name} is down and cannot attack",
                         "attacker.stats.state", "must be fighting", name=said)


def _hits(face: int, net: int, request: DuelAttack) -> bool:
    critical = face == 20 and request.settings.critical_on_20  # rule 4
    return critical or face + net >= request.settings.target_number  # rule 1


def _left(request: DuelAttack) -> int:
    stats = request.target.stats
    return stats.hp if stats.hp is not None else stats.hp_max


def odds(request: DuelAttack) -> dict[str, Any]:
    """Exact chances: of a hit (d20), and of the target going down (d20 and the damage die)."""
    refuse_if_down(request.attacker)
    mods = to_hit_ledger(request)
    net = sum(m.value for m in mods)
    sides = request.weapon.damage
    hit = Fraction(sum(_hits(f, net, request) for f in range(1, 21)), 20)
    down = Fraction(0)
    for face in range(1, 21):
        if not _hits(face, net, request):
            continue
        double = 2 if face == 20 and request.settings.critical_on_20 else 1
        down += Fraction(sum(d * double >= _left(request) for d in range(1, sides + 1)),
                         20 * sides)
    return {"probability": float(hit), "exact": f"{hit.numerator}/{hit.denominator}",
            "net_modifier": net, "down_probability": float(down),
            "down_exact": f"{down.numerator}/{down.denominator}",
            "modifiers": [m.model_dump(mode="json") for m in mods]}  # the dialog's "Why"


def attack(request: DuelAttack, rec: Recorder) -> None:
    """Resolve one attack, recording every die, modifier, step and effect."""
    refuse_if_down(request.attacker)
    mods = rec.once("to_hit", lambda r: r.add(to_hit_ledger(request)))  # once per request
    face, die = rec.roll(20, purpose="to-hit", purpose_key="roll.to_hit")
    total, need = face + sum(m.value for m in mods), request.settings.target_number
    critical = face == 20 and request.settings.critical_on_20
    hit = _hits(face, total - face, request)
    rec.step("to_hit", dice=[die], numbers={"roll": face, "total": total, "target": need},
             success=hit, outcome="outcome.critical" if critical else
             "outcome.hit" if hit else "outcome.miss", source="Duel rule 1")
    rec.outcome.update(hit=hit, critical=critical, damage=0, state=None,
                       target=request.target.name)
    rec.card("attack", attacker=request.attacker.name, target=request.target.name)
    if not hit:
        rec.outcome["summary_key"] = rec.key("summary.miss")
        return
    rolled, die = rec.roll(request.weapon.damage, purpose="damage", purpose_key="roll.damage")
    damage = rolled * 2 if critical else rolled  # rule 4
    rec.step("damage", kind="info", dice=[die], numbers={"roll": rolled, "damage": damage},
             outcome="outcome.damage", source="Duel rule 5")
    rec.effect("hp", delta=-damage, damage=damage)
    state = None
    if damage >= _left(request):  # rule 5
        state = "dead" if critical else "unconscious"
        rec.effect("state", value=state, label=f"effect.{state}", target_name=request.target.name)
    rec.outcome.update(damage=damage, state=state,
                       summary_key=rec.key(f"summary.{state or 'hit'}"))


def engage_attack(request: DuelAttack) -> Callable[[Face], Engagement]:
    """The balance lab's fast path (``Action.engage``): the ledger summed once, then each
    engagement rolls only its faces, in the order ``attack`` rolls them."""
    refuse_if_down(request.attacker)
    net = sum(m.value for m in to_hit_ledger(request))
    critical_on_20 = request.settings.critical_on_20

    def run(face: Face) -> Engagement:
        roll = face(20)
        if not _hits(roll, net, request):
            return (("hit", False),), ()
        damage = face(request.weapon.damage) * (2 if roll == 20 and critical_on_20 else 1)
        if damage < _left(request):  # rule 5
            return (("hit", True),), (("hp", None),)
        state = "dead" if roll == 20 and critical_on_20 else "unconscious"
        return (("hit", True), ("state", state)), (("hp", None), ("state", state))

    return run
