// Every guard of the GM's Apply and Undo (apply.mjs `_apply`, `_undo`; verify.mjs), each with a
// case it must refuse, in Node: a fake world (a GM, Player 1 who owns the rifleman, Player 2 who
// owns the officer, the GM's rhino; two tokens of one unlinked NPC), a fake engine whose "resolve"
// is a pure function of the request and whose "apply" adds the hit-point deltas. Break a guard and
// its test goes red (the report lists which catches which).
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { Applier, resultHash, recordCounts, recordShown, holds, isSelfRoll, rollerOf } from "../../js-shim/documents/apply.mjs";
import { worldMismatch, unaddressed, participantFields } from "../../js-shim/relay/verify.mjs";
import { useCatalog } from "../../js-shim/world/catalog.mjs";
import { equippedArmor, buildRequest } from "../../js-shim/workflow/request.mjs";
import { measureRange } from "../../js-shim/canvas/measure.mjs";
import { rollForPlayer, postHiddenForPlayer } from "../../js-shim/relay/gm.mjs";
import { actorByName, fakeActor as packActor } from "./fakes.mjs";

const RS = "alpha";
const GM = { id: "GM", name: "Gamemaster", isGM: true };
const P1 = { id: "P1", name: "Player 1", isGM: false };
const P2 = { id: "P2", name: "Player 2", isGM: false };

// The engine's schema of the one action here: an actor strikes a target, or a list of targets.
const SCHEMA = {
  options: { type: "object", properties: { aimed: { type: "boolean" } } },
  request: {
    anyOf: [{ $ref: "#/$defs/Strike" }, { $ref: "#/$defs/Attack" }],
    $defs: {
      Attack: { properties: { ruleset: {}, action: { const: "attack" }, attacker: { $ref: "#/$defs/S" }, target: { $ref: "#/$defs/S" },
        weapon: {}, range: {}, options: {} } },
      S: { properties: { name: {}, actor_id: {}, token_id: {}, pc: {}, stats: {}, armor: {} } },
      Strike: { properties: { ruleset: {}, action: { const: "strike" }, actor: { $ref: "#/$defs/P" },
        target: { anyOf: [{ $ref: "#/$defs/P" }, { type: "null" }] }, targets: { type: "array", items: { $ref: "#/$defs/P" } },
        damage: { type: "integer" } } },
      P: { properties: { name: {}, actor_id: {}, token_id: {}, hp: {} } },
    },
  },
};

/** The engine: "resolve" a pure function of the request (faces ignored); "apply" adds hp deltas. */
const engine = {
  calls: [],
  async call(op, msg) {
    this.calls.push(op);
    if (op === "schema") return SCHEMA;
    if (op === "odds") return { probability: 0.5, rounds_fired: 3 };
    if (op === "resolve") return { result: resolve(msg.request), gm_html: "<p>referee</p>", html: "<p>players</p>" };
    if (op === "apply") {
      const hp = (msg.stats.hp ?? 10) + msg.effects.reduce((s, e) => s + (e.kind === "hp" ? e.delta : 0), 0);
      return { stats: { ...msg.stats, hp }, statuses: {}, conditions: [], changes: [{ field: "hp" }] };
    }
    throw new Error(`no op ${op}`);
  },
};

function resolve(request) {
  const hit = (p) => ({ target: "target", kind: "hp", delta: -(request.damage ?? 1), params: { actor_id: p.actor_id, token_id: p.token_id, name: p.name } });
  const effects = request.targets ? request.targets.map(hit) : [{ target: "target", kind: "hp", delta: -(request.damage ?? 1) }];
  return { ruleset: request.ruleset, action: request.action, request, dice: [], effects };
}

/** A dotted update on a plain object, with Foundry's "-=key" deletions. */
function applyUpdate(doc, diff) {
  for (const [path, value] of Object.entries(diff)) {
    const parts = path.split(".");
    const last = parts.pop();
    let at = doc;
    for (const p of parts) at = at[p] ??= {};
    if (last.startsWith("-=")) delete at[last.slice(2)];
    else at[last] = structuredClone(value);
  }
}

function fakeActor(id, name, owners, hp = 10) {
  const actor = {
    id, name, uuid: `Actor.${id}`, statuses: new Set(), flags: { firefight: { [RS]: { hp } } },
    testUserPermission: (user) => Boolean(user?.isGM) || owners.includes(user?.id),
    async update(diff) {
      if (this.failNext) {
        this.failNext = false;
        throw new Error("write failed");
      }
      applyUpdate(this, diff);
    },
  };
  return actor;
}

class Users extends Map {
  filter(fn) {
    return [...this.values()].filter(fn);
  }
  get activeGM() {
    return GM;
  }
}

let world;

function token(id, actor, center = { x: 0, y: 0 }) {
  const uuid = `Scene.s.Token.${id}`;
  const doc = { uuid, id, actor, parent: { id: "s" } };
  doc.object = { id, name: actor.name, actor, center, document: doc };
  world.tokens[uuid] = { uuid, actor, document: doc };
  return { name: actor.name, actor_id: actor.id, token_id: uuid, hp: actor.flags.firefight[RS].hp };
}

/** A message with a result and its request, by `author`. */
function post(request, author, extra = {}) {
  const id = `M${++world.next}`;
  const message = {
    id, author, _source: { author: author.id }, timestamp: Date.now(), rolls: [], whisper: extra.whisper ?? [],
    flags: { firefight: { result: resolve(request), request, ...(extra.flags ?? {}) } },
    async update(diff) {
      applyUpdate(this, diff);
    },
  };
  world.messages.set(id, message);
  return message;
}

beforeEach(() => {
  world = { tokens: {}, messages: new Map(), next: 0, settings: new Map([["firefight.ruleset", RS], ["firefight.gmRollsShots", false]]) };
  useCatalog({ default_ruleset: RS, rulesets: [{ id: RS, actions: ["strike"], features: {} }], house_rules: [] });
  globalThis.game = {
    user: GM, users: new Users([[GM.id, GM], [P1.id, P1], [P2.id, P2]]), messages: world.messages,
    actors: new Map(), scenes: [],
    settings: { get: (m, k) => { const key = `${m}.${k}`; if (!world.settings.has(key)) throw new Error(`no setting ${key}`); return world.settings.get(key); } },
    i18n: { localize: (k) => k, format: (k) => k, has: () => false, lang: "en" },
  };
  globalThis.ui = { notifications: { warn() {}, info() {}, error() {} } };
  globalThis.foundry = { utils: { deepClone: structuredClone } };
  globalThis.fromUuidSync = (uuid) => world.tokens[uuid]?.document ?? null;
  globalThis.CONFIG = { statusEffects: [] };
  world.rhino = fakeActor("rhino", "Rhino", []);
  world.rifleman = fakeActor("rifle", "Rifleman", ["P1"]);
  world.officer = fakeActor("officer", "Officer", ["P2"]);
  world.npcA = fakeActor("npc", "Goon", []);
  world.npcB = fakeActor("npc", "Goon", []); // a second token of the same unlinked NPC: its own synthetic actor
  world.npcB.uuid = "Scene.s.Token.n2.Actor.npc";
  engine.calls = [];
});

const strike = (actor, target, extra = {}) => ({ ruleset: RS, action: "strike", actor, target, damage: 3, ...extra });
const applier = () => new Applier(engine);
const hp = (actor) => actor.flags.firefight[RS].hp;

async function refused(promise, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.code, code, err.message);
    return true;
  });
}

/** A player's Apply as the relay hands it to the GM's `_apply`. */
function ask(message, user, more = {}) {
  return applier()._apply(message.id, { hash: resultHash(message.flags.firefight.result), userId: user.id, ...more });
}

// --- who asks ---------------------------------------------------------------------------------

test("an honest player's strike is applied once; the record is the GM's", async () => {
  const m = post(strike(token("r", world.rifleman), token("h", world.rhino)), P1);
  await ask(m, P1);
  assert.equal(hp(world.rhino), 7);
  const rec = world.rhino.flags.firefight.applied[m.id];
  assert.equal(rec.gm, "GM");
  assert.equal(rec.hash, resultHash(m.flags.firefight.result));
  // Refused before the engine is asked to replay it (a second click costs nothing).
  engine.calls = [];
  await refused(ask(m, P1), "already_applied");
  assert.deepEqual(engine.calls, []);
  assert.equal(hp(world.rhino), 7);
});

test("unknown_message: no such message, or one without a result", async () => {
  await refused(applier()._apply("nope", { hash: "x", userId: "P1" }), "unknown_message");
  const m = post(strike(token("r", world.rifleman), token("h", world.rhino)), P1);
  delete m.flags.firefight.result;
  await refused(applier()._apply(m.id, { hash: "x", userId: "P1" }), "unknown_message");
});

test("not_author: another player's message; a GM-rolled shot for someone else", async () => {
  const m = post(strike(token("r", world.rifleman), token("h", world.rhino)), P1);
  await refused(ask(m, P2), "not_author");
  const rolled = post(strike(token("r", world.rifleman), token("h", world.rhino)), GM, { flags: { rolledFor: "P1" } });
  await refused(ask(rolled, P2), "not_author");
  assert.equal(hp(world.rhino), 10);
});

test("gm_rolls (hole 1): with the GM rolling players' results, one the player rolled is refused, whatever its action", async () => {
  world.settings.set("firefight.gmRollsShots", true);
  const own = { ruleset: RS, action: "attack", actor: token("r", world.rifleman), target: token("h", world.rhino), damage: 3 };
  await refused(ask(post(own, P1), P1), "gm_rolls");
  // Every action is rolled by the GM's client in such a world (relay/gm.mjs), so none is the player's to roll.
  await refused(ask(post({ ...own, action: "strike" }, P1), P1), "gm_rolls");
  assert.equal(hp(world.rhino), 10);
  world.settings.set("firefight.gmRollsShots", false);
  await ask(post({ ...own, action: "strike" }, P1), P1);
  assert.equal(hp(world.rhino), 7);
});

test("gm_choice, no_hit_points, none_selected: the GM's choices are the GM's", async () => {
  const m = post(strike(token("r", world.rifleman), token("h", world.rhino)), P1);
  await refused(ask(m, P1, { variant: "double" }), "gm_choice");
  await refused(ask(m, P1, { mode: "selected", tokens: ["Scene.s.Token.o"] }), "gm_choice");
  await refused(ask(m, P1, { tokens: ["Scene.s.Token.o"] }), "gm_choice");
  const noHp = post(strike(token("r", world.rifleman), token("h", world.rhino), { damage: 0 }), GM);
  noHp.flags.firefight.result.effects = [{ target: "target", kind: "state", value: "prone" }];
  await refused(ask(noHp, GM, { variant: "half" }), "no_hit_points");
  await refused(ask(m, GM, { mode: "selected", tokens: [] }), "none_selected");
});

test("not_owner (hole 2): another's acting token, and an acting participant that names nobody", async () => {
  const theirs = post(strike(token("o", world.officer), token("h", world.rhino)), P1);
  await refused(ask(theirs, P1), "not_owner");
  const nameless = strike(token("r", world.rifleman), token("h", world.rhino));
  delete nameless.actor.actor_id;
  delete nameless.actor.token_id;
  await refused(ask(post(nameless, P1), P1), "not_owner");
  assert.equal(hp(world.rhino), 10);
});

test("changed_result: a hash that is not the message's, and a result that its request does not give", async () => {
  const m = post(strike(token("r", world.rifleman), token("h", world.rhino)), P1);
  await refused(applier()._apply(m.id, { hash: "0000", userId: "P1" }), "changed_result");
  m.flags.firefight.result.effects[0].delta = -9; // the result edited, its hash sent to match
  await refused(ask(m, P1), "changed_result");
  // The player's result must follow from the request their client built (flags.request).
  const edited = post(strike(token("r", world.rifleman), token("h", world.rhino)), P1);
  edited.flags.firefight.request = { ...edited.flags.firefight.request, damage: 9 };
  await refused(ask(edited, P1), "changed_result");
  assert.equal(hp(world.rhino), 10);
});

test("in_flight: a result another GM's client is applying, or this one already", async () => {
  const m = post(strike(token("r", world.rifleman), token("h", world.rhino)), P1);
  m.flags.firefight.applying = { by: "P1", gm: "GM2", at: Date.now() };
  await refused(ask(m, P1), "in_flight");
  delete m.flags.firefight.applying;
  const a = applier();
  const first = a._applyOnce(m.id, { hash: resultHash(m.flags.firefight.result), userId: "P1" });
  await refused(a._applyOnce(m.id, { hash: resultHash(m.flags.firefight.result), userId: "P1" }), "in_flight");
  await first;
  assert.equal(hp(world.rhino), 7);
});

// --- the request against the table (verify.mjs) ------------------------------------------------

test("changed_request: each participant must be its token's actor, with data it had", async () => {
  const check = (request) => worldMismatch(engine, request, { actorFor: (g) => (g.tokenId ? world.tokens[g.tokenId]?.actor : null) ?? null });
  const honest = strike(token("r", world.rifleman), token("h", world.rhino));
  assert.equal(await check(honest), null);
  assert.equal((await check({ ...honest, ruleset: "beta" })).field, "ruleset");
  assert.equal((await check({ ...honest, action: "dance" })).field, "action");
  // A token not on the table; a token whose actor the request misnames (verify.mjs actor_id check).
  assert.equal((await check({ ...honest, target: { ...honest.target, token_id: "Scene.s.Token.gone" } })).field, "target");
  assert.equal((await check({ ...honest, target: { ...honest.target, actor_id: "officer" } })).field, "target.actor_id");
  // Data the actor never had.
  assert.equal((await check({ ...honest, target: { ...honest.target, hp: 1 } })).field, "target.hp");
  // Hole 2: a participant naming neither token nor actor, alone or in a list.
  const nameless = { ...honest.target };
  delete nameless.actor_id;
  delete nameless.token_id;
  assert.equal((await check({ ...honest, target: nameless })).field, "target");
  assert.equal((await check({ ...honest, target: undefined, targets: [honest.target, nameless] })).field, "targets.1");
  // Armor the actor does not wear.
  assert.equal(await check({ ...honest, target: { ...honest.target, armor: [] } }), null);
  assert.equal((await check({ ...honest, target: { ...honest.target, armor: [{ name: "Plate", item_id: "x" }] } })).field, "target.armor");
  // The weapon: one of the acting actor's own items, with its data.
  world.rifleman.items = [{ id: "w1", name: "Rifle", flags: { firefight: { [RS]: { category: "weapon", damage: 3 } } } }];
  const weapon = { name: "Rifle", item_id: "w1", category: "weapon", damage: 3 };
  assert.equal(await check({ ...honest, weapon }), null);
  assert.equal((await check({ ...honest, weapon: { ...weapon, item_id: "w2" } })).field, "weapon.item_id");
  assert.equal((await check({ ...honest, weapon: { ...weapon, damage: 9 } })).field, "weapon.damage");
  // Settings the action does not take.
  assert.equal((await check({ ...honest, settings: { x: 1 } })).field, "settings");
});

test("a player's strike that does not match the table is refused changed_request, and changes nothing", async () => {
  const request = strike(token("r", world.rifleman), token("h", world.rhino));
  request.target.hp = 99;
  await refused(ask(post(request, P1), P1), "changed_request");
  assert.equal(hp(world.rhino), 10);
});

test("participant fields and unaddressed participants are read from the schema", () => {
  const fields = participantFields(SCHEMA.request.$defs.Strike, SCHEMA.request);
  assert.deepEqual(fields, [{ name: "actor", list: false }, { name: "target", list: false }, { name: "targets", list: true }]);
  assert.equal(unaddressed({ actor: { actor_id: "a" }, target: { token_id: "t" }, targets: [{ actor_id: "x" }] }, fields), null);
  assert.equal(unaddressed({ actor: { name: "who" } }, fields), "actor");
  assert.equal(unaddressed({ actor: { actor_id: "a" }, targets: [{ token_id: "t" }, {}] }, fields), "targets.1");
});

// --- records: one apply per result, only the GM's, none blocking another actor ------------------

test("hole 3: a copy of an applied result, posted as a new message, is not applied again", async () => {
  const request = strike(token("r", world.rifleman), token("h", world.rhino));
  const m = post(request, P1);
  await ask(m, P1);
  const copy = post(structuredClone(request), P1);
  await refused(ask(copy, P1), "already_applied");
  await refused(ask(copy, GM), "already_applied");
  assert.equal(hp(world.rhino), 7);
  // On a player's actor too, and after the original was deleted.
  const shot = strike(token("r", world.rifleman), token("o", world.officer));
  const a = post(shot, P1);
  await ask(a, P1);
  world.messages.delete(a.id);
  await refused(ask(post(structuredClone(shot), P1), P1), "already_applied");
  assert.equal(hp(world.officer), 7);
});

test("hole 4: a record a player forges on their own actor neither reads applied nor blocks the GM", async () => {
  const m = post(strike(token("o", world.officer), token("r", world.rifleman)), GM); // the GM's hit
  const hash = resultHash(m.flags.firefight.result);
  const forged = { hash, gm: "GM", by: "GM", at: Date.now(), messageId: m.id, ruleset: RS, before: { hp: 10 }, after: { hp: 10 } };
  world.rifleman.flags.firefight.applied = { [m.id]: forged };
  // Not counted: on a player's actor a GM message's own flags must say so.
  assert.equal(recordCounts(world.rifleman, m.id, forged, hash), false);
  assert.equal(recordShown(world.rifleman, m.id, forged, hash), false);
  await ask(m, GM);
  assert.equal(hp(world.rifleman), 7);
  assert.equal(world.rifleman.flags.firefight.applied[m.id].after.hp, 7);
  // Now the message says so: the GM's record counts.
  assert.equal(recordCounts(world.rifleman, m.id, world.rifleman.flags.firefight.applied[m.id], hash), true);
});

test("records count only when a GM wrote them for this very result", () => {
  const m = post(strike(token("r", world.rifleman), token("h", world.rhino)), P1);
  const hash = resultHash(m.flags.firefight.result);
  const rec = { hash, gm: "GM" };
  assert.equal(recordCounts(world.rhino, m.id, rec, hash), true);
  assert.equal(recordCounts(world.rhino, m.id, { ...rec, gm: "P1" }, hash), false);
  assert.equal(recordCounts(world.rhino, m.id, { ...rec, hash: "x" }, hash), false);
  assert.equal(recordCounts(world.rhino, m.id, null, hash), false);
  // A player's message: its author may delete its flags, and the record on another's actor still counts.
  const hit = post(strike(token("r", world.rifleman), token("o", world.officer)), P1);
  const h2 = resultHash(hit.flags.firefight.result);
  assert.equal(recordCounts(world.officer, hit.id, { hash: h2, gm: "GM" }, h2), true);
  // ... but the card shows it only when the message says so (the officer's owner cannot fake it).
  assert.equal(recordShown(world.officer, hit.id, { hash: h2, gm: "GM" }, h2), false);
  hit.flags.firefight.applied = { hash: h2 };
  assert.equal(recordShown(world.officer, hit.id, { hash: h2, gm: "GM" }, h2), true);
  // The author's own actor: theirs.
  const self = post(strike(token("r", world.rifleman), token("r2", world.rifleman)), P1);
  const h3 = resultHash(self.flags.firefight.result);
  assert.equal(recordShown(world.rifleman, self.id, { hash: h3, gm: "GM" }, h3), true);
});

test("a record on one actor never stops another's: an area strike hitting two is applied to the one left", async () => {
  const request = { ruleset: RS, action: "strike", actor: token("o", world.officer), targets: [token("r", world.rifleman), token("h", world.rhino)], damage: 2 };
  const m = post(request, P2);
  const hash = resultHash(m.flags.firefight.result);
  // Player 1 forges a record of it on their own rifleman (a player's message: it counts there).
  world.rifleman.flags.firefight.applied = { [m.id]: { hash, gm: "GM", by: "GM", at: Date.now(), ruleset: RS } };
  assert.equal(holds(world.rifleman, m, hash, GM), true);
  await ask(m, GM);
  assert.equal(hp(world.rhino), 8);
  assert.equal(hp(world.rifleman), 10); // spared: its owner's record speaks for it alone
  await refused(ask(m, GM), "already_applied");
});

test("a GM's own message counts only its own records (no copy to spare), and Redo follows Undo", async () => {
  const request = strike(token("o", world.officer), token("h", world.rhino));
  const m = post(request, GM);
  await ask(m, GM);
  assert.equal(hp(world.rhino), 7);
  await applier()._undo(m.id, "GM");
  assert.equal(hp(world.rhino), 10);
  // For a player the result stays spent; the GM may apply it again.
  m.flags.firefight.rolledFor = "P2";
  await refused(ask(m, P2), "already_applied");
  delete m.flags.firefight.rolledFor;
  await ask(m, GM);
  assert.equal(hp(world.rhino), 7);
  // A second GM message with the same result (a table's round settled again) is not a copy.
  await ask(post(structuredClone(request), GM), GM);
  assert.equal(hp(world.rhino), 4);
});

test("hole 8: a self roll changes only its roller's actors", async () => {
  const selfRoll = post(strike(token("r", world.rifleman), token("h", world.rhino)), GM, { whisper: ["P1"], flags: { rolledFor: "P1" } });
  assert.equal(rollerOf(selfRoll), "P1");
  assert.equal(isSelfRoll(selfRoll), true);
  await refused(ask(selfRoll, P1), "self_roll");
  await refused(ask(selfRoll, GM), "self_roll");
  assert.equal(hp(world.rhino), 10);
  // Whispered to the GMs too: not a self roll.
  assert.equal(isSelfRoll({ ...selfRoll, whisper: ["P1", "GM"] }), false);
  // The roller's own actor: applied.
  const own = post(strike(token("r", world.rifleman), token("r2", world.rifleman)), P1, { whisper: ["P1"] });
  await ask(own, P1);
  assert.equal(hp(world.rifleman), 7);
});

test("nothing_to_apply: a heal of a result that changes no hit points, on selected tokens", async () => {
  const m = post(strike(token("r", world.rifleman), token("h", world.rhino), { damage: 1 }), GM);
  // Half of one hit point is nothing: nothing to apply.
  const hash = resultHash(m.flags.firefight.result);
  await refused(applier()._apply(m.id, { hash, userId: "GM", mode: "selected", tokens: ["Scene.s.Token.h"], variant: "half" }), "nothing_to_apply");
  assert.equal(hp(world.rhino), 10);
});

// --- Undo ---------------------------------------------------------------------------------------

test("Undo: only a GM, only what was applied, only the GM's record, only if nothing changed since", async () => {
  const m = post(strike(token("r", world.rifleman), token("o", world.officer)), P1);
  await refused(applier()._undo(m.id, "P1"), "not_gm");
  await refused(applier()._undo(m.id, "GM"), "not_applied");
  await ask(m, P1);
  assert.equal(hp(world.officer), 7);
  const rec = world.officer.flags.firefight.applied[m.id];
  // The officer's owner rewrites the record's `before`: not restored.
  world.officer.flags.firefight.applied[m.id] = { ...rec, before: { hp: 100 } };
  await refused(applier()._undo(m.id, "GM"), "forged_record");
  world.officer.flags.firefight.applied[m.id] = { ...rec, gm: "P2" };
  await refused(applier()._undo(m.id, "GM"), "not_applied");
  world.officer.flags.firefight.applied[m.id] = rec;
  // Changed since (another hit): undo the later one first.
  world.officer.flags.firefight[RS].hp = 5;
  await refused(applier()._undo(m.id, "GM"), "changed_since");
  world.officer.flags.firefight[RS].hp = 7;
  await applier()._undo(m.id, "GM");
  assert.equal(hp(world.officer), 10);
  assert.ok(world.officer.flags.firefight.applied[m.id].undone);
});

test("two tokens of one unlinked NPC are two records, and Undo restores both", async () => {
  const a = token("n1", world.npcA);
  const b = token("n2", world.npcB);
  const m = post({ ruleset: RS, action: "strike", actor: token("o", world.officer), targets: [a, b], damage: 4 }, GM);
  await ask(m, GM);
  assert.deepEqual([hp(world.npcA), hp(world.npcB)], [6, 6]);
  assert.equal(Object.keys(m.flags.firefight.applied.actors).length, 2);
  await applier()._undo(m.id, "GM");
  assert.deepEqual([hp(world.npcA), hp(world.npcB)], [10, 10]);
  assert.equal(Object.keys(m.flags.firefight.undone.actors).length, 2);
});

test("all or nothing: a failed write puts every actor back", async () => {
  const request = { ruleset: RS, action: "strike", actor: token("o", world.officer), targets: [token("h", world.rhino), token("r", world.rifleman)], damage: 2 };
  const m = post(request, GM);
  world.rifleman.failNext = true;
  await assert.rejects(ask(m, GM), (err) => err.code === "rolled_back");
  assert.deepEqual([hp(world.rhino), hp(world.rifleman)], [10, 10]);
  assert.equal(world.rhino.flags.firefight.applied?.[m.id], undefined);
});

// --- armor ------------------------------------------------------------------------------------

test("armor without `equipped` is not worn (only equipped === true is)", () => {
  const rifleman = packActor(actorByName("Rifleman"));
  const actor = structuredClone(rifleman);
  actor.items = new Map(rifleman.items);
  const helmet = structuredClone(actor.items.get("ffH1steelHelmet1"));
  delete helmet.flags.firefight.equipped;
  actor.items.set(helmet.id, helmet);
  assert.deepEqual(equippedArmor(actor, "soe").map((i) => i.name), ["Steel Chestplate"]);
});

// --- a player's hidden result (relay/gm.mjs postHiddenForPlayer, the hiddenCard relay) ------------

test("hiddenCard: the GM whispers a player's hidden result only for their own token, as its dice give it, as the table has it", async () => {
  const posted = [];
  globalThis.Roll = { fromData: (d) => d };
  globalThis.ChatMessage = { create: async (data) => { posted.push(data); return { id: `W${posted.length}`, ...data }; }, getSpeaker: () => ({}) };
  const payload = (request, result = resolve(request), extra = {}) => ({ request, result, speaker: {}, extra });
  const honest = strike(token("r", world.rifleman), token("h", world.rhino));
  const hidden = (p, user = P1) => postHiddenForPlayer(engine, p, user);
  await refused(hidden({ request: honest }), "bad_request");
  await refused(hidden(payload(strike(token("o", world.officer), token("h", world.rhino)))), "not_owner");
  const nameless = structuredClone(honest);
  delete nameless.actor.actor_id;
  delete nameless.actor.token_id;
  await refused(hidden(payload(nameless)), "not_owner");
  await refused(hidden(payload(honest, resolve(honest), { note: "x".repeat(5000) })), "too_large");
  const edited = resolve(honest);
  edited.effects[0].delta = -9;
  await refused(hidden(payload(honest, edited)), "changed_result");
  await refused(hidden(payload({ ...honest, target: { ...honest.target, hp: 1 } })), "changed_request");
  assert.equal(posted.length, 0);
  const { messageId } = await hidden(payload(honest));
  assert.equal(messageId, "W1");
  assert.deepEqual(posted[0].whisper, ["GM"]);
  assert.equal(posted[0].flags.firefight.rolledFor, "P1");
});

test("a reply is taken only from a GM", async () => {
  const listeners = [];
  globalThis.game.user = P1;
  globalThis.game.socket = { on: (name, fn) => listeners.push(fn), emit: (name, data) => { globalThis.__sent = data; } };
  const relay = await import("../../js-shim/relay/relay.mjs");
  relay.listen();
  const reply = relay.ask("probe", {}, { timeoutMs: 200 });
  const requestId = globalThis.__sent.requestId;
  for (const fn of listeners) fn({ type: "reply", to: "P1", requestId, reply: { ok: true } }, "P2");
  assert.equal((await reply).code, "timeout");
  const again = relay.ask("probe", {}, { timeoutMs: 2000 });
  for (const fn of listeners) fn({ type: "reply", to: "P1", requestId: globalThis.__sent.requestId, reply: { ok: true } }, "GM");
  assert.equal((await again).ok, true);
});

test("a shot is rebuilt from the table: tokens, their actors' data, the weapon, the range measured here", async () => {
  globalThis.canvas = { scene: { id: "s", grid: { units: "m" } }, grid: { units: "m", measurePath: ([p, q]) => ({ euclidean: Math.hypot(q.x - p.x, q.y - p.y) }) } };
  try {
    token("r", world.rifleman, { x: 0, y: 0 });
    token("h", world.rhino, { x: 30, y: 40 });
    world.rifleman.items = [{ id: "w1", name: "Rifle", flags: { firefight: { [RS]: { category: "weapon", damage: 3 } } } }];
    const a = world.tokens["Scene.s.Token.r"].document.object;
    const b = world.tokens["Scene.s.Token.h"].document.object;
    const honest = buildRequest({ ruleset: RS, attackerToken: a, targetToken: b, weaponItem: world.rifleman.items[0], range: measureRange(a, b), options: { aimed: true } });
    assert.deepEqual(honest.range, { value: 50, units: "m" });
    const lookup = Object.assign((g) => world.tokens[g.tokenId]?.actor ?? null, { tokenOf: (u) => world.tokens[u]?.document ?? null });
    const verify = (request) => worldMismatch(engine, request, { actorFor: lookup });
    assert.equal(await verify(honest), null);
    // The range is the GM's measure, not the shooter's word.
    assert.equal((await verify({ ...honest, range: { value: 5, units: "m" } })).field, "range.value");
    // What the table says of a participant (a player character or not) is the table's.
    assert.equal((await verify({ ...honest, target: { ...honest.target, pc: true } })).field, "target.pc");
    // A field the builder does not write.
    assert.equal((await verify({ ...honest, called_shot: "head" })).field, "called_shot");
  } finally {
    delete globalThis.canvas;
  }
});

test("the GM's client rolls a player's request only as the table gives it: their own token, their weapon as it is, rounds loaded", async () => {
  globalThis.canvas = { scene: { id: "s", grid: { units: "m" } }, tokens: { get: () => null },
    grid: { units: "m", measurePath: ([p, q]) => ({ euclidean: Math.hypot(q.x - p.x, q.y - p.y) }) } };
  globalThis.CONFIG = { statusEffects: [], Dice: { randomUniform: () => 0.5 } };
  globalThis.Roll = { fromData: (d) => d };
  const posted = [];
  globalThis.ChatMessage = { create: async (data) => { posted.push(data); return { id: `S${posted.length}`, ...data }; }, getSpeaker: () => ({}) };
  // A shot's result is not hidden: one card.
  const plain = { call: async (op, msg) => {
    const reply = await engine.call(op, msg);
    if (op === "resolve") delete reply.gm_html;
    return reply;
  } };
  try {
    token("r", world.rifleman, { x: 0, y: 0 });
    token("h", world.rhino, { x: 30, y: 40 });
    token("o", world.officer, { x: 60, y: 0 });
    world.rifleman.items = [{ id: "w1", name: "Rifle", flags: { firefight: { [RS]: { category: "weapon", damage: 3 } } } }];
    world.officer.items = [{ id: "w9", name: "Pistol", flags: { firefight: { [RS]: { category: "weapon", damage: 2 } } } }];
    const tokenAt = (id) => fromUuidSync(`Scene.s.Token.${id}`).object;
    // The request the player's client builds (workflow/gather.mjs builds the same for a shot).
    const shot = (a = "r", b = "h", weapon = world.rifleman.items[0]) => buildRequest({ ruleset: RS, attackerToken: tokenAt(a), targetToken: tokenAt(b),
      weaponItem: weapon, range: { value: 50, units: "m" }, options: { aimed: true } });
    const roll = (request, user = P1) => rollForPlayer(plain, { request, rollMode: "publicroll" }, user);
    await refused(roll(shot()), "gm_rolls_off");
    world.settings.set("firefight.gmRollsShots", true);
    await refused(roll(shot("o", "h", world.officer.items[0])), "not_owner");
    await refused(roll({ ...shot(), weapon: { ...shot().weapon, damage: 9 } }), "changed_request");
    await refused(roll({ ...shot(), weapon: { ...shot().weapon, item_id: "w2" } }), "changed_request");
    await refused(roll({ ...shot(), range: { value: 5, units: "m" } }), "changed_request");
    await refused(roll({ ...shot(), target: { ...shot().target, token_id: "Scene.s.Token.gone" } }), "changed_request");
    await refused(roll({ ...shot(), target: { ...shot().target, stats: { hp: 1 } } }), "changed_request");
    await refused(roll({ ...shot(), house: { laser: { options: { on: true } } } }), "changed_request");
    await refused(roll(null), "bad_request");
    world.rifleman.items[0].flags.firefight.ammo = { capacity: 30, loaded: 2 };
    await assert.rejects(roll(shot()), (err) => /short|rounds|ammo/i.test(`${err.code} ${err.message}`));
    assert.equal(posted.length, 0);
    delete world.rifleman.items[0].flags.firefight.ammo;
    const { messageId } = await roll(shot());
    assert.equal(messageId, "S1");
    assert.equal(posted[0].flags.firefight.rolledFor, "P1");
    assert.deepEqual(posted[0].flags.firefight.request.range, { value: 50, units: "m" });
    assert.equal(posted[0].flags.firefight.request.weapon.damage, 3);
  } finally {
    delete globalThis.canvas;
  }
});
