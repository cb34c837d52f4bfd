import { test } from "node:test";
import assert from "node:assert/strict";
import { fill, numberText, fieldErrorsText, errorText, refusalText, t } from "../../js-shim/core/i18n.mjs";
import { fieldsFromSchema, coerceValues } from "../../js-shim/core/form.mjs";

// A Foundry-like game.i18n over a flat table (issue 16: the shim fills placeholders itself).
function withStrings(lang, strings, fn) {
  const before = globalThis.game;
  globalThis.game = { i18n: { lang, localize: (k) => strings[k] ?? k } };
  try {
    return fn();
  } finally {
    globalThis.game = before;
  }
}

test("numbers in the client's language; plural forms by the count", () => {
  assert.equal(numberText(68.28, "de"), "68,28");
  assert.equal(numberText(68.28, "en"), "68.28");
  assert.equal(numberText(7980, "de"), "7980");
  assert.equal(numberText("85.3 %", "de"), "85,3 %"); // a number the engine wrote as text
  assert.equal(numberText("Rifle 1.5", "de"), "Rifle 1.5");
  assert.equal(fill("{n} {n:Runde|Runden}, {d} m", { n: 1, d: 2.5 }, "de"), "1 Runde, 2,5 m");
  assert.equal(fill("{n} {n:Runde|Runden}", { n: 3 }, "de"), "3 Runden");
  assert.equal(fill("{n:a|b} {x}", {}, "en"), "{n:a|b} {x}");
});

test("an engine error reads in the client's language, naming the field by its label", () => {
  const strings = {
    "FIREFIGHT.soe.stat.marksmanship": "Schießen",
    "FIREFIGHT.error.type.less_than_equal": "darf höchstens {le} sein",
    "FIREFIGHT.error.field": "{field} — {reason}",
    "FIREFIGHT.error.invalid": "Ungültige Eingabe ({count} {count:Feld|Felder})",
  };
  const err = {
    message: "invalid actor data request (marksmanship: Input should be less than or equal to 200)",
    key: "FIREFIGHT.error.invalid", params: { count: 2 },
    fields: [
      { field: "marksmanship", reason: "Input should be less than or equal to 200",
        key: "FIREFIGHT.error.type.less_than_equal", params: { le: 200 }, label_key: "FIREFIGHT.soe.stat.marksmanship" },
      { field: "ep", reason: "Field required", key: "FIREFIGHT.error.type.missing", params: {} },
    ],
  };
  withStrings("de", strings, () => {
    // An unknown key falls back to the engine's English; a field without a label key is named by the form.
    assert.equal(fieldErrorsText(err, (path) => (path === "ep" ? "Sprengkraft (EP)" : "")),
      "Schießen — darf höchstens 200 sein; Sprengkraft (EP) — Field required");
    assert.equal(errorText(err), "Ungültige Eingabe (2 Felder)");
    assert.equal(errorText({ message: "plain", error: {} }), "plain");
    assert.equal(t("missing.key", "Fallback {n}", { n: 1.5 }), "Fallback 1,5");
  });
});

test("an optional choice offers no choice ('—'), so the sheet does not show the first as chosen", () => {
  const schema = { properties: { experience: { anyOf: [{ enum: ["green", "elite"], type: "string" }, { type: "null" }],
    default: null, "x-enum-label-keys": ["K.green", "K.elite"] } } };
  const [field] = fieldsFromSchema(schema, (k) => ({ "K.green": "Unerfahren", "K.elite": "Elite" })[k] ?? k);
  assert.deepEqual(field.choices.map((c) => c.label), ["—", "Unerfahren", "Elite"]);
  assert.deepEqual(coerceValues([field], { experience: "0" }), { experience: null });
  assert.deepEqual(coerceValues([field], { experience: "2" }), { experience: "elite" });
});

test("a rule's refusal says its own message, then the field; a validation error its fields alone", () => {
  // Issue 26 item 2: a plugin's rule_error showed only "<label> — <reason>", never its message.
  const refused = { code: "refused", message: "Rifle reaches only 15 m", key: "FIREFIGHT.volley.error.reach.message",
    params: { name: "Rifle", reach: 15 },
    fields: [{ field: "weapon.reach", reason: "at most 15 m", key: "FIREFIGHT.volley.error.reach.field", params: { reach: 15 } }] };
  const invalid = { code: "invalid_request", message: "invalid soe request", key: "FIREFIGHT.error.invalid", params: { count: 1 },
    fields: [{ field: "range.value", reason: "must be at least 0" }] };
  const strings = {
    "FIREFIGHT.volley.error.reach.message": "{name} reicht nur {reach} m weit",
    "FIREFIGHT.volley.error.reach.field": "höchstens {reach} m",
    "FIREFIGHT.error.field": "{field} — {reason}",
    "FIREFIGHT.error.refusal": "{message}: {fields}",
    "FIREFIGHT.error.invalid": "Ungültige Eingabe",
  };
  withStrings("de", strings, () => {
    assert.equal(refusalText(refused, () => "Reichweite (m)"), "Rifle reicht nur 15 m weit: Reichweite (m) — höchstens 15 m");
    assert.equal(refusalText(invalid, () => "Entfernung"), "Entfernung — must be at least 0");
    assert.equal(refusalText({ message: "no fields" }), "no fields");
  });
  withStrings("en", {}, () => { // no strings at all: the engine's English
    assert.equal(refusalText(refused, () => "Reach (m)"), "Rifle reaches only 15 m: Reach (m) — at most 15 m");
  });
});
