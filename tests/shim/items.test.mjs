// Items dropped on actors (items.mjs): a weapon or armor made for other rulesets only is refused
// with a reason; the item sheet's pure parts (item-sheet.mjs).
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { otherRulesets, refusalText, onPreCreateItem, equipChanges } from "../../js-shim/documents/items.mjs";
import { fieldLabel, itemSheetHooks, mayEdit } from "../../js-shim/documents/item-sheet.mjs";
import { adapterFor } from "../../js-shim/systems/index.mjs";

const weapon = (ruleset, extra = {}) => ({ name: "Arisaka", flags: { firefight: { [ruleset]: { category: "weapon", magazine: 5 }, ...extra } } });

let warned;
beforeEach(() => {
  warned = [];
  globalThis.game = { user: { id: "u1" }, settings: { get: () => "soe" } };
  globalThis.ui = { notifications: { warn: (m) => warned.push(m), info: () => {}, error: () => {} } };
});

test("an item whose weapon or armor data is all for other rulesets is named with them", () => {
  assert.deepEqual(otherRulesets(weapon("percentile"), "soe"), { rulesets: ["percentile"], category: "weapon" });
  // Data for the world's ruleset too, no Firefight data, or no weapon/armor data: not refused.
  assert.equal(otherRulesets(weapon("percentile", { soe: { category: "weapon", damage: 1 } }), "soe"), null);
  assert.equal(otherRulesets({ name: "Sword", flags: {} }, "soe"), null);
  assert.equal(otherRulesets({ flags: { firefight: { equipped: true, conditions: [], x: { category: "trauma" } } } }, "soe"), null);
});

test("the refusal names the item, its kind, its ruleset, the world's and the actor", () => {
  const text = refusalText({ name: "Arisaka" }, { name: "Vera" }, { rulesets: ["percentile"], category: "weapon" }, "soe");
  for (const part of ["Arisaka", "weapon", "percentile", "soe", "Vera"]) assert.ok(text.includes(part), text);
});

test("preCreateItem cancels a foreign weapon on an actor and warns; an own one is equipped", () => {
  const parent = { documentName: "Actor", name: "Vera" };
  let changed = null;
  const item = (data) => ({ ...data, parent, updateSource: (c) => (changed = c) });
  const foreign = weapon("percentile");
  assert.equal(onPreCreateItem(item(foreign), foreign, {}, "u1"), false);
  assert.equal(warned.length, 1);
  assert.ok(warned[0].includes("Arisaka") && warned[0].includes("percentile"));
  const own = weapon("soe");
  assert.equal(onPreCreateItem(item(own), own, {}, "u1"), undefined);
  assert.deepEqual(Object.keys(changed), Object.keys(equipChanges(own)));
  // Another user's creation is that user's client's business.
  assert.equal(onPreCreateItem(item(foreign), foreign, {}, "u2"), undefined);
  assert.equal(warned.length, 1);
});

test("an engine error's field is named by the item form's label", () => {
  const schema = { properties: { damage: { "x-label-key": "K.damage" } } };
  const localize = (k) => (k === "K.damage" ? "Damage" : k);
  assert.equal(fieldLabel(schema, "damage", localize), "Damage");
  assert.equal(fieldLabel(schema, "locations[0]", localize), "");
  assert.equal(fieldLabel(schema, "other", localize), "");
});

test("item sheet hooks and edit rights come from the system and the sheet", () => {
  assert.deepEqual(itemSheetHooks(adapterFor("core-less-system")), ["renderItemSheetV2", "renderItemSheet"]);
  assert.ok(itemSheetHooks(adapterFor("dnd5e")).includes("renderItemSheet5e"));
  assert.equal(mayEdit({ isEditable: false }, { isOwner: true }), false);
  assert.equal(mayEdit({}, { isOwner: true }), true);
});
