// Firefight: the module entry Foundry loads (module.json "esmodules").
// Ruleset-agnostic glue between Foundry's client API and the Python engine; each job lives in
// a small module of its own (settings, apply, chat, sheet, items).
import { MODULE_ID } from "./core/config.mjs";
import { EngineClient } from "./engine/engine.mjs";
import { shoot, runAction } from "./workflow/workflow.mjs";
import { resolveWithEntropy } from "./workflow/roll.mjs";
import { reportError } from "./core/errors.mjs";
import { listenAsGM } from "./relay/gm.mjs";
import { onRenderChatMessage } from "./documents/chat.mjs";
import { Applier } from "./documents/apply.mjs";
import { registerCoreSettings, rulesetSettings } from "./world/settings.mjs";
import {
  registerCatalogSettings, mergeCachedStrings, applyCatalog, catalog, catalogReady, catalogLanguage,
  pluginWheels, reportPlugin, wheelFailure, tableFeatures, currentRuleset, keepWheel, keptWheels, rememberedWheels,
  missingRulesetText, catalogFromEngine,
} from "./world/catalog.mjs";
import { onRenderActorSheet, openFirefightSheet } from "./documents/sheet.mjs";
import { onPreCreateItem, onDropCanvasData } from "./documents/items.mjs";
import { onRenderItemSheet, itemSheetHooks } from "./documents/item-sheet.mjs";
import { t } from "./core/i18n.mjs";
import { installFeatures, addSheetActions } from "./canvas/features.mjs";
import { ChitActivation } from "./canvas/combat.mjs";
import { waitForEngine } from "./engine/boot-status.mjs";

const engine = new EngineClient(new URL("./engine/engine-worker.mjs", import.meta.url));
const applier = new Applier(engine);
const activation = new ChitActivation(engine, applier);
activation.listen();
// The modules/ folder (this file is modules/firefight/js-shim/firefight.mjs): other modules'
// wheels are at modules/<id>/<path>, derived like every URL of the shim.
const MODULES_BASE = new URL("../../", import.meta.url);
const wheelModule = new Map(); // plugin wheel URL -> the module that declares it

/** The engine's catalog (`hello`, or `rescan` after a wheel was loaded) put to use. */
async function loadCatalog(op) {
  return applyCatalog(await engine.call(op, { lang: catalogLanguage() }));
}

/** A wheel that failed to load, reported naming its module and file. */
function reportWheel(failure) {
  reportPlugin(wheelFailure(failure, wheelModule.get(failure?.url), MODULES_BASE));
}

// api.engine.loadWheel(url): the wheel in this engine and every restarted one, then `rescan`:
// new rulesets are choices at once, their settings registered, their strings merged.
engine.onWheel = async (loaded) => {
  if (!loaded?.loaded) {
    reportWheel(loaded ?? {});
    throw new Error(`Firefight: ${loaded?.url ?? "?"}: ${loaded?.error ?? "not loaded"}`);
  }
  // Kept in the world (a GM's load), so the next page load on every client has it too.
  await keepWheel(loaded.url, MODULES_BASE).catch((err) => console.error("Firefight | could not keep the wheel in the world:", err));
  return loadCatalog("rescan");
};
// The engine starts at `init` (as early as the plugin wheels are known); what it reads into the
// world (the catalog into world settings) waits for Foundry's `ready`.
let worldReady;
const foundryReady = new Promise((resolve) => (worldReady = resolve));
// Each boot (a restart too) reads the engine's catalog before the engine counts as ready, so
// "ready" means the rulesets, their settings and the plugins' strings are known.
engine.prepare = () => foundryReady.then(() => loadCatalog("hello")).catch((err) => reportError(err));
// Each boot (a restart too) reports the plugin wheels it could not load.
engine.addEventListener("status", () => {
  if (engine.status === "ready") for (const failure of engine.wheelErrors) reportWheel(failure);
});

/**
 * Wait until the world's rulesets are known (the cached catalog, else the engine's); a world that
 * never had a catalog and whose engine failed gets the engine's failure instead of waiting on.
 */
async function catalogKnown() {
  await Promise.race([catalogReady, engine.start().catch(() => {})]);
  if (!catalog().rulesets.length && engine.status === "failed") throw engine.failure;
  // The world's ruleset gone with its plugin: said plainly, before any request is made.
  const missing = catalogFromEngine() ? missingRulesetText(catalog(), currentRuleset()) : null;
  if (missing) throw new Error(missing);
}

/** The names of who shoots at whom, as far as the table tells already (the boot dialog's line). */
function matchupLine({ attacker, target } = {}) {
  const a = attacker ?? canvas?.tokens?.controlled?.[0];
  const b = target ?? [...(game.user?.targets ?? [])].find((tk) => tk !== a);
  return a && b ? `${a.name} → ${b.name}` : "";
}

async function shootAndApply(opts = {}) {
  // While the engine starts, the dialog opens at once with a progress line (boot-status.mjs).
  if (opts.dialog !== false && engine.status !== "ready" && !(await waitForEngine(engine, { matchup: matchupLine(opts) }))) return null;
  try {
    await catalogKnown();
  } catch (err) {
    reportError(err);
    return null;
  }
  // Shoot is the ruleset's default action on the one workflow (workflow/workflow.mjs), which
  // applies the result when the world says so.
  return shoot(engine, applier, opts);
}

const api = {
  engine,
  /** Open the shot dialog for the controlled token against the target. Resolves the ChatMessage or null. */
  shoot: shootAndApply,
  /** Exact hit chance for a request. */
  odds: (request) => engine.call("odds", { request }),
  /** Resolve a request with VTT entropy -> {result, html, text}. */
  resolve: (request) => resolveWithEntropy(engine, request),
  /** Apply a Firefight chat message's result (through the GM for a player); the GM may choose
   * {mode: "targets"|"selected", variant: "full"|"half"|"double"|"heal"}. */
  apply: (message, choice) => applier.request(typeof message === "string" ? game.messages.get(message) : message, choice),
  /** Undo an applied result (GM). */
  undo: (message) => applier.undo(typeof message === "string" ? game.messages.get(message) : message),
  /** The world's settings for a ruleset, as sent with every request. */
  settings: (ruleset = currentRuleset()) => rulesetSettings(ruleset),
  /** The world's ruleset (its setting, or the engine's default while none was chosen). */
  ruleset: () => currentRuleset(),
  /** The engine's catalog: rulesets, house rules, plugins, units (docs/architecture.md). */
  catalog: () => foundry.utils.deepClone(catalog()),
  /** Open an actor's Firefight data sheet. */
  sheet: (actor) => openFirefightSheet(engine, actor),
  /** Combat by chit pull: the drawn activation order of a combat, and ending its round on purpose. */
  combat: {
    activations: (combat = game.combat) => foundry.utils.deepClone(combat?.flags?.firefight?.activations ?? null),
    endRound: (combat = game.combat) => activation.endRound(combat),
    settled: () => activation.queue,
  },
  /**
   * Any action of the world's ruleset (no action: a picker): act("will_check", {actor, target,
   * targets, values, options, dialog, apply}). Resolves the ChatMessage carrying the result.
   */
  act: async (action, opts = {}) => {
    if (opts.dialog !== false && engine.status !== "ready" && !(await waitForEngine(engine, {
      title: t("FIREFIGHT.ui.actions.title", "Firefight actions"), icon: "fa-solid fa-person-rifle",
    }))) return null;
    try {
      await catalogKnown();
    } catch (err) {
      reportError(err);
      return null;
    }
    return runAction(engine, applier, action, opts);
  },
};
installFeatures(api, engine);

Hooks.once("init", () => {
  // The ruleset choice and every ruleset's and house rule's settings, from the world's cached
  // catalog (updated in place once the engine reports: catalog.mjs).
  registerCatalogSettings({ onRulesetChange: () => refreshControls() });
  registerCoreSettings();
  // Plugin wheels of the active modules, loaded by every boot after the engine's own.
  const { wheels, problems } = pluginWheels(Array.from(game.modules?.values?.() ?? []), MODULES_BASE);
  for (const problem of problems) reportPlugin(problem);
  for (const { module, url } of wheels) {
    wheelModule.set(url, module);
    if (!engine.wheels.includes(url)) engine.wheels.push(url);
  }
  // And the wheels a GM loaded at runtime, kept in the world (api.engine.loadWheel).
  for (const { module, url } of rememberedWheels(keptWheels(), MODULES_BASE)) {
    if (!wheelModule.has(url)) wheelModule.set(url, module);
    if (!engine.wheels.includes(url)) engine.wheels.push(url);
  }
  game.keybindings?.register?.(MODULE_ID, "shoot", {
    name: "FIREFIGHT.ui.keybinding.shoot.name",
    hint: "FIREFIGHT.ui.keybinding.shoot.hint",
    editable: [{ key: "KeyF", modifiers: ["Shift"] }],
    onDown: () => {
      api.shoot();
      return true;
    },
  });
  const mod = game.modules.get(MODULE_ID);
  if (mod) mod.api = api;
  // Boot Python now, as early as Foundry allows (the plugin wheels are known): it loads while
  // Foundry prepares the world, then imports the world's ruleset ahead. A failure is reported at
  // `ready`.
  engine.ruleset = currentRuleset() ?? "";
  engine.start()?.catch?.(() => {});
});

// Translations are loaded by now: the cached plugin strings go under them.
Hooks.once("i18nInit", () => mergeCachedStrings());

Hooks.once("setup", () => {
  applier.listen();
  listenAsGM(engine);
});

Hooks.once("ready", () => {
  worldReady();
  // Python has been booting since `init`; a shot fired meanwhile waits.
  engine.start().then(
    () => Hooks.callAll("firefightReady", api),
    (err) => reportError(err),
  );
});

Hooks.on("renderChatMessageHTML", (message, html) => {
  try {
    onRenderChatMessage(message, html, { applier });
  } catch (err) {
    console.error("Firefight |", err);
  }
});

for (const hook of ["renderActorSheetV2", "renderActorSheet"]) {
  Hooks.on(hook, (sheet, html) => {
    try {
      onRenderActorSheet(engine, sheet, html);
      addSheetActions(api, html instanceof HTMLElement ? html : html?.[0] ?? sheet?.element, sheet?.actor ?? sheet?.document);
    } catch (err) {
      console.error("Firefight |", err);
    }
  });
}

Hooks.on("preCreateItem", (item, data, options, userId) => onPreCreateItem(item, data, options, userId));
// The Firefight tab on item sheets: the render hooks of the world's system's item sheets.
Hooks.once("init", () => {
  for (const hook of itemSheetHooks()) {
    Hooks.on(hook, (sheet, html) => {
      try {
        onRenderItemSheet(engine, sheet, html);
      } catch (err) {
        console.error("Firefight |", err);
      }
    });
  }
});
Hooks.on("dropCanvasData", (canvasObj, data) => onDropCanvasData(canvasObj, data));

// A crosshair button on the token HUD opens the shot dialog for that token.
Hooks.on("renderTokenHUD", (hud, html) => {
  const root = html instanceof HTMLElement ? html : html?.[0];
  const col = root?.querySelector?.(".col.right");
  if (!col || col.querySelector("[data-firefight-action=shoot]")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "control-icon";
  button.dataset.firefightAction = "shoot";
  button.dataset.tooltip = t("FIREFIGHT.ui.shoot", "Shoot");
  button.setAttribute("aria-label", t("FIREFIGHT.ui.shoot", "Shoot"));
  button.innerHTML = '<i class="fa-solid fa-crosshairs"></i>';
  button.addEventListener("click", (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    const token = hud.object ?? hud.token;
    api.shoot(token ? { attacker: token } : {});
  });
  col.append(button);
});

// The tools below depend on the ruleset's table features: a new catalog or another ruleset has
// Foundry collect them again (v13 SceneControls#render({reset: true}) calls getSceneControlButtons
// anew; a plain render only refreshes the tools it has: as the Dice Tray module (dice-calculator)
// re-renders the controls when its setting changes).
// Another ruleset: the `ruleset` setting's onChange (registerCatalogSettings above), which also
// sees the world's first choice (a new Setting document fires createSetting, not updateSetting).
const refreshControls = () => ui.controls?.render?.({ reset: true });
Hooks.on("firefight.rulesetsChanged", refreshControls);

// Scene controls (Foundry v13): "Firefight actions" on the token controls; the referee's clock.
Hooks.on("getSceneControlButtons", (controls) => {
  const tools = controls?.tokens?.tools;
  if (!tools || tools.firefightActions) return;
  tools.firefightActions = {
    name: "firefightActions", title: "FIREFIGHT.ui.actions.title", icon: "fa-solid fa-person-rifle",
    order: Object.keys(tools).length, button: true, onChange: () => api.act(),
  };
  tools.firefightAdvanceTime = {
    name: "firefightAdvanceTime", title: "FIREFIGHT.ui.actions.clock.advance", icon: "fa-solid fa-clock",
    order: Object.keys(tools).length, button: true,
    visible: Boolean(game.user?.isGM) && Boolean(tableFeatures(currentRuleset()).healing),
    onChange: () => api.act("advance_time"),
  };
});
