// The card stage: a result posted as a ChatMessage whose rolls are the engine's dice, in the
// roller's roll mode. A hidden result (the engine's `gm_html`: the referee rolls secretly) posts
// the players' card without the referee's dice and whispers the full card to the GMs.
import { MODULE_ID } from "../core/config.mjs";
import { rollDataFromResult } from "../core/dice.mjs";
import { ask } from "../relay/relay.mjs";

/** Dice records -> Roll data, leaving out the hidden ones (by index). */
export function publicRollData(result, hidden = []) {
  const skip = new Set(hidden ?? []);
  return rollDataFromResult(result).filter((_, i) => !skip.has(i));
}

/** ChatMessage speaker for a token placeable, or a stand-in {actor, name} for an actor off the scene. */
export function speakerOf(token) {
  if (token?.document) return ChatMessage.getSpeaker({ token: token.document });
  if (token?.actor) return ChatMessage.getSpeaker({ actor: token.actor });
  if (token?.documentName === "Token") return ChatMessage.getSpeaker({ token });
  return ChatMessage.getSpeaker();
}

/**
 * A card the GM's client rolled for a player, shown to that player as Foundry shows their own roll
 * in their roll mode (the GM's client is its author, so the whisper must name them): a private GM
 * roll is read by the GMs and its roller; a blind roll by the GMs only (its roller sees that it
 * was rolled, as any whispered roll is seen); a self roll by its roller only.
 */
function forTheRoller(data, rolledFor, rollMode) {
  if (rollMode === "gmroll") data.whisper = [...new Set([...(data.whisper ?? []), rolledFor])];
  else if (rollMode === "selfroll") data.whisper = [rolledFor];
}

function withRollMode(data, { rolledFor, rollMode }) {
  if (typeof ChatMessage.applyRollMode === "function" && game.settings.settings?.has?.("core.rollMode")) {
    ChatMessage.applyRollMode(data, rollMode ?? game.settings.get("core", "rollMode"));
    if (rolledFor) forTheRoller(data, rolledFor, rollMode);
  }
  return data;
}

/**
 * Post a resolved action's card(s). `rolledFor`: the player a GM's client rolled it for (they may
 * then ask for it to be applied); `rollMode`: theirs; `extra`: a caller's flags (api.act's
 * opts.flags), kept under flags.firefight.extra. Resolves {shown, full}: the message its roller
 * reads, and the one carrying the result (the same message unless the result is hidden; a
 * player's hidden result has its full card posted by the active GM: `full` null here).
 */
export async function postCards(reply, request, speakerToken, { rolledFor = null, rollMode = null, extra = {} } = {}) {
  const speaker = speakerOf(speakerToken);
  const more = extra && Object.keys(extra).length ? { extra } : {};
  const sound = CONFIG.sounds?.dice ? { sound: CONFIG.sounds.dice } : {};
  if (!reply.gm_html) {
    const data = withRollMode({
      speaker, content: reply.html, ...sound,
      rolls: rollDataFromResult(reply.result).map((d) => Roll.fromData(d)),
      flags: { [MODULE_ID]: { result: reply.result, request, ...(rolledFor ? { rolledFor } : {}), ...more } },
    }, { rolledFor, rollMode });
    const message = await ChatMessage.create(data);
    return { shown: message, full: message };
  }
  const publicData = {
    speaker, content: reply.html, ...sound,
    rolls: publicRollData(reply.result, reply.hidden_dice).map((d) => Roll.fromData(d)),
    flags: { [MODULE_ID]: { hidden: true, action: reply.result?.action, ruleset: reply.result?.ruleset } },
  };
  // A player never authors the referee's card: ChatMessage.create hands the created document,
  // flags and all, back to its author, whisper or blind as it may be. The active GM posts it.
  if (!game.user.isGM) {
    const answer = await ask("hiddenCard", { request, result: reply.result, speaker, extra: extra ?? {} });
    if (!answer.ok) throw new Error(answer.reason ?? answer.code);
    return { shown: await ChatMessage.create(publicData), full: null };
  }
  const shown = await ChatMessage.create(publicData);
  const full = await postRefereeCard(reply, request, speaker, { ...more, ...(rolledFor ? { rolledFor } : {}) });
  return { shown, full };
}

/** Post a resolved action's card: resolves the message this user reads that carries the result, if any. */
export async function postCard(reply, request, speakerToken, opts = {}) {
  const { shown, full } = await postCards(reply, request, speakerToken, opts);
  return full ?? shown;
}

/** The referee's full card of a hidden result, whispered to the GMs (posted by a GM's client). */
export function postRefereeCard(reply, request, speaker, flags = {}) {
  const gms = game.users.filter((u) => u.isGM).map((u) => u.id);
  return ChatMessage.create({
    speaker, content: reply.gm_html, whisper: gms,
    rolls: rollDataFromResult(reply.result).map((d) => Roll.fromData(d)),
    flags: { [MODULE_ID]: { result: reply.result, request, gm: true, ...flags } },
  });
}

/** A short chat note without dice (table-side actions). */
export async function postNote(html, speakerToken, flags = {}) {
  return ChatMessage.create({
    speaker: speakerOf(speakerToken),
    content: `<div class="firefight-card ff-note">${html}</div>`,
    flags: { [MODULE_ID]: { note: true, ...flags } },
  });
}
