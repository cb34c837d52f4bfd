"""shock Damage Systems: Hit Location (1d10), cover, Damage Class and Location Severity (1d10 +
the class Mod; class VI upgrades the result one tier instead), read by filling the sparse printed
table down. The ``attack`` action: to hit (``to_hit``), where it hits, whether cover stops it,
how severe it is, and what that does to the target (``wounds``); and its exact odds.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from firefight import house
from firefight.errors import named, rule_error
from firefight.models import Modifier
from firefight.record import Recorder, dump_recorded
from firefight.rulesets.shock import to_hit
from firefight.rulesets.shock.data import D10, SEVERITY_ROWS, exact, tables
from firefight.rulesets.shock.models import (
    DAMAGE_CLASSES,
    ID,
    TIERS,
    AttackRequest,
    P,
    ShockProtection,
)
from firefight.rulesets.shock.wounds import can_act, consequence, record_consequence

SEVERITY = "severity"  # the step id of the severity roll (a house-rule step)


def check_attack_allowed(request: AttackRequest) -> None:
    state = request.attacker.stats.state
    if not can_act(state):
        (name, said), field = named(request.attacker.name, "attacker"), "attacker.stats.state"
        if state == "stunned":
            raise rule_error("shock", "attacker_stunned",
                             f"{name} is stunned and skips this turn (shock STUN)",
                             field, "stunned: cannot attack", name=said)
        if state == "shock":
            raise rule_error("shock", "attacker_shock",
                             f"{name} is in shock and can no longer act (shock SHOCK)",
                             field, "shock: cannot attack", name=said)
        raise rule_error("shock", "attacker_dead", f"{name} is dead", field,
                         f"{state}: cannot attack", name=said)
    if request.target.stats.state == "dead":
        name, said = named(request.target.name, "target")
        raise rule_error("shock", "target_dead", f"{name} is already dead",
                         "target.stats.state", "dead: nothing more to resolve", name=said)


# --- Where it hits, and whether cover stops it --------------------------------------------------

def hit_location(roll: int) -> str:
    """shock Hit Location (1d10)."""
    return tables().location.lookup(roll)


def class_rank(damage_class: str) -> int:
    return DAMAGE_CLASSES.index(damage_class)


def cover_in_play(request: AttackRequest) -> list[ShockProtection]:
    """The dialog's cover preset, then the target's own cover and armor."""
    opts = request.options
    dialog = []
    if opts.cover != "none":
        dialog.append(ShockProtection(
            name="", category="cover", stops=opts.cover_stops,
            locations=list(tables().cover_presets[opts.cover]),
        ))
    return [*dialog, *request.target.cover, *request.target.armor]


def stopping_protection(request: AttackRequest, location: str,
                        in_play: list[ShockProtection] | None = None
                        ) -> tuple[ShockProtection | None, list[ShockProtection]]:
    """shock Hit Location: "Cover might mitigate what would otherwise be a hit if the cover is of
    sufficient protection to stop the attack." Cover (and armor) protects its locations against
    rounds of its ``stops`` class and below. Returns (what stopped it, what it went through)."""
    damage_class = request.weapon.damage_class
    pierced: list[ShockProtection] = []
    for protection in cover_in_play(request) if in_play is None else in_play:
        if location not in protection.locations:
            continue
        if class_rank(damage_class) <= class_rank(protection.stops):
            return protection, pierced
        pierced.append(protection)
    return None, pierced


def _named(protection: ShockProtection) -> dict[str, Any]:
    """A protection's name for the card; a nameless one (the dialog's cover) by its kind."""
    if protection.name:
        return {"name": protection.name}
    return {"name_key": f"{P}.cover.{protection.category}"}


# --- Severity ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Severity:
    roll: int
    modifier: int  # added to the roll: the class Mod (none for class VI) and house rules'
    modified: int  # roll + modifier
    row: int  # the modified roll clamped to the table, 1..10
    printed: str | None  # the cell as printed (None: empty, filled from above)
    tabled: str  # the table's result at that row
    result: str  # after a class VI upgrade
    upgraded: bool


def class_modifier(damage_class: str) -> int | None:
    """shock Damage Class "Mod"; None for class VI ("U": a severity upgrade)."""
    return tables().damage_class[damage_class].mod


def upgrade(result: str) -> str:
    """shock Damage Class: class VI "constitute[s] a severity upgrade ... Whatever result you
    receive becomes the next tier of severity"; death stays death."""
    return TIERS[min(TIERS.index(result) + 1, len(TIERS) - 1)]


def severity_ledger(request: AttackRequest) -> list[Modifier]:
    """shock Damage Class: "the power of the round will add or subtract from the roll" (class
    VI adds nothing: it upgrades), and any house rule's modifiers for this step."""
    damage_class = request.weapon.damage_class
    mod = class_modifier(damage_class)
    mods = [] if mod is None else [
        Modifier(key=f"{P}.mod.damage_class", value=mod,
                 source=f'shock Damage Class, "{damage_class}"', step=SEVERITY, side="target",
                 params={"damage_class": damage_class})]
    return mods + house.modifiers(ID, SEVERITY, request)


@cache  # a pure reading of the static tables: the odds read all 100 cells every time
def severity(location: str, roll: int, damage_class: str, modifier: int | None = None
             ) -> Severity:
    """shock Location Severity: 1d10 + ``modifier`` (by default the class Mod alone), clamped to
    rows 1..10, read by filling down; class VI: the next tier instead."""
    t = tables()
    vi = class_modifier(damage_class) is None
    if modifier is None:
        modifier = class_modifier(damage_class) or 0
    modified = roll + modifier
    row = min(max(modified, 1), SEVERITY_ROWS)
    tabled = t.severity[location][row - 1]
    return Severity(roll=roll, modifier=modifier, modified=modified, row=row,
                    printed=t.severity_printed[location][row - 1], tabled=tabled,
                    result=upgrade(tabled) if vi else tabled, upgraded=vi)


# --- The attack ----------------------------------------------------------------------------------

def attack(request: AttackRequest, rec: Recorder) -> None:
    """Resolve one shot: to hit, location, cover, severity, consequence."""
    check_attack_allowed(request)
    weapon_class = request.weapon.damage_class
    outcome: dict[str, Any] = {"hit": to_hit.roll_to_hit(request, rec),
                               "damage_class": weapon_class}
    if not outcome["hit"]:
        outcome["summary_key"] = rec.steps[-1].outcome_key  # the to-hit step: miss, or no hit
        _finish(request, rec, outcome)
        return

    # shock Hit Location: 1d10.
    roll, die = rec.roll(D10, purpose="hit location", side="target", purpose_key="roll.location")
    location = hit_location(roll)
    rec.step("location", kind="table", dice=[die], numbers={"roll": roll, "location": location},
             outcome=f"location.{location}", source="shock Hit Location")
    outcome["location"] = location

    # Cover (and armor) over that location stops rounds of its class and below.
    stopper, pierced = stopping_protection(request, location)
    for protection in pierced:
        rec.note("pierced", source="shock Damage Class", **_named(protection),
                 stops=protection.stops, damage_class=weapon_class)
    if stopper is not None:
        named = _named(stopper)
        rec.step("cover", kind="info", success=False, outcome="outcome.cover_stopped",
                 source="shock Hit Location; Damage Class", **named, stops=stopper.stops,
                 location_key=rec.key(f"location.{location}"))
        outcome.update(stopped=True, summary_key=rec.key("outcome.stopped"),
                       **{"cover" + k.removeprefix("name"): v for k, v in named.items()})
        _finish(request, rec, outcome)
        return
    outcome["stopped"] = False

    # shock Location Severity: 1d10 + class Mod (class VI: the next tier instead).
    roll, die = rec.roll(D10, purpose="severity", side="target", purpose_key="roll.severity")
    mods = rec.add(severity_ledger(request))
    sev = severity(location, roll, weapon_class, sum(m.value for m in mods))
    if sev.upgraded:
        rec.note("upgrade", source='shock Damage Class, "VI"',
                 from_key=rec.key(f"severity.{sev.tabled}"),
                 to_key=rec.key(f"severity.{sev.result}"))
    if sev.row != sev.modified:
        rec.note("clamped", source="shock Location Severity", modified=sev.modified, row=sev.row)
    if sev.printed is None:
        rec.note("filled", source="shock Location Severity", row=sev.row,
                 result_key=rec.key(f"severity.{sev.tabled}"),
                 location_key=rec.key(f"location.{location}"))
    rec.step(SEVERITY, kind="table", dice=[die],
             numbers={"roll": sev.roll, "modified": sev.modified, "row": sev.row,
                      "tabled": sev.tabled, "result": sev.result, "upgraded": sev.upgraded},
             outcome=f"severity.{sev.result}", source="shock Location Severity")

    # The result on the unit as it stands (stunned, wounded, in shock).
    stats = request.target.stats
    c = consequence(stats, sev.result, weapon_class, request.settings)
    record_consequence(rec, c)
    outcome.update(severity=sev.result, result=c.outcome, via=c.via,
                   wounds_added=c.wounds_added, wounds_before=stats.wounds,
                   wounds_after=c.wounds_after, state_before=stats.state,
                   state_after=c.state_after,
                   summary_key=rec.key(f"outcome.{c.outcome}"
                                       + ("_from_wounds" if c.via == "wounds_ten" else "")))
    _finish(request, rec, outcome)


def _finish(request: AttackRequest, rec: Recorder, outcome: dict[str, Any]) -> None:
    rec.outcome = {**outcome, "to_hit": "house" if to_hit.rolls(request) else "referee"}
    rec.card("attack", attacker=request.attacker.name, target=request.target.name,
             weapon=request.weapon.name, damage_class=request.weapon.damage_class,
             range=round(request.range.value, 1), units=request.range.units)


# --- Exact odds of an attack --------------------------------------------------------------------

OUTCOMES = ("miss", "stopped", "none", "stun", "wound", "shock", "death")


def outcome_distribution(request: AttackRequest) -> dict[str, Fraction]:
    """Exact chances of each outcome *given a hit*: every hit location x every severity roll.

    Counted in whole hundredths; the consequence of each distinct severity result is worked out
    once (it depends on the unit and the result only), not once per cell."""
    counts = dict.fromkeys(OUTCOMES, 0)
    weapon_class = request.weapon.damage_class
    in_play = cover_in_play(request)
    modifier = sum(m.value for m in severity_ledger(request))
    outcome_of: dict[str, str] = {}
    for location, results in _severity_counts(weapon_class, modifier):
        stopper, _ = stopping_protection(request, location, in_play)
        if stopper is not None:
            counts["stopped"] += D10 * results[0]
            continue
        for result, k in results[1]:
            if result not in outcome_of:
                outcome_of[result] = consequence(request.target.stats, result, weapon_class,
                                                 request.settings).outcome
            counts[outcome_of[result]] += k
    return {k: Fraction(v, D10 * D10) for k, v in counts.items()}


@lru_cache(maxsize=256)
def _severity_counts(weapon_class: str, modifier: int
                     ) -> tuple[tuple[str, tuple[int, tuple[tuple[str, int], ...]]], ...]:
    """Each hit location with the rolls of the Hit Location die that give it, and its severity
    results with the Severity rolls giving each (the 100 cells of ``outcome_distribution``
    counted once per damage class and modifier: a pure reading of the static tables)."""
    rolls: dict[str, int] = {}
    for loc_roll in range(1, D10 + 1):
        location = hit_location(loc_roll)
        rolls[location] = rolls.get(location, 0) + 1
    out = []
    for location, n in rolls.items():
        results: dict[str, int] = {}
        for sev_roll in range(1, D10 + 1):
            result = severity(location, sev_roll, weapon_class, modifier).result
            results[result] = results.get(result, 0) + n
        out.append((location, (n, tuple(results.items()))))
    return tuple(out)


# The outcomes of an attack before the roll, in display order (issue 15; lang keys
# ``FIREFIGHT.shock.odds.<name>``): "no_effect" is a hit stopped by cover or armor, or a stun on
# a unit in shock under the ``wound_or_worse`` setting.
SHOWN_OUTCOMES = ("miss", "no_effect", "stun", "wound", "shock", "death")


def shown_outcomes(p_hit: Fraction, given_hit: dict[str, Fraction]) -> list[dict[str, Any]]:
    """The whole attack's outcomes, mutually exclusive, summing to 1: to hit x location x
    severity (all exact: every face of the dice counted)."""
    chance = {"miss": 1 - p_hit,
              "no_effect": p_hit * (given_hit["stopped"] + given_hit["none"]),
              **{k: p_hit * given_hit[k] for k in ("stun", "wound", "shock", "death")}}
    return [{"key": f"{P}.odds.{k}", "probability": float(chance[k]), "exact": exact(chance[k])}
            for k in SHOWN_OUTCOMES]


def attack_odds(request: AttackRequest) -> dict[str, Any]:
    """The chance to hit (the house rule's, or the referee's 1 or 0), the chance of each outcome
    given a hit, the chance the target is put out of the fight (shock or death), every modifier
    known before the roll (to hit and severity) and the whole attack's outcomes."""
    check_attack_allowed(request)
    out: dict[str, Any] = {}
    mods: list[Modifier] = []
    if not to_hit.rolls(request):
        # No to-hit roll: the referee says whether it hit (SHOCK has no to-hit rule).
        p_hit = Fraction(1 if request.options.referee_confirmed_hit else 0)
        out.update(to_hit="referee", net_modifier=0)
    else:
        mods = to_hit.ledger(request)
        target_number = sum(m.value for m in mods)
        p_hit = to_hit.hit_probability(target_number)
        out.update(to_hit="house", net_modifier=target_number, target_number=target_number)
    mods = mods + severity_ledger(request)
    shown = _figures(p_hit, tuple(outcome_distribution(request).items()))
    out.update(
        probability=shown["probability"], exact=shown["exact"],
        given_hit=dict(shown["given_hit"]), given_hit_exact=dict(shown["given_hit_exact"]),
        incapacitate_probability=shown["incapacitate_probability"],
        modifiers=dump_recorded(mods),
        outcomes=[dict(o) for o in shown["outcomes"]],
    )
    return out


@lru_cache(maxsize=1024)
def _figures(p_hit: Fraction, given_hit: tuple[tuple[str, Fraction], ...]) -> dict[str, Any]:
    """The odds' figures from the chance to hit and the outcomes given a hit, cached by them
    (issue 27: most new requests have the numbers of one seen before); copied when handed
    out."""
    given = dict(given_hit)
    return {
        "probability": float(p_hit), "exact": exact(p_hit),
        "given_hit": {k: float(v) for k, v in given_hit if v},
        "given_hit_exact": {k: exact(v) for k, v in given_hit if v},
        "incapacitate_probability": float(p_hit * (given["shock"] + given["death"])),
        "outcomes": tuple(shown_outcomes(p_hit, given)),
    }
