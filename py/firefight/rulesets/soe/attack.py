"""soe 2.2, "Experimental Combat Rules": a shot is the to-hit opposed roll (2.3, Table 1); on a hit
the to-damage opposed roll (2.4, Table 2) whose over-roll, multiplied for several projectiles
(Table 4), is the injury (Table 3); optionally the possible delayed injury and the Pre-Trauma
Will check follow.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from firefight.dice import exploding
from firefight.rant import over_roll_at_least, success_probability, wins
from firefight.record import Recorder
from firefight.registry import Engagement, Face
from firefight.rulesets.soe import delayed_injury, injury, opposed, pretrauma
from firefight.rulesets.soe.data import tables
from firefight.rulesets.soe.models import SoeAttackRequest
from firefight.rulesets.soe.odds import shot_outcomes
from firefight.rulesets.soe.to_damage import damage_multiplier, to_damage_ledger
from firefight.rulesets.soe.to_hit import check_allowed, shots, to_hit_ledger


def resolve_attack(request: SoeAttackRequest, rec: Recorder) -> None:
    range_m = request.range.metres()
    check_allowed(request, range_m)
    ties = opposed.ties_to_attacker(request)
    rec.card("title", attacker=request.attacker.name, target=request.target.name,
             weapon=request.weapon.name, range=round(request.range.value, 1),
             units=request.range.units,
             mode_key=rec.key(f"opt.mode.choices.{request.options.mode}"))

    # soe 2.3: the to-hit roll, every modifier applied to the shooter.
    # The ledgers depend on nothing but the request: built once per distinct request.
    hit = opposed.roll(rec, "to_hit", rec.once("to_hit", lambda r: to_hit_ledger(r, request,
                                                                                 range_m)),
                       ties=ties, purpose="to-hit", success="outcome.hit",
                       failure="outcome.miss")
    rec.outcome.update(hit=hit.success, to_hit_over_roll=hit.over_roll)
    if not hit.success:
        rec.outcome["summary_key"] = rec.key("outcome.miss")
        return

    # soe 2.4: the to-damage roll; its over-roll is the base damage.
    dmg = opposed.roll(rec, "to_damage", rec.once("to_damage",
                                                  lambda r: to_damage_ledger(r, request)),
                       ties=ties, purpose="to-damage")
    base = dmg.over_roll
    n = shots(request)
    multiplier = damage_multiplier(hit.over_roll, n) if n > 1 else 1
    damage = max(0, base) * multiplier
    if multiplier > 1:
        rec.note("multiplier", "soe Table 4", n=n, over_roll=hit.over_roll, x=multiplier)
    rec.outcome.update(damage_over_roll=base, multiplier=multiplier, damage=damage)

    if injury_mode(request) == "hit_points":
        injury.hit_points(rec, request, damage, base, multiplier)
    else:
        injury.general_trauma(rec, request, damage)
    if request.settings.delayed_injury:
        delayed_injury.possible(rec, base)
    if request.settings.pretrauma:
        pretrauma.check_after_wound(rec, request, base)


def injury_mode(request: SoeAttackRequest) -> str:
    """soe Table 3: Hit Points or General Trauma, the actor's own choice else the world's."""
    own = request.target.stats.injury_mode
    return request.settings.injury_mode if own == "world" else own


def attack_odds(request: SoeAttackRequest) -> dict[str, Any]:
    """The exact chance to hit, to hit and injure (over-roll 1 or more on to-damage), and of
    every outcome (``odds.shot_outcomes``); every modifier the card will show before the roll."""
    range_m = request.range.metres()
    check_allowed(request, range_m)
    rec = Recorder.for_odds("soe", request)  # the ledgers shared with the resolve
    hit_mods = rec.once("to_hit", lambda r: to_hit_ledger(r, request, range_m))
    dmg_mods = rec.once("to_damage", lambda r: to_damage_ledger(r, request))
    hit, dmg = opposed.total(hit_mods), opposed.total(dmg_mods)
    if request.settings.pretrauma:  # the Will roll that follows a shot (its own step)
        pretrauma.wound_check_ledger(rec, request)
    ties = opposed.ties_to_attacker(request)
    probability, exact, injury_probability = _chances(hit, dmg, ties)
    outcomes = _outcomes(hit, dmg, ties=ties, projectiles=shots(request),
                         mode=injury_mode(request), hp=injury.hp_of(request))
    return {
        "probability": probability,
        "exact": exact,
        "net_modifier": hit,
        "ties_to_attacker": ties,
        "injury_probability": injury_probability,
        "damage_modifier": dmg,
        "modifiers": opposed.dumped(rec.modifiers),
        "outcomes": [dict(o) for o in outcomes],
    }


@lru_cache(maxsize=1024)
def _chances(hit: int, dmg: int, ties: bool) -> tuple[float, str, float]:
    """The chance to hit (as a float and exactly) and to hit and injure (over-roll 1 or more
    on to-damage), cached by the two ledgers' totals and who wins ties (issue 27)."""
    p_hit = success_probability(hit, ties_to_acting=ties)
    return (float(p_hit), f"{p_hit.numerator}/{p_hit.denominator}",
            float(p_hit * over_roll_at_least(1, dmg)))


@lru_cache(maxsize=1024)
def _outcomes(hit: int, dmg: int, *, ties: bool, projectiles: int, mode: str, hp: int
              ) -> tuple[dict[str, Any], ...]:
    """The odds' ``outcomes``, cached by what decides them (issue 27: a new request with the
    numbers of one seen before, a shot at another range in the same band, is most of a
    table's): the two ledgers' totals, who wins ties, the projectiles, the injury mode and
    the target's HP. Copied before they are handed out."""
    return tuple(opposed.outcomes(shot_outcomes(hit, dmg, ties=ties, projectiles=projectiles,
                                                mode=mode, hp=hp)))


# --- the balance lab ------------------------------------------------------------------------

MISS: Engagement = ((("hit", False),), ())


def engage_attack(request: SoeAttackRequest) -> Callable[[Face], Engagement] | None:
    """``resolve_attack`` for the balance lab (``Action.engage``): the same ledgers' totals,
    RANT dice, Table 4 multiplier and Table 3 readings, only what the lab counts. The delayed
    injury and Pre-Trauma checks are left to the full resolve (None)."""
    if request.settings.delayed_injury or request.settings.pretrauma:
        return None
    range_m = request.range.metres()
    check_allowed(request, range_m)
    rec = Recorder.for_odds("soe")
    hit_mod = opposed.total(to_hit_ledger(rec, request, range_m))
    dmg_mod = opposed.total(to_damage_ledger(rec, request))
    ties, n, by_hp = opposed.ties_to_attacker(request), shots(request), (
        injury_mode(request) == "hit_points")
    hp_before, band = injury.hp_of(request), tables().injury.lookup
    # What a hit comes to depends on the two over-rolls alone: worked out once per pair (issue
    # 27: the tables' lookups were most of an engagement).
    seen: dict[tuple[int, int], Engagement] = {}
    # A miss leaves the target's HP as they were (Hit Point mode: an engagement says them).
    miss: Engagement = ((("hit", False), ("hp_after", hp_before)), ()) if by_hp else MISS

    def rant(face: Face) -> int:  # one RANT d20's total: ``sum(exploding(face, 20))``
        x = face(20)
        return x if x != 20 else sum(exploding(face, 20, x))

    def run(face: Face) -> Engagement:
        # soe 2.3: the to-hit opposed roll, the shooter's die first.
        over = rant(face) + hit_mod - rant(face)
        if not wins(over, ties):
            return miss
        # soe 2.4: the to-damage roll.
        base = rant(face) + dmg_mod - rant(face)
        found = seen.get((over, base))
        if found is None:
            found = seen[over, base] = hit(over, base)
        return found

    def hit(over: int, base: int) -> Engagement:
        # Table 4's multiplier for several projectiles.
        damage = max(0, base) * (damage_multiplier(over, n) if n > 1 else 1)
        kind = band(damage)
        effects: tuple[tuple[str, str | None], ...] = ()
        if by_hp:  # soe Table 3, Hit Point Reduction
            hp_after, state = injury.hp_state(hp_before, damage)
            if damage:
                effects = (("hp", None),)
            if state in ("dying", "dead"):
                effects += (("state", state),)
            # The HP left (the result's ``hp_after``): all the shot leaves on the target.
            return (("hit", True), ("injury", kind), ("state", state),
                    ("hp_after", hp_after)), effects
        if kind == "none":  # soe Table 3, General Trauma: no class, no effect roll
            state = "unhurt"
        else:  # the effect roll's text is no label: it is not rolled here
            state, effects = "injured", (("trauma", None),)
            if kind == "fatal":
                state, effects = "dead", (("trauma", None), ("state", "dead"))
        return (("hit", True), ("injury", kind), ("state", state)), effects

    run.many = _many(hit_mod, dmg_mod, ties, miss=miss, seen=seen,  # type: ignore[attr-defined]
                     hit=hit)
    # In Hit Point mode an engagement says the target's HP after the shot, all it changes
    # (``sim.shots``); General Trauma's effect roll is not read here.
    run.whole = by_hp  # type: ignore[attr-defined]
    return run


def _many(hit_mod: int, dmg_mod: int, ties: bool, *, miss: Engagement,
          seen: dict[tuple[int, int], Engagement], hit: Callable[[int, int], Engagement]
          ) -> Callable[[int, Callable[[], float]], list[Engagement]]:
    """``engage_attack``'s ``run.many``, from its ledgers' totals, ties, miss, the hits seen
    and ``hit``."""

    def many(count: int, uniforms: Callable[[], float]) -> list[Engagement]:
        """``[run(face) for _ in range(count)]`` with ``face(faces) = int(uniforms() * faces)
        + 1`` (``sim``), the dice read inline (issue 27: a call of ``face`` per die was most of
        an engagement): the same engagements from the same uniforms, read in the same order."""

        def face(faces: int) -> int:
            return int(uniforms() * faces) + 1

        out = []
        for _ in range(count):
            a = int(uniforms() * 20) + 1  # soe 2.3, the shooter's RANT die, then the target's
            if a == 20:
                a = sum(exploding(face, 20, a))
            b = int(uniforms() * 20) + 1
            if b == 20:
                b = sum(exploding(face, 20, b))
            over = a + hit_mod - b
            if not (over > 0 or (over == 0 and ties)):  # ``rant.wins``
                out.append(miss)
                continue
            a = int(uniforms() * 20) + 1  # soe 2.4, the to-damage roll
            if a == 20:
                a = sum(exploding(face, 20, a))
            b = int(uniforms() * 20) + 1
            if b == 20:
                b = sum(exploding(face, 20, b))
            base = a + dmg_mod - b
            found = seen.get((over, base))
            if found is None:
                found = seen[over, base] = hit(over, base)
            out.append(found)
        return out

    return many
