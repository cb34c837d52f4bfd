"""The balance lab: resolve one request many times and count what happened.

``simulate(request, n, seed)`` returns the share of engagements that hit, ended in each state,
injury band or wound level the ruleset reports, incapacitated or killed the target, and carried
each effect, with 95 % Wilson intervals, next to the exact figures the engine's odds give.

An action may give the lab its own fast path (``Action.engage``): the resolver's rule functions
played without the record, checked against ``resolve`` face by face (tests/engine/
test_sim_engage.py). Every other engagement is the ruleset's own ``resolve``; what makes that
fast is that a resolution is a pure function of the dice faces it reads, in order, and which
die it asks for next depends only on the faces before. So the faces seen so far form a
tree: a branch asks for a d``faces``, a leaf holds what that resolution came to. An engagement
walks the tree drawing one face per branch; only a path not seen before runs ``resolve`` (with
the path's faces, then fresh ones) and adds its leaf. The dice are the same fair dice either way.
"""

from __future__ import annotations

import math
import os
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from firefight import api
from firefight.dice import Roller
from firefight.errors import FirefightError
from firefight.models import Resolution
from firefight.registry import Engagement, Face, Ruleset

# The tree stops growing at this many leaves (memory); later new paths still resolve in full.
MAX_LEAVES = 200_000
MAX_ENGAGEMENTS = 100_000_000
# Outcome fields that name a state, an injury band or a wound level in some ruleset.
STATE_FIELDS = ("result", "state", "state_after", "injury", "condition")
Z95 = 1.959963984540054  # two-sided 95 % normal quantile

Labels = tuple[str, ...]


def labels(ruleset: Ruleset, result: Resolution) -> Labels:
    """What one engagement came to, as labels counted by the lab."""
    return tally(ruleset, result.outcome, [(e.kind, e.value) for e in result.effects])


def tally(ruleset: Ruleset, outcome: Mapping[str, Any],
          effects: Iterable[tuple[str, object]]) -> Labels:
    """The labels of a result's outcome and its effects' (kind, value): ``hit``, each state
    field's value, each effect (with its value when a string), killed, incapacitated."""
    found: set[str] = set()
    states: set[str] = set()
    if outcome.get("hit"):
        found.add("hit")
    for key in STATE_FIELDS:
        value = outcome.get(key)
        if isinstance(value, str):
            found.add(f"{key}:{value}")
            states.add(value)
    for kind, value in effects:
        if isinstance(value, str):
            found.add(f"effect:{kind}={value}")
            if kind == "state":
                states.add(value)
        else:
            found.add(f"effect:{kind}")
    if states & ruleset.killed_states:
        found.add("killed")
    if states & ruleset.incapacitated_states:
        found.add("incapacitated")
    return tuple(sorted(found))


class _PathDice:
    """Replays the faces of a known path, then draws fresh ones; records (faces, face) read."""

    def __init__(self, path: list[int], draw: Callable[[], float]) -> None:
        self.path, self.draw = path, draw
        self.read: list[tuple[int, int]] = []

    def face(self, faces: int) -> int:
        i = len(self.read)
        # Fresh faces as Foundry maps a uniform to a die (firefight.dice.EntropyDice).
        value = self.path[i] if i < len(self.path) else int(self.draw() * faces) + 1
        self.read.append((faces, value))
        return value


class _Engagements:
    """One request's tree of dice paths (see the module docstring)."""

    def __init__(self, ruleset: Ruleset, model: Any) -> None:
        self.ruleset, self.model = ruleset, model
        self.root: list[Any] | None = None  # a branch: [faces, {face: node}]; a leaf: Labels
        self.leaves = 0

    def _resolve(self, path: list[int], draw: Callable[[], float]) -> Labels:
        dice = _PathDice(path, draw)
        found = labels(self.ruleset, self.ruleset.resolve(self.model, Roller(dice)))
        if self.leaves < MAX_LEAVES:
            self._insert(dice.read, found)
        return found

    def _insert(self, read: list[tuple[int, int]], found: Labels) -> None:
        if not read:
            self.root = [0, found]  # no dice at all: every engagement is this one
            self.leaves += 1
            return
        if self.root is None:
            self.root = [read[0][0], {}]
        node = self.root
        for i, (faces, value) in enumerate(read):
            if node[0] != faces:  # a pure resolve asks for the same die after the same faces
                raise FirefightError("the ruleset rolled different dice after the same faces",
                                     code="impure_ruleset")
            kids = node[1]
            if i + 1 == len(read):
                kids[value] = found
            else:
                nxt = kids.get(value)
                if nxt is None:
                    nxt = kids[value] = [read[i + 1][0], {}]
                node = nxt
        self.leaves += 1

    def run(self, n: int, rng: random.Random) -> Counter[Labels]:
        draw = rng.random
        act = self.ruleset.action(self.model.action)
        engagement = act.engage(self.model) if act.engage is not None else None
        if engagement is not None:
            return self._engaged(engagement, n, draw)
        counts: Counter[Labels] = Counter()
        for _ in range(n):
            node = self.root
            if node is not None and node[0] == 0:
                counts[node[1]] += 1
                continue
            path: list[int] = []
            while True:
                if node is None:
                    counts[self._resolve(path, draw)] += 1
                    break
                value = int(draw() * node[0]) + 1
                path.append(value)
                nxt = node[1].get(value)
                if nxt is None:
                    counts[self._resolve(path, draw)] += 1
                    break
                if type(nxt) is tuple:
                    counts[nxt] += 1
                    break
                node = nxt
        return counts

    def _engaged(self, engagement: Callable[[Face], Engagement], n: int,
                 draw: Callable[[], float]) -> Counter[Labels]:
        """The action's own fast path (``Action.engage``): no tree, no result built; each
        distinct engagement is turned into labels once."""

        def face(faces: int) -> int:
            return int(draw() * faces) + 1  # as Foundry maps a uniform to a die

        seen: Counter[Engagement] = Counter([engagement(face) for _ in range(n)])
        counts: Counter[Labels] = Counter()
        for (outcome, effects), k in seen.items():
            counts[tally(self.ruleset, dict(outcome), effects)] += k
        return counts


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a share k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # It holds p; min/max only undo float rounding at 0 and 1.
    return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))


def _fraction(text: object) -> Fraction | None:
    try:
        return Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        return None


def exact_figures(odds: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The labels whose chance the engine's odds give exactly (or as a float where it only has
    that): per engagement, not per roll."""
    out: dict[str, dict[str, Any]] = {}

    def put(label: str, exact: object = None, probability: object = None) -> None:
        p = _fraction(exact) if exact is not None else None
        if p is not None:
            out[label] = {"probability": float(p), "exact": f"{p.numerator}/{p.denominator}"}
        elif isinstance(probability, int | float):
            out[label] = {"probability": float(probability)}

    if "any_hit_exact" in odds or "any_hit_probability" in odds:
        put("hit", odds.get("any_hit_exact"), odds.get("any_hit_probability"))
    elif "probability" in odds:
        put("hit", odds.get("exact"), odds.get("probability"))
    if "death_exact" in odds:
        put("killed", odds["death_exact"])
    if "incapacitate_probability" in odds:
        put("incapacitated", probability=odds["incapacitate_probability"])
    p_hit = _fraction(odds.get("exact"))
    for result, given in (odds.get("given_hit_exact") or {}).items():
        g = _fraction(given)
        if p_hit is not None and g is not None and result not in ("miss", "stopped"):
            put(f"result:{result}", p_hit * g)
    return out


def _run_chunk(args: tuple[dict[str, Any], int, int]) -> Counter[Labels]:
    request, n, seed = args
    ruleset, model = api.parse(request)
    return _Engagements(ruleset, model).run(n, random.Random(seed))


def _check(request: object, n: object, seed: object, workers: object) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_ENGAGEMENTS:
        raise FirefightError(f"n must be a whole number from 1 to {MAX_ENGAGEMENTS}",
                             fields=[("n", f"1..{MAX_ENGAGEMENTS}")])
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise FirefightError("seed must be a whole number", fields=[("seed", "an integer")])
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise FirefightError("workers must be a whole number, 1 or more",
                             fields=[("workers", "1 or more")])


def _chunks(n: int, seed: int, pieces: int) -> list[tuple[int, int]]:
    """(engagements, seed) per piece; the seeds follow from the run's seed alone."""
    size, extra = divmod(n, pieces)
    return [(size + (i < extra), seed * 1_000_003 + i) for i in range(pieces)
            if size + (i < extra)]


def simulate(request: dict[str, Any], n: int = 100_000, seed: int | None = None, *,
             workers: int = 1, progress: Callable[[int, int], None] | None = None
             ) -> dict[str, Any]:
    """Resolve ``request`` ``n`` times; the distribution of outcomes (see the module docstring).

    Deterministic for a given ``seed`` and ``workers``. ``progress(done, n)`` is called as
    chunks finish. Bad input comes back as ``{"error": ...}`` naming the field.
    """
    try:
        _check(request, n, seed, workers)
        ruleset, model = api.parse(request)
        odds = ruleset.cached_odds(model)
    except FirefightError as exc:
        return {"error": exc.to_dict()}
    seed = seed if seed is not None else int.from_bytes(os.urandom(6), "big")
    # Chunks of at most 50 000, so a progress bar moves; each has its own seeded stream.
    pieces = max(workers, math.ceil(n / 50_000))
    jobs = [(request, k, s) for k, s in _chunks(n, seed, pieces)]
    counts: Counter[Labels] = Counter()
    done = 0
    try:
        results: Iterable[Counter[Labels]]
        if workers == 1 or sys.platform == "emscripten":  # Pyodide has no processes
            results = (_run_chunk(job) for job in jobs)
            pool = None
        else:
            import multiprocessing

            pool = multiprocessing.get_context("spawn" if os.name == "nt" else "fork"
                                               ).Pool(workers)
            results = pool.imap(_run_chunk, jobs)
        for job, part in zip(jobs, results, strict=True):
            counts.update(part)
            done += job[1]
            if progress is not None:
                progress(done, n)
        if pool is not None:
            pool.close()
            pool.join()
    except FirefightError as exc:
        return {"error": exc.to_dict()}
    return _report(ruleset.id, n, counts, exact_figures(odds), seed=seed, workers=workers)


def _report(ruleset_id: str, n: int, counts: Counter[Labels], exact: dict[str, dict[str, Any]],
            **run: Any) -> dict[str, Any]:
    per_label: Counter[str] = Counter()
    for found, k in counts.items():
        for label in found:
            per_label[label] += k
    for label in ("hit", "incapacitated", "killed"):
        per_label.setdefault(label, 0)
    outcomes = {}
    for label in sorted(per_label):
        k = per_label[label]
        low, high = wilson(k, n)
        row: dict[str, Any] = {"count": k, "share": k / n, "interval95": [low, high]}
        if label in exact:
            row["exact"] = exact[label]
        outcomes[label] = row
    return {"ruleset": ruleset_id, "n": n, **run, "outcomes": outcomes}
