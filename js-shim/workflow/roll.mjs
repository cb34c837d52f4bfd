// The roll stage: a request resolved with this client's entropy (the VTT's dice), or sent to the
// active GM's client to roll when the world says so (relay/gm.mjs is that client's side).
import { MODULE_ID, ENTROPY_START, ENTROPY_MAX } from "../core/config.mjs";
import { EntropyStream } from "../core/dice.mjs";
import { t } from "../core/i18n.mjs";
import { ask } from "../relay/relay.mjs";
import { gmRollsShots } from "../world/settings.mjs";

/** The language cards are rendered in (Foundry's client language). */
export function cardLanguage() {
  return globalThis.game?.i18n?.lang ?? "en";
}

/** resolve with VTT entropy; top the list up (never redrawn: dice.mjs) while the engine reports it ran out. */
export async function resolveWithEntropy(engine, request, random = () => CONFIG.Dice.randomUniform()) {
  const stream = new EntropyStream(random);
  for (let n = ENTROPY_START; ; n *= 4) {
    const entropy = stream.take(n);
    try {
      return await engine.call("resolve", { request, entropy, lang: cardLanguage() });
    } catch (err) {
      if (err?.code !== "entropy_exhausted" || n * 4 > ENTROPY_MAX) throw err;
    }
  }
}

/** Whether this client's rolls go to the active GM's client ("The GM's client rolls players' shots"). */
export function rollsThroughGM(user = globalThis.game?.user) {
  return Boolean(user) && !user.isGM && gmRollsShots();
}

/** This user's roll mode (Foundry's core setting), or null where there is none. */
export function currentRollMode() {
  return game.settings.settings?.has?.("core.rollMode") ? game.settings.get("core", "rollMode") : null;
}

/**
 * A player's request rolled by the active GM's client, which checks it against the table
 * (relay/gm.mjs), rolls, posts the card in this user's roll mode and takes the rounds off:
 * resolves the ChatMessage this user may read (or throws why not).
 */
export async function rollThroughGM(request, { flags = {} } = {}) {
  const reply = await ask("roll", { request, rollMode: currentRollMode(), extra: flags ?? {} });
  if (!reply.ok) throw new Error(reply.reason ?? reply.code);
  // The message reaches this client as a document of the world (it may follow the reply).
  for (let waited = 0; waited < 10000; waited += 50) {
    const message = game.messages.get(reply.messageId);
    if (message) return message;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(t("FIREFIGHT.ui.gmRolls.lost", "The GM rolled the shot, but its card did not arrive."));
}

/** Whether debug logging is on (the module's setting). */
export function debugging() {
  try {
    return Boolean(game.settings.get(MODULE_ID, "debug"));
  } catch {
    return false;
  }
}
