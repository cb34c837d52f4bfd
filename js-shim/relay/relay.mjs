// The module socket between a player's client and the active GM's (`module.firefight`).
//
// Who sent a message is never read from the message: Foundry calls a module socket handler with
// the sender's user id as its second argument, set by the server (socketlib binds
// `_onSocketReceived(message, senderId)` as its `game.socket.on` handler and authenticates with
// that id: manuelVo/foundryvtt-socketlib src/socketlib.js). A request is answered only by the
// active GM; a reply is accepted only from a GM (as socketlib's `_isResponseSenderValid`).
import { MODULE_ID } from "../core/config.mjs";
import { t, said, localize } from "../core/i18n.mjs";

export const SOCKET = `module.${MODULE_ID}`;
export const REPLY_TIMEOUT_MS = 60000;

const handlers = new Map(); // request type -> async (payload, sender: User) -> value
const pending = new Map(); // requestId -> {resolve, timer}
let listening = false;
let nextRequest = 1;

/** Is this client the one GM that answers relayed requests (Foundry's `game.users.activeGM`)? */
export function isActiveGM() {
  const active = game.users?.activeGM;
  return Boolean(game.user?.isGM) && (!active || active.id === game.user.id);
}

/**
 * A refusal with a code, shown to the requester as its message: text, or a `said` text
 * (i18n.mjs), which goes back with its key and params for the requester to say in its language.
 */
export class Refusal extends Error {
  constructor(code, message) {
    const keyed = message && typeof message === "object" ? message : null;
    super(keyed ? localize(keyed) : String(message ?? ""));
    this.code = code;
    if (keyed) {
      this.key = keyed.key;
      this.params = keyed.params ?? {};
    }
  }
}

/**
 * Answer requests of a type on the active GM's client: fn(payload, sender) resolves the reply's
 * value or throws (a Refusal's code and message go back to the sender).
 */
export function onRequest(type, fn) {
  handlers.set(type, fn);
}

/** The reply of a failed handler: {ok: false, code, reason, key?, params?} (reason: this client's text). */
function failure(err) {
  const out = { ok: false, code: err?.code ?? "error", reason: err?.message ?? String(err) };
  // A Refusal's words, or an engine error's (engine.mjs EngineError keeps the engine's reply in .error).
  const keyed = err instanceof Refusal ? err : err?.error;
  if (typeof keyed?.key === "string") Object.assign(out, { key: keyed.key, params: keyed.params ?? {} });
  return out;
}

// What a GM's reply may name: a Firefight lang key; params small plain values or `said` texts.
const REPLY_KEY = /^FIREFIGHT\.[\w.-]{1,200}$/;
const MAX_REPLY_PARAMS = 20;

function replyParams(params, depth = 0) {
  if (!params || typeof params !== "object" || Array.isArray(params)) return {};
  const out = {};
  for (const [k, v] of Object.entries(params).slice(0, MAX_REPLY_PARAMS)) {
    if (typeof v === "number" || typeof v === "string") out[k] = typeof v === "string" ? v.slice(0, 1000) : v;
    else if (v && typeof v === "object" && depth < 2 && typeof v.key === "string" && REPLY_KEY.test(v.key)) {
      out[k] = said(v.key, String(v.fallback ?? ""), replyParams(v.params, depth + 1));
    }
  }
  return out;
}

/** Pure given the lang files: a reply with its reason in this client's language (from its key), else as sent. */
export function localReply(reply) {
  if (!reply || typeof reply !== "object" || reply.ok || typeof reply.key !== "string" || !REPLY_KEY.test(reply.key)) return reply;
  return { ...reply, reason: localize(said(reply.key, String(reply.reason ?? ""), replyParams(reply.params))) };
}

/** Listen on the module socket (once game.socket exists). */
export function listen() {
  if (listening || !game.socket?.on) return;
  listening = true;
  game.socket.on(SOCKET, (data, senderId) => {
    receive(data, senderId).catch((err) => console.error("Firefight |", err));
  });
}

async function receive(data, senderId) {
  if (!data || typeof data !== "object") return;
  if (data.type === "reply") {
    if (data.to !== game.user?.id) return;
    const entry = pending.get(data.requestId);
    if (!entry) return;
    // Only a GM answers; anything else is someone writing into the socket.
    if (!game.users?.get?.(senderId)?.isGM) {
      console.warn(`Firefight | dropped a reply to ${data.requestId} from ${senderId ?? "an unknown sender"}, who is not a GM`);
      return;
    }
    pending.delete(data.requestId);
    clearTimeout(entry.timer);
    entry.resolve(localReply(data.reply) ?? { ok: false, code: "bad_reply", reason: "no reply" });
    return;
  }
  const fn = handlers.get(data.type);
  if (!fn || !isActiveGM()) return;
  const sender = game.users?.get?.(senderId) ?? null;
  let reply;
  if (!sender) {
    reply = failure(new Refusal("unknown_sender", said("FIREFIGHT.ui.relay.unknownSender", "the request names no known sender")));
  } else {
    reply = await Promise.resolve().then(() => fn(data.payload ?? {}, sender))
      .then((value) => ({ ok: true, ...(value && typeof value === "object" ? value : {}) }), failure);
  }
  game.socket.emit(SOCKET, { type: "reply", requestId: data.requestId, to: senderId, reply });
}

/**
 * Ask the active GM's client: resolves its reply {ok, code?, reason?, ...}; never throws.
 * A reply that does not come within REPLY_TIMEOUT_MS is {ok: false, code: "timeout"}.
 */
export function ask(type, payload, { timeoutMs = REPLY_TIMEOUT_MS } = {}) {
  if (!game.users?.activeGM) {
    return Promise.resolve({ ok: false, code: "no_gm", reason: t("FIREFIGHT.ui.apply.noGM", "A GM must be connected to apply a result.") });
  }
  const requestId = `${game.user?.id}-${Date.now()}-${nextRequest++}`;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      pending.delete(requestId);
      resolve({ ok: false, code: "timeout", reason: t("FIREFIGHT.ui.apply.timeout", "The GM did not answer.") });
    }, timeoutMs);
    pending.set(requestId, { resolve, timer });
    game.socket.emit(SOCKET, { type, requestId, payload });
  });
}
