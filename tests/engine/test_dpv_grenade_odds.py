"""2300 AD: a grenade's odds cover every card the shot can end in (issue 25 item 2): the shot's
own card, and the blast the table sets off where the round lands (at the target on a hit; on a
miss where it deviates to, 1D10 x the weapon type's metres from the target), the target's
gravest condition of the two. Checked by hand for one small case and against the table's own
sequence (attack, deviation, explosion) sampled with seeded dice."""

from __future__ import annotations

import copy
import math
import random
from fractions import Fraction
from typing import Any

import pytest

import firefight

LOCATIONS = ["head", "chest", "abdomen", "upper_leg", "lower_leg", "arm"]
# The conditions a card ends in, mildest first (independent of the engine's list).
CONDITIONS = ["unhurt", "wounded", "incapacitated", "unconscious", "dead"]
VEHICLE = ["no_penetration", "no_effect", "crew", "two_crew", "armament", "mobility",
           "catastrophic"]
GRENADE = {"name": "Hand grenade", "kind": "explosive", "effective_range_m": 30, "dpv": 0,
           "ep": 1, "deviation": "direct_fire"}


def grenade_at(target: dict[str, Any], *, weapon: dict[str, Any] | None = None,
               range_m: float = 10, **options: Any) -> dict[str, Any]:
    return {"ruleset": "dpv", "action": "attack",
            "attacker": {"name": "Grenadier", "pc": True,
                         "stats": {"skills": {"marksmanship": 3}}},
            "target": target, "weapon": copy.deepcopy(weapon or GRENADE),
            "range": {"value": range_m, "units": "m"}, "options": {"shots": 1, **options}}


def exact(odds: dict[str, Any]) -> dict[str, Fraction]:
    out = {o["key"].rsplit(".", 1)[1]: Fraction(o["exact"]) for o in odds["outcomes"]}
    assert sum(out.values()) == 1
    return out


def test_a_grenade_at_armored_npc_by_hand() -> None:
    # A veteran NPC (unconscious at 1 shock or 3 stun) in armor 0.4 on every location: the
    # fragments (DPV 0.4 / 0.2) do nothing, so only the concussion counts. Close range:
    # Routine, Marksmanship 3: 8 of 10 hit. The grenade's own DPV 0 does nothing.
    target = {"name": "Veteran", "stats": {"experience": "veteran"},
              "armor": [{"name": "Suit", "value": 0.4, "locations": LOCATIONS}]}
    out = exact(firefight.odds(grenade_at(target)))
    # Within 5 m (EP 1): concussion 2, a hit on 1-2; blunt DPV 2 - 0.4 = 1.6, the first column:
    # potential kill (2/10) kills, serious "DPV x Shock*" = 1 point, odd: a stun, KD; light KD.
    near = {"dead": Fraction(2, 10) * Fraction(2, 10), "wounded": Fraction(2, 10) * Fraction(8, 10)}
    # 6-10 m: concussion 1, a hit on a 1; DPV 0.6: 1D10 <= 6 the second column, else the third.
    # Potential kill: Kill, or Shock, KD (unconscious); serious: a light wound, KD, in both;
    # light: KD in the second column, no effect in the third.
    far = {"dead": Fraction(1, 10) * Fraction(2, 10) * Fraction(6, 10),
           "unconscious": Fraction(1, 10) * Fraction(2, 10) * Fraction(4, 10),
           "wounded": Fraction(1, 10) * (Fraction(4, 10) + Fraction(4, 10) * Fraction(6, 10))}
    # A miss (2/10) deviates 1D10 x 1 m (direct fire): 1-5 m and 6-10 m, half each.
    miss, hit = Fraction(2, 10), Fraction(8, 10)
    blast = {c: miss * (near.get(c, 0) + far.get(c, 0)) / 2 for c in ("wounded", "unconscious",
                                                                          "dead")}
    assert out == {"miss": miss - sum(blast.values()),
                   **{f"blast_{c}": p for c, p in blast.items()},
                   "hit_unhurt": hit * (1 - sum(near.values())),
                   **{f"hit_{c}": hit * p for c, p in near.items()}}
    assert out["blast_dead"] == Fraction(13, 2500)
    assert out["blast_wounded"] == Fraction(14, 625)
    assert out["hit_dead"] == Fraction(4, 125)


def table_outcome(request: dict[str, Any], rng: random.Random) -> str:
    """What the table does (js-shim/canvas/features.mjs, afterExplodingShot): the shot; the
    blast where the round lands (the impact's offset from the target, or the target on a hit;
    nowhere when it misses without deviating); the target's gravest condition of the cards."""
    shot = firefight.resolve(request, seed=rng.randrange(2**31))
    outcome = shot["outcome"]
    impact = next((e["params"] for e in shot["effects"] if e["kind"] == "impact"), None)
    vehicle = "vehicle_results" in outcome
    conditions = outcome["vehicle_results"] if vehicle else [outcome["condition"]]
    if impact is not None or outcome["hit"]:
        distance = 0.0 if impact is None else round(math.hypot(impact["forward_m"],
                                                                impact["right_m"]), 2)
        blast = firefight.resolve({"ruleset": "dpv", "action": "explosion",
                                   "ep": request["weapon"]["ep"], "options": {},
                                   "targets": [{**request["target"], "distance_m": distance}]},
                                  seed=rng.randrange(2**31))
        figure = blast["outcome"]["figures"][0]
        conditions += figure.get("vehicle_results", []) if vehicle else [figure["condition"]]
    if vehicle:  # the gravest VEHICLE DAMAGE result of the two cards
        worst = max(conditions, key=VEHICLE.index, default="")
        return (f"vehicle_{worst}" if outcome["hit"] else
                f"blast_vehicle_{worst}" if worst else "miss")
    worst = max(conditions, key=CONDITIONS.index)
    if outcome["hit"]:
        return f"hit_{worst}"
    return "miss" if worst == "unhurt" else f"blast_{worst}"


@pytest.mark.parametrize(("target", "weapon", "range_m", "shots"), [
    # An unarmored PC (unconscious at 3 shock and stun, dead at 6 shock) with a point of shock
    # already; an EP 3 indirect grenade at 60 m (5 m a point; burst radius 10 m).
    ({"name": "PC", "pc": True, "stats": {"consciousness_level": 3, "life_level": 6,
                                          "shock": 1}},
     {"ep": 3, "deviation": "indirect_grenade", "indirect_range_m": 400,
      "effective_range_m": 150}, 60, 1),
    # Two rounds of a grenade launcher with DPV of its own at a green NPC: the blast where the
    # first miss lands, or at the target when both hit.
    ({"name": "Green", "stats": {"experience": "green"}},
     {"ep": 2, "dpv": 0.5, "rof": 2, "effective_range_m": 60}, 20, 2),
    # A jeep: VEHICLE DAMAGE from the grenade's EP 8 concussion (DPV 16 within 5 m).
    ({"name": "Jeep", "stats": {"vehicle_armor": 2}}, {"ep": 8}, 10, 1),
])
def test_a_grenade_sampled_through_the_table_matches_the_exact_odds(
        target: dict[str, Any], weapon: dict[str, Any], range_m: float, shots: int) -> None:
    request = grenade_at(target, weapon={**GRENADE, **weapon}, range_m=range_m, shots=shots)
    odds = exact(firefight.odds(request))
    rng, n = random.Random(25), 1500
    counts: dict[str, int] = {}
    for _ in range(n):
        key = table_outcome(request, rng)
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) <= set(odds), (counts, odds)
    for key, p in odds.items():
        sd = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(counts.get(key, 0) / n - float(p)) <= 5 * sd + 1e-9, (key, counts, p)


def test_a_round_that_does_not_deviate_blasts_only_on_a_hit() -> None:
    # EP without a deviation type: the table sets the blast off at the target on a hit only.
    weapon = {k: v for k, v in GRENADE.items() if k != "deviation"}
    out = exact(firefight.odds(grenade_at({"name": "PC", "pc": True}, weapon=weapon)))
    assert out["miss"] == Fraction(2, 10)
    assert not any(k.startswith("blast_") for k in out)


def test_a_rifle_keeps_its_wound_levels() -> None:
    rifle = {"name": "Rifle", "effective_range_m": 100, "dpv": 0.7}
    out = exact(firefight.odds(grenade_at({"name": "PC", "pc": True}, weapon=rifle)))
    assert set(out) <= {"miss", "none", "knocked_down", "light_wound", "stun", "shock", "kill"}
