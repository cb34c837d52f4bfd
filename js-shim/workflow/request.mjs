// Pure functions: Foundry documents -> engine request (docs/architecture.md).
// Only flags.firefight.<ruleset> is read; nothing here knows a ruleset's rules.
import { t } from "../core/i18n.mjs";
import { requestAmmo } from "../documents/ammo.mjs";

/** The ruleset's data object stored on a document, or undefined. */
export function rulesetData(doc, ruleset) {
  return doc?.flags?.firefight?.[ruleset];
}

/** An actor's items as a list (Foundry's Collection, a Map, or an array). */
export function itemsOf(actor) {
  const items = actor?.items;
  if (!items) return [];
  if (Array.isArray(items)) return items;
  // Foundry's Collection (a Map) has .contents; a plain Map iterates entries.
  return items.contents ?? Array.from(typeof items.values === "function" ? items.values() : items);
}

/** Items of one category ("weapon", "armor", ...) carrying data for the ruleset. */
export function itemsByCategory(actor, ruleset, category) {
  return itemsOf(actor).filter((item) => rulesetData(item, ruleset)?.category === category);
}

/** The actor's weapons; the one equipped last (a dropped weapon) first. */
export function weaponsOf(actor, ruleset) {
  const at = (i) => Number(i.flags?.firefight?.equippedAt ?? 0);
  return itemsByCategory(actor, ruleset, "weapon")
    .map((item, index) => ({ item, index }))
    .sort((a, b) => at(b.item) - at(a.item) || a.index - b.index)
    .map(({ item }) => item);
}

export function equippedArmor(actor, ruleset) {
  return itemsByCategory(actor, ruleset, "armor").filter((i) => i.flags?.firefight?.equipped === true);
}

/** {"name","item_id", ...data} for one item. */
export function itemEntry(item, ruleset) {
  return { name: item.name, item_id: item.id, ...structuredClone(rulesetData(item, ruleset) ?? {}) };
}

/** Request fields that take the acting (controlled) token, in order of preference. */
export const SELF_FIELDS = ["attacker", "actor", "character", "firer", "medic", "patient"];

/**
 * A token's own address, valid on any scene: its TokenDocument's UUID ("Scene.<s>.Token.<t>"),
 * else its id. An unlinked token's synthetic actor keeps the base actor's id ("Synthetic Actors
 * retain the base Actor ID", adambdooley/foundry-vtt-mcp#111), so only the token tells them apart.
 */
export function tokenAddress(token) {
  const doc = token?.document ?? token;
  return doc?.uuid ?? token?.id ?? doc?.id ?? null;
}

/**
 * Whether a user owns a token (and so may act with it): a GM always; a player when they own its
 * actor (Document#testUserPermission(user, "OWNER"), foundryvtt.com/api; a token's ownership is
 * its actor's).
 */
export function ownsToken(token, user = globalThis.game?.user) {
  if (user?.isGM) return true;
  if (!user || !token) return false;
  const actor = token.actor ?? token.document?.actor ?? null;
  const doc = actor ?? token.document ?? token;
  return typeof doc?.testUserPermission === "function" ? Boolean(doc.testUserPermission(user, "OWNER")) : false;
}

/** The participant of a request who acts (attacker, actor, character ...), or null. */
export function actingParticipant(request) {
  for (const f of SELF_FIELDS) {
    const p = request?.[f];
    if (p && (p.actor_id || p.token_id)) return p;
  }
  return null;
}

/**
 * Fields table features add to a participant from its token (e.g. the cover the referee marked
 * on it, cover.mjs): fn(token, ruleset, path) -> {field: value} | null, where `path` is where the
 * participant goes in the request ("target", "attacker", "targets[]" for each of a list).
 */
export const participantExtras = [];

/**
 * One side of a shot: token -> {name, actor_id, token_id (the token's UUID), pc, stats, armor},
 * plus what `participantExtras` give for its `path` in the request.
 */
export function combatant(token, ruleset, path = null) {
  const actor = token?.actor;
  if (!actor) throw new Error(t("FIREFIGHT.ui.error.noActor", "Token {name} has no actor.", { name: token?.name ?? "?" }));
  const stats = rulesetData(actor, ruleset);
  if (!stats) throw new Error(t("FIREFIGHT.ui.error.noStats", "{name} has no Firefight stats.", { name: actor.name }));
  const entry = {
    name: token.name ?? actor.name,
    actor_id: actor.id,
    token_id: tokenAddress(token),
    pc: Boolean(actor.hasPlayerOwner),
    stats: structuredClone(stats),
    armor: equippedArmor(actor, ruleset).map((i) => itemEntry(i, ruleset)),
  };
  if (path) for (const fn of participantExtras) Object.assign(entry, fn(token, ruleset, path) ?? {});
  return entry;
}

/**
 * Scene distance -> a request's range. The scene's unit name is passed on as it is: the engine
 * turns it into metres with its own table (and a ruleset that reads tabletop inches sees inches).
 * `metresPerUnit` > 0 (the world's unit mapping) gives metres instead.
 */
export function rangeFromMeasure(distance, units, metresPerUnit = 0) {
  if (metresPerUnit > 0) return { value: Math.round(distance * metresPerUnit * 100) / 100, units: "m" };
  return { value: Math.round(distance * 100) / 100, units: String(units ?? "").trim() };
}

/**
 * The full attack request. `tables`: {<field>: RollTable texts} the ruleset's
 * `features.actionTables` asks the request to carry (e.g. General Trauma texts; world/tables.mjs
 * `actionTables`).
 */
export function buildRequest({ ruleset, attackerToken, targetToken, weaponItem, range, options = {}, settings, house, tables }) {
  const request = {
    ruleset,
    action: "attack",
    attacker: combatant(attackerToken, ruleset, "attacker"),
    target: combatant(targetToken, ruleset, "target"),
    weapon: itemEntry(weaponItem, ruleset),
    range,
    options: structuredClone(options),
  };
  if (settings && Object.keys(settings).length) request.settings = structuredClone(settings);
  // The weapon's magazine as tracked (ammo.mjs): the card says the rounds the shot leaves.
  const ammo = requestAmmo(weaponItem);
  if (ammo) request.ammo = ammo;
  // The house rules of the ruleset for this action: {<rule id>: {options, settings}} (house.mjs).
  if (house && Object.keys(house).length) request.house = structuredClone(house);
  for (const [field, value] of Object.entries(tables ?? {})) if (!(field in request)) request[field] = structuredClone(value);
  return request;
}
