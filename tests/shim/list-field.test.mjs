// Texts and lists on a Firefight tab (list-field.mjs): fields from the schema, rows drawn and read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fieldsFromSchema } from "../../js-shim/core/form.mjs";
import { extraFields, extraFieldsHTML, rowValue } from "../../js-shim/documents/list-field.mjs";

// Shaped like pydantic's JSON schema (SoeStats.delayed_injuries, ShockWeapon.calibre, ...).
const schema = {
  properties: {
    hp: { type: "integer", default: 8 },
    delayed_injuries: { type: "array", maxItems: 3, "x-label-key": "K.injuries",
      items: { type: "string", enum: ["minor", "severe"], "x-enum-label-keys": ["K.minor", "K.severe"] } },
    calibre: { type: "string", maxLength: 100, "x-label-key": "K.calibre" },
    locations: { type: "array", minItems: 1, items: { $ref: "#/$defs/Loc" } },
    wounds: { type: "array", items: { $ref: "#/$defs/Wound" } },
    odd: { type: "object" },
  },
  $defs: {
    Loc: { type: "string", enum: ["head", "leg"] },
    Wound: { type: "object", properties: { where: { $ref: "#/$defs/Loc" }, deep: { type: "boolean" } } },
  },
};
const dict = { "K.injuries": "Delayed injuries", "K.minor": "Minor", "K.severe": "Severe", "K.calibre": "Calibre" };
const localize = (k) => dict[k] ?? k;
const extras = () => extraFields(schema, fieldsFromSchema(schema, localize), localize);

test("the fields the simple form leaves out become texts, lists and JSON", () => {
  const got = Object.fromEntries(extras().map((f) => [f.name, f]));
  assert.deepEqual(Object.keys(got), ["delayed_injuries", "calibre", "locations", "wounds", "odd"]);
  assert.equal(got.calibre.kind, "text");
  assert.equal(got.calibre.maxLength, 100);
  assert.equal(got.delayed_injuries.kind, "list");
  assert.equal(got.delayed_injuries.plain, true);
  assert.equal(got.delayed_injuries.max, 3);
  assert.deepEqual(got.delayed_injuries.row[0].choices.map((c) => c.label), ["Minor", "Severe"]);
  assert.equal(got.locations.min, 1);
  assert.equal(got.locations.rowDefault, "head");
  assert.equal(got.wounds.plain, false);
  assert.deepEqual(got.wounds.row.map((f) => f.name), ["where", "deep"]);
  assert.equal(got.odd.kind, "json");
});

test("a row's readings become its entry", () => {
  const [injuries, , , wounds] = extras();
  assert.equal(rowValue(injuries, { value: "1" }), "severe");
  assert.deepEqual(rowValue(wounds, { where: "1", deep: true }), { where: "leg", deep: true });
});

test("a list is a row per entry with labelled remove buttons and an add button", () => {
  const html = extraFieldsHTML(extras(), { delayed_injuries: ["minor", "severe"], calibre: '<b>"9mm"</b>' },
    { add: "Add", remove: "Remove" });
  const list = html.slice(html.indexOf('data-list="delayed_injuries"'), html.indexOf("</fieldset>"));
  assert.equal((list.match(/data-list-row/g) ?? []).length, 2);
  assert.ok(list.includes('aria-label="Remove Delayed injuries 2"'));
  assert.ok(list.includes('aria-label="Delayed injuries 1"'));
  assert.ok(list.includes("<option value=\"1\" selected>Severe</option>"));
  assert.ok(list.includes(">Add: Delayed injuries</button>"));
  assert.ok(html.includes('value="&lt;b&gt;&quot;9mm&quot;&lt;/b&gt;" maxlength="100"'));
  assert.ok(!html.includes('name="opt.'), "row inputs are read by row, not by name");
});

// An actor's conditions as the engine declares them (py/firefight/house.py _conditions_field): a
// set of ids, `uniqueItems`; one declared condition is a `const`, as pydantic writes a one-value Literal.
const conditionSchema = (items) => ({ properties: { conditions: { type: "array", uniqueItems: true,
  maxItems: 20, "x-label-key": "K.conditions", items } } });
const condDict = { "K.conditions": "Conditions", "K.dazzled": "Dazzled", "K.pinned": "Pinned" };
const condLocalize = (k) => condDict[k] ?? k;

test("a set of choices (an actor's conditions) is a checkbox per choice, labelled by its key", () => {
  for (const items of [
    { type: "string", const: "dazzled", "x-enum-label-keys": ["K.dazzled"] },
    { type: "string", enum: ["dazzled", "pinned"], "x-enum-label-keys": ["K.dazzled", "K.pinned"] },
  ]) {
    const s = conditionSchema(items);
    const [f] = extraFields(s, fieldsFromSchema(s, condLocalize), condLocalize);
    assert.equal(f.kind, "set");
    assert.equal(f.label, "Conditions");
    const html = extraFieldsHTML([f], { conditions: ["dazzled"] });
    assert.equal((html.match(/type="checkbox"/g) ?? []).length, f.choices.length);
    assert.match(html, /data-set-value="dazzled" checked> Dazzled<\/label>/);
    if (f.choices.length > 1) assert.match(html, /data-set-value="pinned"> Pinned<\/label>/);
    assert.ok(!html.includes('name="json.'), "no JSON text to type");
  }
});
