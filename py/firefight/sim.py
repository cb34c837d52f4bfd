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

One label per fact: labels that marked exactly the same engagements are reported once (the
others under ``same_as``), so ``killed`` is not also counted as ``result:death`` and
``state:dead``. "Shots until incapacitated" repeats the request on the target as each shot
left it (its effects applied, ``Ruleset.apply``) until an incapacitated state, at most
``MAX_SHOTS`` times. The chunks of a run are fixed by ``n`` and the seed alone, so a run gives the
same counts in this process, in local processes or on a Dask cluster (``run_jobs``).
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from firefight import api, house
from firefight.dice import Roller
from firefight.errors import FirefightError
from firefight.models import Effect, Resolution
from firefight.registry import Engagement, Face, Ruleset

# The tree stops growing at this many leaves (memory); later new paths still resolve in full.
MAX_LEAVES = 200_000
MAX_ENGAGEMENTS = 100_000_000
# Outcome fields that name the hit's result or injury band (``result:death``, ``injury:fatal``).
RESULT_FIELDS = ("result", "injury")
# Outcome fields that name the target's state after the engagement, all counted as ``state:<s>``
# (as is a ``state`` effect's value).
STATE_FIELDS = ("state", "state_after", "condition")
# Always reported (zero or not), and never folded into one another.
HEADLINE = ("killed", "incapacitated", "hit")
Z95 = 1.959963984540054  # two-sided 95 % normal quantile
# A run's engagements go in chunks of at most this many, each with its own seeded stream.
CHUNK = 50_000
# "Shots until incapacitated": one chain of shots per this many engagements, each at most
# MAX_SHOTS long (a longer one counts as "more").
SHOTS_EVERY = 250
MAX_SHOTS = 20
MORE = f">{MAX_SHOTS}"

Labels = tuple[str, ...]
# One chunk of a run: (request, engagements, seed).
Job = tuple[dict[str, Any], int, int]
# What a chunk counted: the label sets, and the shots each chain took (0: more than MAX_SHOTS),
# or why the request has no such figure.
Chunk = tuple[Counter[Labels], Counter[int] | str]


def labels(ruleset: Ruleset, result: Resolution | Played) -> Labels:
    """What one engagement came to, as labels counted by the lab."""
    return tally(ruleset, result.outcome, [(e.kind, e.value) for e in result.effects])


def tally(ruleset: Ruleset, outcome: Mapping[str, Any],
          effects: Iterable[tuple[str, object]]) -> Labels:
    """The labels of a result's outcome and its effects' (kind, value): ``hit``, the result or
    injury band, the target's state, each other effect (with its value when a string), killed,
    incapacitated."""
    found: set[str] = set()
    states: set[str] = set()
    if outcome.get("hit"):
        found.add("hit")
    for key in RESULT_FIELDS:
        value = outcome.get(key)
        if isinstance(value, str):
            found.add(f"{key}:{value}")
            states.add(value)
    for key in STATE_FIELDS:
        value = outcome.get(key)
        if isinstance(value, str):
            found.add(f"state:{value}")
            states.add(value)
    for kind, value in effects:
        if kind == "state" and isinstance(value, str):
            found.add(f"state:{value}")
            states.add(value)
        elif isinstance(value, str):
            found.add(f"effect:{kind}={value}")
        else:
            found.add(f"effect:{kind}")
    if states & ruleset.killed_states:
        found.add("killed")
    if states & ruleset.incapacitated_states:
        found.add("incapacitated")
    return tuple(sorted(found))


class Played(NamedTuple):
    """What the lab reads of a resolve: its outcome and its effects."""

    outcome: dict[str, Any]
    effects: list[Effect]


def played(ruleset: Ruleset, model: Any, roller: Roller, key: str | None = None
           ) -> Resolution | Played:
    """``ruleset.resolve(model, roller)`` as far as the lab reads it (``outcome``,
    ``effects``): the core's resolve without the request's dump, the card's odds and the
    Resolution built (issue 27: they were half of a lab's full resolve); a ruleset's own
    ``resolve`` is called as it is. ``key``: the model's JSON, so the work done once per
    request (``Recorder.once``) is done once for all of a run's resolves."""
    if type(ruleset).resolve is not Ruleset.resolve:
        return ruleset.resolve(model, roller)
    _act, rec = ruleset.recorded(model, roller, key)
    return Played(rec.outcome, rec.effects)


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

    def __init__(self, ruleset: Ruleset, model: Any,
                 leaf: Callable[[Resolution | Played], tuple[Any, ...]] | None = None) -> None:
        self.ruleset, self.model = ruleset, model
        # What a leaf keeps of a resolution (a tuple): by default its labels.
        self.leaf = leaf if leaf is not None else lambda result: labels(ruleset, result)
        self.root: list[Any] | None = None  # a branch: [faces, {face: node}]; a leaf: a tuple
        self.key: str | None = None  # the model's JSON (``played``), written when first needed
        self.leaves = 0

    def _resolve(self, path: list[int], draw: Callable[[], float]) -> Any:
        dice = _PathDice(path, draw)
        if self.key is None:
            self.key = self.model.model_dump_json()
        found = self.leaf(played(self.ruleset, self.model, Roller(dice), self.key))
        if self.leaves < MAX_LEAVES:
            self._insert(dice.read, found)
        return found

    def _insert(self, read: list[tuple[int, int]], found: tuple[Any, ...]) -> None:
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
        # A house rule's ``after`` hook is only in the full resolve: no fast path then.
        engage = None if house.has_after(self.ruleset.id, self.model) else act.engage
        engagement = engage(self.model) if engage is not None else None
        if engagement is not None:
            return self._engaged(engagement, n, draw)
        one = self.one
        return Counter([one(draw) for _ in range(n)])

    def one(self, draw: Callable[[], float], given: Sequence[int] = ()) -> Any:
        """One engagement: its leaf, walking the tree (and resolving a path not seen before).
        ``given``: its first faces, drawn already (by the action's fast path)."""
        node = self.root
        if node is not None and node[0] == 0:
            return node[1]
        path: list[int] = []
        while True:
            if node is None:
                return self._resolve([*path, *given[len(path):]], draw)
            i = len(path)
            value = given[i] if i < len(given) else int(draw() * node[0]) + 1
            path.append(value)
            nxt = node[1].get(value)
            if nxt is None:
                return self._resolve([*path, *given[len(path):]], draw)
            if type(nxt) is tuple:
                return nxt
            node = nxt

    def _engaged(self, engagement: Callable[[Face], Engagement], n: int,
                 draw: Callable[[], float]) -> Counter[Labels]:
        """The action's own fast path (``Action.engage``): no tree, no result built; each
        distinct engagement is turned into labels once."""

        def face(faces: int) -> int:
            return int(draw() * faces) + 1  # as Foundry maps a uniform to a die

        many = getattr(engagement, "many", None)  # the same engagements, n at a time
        seen: Counter[Engagement] = Counter(
            many(n, draw) if many is not None else [engagement(face) for _ in range(n)])
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


def _target_stats(request: Mapping[str, Any]) -> dict[str, Any] | None:
    target = request.get("target")
    stats = target.get("stats") if isinstance(target, dict) else None
    return stats if isinstance(stats, dict) else None


def shots(ruleset: Ruleset, request: dict[str, Any], chains: int, rng: random.Random
          ) -> Counter[int]:
    """How many times ``request`` is repeated until its target is incapacitated, for ``chains``
    chains (0: not within ``MAX_SHOTS``). Each shot's effects on the target (``Ruleset.apply``)
    carry into the next; each target state the chains reach gets its own tree of dice paths."""
    first = _target_stats(request)
    if first is None:
        raise FirefightError("the request has no target stats to repeat the shot on",
                             code="no_target_stats")
    trees: dict[str, _Engagements] = {}
    stats_of: dict[str, dict[str, Any]] = {}

    def key(stats: dict[str, Any]) -> str:
        text = json.dumps(stats, sort_keys=True)
        stats_of.setdefault(text, stats)
        return text

    def tree(state: str) -> _Engagements:
        found = trees.get(state)
        if found is None:
            stats = stats_of[state]
            _, model = api.parse({**request, "target": {**request["target"], "stats": stats}})

            def leaf(result: Resolution | Played) -> tuple[bool, str]:
                if "incapacitated" in labels(ruleset, result):
                    return True, ""
                effects = [e.model_dump(mode="json") for e in result.effects
                           if e.target == "target" and e.on_actor]
                return False, key(ruleset.apply(stats, effects)["stats"]) if effects else state

            found = trees[state] = _Engagements(ruleset, model, leaf)
            engage = ruleset.action(getattr(model, "action", None)).engage
            fast[state] = engage(model) if engage is not None else None
        return found

    # The action's fast path first (``Action.engage``, issue 27: a chain of a 60-round burst
    # was a full resolve a shot, half of the lab's time): a shot that puts the target out ends
    # the chain there; any other is resolved in full from the faces the fast path read (the
    # tree's), for the effects it leaves on the target.
    fast: dict[str, Callable[[Face], Engagement] | None] = {}
    # What a shot leaves, by its engagement, for a fast path whose engagement is ``whole``.
    after: dict[Engagement, tuple[bool, str]] = {}
    draw = rng.random

    def shot_at(state: str) -> tuple[bool, str]:
        found = tree(state)
        engagement = fast[state]
        if engagement is None:
            out: tuple[bool, str] = found.one(draw)
            return out
        read: list[int] = []

        def face(faces: int) -> int:
            value = int(draw() * faces) + 1  # as _PathDice draws it
            read.append(value)
            return value

        outcome, effects = engagement(face)
        if "incapacitated" in tally(ruleset, dict(outcome), effects):
            return True, ""
        if not getattr(engagement, "whole", False):
            again: tuple[bool, str] = found.one(draw, read)
            return again
        # The fast path's engagement says the target's data after the shot (``whole``): each
        # is resolved in full once (issue 27: a chain's shots were most of the lab's time,
        # each a resolve of dice paths seldom seen twice).
        leaf = after.get((outcome, effects))
        if leaf is None:
            leaf = after[outcome, effects] = found.one(draw, read)
        return leaf

    start = key(first)
    taken: Counter[int] = Counter()
    for _ in range(chains):
        state = start
        for shot in range(1, MAX_SHOTS + 1):
            out, state = shot_at(state)
            if out:
                taken[shot] += 1
                break
        else:
            taken[0] += 1
    return taken


def _run_chunk(job: Job) -> Chunk:
    request, n, seed = job
    ruleset, model = api.parse(request)
    counts = _Engagements(ruleset, model).run(n, random.Random(seed))
    taken: Counter[int] | str
    try:  # a stream of its own, so the counts above are the same with or without this figure
        taken = shots(ruleset, request, math.ceil(n / SHOTS_EVERY), random.Random(f"{seed}/shots"))
    except FirefightError as exc:
        taken = exc.message
    return counts, taken


def _check(request: object, n: object, seed: object, workers: object) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_ENGAGEMENTS:
        raise FirefightError(f"n must be a whole number from 1 to {MAX_ENGAGEMENTS}",
                             fields=[("n", f"1..{MAX_ENGAGEMENTS}")])
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise FirefightError("seed must be a whole number", fields=[("seed", "an integer")])
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise FirefightError("workers must be a whole number, 1 or more",
                             fields=[("workers", "1 or more")])


def chunks(request: dict[str, Any], n: int, seed: int) -> list[Job]:
    """A run's chunks: (request, engagements, seed), fixed by ``n`` and ``seed`` alone (not by
    what runs them)."""
    pieces = math.ceil(n / CHUNK)
    size, extra = divmod(n, pieces)
    return [(request, size + (i < extra), seed * 1_000_003 + i) for i in range(pieces)]


def run_jobs(jobs: Sequence[Job], *, workers: int = 1, scheduler: Any = None,
             progress: Callable[[int], None] | None = None, timeout: float | None = None
             ) -> list[Chunk]:
    """Each job's counts, in order: in this process (``workers`` 1), in ``workers`` local
    processes, or on a Dask cluster (``scheduler``: its address, ``"local"`` for a
    ``LocalCluster`` of ``workers`` processes on this machine, or a ``distributed.Client``).
    ``progress(engagements)`` as each job finishes; ``timeout`` (s) bounds a Dask run."""
    if scheduler is not None:
        return _run_dask(jobs, scheduler, workers, progress, timeout)
    out: list[Chunk] = []
    if workers == 1 or sys.platform == "emscripten":  # Pyodide has no processes
        for job in jobs:
            out.append(_run_chunk(job))
            if progress is not None:
                progress(job[1])
        return out
    import multiprocessing

    ctx = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    with ctx.Pool(workers) as pool:
        for job, part in zip(jobs, pool.imap(_run_chunk, jobs), strict=True):
            out.append(part)
            if progress is not None:
                progress(job[1])
    return out


DASK_CONNECT_S = 30  # how long to wait for a scheduler to answer


def _run_dask(jobs: Sequence[Job], scheduler: Any, workers: int,
              progress: Callable[[int], None] | None, timeout: float | None) -> list[Chunk]:
    """The jobs on a Dask cluster (docs/building.md, "Balance lab on a Dask cluster"): every
    worker needs this version of firefight installed."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise FirefightError("--scheduler needs Dask: pip install 'firefight[lab]'",
                             fields=[("scheduler", "dask.distributed is not installed")],
                             code="missing_dependency") from None
    own: list[Any] = []  # what this call started, closed at the end
    try:
        if isinstance(scheduler, Client):
            client = scheduler
        else:
            if scheduler == "local":
                cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=workers, threads_per_worker=1, processes=True,
                    dashboard_address=None)
                own.append(cluster)
                scheduler = cluster
            try:
                client = Client(  # type: ignore[no-untyped-call]
                    scheduler, timeout=DASK_CONNECT_S)
            except (OSError, TimeoutError) as exc:
                raise FirefightError(f"no Dask scheduler at {scheduler!r}: {exc}",
                                     fields=[("scheduler", "a reachable scheduler address")],
                                     code="no_scheduler") from None
            own.insert(0, client)
        futures = client.map(_run_chunk, list(jobs), pure=False)
        where = {f.key: i for i, f in enumerate(futures)}
        out: list[Chunk | None] = [None] * len(jobs)
        for future in as_completed(futures, timeout=timeout):  # type: ignore[no-untyped-call]
            i = where[future.key]
            out[i] = future.result()
            if progress is not None:
                progress(jobs[i][1])
        return [part for part in out if part is not None]
    finally:
        for thing in own:
            thing.close()


def simulate(request: dict[str, Any], n: int = 100_000, seed: int | None = None, *,
             workers: int = 1, scheduler: Any = None,
             progress: Callable[[int, int], None] | None = None,
             timeout: float | None = None) -> dict[str, Any]:
    """Resolve ``request`` ``n`` times; the distribution of outcomes (see the module docstring).

    Deterministic for a given ``seed``, whatever runs it (``run_jobs``: this process,
    ``workers`` processes, a Dask ``scheduler``). ``progress(done, n)`` is called as chunks
    finish. Bad input comes back as ``{"error": ...}`` naming the field.
    """
    try:
        _check(request, n, seed, workers)
        ruleset, model = api.parse(request)
        odds = ruleset.cached_odds(model)
    except FirefightError as exc:
        return {"error": exc.to_dict()}
    seed = seed if seed is not None else int.from_bytes(os.urandom(6), "big")
    done = 0

    def step(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done, n)

    try:
        parts = run_jobs(chunks(request, n, seed), workers=workers, scheduler=scheduler,
                         progress=step, timeout=timeout)
    except FirefightError as exc:
        return {"error": exc.to_dict()}
    counts, taken = merge(parts)
    run: dict[str, Any] = {"seed": seed, "workers": workers}
    if scheduler is not None:
        run["scheduler"] = scheduler if isinstance(scheduler, str) else "client"
    return report(ruleset.id, n, counts, exact_figures(odds), taken=taken,
                  folded=facts([counts]), **run)


def merge(parts: Iterable[Chunk]) -> tuple[Counter[Labels], Counter[int] | str]:
    """One run's counts and shots from its chunks'."""
    counts: Counter[Labels] = Counter()
    taken: Counter[int] | str = Counter()
    for part, chain in parts:
        counts.update(part)
        if isinstance(chain, str):
            taken = chain
        elif not isinstance(taken, str):
            taken.update(chain)
    return counts, taken


def _rank(label: str) -> tuple[int, str]:
    if label in HEADLINE:
        return HEADLINE.index(label), label
    kinds = ("result:", "injury:", "state:", "effect:")
    for i, kind in enumerate(kinds):
        if label.startswith(kind):
            return len(HEADLINE) + i, label
    return len(HEADLINE) + len(kinds), label


def facts(runs: Iterable[Counter[Labels]]) -> dict[str, list[str]]:
    """One label per fact: labels that marked exactly the same engagements in every run are one
    fact, reported under the first (``HEADLINE``, then result or injury bands, states,
    effects). Returns {label reported: [labels folded into it]}; the headline labels are never
    folded into one another."""
    marks: dict[str, set[tuple[int, Labels]]] = {}
    for i, counts in enumerate(runs):
        for found in counts:
            for label in found:
                marks.setdefault(label, set()).add((i, found))
    groups: dict[frozenset[tuple[int, Labels]], list[str]] = {}
    for label, marked in marks.items():
        groups.setdefault(frozenset(marked), []).append(label)
    out: dict[str, list[str]] = {label: [] for label in HEADLINE}
    for group in groups.values():
        group.sort(key=_rank)
        kept = [label for label in group if label in HEADLINE] or group[:1]
        for label in kept[1:]:  # e.g. incapacitated where only a death puts a target out
            out[label] = [kept[0]]
        out.setdefault(kept[0], [])
        out[kept[0]] += [label for label in group if label not in kept]
    return dict(sorted(out.items(), key=lambda item: _rank(item[0])))


def _share(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"count": k, "share": k / n if n else 0.0, "interval95": [low, high]}


def shots_report(taken: Counter[int] | str) -> dict[str, Any]:
    """The distribution of shots until incapacitated: each number's share of the chains (and
    ``MORE``), the median (None past ``MAX_SHOTS``) and the mean of the chains that ended."""
    if isinstance(taken, str):
        return {"unavailable": taken}
    chains = sum(taken.values())
    shares = {str(k): _share(taken[k], chains) for k in range(1, MAX_SHOTS + 1) if taken[k]}
    shares[MORE] = _share(taken[0], chains)
    ended = chains - taken[0]
    median, seen = None, 0
    for k in range(1, MAX_SHOTS + 1):
        seen += taken[k]
        if 2 * seen >= chains:
            median = k
            break
    mean = sum(k * c for k, c in taken.items() if k) / ended if ended else None
    return {"chains": chains, "max": MAX_SHOTS, "median": median, "mean": mean,
            "distribution": shares}


def report(ruleset_id: str, n: int, counts: Counter[Labels], exact: dict[str, dict[str, Any]],
           *, taken: Counter[int] | str, folded: Mapping[str, list[str]], **run: Any
           ) -> dict[str, Any]:
    """A run's figures: each fact's count, share, 95 % interval and, where the odds give it,
    exact figure (``folded``: ``facts``)."""
    per_label: Counter[str] = Counter()
    for found, k in counts.items():
        for label in found:
            per_label[label] += k
    outcomes = {}
    for label, same in folded.items():
        row: dict[str, Any] = _share(per_label[label], n)
        if same:
            row["same_as"] = same
        for name in (label, *same):  # a folded label's exact figure is this fact's
            if name in exact:
                row["exact"] = exact[name]
                break
        outcomes[label] = row
    return {"ruleset": ruleset_id, "n": n, **run, "outcomes": outcomes,
            "shots_until_incapacitated": shots_report(taken)}


def figure(row: dict[str, Any]) -> tuple[float, bool]:
    """An outcome's figure to read (the lab's tables and charts): the exact one where the odds
    give it, else the sampled."""
    exact = row.get("exact")
    return (exact["probability"], True) if exact else (row["share"], False)
