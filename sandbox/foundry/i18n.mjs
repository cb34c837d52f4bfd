// Localization: the module's languages from its manifest, nested or dotted keys.
import { getProperty } from "./utils.mjs";

function mergeDeep(into, from) {
  for (const [k, v] of Object.entries(from)) {
    if (v && typeof v === "object" && into[k] && typeof into[k] === "object") mergeDeep(into[k], v);
    else into[k] = v;
  }
  return into;
}

// The few core strings the sandbox's own pages show, in the sandbox's own words: Foundry ships
// its core strings in English, and a language module (for German, the community's) adds the
// others (sandbox/README.md). English is the fallback, as for a module's.
const CORE = {
  en: { DOCUMENT: { Actor: "Actor", Actors: "Actors", Item: "Item", Items: "Items" } },
  de: { DOCUMENT: { Actor: "Akteur", Actors: "Akteure", Item: "Gegenstand", Items: "Gegenstände" } },
};

export class Localization {
  constructor(lang = "en") {
    this.lang = lang;
    this.translations = mergeDeep(structuredClone(CORE.en), structuredClone(CORE[lang] ?? {}));
  }
  async loadModuleLanguages(manifest, base) {
    // English first, as the fallback for a key another language lacks (as Foundry does).
    const langs = [...(manifest.languages ?? [])].filter((l) => l.lang === "en" || l.lang === this.lang)
      .sort((a, b) => (a.lang === "en" ? -1 : 1) - (b.lang === "en" ? -1 : 1));
    for (const l of langs) {
      try {
        const res = await fetch(new URL(l.path, base));
        if (res.ok) mergeDeep(this.translations, await res.json());
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
