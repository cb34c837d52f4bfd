// Firefight: the module entry Foundry loads (module.json "esmodules").
// Ruleset-agnostic glue between Foundry's client API and the Python engine.
import { MODULE_ID, DEFAULT_RULESET, RULESET_CHOICES } from "./config.mjs";
import { EngineClient } from "./engine.mjs";
import { shoot, resolveWithEntropy, reportError } from "./shoot.mjs";
import { onRenderChatMessage } from "./chat.mjs";
import { t } from "./i18n.mjs";

const engine = new EngineClient(new URL("./engine-worker.mjs", import.meta.url));

const api = {
  engine,
  /** Open the shot dialog for the controlled token against the target. */
  shoot: (opts) => shoot(engine, opts),
  /** Exact hit chance for a request. */
  odds: (request) => engine.call("odds", { request }),
  /** Resolve a request with VTT entropy -> {result, html, text}. */
  resolve: (request) => resolveWithEntropy(engine, request),
};

Hooks.once("init", () => {
  game.settings.register(MODULE_ID, "ruleset", {
    name: "FIREFIGHT.ui.settings.ruleset.name",
    hint: "FIREFIGHT.ui.settings.ruleset.hint",
    scope: "world",
    config: true,
    type: String,
    choices: RULESET_CHOICES,
    default: DEFAULT_RULESET,
  });
  game.settings.register(MODULE_ID, "debug", {
    name: "FIREFIGHT.ui.settings.debug.name",
    hint: "FIREFIGHT.ui.settings.debug.hint",
    scope: "client",
    config: true,
    type: Boolean,
    default: false,
  });
  const mod = game.modules.get(MODULE_ID);
  if (mod) mod.api = api;
});

Hooks.once("ready", () => {
  // Boot Python as soon as the world is ready; a shot fired meanwhile waits.
  engine.start().then(
    () => Hooks.callAll("firefightReady", api),
    (err) => reportError(err),
  );
});

Hooks.on("renderChatMessageHTML", (message, html, context) => {
  try {
    onRenderChatMessage(message, html, context);
  } catch (err) {
    console.error("Firefight |", err);
  }
});

// A crosshair button on the token HUD opens the shot dialog.
Hooks.on("renderTokenHUD", (hud, html) => {
  const root = html instanceof HTMLElement ? html : html?.[0];
  const col = root?.querySelector?.(".col.right");
  if (!col) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "control-icon";
  button.dataset.tooltip = t("FIREFIGHT.ui.shoot", "Shoot");
  button.innerHTML = '<i class="fa-solid fa-crosshairs"></i>';
  button.addEventListener("click", () => api.shoot());
  col.append(button);
});
