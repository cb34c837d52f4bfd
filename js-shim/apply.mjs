// Applying a result to the actors it names, exactly once, through the GM; and undoing it.
//
// The engine decides what a result does to an actor (bridge op "apply"); this module only
// finds the actors, reads their current flags, writes back what the engine returns, and
// records it on the chat message so the GM can undo it exactly:
//   message.flags.firefight.applied = {by, at, hash, actors: {key: {actorId, tokenId, name,
//     ruleset, before, after, beforeConditions, conditions, statuses: {id: wasActive}}}}
//   message.flags.firefight.undone = {by, at}            (after an undo; final)
// A player cannot update an actor they do not own, so their request goes to the active GM over
// the module socket; the GM re-checks it against the real message and applies it in a queue.
import { MODULE_ID } from "./config.mjs";
import { facesOfRoll } from "./dice.mjs";
import { t } from "./i18n.mjs";

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

function actorFor(group) {
  if (group.tokenId) {
    const token = canvas.tokens?.get?.(group.tokenId) ?? canvas.scene?.tokens?.get?.(group.tokenId);
    const actor = token?.actor;
    if (actor) return actor;
  }
  return group.actorId ? game.actors.get(group.actorId) ?? null : null;
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

/** Applies and undoes results. One instance per client; only the GM's queue writes. */
export class Applier {
  constructor(engine) {
    this.engine = engine;
    this.queue = Promise.resolve();
    this.pending = new Map(); // requestId -> {resolve, timer}
    this.nextRequest = 1;
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
      const reply = await this.enqueue(() => this._apply(data.messageId, { hash: data.hash, userId: data.userId }))
        .then(() => ({ ok: true }), (err) => ({ ok: false, code: err?.code ?? "error", reason: err?.message ?? String(err) }));
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
   * Apply a message's result (any user). The GM applies it in its queue; a player sends the
   * request to the active GM. Resolves {ok, code?, reason?}; never throws.
   */
  async request(message) {
    const result = flagsOf(message).result;
    const hash = resultHash(result);
    if (game.user?.isGM) {
      return this.enqueue(() => this._apply(message.id, { hash, userId: game.user.id }))
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
    if (!reply.ok && reply.code !== "already_applied") {
      ui.notifications?.warn(`Firefight: ${reply.reason}`);
    }
    return reply;
  }

  _report(err) {
    if (err instanceof Refusal) {
      if (err.code !== "already_applied") ui.notifications?.warn(`Firefight: ${err.message}`);
    } else {
      console.error("Firefight |", err);
      ui.notifications?.error(`Firefight: ${err?.message ?? err}`);
    }
    return { ok: false, code: err?.code ?? "error", reason: err?.message ?? String(err) };
  }

  _refuse(code, text, { userId, messageId } = {}) {
    const who = game.users?.get?.(userId)?.name ?? userId ?? "?";
    // A refused relay request is logged and shown to the GM: it may be a forgery.
    console.warn(`Firefight | refused a request from ${who} for message ${messageId}: ${code} — ${text}`);
    if (userId && userId !== game.user?.id) {
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
    if (hash !== resultHash(ff.result)) {
      throw this._refuse("changed_result", t("FIREFIGHT.ui.apply.changed", "the result does not match its chat message"), ctx);
    }
    if (ff.applied || ff.undone) {
      throw this._refuse("already_applied", t("FIREFIGHT.ui.apply.already", "this result was already applied"), ctx);
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
      plans.push({ key, actor, group, before, out });
    }
    const actors = {};
    for (const { key, actor, group, before, out } of plans) {
      // null: the actor had no conditions list (undo then removes it again).
      const beforeConditions = foundry.utils.deepClone(actor.flags?.[MODULE_ID]?.conditions ?? null);
      const conditions = out.conditions?.length
        ? [...(beforeConditions ?? []), ...out.conditions.map((c) => ({ ...c, messageId: message.id }))] : beforeConditions;
      const update = flagUpdate(ruleset, before, out.stats);
      if (out.conditions?.length) update[`flags.${MODULE_ID}.conditions`] = conditions;
      await actor.update(update);
      const statuses = {};
      for (const [id, active] of Object.entries(out.statuses ?? {})) {
        const was = Boolean(actor.statuses?.has?.(id));
        if (was === Boolean(active)) continue;
        statuses[id] = was;
        await actor.toggleStatusEffect?.(id, { active: Boolean(active) });
      }
      actors[key] = {
        actorId: actor.id, tokenId: group.tokenId ?? null, name: actor.name, ruleset,
        before, after: out.stats, beforeConditions, conditions, statuses, changes: out.changes ?? [],
      };
    }
    await message.update({
      [`flags.${MODULE_ID}.applied`]: { by: userId ?? game.user.id, at: Date.now(), hash, actors },
    });
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
    for (const { rec, actor } of found) {
      if (!actor) continue;
      const update = flagUpdate(rec.ruleset, rec.after, rec.before);
      if (rec.beforeConditions === null || rec.beforeConditions === undefined) {
        if (rec.conditions !== null && rec.conditions !== undefined) update[`flags.${MODULE_ID}.-=conditions`] = null;
      } else update[`flags.${MODULE_ID}.conditions`] = rec.beforeConditions;
      await actor.update(update);
      for (const [id, was] of Object.entries(rec.statuses ?? {})) {
        await actor.toggleStatusEffect?.(id, { active: Boolean(was) });
      }
    }
    await message.update({
      [`flags.${MODULE_ID}.-=applied`]: null,
      [`flags.${MODULE_ID}.undone`]: { by: game.user.id, at: Date.now(), applied },
    });
  }
}
