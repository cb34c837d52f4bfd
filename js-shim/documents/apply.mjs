// Applying a result to the actors it names, exactly once, through the GM; and undoing it.
//
// The engine decides what a result does to an actor (bridge op "apply"); this module only
// finds the actors, reads their current flags, writes back what the engine returns, and keeps
// the authoritative record of it ON EACH ACTOR, written by the GM in the same update as the
// actor's data (docs/architecture.md, "Trust model"):
//   actor.flags.firefight.applied.<messageId> = {hash, by (the requester), gm (the GM who wrote
//     it), at, messageId, ruleset, tokenId, name, before, after, beforeConditions, conditions,
//     statuses: {the world's status id: wasActive}, missingStatuses: [engine ids the system
//     lacks], changes, source (the result's actor group whose effects these are), mode
//     ("targets" | "selected"), variant ("full" | "half" | "double" | "heal")}; after an undo the
//     same without the data, plus undone: {by, at} (a tombstone: a player's result stays spent;
//     a GM may apply it again, Redo, which writes a new record over it)
// Only the actor's owners and GMs may write it, so a player can neither delete the record of a
// result applied to an actor they do not own (and have it applied twice) nor forge one that the
// GM's Undo would write; and Undo restores a `before` only if the engine, applying the result's
// effects to it, gives the record's `after`. The chat message (which its author may edit) only
// carries what the card shows while it re-renders, never read by a decision:
//   message.flags.firefight.applying = {by, gm, at}   (while the GM writes; the card says so)
//   message.flags.firefight.applied = {by, at, hash, mode, variant, actors: {key: {actorId, tokenId, name, missingStatuses}}}
//   message.flags.firefight.undone = {by, at, actors: {key: {actorId, tokenId, name}}}
// (`actors` only says where else to look for records: the selected tokens a GM chose.)
// Stats, statuses and the record land together or not at all (writeAll), inside the actors'
// write queues (writes.mjs); every actor is the token's own (an unlinked token's synthetic actor,
// on any scene). A player's request goes to the active GM over the module socket (relay.mjs,
// which takes the sender from Foundry, never from the payload); the GM re-checks it against the
// real message, its dice and the table (verify.mjs) and applies it in a queue.
import { MODULE_ID } from "../core/config.mjs";
import { facesOfRoll } from "../core/dice.mjs";
import { stableStringify } from "../core/json.mjs";
import { t, said, localize, fieldErrorsText } from "../core/i18n.mjs";
import { actingParticipant, ownsToken, SELF_FIELDS } from "../workflow/request.mjs";
import { statusPlan, setStatus, systemStatus } from "../systems/index.mjs";
import { withActors } from "./writes.mjs";
import { SOCKET, REPLY_TIMEOUT_MS, Refusal, ask, isActiveGM, listen, onRequest } from "../relay/relay.mjs";
import { worldMismatch } from "../relay/verify.mjs";
import { gmRollsShots } from "../world/settings.mjs";

export { SOCKET, stableStringify };

// --- pure helpers ------------------------------------------------------------------------------


/** 64-bit FNV-1a of a result's stable JSON, as 16 hex digits (works without crypto.subtle). */
export function resultHash(result) {
  const text = stableStringify(result ?? null);
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * prime) & mask;
  }
  return h.toString(16).padStart(16, "0");
}

/** Participant fields of non-attack requests that stand for the "target" side of an effect. */
const TARGET_SIDE_FIELDS = ["patient", "character", "actor"];

function soleParticipant(request, side) {
  if (side !== "target") return null;
  for (const f of TARGET_SIDE_FIELDS) if (request?.[f]?.actor_id || request?.[f]?.token_id) return request[f];
  return null;
}

/**
 * The result's effects grouped by the actor each is for:
 * [{key, actorId, tokenId, name, effects}]. An effect names its actor by `params.actor_id` /
 * `params.token_id` (multi-unit results) or by its side, `target` ("attacker" / "target").
 */
export function effectsByActor(result) {
  const request = result?.request ?? {};
  const groups = new Map();
  for (const effect of result?.effects ?? []) {
    if (effect?.on_actor === false) continue; // the table's alone (a blast drawn): nothing to apply
    const p = effect?.params ?? {};
    let actorId = p.actor_id ?? null;
    let tokenId = p.token_id ?? null;
    let name = p.name ?? null;
    if (!actorId && !tokenId) {
      // A request with one participant under another name (character, patient, actor ...):
      // effects for its "target" side are that participant's.
      const side = request[effect?.target ?? "target"] ?? soleParticipant(request, effect?.target ?? "target");
      actorId = side?.actor_id ?? null;
      tokenId = side?.token_id ?? null;
      name = side?.name ?? null;
    }
    if (!actorId && !tokenId) continue; // nobody on the table to apply it to
    const key = `${actorId ?? ""}|${tokenId ?? ""}`;
    if (!groups.has(key)) groups.set(key, { key, actorId, tokenId, name, effects: [] });
    groups.get(key).effects.push(effect);
  }
  return [...groups.values()];
}

// --- apply variants (dnd5e ChatMessage5e#applyChatCardDamage: the damage of a card applied to
// the targets or to the controlled tokens, with a multiplier: 1, 0.5 half, 2 double, -1 heal) ---

/**
 * The effect kind the engine's core treats as hit points (py/firefight/effects.py: `hp` starts
 * from `hp_max`); a variant scales only these deltas, and the engine's `apply` does the rest.
 */
export const HIT_POINTS_KIND = "hp";
/** Variant -> multiplier of the hit-point deltas (dnd5e's multipliers). */
export const VARIANTS = Object.freeze({ full: 1, half: 0.5, double: 2, heal: -1 });
/** Where a result is applied: the actors it names, or the tokens the GM has selected. */
export const MODES = Object.freeze(["targets", "selected"]);

const isHitPointDelta = (e) => e?.kind === HIT_POINTS_KIND && typeof e.delta === "number" && e.delta !== 0 && e.on_actor !== false;

/** Whether a result has hit-point deltas (so half / double / heal mean something). */
export function hasHitPointDeltas(result) {
  return (result?.effects ?? []).some(isHitPointDelta);
}

/**
 * The effects of a variant: hit-point deltas times its multiplier, rounded toward zero (dnd5e
 * rounds halved damage down), a delta that becomes 0 dropped; a heal keeps only the hit points
 * (healing does not also wound or kill); half and double keep every other effect as it is.
 */
export function scaleEffects(effects, variant = "full") {
  const factor = VARIANTS[variant];
  if (factor === undefined) throw new Error(`unknown apply variant: ${variant}`);
  if (factor === 1) return effects;
  const out = [];
  for (const e of effects ?? []) {
    if (!isHitPointDelta(e)) {
      if (variant !== "heal") out.push(e);
      continue;
    }
    const delta = Math.trunc(e.delta * factor) || 0;
    if (delta) out.push({ ...e, delta });
  }
  return out;
}

/**
 * The groups a result is applied to, each {key, actorId, tokenId, name, effects, source} (`source`:
 * the key of the result's group whose effects it gets). mode "targets": the actors the result
 * names; "selected": each of `tokens` (token UUIDs) gets the effects of the result's one target
 * side (not the acting participant's, unless that is the only one). Effects are scaled by variant.
 */
export function applyGroups(result, { mode = "targets", variant = "full", tokens = [], acting = null } = {}) {
  const groups = effectsByActor(result);
  // A group a variant leaves nothing for (a heal of an actor whose hit points are not touched) is no group.
  if (mode === "targets") {
    return groups.map((g) => ({ ...g, source: g.key, effects: scaleEffects(g.effects, variant) })).filter((g) => g.effects.length);
  }
  if (mode !== "selected") throw new Error(`unknown apply mode: ${mode}`);
  const actingKey = acting ? `${acting.actor_id ?? ""}|${acting.token_id ?? ""}` : null;
  const sides = groups.length > 1 ? groups.filter((g) => g.key !== actingKey) : groups;
  if (sides.length !== 1) {
    const err = new Error(t("FIREFIGHT.ui.apply.several", "this result names {count} actors: apply it to its targets", { count: sides.length }));
    err.code = "several_sides";
    throw err;
  }
  const [side] = sides;
  const effects = scaleEffects(side.effects, variant);
  if (!effects.length) return [];
  return [...new Set(tokens)].map((uuid) => ({ key: `|${uuid}`, actorId: null, tokenId: uuid, name: null, effects, source: side.key }));
}

/**
 * An update object that makes `flags.firefight.<ruleset>` exactly `after`: every key of `after`
 * set, every key only in `before` deleted (Foundry's "-=key" operator).
 */
export function flagUpdate(ruleset, before, after) {
  return replaceUpdate(`flags.${MODULE_ID}.${ruleset}`, before, after);
}

/** An update object that makes the object at `path` go from `before` to exactly `after`. */
export function replaceUpdate(path, before, after) {
  const update = {};
  for (const [k, v] of Object.entries(after ?? {})) update[`${path}.${k}`] = v;
  for (const k of Object.keys(before ?? {})) {
    if (!(k in (after ?? {}))) update[`${path}.-=${k}`] = null;
  }
  return update;
}

/** The key an actor is recorded under in `applied.actors` (no dots: Foundry would nest them). */
function recordKey(group, taken) {
  const base = String(group.actorId ?? group.tokenId).replace(/\./g, "_");
  return taken.has(base) ? `${base}_${String(group.tokenId ?? "").replace(/\./g, "_")}` : base;
}

/**
 * Whether this user may ask for a message to be applied: a GM; the message's author; or, for a
 * shot the GM's client rolled for a player (the "GM rolls players' shots" setting), that player,
 * named in the flags of a message only GMs may edit (its author is a GM).
 */
export function mayRequest(message, user) {
  if (user?.isGM) return true;
  if (!user?.id) return false;
  const authorId = authorIdOf(message);
  if (authorId === user.id) return true;
  return gmAuthored(message) && message?.flags?.[MODULE_ID]?.rolledFor === user.id;
}

/** The user id of a message's author. */
export function authorIdOf(message) {
  const author = message?.author ?? null;
  return author?.id ?? message?._source?.author ?? (typeof author === "string" ? author : null);
}

/** Whether a message's author is a GM (only GMs may then edit it, flags included). */
export function gmAuthored(message) {
  const author = message?.author ?? null;
  return Boolean(author?.isGM ?? globalThis.game?.users?.get?.(authorIdOf(message))?.isGM);
}

/** Who rolled a message's dice: the player a GM's client rolled it for, else its author. */
export function rollerOf(message) {
  const rolledFor = message?.flags?.[MODULE_ID]?.rolledFor;
  return gmAuthored(message) && typeof rolledFor === "string" && rolledFor ? rolledFor : authorIdOf(message);
}

/**
 * Whether a message is a self roll: whispered to the one who rolled it and nobody else (Foundry's
 * "selfroll" whispers to the roller alone; a GM-rolled self roll goes to its player, workflow/card.mjs).
 */
export function isSelfRoll(message) {
  const whisper = [...(message?.whisper ?? message?._source?.whisper ?? [])].map((u) => u?.id ?? u);
  const roller = rollerOf(message);
  return whisper.length > 0 && Boolean(roller) && whisper.every((id) => id === roller);
}

/** The non-GM users who own an actor: they may write its records, as they may write its data. */
function playerOwners(actor) {
  const users = globalThis.game?.users;
  if (!actor || typeof actor.testUserPermission !== "function" || typeof users?.filter !== "function") return [];
  return users.filter((u) => !u.isGM && actor.testUserPermission(u, "OWNER")).map((u) => u.id);
}

/** Whether a message's own flags say its result was applied (or, for a tombstone, undone). */
function vouched(message, rec, hash) {
  const ff = flagsOf(message);
  return rec.undone ? Boolean(ff.undone || ff.applied?.hash === hash) : ff.applied?.hash === hash;
}

/**
 * Whether a record on an actor, kept under the message id `key`, counts as the GM's record of the
 * result whose hash is `hash` (for Apply and Undo). It must name a GM as its writer and this very
 * result (as Undo checks). A player who owns the actor could write the same bytes: on such an
 * actor a record under a GM's message counts only when that message's own flags, which only GMs
 * may edit, say it was applied (or undone). Any other record counts: its forger could only have
 * spared an actor of their own, which they may change at will anyway, and a record never blocks
 * another actor (`holds`); while a message's author, who may edit its flags, must not be able to
 * make a record on someone else's actor stop counting (and the result apply twice).
 */
export function recordCounts(actor, key, rec, hash) {
  if (!rec || typeof rec !== "object" || !hash || rec.hash !== hash || !globalThis.game?.users?.get?.(rec.gm)?.isGM) return false;
  const message = globalThis.game?.messages?.get?.(key) ?? null;
  if (!message || !gmAuthored(message) || !playerOwners(actor).length) return true;
  return vouched(message, rec, hash);
}

/**
 * Whether the card shows a record as applied (or undone): one that counts (recordCounts) and, on
 * an actor owned by a player other than the message's author, that the message's flags confirm,
 * so that the actor's owner cannot make the card read "applied" by writing a record on their own
 * actor. (The message's author may still make their own card read "not applied" by deleting its
 * flags: Apply stays refused, and a GM's `api.undo` still finds the records.)
 */
export function recordShown(actor, key, rec, hash) {
  if (!recordCounts(actor, key, rec, hash)) return false;
  const owners = playerOwners(actor);
  const message = globalThis.game?.messages?.get?.(key) ?? null;
  if (!owners.length || !message || owners.includes(authorIdOf(message))) return true;
  return vouched(message, rec, hash);
}

/**
 * Whether an actor holds a result already: a record that counts (recordCounts) under this message,
 * or, when the message could be a copy (a player's, or one a GM's client rolled for a player),
 * a live one under any message carrying the same result: one apply per result, however many
 * messages carry it. For a GM an undone result may be applied again (Redo); for a player this
 * message stays spent (a result the GM undid may be applied once more from another message:
 * two honest shots can give the same result, dice and all).
 */
export function holds(actor, message, hash, user) {
  const copyable = !gmAuthored(message) || Boolean(message?.flags?.[MODULE_ID]?.rolledFor);
  for (const [key, rec] of Object.entries(actor?.flags?.[MODULE_ID]?.applied ?? {})) {
    if (key !== message?.id && !copyable) continue;
    if (rec?.undone && (user?.isGM || key !== message?.id)) continue;
    if (recordCounts(actor, key, rec, hash)) return true;
  }
  return false;
}

// --- the table side ----------------------------------------------------------------------------

/**
 * A token's document from its address: a UUID ("Scene.<s>.Token.<t>", what requests carry) or a
 * bare id, looked up on the viewed scene and then on every scene (the GM may view another one).
 */
export function tokenDocument(address) {
  if (!address) return null;
  if (String(address).includes(".")) {
    const doc = globalThis.fromUuidSync?.(address) ?? null;
    return doc?.document ?? doc;
  }
  const placeable = canvas?.tokens?.get?.(address);
  if (placeable) return placeable.document ?? placeable;
  for (const scene of [canvas?.scene, ...(game.scenes ?? [])]) {
    const doc = scene?.tokens?.get?.(address);
    if (doc) return doc;
  }
  return null;
}

/**
 * The actor an effect group is for: its token's own actor (an unlinked token's synthetic actor,
 * on any scene); the world actor only when the result names no token. A token that is gone
 * gives null (never the world actor its synthetic actor came from).
 */
export function actorFor(group) {
  if (group.tokenId) return tokenDocument(group.tokenId)?.actor ?? null;
  return group.actorId ? game.actors.get(group.actorId) ?? null : null;
}

/**
 * Whether a user owns the acting participant of a request (attacker, actor ...): true when the
 * request has none (an explosion, a table's round), false when it has one that names no token
 * and no actor (nobody's, so nothing to check it against).
 */
export function ownsActing(request, user) {
  if (user?.isGM) return true;
  const field = SELF_FIELDS.find((f) => request?.[f] && typeof request[f] === "object");
  if (!field) return true;
  const acting = request[field];
  const actor = actorFor({ actorId: acting.actor_id, tokenId: acting.token_id }); // none without an address
  return Boolean(actor) && ownsToken({ actor }, user);
}

/**
 * Pure given the lang files: a request field's name as the table shows it, by the engine's label
 * keys (py/firefight/errors.py `label_key`): an option or setting, an actor's data, a weapon's
 * item field, the range; with its path, which the referee may look for ("Damage (weapon.damage)").
 * A `said` text (i18n.mjs), for a refusal the player's client says in its language; else the path.
 */
export function requestField(ruleset, path, tr = t) {
  const parts = String(path).split(/[.[\]]+/).filter(Boolean);
  const at = (name) => (parts.indexOf(name) >= 0 ? parts[parts.indexOf(name) + 1] : undefined);
  const option = parts[0] === "house" ? undefined : at("options") ?? at("settings"); // a house rule's: its own
  const keys = [
    option && `FIREFIGHT.${ruleset}.opt.${option}.label`,
    at("stats") && `FIREFIGHT.${ruleset}.stat.${at("stats")}`,
    parts[0] === "weapon" && parts[1] && `FIREFIGHT.${ruleset}.item.${parts[1]}.label`,
    parts[0] === "range" && "FIREFIGHT.ui.apply.field.range",
  ];
  for (const key of keys.filter(Boolean)) {
    const text = tr(key, "");
    if (text) return said("FIREFIGHT.ui.apply.fieldPath", `${text} (${path})`, { label: said(key, String(path)), path: String(path) });
  }
  return String(path);
}

function flagsOf(message) {
  return message?.flags?.[MODULE_ID] ?? {};
}

// Refusals a person causes by clicking twice: not worth a warning.
const QUIET = new Set(["already_applied", "in_flight"]);

/**
 * Write every step or none: each step {actor, update, revert, statuses: [{id, active, was}]} or
 * {run} (a last write, e.g. the record on the message); on a failure, what was written is written
 * back (statuses, then flags), last actor first, and the error says whether that worked.
 */
export async function writeAll(steps) {
  const done = [];
  try {
    for (const step of steps) {
      if (step.run) {
        await step.run();
        continue;
      }
      const entry = { step, wrote: false, toggled: [] };
      done.push(entry);
      if (step.update && Object.keys(step.update).length) {
        await step.actor.update(step.update);
        entry.wrote = true;
      }
      for (const s of step.statuses ?? []) {
        if (await setStatus(step.actor, s.id, s.active)) entry.toggled.push(s);
      }
    }
    return done;
  } catch (err) {
    const failed = [];
    for (const { step, wrote, toggled } of done.reverse()) {
      try {
        for (const s of [...toggled].reverse()) await setStatus(step.actor, s.id, s.was);
        if (wrote) await step.actor.update(step.revert);
      } catch (undoErr) {
        console.error("Firefight | rollback failed", undoErr);
        failed.push(step.actor?.name ?? "?");
      }
    }
    const reason = err?.message ?? String(err);
    const text = failed.length
      ? t("FIREFIGHT.ui.apply.notRolledBack", "Applying failed and could not be undone for {names}: check them by hand. {reason}",
        { names: failed.join(", "), reason })
      : t("FIREFIGHT.ui.apply.rolledBack", "Applying failed and was undone, nothing changed: {reason}", { reason });
    const out = new Error(text, { cause: err });
    out.code = failed.length ? "partial" : "rolled_back";
    throw out;
  }
}

/** How long a message stays marked "being applied" if the GM's client that marked it went away. */
const IN_FLIGHT_STALE_MS = REPLY_TIMEOUT_MS;

/**
 * The records of a message: [{group, actor, rec, counts, shown}] (rec may be null; recordCounts, recordShown), on the actors its result
 * names and on the tokens the card lists as applied to or undone (a GM's "selected" choice; the
 * card only says where to look: each record is the GM's, on the actor). A record's group carries
 * the effects it was made with: its `source` group's, scaled by its `variant`.
 */
export function recordsOf(message) {
  const ff = flagsOf(message);
  const hash = ff.result ? resultHash(ff.result) : null;
  const own = effectsByActor(ff.result);
  const listed = [ff.applied?.actors, ff.undone?.actors].flatMap((a) => Object.values(a ?? {}))
    .filter((a) => a && (a.actorId || a.tokenId))
    .map((a) => ({ key: `${a.actorId ?? ""}|${a.tokenId ?? ""}`, actorId: a.actorId ?? null, tokenId: a.tokenId ?? null, name: a.name ?? null, listed: true }));
  const out = [];
  const seen = new Set();
  const queue = [...own, ...listed];
  for (const group of queue) {
    const actor = actorFor(group);
    const id = actor?.uuid ?? actor ?? group.key;
    if (seen.has(id) || (group.listed && !actor)) continue;
    seen.add(id);
    const rec = actor?.flags?.[MODULE_ID]?.applied?.[message?.id] ?? null;
    // A marker on a target says which tokens the GM applied it to instead (see Applier#_write).
    if (rec?.marker) {
      for (const tokenId of Array.isArray(rec.tokens) ? rec.tokens : []) {
        if (typeof tokenId === "string") queue.push({ key: `|${tokenId}`, actorId: null, tokenId, name: null, listed: true });
      }
    }
    const source = own.find((g) => g.key === (rec?.source ?? group.key));
    let effects = [];
    try {
      effects = scaleEffects(source?.effects ?? [], rec?.variant ?? "full");
    } catch { /* an unknown variant: no effects, so Undo will not match the record */ }
    // `counts`: the record is the GM's record of this result (recordCounts); `shown`: the card says so (recordShown).
    out.push({ group: { ...group, effects, source: source?.key ?? null }, actor, rec,
      counts: recordCounts(actor, message?.id, rec, hash), shown: recordShown(actor, message?.id, rec, hash) });
  }
  return out;
}

/**
 * What the card shows, from the records on the actors (never from the message's own flags):
 * {state: "applied" | "undone" | null, by, names, missing: [{name, statuses}], applying}.
 */
export function applyState(message) {
  // Only the GM's records say so: one a player wrote on their own actor does not (recordShown).
  const all = recordsOf(message).filter((r) => r.rec && r.shown);
  const live = all.filter((r) => !r.rec.undone);
  // Markers only point at the records: the card names the actors that were changed.
  const changed = live.filter((r) => !r.rec.marker);
  const found = all.filter((r) => !r.rec.marker);
  const first = (list) => (list.find((r) => !r.rec.marker) ?? list[0]).rec;
  const ff = flagsOf(message);
  const applying = Boolean(ff.applying) && Date.now() - (ff.applying.at ?? 0) < IN_FLIGHT_STALE_MS;
  if (live.length) {
    return { state: "applied", by: first(live).by, variant: first(live).variant ?? "full", names: changed.map((r) => r.rec.name ?? r.actor.name),
      missing: changed.filter((r) => r.rec.missingStatuses?.length).map((r) => ({ name: r.rec.name, statuses: r.rec.missingStatuses })), applying };
  }
  if (all.length) {
    // Redo repeats the last application: its variant, and its tokens if the GM chose them.
    const { mode = "targets", variant = "full" } = first(all);
    const redo = { mode, variant, tokens: mode === "selected" ? found.map((r) => r.rec.tokenId).filter(Boolean) : [] };
    return { state: "undone", by: first(all).undone?.by, names: [], missing: [], applying, redo };
  }
  return { state: null, by: null, names: [], missing: [], applying };
}

/** Applies and undoes results. One instance per client; only the active GM's queue writes. */
export class Applier {
  constructor(engine) {
    this.engine = engine;
    this.queue = Promise.resolve();
    this.inFlight = new Set(); // message ids this GM client is applying
  }

  /** Run fn after everything queued before it (one request at a time). */
  enqueue(fn) {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Listen on the module socket (call once game.socket exists): the active GM answers. */
  listen() {
    // The requester is the sender Foundry names (relay.mjs), never a field of the payload.
    onRequest("apply", (payload, sender) => this._applyOnce(String(payload.messageId ?? ""), { hash: payload.hash, userId: sender.id, ...choiceOf(payload) })
      .then(() => ({}), (err) => {
        if (!(err instanceof Refusal)) console.error("Firefight |", err);
        if (!(err instanceof Refusal)) ui.notifications?.error(`Firefight: ${err?.message ?? err}`); // the GM sees it too
        throw err;
      }));
    onRequest("undo", (payload, sender) => {
      if (!sender.isGM) throw this._refuse("not_gm", said("FIREFIGHT.ui.apply.gmOnly", "Only a GM can undo a result."), { userId: sender.id, messageId: payload.messageId });
      return this.enqueue(() => this._undo(String(payload.messageId ?? ""), sender.id)).then(() => ({}));
    });
    listen();
  }

  get isActiveGM() {
    return isActiveGM();
  }

  /**
   * GM: apply a message once. The message is marked in flight on this client before anything
   * else (a second click, here or relayed, is refused until it is applied or rolled back), then
   * applied in the queue.
   */
  _applyOnce(messageId, ctx) {
    if (this.inFlight.has(messageId)) {
      return Promise.reject(this._refuse("in_flight", said("FIREFIGHT.ui.apply.inFlight", "this result is being applied"), { ...ctx, messageId }));
    }
    this.inFlight.add(messageId);
    return this.enqueue(() => this._apply(messageId, ctx)).finally(() => this.inFlight.delete(messageId));
  }

  /**
   * Apply a message's result (any user). The active GM applies it in its queue; a player (or
   * another GM) sends the request to the active GM. Resolves {ok, code?, reason?}; never throws.
   */
  async request(message, choice = {}) {
    const hash = resultHash(flagsOf(message).result);
    if (this.isActiveGM) {
      return this._applyOnce(message.id, { hash, userId: game.user.id, ...choiceOf(choice) })
        .then(() => ({ ok: true }), (err) => this._report(err));
    }
    const reply = await ask("apply", { messageId: message.id, hash, ...choiceOf(choice) });
    this._notifyReply(reply);
    return reply;
  }

  _notifyReply(reply) {
    if (reply.ok || QUIET.has(reply.code)) return;
    const notify = reply.code === "rolled_back" || reply.code === "partial" ? ui.notifications?.error : ui.notifications?.warn;
    notify?.call(ui.notifications, `Firefight: ${reply.reason}`);
  }

  /** Tell this user about a failure. */
  _report(err) {
    const code = err?.code ?? "error";
    if (err instanceof Refusal) {
      if (!QUIET.has(code)) ui.notifications?.warn(`Firefight: ${err.message}`);
    } else {
      console.error("Firefight |", err);
      ui.notifications?.error(`Firefight: ${err?.message ?? err}`);
    }
    return { ok: false, code, reason: err?.message ?? String(err) };
  }

  _refuse(code, reason, { userId, messageId } = {}) {
    const who = game.users?.get?.(userId)?.name ?? userId ?? "?";
    const text = localize(reason); // reason: text or a `said` text, which the requester says in its language
    // A refused relay request is logged and shown to the GM: it may be a forgery.
    console.warn(`Firefight | refused a request from ${who} for message ${messageId}: ${code} — ${text}`);
    if (userId && userId !== game.user?.id && !QUIET.has(code)) {
      ui.notifications?.warn(t("FIREFIGHT.ui.apply.refused", "Firefight refused a request from {user}: {reason}",
        { user: who, reason: text }));
    }
    return new Refusal(code, reason);
  }

  /**
   * Does the stored result follow from the message's own dice and this request (the result's own,
   * or the request the shooter's client built)? The engine replays it.
   */
  async _replays(message, result, request = result?.request) {
    const faces = (message.rolls ?? []).flatMap((r) => facesOfRoll(r));
    if (!request) return false;
    if (!faces.length && result?.dice?.length) return false;
    try {
      const reply = await this.engine.call("resolve", { request, faces });
      return resultHash(reply.result) === resultHash(result);
    } catch {
      return false;
    }
  }

  /** GM only, inside the queue: check the request against the message and the table, then apply it. */
  async _apply(messageId, { hash, userId, mode = "targets", variant = "full", tokens = [] }) {
    const ctx = { userId, messageId };
    const message = game.messages.get(messageId);
    const ff = flagsOf(message);
    if (!message || !ff.result) {
      throw this._refuse("unknown_message", said("FIREFIGHT.ui.apply.unknown", "no such Firefight message"), ctx);
    }
    const user = game.users?.get?.(userId) ?? null;
    if (!mayRequest(message, user)) {
      throw this._refuse("not_author", said("FIREFIGHT.ui.apply.notAuthor", "only the shooter or a GM may apply this result"), ctx);
    }
    // When the GM's client rolls players' shots, a player's result counts only as that client
    // rolled it (a GM's message, rolledFor them): never one the player resolved with dice of their
    // own, whatever the action (relay/gm.mjs rolls every action).
    if (!user?.isGM && gmRollsShots() && !gmAuthored(message)) {
      throw this._refuse("gm_rolls", said("FIREFIGHT.ui.apply.gmRolls", "in this world the GM's client rolls players' shots: only a shot it rolled may be applied"), ctx);
    }
    // Where and how to apply (selected tokens, half / double / heal) is the GM's choice alone.
    if (!user?.isGM && (mode !== "targets" || variant !== "full" || tokens.length)) {
      throw this._refuse("gm_choice", said("FIREFIGHT.ui.apply.gmChoice", "only a GM may apply a result to other tokens or scaled"), ctx);
    }
    if (variant !== "full" && !hasHitPointDeltas(ff.result)) {
      throw this._refuse("no_hit_points", said("FIREFIGHT.ui.apply.noHitPoints", "this result changes no hit points: it cannot be halved, doubled or healed"), ctx);
    }
    if (mode === "selected" && !tokens.length) {
      throw this._refuse("none_selected", said("FIREFIGHT.ui.apply.noneSelected", "select the tokens to apply it to first"), ctx);
    }
    if (!ownsActing(ff.result.request, user)) {
      const acting = SELF_FIELDS.map((f) => ff.result.request?.[f]).find((p) => p && typeof p === "object");
      throw this._refuse("not_owner", said("FIREFIGHT.ui.apply.notOwner", "{user} does not own {name}, who acts in this result",
        { user: user?.name ?? userId, name: acting?.name ?? "?" }), ctx);
    }
    if (hash !== resultHash(ff.result)) {
      throw this._refuse("changed_result", said("FIREFIGHT.ui.apply.changed", "the result does not match its chat message"), ctx);
    }
    // Applied or undone: the GM's records on the actors say so (the message's flags are its
    // author's), this message's or those of any copy of it (holds). After an undo only a GM may
    // apply it again (redo); for a player a result is spent once.
    const own = effectsByActor(ff.result).map((g) => actorFor(g)).filter(Boolean);
    if (own.length && own.every((actor) => holds(actor, message, hash, user))) {
      throw this._refuse("already_applied", said("FIREFIGHT.ui.apply.already", "this result was already applied"), ctx);
    }
    if (ff.applying && Date.now() - (ff.applying.at ?? 0) < IN_FLIGHT_STALE_MS && ff.applying.gm !== game.user.id) {
      throw this._refuse("in_flight", said("FIREFIGHT.ui.apply.inFlight", "this result is being applied"), ctx);
    }
    // A player's result must follow from the request their client built (the message's
    // `request`), and that request must be the one the table gives; a GM's client built its own
    // from the table.
    const request = user?.isGM ? ff.result.request : ff.request;
    if (!(await this._replays(message, ff.result, request))) {
      throw this._refuse("changed_result", said("FIREFIGHT.ui.apply.dice", "the result does not follow from the message's dice"), ctx);
    }
    if (!user?.isGM) {
      const lookup = Object.assign((g) => actorFor(g), { tokenOf: tokenDocument });
      const bad = await worldMismatch(this.engine, request, { actorFor: lookup, since: message.timestamp ?? 0 });
      if (bad) {
        throw this._refuse("changed_request", said("FIREFIGHT.ui.apply.changedRequest", "the shot does not match the table: {field} is {reason}",
          { field: requestField(request.ruleset, bad.field), reason: bad.reason }), ctx);
      }
    }
    const ruleset = ff.result.ruleset ?? ff.result.request?.ruleset;
    let chosen;
    try {
      chosen = applyGroups(ff.result, { mode, variant, tokens, acting: actingParticipant(ff.result.request) });
    } catch (err) {
      throw this._refuse(err.code ?? "bad_choice", err.message, ctx);
    }
    if (!chosen.length) {
      throw this._refuse("nothing_to_apply", said("FIREFIGHT.ui.apply.nothing", "this way the result changes nobody: nothing applied"), ctx);
    }
    // An actor that holds this result already is left out; a record on one actor never stops
    // another's (a player may write records on their own actors only).
    const groups = chosen.map((group) => ({ group, actor: actorFor(group) })).filter(({ actor }) => !actor || !holds(actor, message, hash, user));
    if (!groups.length) throw this._refuse("already_applied", said("FIREFIGHT.ui.apply.already", "this result was already applied"), ctx);
    // A self roll, which only its roller saw, changes only actors its roller owns.
    if (isSelfRoll(message)) {
      const roller = game.users?.get?.(rollerOf(message)) ?? null;
      const foreign = groups.find(({ actor }) => actor && !ownsToken({ actor }, roller));
      if (foreign) {
        throw this._refuse("self_roll", said("FIREFIGHT.ui.apply.selfRoll", "a self roll, which only {user} saw, changes only their own actors, not {name}",
          { user: roller?.name ?? "?", name: foreign.actor.name ?? "?" }), ctx);
      }
    }
    for (const { group, actor } of groups) {
      if (!actor) {
        ui.notifications?.warn(t("FIREFIGHT.ui.apply.noActor", "{name} is no longer on the table; skipped.",
          { name: group.name ?? group.actorId ?? group.tokenId }));
      }
    }
    const present = groups.filter((g) => g.actor);
    // Applied to selected tokens: the result's own target keeps a marker naming them, so that
    // its record says "applied" even if the card's list is edited away (a player's Apply is then
    // refused as already applied).
    const markers = [];
    if (mode === "selected") {
      const changed = new Set(present.map((g) => g.actor.uuid ?? g.actor));
      // Every actor the result names gets one, so that none of them takes it again.
      for (const source of effectsByActor(ff.result)) {
        const actor = actorFor(source);
        if (actor && !changed.has(actor.uuid ?? actor) && !holds(actor, message, hash, user)) markers.push({ group: source, actor });
      }
    }
    // Every actor's data is read, worked out and written inside its write queue (writes.mjs).
    return withActors([...present, ...markers].map((g) => g.actor),
      () => this._write(message, ruleset, present, { hash, userId, mode, variant, markers }));
  }

  /**
   * Apply a result the table made itself (a ruleset's follow-up: no dice to replay, so nothing
   * to check against a roll) as Apply writes: in the applier's queue, every actor in its write
   * queue, recorded on the actors so the card's Undo reverts it. Active GM only; null if the
   * result changes nobody on the table.
   */
  async applyTableResult(message) {
    const result = message?.flags?.[MODULE_ID]?.result;
    const groups = effectsByActor(result).map((group) => ({ group, actor: actorFor(group) })).filter((g) => g.actor);
    if (!groups.length || !isActiveGM()) return null;
    const hash = resultHash(result);
    return this.enqueue(() => withActors(groups.map((g) => g.actor),
      () => this._write(message, result.ruleset, groups, { hash, userId: game.user.id })));
  }

  async _write(message, ruleset, present, { hash, userId, mode = "targets", variant = "full", markers = [] }) {
    const flag = `flags.${MODULE_ID}`;
    const by = userId ?? game.user.id;
    const at = Date.now();
    // Work out every actor's new data first; write only if all of them are valid.
    const plans = [];
    const taken = new Set();
    for (const { group, actor } of present) {
      const plan = await this._plan(actor, ruleset, group.effects, message.id);
      const key = recordKey(group, taken);
      taken.add(key);
      const missing = plan.statuses.filter((s) => !s.id).map((s) => s.engineId);
      const rec = {
        hash, by, gm: game.user.id, at, messageId: message.id, ruleset, tokenId: group.tokenId ?? null, name: actor.name,
        before: plan.before, after: plan.out.stats, beforeConditions: plan.beforeConditions, conditions: plan.conditions,
        // {the world's status id: was it on before}, and the engine's statuses the system lacks.
        statuses: Object.fromEntries(plan.statuses.filter((s) => s.id).map((s) => [s.id, s.was])),
        missingStatuses: missing, changes: plan.out.changes ?? [],
        // What Undo and Redo need to work the effects out again: the result's group, the variant.
        source: group.source ?? group.key, mode, variant,
      };
      const recPath = `${flag}.applied.${message.id}`;
      // Redo writes over the record Undo left (a tombstone), and a rollback puts it back.
      const old = actor.flags?.[MODULE_ID]?.applied?.[message.id] ?? null;
      plans.push({ key, actor, group, rec, statuses: plan.statuses,
        update: { ...flagUpdate(ruleset, plan.before, plan.out.stats), ...conditionsUpdate(plan.beforeConditions, plan.conditions),
          ...(old ? replaceUpdate(recPath, old, rec) : { [recPath]: rec }) },
        revert: { ...flagUpdate(ruleset, plan.out.stats, plan.before), ...conditionsUpdate(plan.conditions, plan.beforeConditions),
          ...(old ? replaceUpdate(recPath, rec, old) : { [`${flag}.applied.-=${message.id}`]: null }) } });
    }
    const steps = plans.map((p) => ({ actor: p.actor, update: p.update, revert: p.revert, statuses: p.statuses.filter((s) => s.id) }));
    for (const { group, actor } of markers) {
      const recPath = `${flag}.applied.${message.id}`;
      const marker = { hash, by, gm: game.user.id, at, messageId: message.id, ruleset, tokenId: group.tokenId ?? null, name: actor.name,
        marker: true, source: group.key, mode, variant, tokens: plans.map((p) => p.group.tokenId).filter(Boolean) };
      const old = actor.flags?.[MODULE_ID]?.applied?.[message.id] ?? null;
      steps.push({ actor, statuses: [],
        update: old ? replaceUpdate(recPath, old, marker) : { [recPath]: marker },
        revert: old ? replaceUpdate(recPath, marker, old) : { [`${flag}.applied.-=${message.id}`]: null } });
    }
    // In flight: shown on the card before any actor is written (cleared after, or on failure).
    await message.update({ [`${flag}.applying`]: { by, gm: game.user.id, at } });
    const summary = Object.fromEntries(plans.map((p) => [p.key, { actorId: p.actor.id, tokenId: p.group.tokenId ?? null,
      name: p.actor.name, missingStatuses: p.rec.missingStatuses }]));
    const mirror = () => message.update({ [`${flag}.-=applying`]: null, [`${flag}.-=undone`]: null,
      [`${flag}.applied`]: { by, at, hash, mode, variant, actors: summary } });
    try {
      // Stats, statuses, the record and the card's summary land together: if any fails, all are undone.
      await writeAll([...steps, { run: mirror }]);
    } catch (err) {
      await message.update({ [`${flag}.-=applying`]: null }).catch((e) => console.error("Firefight |", e));
      throw err; // writeAll has put the actors back and says so
    }
    for (const p of plans) {
      if (p.rec.missingStatuses.length) {
        ui.notifications?.info(t("FIREFIGHT.ui.apply.noStatus", "{name}: no such status in this system: {statuses}",
          { name: p.rec.name, statuses: p.rec.missingStatuses.join(", ") }));
      }
    }
    return Object.fromEntries(plans.map((p) => [p.key, p.rec]));
  }

  /** What a result's effects do to an actor whose data is `before` (the engine decides). */
  async _plan(actor, ruleset, effects, messageId, before = actor.flags?.[MODULE_ID]?.[ruleset] ?? {},
    beforeConditions = actor.flags?.[MODULE_ID]?.conditions ?? null) {
    before = foundry.utils.deepClone(before);
    let out;
    try {
      out = await this.engine.call("apply", { ruleset, stats: before, effects });
    } catch (err) {
      const fields = fieldErrorsText(err);
      throw new Error(t("FIREFIGHT.ui.apply.badData", "{name}'s Firefight data is invalid: {reason}",
        { name: actor.name, reason: fields || err.message }), { cause: err });
    }
    // null: the actor had no conditions list (undo then removes it again).
    beforeConditions = foundry.utils.deepClone(beforeConditions ?? null);
    const conditions = out.conditions?.length
      ? [...(beforeConditions ?? []), ...out.conditions.map((c) => ({ ...c, messageId }))] : beforeConditions;
    return { before, out, beforeConditions, conditions, statuses: statusPlan(actor, out.statuses) };
  }

  /** GM: revert an applied result exactly (once). Resolves {ok, code?, reason?}. */
  async undo(message) {
    if (game.user?.isGM && !this.isActiveGM) {
      // Another GM applies and undoes in its own queue: ask it, so the writes stay in one queue.
      const reply = await ask("undo", { messageId: message.id });
      this._notifyReply(reply);
      return reply;
    }
    return this.enqueue(() => this._undo(message.id, game.user?.id)).then(() => ({ ok: true }), (err) => this._report(err));
  }

  async _undo(messageId, userId) {
    if (!game.users?.get?.(userId)?.isGM) throw new Refusal("not_gm", said("FIREFIGHT.ui.apply.gmOnly", "Only a GM can undo a result."));
    const message = game.messages.get(messageId);
    // Only the GM's records of this result (recordCounts); one a player wrote is not undone.
    const found = recordsOf(message).filter((r) => r.actor && r.rec && r.counts && !r.rec.undone);
    if (!message || !found.length) throw new Refusal("not_applied", said("FIREFIGHT.ui.apply.notApplied", "This result is not applied."));
    return withActors(found.map((r) => r.actor), () => this._revert(message, found.map((r) => ({ ...r, rec: r.actor.flags[MODULE_ID].applied[messageId] })), userId));
  }

  async _revert(message, found, userId) {
    const flag = `flags.${MODULE_ID}`;
    for (const { group, actor, rec } of found) {
      // The record is the GM's, for this very result (`_undo` takes only those: recordCounts), and
      // its `before` must be data that the result's effects turn into its `after` (the engine
      // says): never data a player supplied.
      if (!rec || rec.undone) throw new Refusal("not_applied", said("FIREFIGHT.ui.apply.notApplied", "This result is not applied."));
      if (rec.marker) continue; // no data of its own: it becomes a tombstone with the records
      const plan = await this._plan(actor, rec.ruleset, group.effects, message.id, rec.before ?? {}, rec.beforeConditions ?? null);
      // Only statuses the result sets may be put back.
      const touched = new Set(Object.keys(plan.out.statuses ?? {}).map((id) => systemStatus(id)).filter(Boolean));
      if (stableStringify(plan.out.stats) !== stableStringify(rec.after) || stableStringify(plan.conditions) !== stableStringify(rec.conditions ?? null)
        || Object.keys(rec.statuses ?? {}).some((id) => !touched.has(id))) {
        throw new Refusal("forged_record", said("FIREFIGHT.ui.apply.forgedRecord", "{name}'s record of this result was not written by a GM for it: not undone.", { name: actor.name }));
      }
      // Undo restores the data from before, so it must be the latest change to each actor.
      const now = actor.flags?.[MODULE_ID]?.[rec.ruleset] ?? {};
      const nowConditions = actor.flags?.[MODULE_ID]?.conditions ?? null;
      if (stableStringify(now) !== stableStringify(rec.after) || stableStringify(nowConditions) !== stableStringify(rec.conditions ?? null)) {
        throw new Refusal("changed_since", said("FIREFIGHT.ui.apply.changedSince",
          "{name} has changed since this result was applied: undo the later results first.", { name: rec.name }));
      }
    }
    const at = Date.now();
    const rp = `${flag}.applied.${message.id}`;
    const spent = ["before", "after", "beforeConditions", "conditions", "statuses", "changes"];
    // All or nothing, like applying; each record becomes a tombstone (the result stays spent).
    await writeAll([...found.map(({ actor, rec }) => ({
      actor,
      update: { ...flagUpdate(rec.ruleset, rec.after, rec.before), ...conditionsUpdate(rec.conditions, rec.beforeConditions),
        [`${rp}.undone`]: { by: userId, at }, ...Object.fromEntries(spent.map((k) => [`${rp}.-=${k}`, null])) },
      revert: { ...flagUpdate(rec.ruleset, rec.before, rec.after), ...conditionsUpdate(rec.beforeConditions, rec.conditions),
        [`${rp}.-=undone`]: null, ...Object.fromEntries(spent.filter((k) => k in rec).map((k) => [`${rp}.${k}`, rec[k]])) },
      statuses: Object.entries(rec.statuses ?? {}).map(([id, was]) => ({ id, active: Boolean(was), was: !was })),
    })),
    { run: () => message.update({ [`${flag}.-=applied`]: null, [`${flag}.undone`]: { by: userId, at, actors: undoneSummary(found.filter((r) => !r.rec.marker)) } }) }]);
  }
}

/** Where a result was undone, for the card (Redo looks there for the records): key -> {actorId, tokenId, name}. */
function undoneSummary(found) {
  const taken = new Set();
  const out = {};
  for (const { group, actor, rec } of found) {
    const key = recordKey({ actorId: actor.id, tokenId: rec.tokenId ?? group.tokenId }, taken);
    taken.add(key);
    out[key] = { actorId: actor.id ?? null, tokenId: rec.tokenId ?? group.tokenId ?? null, name: rec.name ?? actor.name };
  }
  return out;
}

/** The GM's choice in a request or payload: {mode, variant, tokens}, each checked for its kind. */
function choiceOf(src) {
  const out = {};
  // An unknown mode or variant is kept, to be refused by name (applyGroups), not applied in full.
  if (typeof src?.mode === "string") out.mode = src.mode;
  if (typeof src?.variant === "string") out.variant = src.variant;
  if (Array.isArray(src?.tokens)) out.tokens = src.tokens.filter((u) => typeof u === "string" && u).slice(0, 100);
  return out;
}

/** The update that makes `flags.firefight.conditions` go from `from` to `to` (null: no list). */
function conditionsUpdate(from, to) {
  const path = `flags.${MODULE_ID}`;
  if (stableStringify(from ?? null) === stableStringify(to ?? null)) return {};
  if (to === null || to === undefined) return { [`${path}.-=conditions`]: null };
  return { [`${path}.conditions`]: to };
}
