// Sandbox boot: install Foundry v13's client API surface as globals, build a world
// from the module's packs, load the module's esmodules from its manifest, then run
// init -> i18nInit -> setup -> canvasReady -> ready like Foundry does.
import * as utils from "./foundry/utils.mjs";
import { Hooks } from "./foundry/hooks.mjs";
import { Collection } from "./foundry/collection.mjs";
import { Roll, Die, NumericTerm, OperatorTerm } from "./foundry/dice.mjs";
import { Actor, Item, User, Scene, ChatMessage, TokenDocument } from "./foundry/documents.mjs";
import { ClientSettings } from "./foundry/settings.mjs";
import { Localization } from "./foundry/i18n.mjs";
import { Notifications, ChatLog } from "./foundry/ui.mjs";
import { DialogV2 } from "./foundry/dialog.mjs";
import { Canvas, SceneView } from "./foundry/canvas.mjs";
import { startPanel } from "./panel.mjs";

const MODULE_BASE = new URL("/modules/firefight/", location.href);
const PACK_API = "/sandbox-api/packs/";
// Where the pack actors stand (grid cells) and who owns them.
const LAYOUT = {
  ffH0rifleman0001: { col: 2, row: 7, player: true },
  ffH0officer00001: { col: 3, row: 11, player: true },
  ffC0venusRhino01: { col: 14, row: 3, player: false },
};

function installGlobals() {
  const users = new Collection();
  const gm = new User({ _id: "sandboxGamemastr", name: "Gamemaster", role: 4, color: "#d4a017" });
  const player = new User({ _id: "sandboxPlayer001", name: "Player", role: 1, color: "#2f7ed8" });
  users.set(gm.id, gm).set(player.id, player);
  Object.assign(globalThis, {
    Hooks, Roll, ChatMessage, Actor, Item, User, Scene, TokenDocument, Collection,
    foundry: {
      utils: { ...utils, Collection },
      applications: { api: { DialogV2 } },
      dice: { Roll, terms: { Die, NumericTerm, OperatorTerm } },
      documents: { Actor, Item, User, Scene, ChatMessage, TokenDocument },
    },
    CONFIG: {
      Dice: {
        rolls: [Roll], terms: { d: Die },
        randomUniform: () => crypto.getRandomValues(new Uint32Array(1))[0] / 2 ** 32,
      },
      sounds: { dice: null },
      ChatMessage: { documentClass: ChatMessage }, Actor: { documentClass: Actor }, Item: { documentClass: Item },
    },
    game: {
      ready: false, version: "13.sandbox", release: { generation: 13 },
      users, user: gm, userId: gm.id,
      settings: new ClientSettings(), i18n: new Localization("en"),
      modules: new Collection(), actors: new Collection(), scenes: new Collection(), messages: new Collection(),
    },
    ui: {
      notifications: new Notifications(document.getElementById("notifications")),
      chat: new ChatLog(document.getElementById("chat")),
    },
  });
  globalThis.canvas = new Canvas(new SceneView(document.getElementById("scene")));
}

async function fetchJSON(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

// The scene holds the actors of one pack: ?pack=<name> (default soe-actors); the other packs
// stay in the compendiums.
const SCENE_PACK = new URLSearchParams(location.search).get("pack") ?? "soe-actors";

async function buildWorld(manifest) {
  const actorPacks = manifest.packs.filter((p) => p.type === "Actor" && p.name === SCENE_PACK);
  if (!actorPacks.length) throw new Error(`no Actor pack named ${SCENE_PACK} in module.json`);
  const player = game.users.getName("Player");
  const tokens = [];
  for (const pack of actorPacks) {
    for (const data of await fetchJSON(PACK_API + pack.name)) {
      const place = LAYOUT[data._id] ?? { col: 2 + tokens.length * 3, row: 3, player: false };
      if (place.player) data.ownership = { ...data.ownership, [player.id]: 3 };
      const actor = new Actor(data);
      game.actors.set(actor.id, actor);
      const proto = data.prototypeToken ?? {};
      tokens.push({
        _id: `tok${actor.id.slice(3)}`, name: proto.name ?? actor.name, actorId: actor.id, actorLink: true,
        x: place.col * 100, y: place.row * 100, width: proto.width ?? 1, height: proto.height ?? 1,
        disposition: proto.disposition ?? 0, texture: { src: new URL(proto.texture?.src ?? actor.img, location.origin + "/").pathname },
      });
    }
  }
  const scene = new Scene({ _id: "sandboxScene0001", name: "Proving ground", cols: 18, rows: 14, active: true,
    grid: { type: 1, size: 100, distance: 5, units: "m" }, tokens });
  game.scenes.set(scene.id, scene);
  return scene;
}

async function main() {
  installGlobals();
  const manifest = await fetchJSON(new URL("module.json", MODULE_BASE));
  game.modules.set(manifest.id, { ...manifest, active: true });
  await game.i18n.loadModuleLanguages(manifest, MODULE_BASE);
  for (const css of manifest.styles ?? []) {
    const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href: new URL(css, MODULE_BASE).href });
    document.head.append(link);
  }
  const scene = await buildWorld(manifest);
  // Load the module exactly as Foundry does: its esmodules, unchanged.
  for (const path of manifest.esmodules ?? []) await import(new URL(path, MODULE_BASE).href);
  Hooks.callAll("init");
  Hooks.callAll("i18nInit");
  Hooks.callAll("setup");
  canvas.draw(scene);
  startPanel();
  game.ready = true;
  Hooks.callAll("ready");
}

main().catch((err) => {
  console.error(err);
  document.getElementById("engine-status").className = "pill failed";
  document.querySelector("#engine-status .text").textContent = `Sandbox failed: ${err.message}`;
});
