// One write queue per actor on this client. Every Firefight write to an actor's data (apply,
// undo, the end-of-combat effects, the sheet's Save, the healing clock) runs through it, and reads
// the actor's current data inside it: a writer that read the data before another's write landed
// would write the old values back (reliability audit D9, a lost update).
//
// Writes of several actors at once (one result hitting several figures) take every actor's turn
// in one order (sorted by key), so two of them can never wait for each other.

const tails = new Map(); // actor key -> promise settled when the last queued write is done

/** The key of an actor's queue: its UUID (an unlinked token's synthetic actor has its own). */
export function actorKey(actor) {
  return String(actor?.uuid ?? actor?.id ?? actor ?? "");
}

/**
 * Run fn() once every write queued before it on any of these actors is done; the actors' queues
 * wait for fn. Resolves or rejects with fn's outcome (a failure does not stop the queue).
 */
export async function withActors(actors, fn) {
  const keys = [...new Set((actors ?? []).filter(Boolean).map(actorKey))].sort();
  const releases = [];
  const waits = [];
  for (const key of keys) {
    const prev = tails.get(key) ?? Promise.resolve();
    let release;
    const mine = new Promise((resolve) => { release = resolve; });
    const tail = prev.then(() => mine);
    tails.set(key, tail);
    // Forget a settled queue, so the map does not grow with every actor ever written.
    tail.then(() => { if (tails.get(key) === tail) tails.delete(key); });
    releases.push(release);
    waits.push(prev);
  }
  try {
    await Promise.all(waits);
    return await fn();
  } finally {
    for (const release of releases) release();
  }
}

/** withActors for one actor. */
export function withActor(actor, fn) {
  return withActors([actor], fn);
}

/** Whether a write is queued or running on this actor (tests, and the sheet's hint). */
export function isBusy(actor) {
  return tails.has(actorKey(actor));
}
