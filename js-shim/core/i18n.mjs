// Localize with an English fallback, so a missing key never shows raw. Placeholders are filled
// here, as the engine's cards fill them (py/firefight/i18n.py `fill`): `{name}`, numbers in the
// client's language, and `{count:one|other}` plural forms.

const PLACEHOLDER = /\{(\w+)\}/g;
const PLURAL = /\{(\w+):([^{}|]*)\|([^{}]*)\}/g;

/** The client's language (Foundry's `game.i18n.lang`). */
export function clientLang() {
  return globalThis.game?.i18n?.lang || "en";
}

function decimalSeparator(lang) {
  try {
    return new Intl.NumberFormat(lang).formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? ".";
  } catch {
    return ".";
  }
}

// A number the engine wrote as text ("0.37", "85.3 %").
const NUMBER_TEXT = /^[−-]?\d+\.\d+(?: ?%)?$/;

/** Pure: a number as `lang` writes it (de "68,28"); whole numbers as they are, without grouping. */
export function numberText(value, lang = clientLang(), digits = undefined) {
  if (typeof value === "string" && NUMBER_TEXT.test(value)) return value.replace(".", decimalSeparator(lang));
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value ?? "");
  const text = digits === undefined ? String(value) : value.toFixed(digits);
  return text.includes(".") ? text.replace(".", decimalSeparator(lang)) : text;
}

function pluralCategory(count, lang) {
  try {
    return new Intl.PluralRules(lang).select(Number(count));
  } catch {
    return Number(count) === 1 ? "one" : "other";
  }
}

/** Pure: fill a lang string's placeholders and plural forms from `data`; unknown ones stay. */
export function fill(text, data = {}, lang = clientLang()) {
  return String(text)
    .replace(PLURAL, (m, k, one, other) => (k in data ? (pluralCategory(data[k], lang) === "one" ? one : other) : m))
    .replace(PLACEHOLDER, (m, k) => (k in data ? numberText(data[k], lang) : m));
}

export function t(key, fallback = key, data = undefined) {
  const i18n = globalThis.game?.i18n;
  let text = i18n ? i18n.localize(key) : key;
  if (!text || text === key) text = fallback;
  return data ? fill(text, spoken(data)) : text;
}

/** Params with each `said` text among them (an engine error's stand-in name, errors.py `named`) said here. */
function spoken(data) {
  const out = { ...data };
  for (const [k, v] of Object.entries(out)) if (v && typeof v === "object" && typeof v.key === "string") out[k] = localize(v);
  return out;
}

/**
 * An engine error's fields in the client's language: "Label — reason" each, the label from the
 * field's `label_key` (engine, py/firefight/errors.py), else `labelOf(field)` (the form's own
 * label), else the field's path; the reason from its `key` and `params`, else the engine's text.
 */
export function fieldErrorsText(err, labelOf = () => "") {
  return (err?.fields ?? []).map((f) => {
    const path = String(f.field ?? "");
    const keyed = f.label_key ? t(f.label_key, "") : "";
    const label = keyed || labelOf(path) || path;
    const reason = f.key ? t(f.key, f.reason ?? "", f.params ?? {}) : f.reason ?? "";
    return t("FIREFIGHT.error.field", "{field} — {reason}", { field: label, reason });
  }).join("; ");
}

/**
 * An error as a dialog's one line: a rule's refusal (a field the rule worded, its `key`: the
 * engine's `rule_error`) says its own message and then the fields at fault by their labels
 * ("Rifle reaches only 15 m: Range — at most 15 m"); a validation error, whose message only
 * counts the fields, says the fields alone; an error without fields, its message.
 */
export function refusalText(err, labelOf = () => "") {
  const fields = fieldErrorsText(err, labelOf);
  if (!fields) return errorText(err);
  if (!(err?.fields ?? []).some((f) => f.key)) return fields;
  return t("FIREFIGHT.error.refusal", "{message}: {fields}", { message: errorText(err), fields });
}

/** An engine error as the client's language says it (its `key`, else its English message). */
export function errorText(err) {
  const { key, params } = err?.key ? err : err?.error ?? {}; // an EngineError keeps the reply in .error
  if (key) return t(key, err.message ?? "", params ?? {});
  return err?.message ?? String(err);
}

/**
 * Pure: a text to localize later, on another client (a relayed refusal): {key, fallback, params};
 * a param may itself be one (a field's label), localized with it.
 */
export function said(key, fallback, params = {}) {
  return { key, fallback, params };
}

const MAX_SAID_DEPTH = 3;

/** A `said` text (or plain text) in this client's language; `fallback` if the key is unknown here. */
export function localize(text, depth = 0) {
  if (!text || typeof text !== "object") return String(text ?? "");
  const params = {};
  for (const [k, v] of Object.entries(text.params ?? {})) {
    if (!v || typeof v !== "object") params[k] = v;
    else params[k] = depth < MAX_SAID_DEPTH ? localize(v, depth + 1) : String(v.fallback ?? "");
  }
  return t(String(text.key ?? ""), String(text.fallback ?? text.key ?? ""), params);
}
