// ClientSettings subset: register / get / set. Values are kept in localStorage (shared by the
// table's pages); a world setting may be set by a GM only and reaches every open page at once.
//
// `settings` is the Map of registered SettingConfigs (ClientSettings#settings: "Map<string,
// SettingConfig>", foundryvtt.com/api/classes/foundry.helpers.ClientSettings.html). A setting may
// be registered at any time, not only at `init` (dnd5e 5.3.3 registers its "deferred settings" at
// `setup`, "after modules have had a chance to initialize to give them a chance to modify choices":
// foundryvtt/dnd5e module/settings.mjs `registerDeferredSettings`). `set` refuses a value that is
// not one of the setting's choices (SettingConfig `choices`: "For string Types, defines the
// allowable values"; v13 refuses another value: "NaN is not a valid choice" from ClientSettings.set,
// MetaMorphic-Digital/draw-steel#1335). Which choices: a `type` that is a DataField validates with
// the field, whose `choices` may be a function asked each time (StringField `choices`,
// foundryvtt.com/api/classes/foundry.data.fields.StringField.html); a plain `choices` object counts
// as it was when the setting was registered. Whether v13 would see choices a module changed in
// place afterwards is not public, so the sandbox does not (sandbox/README.md): it keeps its own
// copy, which Configure Settings lists and `set` checks.
import { Hooks } from "./hooks.mjs";
import * as net from "./net.mjs";
import { DataField, fieldChoices } from "./fields.mjs";

const STORE = "firefight-sandbox.settings";

export class ClientSettings {
  constructor() {
    this.settings = new Map();
    // ClientSettings#menus: "Registered settings menus which trigger secondary applications"
    // (Map, foundryvtt.com/api/classes/foundry.helpers.ClientSettings.html).
    this.menus = new Map();
    // The choices each setting was registered with (a copy: see the header).
    this._registeredChoices = new Map();
    try {
      this._values = JSON.parse(localStorage.getItem(STORE) ?? "{}");
    } catch {
      this._values = {};
    }
    net.on("setting", ({ id, value }) => this._store(id, value));
  }
  register(namespace, key, data) {
    if (!namespace || !key) throw new Error("You must specify both namespace and key portions of the setting");
    const id = `${namespace}.${key}`;
    const config = { scope: "client", ...data, namespace, key, id };
    if (data.type instanceof DataField && !("default" in data)) config.default = data.type.getInitialValue();
    this.settings.set(id, config);
    this._registeredChoices.set(id, data.choices ? Object.freeze({ ...data.choices }) : null);
  }
  /** The choices a setting offers now ({value: label}; null: none), as listed and checked. */
  _choicesOf(id) {
    const config = this.settings.get(id);
    if (config?.type instanceof DataField) return fieldChoices(config.type);
    return this._registeredChoices.get(id) ?? null;
  }
  /**
   * registerMenu(namespace, key, data): a button in Configure Settings that opens `data.type`
   * (SettingSubmenuConfig {name, label, hint, icon, type: "typeof Application | typeof
   * ApplicationV2", restricted: "If true, only a GM can edit this Setting"},
   * foundryvtt.com/api/interfaces/foundry.types.SettingSubmenuConfig.html). The settings the
   * menu edits are registered with config: false, so they are not listed themselves (SettingConfig
   * `config`: "Whether this setting is listed in the Settings Configuration UI").
   */
  registerMenu(namespace, key, data) {
    if (!namespace || !key) throw new Error("You must specify both namespace and key portions of the menu");
    this.menus.set(`${namespace}.${key}`, { ...data, namespace, key, id: `${namespace}.${key}` });
  }
  get(namespace, key) {
    const id = `${namespace}.${key}`;
    const config = this.settings.get(id);
    if (!config) throw new Error(`"${id}" is not a registered game setting`);
    return id in this._values ? this._values[id] : structuredClone(config.default);
  }
  async set(namespace, key, value) {
    const id = `${namespace}.${key}`;
    const config = this.settings.get(id);
    if (!config) throw new Error(`"${id}" is not a registered game setting`);
    if (config.scope === "world" && !game.user?.isGM) throw new Error(`User ${game.user?.name} lacks permission to change the world setting ${id}`);
    if (config.type instanceof DataField) {
      const error = config.type.validate(value);
      if (error) throw new Error(`The setting ${id}: ${error}`);
    }
    const choices = this._choicesOf(id);
    if (choices && !Object.hasOwn(choices, String(value))) {
      throw new Error(`The setting ${id}: ${value} is not a valid choice`);
    }
    if (config.type === Number) value = Number(value);
    if (config.type === Boolean) value = Boolean(value);
    this._store(id, value);
    if (config.scope === "world") net.send("setting", { id, value });
    return value;
  }
  _store(id, value) {
    // A world setting is kept as a Setting document: its first value creates the document
    // (hook createSetting), later values update it (updateSetting) (foundryvtt.com/api/classes/
    // foundry.documents.Setting.html; hookEvents.createDocument / updateDocument).
    const created = !(id in this._values);
    this._values[id] = value;
    try {
      const all = JSON.parse(localStorage.getItem(STORE) ?? "{}");
      localStorage.setItem(STORE, JSON.stringify({ ...all, [id]: value }));
    } catch { /* private mode */ }
    this.settings.get(id)?.onChange?.(value);
    Hooks.callAll(created ? "createSetting" : "updateSetting", { key: id, value });
  }
  /** All values, for a page that joins the table. */
  snapshot() {
    return structuredClone(this._values);
  }
}
