// The Firefight tab on any system's item sheet (issue 16, "Weapon and armor data"): an item's
// data for the world's ruleset (flags.firefight.<ruleset>) as a form generated from the ruleset's
// item schema for its category (the catalog's `items`), checked by the engine ("item") before it
// is saved; a bad field is named. Only a user who may edit the item (its owner, a GM; not an item
// of a locked compendium) gets inputs and buttons; anyone else reads it. A weapon's magazine
// (flags.firefight.ammo, ammo.mjs) is edited there too, in the core `Ammo` model's bounds (the
// engine's `schema` op) and checked by the engine ("ammo") before it is saved.
import { MODULE_ID } from "../core/config.mjs";
import { t, fieldErrorsText, errorText } from "../core/i18n.mjs";
import { escapeHTML, renderFields, fieldsFromSchema, readForm } from "../core/form.mjs";
import { rulesetSchema } from "../workflow/plan.mjs";
import { rulesetInfo, catalogReady, currentRuleset } from "../world/catalog.mjs";
import { flagUpdate } from "./apply.mjs";
import { firefightForm, formFields, listLabels, placeTab, readData, saveOnChange } from "./sheet.mjs";
import { extraFieldsHTML, wireLists } from "./list-field.mjs";
import { currentAdapter } from "../systems/index.mjs";

const localize = (k) => game.i18n.localize(k);

/** The item forms of a ruleset ({category: schema}) from the catalog. */
export function itemForms(ruleset) {
  return rulesetInfo(ruleset)?.items ?? {};
}

const rulesetName = (id) => t(rulesetInfo(id)?.label_key ?? `FIREFIGHT.${id}.name`, id);

/** Whether the sheet lets this user change its item: the sheet's own say, else ownership. */
export function mayEdit(sheet, item) {
  if (typeof sheet?.isEditable === "boolean") return sheet.isEditable;
  return Boolean(item?.isOwner);
}

/** Pure given the catalog: the tab's HTML for an item. */
export function itemSectionHTML(item, ruleset, forms, editable) {
  const ff = item.flags?.[MODULE_ID] ?? {};
  const data = ff[ruleset];
  const heading = `<h3 class="ff-sheet-ruleset">${escapeHTML(rulesetName(ruleset))}</h3>`;
  const readOnly = editable ? "" : `<p class="ff-item-readonly hint">${escapeHTML(t("FIREFIGHT.ui.item.readOnly", "Only an owner of {name} can change it.", { name: item.name }))}</p>`;
  const schema = data && typeof data === "object" ? forms[data.category] : null;
  if (!schema) {
    const others = Object.entries(ff).filter(([id, v]) => id !== ruleset && v && typeof v === "object" && typeof v.category === "string").map(([id]) => rulesetName(id));
    const choices = Object.keys(forms).map((c) => `<option value="${escapeHTML(c)}">${escapeHTML(t(`FIREFIGHT.ui.item.categories.${c}`, c))}</option>`).join("");
    const add = editable && choices ? `<div class="form-group"><label for="ff-item-category">${escapeHTML(t("FIREFIGHT.ui.item.category", "Kind of item"))}</label>
        <div class="form-fields"><select id="ff-item-category" name="ff-item-category">${choices}</select></div></div>
        <button type="button" data-firefight-action="item-init">${escapeHTML(t("FIREFIGHT.ui.item.addData", "Add Firefight data"))}</button>` : "";
    return `${heading}<p class="ff-sheet-missing">${escapeHTML(t("FIREFIGHT.ui.item.noData", "{name} has no Firefight data for {ruleset}.", { name: item.name, ruleset: rulesetName(ruleset) }))}</p>
      ${others.length ? `<p class="ff-item-others">${escapeHTML(t("FIREFIGHT.ui.item.otherData", "It has data for: {rulesets}.", { rulesets: others.join(", ") }))}</p>` : ""}
      ${readOnly}${add}`;
  }
  const { fields, extras } = formFields(schema);
  const values = {};
  for (const f of fields) values[f.name] = data[f.name] ?? f.default ?? "";
  return `${heading}
    <p class="ff-item-category">${escapeHTML(t("FIREFIGHT.ui.item.category", "Kind of item"))}: ${escapeHTML(t(`FIREFIGHT.ui.item.categories.${data.category}`, data.category))}</p>
    ${readOnly}
    <div class="ff-sheet-form" data-ruleset="${escapeHTML(ruleset)}">${renderFields(fields, values)}${extraFieldsHTML(extras, data, listLabels())}</div>
    ${data.category === "weapon" ? "<div data-firefight-item-ammo hidden></div>" : ""}
    <p class="ff-sheet-error" data-firefight-error hidden></p>`;
}

// --- a weapon's magazine ------------------------------------------------------------------------

const AMMO_LABELS = {
  capacity: () => t("FIREFIGHT.ui.ammo.capacity", "Capacity (rounds)"),
  loaded: () => t("FIREFIGHT.ui.ammo.loaded", "Rounds loaded"),
  spares: () => t("FIREFIGHT.ui.ammo.spares", "Spare magazines"),
};

/** Pure: the magazine's form fields from the core `Ammo` schema (its bounds), named `ammo.<field>`, both optional. */
export function ammoFields(schema) {
  return fieldsFromSchema({ ...schema, required: [] }, localize, { auto: t("FIREFIGHT.ui.dialog.auto", "auto") })
    .map((f) => ({ ...f, name: `ammo.${f.name}`, label: AMMO_LABELS[f.name]?.() ?? f.label, nullable: true }));
}

/** Pure: the magazine's fieldset for an item's flags (empty inputs: not tracked). */
export function ammoBoxHTML(fields, ammo) {
  const values = Object.fromEntries(fields.map((f) => [f.name, ammo?.[f.name.slice(5)] ?? ""]));
  return `<fieldset class="ff-item-ammo"><legend>${escapeHTML(t("FIREFIGHT.ui.ammo.magazine", "Magazine"))}</legend>
    ${renderFields(fields, values)}
    <p class="hint">${escapeHTML(t("FIREFIGHT.ui.ammo.untracked", "Leave capacity and rounds empty: the weapon's rounds are not counted. Spare magazines left empty: not counted."))}</p></fieldset>`;
}

/** Draw the magazine's fields into the tab once the engine's schema is known. -> its fields */
async function fillAmmoBox(engine, root, item, ruleset, editable) {
  const box = root.querySelector("[data-firefight-item-ammo]");
  if (!box) return null;
  const fields = ammoFields((await rulesetSchema(engine, ruleset)).ammo ?? {});
  box.innerHTML = ammoBoxHTML(fields, item.flags?.[MODULE_ID]?.ammo);
  box.hidden = false;
  if (!editable) for (const el of box.querySelectorAll("input")) el.disabled = true;
  return fields;
}

/**
 * The magazine the form holds, checked by the engine: the item update for it ({} when the form
 * has none yet, a removal when both are empty), or an error naming the item and the field.
 */
export async function ammoUpdate(engine, root, item, fields) {
  if (!fields?.length || !root.querySelector("[data-firefight-item-ammo] input")) return {};
  const read = readForm({ elements: { namedItem: (n) => root.querySelector(`[name="${CSS.escape(n)}"]`) } }, fields);
  const data = Object.fromEntries(Object.entries(read).map(([k, v]) => [k.slice(5), v]));
  if (!Object.keys(data).length) return item.flags?.[MODULE_ID]?.ammo ? { [`flags.${MODULE_ID}.-=ammo`]: null } : {};
  try {
    return { [`flags.${MODULE_ID}.ammo`]: (await engine.call("ammo", { data })).ammo };
  } catch (err) {
    const label = (path) => AMMO_LABELS[String(path)]?.() ?? "";
    throw new Error(t("FIREFIGHT.ui.ammo.badMagazine", "{name}'s magazine is invalid: {reason}",
      { name: item.name, reason: fieldErrorsText(err, label) || errorText(err) }), { cause: err });
  }
}

function showError(root, text) {
  const el = root.querySelector("[data-firefight-error]");
  if (!el) return;
  el.hidden = !text;
  el.textContent = text ?? "";
}

/** Pure: the item form's label of an engine error's field path (its top field's), or "". */
export function fieldLabel(schema, path, localizeKey = localize) {
  const key = schema?.properties?.[String(path).split(/[.[]/)[0]]?.["x-label-key"];
  const label = key ? localizeKey(key) : "";
  return label && label !== key ? label : "";
}

/** The engine's check of item data: the data to store, or an error naming the item and field. */
export async function validateItem(engine, item, ruleset, data, schema) {
  try {
    return (await engine.call("item", { ruleset, data })).item;
  } catch (err) {
    throw new Error(t("FIREFIGHT.ui.item.badData", "{name}'s Firefight data is invalid: {reason}",
      { name: item.name, reason: fieldErrorsText(err, (path) => fieldLabel(schema, path)) || errorText(err) }), { cause: err });
  }
}

function wireItemSection(engine, root, item, ruleset, forms, ammo) {
  const on = (action, fn) => root.querySelectorAll(`[data-firefight-action="${action}"]`).forEach((el) =>
    el.addEventListener("click", async (ev) => {
      ev.preventDefault?.();
      try {
        await fn();
      } catch (err) {
        showError(root, err.message);
        ui.notifications?.error(`Firefight: ${err.message}`);
      }
    }));
  const data = item.flags?.[MODULE_ID]?.[ruleset];
  const schema = data ? forms[data.category] : null;
  if (schema) {
    wireLists(root, formFields(schema).extras, listLabels());
    // A change saves, as the system's own item fields do (sheet.mjs saveOnChange).
    saveOnChange(root, async () => {
      const before = item.flags?.[MODULE_ID]?.[ruleset] ?? {};
      const next = { ...readData(root, schema), category: before.category };
      const stored = await validateItem(engine, item, ruleset, next, schema);
      const magazine = await ammoUpdate(engine, root, item, await ammo);
      showError(root, "");
      await item.update({ ...flagUpdate(ruleset, before, stored), ...magazine });
    }, (err) => showError(root, err.message));
  }
  on("item-init", async () => {
    const category = root.querySelector('[name="ff-item-category"]')?.value;
    // The engine fills what it can; a field it cannot default is named, to be filled in.
    const stored = await validateItem(engine, item, ruleset, { category }, forms[category]).catch(() => ({ category }));
    if (item.flags?.[MODULE_ID]?.[ruleset]) return; // added meanwhile: keep it
    await item.update({ [`flags.${MODULE_ID}.${ruleset}`]: stored });
  });
}

/** Disable every input of a section a user may only read. */
function readOnlySection(section) {
  for (const el of section.querySelectorAll("input, select, textarea, button")) el.disabled = true;
  for (const el of section.querySelectorAll("[data-list]")) el.dataset.readonly = "true";
}

/**
 * Hooks.on(<an item sheet's render hook>, (sheet, html) => ...): the Firefight tab, rebuilt on
 * every render (as the actor sheet's, sheet.mjs `onRenderActorSheet`).
 */
export function onRenderItemSheet(engine, sheet, html) {
  const root = html instanceof HTMLElement ? html : html?.[0] ?? sheet?.element;
  const item = sheet?.item ?? sheet?.document;
  if (!root || item?.documentName !== "Item") return;
  for (const el of root.querySelectorAll(".firefight-item, .firefight-tab")) el.remove();
  const ruleset = currentRuleset();
  const section = firefightForm("firefight-sheet firefight-item");
  if (!rulesetInfo(ruleset)) {
    section.innerHTML = `<p class="ff-sheet-pending">${escapeHTML(t("FIREFIGHT.ui.engine.booting", "Firefight engine is starting…"))}</p>`;
    if (!sheet._firefightAwaits) {
      sheet._firefightAwaits = true;
      catalogReady.then(() => {
        sheet._firefightAwaits = false;
        if (sheet.rendered !== false) sheet.render?.();
      });
    }
  } else {
    const forms = itemForms(ruleset);
    const editable = mayEdit(sheet, item);
    section.innerHTML = itemSectionHTML(item, ruleset, forms, editable);
    const ammo = fillAmmoBox(engine, section, item, ruleset, editable).catch((err) => {
      showError(section, err.message);
      return null;
    });
    if (editable) wireItemSection(engine, section, item, ruleset, forms, ammo);
    else {
      const data = item.flags?.[MODULE_ID]?.[ruleset];
      if (data && forms[data.category]) wireLists(section, formFields(forms[data.category]).extras, listLabels());
      readOnlySection(section);
    }
  }
  placeTab(sheet, root, section, currentAdapter().itemSheet ?? {});
}

/** The render hooks of the world's system's item sheets (its adapter's, else core's). */
export function itemSheetHooks(adapter = currentAdapter()) {
  return adapter.itemSheet?.hooks ?? ["renderItemSheetV2", "renderItemSheet"];
}
