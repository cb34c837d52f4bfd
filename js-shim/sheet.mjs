// The Firefight tab on any system's actor sheet (or a section, when the sheet has no tabs):
// the actor's data for the world's ruleset as a form generated from the ruleset's `stats`
// schema, worn armor, weapons, conditions and token statuses. Saving validates through the
// engine ("apply" with no effects), which names the field that is wrong.
import { MODULE_ID } from "./config.mjs";
import { t } from "./i18n.mjs";
import { fieldsFromSchema, renderFields, readForm, escapeHTML } from "./form.mjs";
import { statsSchema } from "./settings.mjs";
import { flagUpdate } from "./apply.mjs";
import { itemsByCategory } from "./request.mjs";
import { currentRuleset } from "./shoot.mjs";

const localize = (k) => game.i18n.localize(k);

/** Fields the dialog form cannot show (objects, arrays): edited as JSON. */
function jsonFields(schema, simple) {
  const names = new Set(simple.map((f) => f.name));
  return Object.entries(schema?.properties ?? {}).filter(([name]) => !names.has(name))
    .map(([name, node]) => ({ name, label: node["x-label-key"] ? localize(node["x-label-key"]) : node.title ?? name }));
}

function conditionText(c) {
  const key = c.label_key;
  let text = key ? t(key, key, c.params ?? {}) : "";
  if (!text || text === key) text = [c.kind, c.value ?? ""].filter(Boolean).join(": ");
  return text;
}

/** The tab's HTML for an actor (pure given its inputs). */
export function sectionHTML(actor, ruleset, schema) {
  const ff = actor.flags?.[MODULE_ID] ?? {};
  const stats = ff[ruleset];
  const editable = Boolean(actor.isOwner ?? game.user?.isGM);
  const heading = `<h3 class="ff-sheet-ruleset">${escapeHTML(localize(`FIREFIGHT.${ruleset}.name`))}</h3>`;
  if (!stats) {
    return `${heading}<p class="ff-sheet-missing">${escapeHTML(t("FIREFIGHT.ui.sheet.noData", "{name} has no Firefight data for this ruleset.", { name: actor.name }))}</p>
      ${editable ? `<button type="button" data-firefight-action="sheet-init">${escapeHTML(t("FIREFIGHT.ui.sheet.addData", "Add Firefight data"))}</button>` : ""}`;
  }
  // Schema descriptions are the engine's English notes, not lang keys: no hints here.
  const fields = (schema ? fieldsFromSchema(schema, localize, { auto: t("FIREFIGHT.ui.dialog.auto", "auto") }) : [])
    .map((f) => ({ ...f, hint: "" }));
  const values = {};
  for (const f of fields) values[f.name] = stats[f.name] ?? f.default ?? "";
  const extra = jsonFields(schema, fields).map((f) => `<div class="form-group" data-field="${escapeHTML(f.name)}">
      <label for="ff-json-${escapeHTML(f.name)}">${escapeHTML(f.label)}</label>
      <div class="form-fields"><input type="text" id="ff-json-${escapeHTML(f.name)}" name="json.${escapeHTML(f.name)}" value="${escapeHTML(stats[f.name] === undefined || stats[f.name] === null ? "" : JSON.stringify(stats[f.name]))}"></div></div>`).join("");
  const armor = itemsByCategory(actor, ruleset, "armor").map((i) => `<li data-item-id="${escapeHTML(i.id)}">
      <label><input type="checkbox" data-firefight-action="sheet-equip"${i.flags?.[MODULE_ID]?.equipped ? " checked" : ""}${editable ? "" : " disabled"}> ${escapeHTML(i.name)}</label></li>`).join("");
  const weapons = itemsByCategory(actor, ruleset, "weapon").map((i) => `<li>${escapeHTML(i.name)}</li>`).join("");
  const conditions = (ff.conditions ?? []).map((c, i) => `<li data-index="${i}">${escapeHTML(conditionText(c))}
      ${game.user?.isGM ? `<button type="button" class="ff-icon" data-firefight-action="sheet-clear-condition" aria-label="${escapeHTML(t("FIREFIGHT.ui.sheet.clear", "Clear"))}">✕</button>` : ""}</li>`).join("");
  const statuses = [...(actor.statuses ?? [])].map((s) => `<li class="ff-status">${escapeHTML(s)}</li>`).join("");
  const none = `<li class="ff-none">${escapeHTML(t("FIREFIGHT.ui.sheet.none", "none"))}</li>`;
  return `${heading}
    <div class="ff-sheet-form" data-ruleset="${escapeHTML(ruleset)}">${renderFields(fields, values)}${extra}</div>
    <p class="ff-sheet-error" data-firefight-error hidden></p>
    ${editable ? `<button type="button" data-firefight-action="sheet-save"><i class="fa-solid fa-floppy-disk" aria-hidden="true"></i> ${escapeHTML(t("FIREFIGHT.ui.sheet.save", "Save Firefight data"))}</button>` : ""}
    <div class="ff-sheet-lists">
      <section><h4>${escapeHTML(t("FIREFIGHT.ui.sheet.armor", "Worn armor"))}</h4><ul class="ff-sheet-armor">${armor || none}</ul></section>
      <section><h4>${escapeHTML(t("FIREFIGHT.ui.sheet.weapons", "Weapons"))}</h4><ul class="ff-sheet-weapons">${weapons || none}</ul></section>
      <section><h4>${escapeHTML(t("FIREFIGHT.ui.sheet.conditions", "Conditions"))}</h4><ul class="ff-sheet-conditions">${conditions || none}</ul></section>
      <section><h4>${escapeHTML(t("FIREFIGHT.ui.sheet.statuses", "Token statuses"))}</h4><ul class="ff-sheet-statuses">${statuses || none}</ul></section>
    </div>`;
}

/** Read the form back into stats; throws with the field named on unreadable JSON. */
function readStats(root, schema, before) {
  const fields = fieldsFromSchema(schema ?? {}, localize);
  const values = readForm({ elements: { namedItem: (n) => root.querySelector(`[name="${CSS.escape(n)}"]`) } }, fields);
  const out = { ...values };
  for (const input of root.querySelectorAll('input[name^="json."]')) {
    const name = input.name.slice(5);
    try {
      const v = JSON.parse(input.value || "null");
      if (v !== null) out[name] = v;
    } catch {
      throw new Error(`${name}: ${t("FIREFIGHT.ui.sheet.badJson", "not valid JSON")}`);
    }
  }
  // Keys the form does not know (another version's fields) are kept as they were.
  for (const [k, v] of Object.entries(before ?? {})) if (!(k in (schema?.properties ?? {}))) out[k] = v;
  return out;
}

function showError(root, text) {
  const el = root.querySelector("[data-firefight-error]");
  if (!el) return;
  el.hidden = !text;
  el.textContent = text ?? "";
}

/** Validate stats through the engine: the validated data, or an error naming actor and field. */
export async function validateStats(engine, actor, ruleset, stats) {
  try {
    return (await engine.call("apply", { ruleset, stats, effects: [] })).stats;
  } catch (err) {
    const fields = (err?.fields ?? []).map((f) => `${f.field} — ${f.reason}`).join("; ");
    throw new Error(t("FIREFIGHT.ui.apply.badData", "{name}'s Firefight data is invalid: {reason}",
      { name: actor.name, reason: fields || err.message }));
  }
}

function wireSection(engine, root, actor, ruleset, schema) {
  const on = (action, fn) => root.querySelectorAll(`[data-firefight-action="${action}"]`).forEach((el) =>
    el.addEventListener(el.type === "checkbox" ? "change" : "click", async (ev) => {
      ev.preventDefault?.();
      try {
        await fn(ev, el);
      } catch (err) {
        showError(root, err.message);
        ui.notifications?.error(`Firefight: ${err.message}`);
      }
    }));
  on("sheet-save", async () => {
    const before = actor.flags?.[MODULE_ID]?.[ruleset] ?? {};
    const stats = await validateStats(engine, actor, ruleset, readStats(root, schema, before));
    showError(root, "");
    await actor.update(flagUpdate(ruleset, before, stats));
    ui.notifications?.info(t("FIREFIGHT.ui.sheet.saved", "{name}: Firefight data saved.", { name: actor.name }));
  });
  on("sheet-init", async () => {
    const stats = await validateStats(engine, actor, ruleset, {});
    await actor.update({ [`flags.${MODULE_ID}.${ruleset}`]: stats });
  });
  on("sheet-equip", async (ev, el) => {
    const item = actor.items.get(el.closest("[data-item-id]").dataset.itemId);
    await item?.update({ [`flags.${MODULE_ID}.equipped`]: el.checked });
  });
  on("sheet-clear-condition", async (ev, el) => {
    const list = [...(actor.flags?.[MODULE_ID]?.conditions ?? [])];
    list.splice(Number(el.closest("[data-index]").dataset.index), 1);
    await actor.update({ [`flags.${MODULE_ID}.conditions`]: list });
  });
  // Data that no longer validates is reported on the sheet, naming the actor; play goes on.
  const stats = actor.flags?.[MODULE_ID]?.[ruleset];
  if (stats) validateStats(engine, actor, ruleset, stats).then(() => {}, (err) => showError(root, err.message));
}

function buildSection(engine, actor) {
  const ruleset = currentRuleset();
  const schema = statsSchema(ruleset);
  const section = document.createElement("section");
  section.className = "firefight-sheet";
  section.innerHTML = sectionHTML(actor, ruleset, schema);
  wireSection(engine, section, actor, ruleset, schema);
  return section;
}

/** Hooks.on("renderActorSheetV2" / "renderActorSheet", (sheet, html) => ...) */
export function onRenderActorSheet(engine, sheet, html) {
  const root = html instanceof HTMLElement ? html : html?.[0] ?? sheet?.element;
  const actor = sheet?.actor ?? sheet?.document;
  if (!root || !actor || root.querySelector(".firefight-sheet")) return;
  const section = buildSection(engine, actor);
  const nav = root.querySelector("nav.sheet-tabs, nav.tabs");
  const sibling = root.querySelector(".tab[data-tab]");
  if (!nav || !sibling) {
    (root.querySelector(".window-content") ?? root).append(section);
    return;
  }
  // A tab beside the sheet's own: same group, switched by us (the sheet does not know it).
  const group = sibling.dataset.group ?? nav.dataset.group ?? "primary";
  const link = document.createElement("a");
  link.className = "item firefight-tab";
  link.dataset.tab = "firefight";
  link.dataset.group = group;
  link.textContent = "Firefight";
  nav.append(link);
  section.classList.add("tab");
  section.dataset.tab = "firefight";
  section.dataset.group = group;
  sibling.parentElement.append(section);
  const activate = (on) => {
    sheet._firefightTab = on;
    if (on) {
      for (const el of root.querySelectorAll(`[data-group="${group}"].active, nav [data-tab].active`)) el.classList.remove("active");
    }
    link.classList.toggle("active", on);
    section.classList.toggle("active", on);
  };
  link.addEventListener("click", (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    activate(true);
  });
  nav.addEventListener("click", (ev) => {
    if (!ev.target.closest(".firefight-tab") && ev.target.closest("[data-tab]")) activate(false);
  });
  if (sheet._firefightTab) activate(true);
}

/** A stand-alone Firefight sheet for an actor (macro API, or sheets we cannot extend). */
export async function openFirefightSheet(engine, actor) {
  if (!actor) return null;
  const DialogV2 = foundry.applications.api.DialogV2;
  const dialog = new DialogV2({
    window: { title: `Firefight: ${actor.name}`, icon: "fa-solid fa-crosshairs" },
    classes: ["firefight-sheet-dialog"],
    content: "<div class=\"ff-sheet-host\"></div>",
    buttons: [{ action: "close", label: t("FIREFIGHT.ui.dialog.cancel", "Cancel") }],
  });
  await dialog.render({ force: true });
  dialog.element?.querySelector(".ff-sheet-host")?.append(buildSection(engine, actor));
  return dialog;
}
