// The plan of an action's request, read from the engine's request JSON schema (bridge op
// `schema`): which fields take the acting token, the targeted token(s), a weapon, the range, and
// which are the dialog's. Pure, but for `rulesetSchema` (the engine's schema, asked once).
import { resolveRef } from "../core/form.mjs";
import { SELF_FIELDS } from "./request.mjs";

/** Fields that take the acting (controlled) token, in order of preference (request.mjs). */
export { SELF_FIELDS };
const SKIP = new Set(["ruleset", "action", "settings", "options"]);

/** The request variant (resolved JSON schema node) for an action, or null. */
export function actionVariant(requestSchema, action) {
  const root = requestSchema ?? {};
  const variants = root.oneOf ?? root.anyOf;
  const matches = (node) => {
    const a = node?.properties?.action;
    return a?.const === action || (a?.const === undefined && (a?.default ?? "attack") === action);
  };
  if (!Array.isArray(variants)) return matches(root) ? root : null;
  const mapped = root.discriminator?.mapping?.[action];
  if (mapped) return resolveRef({ $ref: mapped }, root);
  for (const v of variants) {
    const node = resolveRef(v, root);
    if (matches(node)) return node;
  }
  return null;
}

function isParticipant(node) {
  const p = node?.properties ?? {};
  return "actor_id" in p || "token_id" in p;
}

/**
 * How to build a request for a variant:
 * {self, patientFromTarget, target, list, weapon, range, options, settings, scalar: {properties, required}}
 * `roles` (the ruleset's `features.roles[action]`: {actor, target}, field names): the acting
 * token fills `actor`'s field, the targeted token `target`'s; without, fields go by name.
 */
export function planRequest(variant, root, roles = null) {
  const props = variant?.properties ?? {};
  const required = new Set(variant?.required ?? []);
  const plan = { self: null, selfRequired: false, patient: null, target: null, targetRequired: false, list: null,
    weapon: null, range: null, options: "options" in props, settings: "settings" in props,
    scalar: { properties: {}, required: [], $defs: root?.$defs } };
  const selfFields = SELF_FIELDS.filter((f) => f in props && isParticipant(resolveRef(props[f], root)));
  // The medic acts on the patient: then the patient is the targeted token.
  const declared = roleFields(roles, props, root);
  const primary = declared ? declared.actor : selfFields.find((f) => f !== "patient") ?? selfFields[0] ?? null;
  plan.self = primary;
  plan.selfRequired = required.has(primary);
  if (declared) {
    plan.target = declared.target;
    plan.targetRequired = required.has(declared.target);
    // Only a targeted role: the targeted token, else the selected one (e.g. a patient alone).
    plan.targetOrSelf = Boolean(declared.target && !declared.actor);
  } else if (primary && primary !== "patient" && selfFields.includes("patient")) plan.patient = "patient";
  for (const [name, raw] of Object.entries(props)) {
    if (SKIP.has(name) || name === primary || name === plan.patient || (declared && name === declared.target)) continue;
    const node = resolveRef(raw, root);
    if (name === "target" && isParticipant(node)) {
      plan.target = name;
      plan.targetRequired = required.has(name);
    } else if (node.type === "array" && isParticipant(resolveRef(node.items ?? {}, root))) {
      const item = resolveRef(node.items, root);
      const ip = item.properties ?? {};
      plan.list = { name, required: required.has(name), min: node.minItems ?? 0, item,
        distance: "distance_m" in ip, place: ip.place ? resolveRef(ip.place, root) : null };
    } else if (name === "weapon") {
      plan.weapon = { required: required.has(name), nullable: Boolean(node.nullable) };
    } else if (name === "range") {
      plan.range = { required: required.has(name) };
    } else if (["integer", "number", "boolean"].includes(node.type) || Array.isArray(node.enum)) {
      plan.scalar.properties[name] = raw;
      if (required.has(name)) plan.scalar.required.push(name);
    }
  }
  return plan;
}

/** Pure: a declared role pair -> {actor, target} of participant fields the variant has, or null. */
export function roleFields(roles, props, root) {
  if (!roles || typeof roles !== "object") return null;
  const ok = (f) => (typeof f === "string" && f in props && isParticipant(resolveRef(props[f], root)) ? f : null);
  const out = { actor: ok(roles.actor), target: ok(roles.target) };
  return out.actor || out.target ? out : null;
}

/**
 * Pure: the ruleset's referee actions (`features.refereeActions`: {action: spec}, a list of
 * names read as specs {}) -> {action: {list?, from?}}: offered to GMs only.
 */
export function refereeActionsIn(features) {
  const raw = features?.refereeActions;
  if (Array.isArray(raw)) return Object.fromEntries(raw.filter((a) => typeof a === "string").map((a) => [a, {}]));
  return raw && typeof raw === "object" ? raw : {};
}

/** Pure: the actions the menu offers a user: the referee's only to a GM. */
export function offeredActions(actions, features, isGM) {
  const referee = refereeActionsIn(features);
  return actions.filter((a) => isGM || !(a in referee));
}

/** Keep only the keys a participant's schema knows; fill the rest from the actor's stats. */
export function shapeParticipant(entry, itemSchema, stats = {}) {
  const props = itemSchema?.properties;
  if (!props) return entry;
  const out = {};
  for (const [key, node] of Object.entries(props)) {
    // A list where the schema wants a value (a vehicle's armor rating, not worn armor) is not it.
    const types = node?.type ? [node.type] : (node?.anyOf ?? []).map((n) => n.type).filter(Boolean);
    const fits = key in entry && !(Array.isArray(entry[key]) && types.length && !types.includes("array"));
    if (fits) out[key] = entry[key];
    else if (stats && key in stats) out[key] = stats[key];
  }
  return out;
}

/**
 * The label an action's ruleset gives it: FIREFIGHT.ui.actions.<ruleset>.<action> (the
 * built-ins'), else FIREFIGHT.<ruleset>.action.<action> (a plugin's own lang files); null when
 * neither is there.
 */
export function ownActionLabel(ruleset, action, localize = (k) => k) {
  for (const key of [`FIREFIGHT.ui.actions.${ruleset}.${action}`, `FIREFIGHT.${ruleset}.action.${action}`]) {
    const text = localize(key);
    if (text && text !== key) return text;
  }
  return null;
}

/** The label of an action: its own (`ownActionLabel`), else the name humanised. */
export function actionLabel(ruleset, action, localize = (k) => k) {
  const own = ownActionLabel(ruleset, action, localize);
  if (own) return own;
  const s = String(action).replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const schemaCache = new Map();

/** The engine's `schema` of a ruleset ({request, options, actions, ...}), asked once per ruleset. */
export async function rulesetSchema(engine, ruleset) {
  if (!schemaCache.has(ruleset)) {
    const p = engine.call("schema", { ruleset });
    schemaCache.set(ruleset, p);
    p.catch(() => schemaCache.delete(ruleset));
  }
  return schemaCache.get(ruleset);
}
