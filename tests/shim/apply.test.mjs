import { test } from "node:test";
import assert from "node:assert/strict";
import { stableStringify, resultHash, effectsByActor, flagUpdate, mayRequest } from "../../js-shim/documents/apply.mjs";
import { settingsFromSchema, requestValue } from "../../js-shim/world/settings.mjs";
import { equipChanges } from "../../js-shim/documents/items.mjs";

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

// --- atomic writes and token addresses -------------------------------------------------------------

import { writeAll, actorFor, tokenDocument } from "../../js-shim/documents/apply.mjs";
import { tokenAddress, ownsToken, actingParticipant } from "../../js-shim/workflow/request.mjs";

function recordingActor(name, { failOn = null } = {}) {
  const actor = { name, flags: { firefight: { soe: { hp: 10 } } }, statuses: new Set(), writes: 0,
    async update(u) {
      this.writes++;
      if (failOn === this.writes) throw new Error(`${name}: the server refused the update`);
      for (const [k, v] of Object.entries(u)) if (k === "flags.firefight.soe.hp") this.flags.firefight.soe.hp = v;
    },
    async toggleStatusEffect(id, { active }) {
      if (active) this.statuses.add(id);
      else this.statuses.delete(id);
    } };
  return actor;
}

test("writeAll: a failure on the second actor writes the first back, statuses too", async () => {
  globalThis.game = { i18n: { localize: (k) => k, format: (k) => k } };
  const first = recordingActor("Able");
  const second = recordingActor("Baker", { failOn: 1 });
  const step = (actor) => ({ actor, update: { "flags.firefight.soe.hp": 4 }, revert: { "flags.firefight.soe.hp": 10 },
    statuses: [{ id: "prone", active: true, was: false }] });
  let recorded = false;
  await assert.rejects(writeAll([step(first), step(second), { run: async () => { recorded = true; } }]), (err) => {
    assert.equal(err.code, "rolled_back");
    assert.match(err.message, /Baker: the server refused the update/);
    return true;
  });
  assert.equal(first.flags.firefight.soe.hp, 10);
  assert.deepEqual([...first.statuses], []);
  assert.equal(second.flags.firefight.soe.hp, 10);
  assert.equal(recorded, false);
  // The record failing (the last write) undoes every actor as well.
  const third = recordingActor("Charlie");
  await assert.rejects(writeAll([step(third), { run: async () => { throw new Error("message update refused"); } }]),
    (err) => err.code === "rolled_back");
  assert.equal(third.flags.firefight.soe.hp, 10);
  assert.deepEqual([...third.statuses], []);
});

test("an effect finds its token's own actor by UUID on any scene, never the world actor instead", () => {
  const worldActor = { id: "NPC", name: "world" };
  const synthetic1 = { id: "NPC", name: "token 1" };
  const synthetic2 = { id: "NPC", name: "token 2" };
  const t1 = { id: "t1", uuid: "Scene.other.Token.t1", actor: synthetic1 };
  const t2 = { id: "t2", uuid: "Scene.other.Token.t2", actor: synthetic2 };
  const scene = { id: "other", tokens: new Map([["t1", t1], ["t2", t2]]) };
  // The GM views another scene (nothing on the canvas).
  globalThis.canvas = { tokens: new Map(), scene: { tokens: new Map() } };
  globalThis.game = { actors: new Map([["NPC", worldActor]]), scenes: [scene] };
  globalThis.fromUuidSync = (uuid) => (uuid.startsWith("Scene.other.Token.") ? scene.tokens.get(uuid.split(".")[3]) : null);
  try {
    assert.equal(actorFor({ actorId: "NPC", tokenId: "Scene.other.Token.t2" }), synthetic2);
    assert.equal(actorFor({ actorId: "NPC", tokenId: "t1" }), synthetic1); // a bare id, on another scene
    assert.equal(tokenDocument("Scene.other.Token.t1"), t1);
    assert.equal(actorFor({ actorId: "NPC", tokenId: "Scene.other.Token.gone" }), null);
    assert.equal(actorFor({ actorId: "NPC", tokenId: null }), worldActor); // no token named: the world actor
  } finally {
    delete globalThis.fromUuidSync;
  }
});

test("requests carry the token's UUID; only its owner (or a GM) acts with it", () => {
  const owner = { id: "P1", isGM: false };
  const other = { id: "P2", isGM: false };
  const actor = { id: "A", testUserPermission: (user, level) => level === "OWNER" && user.id === "P1" };
  const token = { id: "t1", actor, document: { id: "t1", uuid: "Scene.s.Token.t1" } };
  assert.equal(tokenAddress(token), "Scene.s.Token.t1");
  assert.equal(tokenAddress({ id: "t9" }), "t9");
  assert.equal(ownsToken(token, owner), true);
  assert.equal(ownsToken(token, other), false);
  assert.equal(ownsToken(token, { id: "GM", isGM: true }), true);
  const request = { action: "first_aid", medic: { actor_id: "M", token_id: "tm" }, patient: { actor_id: "P", token_id: "tp" } };
  assert.equal(actingParticipant(request), request.medic);
  assert.equal(actingParticipant({ attacker: { actor_id: "A" } }).actor_id, "A");
  assert.equal(actingParticipant({ targets: [] }), null);
});

test("effects only the table acts on (a missed grenade's impact and blast) are applied to nobody", () => {
  const result = {
    request: { attacker: { actor_id: "a1", token_id: "t1", name: "Thrower" } },
    effects: [
      { target: "attacker", kind: "impact", on_actor: false, params: { forward_m: -1 } },
      { target: "attacker", kind: "blast", on_actor: false, params: { burst_radius_m: 5 } },
    ],
  };
  assert.deepEqual(effectsByActor(result), []);
  result.effects.push({ target: "attacker", kind: "hp", delta: -1, on_actor: true, params: {} });
  assert.equal(effectsByActor(result).length, 1);
});

// --- apply variants (issue 16: half / double / heal, selected tokens, redo) -----------------
import { scaleEffects, applyGroups, hasHitPointDeltas, replaceUpdate, recordsOf, applyState, VARIANTS } from "../../js-shim/documents/apply.mjs";
import { participantsOf } from "../../js-shim/documents/chat.mjs";

const WOUND = {
  request: { attacker: { actor_id: "A", token_id: "Scene.s.Token.a", name: "Shooter" }, target: { actor_id: "B", token_id: "Scene.s.Token.b", name: "Rhino" } },
  effects: [
    { target: "target", kind: "hp", delta: -7, params: { loss: 7 } },
    { target: "target", kind: "state", value: "dead" },
    { target: "attacker", kind: "ammo", delta: -1 },
  ],
};

test("variants scale only hit-point deltas, rounded toward zero; a heal keeps only the hit points", () => {
  assert.deepEqual(VARIANTS, { full: 1, half: 0.5, double: 2, heal: -1 });
  const target = WOUND.effects.slice(0, 2);
  assert.equal(scaleEffects(target, "full"), target);
  assert.deepEqual(scaleEffects(target, "half"), [{ ...target[0], delta: -3 }, target[1]]);
  assert.deepEqual(scaleEffects(target, "double"), [{ ...target[0], delta: -14 }, target[1]]);
  assert.deepEqual(scaleEffects(target, "heal"), [{ ...target[0], delta: 7 }]);
  // Half of 1 is nothing: no effect at all (the engine would keep a 0 delta as a condition).
  assert.deepEqual(scaleEffects([{ kind: "hp", delta: -1 }], "half"), []);
  assert.throws(() => scaleEffects(target, "triple"), /unknown apply variant: triple/);
  // Other deltas (wounds, life force, ammunition) are the ruleset's, never scaled.
  assert.deepEqual(scaleEffects([{ kind: "wounds", delta: 2 }], "double"), [{ kind: "wounds", delta: 2 }]);
  assert.equal(hasHitPointDeltas(WOUND), true);
  assert.equal(hasHitPointDeltas({ effects: [{ kind: "wounds", delta: 2 }, { kind: "hp", value: 3 }] }), false);
  assert.equal(hasHitPointDeltas({ effects: [{ kind: "hp", delta: -2, on_actor: false }] }), false);
});

test("applied to selected tokens, each gets the target side's effects, scaled", () => {
  const acting = WOUND.request.attacker;
  const targets = applyGroups(WOUND, { variant: "half" });
  assert.deepEqual(targets.map((g) => [g.tokenId, g.source, g.effects.map((e) => e.delta ?? e.value)]),
    [["Scene.s.Token.b", "B|Scene.s.Token.b", [-3, "dead"]], ["Scene.s.Token.a", "A|Scene.s.Token.a", [-1]]]);
  const chosen = applyGroups(WOUND, { mode: "selected", variant: "double", tokens: ["Scene.s.Token.x", "Scene.s.Token.y", "Scene.s.Token.x"], acting });
  assert.deepEqual(chosen.map((g) => [g.tokenId, g.source, g.effects.map((e) => e.delta ?? e.value)]),
    [["Scene.s.Token.x", "B|Scene.s.Token.b", [-14, "dead"]], ["Scene.s.Token.y", "B|Scene.s.Token.b", [-14, "dead"]]]);
  // A heal leaves the shooter's own effects (ammunition) out: that group is no group at all.
  assert.deepEqual(applyGroups(WOUND, { variant: "heal" }).map((g) => [g.tokenId, g.effects.map((e) => e.delta)]), [["Scene.s.Token.b", [7]]]);
  assert.deepEqual(applyGroups({ request: {}, effects: [{ kind: "wounds", delta: 1, params: { token_id: "T1" } }] }, { mode: "selected", variant: "heal", tokens: ["T2"] }), []);
  // A result for several units cannot be put on a selection: which unit's effects would it get?
  const several = { request: {}, effects: [{ kind: "hp", delta: -1, params: { token_id: "T1" } }, { kind: "hp", delta: -2, params: { token_id: "T2" } }] };
  assert.throws(() => applyGroups(several, { mode: "selected", tokens: ["T3"] }), (e) => e.code === "several_sides");
  assert.throws(() => applyGroups(WOUND, { mode: "everyone" }), /unknown apply mode: everyone/);
  // A sole participant (a will check: acting and affected) is its own target side.
  const alone = { request: { character: { actor_id: "C", token_id: "TC" } }, effects: [{ target: "target", kind: "hp", delta: -2 }] };
  assert.deepEqual(applyGroups(alone, { mode: "selected", tokens: ["TX"], acting: alone.request.character })[0].effects, [{ target: "target", kind: "hp", delta: -2 }]);
});

test("replaceUpdate turns a tombstone into a record and back, key by key", () => {
  const tomb = { hash: "h", by: "GM", undone: { by: "GM", at: 1 } };
  const rec = { hash: "h", by: "GM", before: { hp: 8 }, after: { hp: 1 } };
  assert.deepEqual(replaceUpdate("p", tomb, rec), { "p.hash": "h", "p.by": "GM", "p.before": { hp: 8 }, "p.after": { hp: 1 }, "p.-=undone": null });
  assert.deepEqual(replaceUpdate("p", rec, tomb), { "p.hash": "h", "p.by": "GM", "p.undone": { by: "GM", at: 1 }, "p.-=before": null, "p.-=after": null });
});

test("records are found on selected tokens the card lists; Redo repeats the undone variant and tokens", () => {
  const rhino = { id: "B", uuid: "Actor.B", flags: {} };
  const wolf = { id: "W", uuid: "Scene.s.Token.w.Actor.W", name: "Wolf", flags: { firefight: { applied: {
    M1: { hash: resultHash(WOUND), gm: "GM", tokenId: "Scene.s.Token.w", source: "B|Scene.s.Token.b", variant: "double", mode: "selected", undone: { by: "GM", at: 2 } } } } } };
  const tokens = { "Scene.s.Token.b": { actor: rhino }, "Scene.s.Token.w": { actor: wolf }, "Scene.s.Token.a": { actor: { id: "A", uuid: "Actor.A", flags: {} } } };
  globalThis.fromUuidSync = (uuid) => tokens[uuid] ?? null;
  globalThis.game = { actors: new Map(), scenes: [], users: new Map([["GM", { id: "GM", isGM: true }]]), i18n: { localize: (k) => k, format: (k) => k } };
  try {
    const message = { id: "M1", flags: { firefight: { result: WOUND, undone: { by: "GM", at: 2, actors: { W: { actorId: "W", tokenId: "Scene.s.Token.w" } } } } } };
    const found = recordsOf(message).filter((r) => r.rec);
    assert.equal(found.length, 1);
    assert.equal(found[0].actor, wolf);
    // The record's effects are the rhino's, doubled: what Undo replays to check it.
    assert.deepEqual(found[0].group.effects.map((e) => e.delta ?? e.value), [-14, "dead"]);
    assert.deepEqual(applyState(message).redo, { mode: "selected", variant: "double", tokens: ["Scene.s.Token.w"] });
    // Without the card's list the wolf's record is not looked for (the targets' are).
    delete message.flags.firefight.undone;
    assert.equal(recordsOf(message).filter((r) => r.rec).length, 0);
  } finally {
    delete globalThis.fromUuidSync;
  }
});

test("a card lists every participant once, for hovering", () => {
  assert.deepEqual(participantsOf(WOUND).map((p) => [p.name, p.role, p.tokenId]),
    [["Shooter", "attacker", "Scene.s.Token.a"], ["Rhino", "target", "Scene.s.Token.b"]]);
  const units = { request: { attacker: { token_id: "T1", name: "A" } }, effects: [{ kind: "wounds", delta: 1, params: { token_id: "T9", name: "Unit 9" } }] };
  assert.deepEqual(participantsOf(units).map((p) => p.name), ["A", "Unit 9"]);
  assert.deepEqual(participantsOf(null), []);
});
