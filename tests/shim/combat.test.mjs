import { test } from "node:test";
import assert from "node:assert/strict";
import {
  unitFields, unitOf, activationSpec, activationsFromOrder, countByCombatant, advance, skippedUnits, turnIndexOf,
  blockedByStatuses, activationsHTML,
} from "../../js-shim/canvas/activations.mjs";
import { ChitActivation } from "../../js-shim/canvas/combat.mjs";
import {
  followUpsOf, stateOfActor, dueFollowUps, unlessHolds, followUpResult, turnSpec, statusesFromStats, isAfter, TurnEvents,
} from "../../js-shim/canvas/turns.mjs";
import { useCatalog } from "../../js-shim/world/catalog.mjs";
import { packDocs } from "./fakes.mjs";

// The shape of the engine's request schema (pydantic: a oneOf of $refs, one per action).
const SCHEMA = {
  oneOf: [{ $ref: "#/$defs/AttackRequest" }, { $ref: "#/$defs/EndOfTurnRequest" }, { $ref: "#/$defs/DrawChitsRequest" }],
  $defs: {
    AttackRequest: { properties: { action: { const: "attack" }, attacker: {} } },
    EndOfTurnRequest: { properties: { action: { const: "end_of_turn" }, units: { items: { $ref: "#/$defs/TurnUnit" } } } },
    DrawChitsRequest: { properties: { action: { const: "draw_chits" }, units: { items: { $ref: "#/$defs/ChitUnit" } } } },
    TurnUnit: { properties: { name: {}, actor_id: {}, token_id: {}, combatant_id: {}, wounds: {}, state: {}, skipped_turn: {} } },
    ChitUnit: { properties: { name: {}, actor_id: {}, token_id: {}, combatant_id: {}, quality: {}, state: {} } },
  },
};

test("unit fields come from the ruleset's request schema", () => {
  assert.deepEqual(unitFields(SCHEMA, "draw_chits"), ["name", "actor_id", "token_id", "combatant_id", "quality", "state"]);
  assert.deepEqual(unitFields(SCHEMA, "end_of_turn").slice(-3), ["wounds", "state", "skipped_turn"]);
  assert.equal(unitFields(SCHEMA, "attack"), null); // no units
  assert.equal(unitFields(SCHEMA, "nope"), null);
  assert.equal(unitFields(null, "draw_chits"), null);
});

test("a combatant becomes a unit with only the fields the action takes", () => {
  const troops = packDocs("shock-troops");
  const rainbow = troops.find((a) => a._id === "ffSTrainbow00000");
  const combatant = { id: "C1", name: "Rainbow", tokenId: "T1" };
  const actor = { id: rainbow._id, name: rainbow.name };
  const stats = rainbow.flags.firefight.shock;
  const chit = unitOf({ combatant, actor, stats }, unitFields(SCHEMA, "draw_chits"));
  assert.deepEqual(chit, { name: "Rainbow", actor_id: "ffSTrainbow00000", token_id: "T1", combatant_id: "C1", quality: "rainbow", state: "ok" });
  const turn = unitOf({ combatant, actor, stats: { ...stats, wounds: 4 } }, unitFields(SCHEMA, "end_of_turn"), { skipped_turn: true, bogus: 1 });
  assert.deepEqual(turn, { name: "Rainbow", actor_id: "ffSTrainbow00000", token_id: "T1", combatant_id: "C1", wounds: 4, state: "ok", skipped_turn: true });
  assert.equal(unitOf({ combatant, actor, stats: null }, ["name"]), null);
});

const ORDER = [
  { combatant_id: "A", name: "Ann", phase: 1, chit: 1, seq: 1, stunned: false },
  { combatant_id: "B", name: "Bob", phase: 1, chit: 1, seq: 2, stunned: true },
  { combatant_id: "A", name: "Ann", phase: 1, chit: 2, seq: 3, stunned: false },
  { combatant_id: "C", name: "Cy", phase: 2, chit: 1, seq: 4, stunned: false },
  { combatant_id: "B", name: "Bob", phase: 2, chit: 1, seq: 5, stunned: true },
];

test("the drawn order becomes the combat's activation list", () => {
  const list = activationsFromOrder(ORDER);
  assert.equal(list.length, 5);
  assert.deepEqual(list[2], { combatantId: "A", name: "Ann", phase: 1, chit: 2, seq: 3, stunned: false });
  assert.deepEqual(countByCombatant(list), { A: 2, B: 2, C: 1 });
});

test("advancing skips stunned activations (remembered) and passes units that cannot act", () => {
  const list = activationsFromOrder(ORDER);
  const blocked = (a) => (a.combatantId === "B" ? "stunned" : a.combatantId === "C" ? "out" : null);
  assert.deepEqual(advance(list, -1, 1, blocked), { index: 0, skipped: [] });
  assert.deepEqual(advance(list, 0, 1, blocked), { index: 2, skipped: [1] });
  assert.deepEqual(advance(list, 2, 1, blocked), { index: null, skipped: [4] }); // C out, B stunned
  assert.deepEqual(advance(list, 2, -1, blocked), { index: 0, skipped: [] }); // rewinding records nothing
  assert.deepEqual(advance(list, 0, -1, blocked), { index: null, skipped: [] });
  const state = { list, skipped: [1, 4] };
  assert.deepEqual([...skippedUnits(state)], ["B"]);
});

test("turn index and blocking by token statuses", () => {
  const turns = [{ id: "A" }, { id: "B" }, { id: "C" }];
  assert.equal(turnIndexOf(turns, "C"), 2);
  assert.equal(turnIndexOf(turns, "Z"), 0);
  assert.equal(blockedByStatuses(new Set()), null);
  assert.equal(blockedByStatuses(new Set(["stun"])), "stunned");
  assert.equal(blockedByStatuses(new Set(["unconscious"])), "out");
  assert.equal(blockedByStatuses(new Set(["dead", "stun"])), "out");
  assert.equal(blockedByStatuses(new Set(), { defeated: true }), "out");
  assert.equal(blockedByStatuses(new Set(), { known: false, drawnStunned: true }), "stunned");
});

test("the tracker lists the activations, the current one marked", () => {
  const list = activationsFromOrder(ORDER);
  const html = activationsHTML({ round: 2, list, index: 2, skipped: [1] });
  assert.match(html, /data-count="5"/);
  assert.equal((html.match(/<li /g) ?? []).length, 5);
  assert.match(html, /class="ff-activation current" data-index="2"/);
  assert.match(html, /class="ff-activation done skipped stunned" data-index="1"/);
  assert.match(html, /Round 2: 5 activations/);
  // A unit's second activation in a phase is marked as such (whichever of its chits came out).
  assert.equal((html.match(/2nd chit/g) ?? []).length, 1);
  assert.match(html, /data-index="2"[^\n]*2nd chit/);
  // Activations ahead show what will become of them as things stand (a unit stunned or out now).
  const now = activationsHTML({ round: 2, list, index: 0, skipped: [] },
    { blocked: (a) => (a.combatantId === "C" ? "out" : a.combatantId === "B" ? "stunned" : null) });
  assert.match(now, /class="ff-activation out" data-index="3"/);
  assert.equal((now.match(/skipped: stunned|>stunned</g) ?? []).length, 2);
  assert.match(activationsHTML(null, { pending: true }), /Drawing chits/);
  assert.equal(activationsHTML(null), "");
});

/** A minimal combat for the hooks: turns, flags, combatants with statuses. */
function fakeCombat({ round = 1, turn = 0, statuses = {}, state }) {
  const ids = ["A", "B", "C"];
  const combatants = new Map(ids.map((id) => [id, { id, actor: { statuses: new Set(statuses[id] ?? []) } }]));
  return { id: "X", round, turn, turns: ids.map((id) => combatants.get(id)), combatants, flags: { firefight: { activations: state } } };
}

test("combatTurn: nextTurn follows the drawn order; the last activation moves to the next round", () => {
  globalThis.game = { user: { id: "gm", isGM: true } };
  const chits = new ChitActivation(null, null);
  const list = activationsFromOrder(ORDER);
  const combat = fakeCombat({ statuses: { B: ["stun"] }, state: { round: 1, list, index: 0, skipped: [] } });
  const data = { round: 1, turn: 1 };
  chits.onCombatTurn(combat, data, { direction: 1 });
  assert.equal(data.turn, 0); // Ann again (her second chit), Bob's stunned chit skipped
  assert.deepEqual(data.flags.firefight.activations.skipped, [1]);
  assert.equal(data.flags.firefight.activations.index, 2);

  const atEnd = fakeCombat({ turn: 2, statuses: { B: ["stun"] }, state: { round: 1, list, index: 3, skipped: [1] } });
  const d2 = { round: 1, turn: 3 };
  chits.onCombatTurn(atEnd, d2, { direction: 1 });
  assert.deepEqual([d2.round, d2.turn], [2, 0]);
  assert.deepEqual(d2.flags.firefight.activations.skipped, [1, 4]);

  // Foundry's nextTurn past the last combatant calls nextRound: the order goes on.
  const last = fakeCombat({ turn: 2, state: { round: 1, list, index: 3, skipped: [] } });
  const d3 = { round: 2, turn: 0 };
  chits.onCombatRound(last, d3, { direction: 1 });
  assert.deepEqual([d3.round, d3.turn, d3.flags.firefight.activations.index], [1, 1, 4]);
  // ...but an explicit nextRound from another turn ends the round.
  const mid = fakeCombat({ turn: 0, state: { round: 1, list, index: 0, skipped: [] } });
  const d4 = { round: 2, turn: 0 };
  chits.onCombatRound(mid, d4, { direction: 1 });
  assert.deepEqual(d4, { round: 2, turn: 0 });
});

/** A player's client and the active GM's, sharing one module socket. */
function fakeTable({ isGM, owner = "p1" }) {
  const sent = [];
  const warned = [];
  const users = new Map([["gm", { id: "gm", name: "GM", isGM: true }], ["p1", { id: "p1", name: "Player 1" }], ["p2", { id: "p2", name: "Player 2" }]]);
  globalThis.game = {
    user: isGM ? users.get("gm") : users.get("p1"),
    users: Object.assign(users, { activeGM: users.get("gm") }),
    socket: { emit: (name, data) => sent.push([name, data]) },
    combats: new Map(),
    i18n: { localize: (k) => k, format: (k) => k, has: () => false },
  };
  globalThis.ui = { notifications: { warn: (m) => warned.push(m) } };
  const combat = fakeCombat({ turn: 0, state: { round: 1, list: activationsFromOrder(ORDER), index: 0, skipped: [] } });
  for (const c of combat.turns) c.testUserPermission = (user) => user.isGM || (c.id === "A" && user.id === owner);
  Object.defineProperty(combat, "combatant", { get() { return this.turns[this.turn]; } });
  const calls = [];
  combat.update = async (changes) => calls.push(changes);
  game.combats.set(combat.id, combat);
  return { sent, warned, combat, calls };
}

test("a player's End Turn changes nothing itself: the GM is asked, and writes turn, round and flags", () => {
  const { sent, combat } = fakeTable({ isGM: false });
  const chits = new ChitActivation(null, null);
  const data = { round: 1, turn: 1, flags: { x: 1 } };
  chits.onCombatTurn(combat, data, { direction: 1 });
  // The player's own update keeps the turn and round as they are (reliability audit hole 5).
  assert.deepEqual(data, { round: 1, turn: 0 });
  // No user id in the payload: the GM takes the sender Foundry names.
  assert.deepEqual(sent, [["module.firefight", { type: "combat-turn", combatId: "X", round: 1, index: 0, direction: 1 }]]);
  // Past the last combatant Foundry calls nextRound: the same, never a round of the player's.
  const last = { round: 2, turn: 0 };
  chits.onCombatRound(combat, last, { direction: 1 });
  assert.deepEqual(last, { round: 1, turn: 0 });
  // Previous turn asks for the next activation too: a player's End Turn never goes back (hole 6).
  const back = { round: 1, turn: 0 };
  chits.onCombatTurn(combat, back, { direction: -1 });
  assert.deepEqual(back, { round: 1, turn: 0 });
  assert.deepEqual(sent.map(([, d]) => d.direction), [1, 1, 1]);
});

test("the active GM ends the turn for the current combatant's owner, once", async () => {
  const { calls } = fakeTable({ isGM: true });
  const chits = new ChitActivation(null, null);
  const ask = { type: "combat-turn", combatId: "X", round: 1, index: 0, direction: 1 };
  // A payload naming the owner does not speak for another sender.
  await chits.onSocket({ ...ask, userId: "p1" }, "p2");
  assert.equal(calls.length, 0);
  await chits.onSocket(ask, "p1");
  assert.equal(calls.length, 1);
  assert.deepEqual([calls[0].round, calls[0].turn, calls[0]["flags.firefight.activations"].index], [1, 1, 1]);
  // Another player's request, or one for an activation already passed, changes nothing.
  await chits.onSocket(ask, "p2");
  await chits.onSocket({ ...ask, index: 3 }, "p1");
  await chits.onSocket({ ...ask, round: 0 }, "p1");
  assert.equal(calls.length, 1);
});

test("the active GM moves a player's End Turn one activation forward, whatever direction it names", async () => {
  const { combat, calls } = fakeTable({ isGM: true });
  combat.flags.firefight.activations.index = 1;
  combat.turn = 1;
  const chits = new ChitActivation(null, null);
  // Bob's second activation is the player's too (reliability audit hole 6: direction -1 went back).
  for (const c of combat.turns) c.testUserPermission = (user) => user.isGM || user.id === "p1";
  await chits.onSocket({ type: "combat-turn", combatId: "X", round: 1, index: 1, direction: -1 }, "p1");
  assert.equal(calls.length, 1);
  assert.equal(calls[0]["flags.firefight.activations"].index, 2);
});

test("without a GM a player's End Turn is refused with a message, and nothing is written", () => {
  const { sent, warned, combat } = fakeTable({ isGM: false });
  game.users.activeGM = null;
  const chits = new ChitActivation(null, null);
  const data = { round: 1, turn: 1 };
  chits.onCombatTurn(combat, data, { direction: 1 });
  assert.deepEqual(data, { round: 1, turn: 0 }); // nothing moves
  assert.equal(sent.length, 0);
  assert.equal(warned.length, 1);
});

test("chit pull is the `activation` table feature a ruleset declares: its actions and field names, with defaults", () => {
  assert.equal(activationSpec({}), null);
  assert.equal(activationSpec({ activation: { settle: "x" } }), null); // no draw action: no chit pull
  assert.deepEqual(activationSpec({ activation: { draw: "draw_chits", settle: "end_of_turn", units: "units", round: "turn", served: "skipped_turn", order: "order" } }),
    { draw: "draw_chits", settle: "end_of_turn", units: "units", round: "turn", served: "skipped_turn", order: "order" });
  assert.deepEqual(activationSpec({ activation: { draw: "pull" } }), { draw: "pull", settle: null, units: "units", round: null, served: null, order: "order" });
  // The units' list field is the feature's: another name reads that list's items.
  const schema = { type: "object", properties: { action: { const: "pull" }, squad: { type: "array", items: { type: "object", properties: { name: {}, grit: {} } } } } };
  assert.deepEqual(unitFields(schema, "pull", "squad"), ["name", "grit"]);
  assert.equal(unitFields(schema, "pull"), null);
});

// --- turn events (js-shim/canvas/turns.mjs): what a ruleset declares for a turn change ----------------

const FOLLOW = [{ state: "dying", after: "turn", unless: { stat: "hp", above: 0 }, labelKey: "k",
  effects: [{ target: "target", kind: "state", value: "dead", label_key: "d" }] }];

test("follow-ups: the state an actor's results left, unless its stat is above the value by then", () => {
  assert.deepEqual(followUpsOf({ followUp: [...FOLLOW, { state: 1 }, null] }).map((f) => f.after), ["turn"]);
  assert.deepEqual(followUpsOf({}), []);
  // The ruleset's own `state` field, else the last state condition (the applier keeps them).
  assert.equal(stateOfActor({ state: "ok" }, [{ kind: "state", value: "dying" }]), "ok");
  assert.equal(stateOfActor({}, [{ kind: "state", value: "dying" }, { kind: "trauma" }, { kind: "state", value: "dead" }]), "dead");
  assert.equal(stateOfActor({}, null), null);
  const specs = followUpsOf({ followUp: FOLLOW });
  assert.equal(dueFollowUps(specs, { hp: 0 }, "dying", "turn").length, 1);
  assert.equal(dueFollowUps(specs, { hp: null }, "dying", "turn").length, 1); // no hit points known: not above 0
  assert.equal(dueFollowUps(specs, { hp: 3 }, "dying", "turn").length, 0); // healed by then
  assert.equal(dueFollowUps(specs, { hp: 0 }, "dead", "turn").length, 0);
  assert.equal(dueFollowUps(specs, { hp: 0 }, "dying", "round").length, 0);
  assert.equal(dueFollowUps(specs, null, "dying", "turn").length, 0);
  assert.equal(unlessHolds({ stat: "hp" }, { hp: 5 }), false);
  // The note's result names the actor in every effect, so the applier finds it.
  const result = followUpResult("r1", specs[0], { name: "Ann", actor_id: "A1", token_id: "Scene.s.Token.t" });
  assert.deepEqual(result.effects[0].params, { actor_id: "A1", token_id: "Scene.s.Token.t", name: "Ann" });
  assert.equal(result.effects[0].kind, "state");
  assert.equal(result.followUp, "dying");
});

test("the turn feature: defaults, and token statuses from the declared stats", () => {
  assert.equal(turnSpec({}), null);
  assert.deepEqual(turnSpec({ turn: { action: "combat_turn" } }),
    { action: "combat_turn", phase: "phase", initiative: "initiative", canAct: "can_act", statuses: {} });
  const map = { dazed_turns: "stun", dazed_turn_end: "stun", immobilized: "restrain", ducked: "prone" };
  assert.deepEqual(statusesFromStats(map, { dazed_turns: 0, dazed_turn_end: true, immobilized: false }),
    { stun: true, restrain: false, prone: false });
  assert.deepEqual(statusesFromStats(map, { dazed_turns: 2 }), { stun: true, restrain: false, prone: false });
});

test("moments: only forward counts (round, then activation index or turn)", () => {
  assert.equal(isAfter({ round: 1, turn: 0, index: null }, null), true);
  assert.equal(isAfter({ round: 1, turn: 1, index: null }, { round: 1, turn: 0, index: null }), true);
  assert.equal(isAfter({ round: 1, turn: 0, index: null }, { round: 1, turn: 0, index: null }), false);
  assert.equal(isAfter({ round: 1, turn: 0, index: null }, { round: 1, turn: 2, index: null }), false); // rewound
  assert.equal(isAfter({ round: 2, turn: 0, index: null }, { round: 1, turn: 2, index: null }), true);
  assert.equal(isAfter({ round: 1, turn: 0, index: 5 }, { round: 1, turn: 3, index: 4 }), true); // drawn order
});

/** A world with one ruleset declaring `features`, this client a GM (active or not), one combat. */
function turnWorld(features, { active = true } = {}) {
  useCatalog({ rulesets: [{ id: "r1", features }] });
  const users = [{ id: "gm1", isGM: true }, { id: "gm2", isGM: true }];
  const me = active ? users[0] : users[1];
  const combatants = ["A", "B", "C"].map((id) => ({ id, name: id, actor: null, token: null }));
  const combat = {
    id: "cb", round: 1, turn: 0, started: true, turns: combatants, flags: {}, updates: [],
    combatants: { get: (id) => combatants.find((c) => c.id === id) },
    get combatant() { return this.turns[this.turn]; },
    async update(diff) {
      this.updates.push(diff);
      for (const [k, v] of Object.entries(diff)) {
        const path = k.split(".");
        let node = this;
        for (const p of path.slice(0, -1)) node = node[p] ??= {};
        node[path.at(-1)] = structuredClone(v);
      }
      return this;
    },
    async nextTurn() { this.turn += 1; },
  };
  globalThis.foundry = { utils: { expandObject: (o) => o } };
  globalThis.game = {
    user: me, users: { activeGM: users[0], get: (id) => users.find((u) => u.id === id) },
    settings: { get: (mod, key) => (key === "ruleset" ? "r1" : undefined) },
    combats: { get: (id) => (id === combat.id ? combat : null) }, combat,
  };
  globalThis.ui = { notifications: { error() {}, warn() {} } };
  const events = new TurnEvents({}, {});
  events.seen = [];
  // What a follow-up does is the applier's (browser tests); here: who it ran for, and whether
  // the combat's mark was already written when it ran.
  events.followUp = async (c, ruleset, specs, when) => {
    if (when === "turn") events.seen.push([c.id, combat.flags.firefight?.turnEvents?.combatantId]);
  };
  return { combat, events };
}

test("turn events run once per turn change, on the active GM only, the mark written first", async () => {
  const { combat, events } = turnWorld({ followUp: FOLLOW });
  await events.onUpdateCombat(combat, { round: 1, turn: 0 });
  combat.turn = 1;
  await events.onUpdateCombat(combat, { turn: 1 });
  // A second delivery of the same change (another hook, a late update) and a GM's reload.
  await events.onUpdateCombat(combat, { turn: 1 });
  await events.catchUp();
  assert.deepEqual(events.seen, [["A", "A"], ["B", "B"]]);
  assert.deepEqual(combat.flags.firefight.turnEvents, { round: 1, turn: 1, index: null, combatantId: "B" });
  // Rewinding runs nothing, going forward again to a turn already handled neither.
  combat.turn = 0;
  await events.onUpdateCombat(combat, { turn: 0 });
  combat.turn = 1;
  await events.onUpdateCombat(combat, { turn: 1 });
  assert.equal(events.seen.length, 2);
  combat.turn = 2;
  await events.onUpdateCombat(combat, { turn: 2 });
  assert.deepEqual(events.seen.at(-1), ["C", "C"]);
  // Two clicks before the queue gets to them: each turn is its own.
  combat.round = 2;
  combat.turn = 0;
  const first = events.onUpdateCombat(combat, { round: 2, turn: 0 });
  combat.turn = 1;
  const second = events.onUpdateCombat(combat, { turn: 1 });
  await Promise.all([first, second]);
  assert.deepEqual(events.seen.slice(-2).map(([id]) => id), ["A", "B"]);
  // Nothing declared: nothing runs, nothing is written.
  const bare = turnWorld({});
  assert.equal(await bare.events.handle(bare.combat, bare.events.momentOf(bare.combat)), false);
  assert.deepEqual(bare.combat.updates, []);
});

test("another GM's client (not the active GM) never acts; a player's neither", async () => {
  const { combat, events } = turnWorld({ followUp: FOLLOW }, { active: false });
  assert.equal(events.onUpdateCombat(combat, { round: 1, turn: 0 }), null);
  assert.equal(events.catchUp(), null);
  game.user = { id: "p1", isGM: false };
  assert.equal(events.onUpdateCombat(combat, { round: 1, turn: 0 }), null);
  await events.queue;
  assert.deepEqual(events.seen, []);
  assert.deepEqual(combat.updates, []);
});

test("with a chit pull, only the moment the drawn order stands at counts", async () => {
  const { combat, events } = turnWorld({ followUp: FOLLOW, activation: { draw: "draw" } });
  // The round went up; its order is not drawn yet: wait.
  await events.onUpdateCombat(combat, { round: 1, turn: 0 });
  assert.deepEqual(events.seen, []);
  // Drawn: the first activation is C's (turn 2).
  combat.flags.firefight = { activations: { round: 1, index: 0, list: [{ combatantId: "C" }, { combatantId: "A" }] } };
  combat.turn = 2;
  await events.onUpdateCombat(combat, { turn: 2, flags: { firefight: { activations: {} } } });
  assert.deepEqual(events.seen, [["C", "C"]]);
  // A player's End Turn moves the turn first; the GM's record of the activation follows.
  combat.turn = 0;
  await events.onUpdateCombat(combat, { turn: 0 });
  assert.equal(events.seen.length, 1);
  combat.flags.firefight.activations.index = 1;
  await events.onUpdateCombat(combat, { flags: { firefight: { activations: { index: 1 } } } });
  assert.deepEqual(events.seen.at(-1), ["A", "A"]);
});

test("only a GM's round change is settled and drawn; a player's change of round or turn is put back", async () => {
  const { combat, calls } = fakeTable({ isGM: true });
  globalThis.ui.combat = { render: () => {} };
  const chits = new ChitActivation(null, null);
  let drawn = 0;
  chits.newRound = async () => { drawn++; };
  // The current unit's owner sets round + 1 directly (reliability audit hole 5): no settle, no
  // draw; the round and turn go back to the drawn order's activation.
  combat.round = 2;
  combat.turn = 2;
  await chits.onUpdateCombat(combat, { round: 2 }, {}, "p1");
  assert.equal(drawn, 0);
  assert.deepEqual(calls, [{ round: 1, turn: 0 }]);
  // A turn of the player's own choosing likewise.
  combat.round = 1;
  await chits.onUpdateCombat(combat, { turn: 2 }, {}, "p1");
  assert.deepEqual(calls.at(-1), { round: 1, turn: 0 });
  // What already stands is not written again.
  combat.turn = 0;
  await chits.onUpdateCombat(combat, { turn: 0 }, {}, "p1");
  assert.equal(calls.length, 2);
  // The GM's own new round is settled and drawn.
  combat.round = 2;
  await chits.onUpdateCombat(combat, { round: 2 }, {}, "gm");
  assert.equal(drawn, 1);
  assert.equal(calls.length, 2);
});

test("declared conditions end as declared: 'turn' ones when the combatant's turn starts, 'round' ones when a round starts", async () => {
  const { combat, events } = turnWorld({});
  useCatalog({ rulesets: [{ id: "r1", features: {}, conditions: [
    { id: "dazzled", ends: "turn" }, { id: "ducked", ends: "round" }, { id: "braced", ends: "apply" }] }] });
  const written = [];
  for (const c of combat.turns) {
    c.actor = { id: c.id, flags: { firefight: { r1: { conditions: ["dazzled", "ducked", "braced"] } } },
      async update(diff) { written.push([c.id, diff]); } };
  }
  events.engine = { async call(op, { stats, when }) {
    assert.equal(op, "end_conditions");
    const ends = { turn: ["dazzled"], round: ["ducked"] }[when];
    return { stats: { ...stats, conditions: stats.conditions.filter((id) => !ends.includes(id)) } };
  } };
  await events.onUpdateCombat(combat, { round: 1, turn: 0 });
  // the round's start for everyone, then A's turn
  assert.deepEqual(written, [
    ["A", { "flags.firefight.r1.conditions": ["dazzled", "braced"] }],
    ["B", { "flags.firefight.r1.conditions": ["dazzled", "braced"] }],
    ["C", { "flags.firefight.r1.conditions": ["dazzled", "braced"] }],
    ["A", { "flags.firefight.r1.conditions": ["ducked", "braced"] }],
  ]);
});
