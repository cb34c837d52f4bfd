import { test } from "node:test";
import assert from "node:assert/strict";
import { fieldsFromSchema, defaultValues, renderFields, coerceValues, escapeHTML } from "../../js-shim/form.mjs";

// Shaped like pydantic's JSON schema for an options model.
const schema = {
  title: "Options", type: "object",
  $defs: { Mode: { enum: ["quickfire", "aimed", "sniper"], title: "Mode", type: "string" } },
  properties: {
    mode: { $ref: "#/$defs/Mode", default: "aimed", "x-label-key": "FIREFIGHT.soe.opt.mode" },
    position: { enum: ["standing", "kneeling", "prone"], type: "string", default: "standing", title: "Position",
      "x-enum-label-keys": { prone: "FIREFIGHT.soe.position.prone" } },
    target_size_cm: { type: "integer", minimum: 2, maximum: 1800, default: 90, title: "Target size (cm)" },
    wind_kmh: { anyOf: [{ type: "number" }, { type: "null" }], default: null, title: "Wind" },
    perfect_ranging: { type: "boolean", default: false, title: "Perfect ranging" },
    scope: { type: "boolean", title: "Scope" },
    visibility: { oneOf: [{ const: "day", title: "Daylight" }, { const: "night", "x-label-key": "K.night" }], default: "night" },
    notes: { type: "array", items: { type: "string" } },
  },
};
const dict = { "FIREFIGHT.soe.opt.mode": "Firing mode", "FIREFIGHT.soe.position.prone": "Prone", "K.night": "Night" };
const localize = (k) => dict[k] ?? k;

test("schema properties map to select / number / checkbox", () => {
  const fields = fieldsFromSchema(schema, localize);
  assert.deepEqual(fields.map((f) => [f.name, f.kind]), [
    ["mode", "select"], ["position", "select"], ["target_size_cm", "number"], ["wind_kmh", "number"],
    ["perfect_ranging", "checkbox"], ["scope", "checkbox"], ["visibility", "select"],
  ]);
  const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
  assert.equal(byName.mode.label, "Firing mode");
  assert.deepEqual(byName.mode.choices.map((c) => c.value), ["quickfire", "aimed", "sniper"]);
  assert.deepEqual(byName.position.choices.map((c) => c.label), ["Standing", "Kneeling", "Prone"]);
  assert.equal(byName.target_size_cm.step, 1);
  assert.equal(byName.target_size_cm.min, 2);
  assert.equal(byName.wind_kmh.step, "any");
  assert.deepEqual(byName.visibility.choices, [{ value: "day", label: "Daylight" }, { value: "night", label: "Night", labelKey: "K.night" }]);
  assert.equal(byName.perfect_ranging.label, "Perfect ranging");
});

test("defaults, HTML and coercion round-trip", () => {
  const fields = fieldsFromSchema(schema, localize);
  const values = defaultValues(fields);
  assert.deepEqual(values, { mode: "aimed", position: "standing", target_size_cm: 90, wind_kmh: null,
    perfect_ranging: false, scope: false, visibility: "night" });
  const html = renderFields(fields, values);
  assert.match(html, /<select id="firefight-opt-mode" name="opt.mode"><option value="0">Quickfire<\/option><option value="1" selected>Aimed/);
  assert.match(html, /<input type="number" id="firefight-opt-target_size_cm" name="opt.target_size_cm" value="90" min="2" max="1800" step="1">/);
  assert.match(html, /<input type="checkbox" id="firefight-opt-perfect_ranging" name="opt.perfect_ranging">/);
  assert.match(html, /name="opt.wind_kmh" value="" step="any" placeholder="auto">/);
  const out = coerceValues(fields, { mode: "2", position: "2", target_size_cm: "30.7", wind_kmh: "", perfect_ranging: true, scope: false, visibility: "0" });
  assert.deepEqual(out, { mode: "sniper", position: "prone", target_size_cm: 30, perfect_ranging: true, scope: false, visibility: "day" });
});

test("labels are escaped", () => {
  assert.equal(escapeHTML(`<b a="1">&'`), "&lt;b a=&quot;1&quot;&gt;&amp;&#39;");
  const html = renderFields(fieldsFromSchema({ properties: { x: { type: "boolean", title: "<script>" } } }));
  assert.ok(!html.includes("<script>"));
});

test("an empty or missing schema gives no fields", () => {
  assert.deepEqual(fieldsFromSchema(undefined), []);
  assert.deepEqual(fieldsFromSchema({ type: "object" }), []);
});
