// The Firefight tab on any system's actor sheet (or a section, when the sheet has no tabs):
// the actor's data for the world's ruleset as a form generated from the ruleset's `stats`
// schema, worn armor, weapons, conditions and token statuses. A field saves when it changes, as the
// system's own fields do; the engine validates it first ("apply" with no effects) and names the
// field that is wrong.
import { MODULE_ID } from "../core/config.mjs";
import { t, fieldErrorsText } from "../core/i18n.mjs";
import { fieldsFromSchema, renderFields, readForm, escapeHTML } from "../core/form.mjs";
import { statsSchema, rulesetInfo, catalogReady, currentRuleset } from "../world/catalog.mjs";
import { flagUpdate } from "./apply.mjs";
import { stableStringify } from "../core/json.mjs";
import { withActor } from "./writes.mjs";
import { itemsByCategory } from "../workflow/request.mjs";
import { currentAdapter } from "../systems/index.mjs";
import { ammoSheetHTML, canReload, reload } from "./ammo.mjs";
import { extraFields, extraFieldsHTML, readExtra, wireLists } from "./list-field.mjs";

const localize = (k) => game.i18n.localize(k);

/** The add / remove buttons' words of a list field (list-field.mjs). */
export function listLabels() {
  return { add: t("FIREFIGHT.ui.sheet.listAdd", "Add"), remove: t("FIREFIGHT.ui.sheet.listRemove", "Remove") };
}

/** The form's fields of a schema: the simple ones (form.mjs) and the texts and lists (list-field.mjs). */
export function formFields(schema) {
  const opts = { auto: t("FIREFIGHT.ui.dialog.auto", "auto") };
  const fields = schema ? fieldsFromSchema(schema, localize, opts) : [];
  return { fields, extras: schema ? extraFields(schema, fields, localize, opts) : [] };
}

function conditionText(c) {
  const key = c.label_key;
  let text = key ? t(key, key, c.params ?? {}) : "";
  if (!text || text === key) text = [c.kind, c.value ?? ""].filter(Boolean).join(": ");
  return text;
}

/** The tab's HTML for an actor (pure given its inputs). */
export function sectionHTML(actor, ruleset, schema, labelKey = `FIREFIGHT.${ruleset}.name`) {
  const ff = actor.flags?.[MODULE_ID] ?? {};
  const stats = ff[ruleset];
  const editable = Boolean(actor.isOwner ?? game.user?.isGM);
  const heading = `<h3 class="ff-sheet-ruleset">${escapeHTML(localize(labelKey))}</h3>`;
  if (!stats) {
    return `${heading}<p class="ff-sheet-missing">${escapeHTML(t("FIREFIGHT.ui.sheet.noData", "{name} has no Firefight data for this ruleset.", { name: actor.name }))}</p>
      ${editable ? `<button type="button" data-firefight-action="sheet-init">${escapeHTML(t("FIREFIGHT.ui.sheet.addData", "Add Firefight data"))}</button>` : ""}`;
  }
  // A field's hint is its `x-hint-key` only (form.mjs): schema descriptions are the engine's
  // English notes. E.g. a stat no rule of the text uses says so under it.
  const { fields, extras } = formFields(schema);
  const values = {};
  for (const f of fields) values[f.name] = stats[f.name] ?? f.default ?? "";
  const extra = extraFieldsHTML(extras, stats, listLabels());
  const armor = itemsByCategory(actor, ruleset, "armor").map((i) => `<li data-item-id="${escapeHTML(i.id)}">
      <label><input type="checkbox" data-firefight-action="sheet-equip"${i.flags?.[MODULE_ID]?.equipped ? " checked" : ""}${editable ? "" : " disabled"}> ${escapeHTML(i.name)}</label></li>`).join("");
  // The item's name opens its sheet (click, or Enter), as a Foundry sheet's item list does.
  const weapons = itemsByCategory(actor, ruleset, "weapon").map((i) => `<li data-item-id="${escapeHTML(i.id)}"><a class="ff-item-name" role="button" tabindex="0" data-firefight-action="sheet-open-item">${escapeHTML(i.name)}</a>${ammoSheetHTML(i, editable)}</li>`).join("");
  // The declared conditions the actor holds (its data's set of ids, ticked in the form above:
  // the form's set field gives their labels), then what results left for the table to keep.
  const set = extras.find((f) => f.kind === "set" && f.name === "conditions");
  const held = (Array.isArray(stats.conditions) ? stats.conditions : []).map((id) =>
    `<li class="ff-condition" data-condition="${escapeHTML(id)}">${escapeHTML(set?.choices.find((c) => c.value === id)?.label ?? id)}</li>`).join("");
  const conditions = held + (ff.conditions ?? []).map((c, i) => `<li data-index="${i}">${escapeHTML(conditionText(c))}
      ${game.user?.isGM ? `<button type="button" class="ff-icon" data-firefight-action="sheet-clear-condition" aria-label="${escapeHTML(t("FIREFIGHT.ui.sheet.clear", "Clear"))}">✕</button>` : ""}</li>`).join("");
  const statuses = [...(actor.statuses ?? [])].map((s) => `<li class="ff-status">${escapeHTML(s)}</li>`).join("");
  const none = `<li class="ff-none">${escapeHTML(t("FIREFIGHT.ui.sheet.none", "none"))}</li>`;
  return `${heading}
    <div class="ff-sheet-form" data-ruleset="${escapeHTML(ruleset)}">${renderFields(fields, values)}${extra}</div>
    <p class="ff-sheet-error" data-firefight-error hidden></p>
    <div class="ff-sheet-lists">
      <section><h4>${escapeHTML(t("FIREFIGHT.ui.sheet.armor", "Worn armor"))}</h4><ul class="ff-sheet-armor">${armor || none}</ul></section>
      <section><h4>${escapeHTML(t("FIREFIGHT.ui.sheet.weapons", "Weapons"))}</h4><ul class="ff-sheet-weapons">${weapons || none}</ul></section>
      <section><h4>${escapeHTML(t("FIREFIGHT.ui.sheet.conditions", "Conditions"))}</h4><ul class="ff-sheet-conditions">${conditions || none}</ul></section>
      <section><h4>${escapeHTML(t("FIREFIGHT.ui.sheet.statuses", "Token statuses"))}</h4><ul class="ff-sheet-statuses">${statuses || none}</ul></section>
    </div>`;
}

/** Read a form back into data; throws with the field named on unreadable JSON. */
export function readData(root, schema) {
  const { fields, extras } = formFields(schema ?? {});
  const values = readForm({ elements: { namedItem: (n) => root.querySelector(`[name="${CSS.escape(n)}"]`) } }, fields);
  return { ...values, ...readExtra(root, extras, t("FIREFIGHT.ui.sheet.badJson", "not valid JSON")) };
}

/** Read the form back into stats; throws with the field named on unreadable JSON. */
function readStats(root, schema, before) {
  const out = readData(root, schema);
  // Keys the form does not know (another version's fields) are kept as they were.
  for (const [k, v] of Object.entries(before ?? {})) if (!(k in (schema?.properties ?? {}))) out[k] = v;
  return out;
}

function showError(root, text, fields = []) {
  const el = root.querySelector("[data-firefight-error]");
  if (!el) return;
  el.hidden = !text;
  el.textContent = text ?? "";
  // The fields at fault are marked on the form (their first path segment is the sheet's field).
  const bad = new Set(fields.map((f) => String(f.field ?? "").split(/[.[]/)[0]));
  for (const group of root.querySelectorAll(".ff-sheet-form .form-group[data-field]")) {
    const wrong = bad.has(group.dataset.field);
    group.classList.toggle("ff-invalid", wrong);
    group.querySelector("input, select")?.toggleAttribute("aria-invalid", wrong);
  }
}

/** Validate stats through the engine: the validated data, or an error naming actor and field. */
export async function validateStats(engine, actor, ruleset, stats) {
  try {
    return (await engine.call("apply", { ruleset, stats, effects: [] })).stats;
  } catch (err) {
    const fields = fieldErrorsText(err);
    const error = new Error(t("FIREFIGHT.ui.apply.badData", "{name}'s Firefight data is invalid: {reason}",
      { name: actor.name, reason: fields || err.message }), { cause: err });
    error.fields = err?.fields ?? [];
    throw error;
  }
}

/** An item of the actor's list: its sheet (ClientDocumentMixin#sheet), brought to the front. */
function openItem(actor, el) {
  const item = actor.items.get(el.closest("[data-item-id]")?.dataset.itemId);
  item?.sheet?.render({ force: true });
}

function wireSection(engine, root, actor, ruleset, schema) {
  const on = (action, fn) => root.querySelectorAll(`[data-firefight-action="${action}"]`).forEach((el) =>
    el.addEventListener(el.type === "checkbox" ? "change" : "click", async (ev) => {
      ev.preventDefault?.();
      try {
        await fn(ev, el);
      } catch (err) {
        showError(root, err.message, err.fields);
        ui.notifications?.error(`Firefight: ${err.message}`);
      }
    }));
  wireLists(root, formFields(schema).extras, listLabels());
  // What the form showed when it was drawn: a change writes only the fields the user changed.
  let shown = {};
  try {
    shown = readStats(root, schema, actor.flags?.[MODULE_ID]?.[ruleset] ?? {});
  } catch { /* a field the form cannot read back: it counts as changed */ }
  saveOnChange(root, async () => {
    const edited = readStats(root, schema, {});
    const changed = Object.keys(edited).filter((k) => stableStringify(edited[k]) !== stableStringify(shown[k]));
    if (!changed.length) return;
    // In the actor's write queue, over its current data: a hit applied since the sheet was drawn
    // is kept (reliability audit D9; the form's old values are not written back).
    await withActor(actor, async () => {
      const before = actor.flags?.[MODULE_ID]?.[ruleset] ?? {};
      const next = { ...before };
      for (const k of changed) next[k] = edited[k];
      const stats = await validateStats(engine, actor, ruleset, next);
      showError(root, "");
      await actor.update(flagUpdate(ruleset, before, stats));
    });
  }, (err) => showError(root, err.message, err.fields));
  on("sheet-init", async () => {
    const stats = await validateStats(engine, actor, ruleset, {});
    await withActor(actor, async () => {
      if (actor.flags?.[MODULE_ID]?.[ruleset]) return; // added meanwhile: keep it
      await actor.update({ [`flags.${MODULE_ID}.${ruleset}`]: stats });
    });
  });
  on("sheet-equip", async (ev, el) => {
    // An item of the actor: its worn armor counts in the actor's next to-damage line.
    const item = actor.items.get(el.closest("[data-item-id]").dataset.itemId);
    await withActor(actor, () => item?.update({ [`flags.${MODULE_ID}.equipped`]: el.checked }));
  });
  on("sheet-open-item", async (ev, el) => openItem(actor, el));
  for (const el of root.querySelectorAll('[data-firefight-action="sheet-open-item"]')) {
    el.addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter") return;
      ev.preventDefault();
      openItem(actor, el);
    });
  }
  on("sheet-reload", async (ev, el) => {
    const item = actor.items.get(el.closest("[data-item-id]").dataset.itemId);
    const after = item ? await reload(item) : null;
    const count = el.closest("li")?.querySelector(".ff-ammo-count");
    if (after && count) count.outerHTML = ammoSheetHTML(item, false);
    if (after) el.disabled = !canReload(after); // the last spare magazine taken
  });
  on("sheet-clear-condition", async (ev, el) => {
    const index = Number(el.closest("[data-index]").dataset.index);
    const gone = stableStringify((actor.flags?.[MODULE_ID]?.conditions ?? [])[index] ?? null);
    await withActor(actor, async () => {
      // The list as it is now: the condition shown is removed, whatever was added since.
      const list = [...(actor.flags?.[MODULE_ID]?.conditions ?? [])];
      const at = list.findIndex((c) => stableStringify(c) === gone);
      if (at < 0) return;
      list.splice(at, 1);
      await actor.update({ [`flags.${MODULE_ID}.conditions`]: list });
    });
  });
  // Data that no longer validates is reported on the sheet, naming the actor; play goes on.
  const stats = actor.flags?.[MODULE_ID]?.[ruleset];
  if (stats) validateStats(engine, actor, ruleset, stats).then(() => {}, (err) => showError(root, err.message, err.fields));
}

/**
 * Save a tab's fields on change, as the system's own sheet fields are saved (dnd5e's and pf2e's
 * sheets submit on change): `save()` for each change of a field of the form (or a row added to or
 * removed from a list), one at a time; a refusal is shown by `fail(err)` and named in a
 * notification. The section's own buttons and checkboxes (`data-firefight-action`) act alone.
 */
export function saveOnChange(root, save, fail) {
  let queue = Promise.resolve();
  root.addEventListener("change", (ev) => {
    if (ev.target?.closest?.("[data-firefight-action]")) return;
    queue = queue.then(save).catch((err) => {
      fail(err);
      ui.notifications?.error(`Firefight: ${err.message}`);
    });
  });
}

/**
 * What the user is typing and has not committed yet (no change event), kept on the sheet
 * (`holder`) across re-renders: an actor update (a hit applied meanwhile, or the save of the
 * field just left) redraws the tab while the next field is being typed in. A change commits the
 * form, so the draft then ends: nothing typed outlives its field's change, nor the sheet's close.
 * The field being typed in keeps the focus across a redraw that follows a change.
 */
function keepDraft(section, holder, key, extras = []) {
  if (holder._firefightDraft?.key !== key) holder._firefightDraft = { key, values: {}, lists: {}, focus: null };
  const state = holder._firefightDraft;
  for (const [name, value] of Object.entries(state.values)) {
    const el = section.querySelector(`.ff-sheet-form [name="${CSS.escape(name)}"]`);
    if (!el) continue;
    if (el.type === "checkbox") el.checked = Boolean(value);
    else el.value = value;
  }
  // A list's rows as they were typed: drawn again in place (list-field.mjs).
  const listFields = extras.filter((f) => f.kind === "list");
  for (const f of listFields.filter((x) => x.name in state.lists)) {
    const el = section.querySelector(`.ff-sheet-form [data-list="${CSS.escape(f.name)}"]`);
    if (!el) continue;
    el.outerHTML = extraFieldsHTML([f], { [f.name]: state.lists[f.name] }, listLabels());
    wireLists(section, [f], listLabels());
  }
  section.addEventListener("input", (ev) => {
    const el = ev.target;
    const list = el?.closest?.(".ff-sheet-form [data-list]");
    if (list) {
      const f = listFields.find((x) => x.name === list.dataset.list);
      if (f) state.lists[f.name] = readExtra(section, [f])[f.name];
      return;
    }
    if (!el?.name || !el.closest?.(".ff-sheet-form")) return;
    state.values[el.name] = el.type === "checkbox" ? el.checked : el.value;
  });
  section.addEventListener("change", () => {
    state.values = {};
    state.lists = {};
    state.changedAt = Date.now();
  });
  section.addEventListener("focusin", (ev) => {
    state.focus = focusKey(ev.target);
  });
  // A value typed before a redraw and put back after it is no change to the browser: leaving its
  // field commits it all the same.
  section.addEventListener("focusout", (ev) => {
    const name = ev.target?.name;
    if (name && name in state.values) ev.target.dispatchEvent(new Event("change", { bubbles: true }));
  });
  return () => {
    // Drawn again right after a change (its save): the focus goes back to where it was.
    const key = state.focus;
    const active = document.activeElement;
    if (!key || Date.now() - (state.changedAt ?? 0) > 2000 || (active && active !== document.body)) return;
    section.querySelector(key)?.focus();
  };
}

/** A selector that finds an element of the tab again after a redraw (by id, name, or list place). */
function focusKey(el) {
  if (!el?.closest?.(".ff-sheet-form")) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  if (el.name) return `.ff-sheet-form [name="${CSS.escape(el.name)}"]`;
  const list = el.closest("[data-list]")?.dataset.list;
  if (!list) return null;
  const within = `.ff-sheet-form [data-list="${CSS.escape(list)}"]`;
  if (el.matches("[data-list-add]")) return `${within} [data-list-add]`;
  const row = el.closest("[data-list-row]");
  if (row && el.matches("[data-list-remove]")) return `${within} [data-list-row]:nth-child(${[...row.parentElement.children].indexOf(row) + 1}) [data-list-remove]`;
  return null;
}

/**
 * The element a Firefight tab is built in: a <form> of its own, made with DOM calls (a form inside
 * the system's sheet form, which markup could not nest), so its inputs belong to it and never to
 * the system's form (FormDataExtended reads `form.elements`); and the change, input and submit
 * events stop here, so a sheet that submits on change (dnd5e's DocumentSheetV2 forms
 * `submitOnChange: true`, the AppV1 sheets of Simple Worldbuilding and pf2e) never submits for
 * an edit of ours.
 */
export function firefightForm(className) {
  const form = document.createElement("form");
  form.className = className;
  form.noValidate = true;
  form.setAttribute("autocomplete", "off");
  for (const type of ["change", "input", "submit"]) {
    form.addEventListener(type, (ev) => {
      ev.stopPropagation();
      if (type === "submit") ev.preventDefault();
    });
  }
  return form;
}

function buildSection(engine, actor, holder = {}) {
  const ruleset = currentRuleset();
  const section = firefightForm("firefight-sheet");
  if (!rulesetInfo(ruleset)) {
    // A fresh world before its engine has booted: the ruleset and its fields are not known yet.
    section.innerHTML = `<p class="ff-sheet-pending">${escapeHTML(t("FIREFIGHT.ui.engine.booting", "Firefight engine is starting…"))}</p>`;
    return section;
  }
  const schema = statsSchema(ruleset);
  section.innerHTML = sectionHTML(actor, ruleset, schema, rulesetInfo(ruleset).label_key);
  // Wired first, so what it takes as "shown" is the actor's data; the draft goes on top.
  wireSection(engine, section, actor, ruleset, schema);
  section._firefightFocus = keepDraft(section, holder, `${actor.uuid ?? actor.id}|${ruleset}`, formFields(schema).extras);
  return section;
}

// Where a sheet keeps its tab links and tab sections when the system's adapter does not say.
const GENERIC_TABS = { nav: "nav.sheet-tabs, nav.tabs" };
const listening = new WeakSet(); // sheet elements whose tab clicks we follow

/** The sheet's tab nav and the element holding its tab sections: the adapter's, else a guess. */
export function tabPlaces(root, places = {}) {
  const find = (selector) => (selector ? root.querySelector(selector) : null);
  const nav = find(places.nav) ?? find(GENERIC_TABS.nav);
  const body = find(places.body) ?? root.querySelector(".tab[data-tab]")?.parentElement ?? null;
  return { nav, body };
}

/** A tab link in the system's style: its classes, an icon for icon-only navs, else the name. */
function tabLink(group, link = {}) {
  const a = document.createElement("a");
  a.className = ["item", ...(link.classes ?? []), "firefight-tab"].join(" ");
  a.dataset.tab = "firefight";
  a.dataset.group = group;
  a.dataset.tooltip = "Firefight";
  a.setAttribute("aria-label", "Firefight");
  a.tabIndex = 0; // reachable by keyboard: Enter or Space opens it
  if (link.icon) a.innerHTML = `<i class="${escapeHTML(link.icon)}" inert></i>`;
  else a.textContent = "Firefight";
  return a;
}

/**
 * Hooks.on("renderActorSheetV2" / "renderActorSheet", (sheet, html) => ...). Rebuilt on every
 * render: an ApplicationV2 sheet (dnd5e 5.x) re-renders part by part, replacing only its parts'
 * elements (HandlebarsApplicationMixin PARTS), so a new nav part has lost our link while our
 * section, outside any part, would keep stale values. The Firefight tab stays active across
 * renders if it was.
 */
export function onRenderActorSheet(engine, sheet, html) {
  const root = html instanceof HTMLElement ? html : html?.[0] ?? sheet?.element;
  const actor = sheet?.actor ?? sheet?.document;
  if (!root || !actor) return;
  for (const el of root.querySelectorAll(".firefight-sheet, .firefight-tab")) el.remove();
  const section = buildSection(engine, actor, sheet);
  // Drawn before the catalog was known: drawn again once it is (ApplicationV2#render).
  if (!rulesetInfo(currentRuleset()) && !sheet._firefightAwaits) {
    sheet._firefightAwaits = true;
    catalogReady.then(() => {
      sheet._firefightAwaits = false;
      if (sheet.rendered !== false) sheet.render?.();
    });
  }
  placeTab(sheet, root, section, currentAdapter().sheet ?? {});
  section._firefightFocus?.();
}

/**
 * Put a Firefight section on a sheet as a tab beside the sheet's own (`places`: the adapter's
 * {nav, body, link}), or at the end of its content when it has no tabs. The tab stays active
 * across renders if it was (`sheet._firefightTab`). A sheet's tab links and sections may carry a
 * `data-group` (ApplicationV2, Simple Worldbuilding) or not (pf2e's AppV1 sheets): ours follow
 * the nav's and its siblings'.
 */
export function placeTab(sheet, root, section, places = {}) {
  const { nav, body } = tabPlaces(root, places);
  if (!nav || !body) {
    (root.querySelector(".window-content") ?? root).append(section);
    return;
  }
  const group = nav.dataset.group ?? body.querySelector("[data-tab][data-group]")?.dataset.group ?? "primary";
  const link = tabLink(group, places.link);
  nav.append(link);
  section.classList.add("tab");
  section.dataset.tab = "firefight";
  section.dataset.group = group;
  body.append(section);
  const setActive = (tab) => {
    const { nav: navNow, body: bodyNow } = tabPlaces(root, places);
    for (const el of [...(navNow?.querySelectorAll("[data-tab]") ?? []), ...(bodyNow?.querySelectorAll(":scope > [data-tab]") ?? [])]) {
      el.classList.toggle("active", el.dataset.tab === tab);
    }
  };
  const open = (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    sheet._firefightTab = true;
    setActive("firefight");
    // An ApplicationV2 sheet keeps its own tab state (tabGroups; dnd5e's `tab-<id>` class and
    // per-tab sidebar follow it): told through its public ApplicationV2#changeTab.
    if (typeof sheet.changeTab === "function" && sheet.tabGroups) {
      try {
        sheet.changeTab("firefight", group, { force: true });
      } catch (err) {
        console.warn("Firefight | the sheet's changeTab refused the Firefight tab", err);
      }
    }
  };
  link.addEventListener("click", open);
  link.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") open(ev);
  });
  // Another tab of the sheet leaves ours; listened on the sheet's element, which outlives its parts.
  if (!listening.has(root)) {
    listening.add(root);
    root.addEventListener("click", (ev) => {
      const other = ev.target.closest?.("nav [data-tab], .tabs [data-tab]");
      if (!other || other.classList.contains("firefight-tab") || !sheet._firefightTab) return;
      sheet._firefightTab = false;
      setActive(other.dataset.tab);
    });
  }
  if (sheet._firefightTab) setActive("firefight");
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
