// The odds box of an action's dialog: the headline chance, every outcome's chance and "Why" (the
// modifiers by step), kept live as the form changes; and the offer to face the target.
import { escapeHTML, oddsBreakdown, percentText } from "../core/form.mjs";
import { t, refusalText } from "../core/i18n.mjs";
import { currentRuleset } from "../world/catalog.mjs";
import { cardLanguage } from "./roll.mjs";

/**
 * The headline chance in the client's language (the exact fraction goes in a tooltip: issue 16,
 * no raw fractions). A shot of several rolls (the odds' `rolls`) says its chance is per roll and
 * that the outcomes below are for the whole shot; the modifiers' totals are in "Why", per step.
 */
function formatOdds(odds) {
  const rolls = Number.isInteger(odds.rolls) && odds.rolls > 1 ? odds.rolls : 0;
  const detail = rolls ? t("FIREFIGHT.ui.dialog.rolls", "per roll; this shot makes {n} {n:roll|rolls}: the outcomes are for all of them", { n: rolls }) : "";
  return { pct: percentText(odds.probability, cardLanguage(), odds.exact), detail };
}

/** A step's name for the "Why" tables: the ruleset's own step label (`FIREFIGHT.<id>.step.<step>`, as the card's). */
function stepName(step) {
  const key = `FIREFIGHT.${currentRuleset()}.step.${step}`;
  const text = t(key, "");
  return text && text !== key ? text : String(step).replace(/_/g, " ");
}

const WHY_KEY = "firefight.whyOpen";

/** Whether the "Why" section starts open: yes on first use, then as the user left it (this browser). */
function whyOpen() {
  try {
    return globalThis.localStorage?.getItem(WHY_KEY) !== "0";
  } catch {
    return true;
  }
}

/**
 * The odds box of a dialog: the headline chance (a polite live region), then every outcome's
 * chance and a collapsible "Why" (modifiers with their sources, notes) that `showOdds` fills.
 */
export function oddsBoxHTML(label = t("FIREFIGHT.ui.dialog.hitChance", "Hit chance")) {
  return `<div class="ff-odds" data-firefight-odds aria-live="polite">
    <span class="ff-odds-label">${escapeHTML(label)}</span>
    <span class="ff-odds-value" data-odds-value>…</span>
    <span class="ff-odds-detail" data-odds-detail></span>
  </div>
  <div class="ff-breakdown" data-firefight-breakdown>
    <div class="ff-outcome-list" data-odds-outcomes></div>
    <details class="ff-why" data-odds-why${whyOpen() ? " open" : ""}><summary>${escapeHTML(t("FIREFIGHT.ui.dialog.why", "Why"))}</summary>
      <div class="ff-why-body" data-odds-why-body></div></details>
  </div>`;
}

/** Remember whether the user keeps "Why" open. */
function watchWhy(root) {
  const why = root?.querySelector?.("[data-odds-why]");
  why?.addEventListener("toggle", () => {
    try {
      globalThis.localStorage?.setItem(WHY_KEY, why.open ? "1" : "0");
    } catch {
      // storage off: it opens again next time
    }
  });
}

/**
 * Keep a dialog's odds box live: `compute()` -> the odds of what the form says now, asked again
 * on every change (a number as it is typed); only the latest answer is shown.
 */
export function liveOdds(form, compute) {
  let seq = 0;
  const refresh = async () => {
    const mine = ++seq;
    const out = form.querySelector("[data-firefight-odds]");
    out?.classList.add("pending");
    try {
      const odds = await compute();
      if (mine === seq) showOdds(form, odds);
    } catch (err) {
      if (mine === seq) showOdds(form, null, err);
    } finally {
      if (mine === seq) out?.classList.remove("pending");
    }
  };
  watchWhy(form);
  form.addEventListener("change", refresh);
  form.addEventListener("input", (ev) => { if (ev.target.type === "number") refresh(); });
  refresh();
  return refresh;
}

/** Render an `odds` reply (or the error it failed with) into a dialog's odds box. */
export function showOdds(root, odds, err = null) {
  const out = root?.querySelector?.("[data-firefight-odds]");
  if (!out) return;
  const outcomes = root.querySelector("[data-odds-outcomes]");
  const why = root.querySelector("[data-odds-why-body]");
  if (err) {
    out.hidden = false;
    out.querySelector("[data-odds-value]").textContent = "—";
    out.querySelector("[data-odds-value]").removeAttribute("title");
    // The fields at fault by the dialog's own labels, in the client's language.
    const labelOf = (path) => root.querySelector?.(`.form-group[data-field="${CSS.escape(path)}"] label`)?.textContent ?? "";
    out.querySelector("[data-odds-detail]").textContent = refusalText(err, labelOf);
    out.classList.add("error");
    if (outcomes) outcomes.innerHTML = "";
    if (why) why.innerHTML = "";
    return;
  }
  // An action without a chance has empty odds: no box.
  const none = !odds || (typeof odds.probability !== "number" && !odds.outcomes?.length);
  out.hidden = none;
  root.querySelector("[data-firefight-breakdown]")?.toggleAttribute("hidden", none);
  if (none) return;
  // The action's own title for its chance (the engine's `label_key`: Action.odds_label_key), else the box's.
  const label = out.querySelector(".ff-odds-label");
  if (label) {
    label.dataset.defaultLabel ??= label.textContent;
    label.textContent = odds.label_key ? t(odds.label_key, label.dataset.defaultLabel) : label.dataset.defaultLabel;
  }
  const f = formatOdds(odds);
  const value = out.querySelector("[data-odds-value]");
  value.textContent = f.pct;
  if (odds.exact) value.title = t("FIREFIGHT.ui.dialog.exact", "exactly {fraction}", { fraction: odds.exact });
  out.querySelector("[data-odds-detail]").textContent = f.detail;
  out.dataset.probability = String(odds.probability);
  out.classList.remove("error");
  const parts = oddsBreakdown(odds, {
    format: (k, p) => t(k, k, p),
    lang: cardLanguage(),
    labels: {
      outcome: t("FIREFIGHT.ui.dialog.outcome", "Outcome"), chance: t("FIREFIGHT.ui.dialog.chance", "Chance"),
      modifier: t("FIREFIGHT.ui.dialog.modifier", "Modifier"), value: t("FIREFIGHT.ui.dialog.value", "Value"),
      source: t("FIREFIGHT.ui.dialog.source", "Source"), notes: t("FIREFIGHT.ui.dialog.notes", "Notes"),
      noModifiers: t("FIREFIGHT.ui.dialog.noModifiers", "No modifiers"),
      exact: t("FIREFIGHT.ui.dialog.exact", "exactly {fraction}"),
      total: t("FIREFIGHT.ui.dialog.total", "Total"),
      step: stepName,
    },
  });
  if (outcomes) outcomes.innerHTML = parts.outcomes;
  if (why) why.innerHTML = parts.why;
  root.querySelector("[data-odds-why]")?.toggleAttribute("hidden", !parts.why);
}

/**
 * Where the shot's options carry the shooter's facing (`bearing_deg`, filled from the token's
 * rotation: features.mjs), and facing the target would change the chance, the dialog says so and
 * offers to turn the shooter (its owner's button): a token dropped on the scene faces south, so
 * a first shot along a row was hasty fire without a word (UX walkthrough 3 #12).
 * -> show(request, odds), called with each odds reply.
 */
export function offerToFace(engine, form, a, b, refresh) {
  const box = form.querySelector("[data-firefight-facing]");
  const field = form.querySelector('[name="opt.options.bearing_deg"]');
  if (!box) return () => {};
  let asked = 0;
  return async (request, odds) => {
    const mine = ++asked;
    const bearing = request?.options?.bearing_deg;
    let faced = null;
    if (typeof bearing === "number" && Math.abs(bearing) >= 1 && typeof odds?.probability === "number") {
      const turned = structuredClone(request);
      turned.options.bearing_deg = 0;
      faced = await engine.call("odds", { request: turned }).catch(() => null);
    }
    if (mine !== asked) return;
    if (!faced || faced.probability === odds.probability) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const text = document.createElement("span");
    text.textContent = t("FIREFIGHT.ui.dialog.facing", "{name} faces {degrees}° away from {target}; facing it, the hit chance would be {chance}.",
      { name: a.name, target: b.name, degrees: Math.round(Math.abs(bearing)), chance: percentText(faced.probability, cardLanguage()) });
    box.replaceChildren(text);
    if (a.document?.isOwner ?? a.isOwner) {
      const turn = document.createElement("button");
      turn.type = "button";
      turn.dataset.firefightAction = "face-target";
      turn.textContent = t("FIREFIGHT.ui.dialog.turn", "Turn to face {target}", { target: b.name });
      turn.addEventListener("click", async () => {
        turn.disabled = true;
        const rotation = (((a.document?.rotation ?? 0) + bearing) % 360 + 360) % 360;
        await a.document.update({ rotation });
        if (field) field.value = "0";
        refresh();
      });
      box.append(turn);
    }
    box.hidden = false;
  };
}

