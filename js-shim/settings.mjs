// World and client settings: Firefight's own, and the world settings every ruleset and house rule
// declares in its `settings` JSON schema (from the engine's catalog, js-shim/catalog.mjs, which
// registers them at init from the cached catalog and again when the engine reports). A ruleset's
// setting is registered as "<ruleset>.<field>" and sent to the engine as `request.settings`; a
// house rule's as "house.<rule id>.<field>", sent as `request.house.<rule id>.settings`.
import { MODULE_ID } from "./config.mjs";
import { fieldsFromSchema } from "./form.mjs";

/** Firefight's own settings (registered at init; the ruleset choice is catalog.mjs's). */
export function registerCoreSettings() {
  const reg = (key, data) => game.settings.register(MODULE_ID, key, data);
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
 * Pure: a settings schema -> [{key, field, data}] for game.settings.register, keys
 * "<prefix>.<field>" (prefix: a ruleset id, or "house.<rule id>"). enum -> String with choices,
 * boolean -> Boolean, number -> Number (a nullable number is 0 when unset, and 0 is then not
 * sent). `hint`: the lang key shown under each (the ruleset's or house rule's name, as every
 * one of them shares Firefight's section); default "FIREFIGHT.<prefix>.name".
 */
export function settingsFromSchema(prefix, schema, localize = (k) => k, { hint = `FIREFIGHT.${prefix}.name` } = {}) {
  if (!schema) return [];
  // Foundry localizes a setting's name, hint and choices when it shows them: pass lang keys
  // (registration may run before the translations are loaded), the schema's title otherwise.
  return fieldsFromSchema(schema, localize).map((field) => {
    const data = { name: field.labelKey ?? field.label, hint: field.hint || hint, scope: "world", config: true };
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
    return { key: `${prefix}.${field.name}`, field, data };
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

const registered = new Map(); // prefix ("<ruleset>" or "house.<id>") -> [{key, field}]

/**
 * Register settings (from settingsFromSchema) under their prefix. A setting registered already
 * (from the cached catalog at init) is updated in place (name, hint, choices, default: the
 * registered SettingConfig, as js-shim/catalog.mjs does with the ruleset choice), so a newer
 * catalog's labels and choices show without a reload.
 */
export function registerSettingEntries(prefix, entries) {
  for (const { key, data } of entries) {
    const config = game.settings.settings.get(`${MODULE_ID}.${key}`);
    if (!config) {
      game.settings.register(MODULE_ID, key, data);
      continue;
    }
    for (const k of ["name", "hint", "default"]) config[k] = data[k];
    if (data.choices) config.choices = data.choices;
  }
  registered.set(prefix, entries.map(({ key, field }) => ({ key, field })));
}

/** The world's values of the settings registered under `prefix`, as the engine takes them. */
export function settingValues(prefix) {
  const out = {};
  for (const { key, field } of registered.get(prefix) ?? []) {
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

/** The world's settings for a ruleset, as `request.settings`. */
export function rulesetSettings(ruleset) {
  return settingValues(ruleset);
}

/** The world's settings of a house rule, as `request.house.<id>.settings`. */
export function houseSettings(ruleId) {
  return settingValues(`house.${ruleId}`);
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
