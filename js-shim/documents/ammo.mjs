// Ammunition: a weapon item's magazine, `flags.firefight.ammo = {capacity, loaded, spares?}` (the
// core `Ammo` model in py/firefight/models.py; `spares`: full spare magazines the referee sets, a
// Reload takes one; absent: not counted). How many rounds a request fires is the engine's (an
// action's `rounds`): its odds say so before the dice and its result's outcome after, as
// `rounds_fired`. A shot needing more than is loaded is refused before anything is rolled; the
// client that rolled the shot takes the rounds off (the GM's client for a shot it rolls for a
// player, from the request it built itself). A weapon without `ammo` is not tracked (unlimited),
// nor is any weapon in a world that switches tracking off (setting "ammunition").
import { MODULE_ID } from "../core/config.mjs";
import { localize, said, t } from "../core/i18n.mjs";
import { escapeHTML } from "../core/form.mjs";
import { withActor } from "./writes.mjs";

/** The key of an engine reply (odds, or a result's outcome) naming the rounds fired. */
export const ROUNDS_FIRED = "rounds_fired";

/**
 * A shot refused for want of rounds (nothing was rolled); `said` keeps its lang key and
 * parameters, so a refusal the GM's client sends is worded in the player's language (relay.mjs).
 */
export class AmmoRefusal extends Error {
  constructor(text) {
    super(localize(text));
    this.code = "no_ammo";
    this.said = text;
  }
}

const isCount = (v, min) => Number.isSafeInteger(v) && v >= min;

/**
 * Pure: an item's magazine {capacity, loaded, spares?}, or null when it has none (not tracked);
 * no `spares` when they are not counted. Data that is not a magazine throws, naming the item and the
 * field.
 */
export function readAmmo(item) {
  const ammo = item?.flags?.[MODULE_ID]?.ammo;
  if (ammo === undefined || ammo === null) return null;
  const itemName = item?.name ?? "?";
  const bad = (field, min) => new Error(t("FIREFIGHT.ui.ammo.badCount", "{item}: flags.firefight.ammo.{field} — a whole number of at least {min}",
    { item: itemName, field, min }));
  const shape = typeof ammo === "object" && !Array.isArray(ammo) ? ammo : {};
  if (!isCount(shape.capacity, 1)) throw bad("capacity", 1);
  if (!isCount(shape.loaded, 0)) throw bad("loaded", 0);
  if (shape.loaded > shape.capacity) {
    throw new Error(t("FIREFIGHT.ui.ammo.overCapacity", "{item}: flags.firefight.ammo.loaded — at most the capacity, {capacity}",
      { item: itemName, capacity: shape.capacity }));
  }
  const out = { capacity: shape.capacity, loaded: shape.loaded };
  if (shape.spares === undefined || shape.spares === null) return out;
  if (!isCount(shape.spares, 0)) throw bad("spares", 0);
  return { ...out, spares: shape.spares };
}

/** Pure: the rounds an engine reply names (an odds reply, or a result by its outcome), or null. */
export function roundsOf(reply) {
  const n = reply?.[ROUNDS_FIRED] ?? reply?.outcome?.[ROUNDS_FIRED];
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** Pure: is a magazine short of the rounds a shot fires? */
export function isShort(ammo, rounds) {
  return Boolean(ammo) && Number.isSafeInteger(rounds) && rounds > ammo.loaded;
}

/** Pure: the rounds left after firing `rounds` (never below 0). */
export function afterFiring(ammo, rounds) {
  return Math.max(0, ammo.loaded - Math.max(0, rounds ?? 0));
}

/** Pure: a magazine after a reload: full, one spare magazine fewer (when they are counted). */
export function reloaded(ammo) {
  const full = { capacity: ammo.capacity, loaded: ammo.capacity };
  return ammo.spares === undefined ? full : { ...full, spares: Math.max(0, ammo.spares - 1) };
}

/** Pure: can the magazine be reloaded? Not when the spare magazines are counted and none is left. */
export function canReload(ammo) {
  return Boolean(ammo) && (ammo.spares === undefined || ammo.spares > 0);
}

/** Pure: "3/5" (loaded of capacity). */
export function countText(ammo) {
  return `${ammo.loaded}/${ammo.capacity}`;
}

/** Whether the world tracks ammunition (the world setting "ammunition", on by default). */
export function ammoTracked() {
  try {
    return game.settings.get(MODULE_ID, "ammunition") !== false;
  } catch {
    return true;
  }
}

/** An item's magazine when the world tracks it, else null. */
export function ammoOf(item) {
  return ammoTracked() ? readAmmo(item) : null;
}

/** The refusal, to be worded in the reader's language: who, what, how many. */
function shortSaid(item, ammo, rounds) {
  return said("FIREFIGHT.ui.ammo.short", "{item} has {loaded} of {capacity} rounds loaded; this shot fires {rounds}. Reload first.",
    { item: item?.name ?? "?", loaded: ammo.loaded, capacity: ammo.capacity, rounds });
}

/**
 * Before the dice: the rounds `request` fires from `item` (the engine's odds name them), or null
 * when the weapon is not tracked. Throws an AmmoRefusal when the magazine is short.
 */
export async function checkRounds(engine, request, item) {
  const ammo = ammoOf(item);
  if (!ammo) return null;
  const rounds = roundsOf(await engine.call("odds", { request }));
  if (rounds === null) return null;
  if (isShort(ammo, rounds)) throw new AmmoRefusal(shortSaid(item, ammo, rounds));
  return rounds;
}

/**
 * After the card is posted: the rounds the result fired come off the item's magazine, read as it
 * is now inside its actor's write queue (two shots in a row both count).
 */
export async function spendRounds(item, result) {
  const rounds = roundsOf(result);
  if (!rounds || !ammoOf(item)) return;
  await withActor(item.parent ?? item.actor, async () => {
    const now = readAmmo(item);
    if (!now) return;
    await item.update({ [`flags.${MODULE_ID}.ammo.loaded`]: afterFiring(now, rounds) });
  });
}

/**
 * Reload (an action of the shooter): the magazine refilled to its capacity from a spare one (a
 * counted spare is taken; with none left the reload is refused) and a short chat line. Resolves
 * the new magazine, or null when there is nothing to do.
 */
export async function reload(item) {
  if (!ammoOf(item)) return null;
  const actor = item.parent ?? item.actor ?? null;
  let after = null;
  await withActor(actor, async () => {
    const now = readAmmo(item);
    if (!now) return;
    if (!canReload(now)) {
      throw new AmmoRefusal(said("FIREFIGHT.ui.ammo.noSpares", "{item}: no spare magazine left to reload with.", { item: item.name }));
    }
    after = reloaded(now);
    const update = { [`flags.${MODULE_ID}.ammo.loaded`]: after.loaded };
    if (after.spares !== undefined) update[`flags.${MODULE_ID}.ammo.spares`] = after.spares;
    await item.update(update);
  });
  if (!after) return null;
  const text = after.spares === undefined
    ? t("FIREFIGHT.ui.ammo.reloaded", "{name} reloads {item} ({count}).",
      { name: actor?.name ?? "?", item: item.name, count: countText(after) })
    : t("FIREFIGHT.ui.ammo.reloadedSpares", "{name} reloads {item} ({count}; {spares} spare {spares:magazine|magazines} left).",
      { name: actor?.name ?? "?", item: item.name, count: countText(after), spares: after.spares });
  await ChatMessage.create({
    speaker: ChatMessage.getSpeaker({ actor }),
    content: `<p class="ff-reload">${escapeHTML(text)}</p>`,
  });
  return after;
}

/**
 * A weapon's magazine on the actor sheet: its count and spare magazines, and Reload for those
 * who may write it; a weapon without one says its rounds are not counted (none of the rule texts
 * gives a magazine size: docs/rules-notes.md, "Ammunition").
 */
export function ammoSheetHTML(item, editable) {
  let ammo;
  try {
    ammo = ammoOf(item);
  } catch (err) {
    return ` <span class="ff-ammo-count ff-short">${escapeHTML(err.message)}</span>`;
  }
  if (!ammo && ammoTracked()) {
    return ` <span class="ff-ammo-untracked" title="${escapeHTML(t("FIREFIGHT.ui.ammo.untrackedHint", "The rules give this weapon no magazine: set one on the item's Firefight tab to count its rounds."))}">${escapeHTML(t("FIREFIGHT.ui.ammo.notCounted", "rounds not counted"))}</span>`;
  }
  if (!ammo) return "";
  const spares = ammo.spares === undefined ? "" : ` · ${t("FIREFIGHT.ui.ammo.sparesCount", "{spares} spare {spares:magazine|magazines}", { spares: ammo.spares })}`;
  const count = ` <span class="ff-ammo-count" data-loaded="${ammo.loaded}"${ammo.spares === undefined ? "" : ` data-spares="${ammo.spares}"`}>${escapeHTML(countText(ammo) + spares)}</span>`;
  if (!editable) return count;
  return `${count} <button type="button" class="ff-reload-button" data-firefight-action="sheet-reload"${canReload(ammo) ? "" : " disabled"}>${escapeHTML(t("FIREFIGHT.ui.ammo.reload", "Reload"))}</button>`;
}

/** The magazine a request carries (`ActionRequest.ammo`, for the card's rounds left), or null. */
export function requestAmmo(item) {
  try {
    return ammoOf(item);
  } catch {
    return null; // a bad magazine is refused where it is used (checkRounds)
  }
}

/** The dialog's magazine line: "Rounds 3/5 · this shot fires 2", a warning when short. */
export function ammoLineHTML(item, rounds = null) {
  const ammo = ammoOf(item);
  if (!ammo) return "";
  const count = t("FIREFIGHT.ui.ammo.count", "Rounds loaded: {count}", { count: countText(ammo) });
  const fires = rounds === null ? "" : ` · ${t("FIREFIGHT.ui.ammo.fires", "this shot fires {rounds}", { rounds })}`;
  const short = isShort(ammo, rounds);
  return `<span class="ff-ammo-count${short ? " ff-short" : ""}" data-loaded="${ammo.loaded}">${escapeHTML(count + fires)}</span>
    <button type="button" class="ff-reload-button" data-firefight-action="reload">${escapeHTML(t("FIREFIGHT.ui.ammo.reload", "Reload"))}</button>`;
}

/**
 * Keep a dialog's magazine line (`[data-firefight-ammo]`) current: `weapon()` is the item chosen
 * now; `show(rounds)` redraws it (called with each odds reply); its Reload button reloads that
 * item and calls `after()`.
 */
export function wireAmmo(form, weapon, after = () => {}) {
  const box = form?.querySelector?.("[data-firefight-ammo]");
  if (!box) return () => {};
  let last = null;
  const show = (rounds = last) => {
    last = rounds;
    try {
      box.innerHTML = ammoLineHTML(weapon(), rounds);
    } catch (err) {
      box.innerHTML = `<span class="ff-ammo-count ff-short">${escapeHTML(err.message)}</span>`;
    }
    box.hidden = !box.innerHTML;
  };
  box.addEventListener("click", (ev) => {
    if (!ev.target.closest?.('[data-firefight-action="reload"]')) return;
    ev.preventDefault();
    reload(weapon()).then(() => { show(); after(); }, (err) => {
      console.error("Firefight |", err);
      ui.notifications?.error(`Firefight: ${err?.message ?? err}`);
    });
  });
  show();
  return show;
}
