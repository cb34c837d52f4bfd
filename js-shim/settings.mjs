// World and client settings: Firefight's own, and every ruleset's world settings generated from
// its `settings` JSON schema (shipped as runtime/schemas.json, written by tools/dump_schemas.py,
// so they can be registered before the engine has booted). A ruleset setting is registered as
// "<ruleset>.<field>" and sent to the engine as `request.settings`.
import { MODULE_ID, DEFAULT_RULESET, RULESET_CHOICES } from "./config.mjs";
import { fieldsFromSchema } from "./form.mjs";

export const SCHEMAS_URL = new URL("../runtime/schemas.json", import.meta.url);

/** Firefight's own settings (registered at init). */
export function registerCoreSettings() {
  const reg = (key, data) => game.settings.register(MODULE_ID, key, data);
  reg("ruleset", {
    name: "FIREFIGHT.ui.settings.ruleset.name", hint: "FIREFIGHT.ui.settings.ruleset.hint",
    scope: "world", config: true, type: String, choices: RULESET_CHOICES, default: DEFAULT_RULESET,
  });
  reg("autoApply", {
    name: "FIREFIGHT.ui.settings.autoApply.name", hint: "FIREFIGHT.ui.settings.autoApply.hint",
    scope: "world", config: true, type: Boolean, default: false,
  });
  reg("unitMetres", {
    name: "FIREFIGHT.ui.settings.unitMetres.name", hint: "FIREFIGHT.ui.settings.unitMetres.hint",
    scope: "world", config: true, type: Number, default: 0,
  });
  // Dice rolled on a player's client can be chosen by that player (Foundry rolls client-side);
  // with this on, a player's shot is rolled and posted by the active GM's client (shoot.mjs).
  reg("gmRollsShots", {
    name: "FIREFIGHT.ui.settings.gmRollsShots.name", hint: "FIREFIGHT.ui.settings.gmRollsShots.hint",
    scope: "world", config: true, type: Boolean, default: false,
  });
  reg("debug", {
    name: "FIREFIGHT.ui.settings.debug.name", hint: "FIREFIGHT.ui.settings.debug.hint",
    scope: "client", config: true, type: Boolean, default: false,
  });
}

/**
 * Pure: one ruleset's settings schema -> [{key, field, data}] for game.settings.register.
 * enum -> String with choices, boolean -> Boolean, number -> Number (a nullable number is 0 when
 * unset, and 0 is then not sent).
 */
export function settingsFromSchema(ruleset, schema, localize = (k) => k) {
  if (!schema) return [];
  // Foundry localizes a setting's name, hint and choices when it shows them: pass lang keys
  // (registration may run before the translations are loaded), the schema's title otherwise.
  return fieldsFromSchema(schema, localize).map((field) => {
    // The hint names the ruleset, as every ruleset's settings share Firefight's section.
    const data = { name: field.labelKey ?? field.label, hint: field.hint || `FIREFIGHT.${ruleset}.name`, scope: "world", config: true };
    if (field.kind === "select") {
      data.type = String;
      data.choices = Object.fromEntries(field.choices.map((c) => [c.value, c.labelKey ?? c.label]));
      data.default = field.default ?? field.choices[0]?.value;
    } else if (field.kind === "checkbox") {
      data.type = Boolean;
      data.default = Boolean(field.default);
    } else {
      data.type = Number;
      data.default = field.default ?? 0;
    }
    return { key: `${ruleset}.${field.name}`, field, data };
  });
}

/** Pure: a setting's stored value -> the value sent to the engine (undefined: leave it out). */
export function requestValue(field, value) {
  if (field.kind !== "number") return value;
  if (value === null || value === undefined || value === "") return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) return undefined;
  if (field.nullable && n === 0) return undefined;
  return field.step === 1 ? Math.trunc(n) : n;
}

const registered = new Map(); // ruleset -> [{key, field}]
let schemas = null;

/** Fetch runtime/schemas.json (or ask the engine) and register every ruleset's settings. */
export async function registerRulesetSettings(engine, { fetchImpl = globalThis.fetch } = {}) {
  if (schemas) return schemas;
  let loaded = null;
  try {
    const res = await fetchImpl(SCHEMAS_URL, { cache: "no-cache" });
    if (res.ok) loaded = (await res.json()).rulesets;
  } catch { /* fall back to the engine */ }
  if (!loaded && engine) {
    loaded = {};
    for (const id of Object.keys(RULESET_CHOICES)) {
      try {
        loaded[id] = await engine.call("schema", { ruleset: id });
      } catch { /* a ruleset the engine does not know */ }
    }
  }
  schemas = loaded ?? {};
  const localize = (k) => game.i18n.localize(k);
  for (const [ruleset, entry] of Object.entries(schemas)) {
    const list = [];
    for (const { key, field, data } of settingsFromSchema(ruleset, entry.settings, localize)) {
      if (!game.settings.settings.has(`${MODULE_ID}.${key}`)) game.settings.register(MODULE_ID, key, data);
      list.push({ key, field });
    }
    registered.set(ruleset, list);
  }
  return schemas;
}

/** The stats schema of a ruleset, if known. */
export function statsSchema(ruleset) {
  return schemas?.[ruleset]?.stats ?? null;
}

/** The world's settings for a ruleset, as `request.settings`. */
export function rulesetSettings(ruleset) {
  const out = {};
  for (const { key, field } of registered.get(ruleset) ?? []) {
    let value;
    try {
      value = game.settings.get(MODULE_ID, key);
    } catch {
      continue;
    }
    const v = requestValue(field, value);
    if (v !== undefined) out[field.name] = v;
  }
  return out;
}

/** Whether the active GM's client rolls players' shots (the world setting "gmRollsShots"). */
export function gmRollsShots() {
  try {
    return Boolean(game.settings.get(MODULE_ID, "gmRollsShots"));
  } catch {
    return false;
  }
}

/** Metres per scene unit, or 0 to go by the scene's unit name. */
export function unitMetres() {
  try {
    return Number(game.settings.get(MODULE_ID, "unitMetres")) || 0;
  } catch {
    return 0;
  }
}
