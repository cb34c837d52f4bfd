// Localization: the module's languages from its manifest, nested or dotted keys.
import { getProperty } from "./utils.mjs";

export class Localization {
  constructor(lang = "en") {
    this.lang = lang;
    this.translations = {};
  }
  async loadModuleLanguages(manifest, base) {
    for (const l of manifest.languages ?? []) {
      if (l.lang !== this.lang) continue;
      try {
        const res = await fetch(new URL(l.path, base));
        if (res.ok) Object.assign(this.translations, await res.json());
        else console.warn(`Sandbox: ${l.path} not found (${res.status})`);
      } catch (err) {
        console.warn(`Sandbox: could not load ${l.path}`, err);
      }
    }
  }
  _lookup(key) {
    const v = key in this.translations ? this.translations[key] : getProperty(this.translations, key);
    return typeof v === "string" ? v : undefined;
  }
  has(key) {
    return this._lookup(key) !== undefined;
  }
  localize(key) {
    return this._lookup(key) ?? key;
  }
  format(key, data = {}) {
    const s = this._lookup(key) ?? key;
    return s.replace(/\{(\w+)\}/g, (m, k) => (k in data ? String(data[k]) : m));
  }
}
