// The relay's trust rules in Node: who sent a request, one write queue per actor, what the GM's
// client compares, and who may ask for a result.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withActors, withActor, isBusy } from "../../js-shim/documents/writes.mjs";
import { firstDifference, participantsOf, knownStates } from "../../js-shim/relay/verify.mjs";
import { mayRequest } from "../../js-shim/documents/apply.mjs";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test("writes to one actor run one at a time, each reading what the last one wrote", async () => {
  const actor = { uuid: "Actor.a", data: { hp: 10, pretrauma: -2 } };
  // Two writers that read, wait (an engine call), then write everything they read back.
  const writer = (change) => withActor(actor, async () => {
    const before = { ...actor.data };
    await tick();
    actor.data = { ...before, ...change };
  });
  await Promise.all([writer({ hp: 7 }), writer({ pretrauma: 0 })]);
  assert.deepEqual(actor.data, { hp: 7, pretrauma: 0 });
  assert.equal(isBusy(actor), false);
});

test("writes to several actors take every actor's turn, in any order, without a deadlock", async () => {
  const a = { uuid: "Actor.a" };
  const b = { uuid: "Actor.b" };
  const order = [];
  await Promise.all([
    withActors([a, b], async () => { await tick(); order.push("ab"); }),
    withActors([b, a], async () => { order.push("ba"); }),
    withActor(b, async () => { order.push("b"); }),
  ]);
  assert.deepEqual(order, ["ab", "ba", "b"]);
  // A failed write does not stop the queue.
  await assert.rejects(withActor(a, async () => { throw new Error("boom"); }), /boom/);
  assert.equal(await withActor(a, async () => "next"), "next");
});

test("the first difference names the field a forger changed", () => {
  const honest = { weapon: { damage: 3, name: "Rifle" }, target: { stats: { toughness: 8 } }, range: { value: 10 } };
  const forged = structuredClone(honest);
  forged.target.stats.toughness = 0;
  assert.equal(firstDifference(honest, forged), "target.stats.toughness");
  forged.weapon.damage = 50;
  assert.equal(firstDifference(honest, forged), "target.stats.toughness");
  assert.equal(firstDifference({ b: 1, a: 2 }, { a: 2, b: 1 }), null);
  assert.equal(firstDifference({ a: [1, 2] }, { a: [1, 3] }), "a.1");
});

test("participants are found at the top of a request and in its lists", () => {
  const request = { attacker: { actor_id: "A", token_id: "Scene.s.Token.t" }, weapon: { item_id: "w" },
    units: [{ actor_id: "U1" }, { name: "no id" }, { token_id: "Scene.s.Token.u2" }], range: { value: 3 } };
  assert.deepEqual(participantsOf(request).map((p) => p.path), ["attacker", "units.0", "units.2"]);
});

test("an actor's known states are its data now and what the GM's records say it had since the shot", () => {
  const now = Date.now();
  const actor = { flags: { firefight: { soe: { hp: 5 }, applied: {
    m1: { ruleset: "soe", at: now, before: { hp: 8 }, after: { hp: 5 } },
    old: { ruleset: "soe", at: now - 3600 * 1000, before: { hp: 99 }, after: { hp: 8 } },
    gone: { ruleset: "soe", at: now, undone: { by: "GM" } },
  } } } };
  assert.deepEqual(knownStates(actor, "soe", now - 1000), [{ hp: 5 }, { hp: 8 }, { hp: 5 }]);
});

test("a GM-rolled shot may be applied by the player it was rolled for, and by nobody else", () => {
  const gm = { id: "GM", isGM: true };
  const p1 = { id: "P1", isGM: false };
  const p2 = { id: "P2", isGM: false };
  const rolled = { author: gm, flags: { firefight: { rolledFor: "P1" } } };
  assert.equal(mayRequest(rolled, p1), true);
  assert.equal(mayRequest(rolled, p2), false);
  assert.equal(mayRequest(rolled, gm), true);
  // The mark counts only on a message a GM wrote (a player cannot write one as a GM).
  const forged = { author: p2, flags: { firefight: { rolledFor: "P1" } } };
  assert.equal(mayRequest(forged, p1), false);
});

test("the requester is the sender the socket names, never the payload's userId", async () => {
  const listeners = [];
  const sent = [];
  const users = new Map([["GM", { id: "GM", name: "GM", isGM: true }], ["P1", { id: "P1", name: "P1", isGM: false }]]);
  Object.assign(users, { activeGM: users.get("GM") });
  globalThis.game = {
    user: users.get("GM"), users,
    socket: { on: (name, fn) => listeners.push(fn), emit: (name, data) => sent.push(data) },
    i18n: { localize: (k) => k, format: (k) => k, has: () => false },
  };
  const relay = await import("../../js-shim/relay/relay.mjs");
  const seen = [];
  relay.onRequest("probe", (payload, sender) => { seen.push(sender.id); return { echoed: payload.userId }; });
  relay.listen();
  listeners[0]({ type: "probe", requestId: "r1", payload: { userId: "GM" }, userId: "GM" }, "P1");
  await tick();
  assert.deepEqual(seen, ["P1"]);
  assert.equal(sent[0].to, "P1");
  assert.equal(sent[0].reply.ok, true);
  // No sender: refused, the handler never runs.
  listeners[0]({ type: "probe", requestId: "r2", payload: {} }, undefined);
  await tick();
  assert.deepEqual(seen, ["P1"]);
  assert.equal(sent[1].reply.code, "unknown_sender");
  delete globalThis.game;
});

test("a refusal from a GM's client in English reaches a player's client in German in German", async () => {
  const { readFileSync } = await import("node:fs");
  const { said } = await import("../../js-shim/core/i18n.mjs");
  const { requestField } = await import("../../js-shim/documents/apply.mjs");
  const dict = (lang) => {
    const data = JSON.parse(readFileSync(new URL(`../../lang/${lang}.json`, import.meta.url), "utf8"));
    return (key) => key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), data) ?? key;
  };
  const listeners = [];
  const sent = [];
  const users = new Map([["GM", { id: "GM", name: "GM", isGM: true }], ["P1", { id: "P1", name: "P1", isGM: false }]]);
  Object.assign(users, { activeGM: users.get("GM") });
  const socket = { on: (name, fn) => listeners.push(fn), emit: (name, data) => sent.push(data) };
  const asUser = (id, lang) => {
    globalThis.game = { user: users.get(id), users, socket, i18n: { lang, localize: dict(lang) } };
  };
  const relay = await import("../../js-shim/relay/relay.mjs?languages"); // a fresh relay: listen() once per module
  // The GM's client (English) refuses as apply.mjs does: a field label and verify.mjs's reason inside.
  asUser("GM", "en");
  relay.onRequest("probe", () => {
    throw new relay.Refusal("changed_request", said("FIREFIGHT.ui.apply.changedRequest", "the shot does not match the table: {field} is {reason}",
      { field: requestField("soe", "target.stats.marksmanship"), reason: said("FIREFIGHT.ui.verify.stats", "not {name}'s data", { name: "Ada" }) }));
  });
  relay.listen();
  listeners[0]({ type: "probe", requestId: "r1", payload: {} }, "P1");
  await tick();
  const gmReply = sent[0].reply;
  assert.equal(gmReply.reason, "the shot does not match the table: Marksmanship (target.stats.marksmanship) is not Ada's data");
  // The player's client (German) asks and shows the reply in German, the label too.
  asUser("P1", "de");
  const asked = relay.ask("probe", {});
  listeners[0]({ type: "reply", requestId: sent[1].requestId, to: "P1", reply: gmReply }, "GM");
  const answer = await asked;
  assert.equal(answer.code, "changed_request");
  assert.equal(answer.reason, "der Schuss passt nicht zum Tisch: Schießen (target.stats.marksmanship) ist nicht die Daten von Ada");
  // A key that is no Firefight lang key, or one this client lacks: the GM's text as sent.
  for (const key of ["core.secret", "FIREFIGHT.ui.nothing.here"]) {
    const forged = relay.ask("probe", {});
    listeners[0]({ type: "reply", requestId: sent.at(-1).requestId, to: "P1", reply: { ...gmReply, key } }, "GM");
    assert.equal((await forged).reason, gmReply.reason);
  }
  // An engine refusal naming a weapon without a name: the stand-in in German too (errors.py `named`).
  const { errorText } = await import("../../js-shim/core/i18n.mjs");
  const name = { key: "FIREFIGHT.error.unnamed.weaponDative", fallback: "the weapon" };
  assert.equal(errorText({ key: "FIREFIGHT.soe.error.beyond_max_range.message", params: { range: "20", name, max: "5.5" }, message: "?" }),
    "20 m liegen jenseits der Höchstreichweite von der Waffe (5,5 m)");
  delete globalThis.game;
});
