// Firefight: the module entry Foundry loads (module.json "esmodules").
// Ruleset-agnostic glue between Foundry's client API and the Python engine; each job lives in
// a small module of its own (settings, apply, chat, sheet, items).
import { MODULE_ID, RULESET_CHOICES, tableFeatures } from "./config.mjs";
import { EngineClient } from "./engine.mjs";
import { shoot, resolveWithEntropy, reportError, currentRuleset } from "./shoot.mjs";
import { onRenderChatMessage } from "./chat.mjs";
import { Applier } from "./apply.mjs";
import { registerCoreSettings, registerRulesetSettings, rulesetSettings } from "./settings.mjs";
import { onRenderActorSheet, openFirefightSheet } from "./sheet.mjs";
import { onPreCreateItem, onDropCanvasData } from "./items.mjs";
import { t } from "./i18n.mjs";
import { runAction } from "./actions.mjs";
import { installFeatures, addSheetActions } from "./features.mjs";
import { ChitActivation } from "./combat.mjs";

const engine = new EngineClient(new URL("./engine-worker.mjs", import.meta.url));
const applier = new Applier(engine);
const activation = new ChitActivation(engine, applier);
activation.listen();
let settingsReady = null;

async function shootAndApply(opts) {
  await settingsReady;
  const message = await shoot(engine, opts);
  if (message && game.settings.get(MODULE_ID, "autoApply")) await applier.request(message);
  return message;
}

const api = {
  engine,
  /** Open the shot dialog for the controlled token against the target. Resolves the ChatMessage or null. */
  shoot: shootAndApply,
  /** Exact hit chance for a request. */
  odds: (request) => engine.call("odds", { request }),
  /** Resolve a request with VTT entropy -> {result, html, text}. */
  resolve: (request) => resolveWithEntropy(engine, request),
  /** Apply a Firefight chat message's result (through the GM for a player). */
  apply: (message) => applier.request(typeof message === "string" ? game.messages.get(message) : message),
  /** Undo an applied result (GM). */
  undo: (message) => applier.undo(typeof message === "string" ? game.messages.get(message) : message),
  /** The world's settings for a ruleset, as sent with every request. */
  settings: (ruleset = currentRuleset()) => rulesetSettings(ruleset),
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
    await settingsReady;
    return runAction(engine, applier, action, opts);
  },
};
installFeatures(api, engine, Object.keys(RULESET_CHOICES));

Hooks.once("init", () => {
  registerCoreSettings();
  // Ruleset settings come from runtime/schemas.json: registered as soon as it is read.
  settingsReady = registerRulesetSettings(engine).catch((err) => reportError(err));
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
});

Hooks.once("setup", () => {
  applier.listen();
});

Hooks.once("ready", () => {
  // Boot Python as soon as the world is ready; a shot fired meanwhile waits.
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
    visible: Boolean(game.user?.isGM) && Boolean(tableFeatures(game.settings.get(MODULE_ID, "ruleset")).healing),
    onChange: () => api.act("advance_time"),
  };
});
