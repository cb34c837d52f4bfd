// Pure: a ruleset's options JSON schema -> form fields -> HTML, and back to values.
// enum -> select, integer/number -> number input, boolean -> checkbox.

export function escapeHTML(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

export function resolveRef(node, root) {
  let n = node;
  for (let guard = 0; n && guard < 16; guard++) {
    if (n.$ref?.startsWith("#/")) {
      const target = n.$ref.slice(2).split("/").reduce((o, k) => o?.[k], root);
      const { $ref, ...rest } = n;
      n = { ...target, ...rest };
    } else if (Array.isArray(n.allOf) && n.allOf.length === 1) {
      const { allOf, ...rest } = n;
      n = { ...resolveRef(allOf[0], root), ...rest };
    } else if (Array.isArray(n.anyOf)) {
      // Optional[X]: keep X, remember nullability.
      const nonNull = n.anyOf.filter((a) => a.type !== "null");
      if (nonNull.length !== 1) return n;
      const { anyOf, ...rest } = n;
      n = { ...resolveRef(nonNull[0], root), ...rest, nullable: true };
    } else return n;
  }
  return n;
}

function humanize(name) {
  const s = String(name).replace(/[_-]+/g, " ").trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function labelOf(node, fallback, localize) {
  const key = node["x-label-key"];
  if (key) {
    const text = localize(key);
    if (text && text !== key) return text;
  }
  return node.title ?? humanize(fallback);
}

function enumChoices(node, localize) {
  // oneOf [{const, title, x-label-key}] is the labelled form of an enum.
  if (Array.isArray(node.oneOf) && node.oneOf.every((o) => "const" in o)) {
    return node.oneOf.map((o) => ({ value: o.const, label: labelOf(o, o.const, localize), ...(o["x-label-key"] ? { labelKey: o["x-label-key"] } : {}) }));
  }
  const keys = node["x-enum-label-keys"] ?? node["x-enum-labels"];
  return node.enum.map((value, i) => {
    const key = Array.isArray(keys) ? keys[i] : keys?.[value];
    let label = key ? localize(key) : undefined;
    if (!label || label === key) label = humanize(value);
    return key ? { value, label, labelKey: key } : { value, label };
  });
}

/** Options schema -> [{name, kind, label, hint, default, choices?, min?, max?, step?}] */
export function fieldsFromSchema(schema, localize = (k) => k, { auto = "auto" } = {}) {
  const root = schema ?? {};
  const props = root.properties ?? {};
  const order = root["x-order"] ?? Object.keys(props);
  const required = new Set(root.required ?? []);
  const fields = [];
  for (const name of order) {
    if (!props[name]) continue;
    const node = resolveRef(props[name], root);
    const base = {
      name,
      label: labelOf(node, name, localize),
      ...(node["x-label-key"] ? { labelKey: node["x-label-key"] } : {}),
      // Only lang keys are shown: a schema's description is the engine's English note.
      hint: node["x-hint-key"] ? localize(node["x-hint-key"]) : "",
      default: node.default,
      ...(required.has(name) ? { required: true } : {}),
    };
    if (Array.isArray(node.enum) || (Array.isArray(node.oneOf) && node.oneOf.every((o) => "const" in o))) {
      const when = node["x-choices-when"];
      // Optional[choice]: "—" keeps it unset (else the first choice would show as chosen).
      const choices = [...(node.nullable ? [{ value: null, label: "—" }] : []), ...enumChoices(node, localize)];
      fields.push({ ...base, kind: "select", choices, ...(when ? { choicesWhen: when } : {}) });
    } else if (node.type === "integer" || node.type === "number") {
      fields.push({
        ...base, kind: "number",
        min: node.minimum ?? node.exclusiveMinimum, max: node.maximum ?? node.exclusiveMaximum,
        step: node.type === "integer" ? 1 : node.multipleOf ?? "any",
        placeholder: node.nullable && node.default == null ? auto : "",
        nullable: Boolean(node.nullable),
      });
    } else if (node.type === "boolean") {
      fields.push({ ...base, kind: "checkbox" });
    }
    // Other shapes (objects, arrays) are not offered in the dialog.
  }
  return fields;
}

/**
 * Pure: fields whose choices depend on a world setting (`x-choices-when`: {setting, values:
 * {<setting value>: [choice values]}}, docs/extending.md "Choices that depend on a world
 * setting") keep only the choices offered under the setting's value in `settings` (the world's
 * `request.settings`); a default that is not offered gives way to the first choice that is.
 * A setting the world does not know, or a value the map does not list, offers every choice.
 */
export function choicesUnder(fields, settings = {}) {
  return fields.map((f) => {
    const when = f.choicesWhen;
    if (f.kind !== "select" || !when?.setting || !(when.setting in (settings ?? {}))) return f;
    const allowed = when.values?.[settings[when.setting]];
    if (!Array.isArray(allowed)) return f;
    const choices = f.choices.filter((c) => allowed.includes(c.value));
    if (!choices.length) return f;
    const offered = choices.some((c) => c.value === f.default);
    return { ...f, choices, default: offered ? f.default : choices[0].value };
  });
}

/** Initial values from defaults. */
export function defaultValues(fields) {
  const values = {};
  for (const f of fields) {
    if (f.default !== undefined) values[f.name] = f.default;
    else if (f.kind === "checkbox") values[f.name] = false;
    else if (f.kind === "select" && f.choices.length) values[f.name] = f.choices[0].value;
  }
  return values;
}

/** Fields -> HTML (inputs named "opt.<name>"). */
export function renderFields(fields, values = defaultValues(fields)) {
  return fields.map((f) => {
    const id = `firefight-opt-${f.name}`;
    const name = `opt.${f.name}`;
    const hint = f.hint ? `<p class="hint">${escapeHTML(f.hint)}</p>` : "";
    let input;
    if (f.kind === "select") {
      const opts = f.choices.map((c, i) => {
        const sel = c.value === values[f.name] ? " selected" : "";
        return `<option value="${i}"${sel}>${escapeHTML(c.label)}</option>`;
      }).join("");
      input = `<select id="${id}" name="${name}">${opts}</select>`;
    } else if (f.kind === "number") {
      const attrs = [
        f.min !== undefined ? `min="${f.min}"` : "", f.max !== undefined ? `max="${f.max}"` : "",
        `step="${f.step}"`,
      ].filter(Boolean).join(" ");
      const ph = f.placeholder ? ` placeholder="${escapeHTML(f.placeholder)}"` : "";
      const req = f.required ? " required" : "";
      input = `<input type="number" id="${id}" name="${name}" value="${escapeHTML(values[f.name] ?? "")}" ${attrs}${ph}${req}>`;
    } else {
      input = `<input type="checkbox" id="${id}" name="${name}"${values[f.name] ? " checked" : ""}>`;
    }
    return `<div class="form-group" data-field="${escapeHTML(f.name)}"><label for="${id}">${escapeHTML(f.label)}</label><div class="form-fields">${input}</div>${hint}</div>`;
  }).join("\n");
}

/**
 * Raw form readings -> typed option values.
 * raw: {name: string (select index / number text) | boolean (checkbox)}
 */
export function coerceValues(fields, raw) {
  const out = {};
  for (const f of fields) {
    const v = raw[f.name];
    if (f.kind === "checkbox") out[f.name] = Boolean(v);
    else if (f.kind === "select") {
      const choice = f.choices[Number(v)];
      if (choice) out[f.name] = choice.value;
    } else if (f.kind === "number") {
      if (v === "" || v === undefined || v === null) continue;
      const n = Number(v);
      if (Number.isFinite(n)) out[f.name] = f.step === 1 ? Math.trunc(n) : n;
    }
  }
  return out;
}

/** Read raw values from a form element (DOM). */
export function readForm(form, fields) {
  const raw = {};
  for (const f of fields) {
    const el = form.elements.namedItem(`opt.${f.name}`);
    if (!el) continue;
    raw[f.name] = f.kind === "checkbox" ? el.checked : el.value;
  }
  return coerceValues(fields, raw);
}

// --- the whole outcome before the roll (issue 15) ------------------------------------------------

/** Pure: params with a lang key (`<name>_key`) get its text as `<name>`, as the cards do (cards.py `_params`). */
export function cardParams(params, localize = (k) => k) {
  const out = { ...(params ?? {}) };
  for (const [k, v] of Object.entries(params ?? {})) {
    if (k.endsWith("_key") && typeof v === "string") out[k.slice(0, -4)] = localize(v);
  }
  return out;
}

/**
 * Pure: a probability as a percentage in the client's language; never "0.0%" for a possible
 * outcome. A certain or impossible one (its exact fraction "1/1" or "0/1", or p exactly 1 or 0)
 * reads "100 %" or "0 %", never "> 99.9 %".
 */
export function percentText(p, lang = "en", exact = null) {
  const sure = exact === "1/1" || exact === "1" ? 1 : exact === "0/1" || exact === "0" ? 0 : p;
  if (sure === 1 || sure === 0) return new Intl.NumberFormat(lang, { style: "percent" }).format(sure);
  const fmt = new Intl.NumberFormat(lang, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
  if (p > 0 && p < 0.0005) return `< ${fmt.format(0.001)}`;
  if (p < 1 && p > 0.9995) return `> ${fmt.format(0.999)}`;
  return fmt.format(p);
}

function signedText(v) {
  return typeof v === "number" && v > 0 ? `+${v}` : String(v ?? "");
}

/**
 * Pure: the odds' outcomes, modifiers and notes as HTML tables with headers (issue 15, "the
 * whole outcome before the roll"): each outcome's chance in the client's language with its exact
 * fraction as a tooltip; each modifier with its signed value and the rule it comes from, labelled
 * by the same lang keys and params as the card; per-figure outcomes when the odds have `figures`.
 * The modifiers are grouped by the step they count in, each group under the step's name
 * (`labels.step(id)`) with its total.
 * labels: {outcome, chance, modifier, value, source, notes, noModifiers, exact (with {fraction}),
 * total, step (a function: step id -> its name)}.
 */
export function oddsBreakdown(odds, { format = (k) => k, lang = "en", labels = {} } = {}) {
  const L = { outcome: "Outcome", chance: "Chance", modifier: "Modifier", value: "Value", source: "Source",
    notes: "Notes", noModifiers: "No modifiers", exact: "exactly {fraction}", total: "Total",
    step: (id) => String(id).replace(/_/g, " "), ...labels };
  const say = (key, params) => format(key, cardParams(params, (k) => format(k)));
  // A rule's citation as written; one Firefight words itself is a lang key (cards.py `source`).
  const sourceText = (text) => (typeof text === "string" && text.startsWith("FIREFIGHT.") ? format(text) : text ?? "");
  const exactTitle = (fraction) => (fraction ? ` title="${escapeHTML(L.exact.replace("{fraction}", fraction))}" data-exact="${escapeHTML(fraction)}"` : "");
  const outcomeTable = (outcomes, caption = "") => `<table class="ff-outcomes">${caption ? `<caption>${escapeHTML(caption)}</caption>` : ""}
    <thead><tr><th scope="col">${escapeHTML(L.outcome)}</th><th scope="col" class="ff-num">${escapeHTML(L.chance)}</th></tr></thead>
    <tbody>${outcomes.map((o) => `<tr data-outcome="${escapeHTML(o.key)}" data-probability="${escapeHTML(o.probability)}"${o.probability === 0 ? ' class="ff-impossible"' : ""}>
      <th scope="row">${escapeHTML(say(o.key, o.params))}</th><td class="ff-num"${exactTitle(o.exact)}>${escapeHTML(percentText(o.probability, lang, o.exact))}</td></tr>`).join("")}</tbody></table>`;
  const figures = Array.isArray(odds?.figures) ? odds.figures.filter((f) => Array.isArray(f?.outcomes)) : [];
  const outcomes = figures.length
    ? figures.map((f) => `<div data-figure-odds="${escapeHTML(f.figure ?? "")}">${outcomeTable(f.outcomes, f.name ?? "")}</div>`).join("")
    : Array.isArray(odds?.outcomes) && odds.outcomes.length ? outcomeTable(odds.outcomes) : "";
  const mods = Array.isArray(odds?.modifiers) ? odds.modifiers : [];
  // One table per step the modifiers count in (to hit, to damage ...), in the order they come,
  // each under the step's name and closed by its total: the sum of the rows above it.
  const steps = [...new Set(mods.map((m) => m.step ?? ""))];
  const stepTable = (step) => {
    const rows = mods.filter((m) => (m.step ?? "") === step);
    const total = rows.reduce((sum, m) => sum + (typeof m.value === "number" ? m.value : 0), 0);
    const caption = step ? L.step(step) : "";
    return `<table class="ff-modifiers" data-step="${escapeHTML(step)}">${caption ? `<caption>${escapeHTML(caption)}</caption>` : ""}
    <thead><tr><th scope="col">${escapeHTML(L.modifier)}</th><th scope="col" class="ff-num">${escapeHTML(L.value)}</th><th scope="col">${escapeHTML(L.source)}</th></tr></thead>
    <tbody>${rows.map((m) => `<tr data-modifier="${escapeHTML(m.key)}"><th scope="row">${escapeHTML(say(m.key, m.params))}</th>
      <td class="ff-num">${escapeHTML(signedText(m.value))}</td><td class="ff-source">${escapeHTML(sourceText(m.source))}</td></tr>`).join("")}</tbody>
    <tfoot><tr class="ff-subtotal"><th scope="row">${escapeHTML(L.total)}</th><td class="ff-num" data-total="${total}">${escapeHTML(signedText(Math.round(total * 1000) / 1000))}</td><td></td></tr></tfoot></table>`;
  };
  const modifiers = mods.length ? steps.map(stepTable).join("")
    : Array.isArray(odds?.modifiers) ? `<p class="ff-no-modifiers">${escapeHTML(L.noModifiers)}</p>` : "";
  const noteList = Array.isArray(odds?.notes) ? odds.notes : [];
  const notes = noteList.length ? `<ul class="ff-notes" aria-label="${escapeHTML(L.notes)}">${noteList.map((n) => `<li data-note="${escapeHTML(n.key)}">${escapeHTML(say(n.key, n.params))}${n.source ? ` <span class="ff-source">${escapeHTML(sourceText(n.source))}</span>` : ""}</li>`).join("")}</ul>` : "";
  return { outcomes, why: `${notes}${modifiers}` };
}
