// The GM's check of a request a player's client built (reliability audit D4): the request inside
// a result must be the one the table gives. The GM's client rebuilds a shot with the same builder
// the shooter's client used (request.mjs `buildRequest`) from the real tokens, the shooter's own
// item, the range it measures and the world's settings, and compares; what the player chose
// (the dialog's options, checked by the engine against their schema, the weapon among the
// shooter's items, the target among the scene's tokens) is taken from the request. Every other
// action's participants, weapon, settings and house rules are checked the same way.
//
// An actor's data may have changed since the shot was posted (other hits applied meanwhile): its
// data in the request may be its current data or any data an apply record on it says it had
// since shortly before the message was posted (apply.mjs keeps those records on the actor).
import { MODULE_ID } from "../core/config.mjs";
import { said, localize } from "../core/i18n.mjs";
import { buildRequest, itemEntry, equippedArmor, rulesetData, actingParticipant, itemsOf } from "../workflow/request.mjs";
import { stableStringify } from "../core/json.mjs";
import { rulesetSettings, houseSettings } from "../world/settings.mjs";
import { currentRuleset, houseRules, tableFeatures } from "../world/catalog.mjs";
import { actionTables } from "../world/tables.mjs";
import { measureRange } from "../canvas/measure.mjs";
import { houseRequest, chosenHouseOptions, unknownHouseOption } from "../world/house.mjs";
import { rulesetSchema, actionVariant, planRequest } from "../workflow/plan.mjs";
import { DEFAULT_ACTION } from "../core/config.mjs";
import { resolveRef } from "../core/form.mjs";

/** How long before its message a shot may have been built (dialog open, engine resolving). */
export const SHOT_BUILD_WINDOW_MS = 10 * 60 * 1000;

/** Pure: JSON equality with keys in any order (undefined keys ignored). */
function same(a, b) {
  return stableStringify(a) === stableStringify(b);
}

/** Pure: the first path at which two JSON values differ ("target.stats.toughness"), or null. */
export function firstDifference(expected, actual, path = "") {
  if (same(expected, actual)) return null;
  const isObj = (v) => v && typeof v === "object";
  if (isObj(expected) && isObj(actual) && Array.isArray(expected) === Array.isArray(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    for (const k of keys) {
      const d = firstDifference(expected[k], actual[k], path ? `${path}.${k}` : k);
      if (d) return d;
    }
  }
  return path || "request";
}

/** Pure: the participants of a request: [{path, p}] (objects with actor_id/token_id, in lists too). */
export function participantsOf(request) {
  const out = [];
  const isP = (v) => v && typeof v === "object" && !Array.isArray(v) && (v.actor_id || v.token_id);
  for (const [k, v] of Object.entries(request ?? {})) {
    if (isP(v)) out.push({ path: k, p: v });
    else if (Array.isArray(v)) v.forEach((x, i) => { if (isP(x)) out.push({ path: `${k}.${i}`, p: x }); });
  }
  return out;
}

/**
 * Pure: the participant fields of a request variant (its JSON schema node, `root` for its refs):
 * [{name, list}], a field taking one participant (an object with `actor_id` / `token_id`) or a
 * list of them.
 */
export function participantFields(variant, root) {
  const isP = (node) => Boolean(node?.properties && ("actor_id" in node.properties || "token_id" in node.properties));
  const out = [];
  for (const [name, raw] of Object.entries(variant?.properties ?? {})) {
    const node = resolveRef(raw, root);
    if (isP(node)) out.push({ name, list: false });
    else if (node?.type === "array" && isP(resolveRef(node.items ?? {}, root))) out.push({ name, list: true });
  }
  return out;
}

/**
 * Pure: the path of the first participant in a request that names neither a token nor an actor
 * ("attacker", "targets.2"), or null. Every participant the table checks must say who it is.
 */
export function unaddressed(request, fields) {
  const named = (p) => p && typeof p === "object" && (p.actor_id || p.token_id);
  for (const { name, list } of fields) {
    const v = request?.[name];
    if (v === undefined || v === null) continue;
    if (!list && !named(v)) return name;
    if (list && Array.isArray(v)) {
      const i = v.findIndex((x) => !named(x));
      if (i >= 0) return `${name}.${i}`;
    }
  }
  return null;
}

/**
 * The data (flags.firefight.<ruleset>) an actor may be shown with in a request posted at `since`:
 * its current data, and the before/after of every result applied to it from shortly before then.
 */
export function knownStates(actor, ruleset, since = 0) {
  const states = [rulesetData(actor, ruleset) ?? {}];
  for (const rec of Object.values(actor?.flags?.[MODULE_ID]?.applied ?? {})) {
    if (!rec || rec.ruleset !== ruleset || Number(rec.at ?? 0) < since - SHOT_BUILD_WINDOW_MS) continue;
    if (rec.before) states.push(rec.before);
    if (rec.after) states.push(rec.after);
  }
  return states;
}

/** A field that does not match, and why: a `said` text (i18n.mjs), said by whoever shows it. */
class Mismatch extends Error {
  constructor(field, reason) {
    super(localize(reason));
    this.field = field;
    this.reason = reason;
  }
}

/** A participant's data must be a state its actor had: `stats` (shots), or the stats' keys (actions). */
function checkParticipantData(path, p, actor, ruleset, since) {
  const states = knownStates(actor, ruleset, since);
  if (p.stats !== undefined) {
    if (!states.some((s) => same(s, p.stats))) {
      throw new Mismatch(firstDifference(states[0], p.stats, `${path}.stats`), said("FIREFIGHT.ui.verify.stats", "not {name}'s data", { name: actor.name }));
    }
    return;
  }
  const fits = (s) => Object.keys(s).every((k) => !(k in p) || same(s[k], p[k]));
  if (!states.some(fits)) {
    const k = Object.keys(states[0]).find((key) => key in p && !same(states[0][key], p[key]));
    throw new Mismatch(`${path}.${k}`, said("FIREFIGHT.ui.verify.stats", "not {name}'s data", { name: actor.name }));
  }
}

/**
 * The world's part of a request of `action` (never the player's choice): whether it carries the
 * ruleset's settings and those settings, the world's house rules for it (`rules`) and, with the
 * options the request chose for them (`house`), the house-rule request with the world's settings.
 */
function worldPart(ruleset, action, variant, root, house) {
  const rules = houseRules(ruleset, action);
  return {
    takesSettings: action === DEFAULT_ACTION || Boolean(planRequest(variant, root).settings),
    settings: rulesetSettings(ruleset),
    rules,
    house: houseRequest(rules, chosenHouseOptions(house), houseSettings),
  };
}

/**
 * A player's request with the world's part as this client has it: the ruleset's settings, the
 * house rules' settings and the world's RollTables are the world's, never the player's choice
 * (a client that joined late or missed a change sends stale ones). Everything else is the
 * player's request, checked against the table after (`worldMismatch`).
 */
export async function withTheWorld(engine, request) {
  const out = structuredClone(request);
  const ruleset = currentRuleset();
  if (out.ruleset !== ruleset) return out; // refused by the check
  const action = out.action ?? DEFAULT_ACTION;
  const schema = await rulesetSchema(engine, ruleset);
  const variant = actionVariant(schema.request, action);
  if (!variant) return out;
  const world = worldPart(ruleset, action, variant, schema.request, out.house);
  if (world.takesSettings) {
    if (Object.keys(world.settings).length) out.settings = structuredClone(world.settings);
    else delete out.settings;
  }
  if (world.rules.length) out.house = world.house;
  const field = tableFeatures(ruleset).actionTables?.[action]?.field;
  if (field) {
    delete out[field];
    Object.assign(out, actionTables(ruleset, action));
  }
  return out;
}

/**
 * GM: does a request match the table? Resolves null, or {field, reason} (reason: a `said` text). `actorFor` finds a
 * participant's actor (apply.mjs), `since` is the message's timestamp.
 */
export async function worldMismatch(engine, request, { actorFor, since = 0 } = {}) {
  try {
    await check(engine, request ?? {}, actorFor, since);
    return null;
  } catch (err) {
    if (err instanceof Mismatch) return { field: err.field, reason: err.reason };
    throw err;
  }
}

async function check(engine, request, actorFor, since) {
  const ruleset = currentRuleset();
  if (request.ruleset !== ruleset) throw new Mismatch("ruleset", said("FIREFIGHT.ui.verify.ruleset", "not the world's ruleset"));
  const action = request.action ?? DEFAULT_ACTION;
  // Every participant names its token or actor, so that each is checked below (reliability audit
  // hole 2: an attacker without ids skipped the checks of its owner and its data).
  const schema = await rulesetSchema(engine, ruleset);
  const variant = actionVariant(schema.request, action);
  if (!variant) throw new Mismatch("action", said("FIREFIGHT.ui.verify.action", "no such action"));
  const nameless = unaddressed(request, participantFields(variant, schema.request));
  if (nameless) throw new Mismatch(nameless, said("FIREFIGHT.ui.verify.noAddress", "not a token or an actor on the table (it names neither)"));
  const actors = new Map();
  for (const { path, p } of participantsOf(request)) {
    const actor = actorFor({ actorId: p.actor_id, tokenId: p.token_id });
    if (!actor) throw new Mismatch(path, said("FIREFIGHT.ui.verify.noToken", "no such token on the table"));
    if (p.actor_id && actor.id !== p.actor_id) throw new Mismatch(`${path}.actor_id`, said("FIREFIGHT.ui.verify.actor", "not the token's actor"));
    checkParticipantData(path, p, actor, ruleset, since);
    if (p.armor !== undefined && !same(p.armor, equippedArmor(actor, ruleset).map((i) => itemEntry(i, ruleset)))) {
      throw new Mismatch(`${path}.armor`, said("FIREFIGHT.ui.verify.armor", "not the armor {name} wears", { name: actor.name }));
    }
    actors.set(path, actor);
  }
  // The weapon: one of the acting actor's own items, with its data as it is.
  if (request.weapon) {
    const acting = actingParticipant(request);
    const owner = acting ? actorFor({ actorId: acting.actor_id, tokenId: acting.token_id }) : null;
    const item = itemsOf(owner).find((i) => i.id === request.weapon.item_id);
    if (!item) throw new Mismatch("weapon.item_id", said("FIREFIGHT.ui.verify.weapon", "not an item of the shooter"));
    const d = firstDifference(itemEntry(item, ruleset), request.weapon, "weapon");
    if (d) throw new Mismatch(d, said("FIREFIGHT.ui.verify.item", "not the data of {name}", { name: item.name }));
  }
  // The world's settings, as every request of an action that takes them carries them.
  const world = worldPart(ruleset, action, variant, schema.request, request.house);
  const { settings, house } = world;
  if (world.takesSettings ? !same(request.settings ?? {}, settings) : request.settings !== undefined) {
    throw new Mismatch(firstDifference(world.takesSettings ? settings : undefined, request.settings, "settings"),
      said("FIREFIGHT.ui.verify.settings", "not the world's settings"));
  }
  // The house rules: the world's for this ruleset and action, each with the world's settings; a
  // player chose only their dialog options (the engine checks the values against their schema).
  const unknown = unknownHouseOption(chosenHouseOptions(request.house), world.rules);
  if (unknown) throw new Mismatch(unknown, said("FIREFIGHT.ui.verify.house", "not a house rule of this world"));
  const hd = firstDifference(house, request.house ?? {}, "house");
  if (hd) throw new Mismatch(hd, said("FIREFIGHT.ui.verify.houseSettings", "not the world's house rules"));
  if (action !== DEFAULT_ACTION) return;
  // A shot: rebuilt with the builder the shooter's client used, from the tokens, the item, the
  // range measured here and the world's settings; the player's choices are its options.
  const aDoc = actorFor.tokenOf?.(request.attacker?.token_id);
  const bDoc = actorFor.tokenOf?.(request.target?.token_id);
  if (!aDoc || !bDoc) throw new Mismatch(aDoc ? "target.token_id" : "attacker.token_id", said("FIREFIGHT.ui.verify.noToken", "no such token on the table"));
  const a = aDoc.object ?? aDoc;
  const b = bDoc.object ?? bDoc;
  // The range is measured when the GM's client shows the scene (a token's placeable has a centre).
  let range = request.range;
  if (a.center && b.center && canvas?.scene?.id === aDoc.parent?.id) range = measureRange(a, b);
  const weaponItem = itemsOf(actors.get("attacker")).find((i) => i.id === request.weapon?.item_id);
  const rebuilt = buildRequest({ ruleset, attackerToken: a, targetToken: b, weaponItem, range, options: request.options ?? {}, settings, house,
    tables: actionTables(ruleset, action) });
  // The data of each side as the request has it, once known to be a state the actor had.
  rebuilt.attacker.stats = request.attacker.stats;
  rebuilt.target.stats = request.target.stats;
  const d = firstDifference(rebuilt, request);
  if (d) {
    const reason = d.startsWith("range") ? said("FIREFIGHT.ui.verify.range", "not the range between the tokens (did they move?)")
      : said("FIREFIGHT.ui.verify.shot", "not what the table gives");
    throw new Mismatch(d, reason);
  }
}
