// The engine's catalog: which rulesets and house rules the engine has (its own and every plugin's),
// their settings and stats schemas, table features, units and plugin strings (bridge op `hello`,
// and `rescan` after a wheel is loaded at runtime; docs/architecture.md, "Settings before the
// engine boots").
//
// Foundry registers settings at `init`, long before Pyodide has booted. So the last catalog the
// GM's engine reported is kept in a hidden world setting (`catalog`: config false, type Object,
// written by the active GM only); at init the `ruleset` choice and every ruleset and house-rule
// setting are registered from it; when the engine has booted, the choices are updated in place on
// the registered SettingConfig (foundryvtt.com/api/interfaces/foundry.types.SettingConfig.html
// `choices`; as brunocalado/daggerheart-fear-tracker scripts/theme-api.js adds a theme to its
// registered setting's choices after init, and ericpetersensa/lazy-gm-prep src/settings.js fills
// choices registered as a placeholder at init), new settings are registered, and the GM writes
// the cache. A world whose ruleset was never chosen ("") plays the engine's `default_ruleset`.
import { MODULE_ID } from "../core/config.mjs";
import { stableStringify } from "../core/json.mjs";
import { isActiveGM } from "../relay/relay.mjs";
import { settingsFromSchema, registerSettingEntries, registerRulesetMenu } from "./settings.mjs";
import { t } from "../core/i18n.mjs";

export const CACHE_KEY = "catalog";
export const RULESET_KEY = "ruleset";
/** The wheels the GM loaded at runtime (api.engine.loadWheel), loaded again at every boot. */
export const WHEELS_KEY = "wheels";
/** The choice shown while no catalog is known (a fresh world before its engine has booted). */
export const PENDING_CHOICE = { "": "FIREFIGHT.ui.settings.ruleset.engineDefault" };

// --- pure ----------------------------------------------------------------------------------------

const isObject = (v) => Boolean(v) && typeof v === "object" && !Array.isArray(v);
const list = (v) => (Array.isArray(v) ? v : []);

/**
 * Pure: a `hello`/`rescan` value (or a cached one) -> the catalog with every part present: a
 * field the engine does not send yet is empty (`features` {}, `units` {}, `house_rules` []).
 */
export function normalizeCatalog(raw) {
  const src = isObject(raw) ? raw : {};
  const rulesets = list(src.rulesets).filter((r) => isObject(r) && typeof r.id === "string" && r.id)
    .map((r) => ({
      ...r,
      label_key: typeof r.label_key === "string" && r.label_key ? r.label_key : `FIREFIGHT.${r.id}.name`,
      actions: list(r.actions).filter((a) => typeof a === "string"),
      features: isObject(r.features) ? r.features : {},
      settings: isObject(r.settings) ? r.settings : null,
      stats: isObject(r.stats) ? r.stats : null,
      house_steps: isObject(r.house_steps) ? r.house_steps : {},
    }));
  const houseRules = list(src.house_rules).filter((h) => isObject(h) && typeof h.id === "string" && h.id)
    .map((h) => ({
      ...h,
      label_key: typeof h.label_key === "string" && h.label_key ? h.label_key : h.id,
      actions: list(h.actions ?? ["attack"]).filter((a) => typeof a === "string"),
      options: isObject(h.options) ? h.options : null,
      settings: isObject(h.settings) ? h.settings : null,
    }));
  const ids = rulesets.map((r) => r.id);
  return {
    version: src.version ?? null,
    default_ruleset: ids.includes(src.default_ruleset) ? src.default_ruleset : ids[0] ?? "",
    rulesets,
    house_rules: houseRules,
    plugins: list(src.plugins).filter(isObject),
    strings: isObject(src.strings) ? src.strings : {},
    units: isObject(src.units) ? src.units : {},
  };
}

/** Pure: what the world keeps of a catalog (no plugin status, no dialog schemas: asked live). */
export function cacheOf(catalog) {
  const out = { ...catalog, rulesets: catalog.rulesets.map((r) => ({ ...r })) };
  delete out.plugins;
  for (const r of out.rulesets) delete r.options;
  return out;
}

/** Pure: the `ruleset` setting's choices: id -> label key (a pending choice while none is known). */
export function rulesetChoices(catalog, current = "") {
  const out = Object.fromEntries((catalog?.rulesets ?? []).map((r) => [r.id, r.label_key]));
  if (!Object.keys(out).length) return { ...PENDING_CHOICE };
  // A world set to a ruleset the engine no longer has (its plugin removed) still shows it.
  if (current && !(current in out)) out[current] = t("FIREFIGHT.ui.settings.ruleset.missing", "{id} (not installed)", { id: current });
  return out;
}

/** Pure: every setting a catalog declares: [{prefix, entries}] for registerSettingEntries. */
export function catalogSettings(catalog, localize = (k) => k) {
  const out = [];
  for (const r of catalog.rulesets) out.push({ prefix: r.id, entries: settingsFromSchema(r.id, r.settings, localize) });
  for (const h of catalog.house_rules) {
    const prefix = `house.${h.id}`;
    out.push({ prefix, entries: settingsFromSchema(prefix, h.settings, localize) });
  }
  return out;
}

/**
 * Pure: one settings submenu per ruleset that has settings, its own or its house rules':
 * [{ruleset, labelKey, groups: [{prefix, labelKey}]}] (the ruleset's group first, then each house
 * rule's under the rule's name). For settings.mjs registerRulesetMenu.
 */
export function catalogMenus(catalog) {
  const has = (schema) => Object.keys(schema?.properties ?? {}).length > 0;
  const out = [];
  for (const r of catalog.rulesets) {
    const groups = has(r.settings) ? [{ prefix: r.id, labelKey: r.label_key }] : [];
    for (const h of catalog.house_rules) {
      if (h.ruleset === r.id && has(h.settings)) groups.push({ prefix: `house.${h.id}`, labelKey: h.label_key });
    }
    if (groups.length) out.push({ ruleset: r.id, labelKey: r.label_key, groups });
  }
  return out;
}

/** Pure: the house rules of a catalog for one ruleset and action. */
export function houseRulesFor(catalog, ruleset, action = "attack") {
  return (catalog?.house_rules ?? []).filter((h) => h.ruleset === ruleset && h.actions.includes(action));
}

/** Pure: the plugins a catalog reports broken: [{name, error}]. */
export function brokenPlugins(catalog) {
  return (catalog?.plugins ?? []).filter((p) => p.ok === false)
    .map((p) => ({ name: String(p.dist || p.name || "?"), error: String(p.error ?? "failed") }));
}

/**
 * Pure: the plugin wheels of the active modules (v13 `game.modules`: each with `id`, `active` and
 * the manifest's `flags`): `flags.firefight.wheels`, paths relative to the module's folder
 * (`modules/<id>/<path>`), resolved against `modulesBase` (the URL of the `modules/` folder, as
 * every URL of the shim derives from its own). -> {wheels: [{module, url}], problems: [{name, error}]}
 * A path that leaves the module's folder, an absolute URL or not a wheel is refused, named.
 */
export function pluginWheels(modules, modulesBase) {
  const wheels = [];
  const problems = [];
  for (const mod of modules ?? []) {
    const id = mod?.id;
    if (!mod?.active || id === MODULE_ID || !id) continue;
    const declared = mod.flags?.[MODULE_ID]?.wheels;
    if (declared === undefined) continue;
    if (!Array.isArray(declared)) {
      problems.push({ name: id, error: "flags.firefight.wheels must be a list of wheel paths" });
      continue;
    }
    const folder = new URL(`${encodeURIComponent(id)}/`, modulesBase);
    for (const path of declared) {
      const bad = typeof path !== "string" || !path.endsWith(".whl") ? "is not the path of a .whl file"
        : /^[a-z][a-z0-9+.-]*:|^\/|\\/i.test(path) ? "must be a path relative to the module's folder"
          : null;
      const url = bad ? null : new URL(path, folder);
      if (bad || !url.href.startsWith(folder.href)) {
        problems.push({ name: id, error: `flags.firefight.wheels: ${JSON.stringify(path)} ${bad ?? "leaves the module's folder"}` });
        continue;
      }
      wheels.push({ module: id, url: url.href });
    }
  }
  return { wheels, problems };
}

/**
 * Pure: a wheel loaded at runtime as the world keeps it: its path under the `modules/` folder
 * (`<module>/<path>.whl`, so a moved or prefixed site still finds it), or null when it is no file
 * a module serves (such a wheel is not remembered: every boot loads only what modules serve).
 */
export function keptWheel(url, modulesBase) {
  let href;
  try {
    href = new URL(String(url), modulesBase).href;
  } catch {
    return null;
  }
  const base = new URL(modulesBase).href;
  if (!href.startsWith(base) || !href.endsWith(".whl")) return null;
  const path = decodeURIComponent(href.slice(base.length));
  return path.includes("/") && !path.split("/").includes("..") ? path : null;
}

/** Pure: the kept wheels (the world setting's value) -> [{module, url}] to load at boot. */
export function rememberedWheels(kept, modulesBase) {
  const out = [];
  for (const path of Array.isArray(kept) ? kept : []) {
    if (typeof path !== "string" || keptWheel(path, modulesBase) !== path) continue;
    const [module, ...rest] = path.split("/");
    const url = new URL(`${encodeURIComponent(module)}/${rest.map(encodeURIComponent).join("/")}`, modulesBase).href;
    out.push({ module, url });
  }
  return out;
}

/**
 * Pure: why the world's ruleset cannot be played, or null: the ruleset the world chose and
 * the catalog (the engine's) lacks, said plainly with how to get it back.
 */
export function missingRulesetText(catalog, ruleset) {
  if (!ruleset || !catalog?.rulesets?.length || catalog.rulesets.some((r) => r.id === ruleset)) return null;
  return t("FIREFIGHT.ui.settings.ruleset.notInstalled",
    "The world's ruleset “{id}” is not installed: no active module provides it. Enable the module that ships it (Manage Modules) or load its wheel again (api.engine.loadWheel), or choose another ruleset in Configure Settings.",
    { id: ruleset });
}

// --- the table side ------------------------------------------------------------------------------

let current = normalizeCatalog(null);
let fromEngine = false;
let resolveReady;
/** Resolves once a catalog is known (the cached one at init, else the engine's). */
export const catalogReady = new Promise((resolve) => (resolveReady = resolve));
const reported = new Set();

/** Use a catalog from now on (nothing registered or written: applyCatalog does that). */
export function useCatalog(raw) {
  current = normalizeCatalog(raw);
  return current;
}

/** The catalog in use (the engine's once it reported, else the world's cached one). */
export function catalog() {
  return current;
}

/** Whether the catalog in use came from this page's engine (not the cache). */
export function catalogFromEngine() {
  return fromEngine;
}

/** The world's ruleset: the `ruleset` setting, or the engine's default while it is "". */
export function currentRuleset() {
  let value = "";
  try {
    value = game.settings.get(MODULE_ID, RULESET_KEY);
  } catch { /* not registered yet */ }
  return value || current.default_ruleset;
}

/** One ruleset's catalog entry, or null. */
export function rulesetInfo(ruleset) {
  return current.rulesets.find((r) => r.id === ruleset) ?? null;
}

/** The table features of a ruleset ({} when it has none). */
export function tableFeatures(ruleset) {
  return rulesetInfo(ruleset)?.features ?? {};
}

/** The stats schema of a ruleset (the actor data its sheet edits), if known. */
export function statsSchema(ruleset) {
  return rulesetInfo(ruleset)?.stats ?? null;
}

/** The actions of a ruleset, as the catalog lists them. */
export function rulesetActions(ruleset) {
  return rulesetInfo(ruleset)?.actions ?? [];
}

/** The house rules for a ruleset and action. */
export function houseRules(ruleset, action = "attack") {
  return houseRulesFor(current, ruleset, action);
}

/** Scene unit name -> metres (the engine's table), {} while unknown. */
export function unitTable() {
  return current.units;
}

function storedRuleset() {
  try {
    return game.settings.get(MODULE_ID, RULESET_KEY);
  } catch {
    return "";
  }
}

// The world's stored ruleset as last read or changed, for the choices function (which must not
// call game.settings.get itself: Foundry may validate a read against the same choices).
let knownRuleset = "";

/**
 * The `ruleset` setting's field: a StringField whose `choices` is a function, asked each time the
 * value is validated or the list is drawn, so the engine's rulesets (known only after init) count
 * without changing the registered config (StringField `choices`: "A function may be provided which
 * dynamically returns the array of choices", foundryvtt.com/api/classes/
 * foundry.data.fields.StringField.html; dnd5e 5.3.3 registers its "calendar" setting the same way,
 * module/settings.mjs). Whether v13 sees choices changed in place after registration is not public.
 */
function rulesetField() {
  return new foundry.data.fields.StringField({
    required: true, blank: true, initial: "", choices: () => rulesetChoices(current, knownRuleset),
  });
}

function registerAll() {
  const localize = (k) => game.i18n?.localize?.(k) ?? k;
  for (const { prefix, entries } of catalogSettings(current, localize)) registerSettingEntries(prefix, entries);
  for (const menu of catalogMenus(current)) registerRulesetMenu(menu);
}

/**
 * At init: the hidden cache, the `ruleset` choice and every setting of the cached catalog.
 * (Plugin strings from the cache are merged at `i18nInit`, when the translations are loaded.)
 * `onRulesetChange(value)`: called whenever the world's ruleset changes, by the setting's own
 * `onChange` ("A callback function which triggers when the setting is changed", SettingConfig),
 * which covers the first value (a new Setting document: createSetting) and later ones
 * (updateSetting) alike.
 */
export function registerCatalogSettings({ onRulesetChange } = {}) {
  game.settings.register(MODULE_ID, CACHE_KEY, { scope: "world", config: false, type: Object, default: {} });
  game.settings.register(MODULE_ID, WHEELS_KEY, { scope: "world", config: false, type: Array, default: [] });
  let cached = null;
  try {
    cached = game.settings.get(MODULE_ID, CACHE_KEY);
  } catch { /* unreadable: as a fresh world */ }
  useCatalog(cached);
  game.settings.register(MODULE_ID, RULESET_KEY, {
    name: "FIREFIGHT.ui.settings.ruleset.name", hint: "FIREFIGHT.ui.settings.ruleset.hint",
    scope: "world", config: true, type: rulesetField(), default: "",
    onChange: (value) => {
      knownRuleset = value ?? "";
      onRulesetChange?.(value);
    },
  });
  knownRuleset = storedRuleset();
  registerAll();
  if (current.rulesets.length) resolveReady(current);
}

/** At i18nInit: the cached plugin strings, under whatever the translations have. */
export function mergeCachedStrings() {
  mergeStrings(current.strings, false);
}

function mergeStrings(strings, overwrite) {
  const i18n = game.i18n;
  if (!i18n || !isObject(strings) || !Object.keys(strings).length) return;
  i18n.translations ??= {};
  foundry.utils.mergeObject(i18n.translations, strings, { inplace: true, overwrite, insertKeys: true, insertValues: true });
}

/**
 * Pure: what a wheel that failed to load is reported as: a file the server does not have (the
 * worker's `status`) by its module and its path there ("firefight-spotter: wheel
 * wheels/x.whl not found (HTTP 404)"), else the plugin and its error. -> {name, error, text?}
 */
export function wheelFailure({ url, error, status }, module, modulesBase) {
  const file = String(url).split("/").pop();
  if (!status || !module) return { name: module ? `${module} (${file})` : file, error };
  const folder = new URL(`${encodeURIComponent(module)}/`, modulesBase).href;
  const path = String(url).startsWith(folder) ? decodeURIComponent(String(url).slice(folder.length)) : String(url);
  const found = status === 404 || status === 410;
  const text = found
    ? t("FIREFIGHT.ui.plugins.wheelMissing", "{module}: wheel {path} not found (HTTP {status})", { module, path, status })
    : t("FIREFIGHT.ui.plugins.wheelUnfetched", "{module}: wheel {path} could not be fetched (HTTP {status})", { module, path, status });
  return { name: module, error, text };
}

/** Report a broken plugin once per page: the console, and the GM a notification naming it. */
export function reportPlugin({ name, error, text: said = null }) {
  const text = said ?? t("FIREFIGHT.ui.plugins.broken", "Firefight plugin {name} failed: {error}", { name, error });
  if (reported.has(text)) return;
  reported.add(text);
  console.error(`Firefight | ${text}`);
  if (game.user?.isGM) ui.notifications?.error(text);
}

/**
 * The engine's catalog (`hello` or `rescan`): used from now on (the ruleset choices follow), new
 * settings registered, plugin strings merged, broken plugins reported; the active GM keeps it in
 * the world's cache (and records the engine's default as the world's ruleset when none was
 * chosen, so the world keeps it); then Hooks "firefight.rulesetsChanged" (catalog).
 */
export async function applyCatalog(raw) {
  useCatalog(raw);
  fromEngine = true;
  mergeStrings(current.strings, true);
  registerAll();
  for (const problem of brokenPlugins(current)) reportPlugin(problem);
  resolveReady(current);
  if (isActiveGM()) {
    try {
      const cache = cacheOf(current);
      if (stableStringify(game.settings.get(MODULE_ID, CACHE_KEY)) !== stableStringify(cache)) {
        await game.settings.set(MODULE_ID, CACHE_KEY, cache);
      }
      if (!storedRuleset() && current.default_ruleset) await game.settings.set(MODULE_ID, RULESET_KEY, current.default_ruleset);
    } catch (err) {
      console.error("Firefight | could not keep the engine's catalog in the world:", err);
    }
  }
  reportMissingRuleset();
  Hooks.callAll("firefight.rulesetsChanged", current);
  return current;
}

/** The wheels the world keeps (WHEELS_KEY), [] while unreadable. */
export function keptWheels() {
  try {
    const value = game.settings.get(MODULE_ID, WHEELS_KEY);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/**
 * A wheel loaded at runtime kept in the world, so every boot on every client loads it again
 * (a GM's only: world settings are the GM's to write). -> whether it is kept.
 */
export async function keepWheel(url, modulesBase) {
  const path = keptWheel(url, modulesBase);
  if (!path || !game.user?.isGM) return false;
  const kept = keptWheels();
  if (!kept.includes(path)) await game.settings.set(MODULE_ID, WHEELS_KEY, [...kept, path]);
  return true;
}

/** Whether the world's ruleset is missing from the engine's catalog: said once per page. */
export function reportMissingRuleset() {
  const text = fromEngine ? missingRulesetText(current, storedRuleset()) : null;
  if (!text || reported.has(text)) return text;
  reported.add(text);
  console.warn(`Firefight | ${text}`);
  ui.notifications?.error(`Firefight: ${text}`);
  return text;
}

/** The language plugin strings are asked in: the client's, if Firefight ships it, else English. */
export function catalogLanguage() {
  const lang = game.i18n?.lang ?? "en";
  const shipped = (game.modules?.get?.(MODULE_ID)?.languages ?? []).map((l) => l.lang);
  return !shipped.length || shipped.includes(lang) ? lang : "en";
}
