// ClientSettings subset: register / get / set, kept in localStorage per sandbox.
import { Hooks } from "./hooks.mjs";

const STORE = "firefight-sandbox.settings";

export class ClientSettings {
  constructor() {
    this.settings = new Map();
    try {
      this._values = JSON.parse(localStorage.getItem(STORE) ?? "{}");
    } catch {
      this._values = {};
    }
  }
  register(namespace, key, data) {
    if (!namespace || !key) throw new Error("You must specify both namespace and key portions of the setting");
    this.settings.set(`${namespace}.${key}`, { ...data, namespace, key, id: `${namespace}.${key}` });
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
    if (config.choices && !(value in config.choices)) throw new Error(`Invalid choice ${value} for ${id}`);
    this._values[id] = value;
    localStorage.setItem(STORE, JSON.stringify(this._values));
    config.onChange?.(value);
    Hooks.callAll("updateSetting", { key: id, value });
    return value;
  }
}
