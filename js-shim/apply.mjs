// Applying a result to the actors it names, exactly once, through the GM; and undoing it.
//
// The engine decides what a result does to an actor (bridge op "apply"); this module only
// finds the actors, reads their current flags, writes back what the engine returns, and
// records it on the chat message so the GM can undo it exactly:
//   message.flags.firefight.applying = {by, at}          (while the GM writes; cleared after)
//   message.flags.firefight.applied = {by, at, hash, actors: {key: {actorId, tokenId (the
//     token's UUID), actorUuid, name, ruleset, before, after, beforeConditions, conditions,
//     statuses: {the world's status id: wasActive}, missingStatuses: [engine ids the system lacks]}}}
//   message.flags.firefight.undone = {by, at}            (after an undo; final)
// Stats, statuses and the applied mark land together or not at all (writeAll); every actor is
// the token's own (an unlinked token's synthetic actor, on any scene); a player may have a
// result applied only if they own its acting token.
// A player cannot update an actor they do not own, so their request goes to the active GM over
// the module socket; the GM re-checks it against the real message and applies it in a queue.
import { MODULE_ID } from "./config.mjs";
import { facesOfRoll } from "./dice.mjs";
import { t } from "./i18n.mjs";
import { actingParticipant, ownsToken } from "./request.mjs";
import { statusPlan, setStatus } from "./systems/index.mjs";

export const SOCKET = `module.${MODULE_ID}`;
const REPLY_TIMEOUT_MS = 60000;

// --- pure helpers ------------------------------------------------------------------------------

/** JSON with object keys sorted, so equal data always gives the same text. */
export function stableStringify(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(",")}}`;
}

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

/**
 * An update object that makes `flags.firefight.<ruleset>` exactly `after`: every key of `after`
 * set, every key only in `before` deleted (Foundry's "-=key" operator).
 */
export function flagUpdate(ruleset, before, after) {
  const path = `flags.${MODULE_ID}.${ruleset}`;
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

/** Whether this user may ask for a message to be applied. */
export function mayRequest(message, user) {
  if (user?.isGM) return true;
  const authorId = message?.author?.id ?? message?._source?.author ?? message?.author;
  return Boolean(user?.id) && authorId === user.id;
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

/** Whether a user owns the acting participant of a request (attacker, actor ...); true if none. */
function ownsActing(request, user) {
  const acting = actingParticipant(request);
  if (!acting || user?.isGM) return true;
  const actor = actorFor({ actorId: acting.actor_id, tokenId: acting.token_id });
  return Boolean(actor) && ownsToken({ actor }, user);
}

function flagsOf(message) {
  return message?.flags?.[MODULE_ID] ?? {};
}

class Refusal extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
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

/** Applies and undoes results. One instance per client; only the GM's queue writes. */
export class Applier {
  constructor(engine) {
    this.engine = engine;
    this.queue = Promise.resolve();
    this.pending = new Map(); // requestId -> {resolve, timer}
    this.nextRequest = 1;
    this.inFlight = new Set(); // message ids this GM client is applying
  }

  /** Run fn after everything queued before it (one request at a time). */
  enqueue(fn) {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Listen on the module socket (call once game.socket exists). */
  listen() {
    game.socket?.on?.(SOCKET, (data) => this.onSocket(data));
  }

  get isActiveGM() {
    const active = game.users?.activeGM;
    return Boolean(game.user?.isGM) && (!active || active.id === game.user.id);
  }

  async onSocket(data) {
    if (!data || typeof data !== "object") return;
    if (data.type === "apply" && this.isActiveGM) {
      const reply = await this._applyOnce(data.messageId, { hash: data.hash, userId: data.userId })
        .then(() => ({ ok: true }), (err) => this._report(err, { quietly: true }));
      game.socket.emit(SOCKET, { type: "apply-reply", requestId: data.requestId, to: data.userId, ...reply });
    } else if (data.type === "apply-reply" && data.to === game.user?.id) {
      const entry = this.pending.get(data.requestId);
      if (!entry) return;
      this.pending.delete(data.requestId);
      clearTimeout(entry.timer);
      entry.resolve(data);
    }
  }

  /**
   * GM: apply a message once. The message is marked in flight on this client before anything
   * else (a second click, here or relayed, is refused until it is applied or rolled back), then
   * applied in the queue.
   */
  _applyOnce(messageId, ctx) {
    if (this.inFlight.has(messageId)) {
      return Promise.reject(this._refuse("in_flight", t("FIREFIGHT.ui.apply.inFlight", "this result is being applied"), { ...ctx, messageId }));
    }
    this.inFlight.add(messageId);
    return this.enqueue(() => this._apply(messageId, ctx)).finally(() => this.inFlight.delete(messageId));
  }

  /**
   * Apply a message's result (any user). The GM applies it in its queue; a player sends the
   * request to the active GM. Resolves {ok, code?, reason?}; never throws.
   */
  async request(message) {
    const result = flagsOf(message).result;
    const hash = resultHash(result);
    if (game.user?.isGM) {
      return this._applyOnce(message.id, { hash, userId: game.user.id })
        .then(() => ({ ok: true }), (err) => this._report(err));
    }
    if (!game.users?.activeGM) {
      const reason = t("FIREFIGHT.ui.apply.noGM", "A GM must be connected to apply a result.");
      ui.notifications?.warn(`Firefight: ${reason}`);
      return { ok: false, code: "no_gm", reason };
    }
    const requestId = `${game.user.id}-${Date.now()}-${this.nextRequest++}`;
    const reply = await new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        resolve({ ok: false, code: "timeout", reason: t("FIREFIGHT.ui.apply.timeout", "The GM did not answer.") });
      }, REPLY_TIMEOUT_MS);
      this.pending.set(requestId, { resolve, timer });
      game.socket.emit(SOCKET, { type: "apply", requestId, messageId: message.id, hash, userId: game.user.id });
    });
    if (!reply.ok && !QUIET.has(reply.code)) {
      const notify = reply.code === "rolled_back" || reply.code === "partial" ? ui.notifications?.error : ui.notifications?.warn;
      notify?.call(ui.notifications, `Firefight: ${reply.reason}`);
    }
    return reply;
  }

  /** Tell this user about a failure; quietly: only log it (a relayed request, answered by socket). */
  _report(err, { quietly = false } = {}) {
    const code = err?.code ?? "error";
    if (!quietly) {
      if (err instanceof Refusal) {
        if (!QUIET.has(code)) ui.notifications?.warn(`Firefight: ${err.message}`);
      } else {
        console.error("Firefight |", err);
        ui.notifications?.error(`Firefight: ${err?.message ?? err}`);
      }
    } else if (!(err instanceof Refusal)) {
      console.error("Firefight |", err);
      ui.notifications?.error(`Firefight: ${err?.message ?? err}`); // the GM sees it too
    }
    return { ok: false, code, reason: err?.message ?? String(err) };
  }

  _refuse(code, text, { userId, messageId } = {}) {
    const who = game.users?.get?.(userId)?.name ?? userId ?? "?";
    // A refused relay request is logged and shown to the GM: it may be a forgery.
    console.warn(`Firefight | refused a request from ${who} for message ${messageId}: ${code} — ${text}`);
    if (userId && userId !== game.user?.id && !QUIET.has(code)) {
      ui.notifications?.warn(t("FIREFIGHT.ui.apply.refused", "Firefight refused a request from {user}: {reason}",
        { user: who, reason: text }));
    }
    return new Refusal(code, text);
  }

  /** Does the stored result follow from the message's own dice? (The engine replays it.) */
  async _replays(message, result) {
    const faces = (message.rolls ?? []).flatMap((r) => facesOfRoll(r));
    if (!faces.length || !result?.request) return !(result?.dice?.length);
    try {
      const reply = await this.engine.call("resolve", { request: result.request, faces });
      return resultHash(reply.result) === resultHash(result);
    } catch {
      return false;
    }
  }

  /** GM only, inside the queue: check the request against the message, then apply it. */
  async _apply(messageId, { hash, userId }) {
    const ctx = { userId, messageId };
    const message = game.messages.get(messageId);
    const ff = flagsOf(message);
    if (!message || !ff.result) {
      throw this._refuse("unknown_message", t("FIREFIGHT.ui.apply.unknown", "no such Firefight message"), ctx);
    }
    const user = game.users?.get?.(userId) ?? null;
    if (userId && !mayRequest(message, user)) {
      throw this._refuse("not_author", t("FIREFIGHT.ui.apply.notAuthor", "only the shooter or a GM may apply this result"), ctx);
    }
    if (userId && !ownsActing(ff.result.request, user)) {
      const acting = actingParticipant(ff.result.request);
      throw this._refuse("not_owner", t("FIREFIGHT.ui.apply.notOwner", "{user} does not own {name}, who acts in this result",
        { user: user?.name ?? userId, name: acting?.name ?? "?" }), ctx);
    }
    if (hash !== resultHash(ff.result)) {
      throw this._refuse("changed_result", t("FIREFIGHT.ui.apply.changed", "the result does not match its chat message"), ctx);
    }
    if (ff.applied || ff.undone) {
      throw this._refuse("already_applied", t("FIREFIGHT.ui.apply.already", "this result was already applied"), ctx);
    }
    if (ff.applying && Date.now() - (ff.applying.at ?? 0) < IN_FLIGHT_STALE_MS) {
      throw this._refuse("in_flight", t("FIREFIGHT.ui.apply.inFlight", "this result is being applied"), ctx);
    }
    if (!(await this._replays(message, ff.result))) {
      throw this._refuse("changed_result", t("FIREFIGHT.ui.apply.dice", "the result does not follow from the message's dice"), ctx);
    }
    const ruleset = ff.result.ruleset ?? ff.result.request?.ruleset;
    // Work out every actor's new data first; write only if all of them are valid.
    const plans = [];
    const taken = new Set();
    for (const group of effectsByActor(ff.result)) {
      const actor = actorFor(group);
      if (!actor) {
        ui.notifications?.warn(t("FIREFIGHT.ui.apply.noActor", "{name} is no longer on the table; skipped.",
          { name: group.name ?? group.actorId ?? group.tokenId }));
        continue;
      }
      const before = foundry.utils.deepClone(actor.flags?.[MODULE_ID]?.[ruleset] ?? {});
      let out;
      try {
        out = await this.engine.call("apply", { ruleset, stats: before, effects: group.effects });
      } catch (err) {
        const fields = (err?.fields ?? []).map((f) => `${f.field}: ${f.reason}`).join("; ");
        throw new Error(t("FIREFIGHT.ui.apply.badData", "{name}'s Firefight data is invalid: {reason}",
          { name: actor.name, reason: fields || err.message }));
      }
      const key = recordKey(group, taken);
      taken.add(key);
      // null: the actor had no conditions list (undo then removes it again).
      const beforeConditions = foundry.utils.deepClone(actor.flags?.[MODULE_ID]?.conditions ?? null);
      const conditions = out.conditions?.length
        ? [...(beforeConditions ?? []), ...out.conditions.map((c) => ({ ...c, messageId: message.id }))] : beforeConditions;
      const statuses = statusPlan(actor, out.statuses);
      plans.push({ key, actor, group, before, out, beforeConditions, conditions, statuses,
        update: { ...flagUpdate(ruleset, before, out.stats), ...conditionsUpdate(beforeConditions, conditions) },
        revert: { ...flagUpdate(ruleset, out.stats, before), ...conditionsUpdate(conditions, beforeConditions) } });
    }
    // In flight: recorded on the message before any actor is written (cleared on failure).
    const flag = `flags.${MODULE_ID}`;
    await message.update({ [`${flag}.applying`]: { by: userId ?? game.user.id, at: Date.now() } });
    const actors = {};
    const record = async () => {
      for (const p of plans) {
        const missing = p.statuses.filter((s) => !s.id).map((s) => s.engineId);
        actors[p.key] = {
          actorId: p.actor.id, tokenId: p.group.tokenId ?? null, actorUuid: p.actor.uuid ?? null, name: p.actor.name, ruleset,
          before: p.before, after: p.out.stats, beforeConditions: p.beforeConditions, conditions: p.conditions,
          // {the world's status id: was it on before}, and the engine's statuses the system lacks.
          statuses: Object.fromEntries(p.statuses.filter((s) => s.id).map((s) => [s.id, s.was])),
          missingStatuses: missing, changes: p.out.changes ?? [],
        };
      }
      await message.update({
        [`${flag}.-=applying`]: null,
        [`${flag}.applied`]: { by: userId ?? game.user.id, at: Date.now(), hash, actors },
      });
    };
    try {
      // Stats, statuses and the applied mark land together: if any write fails, all are undone.
      await writeAll([...plans.map((p) => ({ actor: p.actor, update: p.update, revert: p.revert, statuses: p.statuses.filter((s) => s.id) })),
        { run: record }]);
    } catch (err) {
      await message.update({ [`${flag}.-=applying`]: null }).catch((e) => console.error("Firefight |", e));
      throw err; // writeAll has put the actors back and says so
    }
    for (const rec of Object.values(actors)) {
      if (rec.missingStatuses.length) {
        ui.notifications?.info(t("FIREFIGHT.ui.apply.noStatus", "{name}: no such status in this system: {statuses}",
          { name: rec.name, statuses: rec.missingStatuses.join(", ") }));
      }
    }
    return actors;
  }

  /** GM: revert an applied result exactly (once). Resolves {ok, code?, reason?}. */
  undo(message) {
    return this.enqueue(() => this._undo(message.id)).then(() => ({ ok: true }), (err) => this._report(err));
  }

  async _undo(messageId) {
    if (!game.user?.isGM) throw new Refusal("not_gm", t("FIREFIGHT.ui.apply.gmOnly", "Only a GM can undo a result."));
    const message = game.messages.get(messageId);
    const applied = flagsOf(message).applied;
    if (!applied) throw new Refusal("not_applied", t("FIREFIGHT.ui.apply.notApplied", "This result is not applied."));
    const records = Object.values(applied.actors ?? {});
    const found = records.map((rec) => ({ rec, actor: actorFor({ actorId: rec.actorId, tokenId: rec.tokenId }) }));
    // Undo restores the data from before, so it must be the latest change to each actor.
    for (const { rec, actor } of found) {
      if (!actor) continue;
      const now = actor.flags?.[MODULE_ID]?.[rec.ruleset] ?? {};
      const nowConditions = actor.flags?.[MODULE_ID]?.conditions ?? null;
      if (stableStringify(now) !== stableStringify(rec.after) || stableStringify(nowConditions) !== stableStringify(rec.conditions)) {
        throw new Refusal("changed_since", t("FIREFIGHT.ui.apply.changedSince",
          "{name} has changed since this result was applied: undo the later results first.", { name: rec.name }));
      }
    }
    // All or nothing, like applying.
    await writeAll(found.filter(({ actor }) => actor).map(({ rec, actor }) => ({
      actor,
      update: { ...flagUpdate(rec.ruleset, rec.after, rec.before), ...conditionsUpdate(rec.conditions, rec.beforeConditions) },
      revert: { ...flagUpdate(rec.ruleset, rec.before, rec.after), ...conditionsUpdate(rec.beforeConditions, rec.conditions) },
      statuses: Object.entries(rec.statuses ?? {}).map(([id, was]) => ({ id, active: Boolean(was), was: !was })),
    })));
    await message.update({
      [`flags.${MODULE_ID}.-=applied`]: null,
      [`flags.${MODULE_ID}.undone`]: { by: game.user.id, at: Date.now(), applied },
    });
  }
}

/** The update that makes `flags.firefight.conditions` go from `from` to `to` (null: no list). */
function conditionsUpdate(from, to) {
  const path = `flags.${MODULE_ID}`;
  if (stableStringify(from ?? null) === stableStringify(to ?? null)) return {};
  if (to === null || to === undefined) return { [`${path}.-=conditions`]: null };
  return { [`${path}.conditions`]: to };
}
