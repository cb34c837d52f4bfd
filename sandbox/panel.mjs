// Sandbox side panel: shows shooter / target / range and the engine state,
// and the Shoot button calls the module's API like a macro or HUD button would.
import { escapeHTML } from "./foundry/utils.mjs";
import { packDocuments } from "./foundry/documents.mjs";

function weaponsLine(actor, ruleset) {
  const items = actor?.items?.contents ?? [];
  const names = (cat) => items.filter((i) => i.flags?.firefight?.[ruleset]?.category === cat
    && (cat !== "armor" || i.flags.firefight.equipped)).map((i) => i.name);
  const w = names("weapon");
  const a = names("armor");
  return [w.length ? `Weapon: ${w.join(", ")}` : "", a.length ? `Armor: ${a.join(", ")}` : ""].filter(Boolean).join("<br>");
}

function setStep(id, done, html) {
  const li = document.getElementById(id);
  li.classList.toggle("done", done);
  const v = li.querySelector(".value");
  v.innerHTML = done ? html : escapeHTML(v.dataset.empty ?? "—");
}

export function refreshPanel() {
  const ruleset = game.settings.get("firefight", "ruleset");
  const a = canvas.tokens.controlled[0];
  const b = [...game.user.targets].find((t) => t !== a);
  setStep("step-shooter", Boolean(a), a ? `<strong>${escapeHTML(a.name)}</strong><small>${weaponsLine(a.actor, ruleset)}</small>` : "");
  setStep("step-target", Boolean(b), b ? `<strong>${escapeHTML(b.name)}</strong><small>${weaponsLine(b.actor, ruleset)}</small>` : "");
  // The target selected too (a double-click to read its sheet selects it): still targeted, so
  // say so; "Right-click a token" here would untarget it (a second targeting toggles it off).
  if (!b && a?.isTargeted) {
    document.querySelector("#step-target .value").innerHTML = `<strong>${escapeHTML(a.name)}</strong><small data-target-selected>targeted, and selected now: click your shooter</small>`;
  }
  const range = a && b ? canvas.grid.measurePath([a.center, b.center]).euclidean : null; // as the shot measures it
  const rangeLi = document.getElementById("step-range");
  rangeLi.classList.toggle("done", range !== null);
  rangeLi.querySelector(".value").textContent = range !== null ? `${Math.round(range * 10) / 10} ${canvas.grid.units}` : "—";
  const button = document.getElementById("shoot-button");
  const hint = document.getElementById("shoot-hint");
  const engine = game.modules.get("firefight")?.api?.engine;
  button.disabled = !(a && b) || engine?.status === "failed";
  hint.textContent = shootHint(a, b, engine);
}

/** What the Shoot button would do now; a failed engine first (the button is disabled then). */
function shootHint(a, b, engine) {
  if (!engine) return "The Firefight module did not start (see the top bar): nothing can be shot.";
  if (engine.status === "failed") {
    // The engine's own message (a failed boot, or too many restarts), as the Shoot dialog says it.
    const why = engine.failure?.message ?? `The engine failed: ${engine.bootError ?? "unknown reason"}`;
    return `${/[.!?…]$/.test(why) ? why : `${why}.`} Reload the page (↺ Reset), or press Shift+F with a shooter and a target for Try again.`;
  }
  if (!a) return "Click the token who shoots.";
  if (!b) return "Right-click the token to shoot at.";
  if (engine.status === "ready") return "Ready: choose weapon and options in the dialog.";
  if (engine.status === "idle") return "The engine is stopped; your shot will start it.";
  return "The engine is still starting; your shot will wait for it.";
}

function watchEngine() {
  const pill = document.getElementById("engine-status");
  const text = pill.querySelector(".text");
  const api = game.modules.get("firefight")?.api;
  const set = (status, label) => {
    pill.className = `pill ${status}`;
    pill.dataset.status = status;
    text.textContent = label;
    refreshPanel();
  };
  if (!api?.engine) return set("failed", "Module API missing");
  const engine = api.engine;
  let t0 = performance.now();
  // The client's status, kept up through restarts (EngineClient dispatches "status").
  const show = () => {
    if (engine.status === "booting") {
      t0 = performance.now();
      set("booting", engine.restarts ? "Engine restarting…" : "Engine starting…");
    } else if (engine.status === "ready") {
      set("ready", `Engine ready (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    } else if (engine.status === "failed") {
      // bootError is the reason alone (no doubled prefix); a long one is cut, whole in the title.
      set("failed", `Engine failed: ${engine.bootError ?? "unknown reason"}`);
      pill.title = text.textContent;
    }
  };
  engine.addEventListener?.("status", show);
  set("booting", "Engine starting…");
  engine.start().then(show, show);
}

export function startPanel() {
  for (const hook of ["controlToken", "targetToken", "updateToken", "updateActor"]) {
    Hooks.on(hook, () => {
      if (hook === "updateActor") canvas.tokens.refresh();
      refreshPanel();
    });
  }
  Hooks.on("updateToken", () => canvas.tokens.refresh());
  Hooks.once("ready", watchEngine);
  document.getElementById("shoot-button").addEventListener("click", () => game.modules.get("firefight").api.shoot());
  addActionButtons();
  ui.controls.onReset = addActionButtons;
  document.getElementById("reset-button").addEventListener("click", () => location.reload());
  showRuleset();
  // The ruleset's name is known once the engine's catalog is (a fresh world shows its id before).
  Hooks.on("firefight.rulesetsChanged", showRuleset);
  // A world setting's first value creates its Setting document (createSetting), later ones update it.
  const onRuleset = (setting) => {
    if (setting?.key !== "firefight.ruleset") return;
    showRuleset();
    refreshPanel();
    // A page left meanwhile (a reload) aborts the pack fetch: not an error of the table's.
    tableForRuleset(setting.value).catch((err) => console.warn("sandbox | table for ruleset:", err));
  };
  Hooks.on("createSetting", onRuleset);
  Hooks.on("updateSetting", onRuleset);
  refreshPanel();
}

function showRuleset() {
  const rid = game.settings.get("firefight", "ruleset");
  const label = document.getElementById("ruleset-label");
  label.textContent = game.i18n.localize(game.settings._choicesOf("firefight.ruleset")?.[rid] ?? rid);
  label.title = label.textContent; // the top bar may cut it (sandbox.css): whole on hover
}

/**
 * Choosing the world's ruleset gives a ready table for it: when no actor on the scene has data
 * for it, the page reloads with the first of the world system's actor packs whose actors do
 * (?pack=), as a referee would drag that pack's actors onto the scene.
 */
async function tableForRuleset(ruleset) {
  if (!ruleset || !game.user.isGM || canvas.tokens.placeables.some((t) => t.actor?.flags?.firefight?.[ruleset])) return;
  const manifest = game.modules.get("firefight");
  for (const pack of manifest?.packs ?? []) {
    if (pack.type !== "Actor" || (pack.system && pack.system !== game.system.id)) continue;
    const docs = await packDocuments(pack.name);
    if (!docs.some((d) => d.flags?.firefight?.[ruleset])) continue;
    const url = new URL(location.href);
    url.searchParams.set("pack", pack.flags?.firefight?.source ?? pack.name);
    ui.notifications.info(`${game.i18n.localize(pack.label)}: a scene for this ruleset`);
    location.assign(url.href);
    return;
  }
}

/** The scene-control tools Firefight adds (getSceneControlButtons), as buttons under Shoot. */
function addActionButtons() {
  const controls = { tokens: { name: "tokens", tools: {} } };
  Hooks.callAll("getSceneControlButtons", controls);
  const tools = Object.values(controls.tokens.tools).filter((tool) => tool.visible !== false)
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  document.querySelector("#shot-panel .scene-tools")?.remove();
  if (!tools.length) return;
  const row = document.createElement("div");
  row.className = "scene-tools";
  for (const tool of tools) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "ghost scene-tool";
    b.dataset.tool = tool.name;
    b.textContent = game.i18n.localize(tool.title);
    b.addEventListener("click", (ev) => tool.onChange?.(ev, true));
    row.append(b);
  }
  document.getElementById("shoot-hint").after(row);
}
