import { test } from "node:test";
import assert from "node:assert/strict";
import { stableStringify, resultHash, effectsByActor, flagUpdate, mayRequest } from "../../js-shim/apply.mjs";
import { settingsFromSchema, requestValue } from "../../js-shim/settings.mjs";
import { equipChanges } from "../../js-shim/items.mjs";

test("the result hash ignores key order and sees any change", () => {
  const a = { ruleset: "soe", effects: [{ kind: "hp", delta: -3, target: "target" }], outcome: { hit: true } };
  const b = { outcome: { hit: true }, effects: [{ target: "target", delta: -3, kind: "hp" }], ruleset: "soe" };
  assert.equal(stableStringify(a), stableStringify(b));
  assert.equal(resultHash(a), resultHash(b));
  assert.match(resultHash(a), /^[0-9a-f]{16}$/);
  const changed = structuredClone(a);
  changed.effects[0].delta = -4;
  assert.notEqual(resultHash(changed), resultHash(a));
});

test("multi-unit effects name their actor in params", () => {
  const result = {
    request: { attacker: { actor_id: "A1", token_id: "T1" }, target: { actor_id: "B1", token_id: "T2" } },
    effects: [
      { target: "target", kind: "state", value: "shock", params: { actor_id: "U1", token_id: "TU1", name: "Unit 1" } },
      { target: "target", kind: "wounds", delta: -3, params: { actor_id: "U1", token_id: "TU1", name: "Unit 1" } },
      { target: "attacker", kind: "impact", value: 3 },
      { target: "target", kind: "note" },
    ],
  };
  const groups = effectsByActor(result);
  assert.deepEqual(groups.map((g) => [g.actorId, g.tokenId, g.effects.length]), [["U1", "TU1", 2], ["A1", "T1", 1], ["B1", "T2", 1]]);
});

test("flagUpdate writes exactly the new data, deleting keys it lost", () => {
  assert.deepEqual(flagUpdate("soe", { hp: 3, toughness: 8 }, { hp: -2, hp_max: 8 }), {
    "flags.firefight.soe.hp": -2, "flags.firefight.soe.hp_max": 8, "flags.firefight.soe.-=toughness": null,
  });
});

test("only the author or a GM may ask for a message to be applied", () => {
  const message = { author: { id: "P1" } };
  assert.equal(mayRequest(message, { id: "P1", isGM: false }), true);
  assert.equal(mayRequest(message, { id: "P2", isGM: false }), false);
  assert.equal(mayRequest(message, { id: "GM", isGM: true }), true);
});

test("ruleset settings come from the settings schema with lang keys", () => {
  const schema = { type: "object", properties: {
    tie: { type: "string", enum: ["player", "attacker"], default: "player", "x-label-key": "K.tie", "x-enum-label-keys": ["K.player", "K.attacker"] },
    pretrauma: { type: "boolean", default: false, "x-label-key": "K.pre" },
    inch_equals: { anyOf: [{ type: "number", exclusiveMinimum: 0 }, { type: "null" }], default: null, title: "Inch Equals" },
  } };
  const list = settingsFromSchema("soe", schema);
  assert.deepEqual(list.map((s) => s.key), ["soe.tie", "soe.pretrauma", "soe.inch_equals"]);
  const [tie, pre, inch] = list;
  assert.equal(tie.data.type, String);
  assert.deepEqual(tie.data.choices, { player: "K.player", attacker: "K.attacker" });
  assert.equal(tie.data.name, "K.tie");
  assert.equal(tie.data.scope, "world");
  assert.equal(pre.data.type, Boolean);
  assert.equal(inch.data.type, Number);
  assert.equal(inch.data.default, 0);
  assert.equal(requestValue(inch.field, 0), undefined); // unset: not sent
  assert.equal(requestValue(inch.field, 2.5), 2.5);
  assert.equal(requestValue(tie.field, "attacker"), "attacker");
});

test("a weapon or armor dropped on an actor is equipped", () => {
  const armor = { flags: { firefight: { soe: { category: "armor" } } } };
  assert.deepEqual(equipChanges(armor, 5), { "flags.firefight.equipped": true, "flags.firefight.equippedAt": 5 });
  assert.equal(equipChanges({ flags: { firefight: { soe: { category: "armor" }, equipped: false } } }), null);
  assert.equal(equipChanges({ flags: {} }), null);
  assert.equal(equipChanges({ flags: { firefight: { soe: { category: "trauma" } } } }), null);
});
