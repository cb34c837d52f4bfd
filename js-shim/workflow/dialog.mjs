// The dialog stage of every action, Shoot included: the weapon and its magazine, the figures, the
// fields generated from the action's schema (form.mjs), the house rules' options, the live odds
// and "Why" (odds.mjs), "Copy request", and "Place area" where the ruleset has it. Roll (Fire for
// the default action) goes through only when the request would be accepted; otherwise the dialog
// stays open and names the field at fault.
import { renderFields, readForm, escapeHTML } from "../core/form.mjs";
import { t, numberText, refusalText, errorText } from "../core/i18n.mjs";
import { houseSectionHTML } from "../world/house.mjs";
import { wireAmmo, roundsOf } from "../documents/ammo.mjs";
import { placeButton, placeFitsWeapon } from "../canvas/template.mjs";
import { actionLabel, ownActionLabel } from "./plan.mjs";
import { oddsBoxHTML, liveOdds, offerToFace } from "./odds.mjs";
import { copyRequestHTML, wireCopyRequest } from "./copy-request.mjs";
import { cardLanguage } from "./roll.mjs";
import { rulesetData } from "./request.mjs";
import { tableFeatures } from "../world/catalog.mjs";

const localize = (k) => game.i18n.localize(k);

/** A figure row's duck checkbox: PCs only, when the ruleset's cover declares a `duck` field the figures have. */
function duckCell(plan, f, i) {
  if (!plan.duck) return "";
  const label = t("FIREFIGHT.ui.cover.duck", "Duck");
  return `<td>${f.pc ? `<label class="checkbox"><input type="checkbox" name="duck.${i}"> ${escapeHTML(label)}</label>` : ""}</td>`;
}

function matchupHTML(ctx) {
  const { self, plan } = ctx;
  const others = plan.patient || plan.target ? ctx.targets : [];
  const names = [self ? `<strong>${escapeHTML(self.name)}</strong>` : "",
    others.map((tk) => `<strong data-target="${escapeHTML(tk.id ?? "")}">${escapeHTML(tk.name)}</strong>`).join(", ")].filter(Boolean);
  if (!names.length) return "";
  const range = ctx.range && others.length
    ? ` <span class="ff-range">${escapeHTML(numberText(Math.round(ctx.range.value * 10) / 10, cardLanguage()))} ${escapeHTML(ctx.range.units)}</span>` : "";
  return `<p class="ff-matchup">${names.join(" → ")}${range}</p>`;
}

function dialogHTML(ctx, odds) {
  const { plan, weapons, fields, values, figures, house } = ctx;
  const weaponRow = weapons?.length ? `<div class="form-group" data-field="weapon"><label for="firefight-weapon">${escapeHTML(t("FIREFIGHT.ui.dialog.weapon", "Weapon"))}</label>
    <div class="form-fields"><select id="firefight-weapon" name="weapon">${weapons.map((w, i) => `<option value="${i}">${escapeHTML(w.name)}</option>`).join("")}</select></div></div>
    <div class="form-group ff-ammo" data-firefight-ammo hidden></div>` : "";
  const placeChoices = plan.list?.place?.enum ?? [];
  const figureRows = (figures ?? []).map((f, i) => `<tr data-figure="${i}"><td>${escapeHTML(f.name)}</td>
      <td class="ff-num">${f.distance_m !== undefined ? `${escapeHTML(numberText(Math.round(f.distance_m * 10) / 10))} m` : "—"}</td>
      ${placeChoices.length ? `<td><select name="place.${i}">${placeChoices.map((p) => `<option value="${escapeHTML(p)}"${p === f.place ? " selected" : ""}>${escapeHTML(t(`FIREFIGHT.ui.actions.place.${p}`, p.replace(/_/g, " ")))}</option>`).join("")}</select></td>` : ""}${duckCell(plan, f, i)}</tr>`).join("");
  const table = figures?.length ? `<table class="ff-figures"><caption>${escapeHTML(t("FIREFIGHT.ui.actions.figures", "Figures"))}</caption>${figureRows}</table>` : "";
  const choices = `${weaponRow}${table}${renderFields(fields, values)}
    ${houseSectionHTML(house.rules, house.fields, values, { heading: t("FIREFIGHT.ui.dialog.houseRules", "House rules"), localize })}`;
  const label = ctx.isDefault ? t("FIREFIGHT.ui.dialog.hitChance", "Hit chance") : t("FIREFIGHT.ui.dialog.chance", "Chance");
  const outcome = `${odds ? oddsBoxHTML(label) : ""}<p class="ff-facing" data-firefight-facing hidden></p>${copyRequestHTML()}`;
  // A shot's options beside their outcome: both stay in view in a 1280x720 window (issue 16).
  const body = ctx.isDefault
    ? `<div class="ff-columns"><div class="ff-options">${choices}</div><div class="ff-outcome">${outcome}</div></div>`
    : `${choices}${outcome}`;
  return `<div class="firefight-action${ctx.isDefault ? " firefight-shot" : ""}" data-ruleset="${escapeHTML(ctx.ruleset)}" data-action="${escapeHTML(ctx.action)}">
    ${matchupHTML(ctx)}${body}
    <p class="ff-dialog-error" data-firefight-dialog-error role="alert" hidden></p></div>`;
}

/** Bring an open dialog to the front (ApplicationV2#bringToFront) and put the focus in it. */
export function bringForward(dialog) {
  dialog?.bringToFront?.();
  const el = dialog?.element;
  (el?.querySelector?.("select, input, button.default") ?? el)?.focus?.();
}

/**
 * Open an action's dialog. `odds(choice)` -> the odds reply of the request the choices make (or
 * null: no odds box); `requestNow(choice)` -> that request (Copy request); `validate(choice)` ->
 * null or the error that would refuse it; `mark.dialog` is set to the dialog once rendered.
 * Resolves the choice {values, weapon, places, ducks, place?} or null when cancelled.
 */
export async function actionDialog(engine, ctx, { odds, requestNow, validate, mark = null }) {
  const { weapons, fields, house, values } = ctx;
  const DialogV2 = foundry.applications.api.DialogV2;
  const read = (form) => {
    const out = { ...readForm(form, fields), ...readForm(form, house.fields) };
    const places = {};
    for (const el of form.querySelectorAll('select[name^="place."]')) places[Number(el.name.slice(6))] = el.value;
    const ducks = {};
    for (const el of form.querySelectorAll('input[name^="duck."]')) ducks[Number(el.name.slice(5))] = el.checked;
    const w = form.elements.namedItem("weapon");
    return { values: { ...values, ...out }, weapon: w ? weapons[Number(w.value)] ?? weapons[0] : weapons[0] ?? null, places, ducks };
  };
  const fire = ctx.isDefault;
  const result = await DialogV2.wait({
    window: fire
      // The default action's own label where its ruleset gives one (Duel's "Attack"), else "Fire!".
      ? { title: ownActionLabel(ctx.ruleset, ctx.action, localize) ?? t("FIREFIGHT.ui.dialog.title", "Fire!"), icon: "fa-solid fa-crosshairs" }
      : { title: actionLabel(ctx.ruleset, ctx.action, localize), icon: "fa-solid fa-person-rifle" },
    classes: ["firefight-dialog", "firefight-action-dialog"],
    position: { width: ctx.isDefault ? 760 : 460 },
    content: dialogHTML(ctx, odds),
    buttons: [
      fire
        ? { action: "fire", label: t("FIREFIGHT.ui.dialog.fire", "Fire"), icon: "fa-solid fa-crosshairs", default: true, callback: (event, button) => read(button.form) }
        : { action: "go", label: t("FIREFIGHT.ui.actions.go", "Roll"), icon: "fa-solid fa-dice", default: true, callback: (event, button) => read(button.form) },
      // Area fire at an area placed by hand, where the ruleset has it (template.mjs).
      ...[placeButton(ctx.ruleset, ctx.action, read)].filter(Boolean),
      { action: "cancel", label: t("FIREFIGHT.ui.dialog.cancel", "Cancel"), icon: "fa-solid fa-xmark" },
    ],
    render: (event, dialog) => {
      if (mark) mark.dialog = dialog ?? event?.target ?? null;
      const root = dialog?.element ?? event?.target?.element;
      const form = root?.querySelector("form") ?? root;
      if (!form) return;
      wireCopyRequest(form, () => requestNow(read(form)));
      // The chosen weapon's magazine, with the rounds each odds reply says the action fires.
      let showAmmo = () => {};
      let facing = () => {};
      let recheck = () => {};
      const refresh = odds ? liveOdds(form, async () => {
        const choice = read(form);
        const reply = await odds(choice);
        showAmmo(roundsOf(reply));
        facing(requestNow(choice), reply);
        recheck(); // the odds took the request: a refusal shown from Roll may be gone
        return reply;
      }) : null;
      showAmmo = wireAmmo(form, () => read(form).weapon, () => refresh?.());
      wirePlaceButton(root, form, ctx, () => read(form).weapon);
      // Facing the target would change the chance: said, with the owner's button to turn.
      if (ctx.self && ctx.targets[0]) facing = offerToFace(engine, form, ctx.self, ctx.targets[0], () => refresh?.());
      if (validate) recheck = checkBeforeRoll(root, form, () => validate(read(form)));
    },
    rejectClose: false,
  });
  return result && typeof result === "object" ? result : null;
}

/** "Place area" shown only while the chosen weapon fits it (template.mjs placeFitsWeapon). */
function wirePlaceButton(root, form, ctx, weapon) {
  const button = root.querySelector('[data-action="place"]');
  if (!button) return;
  const fit = () => {
    button.hidden = !placeFitsWeapon(tableFeatures(ctx.ruleset), ctx.action, rulesetData(weapon(), ctx.ruleset));
  };
  form.querySelector('select[name="weapon"]')?.addEventListener("change", fit);
  fit();
}

/**
 * Roll (the dialog's default button, by click or Enter) goes through only when `check()` finds
 * nothing wrong; otherwise the dialog stays open, the message under the form and the fields at
 * fault marked and named by their labels, the first one focused (a mistake costs no retyping).
 * Returns `recheck()`: while a refusal is shown, check again, and clear it once nothing is wrong
 * (the dialog calls it when the odds take a changed request).
 */
function checkBeforeRoll(root, form, check) {
  const go = root.querySelector('[data-action="go"], [data-action="fire"]');
  const box = root.querySelector("[data-firefight-dialog-error]");
  if (!go || !box) return () => {};
  let passed = false;
  const clear = () => {
    for (const el of form.querySelectorAll(".ff-invalid")) el.classList.remove("ff-invalid");
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  };
  go.addEventListener("click", async (ev) => {
    if (passed) return; // checked: on to the dialog's own handling
    ev.preventDefault();
    ev.stopImmediatePropagation();
    const err = await check();
    clear();
    if (!err) {
      box.hidden = true;
      passed = true;
      go.click();
      passed = false;
      return;
    }
    const groupOf = (path) => {
      for (const name of [String(path), String(path).split(".").slice(1).join("."), String(path).split(".").at(-1)]) {
        const group = name && form.querySelector(`.form-group[data-field="${CSS.escape(name)}"]`);
        if (group) return group;
      }
      return null;
    };
    const labelOf = (path) => groupOf(path)?.querySelector("label")?.textContent ?? "";
    const named = (err.fields ?? []).some((f) => f.reason || f.key); // the engine's: a reason per field
    box.textContent = named ? refusalText(err, labelOf) : errorText(err);
    box.hidden = false;
    const groups = (err.fields ?? []).map((f) => groupOf(f.field)).filter(Boolean);
    for (const group of groups) {
      group.classList.add("ff-invalid");
      group.querySelector("input, select, textarea")?.setAttribute("aria-invalid", "true");
    }
    (groups[0]?.querySelector("input, select, textarea") ?? go).focus();
  }, { capture: true });
  return async () => {
    if (box.hidden) return;
    if (await check()) return; // still refused: the line stays until Roll says it again
    box.hidden = true;
    clear();
  };
}
