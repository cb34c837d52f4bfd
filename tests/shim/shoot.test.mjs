import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { shoot } from "../../js-shim/workflow/workflow.mjs";
import { Roll } from "../../sandbox/foundry/dice.mjs";
import { fakeActor, fakeToken, actorByName, packDocs } from "./fakes.mjs";
import { useCatalog } from "../../js-shim/world/catalog.mjs";

const dice = [
  { formula: "1d20x20", faces: 20, explode_on: 20, results: [20, 4], total: 24, purpose: "to-hit, attacker", side: "attacker" },
  { formula: "1d20x20", faces: 20, explode_on: 20, results: [9], total: 9, purpose: "to-hit, target", side: "target" },
];
const options = { type: "object", properties: {
  mode: { enum: ["quickfire", "aimed"], default: "aimed", type: "string" },
  target_dodging: { type: "boolean", default: false },
} };
// The engine's `schema` reply: the attack's request variant (as pydantic writes it) and its options.
const participant = { type: "object", properties: { name: { type: "string" }, actor_id: { type: "string" },
  token_id: { type: "string" }, pc: { type: "boolean" }, stats: { type: "object" }, armor: { type: "array" } } };
const schema = {
  request: { type: "object", required: ["attacker", "target", "weapon"], properties: {
    ruleset: { type: "string" }, action: { const: "attack", type: "string" },
    attacker: participant, target: participant, weapon: { type: "object" }, range: { type: "object" },
    options: { type: "object" }, settings: { type: "object" } } },
  options, actions: { attack: options },
};

let created;
let notes;
let hooks; // [name, ...args] of every Hooks.call / callAll
let handlers = {}; // hook name -> handler (Hooks.call returns its value)
// The player's own actor (Document#testUserPermission(user, "OWNER")), and one they do not own.
const owned = (actor, ownerId) => Object.assign(actor, { testUserPermission: (user, level) => level === "OWNER" && user?.id === ownerId });

function install({ targets, shooter = "Rifleman" }) {
  created = [];
  notes = [];
  const a = fakeToken(owned(fakeActor(actorByName(shooter), { hasPlayerOwner: true }), "P1"), "tokA", { x: 50, y: 50 });
  const b = fakeToken(owned(fakeActor(actorByName("Rhino")), null), "tokB", { x: 50, y: 650 });
  globalThis.game = {
    settings: { get: (ns, key) => ({ ruleset: "soe", debug: false })[key], settings: new Map() },
    user: { id: "P1", isGM: false, targets: new Set(targets ? [b] : []) },
    i18n: { localize: (k) => k, format: (k) => k },
  };
  globalThis.canvas = {
    tokens: { controlled: [a] },
    scene: { grid: { units: "m" } },
    // v13 GridMeasurePathResult: `distance` by the diagonal rule (here EQUIDISTANT), `euclidean` straight.
    grid: { measurePath: ([p, q]) => ({ distance: (Math.max(Math.abs(q.x - p.x), Math.abs(q.y - p.y)) / 100) * 5,
      euclidean: (Math.hypot(q.x - p.x, q.y - p.y) / 100) * 5 }) },
  };
  globalThis.ui = { notifications: { error: (m) => notes.push(["error", m]), info: (m) => notes.push(["info", m]) } };
  globalThis.CONFIG = { Dice: { randomUniform: () => 0.5 }, sounds: {} };
  globalThis.Roll = Roll;
  hooks = [];
  globalThis.Hooks = {
    call: (name, ...args) => {
      hooks.push([name, ...args]);
      return (handlers[name] ?? (() => true))(...args);
    },
    callAll: (name, ...args) => { hooks.push([name, ...args]); },
  };
  globalThis.ChatMessage = {
    getSpeaker: ({ token }) => ({ token: token?.id ?? null, alias: "speaker" }),
    create: async (data) => (created.push(data), { id: "msg1", ...data }),
  };
  return { a, b };
}

function fakeEngine() {
  const calls = [];
  return {
    calls, status: "ready",
    async call(op, payload) {
      calls.push({ op, payload });
      if (op === "schema") return schema;
      if (op === "resolve") return { result: { ruleset: "soe", dice, effects: [] }, html: "<div class=firefight-card></div>", text: "" };
      throw new Error(`unexpected ${op}`);
    },
  };
}

beforeEach(() => {
  delete globalThis.game;
  handlers = {};
});

test("a shot without the dialog posts one ChatMessage with the engine's dice as rolls", async () => {
  install({ targets: true });
  const engine = fakeEngine();
  const msg = await shoot(engine, null, { dialog: false, options: { mode: "quickfire" } });
  assert.equal(msg.id, "msg1");
  assert.deepEqual(notes, []);
  const resolve = engine.calls.find((c) => c.op === "resolve").payload;
  assert.equal(resolve.entropy.length, 64);
  assert.deepEqual(resolve.request.range, { value: 30, units: "m" });
  assert.deepEqual(resolve.request.options, { mode: "quickfire", target_dodging: false });
  assert.equal(resolve.request.weapon.item_id, "ffH1ceiRigotti01");
  const data = created[0];
  assert.equal(data.content, "<div class=firefight-card></div>");
  assert.deepEqual(data.speaker, { token: "tokA", alias: "speaker" });
  assert.deepEqual(data.flags.firefight.request, resolve.request);
  assert.equal(data.rolls.length, 2);
  assert.ok(data.rolls[0] instanceof Roll);
  assert.deepEqual(data.rolls.map((r) => r.dice[0].results.map((x) => x.result)), [[20, 4], [9]]);
  assert.deepEqual(data.rolls.map((r) => r.total), [24, 9]);
});

test("no target: a notification, no message, no throw", async () => {
  install({ targets: false });
  const msg = await shoot(fakeEngine(), null, { dialog: false });
  assert.equal(msg, null);
  assert.equal(created.length, 0);
  assert.deepEqual(notes, [["error", "Firefight: Target a token first."]]);
});

test("engine errors are notified with the field named", async () => {
  install({ targets: true });
  const engine = fakeEngine();
  engine.call = async (op) => {
    if (op === "schema") return schema;
    const { EngineError } = await import("../../js-shim/engine/engine.mjs");
    throw new EngineError({ code: "invalid_request", message: "bad request", fields: [{ field: "weapon.damage", reason: "required" }] });
  };
  assert.equal(await shoot(engine, null, { dialog: false }), null);
  assert.match(notes.at(-1)[1], /bad request: weapon.damage — required/);
});

test("a player cannot shoot with a token they do not own: refused before anything is rolled", async () => {
  const { a, b } = install({ targets: true });
  canvas.tokens.controlled = [b];
  game.user.targets = new Set([a]);
  const engine = fakeEngine();
  assert.equal(await shoot(engine, null, { dialog: false }), null);
  assert.deepEqual(engine.calls, []); // no schema, no odds, no roll
  assert.equal(created.length, 0);
  assert.match(notes.at(-1)[1], /You do not own Lesser Venusian Rhino/);
  // The GM may shoot with any token (here the player's rifleman).
  canvas.tokens.controlled = [a];
  game.user = { id: "GM", isGM: true, targets: new Set([b]) };
  assert.ok(await shoot(engine, null, { dialog: false }));
});

test("firefight.preRequest may change the request or cancel it; firefight.result follows the card", async () => {
  install({ targets: true });
  // A handler changes an option the player could have chosen.
  handlers["firefight.preRequest"] = (request, context) => {
    assert.equal(context.action, "attack");
    assert.equal(context.ruleset, "soe");
    request.options.target_dodging = true;
    return undefined;
  };
  const engine = fakeEngine();
  const message = await shoot(engine, null, { dialog: false });
  assert.ok(message);
  const resolve = engine.calls.find((c) => c.op === "resolve");
  assert.equal(resolve.payload.request.options.target_dodging, true);
  const [name, result, posted] = hooks.find(([n]) => n === "firefight.result");
  assert.equal(name, "firefight.result");
  assert.equal(result.ruleset, "soe");
  assert.equal(posted.id, "msg1");
  // A handler that returns false cancels: nothing is rolled or posted, nothing is reported.
  handlers["firefight.preRequest"] = () => false;
  const before = { resolves: engine.calls.filter((c) => c.op === "resolve").length, notes: notes.length };
  assert.equal(await shoot(engine, null, { dialog: false }), null);
  assert.equal(engine.calls.filter((c) => c.op === "resolve").length, before.resolves);
  assert.equal(created.length, 1);
  assert.equal(notes.length, before.notes);
});

test("a shot carries the world's RollTables its ruleset names in features.actionTables (General Trauma texts)", async () => {
  install({ targets: true });
  useCatalog({ rulesets: [{ id: "soe", actions: ["attack"], features: {
    actionTables: { attack: { field: "trauma_tables", by: "trauma_class" } } } }] });
  try {
    // The world's tables as v13 holds them: results with ranges; the texts are the referee's.
    game.tables = packDocs("soe-trauma").map((d) => ({ name: d.name, flags: d.flags,
      results: { contents: [...d.results].reverse().map((r) => ({ range: r.range, text: `${d.flags.firefight.soe.trauma_class} ${r.range[0]}` })) } }));
    const engine = fakeEngine();
    assert.ok(await shoot(engine, null, { dialog: false }));
    const request = engine.calls.find((c) => c.op === "resolve").payload.request;
    assert.deepEqual(Object.keys(request.trauma_tables).sort(), ["critical", "fatal", "minor", "moderate", "severe", "trivial", "untreatable"]);
    assert.deepEqual(request.trauma_tables.minor, ["minor 1", "minor 5", "minor 9", "minor 13", "minor 17"]);
    // A world without such tables sends none (the engine's own texts are used).
    game.tables = [];
    const again = fakeEngine();
    assert.ok(await shoot(again, null, { dialog: false }));
    assert.equal("trauma_tables" in again.calls.find((c) => c.op === "resolve").payload.request, false);
  } finally {
    useCatalog(null);
  }
});

test("a second Shoot while the dialog is open brings that dialog forward instead of opening another", async () => {
  install({ targets: true });
  let opened = 0;
  let finish;
  const focused = [];
  // ApplicationV2#bringToFront (foundryvtt.com/api/v13 ApplicationV2) and the dialog's first field.
  const dialog = {
    fronted: 0,
    bringToFront() { this.fronted++; },
    element: {
      addEventListener() {},
      querySelector: (sel) => (sel === "select, input, button.default" ? { focus: () => focused.push(sel) } : null),
    },
  };
  globalThis.foundry = { applications: { api: { DialogV2: { wait: (config) => {
    opened++;
    config.render?.({}, dialog);
    return new Promise((resolve) => { finish = resolve; });
  } } } } };
  const engine = fakeEngine();
  engine.call = async (op) => (op === "schema" ? schema : op === "odds" ? { probability: 0.5 } : fakeEngine().call(op));
  const first = shoot(engine, null);
  for (let i = 0; i < 20 && !opened; i++) await new Promise((r) => setTimeout(r, 0));
  assert.equal(opened, 1);
  assert.equal(await shoot(engine, null), null); // the button, the key or the HUD again
  assert.equal(await shoot(engine, null), null);
  assert.equal(opened, 1);
  assert.equal(dialog.fronted, 2);
  assert.equal(focused.length, 2);
  finish(null); // cancelled
  assert.equal(await first, null);
  // Closed: Shoot opens a dialog again.
  const third = shoot(engine, null);
  for (let i = 0; i < 20 && opened < 2; i++) await new Promise((r) => setTimeout(r, 0));
  assert.equal(opened, 2);
  finish(null);
  await third;
  delete globalThis.foundry;
});

test("isFault: a refusal of what the user chose is not logged as a fault; a script error or the engine's internal error is", async () => {
  const { isFault } = await import("../../js-shim/core/errors.mjs");
  const { EngineError } = await import("../../js-shim/engine/engine.mjs");
  assert.equal(isFault(new EngineError({ code: "invalid_request", fields: [{ field: "options.difficulty" }] })), false);
  assert.equal(isFault(new Error("Select your token first.")), false);
  assert.equal(isFault(new EngineError({ code: "internal_error" })), true);
  assert.equal(isFault(new TypeError("x is undefined")), true);
});
