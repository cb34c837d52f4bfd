// Schema fields the simple form (form.mjs: choices, numbers, checkboxes) does not draw: a text
// (a string with its length bound), a set (an array of choices with `uniqueItems`, such as an
// actor's conditions: a checkbox per choice) and a list (an array of choices or of small
// objects), edited as a row per entry with its fields from the schema and add / remove buttons.
// Anything else stays JSON text. Pure apart from `wireLists` (DOM).
import { escapeHTML, fieldsFromSchema, renderFields, coerceValues, resolveRef } from "../core/form.mjs";

const ROW_VALUE = "value"; // the one field of a row of a list of plain values

function labelOf(node, name, localize) {
  const key = node["x-label-key"];
  const text = key ? localize(key) : "";
  return text && text !== key ? text : node.title ?? name;
}

/**
 * Schema -> the fields `fieldsFromSchema` leaves out (`simple`): [{name, kind: "text" | "set" |
 * "list" | "json", label, ...}]; a set has `choices` ([{value, label}], form.mjs shape); a list
 * has `row` (the fields of one entry, form.mjs shape), `plain` (its entries are values, not
 * objects), `min`, `max`, `rowDefault`.
 */
export function extraFields(schema, simple, localize = (k) => k, opts = {}) {
  const root = schema ?? {};
  const known = new Set((simple ?? []).map((f) => f.name));
  const order = root["x-order"] ?? Object.keys(root.properties ?? {});
  const out = [];
  for (const name of order) {
    const raw = root.properties?.[name];
    if (!raw || known.has(name)) continue;
    const node = resolveRef(raw, root);
    const base = { name, label: labelOf(node, name, localize) };
    if (node.type === "string") {
      out.push({ ...base, kind: "text", maxLength: node.maxLength, default: node.default ?? "" });
    } else if (node.type === "array" && node.items) {
      const items = resolveRef(node.items, root);
      const choices = node.uniqueItems ? setChoices(items, localize, opts) : null;
      if (choices) {
        out.push({ ...base, kind: "set", choices });
        continue;
      }
      const plain = items.type !== "object";
      const rowSchema = plain
        ? { properties: { [ROW_VALUE]: { ...items, "x-label-key": node["x-label-key"], title: base.label } }, $defs: root.$defs }
        : { ...items, $defs: root.$defs };
      const row = fieldsFromSchema(rowSchema, localize, opts);
      const drawable = row.length && row.length === Object.keys(rowSchema.properties ?? {}).length;
      if (!drawable) {
        out.push({ ...base, kind: "json" });
        continue;
      }
      const first = {};
      for (const f of row) first[f.name] = f.default ?? (f.kind === "select" ? f.choices.find((c) => c.value !== null)?.value : f.kind === "checkbox" ? false : "");
      out.push({ ...base, kind: "list", row, plain, min: node.minItems ?? 0, max: node.maxItems ?? Infinity,
        rowDefault: plain ? first[ROW_VALUE] : first });
    } else {
      out.push({ ...base, kind: "json" });
    }
  }
  return out;
}

/**
 * The choices of a set's entries (an enum, or the `const` of a set with one choice, as pydantic
 * writes a one-value Literal), labelled as a select's are (form.mjs); null for anything else.
 */
function setChoices(items, localize, opts) {
  const node = Array.isArray(items.enum) ? items : "const" in items ? { ...items, enum: [items.const] } : null;
  if (!node) return null;
  const [field] = fieldsFromSchema({ properties: { [ROW_VALUE]: node } }, localize, opts);
  return field?.kind === "select" ? field.choices.filter((c) => c.value !== null) : null;
}

/** One row of a list: its fields (named by field only: the row's place gives the entry). */
function rowHTML(field, value, index, labels) {
  const values = field.plain ? { [ROW_VALUE]: value } : (value ?? {});
  const n = index + 1;
  const rowLabel = `${field.label} ${n}`;
  // form.mjs names inputs "opt.<name>" with ids from the name: made unique per list and row.
  const html = renderFields(field.row, values)
    .replace(/ id="firefight-opt-([\w-]+)"/g, (m, f) => ` id="ff-list-${escapeHTML(field.name)}-${index}-${f}"`)
    .replace(/ for="firefight-opt-([\w-]+)"/g, (m, f) => ` for="ff-list-${escapeHTML(field.name)}-${index}-${f}"`)
    .replace(/ name="opt\.([\w-]+)"/g, (m, f) => ` data-row-field="${f}"`);
  const body = field.plain
    ? html.replace(/<label [^>]*>[^<]*<\/label>/, `<span class="ff-list-number" aria-hidden="true">${n}.</span>`)
      .replace(/ data-row-field="/, ` aria-label="${escapeHTML(rowLabel)}" data-row-field="`)
    : html;
  return `<li class="ff-list-row" data-list-row>${body}
    <button type="button" class="ff-icon" data-list-remove aria-label="${escapeHTML(`${labels.remove} ${rowLabel}`)}">✕</button></li>`;
}

/** The extra fields' HTML, given the stored values and {add, remove} button labels. */
export function extraFieldsHTML(fields, values = {}, labels = {}) {
  const L = { add: "Add", remove: "Remove", ...labels };
  return fields.map((f) => {
    const id = `ff-${f.kind}-${escapeHTML(f.name)}`;
    const value = values[f.name];
    if (f.kind === "text") {
      const max = Number.isFinite(f.maxLength) ? ` maxlength="${f.maxLength}"` : "";
      return `<div class="form-group" data-field="${escapeHTML(f.name)}"><label for="${id}">${escapeHTML(f.label)}</label>
        <div class="form-fields"><input type="text" id="${id}" name="text.${escapeHTML(f.name)}" value="${escapeHTML(value ?? f.default ?? "")}"${max}></div></div>`;
    }
    if (f.kind === "set") {
      // A checkbox per choice, ticked when the stored list holds it; each saves on change.
      const held = new Set(Array.isArray(value) ? value : []);
      const boxes = f.choices.map((c, i) => `<label class="checkbox" for="${id}-${i}"><input type="checkbox" id="${id}-${i}" name="set.${escapeHTML(f.name)}.${i}" data-set-value="${escapeHTML(String(c.value))}"${held.has(c.value) ? " checked" : ""}> ${escapeHTML(c.label)}</label>`).join("");
      return `<fieldset class="form-group ff-set" data-field="${escapeHTML(f.name)}" data-set="${escapeHTML(f.name)}">
        <legend>${escapeHTML(f.label)}</legend><div class="form-fields">${boxes}</div></fieldset>`;
    }
    if (f.kind === "list") {
      const rows = (Array.isArray(value) ? value : []).map((v, i) => rowHTML(f, v, i, L)).join("");
      return `<fieldset class="form-group ff-list" data-field="${escapeHTML(f.name)}" data-list="${escapeHTML(f.name)}">
        <legend>${escapeHTML(f.label)}</legend><ol class="ff-list-rows">${rows}</ol>
        <button type="button" data-list-add>${escapeHTML(`${L.add}: ${f.label}`)}</button></fieldset>`;
    }
    const text = value === undefined || value === null ? "" : JSON.stringify(value);
    return `<div class="form-group" data-field="${escapeHTML(f.name)}"><label for="${id}">${escapeHTML(f.label)}</label>
      <div class="form-fields"><input type="text" id="${id}" name="json.${escapeHTML(f.name)}" value="${escapeHTML(text)}"></div></div>`;
  }).join("");
}

/** Pure: one list row's raw readings ({field: text | boolean}) -> its entry. */
export function rowValue(field, raw) {
  const values = coerceValues(field.row, raw);
  return field.plain ? values[ROW_VALUE] : values;
}

/**
 * Read the extra fields back from the DOM: {name: value}. A text left empty is left out (the
 * data's default); a set is its ticked choices; a list is its rows in order; JSON text that does
 * not parse throws an error naming the field.
 */
export function readExtra(root, fields, badJson = "not valid JSON") {
  const out = {};
  for (const f of fields) {
    if (f.kind === "text") {
      const el = root.querySelector(`[name="text.${CSS.escape(f.name)}"]`);
      if (el && el.value !== "") out[f.name] = el.value;
    } else if (f.kind === "set") {
      const set = root.querySelector(`[data-set="${CSS.escape(f.name)}"]`);
      if (!set) continue;
      // The ticked choices, in the schema's order.
      const ticked = new Set([...set.querySelectorAll("input[data-set-value]:checked")].map((el) => el.dataset.setValue));
      out[f.name] = f.choices.map((c) => c.value).filter((v) => ticked.has(String(v)));
    } else if (f.kind === "list") {
      const list = root.querySelector(`[data-list="${CSS.escape(f.name)}"]`);
      if (!list) continue;
      out[f.name] = [...list.querySelectorAll("[data-list-row]")].map((row) => {
        const raw = {};
        for (const el of row.querySelectorAll("[data-row-field]")) raw[el.dataset.rowField] = el.type === "checkbox" ? el.checked : el.value;
        return rowValue(f, raw);
      }).filter((v) => v !== undefined);
    } else {
      const el = root.querySelector(`[name="json.${CSS.escape(f.name)}"]`);
      if (!el) continue;
      try {
        const v = JSON.parse(el.value || "null");
        if (v !== null) out[f.name] = v;
      } catch {
        throw new Error(`${f.label}: ${badJson}`);
      }
    }
  }
  return out;
}

/**
 * Wire the lists' add and remove buttons (keyboard: they are buttons; focus moves to the new
 * row, or after a removal to the next row's remove button, else to the add button). The add
 * button is disabled at the list's `max`, the remove buttons at its `min`. An add or remove
 * fires a bubbling "change" on the list (as an edit of a row's input does).
 */
export function wireLists(root, fields, labels = {}) {
  const L = { add: "Add", remove: "Remove", ...labels };
  for (const f of fields.filter((x) => x.kind === "list")) {
    const list = root.querySelector(`[data-list="${CSS.escape(f.name)}"]`);
    if (!list) continue;
    const ol = list.querySelector(".ff-list-rows");
    const add = list.querySelector("[data-list-add]");
    const changed = () => list.dispatchEvent(new Event("change", { bubbles: true }));
    const refresh = () => {
      const rows = [...ol.querySelectorAll("[data-list-row]")];
      // Rows renumbered after a removal: their labels name their place.
      rows.forEach((row, i) => {
        const rowLabel = `${f.label} ${i + 1}`;
        row.querySelector("[data-list-remove]")?.setAttribute("aria-label", `${L.remove} ${rowLabel}`);
        const num = row.querySelector(".ff-list-number");
        if (num) num.textContent = `${i + 1}.`;
        if (f.plain) row.querySelector("[data-row-field]")?.setAttribute("aria-label", rowLabel);
      });
      const disabled = list.dataset.readonly === "true";
      add.disabled = disabled || rows.length >= f.max;
      for (const b of ol.querySelectorAll("[data-list-remove]")) b.disabled = disabled || rows.length <= f.min;
    };
    add.addEventListener("click", (ev) => {
      ev.preventDefault();
      const count = ol.querySelectorAll("[data-list-row]").length;
      if (count >= f.max) return;
      ol.insertAdjacentHTML("beforeend", rowHTML(f, f.rowDefault, count, L));
      refresh();
      ol.lastElementChild?.querySelector("select, input")?.focus();
      changed();
    });
    ol.addEventListener("click", (ev) => {
      const button = ev.target.closest?.("[data-list-remove]");
      if (!button) return;
      ev.preventDefault();
      const row = button.closest("[data-list-row]");
      const next = row.nextElementSibling;
      row.remove();
      refresh();
      (next?.querySelector("[data-list-remove]:not(:disabled)") ?? add).focus();
      changed();
    });
    refresh();
  }
}
