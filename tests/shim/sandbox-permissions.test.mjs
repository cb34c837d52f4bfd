// The sandbox's permission rules (sandbox/README.md, "The rules it enforces"), each with a case
// it must refuse and one it must allow, in Node: who may update or delete which document (actors,
// their items, tokens, chat messages, templates, users), world settings, and combats. Break a
// rule and its test goes red.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";

// No sandbox network in Node (its BroadcastChannel would keep the process alive).
globalThis.BroadcastChannel = undefined;
const { Actor, ChatMessage, Scene, User } = await import("../../sandbox/foundry/documents.mjs");
const { ClientSettings } = await import("../../sandbox/foundry/settings.mjs");
const { Combat } = await import("../../sandbox/foundry/combat.mjs");

const users = [
  new User({ _id: "GM", name: "Gamemaster", role: 4 }),
  new User({ _id: "P1", name: "Player 1", role: 1 }),
  new User({ _id: "P2", name: "Player 2", role: 1 }),
];
const [GM, P1, P2] = users;

function as(user) {
  globalThis.game.user = user;
}

async function refusedTo(user, fn) {
  as(user);
  await assert.rejects(Promise.resolve().then(fn), /lacks permission/);
}

async function allowedTo(user, fn) {
  as(user);
  await fn();
}

let store;

beforeEach(() => {
  store = new Map();
  const byId = new Map(users.map((u) => [u.id, u]));
  globalThis.localStorage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  globalThis.game = {
    user: GM, users: Object.assign([...users], { get: (id) => byId.get(id) }), actors: new Map(), messages: new Map(),
    scenes: new Map(), combats: new Map(),
  };
  globalThis.ui = { chat: { postOne: async () => {}, updateMessage() {}, deleteMessage() {} }, combat: { render() {} } };
  globalThis.canvas = { scene: null };
  globalThis.CONFIG = {};
});

test("an actor: its owners and GMs update it and its items; nobody else; only a GM creates one", async () => {
  const actor = new Actor({ name: "Rifleman", type: "character", ownership: { P1: 3, P2: 2 },
    items: [{ _id: "i1", name: "Rifle", type: "weapon", flags: {} }] });
  await refusedTo(P2, () => actor.update({ "flags.firefight.soe.hp": 1 })); // observer (2) is not owner
  await allowedTo(P1, () => actor.update({ "flags.firefight.soe.hp": 2 }));
  await allowedTo(GM, () => actor.update({ "flags.firefight.soe.hp": 3 }));
  assert.equal(actor.flags.firefight.soe.hp, 3);
  await refusedTo(P2, () => actor.items.get("i1").update({ name: "Mine" }));
  await allowedTo(P1, () => actor.items.get("i1").update({ name: "Rifle (P1)" }));
  await refusedTo(P2, () => actor.createEmbeddedDocuments("Item", [{ name: "Knife", type: "weapon" }]));
  await refusedTo(P2, () => actor.deleteEmbeddedDocuments("Item", ["i1"]));
  assert.equal(actor.items.size, 1);
  as(P1);
  await assert.rejects(Actor.create({ name: "New", type: "character" }), /lacks permission to create Actor/);
});

test("a token: its actor's owners and GMs update it", async () => {
  const actor = new Actor({ _id: "a1", name: "Rifleman", type: "character", ownership: { P1: 3 } });
  game.actors.set(actor.id, actor);
  const scene = new Scene({ _id: "s1", name: "Field", tokens: [{ _id: "t1", name: "Rifleman", actorId: "a1", actorLink: true, x: 0, y: 0 }] });
  const token = scene.tokens.get("t1");
  await refusedTo(P2, () => token.update({ x: 100 }));
  await allowedTo(P1, () => token.update({ x: 200 }));
  assert.equal(token.x, 200);
});

test("a chat message: its author and GMs update or delete it; nobody else", async () => {
  as(P1);
  const message = await ChatMessage.create({ content: "mine", flags: { firefight: { result: {} } } });
  await refusedTo(P2, () => message.update({ "flags.firefight.-=applied": null }));
  await refusedTo(P2, () => message.delete());
  await allowedTo(P1, () => message.update({ content: "edited" }));
  await allowedTo(GM, () => message.update({ content: "by the GM" }));
  assert.equal(message.content, "by the GM");
  await allowedTo(P1, () => message.delete());
  assert.equal(game.messages.has(message.id), false);
});

test("a template: a player may draw one; only its author or a GM deletes it; only a GM places tokens", async () => {
  const scene = new Scene({ _id: "s1", name: "Field", tokens: [], templates: [] });
  as(P1);
  const [template] = await scene.createEmbeddedDocuments("MeasuredTemplate", [{ t: "circle", x: 0, y: 0, distance: 5 }]);
  await refusedTo(P2, () => scene.deleteEmbeddedDocuments("MeasuredTemplate", [template.id]));
  await refusedTo(P1, () => scene.createEmbeddedDocuments("Token", [{ name: "Mine", x: 0, y: 0 }]));
  await allowedTo(P1, () => scene.deleteEmbeddedDocuments("MeasuredTemplate", [template.id]));
  assert.equal(scene.templates.size, 0);
});

test("a user: only themselves or a GM update it", async () => {
  await refusedTo(P2, () => P1.update({ "flags.firefight.x": 1 }));
  await allowedTo(P1, () => P1.update({ "flags.firefight.x": 2 }));
});

test("a world setting: only a GM sets it; a client setting is each user's; choices are kept", async () => {
  const settings = new ClientSettings();
  settings.register("firefight", "gmRollsShots", { scope: "world", type: Boolean, default: false });
  settings.register("core", "rollMode", { scope: "client", type: String, default: "publicroll", choices: { publicroll: "Public", selfroll: "Self" } });
  await refusedTo(P1, () => settings.set("firefight", "gmRollsShots", true));
  assert.equal(settings.get("firefight", "gmRollsShots"), false);
  await allowedTo(GM, () => settings.set("firefight", "gmRollsShots", true));
  await allowedTo(P1, () => settings.set("core", "rollMode", "selfroll"));
  await assert.rejects(settings.set("core", "rollMode", "nonsense"), /not a valid choice/);
});

test("a combat: a GM changes anything; the current combatant's owner only its turn and round", async () => {
  const actorA = new Actor({ _id: "a1", name: "Ann", type: "character", ownership: { P1: 3 } });
  const actorB = new Actor({ _id: "b1", name: "Bob", type: "character" });
  for (const a of [actorA, actorB]) game.actors.set(a.id, a);
  as(GM);
  const combat = await Combat.create({ combatants: [
    { _id: "cA", actorId: "a1", name: "Ann", initiative: 20 }, { _id: "cB", actorId: "b1", name: "Bob", initiative: 10 }] });
  await combat.update({ round: 1, turn: 0 });
  assert.equal(combat.combatant.id, "cA");
  // Not Player 2's combatant; not a key other than turn and round (flags).
  await refusedTo(P2, () => combat.update({ turn: 1 }));
  await refusedTo(P1, () => combat.update({ turn: 1, flags: { firefight: { activations: {} } } }));
  await allowedTo(P1, () => combat.update({ turn: 1 }));
  // Now Bob's turn, not the player's: no more.
  await refusedTo(P1, () => combat.update({ turn: 0 }));
  // An update to what stands already is nothing: not refused, not sent (Foundry sends the diff).
  await allowedTo(P1, () => combat.update({ round: 1, turn: 1 }));
  // Combatants, creating and deleting a combat: GMs only.
  await refusedTo(P1, () => combat.updateEmbeddedDocuments("Combatant", [{ _id: "cA", initiative: 1 }]));
  await refusedTo(P1, () => combat.createEmbeddedDocuments("Combatant", [{ actorId: "a1" }]));
  await refusedTo(P1, () => combat.deleteEmbeddedDocuments("Combatant", ["cB"]));
  await refusedTo(P1, () => combat.delete());
  await refusedTo(P1, () => Combat.create({}));
  await allowedTo(GM, () => combat.update({ turn: 0, flags: { firefight: { x: 1 } } }));
  assert.equal(structuredClone(combat.flags).firefight.x, 1);
});
