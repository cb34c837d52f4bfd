// Ammunition in Node: a weapon's magazine read from its flags, the rounds an engine reply names,
// a shot short of rounds refused before anything is rolled, rounds taken off and reloaded.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  readAmmo, roundsOf, isShort, afterFiring, reloaded, countText, checkRounds, spendRounds, reload,
  AmmoRefusal, ammoLineHTML,
} from "../../js-shim/documents/ammo.mjs";
import { ammoFields, ammoBoxHTML } from "../../js-shim/documents/item-sheet.mjs";
import { packDocs, fakeItem } from "./fakes.mjs";

const withAmmo = (ammo, name = "Rifle") => ({ id: "it1", name, flags: { firefight: { ammo } } });

/** A fake item whose update applies a dotted change, as Foundry's does. */
function liveItem(ammo, settings = {}) {
  const actor = { uuid: "Actor.a", name: "Ada" };
  const item = withAmmo(structuredClone(ammo));
  item.parent = actor;
  item.updates = [];
  item.update = async (changes) => {
    item.updates.push(changes);
    item.flags.firefight.ammo.loaded = changes["flags.firefight.ammo.loaded"];
    return item;
  };
  globalThis.game = { settings: { get: (_m, key) => (key in settings ? settings[key] : true) } };
  return item;
}

/** An engine that answers `odds` with the rounds given and fails anything else. */
function engine(rounds) {
  const calls = [];
  return {
    calls,
    call: async (op, msg) => {
      calls.push(op);
      if (op !== "odds") throw new Error(`unexpected ${op}`);
      return { probability: 0.5, ...(rounds === undefined ? {} : { rounds_fired: rounds }), msg };
    },
  };
}

test("a weapon's magazine is read from flags.firefight.ammo; none is not tracked", () => {
  assert.deepEqual(readAmmo(withAmmo({ capacity: 5, loaded: 3 })), { capacity: 5, loaded: 3 });
  assert.equal(readAmmo({ name: "Knife", flags: { firefight: { soe: {} } } }), null);
  assert.equal(readAmmo(null), null);
});

test("a magazine that is not one names the item and the field", () => {
  assert.throws(() => readAmmo(withAmmo({ capacity: 0, loaded: 0 })), /Rifle: flags\.firefight\.ammo\.capacity/);
  assert.throws(() => readAmmo(withAmmo({ capacity: 5, loaded: -1 })), /ammo\.loaded/);
  assert.throws(() => readAmmo(withAmmo({ capacity: 5, loaded: 2.5 })), /ammo\.loaded/);
  assert.throws(() => readAmmo(withAmmo({ capacity: 5, loaded: 6 })), /ammo\.loaded — at most the capacity, 5/);
  assert.throws(() => readAmmo(withAmmo("thirty")), /ammo\.capacity/);
});

test("the rounds an engine reply names: the odds' or the result outcome's", () => {
  assert.equal(roundsOf({ probability: 0.2, rounds_fired: 3 }), 3);
  assert.equal(roundsOf({ outcome: { hit: true, rounds_fired: 20 } }), 20);
  assert.equal(roundsOf({ probability: 0.2 }), null);
  assert.equal(roundsOf({ rounds_fired: -1 }), null);
  assert.equal(roundsOf({ rounds_fired: "3" }), null);
  assert.equal(roundsOf(null), null);
});

test("short, fired, reloaded", () => {
  const ammo = { capacity: 5, loaded: 2 };
  assert.equal(isShort(ammo, 2), false);
  assert.equal(isShort(ammo, 3), true);
  assert.equal(isShort(null, 3), false);
  assert.equal(afterFiring(ammo, 2), 0);
  assert.equal(afterFiring(ammo, 9), 0);
  assert.deepEqual(reloaded(ammo), { capacity: 5, loaded: 5 });
  assert.equal(countText(ammo), "2/5");
});

test("a shot short of rounds is refused before anything is rolled", async () => {
  const item = liveItem({ capacity: 5, loaded: 1 });
  const eng = engine(2);
  await assert.rejects(checkRounds(eng, { ruleset: "x" }, item), (err) => err instanceof AmmoRefusal
    && err.code === "no_ammo" && /Rifle has 1 of 5 rounds loaded; this shot fires 2/.test(err.message)
    // Its key and parameters go with it, for the player's own language (relay.mjs).
    && err.said?.key === "FIREFIGHT.ui.ammo.short" && err.said.params.rounds === 2);
  assert.deepEqual(eng.calls, ["odds"]);
  assert.equal(await checkRounds(engine(1), {}, item), 1);
});

test("an untracked weapon, an action that fires nothing, or tracking off: nothing is asked or refused", async () => {
  const plain = liveItem({ capacity: 5, loaded: 0 });
  delete plain.flags.firefight.ammo;
  const eng = engine(3);
  assert.equal(await checkRounds(eng, {}, plain), null);
  assert.deepEqual(eng.calls, []);
  assert.equal(await checkRounds(engine(undefined), {}, liveItem({ capacity: 5, loaded: 0 })), null);
  const off = liveItem({ capacity: 5, loaded: 0 }, { ammunition: false });
  assert.equal(await checkRounds(engine(3), {}, off), null);
  await spendRounds(off, { outcome: { rounds_fired: 3 } });
  assert.deepEqual(off.updates, []);
});

test("the rounds a result fired come off, two shots in a row both count", async () => {
  const item = liveItem({ capacity: 30, loaded: 30 });
  await Promise.all([spendRounds(item, { outcome: { rounds_fired: 10 } }), spendRounds(item, { outcome: { rounds_fired: 5 } })]);
  assert.equal(item.flags.firefight.ammo.loaded, 15);
  await spendRounds(item, { outcome: { rounds_fired: 40 } });
  assert.equal(item.flags.firefight.ammo.loaded, 0);
});

test("reload refills to capacity and posts a line naming who and what", async () => {
  const item = liveItem({ capacity: 8, loaded: 2 });
  const posted = [];
  globalThis.ChatMessage = { create: async (data) => posted.push(data), getSpeaker: ({ actor }) => ({ alias: actor.name }) };
  assert.deepEqual(await reload(item), { capacity: 8, loaded: 8 });
  assert.equal(item.flags.firefight.ammo.loaded, 8);
  assert.equal(posted.length, 1);
  assert.match(posted[0].content, /Ada reloads Rifle \(8\/8\)/);
  assert.deepEqual(posted[0].speaker, { alias: "Ada" });
});

test("the dialog line shows loaded/capacity and the rounds the shot fires, marked when short", () => {
  liveItem({ capacity: 1, loaded: 1 });
  const html = ammoLineHTML(withAmmo({ capacity: 5, loaded: 1 }), 2);
  assert.match(html, /Rounds loaded: 1\/5 · this shot fires 2/);
  assert.match(html, /ff-short/);
  assert.match(html, /data-firefight-action="reload"/);
  assert.equal(ammoLineHTML({ name: "Knife", flags: {} }, 1), "");
});

test("every percentile pack weapon carries its magazine, full", () => {
  const weapons = packDocs("percentile-weapons").map(fakeItem);
  assert.ok(weapons.length >= 20);
  for (const w of weapons) {
    assert.deepEqual(readAmmo(w), { capacity: w.flags.firefight.percentile.magazine, loaded: w.flags.firefight.percentile.magazine }, w.name);
  }
});

test("the item tab's magazine fields keep the core Ammo model's bounds, optional, by their own names", () => {
  // The engine's schema op `ammo` (py/firefight/models.py Ammo).
  const schema = { type: "object", required: ["capacity", "loaded"], properties: {
    capacity: { type: "integer", minimum: 1, maximum: 10000, title: "Capacity" },
    loaded: { type: "integer", minimum: 0, maximum: 10000, title: "Loaded" } } };
  const fields = ammoFields(schema);
  assert.deepEqual(fields.map((f) => [f.name, f.min, f.max, Boolean(f.required)]),
    [["ammo.capacity", 1, 10000, false], ["ammo.loaded", 0, 10000, false]]);
  const html = ammoBoxHTML(fields, { capacity: 6, loaded: 2 });
  assert.match(html, /name="opt\.ammo\.capacity" value="6" min="1" max="10000"/);
  assert.match(html, /name="opt\.ammo\.loaded" value="2" min="0"/);
  // No magazine: both empty (not tracked).
  assert.doesNotMatch(ammoBoxHTML(fields, undefined), /value="\d/);
});

test("spare magazines: a count the referee sets, a reload takes one, none left refuses it", async () => {
  assert.deepEqual(readAmmo(withAmmo({ capacity: 5, loaded: 0, spares: 2 })), { capacity: 5, loaded: 0, spares: 2 });
  assert.throws(() => readAmmo(withAmmo({ capacity: 5, loaded: 0, spares: -1 })), /ammo\.spares/);
  assert.deepEqual(reloaded({ capacity: 5, loaded: 1, spares: 2 }), { capacity: 5, loaded: 5, spares: 1 });
  const item = liveItem({ capacity: 5, loaded: 1, spares: 1 });
  const posted = [];
  globalThis.ChatMessage = { create: async (data) => posted.push(data), getSpeaker: () => ({}) };
  assert.deepEqual(await reload(item), { capacity: 5, loaded: 5, spares: 0 });
  assert.deepEqual(item.updates.at(-1), { "flags.firefight.ammo.loaded": 5, "flags.firefight.ammo.spares": 0 });
  assert.match(posted[0].content, /0 spare magazines left/);
  item.flags.firefight.ammo.spares = 0;
  await assert.rejects(reload(item), (err) => err instanceof AmmoRefusal && /no spare magazine/.test(err.message));
});
