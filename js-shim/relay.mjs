// The module socket between a player's client and the active GM's (`module.firefight`).
//
// Who sent a message is never read from the message: Foundry calls a module socket handler with
// the sender's user id as its second argument, set by the server (socketlib binds
// `_onSocketReceived(message, senderId)` as its `game.socket.on` handler and authenticates with
// that id: manuelVo/foundryvtt-socketlib src/socketlib.js). A request is answered only by the
// active GM; a reply is accepted only from a GM (as socketlib's `_isResponseSenderValid`).
import { MODULE_ID } from "./config.mjs";
import { t } from "./i18n.mjs";

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

/** A refusal with a code, shown to the requester as its message. */
export class Refusal extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * Answer requests of a type on the active GM's client: fn(payload, sender) resolves the reply's
 * value or throws (a Refusal's code and message go back to the sender).
 */
export function onRequest(type, fn) {
  handlers.set(type, fn);
}

/** The reply of a failed handler: {ok: false, code, reason}. */
function failure(err) {
  return { ok: false, code: err?.code ?? "error", reason: err?.message ?? String(err) };
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
    entry.resolve(data.reply ?? { ok: false, code: "bad_reply", reason: "no reply" });
    return;
  }
  const fn = handlers.get(data.type);
  if (!fn || !isActiveGM()) return;
  const sender = game.users?.get?.(senderId) ?? null;
  let reply;
  if (!sender) {
    reply = failure(new Refusal("unknown_sender", t("FIREFIGHT.ui.relay.unknownSender", "the request names no known sender")));
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
