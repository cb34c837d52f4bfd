// World and client settings: Firefight's own, and the world settings every ruleset and house rule
// declares in its `settings` JSON schema (from the engine's catalog, js-shim/world/catalog.mjs, which
// registers them at init from the cached catalog and again when the engine reports). A ruleset's
// setting is registered as "<ruleset>.<field>" and sent to the engine as `request.settings`; a
// house rule's as "house.<rule id>.<field>", sent as `request.house.<rule id>.settings`.
//
// Grouped per ruleset, the Foundry way: Firefight's section lists its own settings and the world's
// ruleset; each ruleset's settings and its house rules' are `config: false` and edited in a
// settings submenu of their own (game.settings.registerMenu with an ApplicationV2 form: SettingSubmenuConfig,
// foundryvtt.com/api/interfaces/foundry.types.SettingSubmenuConfig.html; as dnd5e 5.x registers
// "variantRulesConfiguration" etc. with BaseSettingsConfig, a tag "form" ApplicationV2 that lists
// registered settings and sets them on submit: foundryvtt/dnd5e module/settings.mjs,
// module/applications/settings/base-settings.mjs).
import { MODULE_ID } from "../core/config.mjs";
import { escapeHTML, fieldsFromSchema, resolveRef } from "../core/form.mjs";
import { t } from "../core/i18n.mjs";

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
  // with this on, a player's shot is rolled and posted by the active GM's client (workflow/roll.mjs, relay/gm.mjs).
  reg("gmRollsShots", {
    name: "FIREFIGHT.ui.settings.gmRollsShots.name", hint: "FIREFIGHT.ui.settings.gmRollsShots.hint",
    scope: "world", config: true, type: Boolean, default: false,
  });
  // Rounds fired come off a weapon's magazine (flags.firefight.ammo; ammo.mjs).
  reg("ammunition", {
    name: "FIREFIGHT.ui.settings.ammunition.name", hint: "FIREFIGHT.ui.settings.ammunition.hint",
    scope: "world", config: true, type: Boolean, default: true,
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
 * sent). Each is `config: false`: shown in its ruleset's submenu (rulesetMenus), not in the
 * settings list. `hint`: the field's own lang key (`x-hint-key`), or none.
 */
export function settingsFromSchema(prefix, schema, localize = (k) => k) {
  if (!schema) return [];
  // Foundry localizes a setting's name, hint and choices when it shows them: pass lang keys
  // (registration may run before the translations are loaded), the schema's title otherwise.
  return fieldsFromSchema(schema, localize).map((field) => {
    const node = resolveRef(schema.properties?.[field.name] ?? {}, schema);
    const data = { name: field.labelKey ?? field.label, hint: node["x-hint-key"] ?? "", scope: "world", config: false };
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
 * registered SettingConfig, as js-shim/world/catalog.mjs does with the ruleset choice), so a newer
 * catalog's labels and choices show without a reload.
 */
export function registerSettingEntries(prefix, entries) {
  for (const { key, data } of entries) {
    const config = game.settings.settings.get(`${MODULE_ID}.${key}`);
    if (!config) {
      game.settings.register(MODULE_ID, key, data);
      continue;
    }
    for (const k of ["name", "hint", "default", "config"]) config[k] = data[k];
    if (data.choices) config.choices = data.choices;
  }
  registered.set(prefix, entries.map(({ key, field }) => ({ key, field })));
}

// --- one settings submenu per ruleset ------------------------------------------------------------

/** Pure: the menu key of a ruleset's submenu. */
export const menuKey = (ruleset) => `rules.${ruleset}`;

/** Pure: a form value -> the value to store for a setting of `type` (null: leave it as it is). */
export function storedValue(type, raw) {
  if (type === Boolean) return Boolean(raw);
  if (type === Number) {
    if (raw === null || raw === undefined || raw === "") return 0; // unset (a nullable number's 0)
    const n = Number(raw);
    return Number.isFinite(n) ? n : null;
  }
  return raw === null || raw === undefined ? null : String(raw);
}

function settingInput(config, value, disabled) {
  const id = `firefight-setting-${config.key.replace(/\./g, "-")}`;
  const name = escapeHTML(config.key);
  const off = disabled ? " disabled" : "";
  if (config.choices) {
    const options = Object.entries(config.choices).map(([k, label]) =>
      `<option value="${escapeHTML(k)}"${k === String(value) ? " selected" : ""}>${escapeHTML(game.i18n.localize(label))}</option>`).join("");
    return { id, html: `<select id="${id}" name="${name}"${off}>${options}</select>` };
  }
  if (config.type === Boolean) return { id, html: `<input type="checkbox" id="${id}" name="${name}"${value ? " checked" : ""}${off}>` };
  return { id, html: `<input type="number" id="${id}" name="${name}" value="${escapeHTML(value ?? "")}" step="any"${off}>` };
}

/**
 * The ApplicationV2 form class of one ruleset's submenu: its settings and its house rules', each
 * group under its name, every field with its own hint; Save sets the changed ones (a GM's world
 * settings: a player sees them disabled). Made when the menu is registered (at init and when the
 * engine reports), when foundry.applications.api is there.
 */
export function rulesetSettingsForm(menu) {
  const { ApplicationV2 } = foundry.applications.api;
  return class FirefightRulesetSettings extends ApplicationV2 {
    static DEFAULT_OPTIONS = {
      id: `firefight-rules-${menu.ruleset}`,
      tag: "form",
      classes: ["firefight-settings", "standard-form"],
      window: { icon: "fa-solid fa-sliders" },
      position: { width: 560 },
      form: { closeOnSubmit: true, handler: FirefightRulesetSettings.#onSubmit },
    };

    /** Localized when shown (the menu may be registered before the translations load). */
    get title() {
      return t("FIREFIGHT.ui.settings.menu.title", "Settings: {ruleset}", { ruleset: game.i18n.localize(menu.labelKey) });
    }

    async _prepareContext() {
      return { groups: menu.groups.map((g) => ({ ...g, settings: (registered.get(g.prefix) ?? [])
        .map(({ key }) => game.settings.settings.get(`${MODULE_ID}.${key}`)).filter(Boolean) })).filter((g) => g.settings.length) };
    }

    async _renderHTML(context) {
      const disabled = !game.user?.isGM;
      const root = document.createElement("div");
      root.className = "firefight-settings-groups";
      root.innerHTML = context.groups.map((g) => `<fieldset data-group="${escapeHTML(g.prefix)}"><legend>${escapeHTML(game.i18n.localize(g.labelKey))}</legend>${
        g.settings.map((config) => {
          const { id, html } = settingInput(config, game.settings.get(MODULE_ID, config.key), disabled);
          const hint = config.hint ? `<p class="hint">${escapeHTML(game.i18n.localize(config.hint))}</p>` : "";
          return `<div class="form-group" data-setting="${escapeHTML(config.id)}"><label for="${id}">${escapeHTML(game.i18n.localize(config.name))}</label><div class="form-fields">${html}</div>${hint}</div>`;
        }).join("")}</fieldset>`).join("")
        + `<footer class="form-footer"><button type="submit" class="default" data-action="save"${disabled ? " disabled" : ""}>${escapeHTML(t("FIREFIGHT.ui.settings.menu.save", "Save Changes"))}</button></footer>`;
      return root;
    }

    /** ApplicationV2's other abstract method: put the rendered groups into the window's content. */
    _replaceHTML(result, content) {
      content.replaceChildren(result);
    }

    static async #onSubmit(event, form, formData) {
      for (const [key, raw] of Object.entries(formData.object)) {
        const config = game.settings.settings.get(`${MODULE_ID}.${key}`);
        if (!config || config.namespace !== MODULE_ID) continue;
        const value = storedValue(config.type, raw);
        if (value === null || value === game.settings.get(MODULE_ID, key)) continue;
        await game.settings.set(MODULE_ID, key, value);
      }
    }
  };
}

/**
 * Register (or update) a ruleset's submenu: {ruleset, labelKey, groups: [{prefix, labelKey}]}
 * from catalog.mjs `catalogMenus`. Only the GM edits world settings (restricted).
 */
export function registerRulesetMenu(menu) {
  game.settings.registerMenu(MODULE_ID, menuKey(menu.ruleset), {
    name: menu.labelKey,
    label: "FIREFIGHT.ui.settings.menu.label",
    hint: "FIREFIGHT.ui.settings.menu.hint",
    icon: "fa-solid fa-sliders",
    type: rulesetSettingsForm(menu),
    restricted: true,
  });
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
