// The engine's catalog at the table (js-shim/world/catalog.mjs, house.mjs) and plugin wheels
// (engine.mjs loadWheel): pure parts, and the settings as a fake Foundry registers them.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import {
  normalizeCatalog, cacheOf, rulesetChoices, catalogSettings, catalogMenus, houseRulesFor, brokenPlugins, pluginWheels,
  registerCatalogSettings, applyCatalog, currentRuleset, tableFeatures, statsSchema, houseRules, useCatalog,
  mergeCachedStrings, PENDING_CHOICE, keptWheel, rememberedWheels, missingRulesetText, keepWheel, keptWheels, wheelFailure,
} from "../../js-shim/world/catalog.mjs";
import { houseFields, houseOptions, houseRequest, chosenHouseOptions, unknownHouseOption, houseSectionHTML } from "../../js-shim/world/house.mjs";
import { rulesetSettings, houseSettings } from "../../js-shim/world/settings.mjs";
import { EngineClient } from "../../js-shim/engine/engine.mjs";
import { mergeObject } from "../../sandbox/foundry/utils.mjs";
import { StringField, fieldChoices } from "../../sandbox/foundry/fields.mjs";

const laserOptions = { type: "object", properties: { laser_on: { type: "boolean", default: false, "x-label-key": "FIREFIGHT.laser.on" } } };
const laserSettings = { type: "object", properties: { bonus: { type: "integer", default: 2, "x-label-key": "FIREFIGHT.laser.bonus" } } };

/** A `hello` value as the engine sends it (two rulesets, one a plugin's; one house rule; a broken plugin). */
function hello() {
  return {
    version: "1.0", default_ruleset: "alpha",
    rulesets: [
      { id: "alpha", label_key: "FIREFIGHT.alpha.name", builtin: true, default_action: "attack", actions: ["attack", "rally"],
        options: { attack: { type: "object" } },
        settings: { type: "object", properties: { tie: { type: "string", enum: ["a", "b"], default: "a" } } },
        stats: { type: "object", properties: { hp: { type: "integer" } } },
        features: { sheetActions: [{ action: "rally" }] }, house_steps: { to_hit: "Table 1" } },
      { id: "duel", label_key: "FIREFIGHT.duel.name", builtin: false, default_action: "attack", actions: ["attack"],
        options: {}, settings: null, stats: { type: "object", properties: { hp: { type: "integer" } } } },
    ],
    house_rules: [{ id: "laser", ruleset: "alpha", label_key: "FIREFIGHT.laser.name", actions: ["attack"], options: laserOptions, settings: laserSettings }],
    plugins: [
      { name: "duel", group: "firefight.rulesets", dist: "firefight-duel", ok: true, error: null },
      { name: "broken", group: "firefight.rulesets", dist: "firefight-broken", ok: false, error: "ImportError: no module named nowhere" },
    ],
    strings: { FIREFIGHT: { duel: { name: "Duel" } } },
    units: { m: 1, ft: 0.3048 },
  };
}

test("a catalog without table features, units or house rules (an older engine) has them empty", () => {
  const c = normalizeCatalog({ default_ruleset: "x", rulesets: [{ id: "alpha", label_key: "K.alpha", actions: ["attack"] }] });
  assert.deepEqual(c.rulesets[0].features, {});
  assert.deepEqual(c.units, {});
  assert.deepEqual(c.house_rules, []);
  assert.equal(c.default_ruleset, "alpha"); // "x" is not one of its rulesets
  assert.deepEqual(normalizeCatalog(null).rulesets, []);
  assert.equal(normalizeCatalog("junk").default_ruleset, "");
});

test("the cache keeps what settings need, not the plugin status or the dialog schemas", () => {
  const cache = cacheOf(normalizeCatalog(hello()));
  assert.equal(cache.plugins, undefined);
  assert.equal(cache.rulesets[0].options, undefined);
  assert.deepEqual(cache.rulesets.map((r) => r.id), ["alpha", "duel"]);
  assert.ok(cache.rulesets[0].settings && cache.house_rules[0].settings && cache.units.ft);
});

test("ruleset choices: every ruleset's label key; a pending choice while none is known; a missing one kept", () => {
  const c = normalizeCatalog(hello());
  assert.deepEqual(rulesetChoices(c), { alpha: "FIREFIGHT.alpha.name", duel: "FIREFIGHT.duel.name" });
  assert.deepEqual(rulesetChoices(normalizeCatalog(null)), PENDING_CHOICE);
  assert.deepEqual(Object.keys(rulesetChoices(c, "gone")), ["alpha", "duel", "gone"]);
});

test("settings from the catalog: <ruleset>.<field> and house.<rule>.<field>, each hinted with its own key or none", () => {
  const raw = hello();
  raw.rulesets[0].settings.properties.tie["x-hint-key"] = "FIREFIGHT.alpha.opt.tie.hint";
  const list = catalogSettings(normalizeCatalog(raw));
  assert.deepEqual(list.map((s) => [s.prefix, s.entries.map((e) => e.key)]),
    [["alpha", ["alpha.tie"]], ["duel", []], ["house.laser", ["house.laser.bonus"]]]);
  const bonus = list[2].entries[0].data;
  assert.equal(bonus.type, Number);
  assert.equal(bonus.default, 2);
  // No filler: a field without a hint key has none (not the ruleset's or the house rule's name).
  assert.equal(bonus.hint, "");
  assert.equal(list[0].entries[0].data.hint, "FIREFIGHT.alpha.opt.tie.hint");
  // Not listed in Configure Settings themselves: their ruleset's submenu shows them.
  assert.ok(list.every((g) => g.entries.every((e) => e.data.config === false)));
});

test("one settings submenu per ruleset with settings: its own group, then its house rules'", () => {
  assert.deepEqual(catalogMenus(normalizeCatalog(hello())), [{ ruleset: "alpha", labelKey: "FIREFIGHT.alpha.name",
    groups: [{ prefix: "alpha", labelKey: "FIREFIGHT.alpha.name" }, { prefix: "house.laser", labelKey: "FIREFIGHT.laser.name" }] }]);
  const raw = hello();
  raw.house_rules[0].ruleset = "duel";
  assert.deepEqual(catalogMenus(normalizeCatalog(raw)).map((m) => [m.ruleset, m.groups.map((g) => g.prefix)]),
    [["alpha", ["alpha"]], ["duel", ["house.laser"]]]);
});

test("house rules for a ruleset and action; broken plugins named with their error", () => {
  const c = normalizeCatalog(hello());
  assert.deepEqual(houseRulesFor(c, "alpha", "attack").map((h) => h.id), ["laser"]);
  assert.deepEqual(houseRulesFor(c, "alpha", "rally"), []);
  assert.deepEqual(houseRulesFor(c, "duel", "attack"), []);
  assert.deepEqual(brokenPlugins(c), [{ name: "firefight-broken", error: "ImportError: no module named nowhere" }]);
});

test("plugin wheels: each active module's flags.firefight.wheels under modules/<id>/, bad paths refused and named", () => {
  const base = "https://vtt.example/ff/modules/";
  const modules = [
    { id: "firefight", active: true, flags: { firefight: { wheels: ["x.whl"] } } }, // ourselves: never
    { id: "firefight-duel", active: true, flags: { firefight: { wheels: ["wheels/firefight_duel-0.1.0-py3-none-any.whl"] } } },
    { id: "asleep", active: false, flags: { firefight: { wheels: ["a.whl"] } } },
    { id: "other", active: true, flags: {} },
    { id: "evil", active: true, flags: { firefight: { wheels: ["../firefight/runtime/x.whl", "https://cdn.example/x.whl", "/abs.whl", "notes.txt"] } } },
    { id: "odd", active: true, flags: { firefight: { wheels: "one.whl" } } },
  ];
  const { wheels, problems } = pluginWheels(modules, base);
  assert.deepEqual(wheels, [{ module: "firefight-duel", url: "https://vtt.example/ff/modules/firefight-duel/wheels/firefight_duel-0.1.0-py3-none-any.whl" }]);
  assert.deepEqual(problems.map((p) => p.name), ["evil", "evil", "evil", "evil", "odd"]);
  assert.match(problems[0].error, /leaves the module's folder/);
  assert.match(problems[1].error, /relative to the module's folder/);
  assert.match(problems[3].error, /\.whl/);
});

test("a plugin wheel the server does not have is said by its module and path, with the HTTP status", () => {
  // Issue 26 item 3: a wrong path read "failed: zipfile.BadZipFile: File is not a zip file".
  const base = "https://vtt.example/ff/modules/";
  const url = `${base}firefight-spotter/wheels/firefight_spotter-0.2.0-py3-none-any.whl`;
  assert.equal(wheelFailure({ url, status: 404, error: "gone" }, "firefight-spotter", base).text,
    "firefight-spotter: wheel wheels/firefight_spotter-0.2.0-py3-none-any.whl not found (HTTP 404)");
  assert.match(wheelFailure({ url, status: 500, error: "x" }, "firefight-spotter", base).text, /could not be fetched \(HTTP 500\)$/);
  // Any other failure: the plugin and micropip's error, as before.
  assert.deepEqual(wheelFailure({ url, error: "requires fflib>=2" }, "firefight-spotter", base),
    { name: "firefight-spotter (firefight_spotter-0.2.0-py3-none-any.whl)", error: "requires fflib>=2" });
});

test("house rules in a dialog: fields named house.<id>.<field>, read back per rule, sent with the world's settings", () => {
  const rules = normalizeCatalog(hello()).house_rules;
  const fields = houseFields(rules);
  assert.deepEqual(fields.map((f) => [f.name, f.kind, f.rule]), [["house.laser.laser_on", "checkbox", "laser"]]);
  const chosen = houseOptions({ "house.laser.laser_on": true, "options.mode": "aimed", "house.nope.x": 1 }, rules);
  assert.deepEqual(chosen, { laser: { laser_on: true } });
  const house = houseRequest(rules, chosen, (id) => (id === "laser" ? { bonus: 3 } : {}));
  assert.deepEqual(house, { laser: { options: { laser_on: true }, settings: { bonus: 3 } } });
  assert.deepEqual(chosenHouseOptions(house), { laser: { laser_on: true } });
  // What a player's client may send: only the rules given, only their dialog fields.
  assert.equal(unknownHouseOption({ laser: { laser_on: true } }, rules), null);
  assert.equal(unknownHouseOption(undefined, rules), null);
  assert.equal(unknownHouseOption({ sniper: {} }, rules), "house.sniper");
  assert.equal(unknownHouseOption({ laser: { bonus: 9 } }, rules), "house.laser.options.bonus");
  assert.equal(unknownHouseOption({ laser: "on" }, rules), "house.laser.options");
  assert.equal(unknownHouseOption([], rules), "house");
  const html = houseSectionHTML(rules, fields, { "house.laser.laser_on": true }, { heading: "House rules" });
  assert.match(html, /<legend>House rules<\/legend>/);
  assert.match(html, /name="opt\.house\.laser\.laser_on" checked/);
  assert.equal(houseSectionHTML(rules, [], {}), "");
});

// --- the table side with a fake Foundry -----------------------------------------------------------

let store;
let hooks;
let notes;
let errors;

function fakeFoundry({ isGM = true, cache = undefined, stored = {} } = {}) {
  store = { ...stored };
  if (cache !== undefined) store["firefight.catalog"] = cache;
  hooks = [];
  notes = [];
  errors = [];
  const settings = new Map();
  const menus = new Map();
  globalThis.game = {
    user: { id: isGM ? "GM" : "P1", isGM },
    users: { activeGM: isGM ? { id: "GM" } : { id: "other" } },
    i18n: { lang: "en", translations: { FIREFIGHT: { ui: { x: "X" } } }, localize: (k) => k, format: (k) => k },
    modules: new Map([["firefight", { id: "firefight", languages: [{ lang: "en" }, { lang: "de" }] }]]),
    settings: {
      settings,
      menus,
      registerMenu: (ns, key, data) => menus.set(`${ns}.${key}`, { ...data, namespace: ns, key, id: `${ns}.${key}` }),
      // As Foundry's ClientSettings#register, keeping a copy of plain `choices` (whether v13 sees
      // them changed in place later is not public); a DataField `type` validates with its own.
      register: (ns, key, data) => settings.set(`${ns}.${key}`, {
        ...data, namespace: ns, key, id: `${ns}.${key}`, registeredChoices: data.choices ? { ...data.choices } : null,
      }),
      get: (ns, key) => {
        const id = `${ns}.${key}`;
        if (!settings.has(id)) throw new Error(`"${id}" is not a registered game setting`);
        return id in store ? structuredClone(store[id]) : structuredClone(settings.get(id).default);
      },
      set: async (ns, key, value) => {
        const config = settings.get(`${ns}.${key}`);
        const choices = config.type instanceof StringField ? fieldChoices(config.type) : config.registeredChoices;
        if (choices && !(value in choices)) throw new Error(`Invalid choice ${value}`);
        store[`${ns}.${key}`] = structuredClone(value);
        return value;
      },
    },
  };
  globalThis.foundry = { utils: { mergeObject, deepClone: structuredClone }, data: { fields: { StringField } }, applications: { api: { ApplicationV2: class {} } } };
  globalThis.Hooks = { callAll: (name, ...args) => hooks.push([name, ...args]), call: () => true };
  globalThis.ui = { notifications: { error: (m) => notes.push(m) } };
  globalThis.console = { ...console, error: (...args) => errors.push(args.join(" ")) };
}

const realConsole = globalThis.console;
beforeEach(() => {
  globalThis.console = realConsole;
  useCatalog(null);
});

// The ruleset setting's choices, as its field gives them now.
const rulesetChoicesNow = () => fieldChoices(game.settings.settings.get("firefight.ruleset").type);

test("a fresh world: a pending choice at init; the engine's catalog is its choices at once, registers the settings, and the GM keeps it", async () => {
  fakeFoundry();
  registerCatalogSettings();
  const config = game.settings.settings.get("firefight.ruleset");
  // A StringField whose choices are a function: nothing of the registered config changes later.
  assert.ok(config.type instanceof StringField);
  assert.equal(config.choices, undefined);
  assert.deepEqual(rulesetChoicesNow(), PENDING_CHOICE);
  assert.equal(config.default, "");
  assert.equal(currentRuleset(), "");
  assert.equal(game.settings.settings.has("firefight.alpha.tie"), false);
  await applyCatalog(hello());
  assert.equal(game.settings.settings.get("firefight.ruleset"), config, "the same registration");
  assert.deepEqual(rulesetChoicesNow(), { alpha: "FIREFIGHT.alpha.name", duel: "FIREFIGHT.duel.name" });
  assert.ok(game.settings.settings.has("firefight.alpha.tie"));
  assert.ok(game.settings.settings.has("firefight.house.laser.bonus"));
  // Grouped per ruleset: the ruleset choice listed, its settings in a restricted submenu (an
  // ApplicationV2 form) registered as the catalog arrives.
  assert.equal(config.config, true);
  assert.equal(game.settings.settings.get("firefight.alpha.tie").config, false);
  const menu = game.settings.menus.get("firefight.rules.alpha");
  assert.equal(menu.name, "FIREFIGHT.alpha.name");
  assert.equal(menu.restricted, true);
  assert.ok(menu.type.prototype instanceof foundry.applications.api.ApplicationV2);
  assert.equal(game.settings.menus.has("firefight.rules.duel"), false, "no settings: no submenu");
  // The world plays the engine's default, recorded by the GM; a plugin's ruleset is a valid choice.
  assert.equal(store["firefight.ruleset"], "alpha");
  assert.equal(currentRuleset(), "alpha");
  await game.settings.set("firefight", "ruleset", "duel");
  assert.equal(currentRuleset(), "duel");
  // Settings, features, stats and house rules come from the catalog.
  assert.deepEqual(rulesetSettings("alpha"), { tie: "a" });
  assert.deepEqual(houseSettings("laser"), { bonus: 2 });
  assert.deepEqual(tableFeatures("alpha"), { sheetActions: [{ action: "rally" }] });
  assert.deepEqual(tableFeatures("duel"), {});
  assert.ok(statsSchema("duel").properties.hp);
  assert.deepEqual(houseRules("alpha").map((h) => h.id), ["laser"]);
  // The cache, plugin strings, the broken plugin reported (console and the GM), the hook.
  assert.deepEqual(store["firefight.catalog"], cacheOf(normalizeCatalog(hello())));
  assert.equal(game.i18n.translations.FIREFIGHT.duel.name, "Duel");
  assert.equal(game.i18n.translations.FIREFIGHT.ui.x, "X");
  assert.match(notes.join("\n"), /firefight-broken.*ImportError/);
  assert.match(errors.join("\n"), /firefight-broken.*ImportError/);
  assert.equal(hooks.filter(([n]) => n === "firefight.rulesetsChanged").length, 1);
});

test("the next load: everything registered straight from the cache at init, before any engine", () => {
  fakeFoundry({ cache: cacheOf(normalizeCatalog(hello())), stored: { "firefight.ruleset": "duel", "firefight.house.laser.bonus": 4 } });
  registerCatalogSettings();
  assert.deepEqual(rulesetChoicesNow(), { alpha: "FIREFIGHT.alpha.name", duel: "FIREFIGHT.duel.name" });
  assert.equal(currentRuleset(), "duel");
  assert.ok(game.settings.settings.has("firefight.alpha.tie"));
  assert.deepEqual(houseSettings("laser"), { bonus: 4 });
  assert.ok(statsSchema("duel"));
  // The cached plugin strings go under the translations (at i18nInit), never over them.
  game.i18n.translations.FIREFIGHT.duel = { name: "Duell" };
  mergeCachedStrings();
  assert.equal(game.i18n.translations.FIREFIGHT.duel.name, "Duell");
});

test("a player's client neither writes the cache nor chooses the ruleset, and is not notified", async () => {
  fakeFoundry({ isGM: false });
  registerCatalogSettings();
  const value = hello();
  value.plugins[1].error = "ImportError: reported on a player's client"; // not seen on this page yet
  await applyCatalog(value);
  assert.equal(store["firefight.catalog"], undefined);
  assert.equal(store["firefight.ruleset"], undefined);
  assert.equal(currentRuleset(), "alpha"); // the engine's default meanwhile
  assert.deepEqual(notes, []);
  assert.match(errors.join("\n"), /firefight-broken.*player's client/);
});

test("a rescan after a new wheel: the new ruleset becomes a choice without a reload", async () => {
  fakeFoundry();
  registerCatalogSettings();
  const first = hello();
  first.rulesets = first.rulesets.filter((r) => r.id !== "duel");
  await applyCatalog(first);
  assert.deepEqual(Object.keys(rulesetChoicesNow()), ["alpha"]);
  await assert.rejects(game.settings.set("firefight", "ruleset", "duel"), /Invalid choice/);
  await applyCatalog(hello());
  assert.deepEqual(Object.keys(rulesetChoicesNow()), ["alpha", "duel"]);
  await game.settings.set("firefight", "ruleset", "duel");
  assert.equal(currentRuleset(), "duel");
  assert.equal(hooks.filter(([n]) => n === "firefight.rulesetsChanged").length, 2);
});

// --- wheels in the engine client -------------------------------------------------------------------

function wheelWorkerClass(log) {
  return class {
    constructor() {
      this.posted = [];
      log.push(this);
      setTimeout(() => this.onmessage?.({ data: { type: "ready", wheelErrors: [{ url: "bad.whl", error: "HTTP 404" }] } }), 2);
    }
    postMessage(msg) {
      this.posted.push(msg);
      if (msg.type === "load-wheel") {
        const value = { url: msg.url, loaded: !msg.url.includes("missing"), error: msg.url.includes("missing") ? "HTTP 404" : null };
        setTimeout(() => this.onmessage?.({ data: { id: msg.id, reply: JSON.stringify({ ok: true, value }) } }), 1);
      } else if (msg.message) {
        setTimeout(() => this.onmessage?.({ data: { id: msg.id, reply: JSON.stringify({ ok: true, value: JSON.parse(msg.message) }) } }), 1);
      }
    }
    terminate() {}
  };
}

test("plugin wheels go to every worker at boot; loadWheel loads one now and in every restarted worker", async () => {
  const workers = [];
  const client = new EngineClient("w.mjs", { WorkerClass: wheelWorkerClass(workers), locks: null });
  client.wheels.push("modules/duel/duel.whl");
  await client.start();
  assert.deepEqual(workers[0].posted[0], { type: "wheels", urls: ["modules/duel/duel.whl"] });
  assert.deepEqual(client.wheelErrors, [{ url: "bad.whl", error: "HTTP 404" }]);
  let rescans = 0;
  client.onWheel = async (loaded) => {
    if (!loaded.loaded) throw new Error(loaded.error);
    rescans++;
    return client.call("rescan", {});
  };
  assert.deepEqual(await client.loadWheel("late.whl"), { op: "rescan" });
  assert.equal(rescans, 1);
  await assert.rejects(client.loadWheel("missing.whl"), /HTTP 404/);
  assert.deepEqual(client.wheels, ["modules/duel/duel.whl", "late.whl"]); // a failed one is not kept
  await client.restart();
  assert.deepEqual(workers[1].posted.find((m) => m.type === "wheels").urls, ["modules/duel/duel.whl", "late.whl"]);
});

// --- the GM's check keeps a house rule's part, and only what a player may choose ------------------

test("the GM's check: a house rule's options are the player's; its settings and the rules are the world's", async () => {
  const { worldMismatch } = await import("../../js-shim/relay/verify.mjs");
  fakeFoundry({ stored: { "firefight.ruleset": "alpha", "firefight.house.sight.bonus": 3 } });
  registerCatalogSettings();
  const value = hello();
  value.house_rules.push({ id: "sight", ruleset: "alpha", label_key: "K.sight", actions: ["rally"], options: laserOptions, settings: laserSettings });
  await applyCatalog(value);
  // "rally": an action without participants or settings, so only the house rules are checked.
  const engine = { call: async () => ({ request: { type: "object", properties: { action: { const: "rally" } } } }) };
  const check = (house) => worldMismatch(engine, { ruleset: "alpha", action: "rally", ...(house === undefined ? {} : { house }) }, { actorFor: () => null });
  assert.equal(await check({ sight: { options: { laser_on: true }, settings: { bonus: 3 } } }), null);
  assert.equal(await check({ sight: { options: {}, settings: { bonus: 3 } } }), null);
  // Another bonus than the world's, a rule the world lacks, an option the rule lacks, the rule left out.
  assert.deepEqual(await check({ sight: { options: {}, settings: { bonus: 9 } } }), { field: "house.sight.settings.bonus",
    reason: { key: "FIREFIGHT.ui.verify.houseSettings", fallback: "not the world's house rules", params: {} } });
  assert.equal((await check({ sight: { options: {}, settings: { bonus: 3 } }, laser: { options: {}, settings: { bonus: 2 } } })).field, "house.laser");
  assert.equal((await check({ sight: { options: { bonus: 5 }, settings: { bonus: 3 } } })).field, "house.sight.options.bonus");
  assert.equal((await check(undefined)).field, "house.sight");
});

test("the engine is ready only once its catalog is read (prepare), after a restart too", async () => {
  const workers = [];
  const client = new EngineClient("w.mjs", { WorkerClass: wheelWorkerClass(workers), locks: null });
  const seen = [];
  client.prepare = async () => {
    seen.push(client.status);
    seen.push(await client.call("hello", { lang: "de" }));
  };
  const statuses = [];
  client.addEventListener("status", () => statuses.push([client.status, seen.length]));
  await client.start();
  assert.deepEqual(seen, ["booting", { op: "hello", lang: "de" }]);
  assert.deepEqual(statuses, [["booting", 0], ["ready", 2]]);
  // A prepare that fails does not keep the engine from being ready.
  client.prepare = async () => { throw new Error("no catalog"); };
  await client.restart();
  assert.equal(client.status, "ready");
});

test("a wheel loaded at runtime is kept as its path under modules/, and only a module's file is", () => {
  const base = "https://vtt.example/ff/modules/";
  const url = `${base}firefight-duel/wheels/firefight_duel-0.1.0-py3-none-any.whl`;
  assert.equal(keptWheel(url, base), "firefight-duel/wheels/firefight_duel-0.1.0-py3-none-any.whl");
  for (const bad of ["https://cdn.example/x.whl", `${base}x.whl`, `${base}duel/notes.txt`, "https://vtt.example/ff/worlds/w/x.whl"]) {
    assert.equal(keptWheel(bad, base), null, bad);
  }
  // Read back at the next boot against wherever the site is now (another prefix), bad entries dropped.
  const kept = ["firefight-duel/wheels/firefight_duel-0.1.0-py3-none-any.whl", "../runtime/x.whl", "https://cdn.example/x.whl", 7];
  assert.deepEqual(rememberedWheels(kept, "https://other.example/modules/"), [
    { module: "firefight-duel", url: "https://other.example/modules/firefight-duel/wheels/firefight_duel-0.1.0-py3-none-any.whl" },
  ]);
  assert.deepEqual(rememberedWheels(undefined, base), []);
});

test("the GM keeps a runtime wheel in the world once; a player's client keeps none", async () => {
  const base = "https://vtt.example/modules/";
  const url = `${base}firefight-duel/wheels/d-0.1.0-py3-none-any.whl`;
  fakeFoundry();
  registerCatalogSettings();
  assert.deepEqual(keptWheels(), []);
  assert.equal(await keepWheel(url, base), true);
  assert.equal(await keepWheel(url, base), true);
  assert.deepEqual(store["firefight.wheels"], ["firefight-duel/wheels/d-0.1.0-py3-none-any.whl"]);
  assert.equal(await keepWheel("https://cdn.example/x.whl", base), false);
  fakeFoundry({ isGM: false });
  registerCatalogSettings();
  assert.equal(await keepWheel(url, base), false);
  assert.equal(store["firefight.wheels"], undefined);
});

test("a chosen ruleset the engine lacks is named with how to get it back, once, to every user", async () => {
  const catalog = normalizeCatalog(hello());
  assert.equal(missingRulesetText(catalog, "alpha"), null);
  assert.equal(missingRulesetText(catalog, ""), null);
  assert.equal(missingRulesetText(normalizeCatalog(null), "duel"), null, "no catalog yet: nothing to say");
  assert.match(missingRulesetText(catalog, "sniper"), /“sniper” is not installed.*Manage Modules.*loadWheel.*Configure Settings/);
  // The engine's catalog at boot lacks the world's ruleset: a player is told too.
  fakeFoundry({ isGM: false, cache: cacheOf(normalizeCatalog(hello())), stored: { "firefight.ruleset": "duel" } });
  registerCatalogSettings();
  const withoutDuel = hello();
  withoutDuel.rulesets = withoutDuel.rulesets.filter((r) => r.id !== "duel");
  await applyCatalog(withoutDuel);
  await applyCatalog(withoutDuel);
  assert.equal(notes.filter((n) => /“duel” is not installed/.test(n)).length, 1);
  assert.equal(currentRuleset(), "duel", "the choice stays: it comes back with its plugin");
});
