import { test } from "node:test";
import assert from "node:assert/strict";
import { buildRequest, combatant, weaponsOf, equippedArmor, rangeFromMeasure, itemEntry } from "../../js-shim/workflow/request.mjs";
import { fakeActor, fakeToken, actorByName } from "./fakes.mjs";

const rifleman = fakeActor(actorByName("Rifleman"), { hasPlayerOwner: true });
const rhino = fakeActor(actorByName("Rhino"));

test("weapons and equipped armor come from flags.firefight.<ruleset>", () => {
  assert.deepEqual(weaponsOf(rifleman, "soe").map((i) => i.id), ["ffH1ceiRigotti01"]);
  assert.deepEqual(equippedArmor(rifleman, "soe").map((i) => i.name), ["Steel Chestplate", "Steel Helmet"]);
  assert.deepEqual(weaponsOf(rifleman, "2300ad"), []);
});

test("unequipped armor is left out", () => {
  const actor = structuredClone(rifleman);
  actor.items = new Map(rifleman.items);
  const helmet = structuredClone(actor.items.get("ffH1steelHelmet1"));
  helmet.flags.firefight.equipped = false;
  actor.items.set(helmet.id, helmet);
  assert.deepEqual(equippedArmor(actor, "soe").map((i) => i.name), ["Steel Chestplate"]);
});

test("combatant has the documented shape", () => {
  const c = combatant(fakeToken(rifleman, "tokA"), "soe");
  assert.deepEqual(Object.keys(c), ["name", "actor_id", "token_id", "pc", "stats", "armor"]);
  assert.equal(c.pc, true);
  assert.equal(c.token_id, "tokA");
  assert.equal(c.stats.marksmanship, 12);
  assert.deepEqual(c.armor[0], {
    name: "Steel Chestplate", item_id: "ffH1steelChest01", category: "armor", vs_rifle: -2, vs_pistol: -3,
    coverage: 0.1, thickness_mm: 3.0, mass_kg: 4.1, helmet: false,
  });
  assert.deepEqual(combatant(fakeToken(rhino, "tokB"), "soe").armor, []);
});

test("combatant fails clearly when the actor has no data for the ruleset", () => {
  assert.throws(() => combatant(fakeToken(rhino, "t"), "2300ad"), /Lesser Venusian Rhino has no Firefight stats/);
  assert.throws(() => combatant({ name: "Empty" }, "soe"), /has no actor/);
});

test("buildRequest assembles the attack request", () => {
  const weaponItem = weaponsOf(rifleman, "soe")[0];
  const req = buildRequest({
    ruleset: "soe", attackerToken: fakeToken(rifleman, "tokA"), targetToken: fakeToken(rhino, "tokB"),
    weaponItem, range: { value: 120, units: "m" }, options: { mode: "aimed" },
  });
  assert.equal(req.ruleset, "soe");
  assert.equal(req.action, "attack");
  assert.equal(req.target.stats.toughness, 8);
  assert.equal(req.target.pc, false);
  assert.deepEqual(req.weapon, { name: weaponItem.name, item_id: "ffH1ceiRigotti01", ...weaponItem.flags.firefight.soe });
  assert.deepEqual(req.range, { value: 120, units: "m" });
  assert.deepEqual(req.options, { mode: "aimed" });
  // The request is a copy: editing it leaves the documents alone.
  req.attacker.stats.hp = 0;
  assert.equal(rifleman.flags.firefight.soe.hp, 8);
  assert.doesNotThrow(() => JSON.stringify(req));
});

test("itemEntry puts name and id before the data", () => {
  const e = itemEntry({ id: "x", name: "N", flags: { firefight: { soe: { category: "weapon", damage: 1 } } } }, "soe");
  assert.deepEqual(e, { name: "N", item_id: "x", category: "weapon", damage: 1 });
});

test("rangeFromMeasure passes the scene's unit on (the engine converts it), or metres by the world's mapping", () => {
  assert.deepEqual(rangeFromMeasure(15, "m"), { value: 15, units: "m" });
  assert.deepEqual(rangeFromMeasure(100, "ft"), { value: 100, units: "ft" });
  assert.deepEqual(rangeFromMeasure(1.5, " km "), { value: 1.5, units: "km" });
  assert.deepEqual(rangeFromMeasure(3, "hexes"), { value: 3, units: "hexes" });
  assert.deepEqual(rangeFromMeasure(10.123456, "in"), { value: 10.12, units: "in" });
});

test("a token on a scene is named by its UUID: two tokens of one unlinked actor stay apart", () => {
  const npc = fakeActor(actorByName("Rhino"));
  const one = { ...fakeToken(npc, "t1"), document: { id: "t1", uuid: "Scene.s1.Token.t1" } };
  const two = { ...fakeToken(npc, "t2"), document: { id: "t2", uuid: "Scene.s1.Token.t2" } };
  const [a, b] = [combatant(one, "soe"), combatant(two, "soe")];
  assert.equal(a.actor_id, b.actor_id); // synthetic actors keep the base actor's id
  assert.equal(a.token_id, "Scene.s1.Token.t1");
  assert.equal(b.token_id, "Scene.s1.Token.t2");
});
