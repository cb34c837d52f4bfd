// The active GM's client rolling and posting for a player (the roll and card stages on the GM's
// side): "The GM's client rolls players' shots" for every action, and the referee's full card of
// a player's hidden result. Nothing a player's client sends is trusted: the request is checked
// against the table (verify.mjs) as Apply checks it, the acting token must be the sender's, and
// the dice are this client's.
import { said, localize } from "../core/i18n.mjs";
import { rollDataFromResult, facesOfRoll } from "../core/dice.mjs";
import { actingParticipant, itemsOf } from "../workflow/request.mjs";
import { resolveWithEntropy, cardLanguage } from "../workflow/roll.mjs";
import { postCards, postRefereeCard } from "../workflow/card.mjs";
import { gmRollsShots } from "../world/settings.mjs";
import { checkRounds, spendRounds } from "../documents/ammo.mjs";
import { actorFor, ownsActing, requestField, resultHash, tokenDocument } from "../documents/apply.mjs";
import { worldMismatch, withTheWorld } from "./verify.mjs";
import { Refusal, onRequest } from "./relay.mjs";

const ROLL_MODES = new Set(["publicroll", "gmroll", "blindroll", "selfroll", "roll"]);
// The most a player's request may carry as extra flags (JSON characters).
const MAX_EXTRA_FLAGS_CHARS = 4096;

const lookup = Object.assign((g) => actorFor(g), { tokenOf: tokenDocument });

/** The caller's extra flags (api.act's opts.flags), only as small plain JSON. */
function extraFlags(extra) {
  const text = extra && typeof extra === "object" && !Array.isArray(extra) ? JSON.stringify(extra) : "{}";
  if (text.length > MAX_EXTRA_FLAGS_CHARS) throw new Refusal("too_large", said("FIREFIGHT.ui.relay.tooLarge", "the request is too large"));
  return JSON.parse(text);
}

/** The acting participant's token (or actor) on this client's table: the card's speaker, never the payload's word. */
function actingToken(request) {
  const acting = actingParticipant(request);
  const token = acting?.token_id ? tokenDocument(acting.token_id) : null;
  const actor = token?.actor ?? (acting?.actor_id ? game.actors.get(acting.actor_id) : null);
  return { token, actor };
}

/** Refused unless the request is the table's and its acting token the sender's (as Apply refuses). */
async function checkRequest(engine, request, sender, refuse) {
  if (!request || typeof request !== "object" || Array.isArray(request)) {
    throw refuse("bad_request", said("FIREFIGHT.ui.apply.unknown", "no such Firefight message"));
  }
  if (!ownsActing(request, sender)) {
    throw refuse("not_owner", said("FIREFIGHT.ui.apply.notOwner", "{user} does not own {name}, who acts in this result",
      { user: sender?.name ?? "?", name: actingParticipant(request)?.name ?? "?" }));
  }
  const bad = await worldMismatch(engine, request, { actorFor: lookup, since: Date.now() });
  if (bad) {
    throw refuse("changed_request", said("FIREFIGHT.ui.apply.changedRequest", "the shot does not match the table: {field} is {reason}",
      { field: requestField(request.ruleset, bad.field), reason: bad.reason }));
  }
}

/**
 * "The GM's client rolls players' shots", for every action: the player's client gathered the
 * request and the player chose in its dialog; here it is checked against the table, rolled with
 * this client's dice, posted in the player's roll mode with their token as its speaker, and the
 * rounds are taken off. payload {request, rollMode, extra} -> {messageId} (the message the player reads).
 */
export async function rollForPlayer(engine, payload, sender) {
  const refuse = (code, reason) => { // reason: a `said` text, which the player says in its language
    console.warn(`Firefight | refused a roll from ${sender?.name}: ${code} — ${localize(reason)}`);
    return new Refusal(code, reason);
  };
  if (!gmRollsShots()) throw refuse("gm_rolls_off", said("FIREFIGHT.ui.gmRolls.off", "The GM's client does not roll players' shots in this world."));
  if (!payload?.request || typeof payload.request !== "object" || Array.isArray(payload.request)) {
    throw refuse("bad_request", said("FIREFIGHT.ui.apply.unknown", "no such Firefight message"));
  }
  const request = await withTheWorld(engine, payload.request);
  await checkRequest(engine, request, sender, refuse);
  const extra = extraFlags(payload.extra);
  const { token, actor } = actingToken(request);
  // The weapon is the acting actor's own item (verify.mjs checked its data); its rounds are this client's count.
  const weaponItem = request.weapon ? itemsOf(actor).find((i) => i.id === request.weapon.item_id) ?? null : null;
  try {
    await checkRounds(engine, request, weaponItem);
  } catch (err) {
    throw refuse(err.code ?? "no_ammo", err.said ?? err.message);
  }
  const reply = await resolveWithEntropy(engine, request);
  const rollMode = ROLL_MODES.has(payload.rollMode) ? payload.rollMode : null;
  const { shown } = await postCards(reply, request, token?.object ?? token ?? (actor ? { actor } : null), { rolledFor: sender.id, rollMode, extra });
  await spendRounds(weaponItem, reply.result);
  return { messageId: shown?.id ?? null };
}

/**
 * The active GM's side of a player's hidden result (2300ad UNCERTAIN TASKS: "the referee rolls
 * secretly"): the result must follow from its own dice and the request, and the request must be
 * the table's (verify.mjs); the card is rendered here from the replayed result and whispered to
 * the GMs. payload {request, result, speaker, extra} -> {messageId}
 */
export async function postHiddenForPlayer(engine, payload, sender) {
  const refuse = (code, reason) => new Refusal(code, reason);
  const { request, result } = payload ?? {};
  if (!result || typeof result !== "object") throw refuse("bad_request", said("FIREFIGHT.ui.apply.unknown", "no such Firefight message"));
  if (!request || typeof request !== "object") throw refuse("bad_request", said("FIREFIGHT.ui.apply.unknown", "no such Firefight message"));
  if (!ownsActing(request, sender)) {
    throw refuse("not_owner", said("FIREFIGHT.ui.apply.notOwner", "{user} does not own {name}, who acts in this result",
      { user: sender?.name ?? "?", name: actingParticipant(request)?.name ?? "?" }));
  }
  const extra = extraFlags(payload.extra);
  const faces = rollDataFromResult(result).map((d) => Roll.fromData(d)).flatMap((r) => facesOfRoll(r));
  const replay = await engine.call("resolve", { request, faces, lang: cardLanguage() }).catch(() => null);
  if (!replay?.gm_html || resultHash(replay.result) !== resultHash(result)) {
    throw refuse("changed_result", said("FIREFIGHT.ui.apply.dice", "the result does not follow from the message's dice"));
  }
  await checkRequest(engine, request, sender, refuse);
  const { token, actor } = actingToken(request);
  const speaker = token ? ChatMessage.getSpeaker({ token }) : actor ? ChatMessage.getSpeaker({ actor }) : ChatMessage.getSpeaker();
  const message = await postRefereeCard(replay, request, speaker, { ...(Object.keys(extra).length ? { extra } : {}), rolledFor: sender.id });
  return { messageId: message?.id ?? null };
}

/** The GM's handlers on the module socket (the active GM answers: relay.mjs). */
export function listenAsGM(engine) {
  onRequest("roll", (payload, sender) => rollForPlayer(engine, payload, sender));
  onRequest("hiddenCard", (payload, sender) => postHiddenForPlayer(engine, payload, sender));
}
