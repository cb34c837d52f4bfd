// Sandbox boot: install Foundry v13's client API surface as globals, build a world
// from the module's packs (or join the world of a table page already open), load the module's
// esmodules from its manifest, then run init -> i18nInit -> setup -> canvasReady -> ready like
// Foundry does.
//
// Each page is one client: ?user=<id or name> picks the user (default: the GM), ?lang=de the
// language, ?pack=<actor pack> the scene's actors, ?dsn=<ms> a stand-in for Dice So Nice
// (foundry/dice-so-nice.mjs; ?dsnSkip=hidden|immediate: a client where it does not animate),
// ?diagonals=<CONST.GRID_DIAGONALS name> the scene's diagonal rule, ?modules=<id>,<id> the other
// modules enabled in this world (served at modules/<id>/ by tools/serve.py; validated, their
// dependencies checked, their languages and esmodules loaded like Firefight's).
import * as utils from "./foundry/utils.mjs";
import { Hooks } from "./foundry/hooks.mjs";
import { Collection } from "./foundry/collection.mjs";
import { Roll, Die, NumericTerm, OperatorTerm } from "./foundry/dice.mjs";
import { Actor, Item, User, Scene, ChatMessage, TokenDocument, MeasuredTemplateDocument, fromUuid, fromUuidSync } from "./foundry/documents.mjs";
import { ClientSettings } from "./foundry/settings.mjs";
import { DataField, StringField } from "./foundry/fields.mjs";
import { ApplicationV2 } from "./foundry/application.mjs";
import { Localization } from "./foundry/i18n.mjs";
import { Notifications, ChatLog, SceneControls } from "./foundry/ui.mjs";
import { DialogV2 } from "./foundry/dialog.mjs";
import { ActorSheetV2, sheetClassFor } from "./foundry/sheets.mjs";
import { Canvas, SceneView, MeasuredTemplate, TemplateLayer } from "./foundry/canvas.mjs";
import * as net from "./foundry/net.mjs";
import { startPanel } from "./panel.mjs";
import { startSidebar } from "./sidebar.mjs";
import { Combat, Combatant, CombatEncounters, CombatTracker } from "./foundry/combat.mjs";
import { systemFor, unversionedDocumentProblems } from "./foundry/systems.mjs";
import { validateManifest, manifestErrors, moduleEntry, packFromSource, resolveModules } from "./foundry/packages.mjs";
import { GRID_DIAGONALS, diagonalRule } from "./foundry/grid.mjs";
import { installDiceSoNice } from "./foundry/dice-so-nice.mjs";

// Relative to the page, so the table works under a route prefix (tools/serve.py --route-prefix,
// as Foundry's routePrefix): the page is the prefix's root, the module at modules/firefight/.
const MODULE_BASE = new URL("modules/firefight/", location.href);
const PACK_API = new URL("sandbox-api/packs/", location.href).href;
const params = new URLSearchParams(location.search);
const GM_ID = "sandboxGamemastr";
const PLAYER_1 = "sandboxPlayer001";
const PLAYER_2 = "sandboxPlayer002";
// Where the pack actors stand (grid cells) and who owns them.
const LAYOUT = {
  ffH0rifleman0001: { col: 2, row: 7, owner: PLAYER_1 },
  ffH0officer00001: { col: 3, row: 11, owner: PLAYER_2 },
  ffC0venusRhino01: { col: 14, row: 3, owner: null },
  // SHOCK troops (?pack=shock-troops): two lines facing each other across the field.
  ffSTuntrained000: { col: 7, row: 2, owner: PLAYER_1 }, ffSTconscript000: { col: 7, row: 5, owner: PLAYER_2 },
  ffSTgreen0000000: { col: 7, row: 8, owner: null }, ffSTregular00000: { col: 7, row: 11, owner: null },
  ffSTexperienced0: { col: 15, row: 2, owner: null }, ffSTveteran00000: { col: 15, row: 5, owner: null },
  ffSTelite0000000: { col: 15, row: 8, owner: null }, ffSTrainbow00000: { col: 15, row: 11, owner: null },
};
// The game system the world runs (?system=worldbuilding|dnd5e|pf2e): its status list and types.
const SYSTEM = systemFor(params.get("system") ?? undefined);

function makeUsers() {
  const users = new Collection();
  for (const data of [
    { _id: GM_ID, name: "Gamemaster", role: 4, color: "#d4a017" },
    { _id: PLAYER_1, name: "Player 1", role: 1, color: "#2f7ed8" },
    { _id: PLAYER_2, name: "Player 2", role: 1, color: "#3fa34d" },
  ]) users.set(data._id, new User(data));
  Object.defineProperty(users, "activeGM", { get() {
    return this.filter((u) => u.isGM && u.active).sort((a, b) => a.id.localeCompare(b.id))[0] ?? null;
  } });
  const wanted = params.get("user");
  const me = users.get(wanted) ?? users.getName(wanted) ?? users.get(GM_ID);
  me.active = true;
  return { users, me };
}

/**
 * game.socket: the module socket between the table's pages (the emitter does not hear itself).
 * A handler is called with (data, senderId): the sender's user id is set by the "server" (here
 * the emitting page's socket, outside the payload), never read from the data, as Foundry's server
 * does (socketlib's `game.socket.on` handler `_onSocketReceived(message, senderId)`,
 * manuelVo/foundryvtt-socketlib src/socketlib.js).
 */
function makeSocket() {
  const listeners = new Map();
  net.on("socket", ({ name, data, sender }) => {
    for (const fn of listeners.get(name) ?? []) {
      try {
        fn(data, sender);
      } catch (err) {
        console.error("socket listener", err);
      }
    }
  });
  return {
    on(name, fn) {
      if (!listeners.has(name)) listeners.set(name, []);
      listeners.get(name).push(fn);
    },
    off(name) {
      listeners.delete(name);
    },
    emit(name, data) {
      net.send("socket", { name, data: structuredClone(data), sender: game.user.id });
    },
  };
}

/** game.keybindings: register an action, run onDown for its key outside form fields. */
function makeKeybindings() {
  const actions = new Map();
  window.addEventListener("keydown", (ev) => {
    if (ev.target.closest?.("input,select,textarea")) return;
    for (const action of actions.values()) {
      const hit = (action.editable ?? []).some((b) => b.key === ev.code
        && Object.entries({ Shift: "shiftKey", Control: "ctrlKey", Alt: "altKey" })
          .every(([m, prop]) => (b.modifiers ?? []).includes(m) === ev[prop]));
      if (hit && action.onDown?.({ event: ev, key: ev.code }) === true) {
        ev.preventDefault();
        return;
      }
    }
  });
  return {
    actions,
    register(namespace, action, data) {
      actions.set(`${namespace}.${action}`, { ...data, namespace, action });
    },
    get(namespace, action) {
      return actions.get(`${namespace}.${action}`)?.editable ?? [];
    },
  };
}

function installGlobals() {
  const { users, me } = makeUsers();
  Object.assign(globalThis, {
    Hooks, Roll, ChatMessage, Actor, Item, User, Scene, TokenDocument, Collection, fromUuid, fromUuidSync, Combat, Combatant,
    foundry: {
      utils: { ...utils, Collection },
      data: { fields: { DataField, StringField } },
      applications: { api: { ApplicationV2, DialogV2 }, sheets: { ActorSheetV2 } },
      dice: { Roll, terms: { Die, NumericTerm, OperatorTerm } },
      documents: { Actor, Item, User, Scene, ChatMessage, TokenDocument, Combat, Combatant },
    },
    CONFIG: {
      Dice: {
        rolls: [Roll], terms: { d: Die },
        randomUniform: () => crypto.getRandomValues(new Uint32Array(1))[0] / 2 ** 32,
      },
      sounds: { dice: null },
      statusEffects: structuredClone(SYSTEM.statusEffects),
      ChatMessage: { documentClass: ChatMessage },
      Actor: { documentClass: Actor, sheetClass: sheetClassFor(SYSTEM) },
      Item: { documentClass: Item },
      Combat: { documentClass: Combat }, Combatant: { documentClass: Combatant },
      MeasuredTemplate: { documentClass: MeasuredTemplateDocument, objectClass: MeasuredTemplate, layerClass: TemplateLayer },
    },
    game: {
      ready: false, version: "13.sandbox", release: { generation: 13 },
      system: { id: SYSTEM.id, title: SYSTEM.title, version: SYSTEM.version },
      documentTypes: structuredClone(SYSTEM.documentTypes),
      users, user: me, userId: me.id,
      settings: new ClientSettings(), i18n: new Localization(params.get("lang") ?? "en"),
      socket: makeSocket(), keybindings: makeKeybindings(),
      modules: new Collection(), actors: new Collection(), scenes: new Collection(), messages: new Collection(),
      combats: new CombatEncounters(),
    },
    ui: {
      notifications: new Notifications(document.getElementById("notifications")),
      chat: new ChatLog(document.getElementById("chat")),
      combat: new CombatTracker(document.getElementById("combat-panel")),
      controls: new SceneControls(document.getElementById("board")),
    },
  });
  // game.combat: the encounter the tracker shows (Foundry: the active combat of the viewed scene).
  Object.defineProperty(game, "combat", { get: () => game.combats.viewed, configurable: true });
  globalThis.canvas = new Canvas(new SceneView(document.getElementById("scene")));
  game.settings.register("core", "rollMode", {
    name: "Roll mode", scope: "client", config: false, type: String, default: "publicroll",
    choices: { publicroll: "Public roll", gmroll: "Private GM roll", blindroll: "Blind GM roll", selfroll: "Self roll" },
  });
  // Square Grid Diagonals: a world setting whose default the system's manifest gives
  // (foundryvtt#9998, #9999); ?diagonals=<name> is the referee's choice in Configure Settings.
  game.settings.register("core", "gridDiagonals", {
    name: "Square Grid Diagonals", scope: "world", config: true, type: Number,
    default: SYSTEM.gridDiagonals ?? GRID_DIAGONALS.EQUIDISTANT,
    choices: Object.fromEntries(Object.entries(GRID_DIAGONALS).map(([k, v]) => [v, k])),
  });
  if (params.get("diagonals")) game.settings._values["core.gridDiagonals"] = diagonalRule(params.get("diagonals"));
  if (params.get("dsn")) installDiceSoNice({ ms: Number(params.get("dsn")) > 1 ? Number(params.get("dsn")) : 1500, skip: params.get("dsnSkip") ?? "" });
  // The sandbox world's percentile ground scale: the scene is in metres (5 m squares), and
  // one tabletop inch stands for 2 m (a 5 m square is 2.5"), unless the settings say otherwise.
  for (const [id, value] of Object.entries(WORLD_DEFAULTS)) if (!(id in game.settings._values)) game.settings._values[id] = value;
}
const WORLD_DEFAULTS = { "firefight.percentile.inch_equals": 2, "firefight.percentile.inch_units": "m" };

async function fetchJSON(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

// The scene holds the actors of one pack: ?pack=<name> (default soe-actors); the other packs
// stay in the compendiums.
const SCENE_PACK = params.get("pack") ?? "soe-actors";

// Actors without a LAYOUT place: two staggered lines (rows 3 and 9) across the 18 x 14 scene, the
// first two owned by the players; from the seventh on, a middle line (the scene has 18 columns).
function defaultPlace(i, owners) {
  const place = i < 6 ? { col: 2 + i * 3, row: 3 + (i % 2) * 6 } : { col: 3 + (i - 6) * 3, row: 6 };
  return { ...place, owner: owners[i] ?? null };
}

async function buildWorld(manifest) {
  // ?pack= names a pack or the source it is built from (soe-actors: soe-actors-<world's system>).
  const chosen = packFromSource(manifest, SCENE_PACK, game.system.id);
  if (chosen?.type !== "Actor") throw new Error(`no Actor pack ${SCENE_PACK} for the system ${game.system.id} in module.json`);
  const actorPacks = [chosen];
  const tokens = [];
  const owners = [PLAYER_1, PLAYER_2];
  for (const pack of actorPacks) {
    const docs = await fetchJSON(PACK_API + pack.name);
    // The scene's actors are imported from the pack: what the system would make of their version
    // (each in the console, one lasting error for the GM).
    const problems = docs.flatMap((data) => unversionedDocumentProblems(game.system.id, data));
    for (const problem of problems.slice(1)) console.error(`Sandbox | ${pack.name}: ${problem}`);
    if (problems.length) reportPackage(`${pack.name}: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`);
    for (const data of docs) {
      const place = LAYOUT[data._id] ?? defaultPlace(tokens.length, owners);
      if (place.owner) data.ownership = { ...data.ownership, [place.owner]: 3 };
      const actor = new Actor(data);
      game.actors.set(actor.id, actor);
      const proto = data.prototypeToken ?? {};
      // The prototype's actorLink, as Foundry places a token (unlinked NPCs get synthetic actors).
      tokens.push({
        _id: `tok${actor.id.slice(3)}`, name: proto.name ?? actor.name, actorId: actor.id, actorLink: Boolean(proto.actorLink),
        x: place.col * 100, y: place.row * 100, width: proto.width ?? 1, height: proto.height ?? 1,
        disposition: proto.disposition ?? 0, texture: { src: new URL(proto.texture?.src ?? actor.img, location.href).pathname },
      });
    }
  }
  const scene = new Scene({ _id: "sandboxScene0001", name: "Proving ground", cols: 18, rows: 14, active: true,
    grid: { type: 1, size: 100, distance: 5, units: "m" }, tokens });
  game.scenes.set(scene.id, scene);
  return scene;
}

/** The world of a page already open (same table), so a user who joins sees the same state. */
function joinWorld(world) {
  for (const data of world.actors) game.actors.set(data._id, new Actor(data));
  const scene = new Scene(world.scene);
  game.scenes.set(scene.id, scene);
  for (const data of world.combats ?? []) game.combats.set(data._id, new Combat(data));
  return scene;
}

function snapshot() {
  return {
    actors: game.actors.map((a) => a.toObject()),
    messages: game.messages.map((m) => m.toObject()),
    scene: game.scenes.contents[0]?.toObject(),
    combats: game.combats.map((c) => c.toObject()),
  };
}

function trackPresence() {
  const seen = (userId, active = true) => {
    const user = game.users.get(userId);
    if (user && user !== game.user) user.active = active;
  };
  net.on("hello", (msg) => {
    seen(msg.userId);
    net.send("presence", { userId: game.user.id, to: msg.from });
    if (game.ready) net.send("snapshot", { to: msg.from, world: snapshot() });
  });
  net.on("presence", (msg) => seen(msg.userId));
  net.on("bye", (msg) => seen(msg.userId, false));
  window.addEventListener("pagehide", () => net.send("bye", { userId: game.user.id }));
}

/** Does a path the manifest names exist in the package at `base` (a pack: its LevelDB folder)? */
const existsIn = (base) => async (path, { directory } = {}) =>
  (await fetch(new URL(directory ? `${path}/CURRENT` : path, base), { method: "HEAD" })).ok;

/** A package refused or left inactive: the console, and for the GM an error that stays (where
 * Foundry shows it instead, its Setup screen and Manage Modules, is not imitated: README). */
function reportPackage(text) {
  console.error(`Sandbox | ${text}`);
  if (game.user.isGM) ui.notifications.error(text, { permanent: true, console: false });
}

/**
 * ?modules=<id>,<id>: the other modules enabled in this world, as Manage Modules enables them.
 * Each manifest (modules/<id>/module.json) is validated like Firefight's, and its id must be its
 * folder's name; a module whose required dependencies are not active stays inactive
 * (sandbox/foundry/packages.mjs `resolveModules`). Every valid one is in `game.modules` (active or
 * not). Returns the active ones in load order: [{manifest, base}].
 */
async function enableModules() {
  const ids = [...new Set((params.get("modules") ?? "").split(",").map((s) => s.trim()).filter((id) => id && id !== "firefight"))];
  const valid = [];
  const bases = new Map();
  for (const id of ids) {
    const base = new URL(`modules/${encodeURIComponent(id)}/`, location.href);
    let manifest;
    try {
      const res = await fetch(new URL("module.json", base));
      if (!res.ok) throw new Error(`modules/${id}/module.json: HTTP ${res.status} (not installed)`);
      manifest = await res.json();
    } catch (err) {
      reportPackage(`The module "${id}" could not be loaded: ${err.message}`);
      continue;
    }
    const errors = await manifestErrors(manifest, { exists: existsIn(base), folder: id });
    if (errors.length) {
      reportPackage(`The module "${id}" was refused: ${errors.join("; ")}`);
      continue;
    }
    valid.push(manifest);
    bases.set(id, base);
  }
  const { active, refused } = resolveModules(valid, { active: ["firefight"], systemId: game.system.id });
  for (const m of valid) game.modules.set(m.id, moduleEntry(m, active.includes(m)));
  for (const r of refused) reportPackage(r.error);
  return active.map((manifest) => ({ manifest, base: bases.get(manifest.id) }));
}

async function main() {
  installGlobals();
  trackPresence();
  const manifest = await fetchJSON(new URL("module.json", MODULE_BASE));
  // Foundry's server validates a package before it loads it (sandbox/foundry/packages.mjs).
  await validateManifest(manifest, { exists: existsIn(MODULE_BASE), folder: "firefight" });
  game.modules.set(manifest.id, moduleEntry(manifest, true));
  const others = await enableModules();
  const active = [{ manifest, base: MODULE_BASE }, ...others];
  // Every active package's languages, Firefight's first (English is each one's fallback).
  for (const { manifest: m, base } of active) await game.i18n.loadModuleLanguages(m, base);
  document.documentElement.lang = game.i18n.lang;
  for (const { manifest: m, base } of active) {
    for (const css of m.styles ?? []) {
      const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href: new URL(css, base).href });
      document.head.append(link);
    }
  }
  const world = await net.requestSnapshot(params.get("user") ? 600 : 300, { userId: game.user.id });
  const scene = world?.scene ? joinWorld(world) : await buildWorld(manifest);
  // Load the modules exactly as Foundry does: their esmodules, unchanged, before `init`.
  for (const path of manifest.esmodules ?? []) await import(new URL(path, MODULE_BASE).href);
  for (const { manifest: m, base } of others) {
    for (const path of m.esmodules ?? []) {
      try {
        await import(new URL(path, base).href);
      } catch (err) { // a script error: the console, and the other modules still load
        console.error(`Sandbox | the module ${m.id} failed to load ${path}`, err);
      }
    }
  }
  Hooks.callAll("init");
  Hooks.callAll("i18nInit");
  Hooks.callAll("setup");
  canvas.draw(scene);
  startPanel();
  startSidebar(manifest);
  ui.combat.render();
  for (const hook of ["updateActor", "controlToken"]) Hooks.on(hook, () => ui.combat.render());
  for (const data of world?.messages ?? []) await ChatMessage._onCreate(new ChatMessage(data), {}, data.author);
  document.body.dataset.user = game.user.name;
  document.body.classList.toggle("is-gm", game.user.isGM);
  game.ready = true;
  Hooks.callAll("ready");
}

main().catch((err) => {
  console.error(err);
  document.getElementById("engine-status").className = "pill failed";
  document.getElementById("engine-status").dataset.status = "failed";
  document.querySelector("#engine-status .text").textContent = `Sandbox failed: ${err.message}`;
});
