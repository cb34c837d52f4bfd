import { test } from "node:test";
import assert from "node:assert/strict";
import { fieldsFromSchema, defaultValues, renderFields, coerceValues, escapeHTML, percentText } from "../../js-shim/core/form.mjs";

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

// --- x-choices-when (issue 15: soe's Table 10 rows only in worlds that use Table 10) ------------

const rowsSchema = {
  type: "object",
  properties: {
    visibility: { enum: ["daylight", "indoors", "office", "corridor"], type: "string", default: "indoors",
      "x-choices-when": { setting: "visibility_table", values: { table1: ["daylight", "indoors"], table10: ["daylight", "office", "corridor"] } } },
    wind: { enum: ["none", "light"], type: "string", default: "none" },
  },
};

test("choicesUnder offers only the choices valid under the world setting's value", async () => {
  const { choicesUnder } = await import("../../js-shim/core/form.mjs");
  const fields = fieldsFromSchema(rowsSchema);
  const t1 = choicesUnder(fields, { visibility_table: "table1" });
  assert.deepEqual(t1[0].choices.map((c) => c.value), ["daylight", "indoors"]);
  assert.equal(t1[0].default, "indoors");
  const t10 = choicesUnder(fields, { visibility_table: "table10" });
  assert.deepEqual(t10[0].choices.map((c) => c.value), ["daylight", "office", "corridor"]);
  // A default the setting does not offer gives way to the first offered choice.
  assert.equal(t10[0].default, "daylight");
  assert.equal(defaultValues(t10).visibility, "daylight");
  // The rendered select has only the offered rows, and its indexes read back to them.
  const html = renderFields(t10);
  assert.ok(!html.includes(">Indoors<"));
  assert.deepEqual(coerceValues(t10, { visibility: "1", wind: "0" }), { visibility: "office", wind: "none" });
  // Fields without the key, or a setting the world lacks / a value the map does not list: all choices.
  assert.equal(t10[1], fields[1]);
  assert.equal(choicesUnder(fields, {})[0], fields[0]);
  assert.equal(choicesUnder(fields, { visibility_table: "table99" })[0], fields[0]);
});

// --- the whole outcome before the roll (issue 15) ----------------------------------------------

const odds = {
  probability: 0.75, exact: "3/4",
  modifiers: [
    { key: "FIREFIGHT.x.mod.range", value: -2, source: "x Table 1", params: { range: 40 } },
    { key: "FIREFIGHT.x.mod.skill", value: 7, source: "x Table 2", params: { what_key: "FIREFIGHT.x.skill" } },
  ],
  outcomes: [
    { key: "FIREFIGHT.x.odds.miss", probability: 0.25, exact: "1/4" },
    { key: "FIREFIGHT.x.odds.hit", probability: 0.7499, exact: "7499/10000" },
    { key: "FIREFIGHT.x.odds.kill", probability: 0.0001, exact: "1/10000" },
  ],
  notes: [{ key: "FIREFIGHT.x.note.arc", params: { bearing: 170 }, source: "x Facing" }],
};
const strings = {
  "FIREFIGHT.x.mod.range": "Range {range} m", "FIREFIGHT.x.mod.skill": "Skill ({what})", "FIREFIGHT.x.skill": "rifle",
  "FIREFIGHT.x.odds.miss": "Miss", "FIREFIGHT.x.odds.hit": "Hit", "FIREFIGHT.x.odds.kill": "Kill",
  "FIREFIGHT.x.note.arc": "Target {bearing}° off: hasty fire",
};
const format = (k, p = {}) => (strings[k] ?? k).replace(/\{(\w+)\}/g, (m, n) => (n in p ? String(p[n]) : m));

test("oddsBreakdown: every outcome with its chance and exact fraction, every modifier with its source, in tables with headers", async () => {
  const { oddsBreakdown } = await import("../../js-shim/core/form.mjs");
  const { outcomes, why } = oddsBreakdown(odds, { format, lang: "en" });
  assert.match(outcomes, /<th scope="col">Outcome<\/th>/);
  assert.match(outcomes, /<th scope="row">Miss<\/th><td class="ff-num" title="exactly 1\/4" data-exact="1\/4">25.0%<\/td>/);
  assert.match(outcomes, /<th scope="row">Hit<\/th><td[^>]*>75.0%<\/td>/);
  // A possible outcome never reads 0.0 %.
  assert.match(outcomes, /<th scope="row">Kill<\/th><td[^>]*>&lt; 0.1%<\/td>/);
  assert.match(why, /<th scope="col">Modifier<\/th><th scope="col" class="ff-num">Value<\/th><th scope="col">Source<\/th>/);
  // The card's labels: lang keys with params, `<name>_key` params translated (cards.py `_params`).
  assert.match(why, /<th scope="row">Range 40 m<\/th>\s*<td class="ff-num">-2<\/td><td class="ff-source">x Table 1<\/td>/);
  assert.match(why, /<th scope="row">Skill \(rifle\)<\/th>\s*<td class="ff-num">\+7<\/td>/);
  assert.match(why, /<li data-note="FIREFIGHT.x.note.arc">Target 170° off: hasty fire <span class="ff-source">x Facing<\/span><\/li>/);
  assert.ok(!/FIREFIGHT\./.test(outcomes.replace(/data-outcome="[^"]*"/g, "")));
  // The client's language formats the numbers.
  assert.match(oddsBreakdown(odds, { format, lang: "de" }).outcomes, />25,0\s%</);
});

test("oddsBreakdown: area fire lists each figure's outcomes under its name; no odds, nothing", async () => {
  const { oddsBreakdown } = await import("../../js-shim/core/form.mjs");
  const area = { probability: 0.2, modifiers: [], outcomes: odds.outcomes,
    figures: [{ figure: 0, name: "Ann <A>", outcomes: odds.outcomes.slice(0, 2) }, { figure: 1, name: "Bo", outcomes: odds.outcomes }] };
  const { outcomes, why } = oddsBreakdown(area, { format, labels: { noModifiers: "None" } });
  assert.equal((outcomes.match(/<table class="ff-outcomes">/g) ?? []).length, 2);
  assert.match(outcomes, /<div data-figure-odds="0"><table class="ff-outcomes"><caption>Ann &lt;A&gt;<\/caption>/);
  assert.match(why, /None/);
  assert.deepEqual(oddsBreakdown({}, { format }), { outcomes: "", why: "" });
});

test("a certain or impossible outcome reads 100 % or 0 %, never > 99.9 % (UX walkthrough 3 #6)", () => {
  assert.equal(percentText(0.9999999999999998, "en", "1/1"), "100%");
  assert.equal(percentText(1, "en"), "100%");
  assert.equal(percentText(0, "de", "0/1"), "0\u00a0%");
  assert.equal(percentText(0.9999, "en", "9999/10000"), "> 99.9%");
  assert.equal(percentText(0.5, "de", "1/2"), "50,0\u00a0%");
});

test("oddsBreakdown: the modifiers grouped by step, each table named and closed by its total", async () => {
  const { oddsBreakdown } = await import("../../js-shim/core/form.mjs");
  const stepped = { ...odds, modifiers: [
    { ...odds.modifiers[0], step: "to_hit" }, { ...odds.modifiers[1], step: "to_hit" },
    { key: "FIREFIGHT.x.mod.armor", value: -3, source: "x Table 6", step: "to_damage" },
  ] };
  const names = { to_hit: "To hit", to_damage: "To damage" };
  const { why } = oddsBreakdown(stepped, { format, labels: { step: (id) => names[id], total: "Total" } });
  const tables = why.match(/<table class="ff-modifiers" data-step="[^"]+">[\s\S]*?<\/table>/g) ?? [];
  assert.equal(tables.length, 2);
  assert.match(tables[0], /<caption>To hit<\/caption>/);
  assert.match(tables[0], /<tfoot><tr class="ff-subtotal"><th scope="row">Total<\/th><td class="ff-num" data-total="5">\+5<\/td>/);
  assert.match(tables[1], /<caption>To damage<\/caption>[\s\S]*data-total="-3">-3</);
});
