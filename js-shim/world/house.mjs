// House rules in the action dialogs (pure): each house rule of the catalog for the ruleset and
// action (js-shim/world/catalog.mjs `houseRules`) gets its dialog fields, generated from its options
// schema like any option, under a "House rules" heading; the request carries every such rule as
// `house.<rule id> = {options, settings}` (its world settings "house.<rule id>.<field>").
import { fieldsFromSchema, renderFields, escapeHTML } from "../core/form.mjs";

/** Pure: the dialog fields of house rules, each named "house.<rule id>.<field>". */
export function houseFields(rules, localize = (k) => k, opts = {}) {
  return (rules ?? []).flatMap((rule) => fieldsFromSchema(rule.options ?? {}, localize, opts)
    .map((f) => ({ ...f, name: `house.${rule.id}.${f.name}`, rule: rule.id })));
}

/** Pure: dialog values ({"house.<id>.<field>": value}) -> {<rule id>: {field: value}} for every rule. */
export function houseOptions(values, rules) {
  const out = Object.fromEntries((rules ?? []).map((r) => [r.id, {}]));
  // The longest id first, so a rule id that prefixes another's never takes its fields.
  const byLength = [...(rules ?? [])].sort((a, b) => b.id.length - a.id.length);
  for (const [key, value] of Object.entries(values ?? {})) {
    if (!key.startsWith("house.")) continue;
    const rest = key.slice("house.".length);
    const rule = byLength.find((r) => rest.startsWith(`${r.id}.`));
    if (rule) out[rule.id][rest.slice(rule.id.length + 1)] = value;
  }
  return out;
}

/**
 * Pure: `request.house`: every rule, with the options chosen for it ({} = its defaults) and its
 * world settings (`settingsOf(rule id)`).
 */
export function houseRequest(rules, options = {}, settingsOf = () => ({})) {
  const out = {};
  for (const rule of rules ?? []) {
    out[rule.id] = { options: structuredClone(options?.[rule.id] ?? {}), settings: structuredClone(settingsOf(rule.id) ?? {}) };
  }
  return out;
}

/** Pure: `request.house` -> the options chosen per rule (what a player's client may choose). */
export function chosenHouseOptions(house) {
  const out = {};
  for (const [id, part] of Object.entries(house ?? {})) out[id] = structuredClone(part?.options ?? {});
  return out;
}

/**
 * Pure: whether house options a player's client sent name only the rules given and only their
 * dialog fields: null, or the first field that is not ("house.<id>" / "house.<id>.options.<field>").
 */
export function unknownHouseOption(chosen, rules, localize = (k) => k) {
  if (chosen === undefined || chosen === null) return null;
  if (typeof chosen !== "object" || Array.isArray(chosen)) return "house";
  for (const [id, options] of Object.entries(chosen)) {
    const rule = (rules ?? []).find((r) => r.id === id);
    if (!rule) return `house.${id}`;
    if (options === null || typeof options !== "object" || Array.isArray(options)) return `house.${id}.options`;
    const known = new Set(fieldsFromSchema(rule.options ?? {}, localize).map((f) => f.name));
    const extra = Object.keys(options).find((k) => !known.has(k));
    if (extra) return `house.${id}.options.${extra}`;
  }
  return null;
}

/** Pure: the "House rules" section of a dialog (empty when no rule has a field). */
export function houseSectionHTML(rules, fields, values, { heading = "House rules", localize = (k) => k } = {}) {
  const parts = (rules ?? []).map((rule) => {
    const mine = fields.filter((f) => f.rule === rule.id);
    if (!mine.length) return "";
    const label = localize(rule.label_key);
    return `<div class="ff-house-rule" data-house-rule="${escapeHTML(rule.id)}"><p class="ff-house-name">${escapeHTML(label && label !== rule.label_key ? label : rule.id)}</p>
      ${renderFields(mine, values)}</div>`;
  }).filter(Boolean);
  if (!parts.length) return "";
  return `<fieldset class="ff-house" data-firefight-house><legend>${escapeHTML(heading)}</legend>${parts.join("\n")}</fieldset>`;
}
