// ClientSettings subset: register / get / set. Values are kept in localStorage (shared by the
// table's pages); a world setting may be set by a GM only and reaches every open page at once.
//
// `settings` is the Map of registered SettingConfigs (ClientSettings#settings: "Map<string,
// SettingConfig>", foundryvtt.com/api/classes/foundry.helpers.ClientSettings.html). A setting may
// be registered at any time, not only at `init` (dnd5e 5.3.3 registers its "deferred settings" at
// `setup`, "after modules have had a chance to initialize to give them a chance to modify choices":
// foundryvtt/dnd5e module/settings.mjs `registerDeferredSettings`). `set` checks a value against
// the config's `choices` as they are then (SettingConfig `choices`: "For string Types, defines the
// allowable values"; v13 refuses another value: "NaN is not a valid choice" from
// ClientSettings.set, MetaMorphic-Digital/draw-steel#1335), so choices a module replaced in place
// after registration count, as dnd5e's settings forms read `setting.choices` at render
// (module/applications/settings/base-settings.mjs). Whether Foundry's own check sees choices
// replaced in place is not public (sandbox/README.md, "What it does not imitate").
import { Hooks } from "./hooks.mjs";
import * as net from "./net.mjs";

const STORE = "firefight-sandbox.settings";

export class ClientSettings {
  constructor() {
    this.settings = new Map();
    // ClientSettings#menus: "Registered settings menus which trigger secondary applications"
    // (Map, foundryvtt.com/api/classes/foundry.helpers.ClientSettings.html).
    this.menus = new Map();
    try {
      this._values = JSON.parse(localStorage.getItem(STORE) ?? "{}");
    } catch {
      this._values = {};
    }
    net.on("setting", ({ id, value }) => this._store(id, value));
  }
  register(namespace, key, data) {
    if (!namespace || !key) throw new Error("You must specify both namespace and key portions of the setting");
    this.settings.set(`${namespace}.${key}`, { scope: "client", ...data, namespace, key, id: `${namespace}.${key}` });
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
    if (config.choices && !Object.hasOwn(config.choices, String(value))) {
      throw new Error(`The setting ${id}: ${value} is not a valid choice`);
    }
    if (config.type === Number) value = Number(value);
    if (config.type === Boolean) value = Boolean(value);
    this._store(id, value);
    if (config.scope === "world") net.send("setting", { id, value });
    return value;
  }
  _store(id, value) {
    this._values[id] = value;
    try {
      const all = JSON.parse(localStorage.getItem(STORE) ?? "{}");
      localStorage.setItem(STORE, JSON.stringify({ ...all, [id]: value }));
    } catch { /* private mode */ }
    this.settings.get(id)?.onChange?.(value);
    Hooks.callAll("updateSetting", { key: id, value });
  }
  /** All values, for a page that joins the table. */
  snapshot() {
    return structuredClone(this._values);
  }
}
