// Engine statuses in each system's own ids (js-shim/systems), checked against the status lists
// the sandbox imitates (sandbox/foundry/systems.mjs), and the healing clock per unlinked token.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { useCatalog } from "../../js-shim/world/catalog.mjs";
import { adapterFor, systemStatus, statusPlan, hasStatus, engineStatuses, setEngineStatus } from "../../js-shim/systems/index.mjs";
import { SYSTEMS } from "../../sandbox/foundry/systems.mjs";
import { advanceTime } from "../../js-shim/canvas/features.mjs";

const ENGINE_IDS = ["dead", "unconscious", "stun", "prone", "bleeding", "fear"];

function world(system) {
  globalThis.game = { system: { id: system }, user: { isGM: true }, users: { activeGM: null } };
  globalThis.CONFIG = { statusEffects: structuredClone(SYSTEMS[system].statusEffects) };
}

/** An actor whose toggleStatusEffect refuses ids outside CONFIG.statusEffects, as core's does. */
function fakeActor({ id = "A1", uuid = `Actor.${id}`, statuses = [], flags = {} } = {}) {
  const actor = {
    id, uuid, name: id, flags, statuses: new Set(statuses), toggled: [], updates: [],
    async toggleStatusEffect(statusId, { active }) {
      if (!CONFIG.statusEffects.some((s) => s.id === statusId)) throw new Error(`Invalid status ID "${statusId}" provided to Actor#toggleStatusEffect`);
      this.toggled.push([statusId, active]);
      if (active) this.statuses.add(statusId);
      else this.statuses.delete(statusId);
    },
    async update(u) {
      this.updates.push(u);
    },
  };
  return actor;
}

beforeEach(() => {
  delete globalThis.game;
  delete globalThis.CONFIG;
});

test("every engine status maps to a status the system has, or to none", () => {
  for (const system of Object.keys(SYSTEMS)) {
    world(system);
    const ids = new Set(CONFIG.statusEffects.map((s) => s.id));
    for (const engineId of ENGINE_IDS) {
      const id = systemStatus(engineId);
      assert.ok(id === null || ids.has(id), `${system}: ${engineId} -> ${id}`);
      // The adapter names the status only when the system has it.
      const mapped = adapterFor(system).statuses[engineId];
      assert.ok(mapped === null || ids.has(mapped), `${system} adapter: ${engineId} -> ${mapped} is not in its list`);
    }
  }
  world("dnd5e");
  assert.deepEqual(ENGINE_IDS.map((e) => systemStatus(e)), ["dead", "unconscious", "stunned", "prone", "bleeding", "frightened"]);
  world("pf2e");
  assert.deepEqual(ENGINE_IDS.map((e) => systemStatus(e)), ["dead", "unconscious", "stunned", "prone", null, "frightened"]);
  world("worldbuilding");
  assert.deepEqual(ENGINE_IDS.map((e) => systemStatus(e)), ENGINE_IDS);
  // A system's list without a status: none, whatever the adapter says (checked at runtime).
  CONFIG.statusEffects = CONFIG.statusEffects.filter((s) => s.id !== "fear");
  assert.equal(systemStatus("fear"), null);
});

test("a status the system lacks is planned as missing and never toggled", async () => {
  world("pf2e");
  const actor = fakeActor({ statuses: ["stunned"] });
  const plan = statusPlan(actor, { bleeding: true, stun: false, dead: false, fear: true });
  assert.deepEqual(plan, [
    { engineId: "bleeding", id: null, active: true, was: false },
    { engineId: "stun", id: "stunned", active: false, was: true },
    { engineId: "fear", id: "frightened", active: true, was: false },
  ]);
  assert.equal(await setEngineStatus(actor, "bleeding", true), false);
  assert.equal(await setEngineStatus(actor, "fear", true), true);
  assert.deepEqual(actor.toggled, [["frightened", true]]);
  assert.ok(hasStatus(actor, "fear"));
  assert.deepEqual([...engineStatuses(actor)].sort(), ["fear", "stun"]);
  // pf2e keeps conditions as items: hasCondition counts too.
  assert.ok(hasStatus({ statuses: new Set(), hasCondition: (slug) => slug === "unconscious" }, "unconscious"));
});

test("the healing clock runs for every unlinked token of one base actor", async () => {
  world("worldbuilding");
  const wounded = () => ({ dpv: { life_force: 40 }, conditions: [{ kind: "critical_points", value: "start", messageId: "m1" }] });
  // Two tokens of one NPC: synthetic actors with the base actor's id, each its own uuid.
  const a = fakeActor({ id: "NPC", uuid: "Scene.s.Token.t1.Actor.NPC", flags: { firefight: wounded() } });
  const b = fakeActor({ id: "NPC", uuid: "Scene.s.Token.t2.Actor.NPC", flags: { firefight: wounded() } });
  const tokens = [{ id: "t1", actor: a }, { id: "t2", actor: b }];
  globalThis.canvas = { tokens: { placeables: tokens } };
  globalThis.foundry = { utils: { deepClone: structuredClone } };
  const acted = [];
  const api = { act: async (action, opts) => (acted.push([action, opts.actor.id]), null) };
  // The clock as the ruleset declares it in its table features (the engine's catalog).
  useCatalog({ rulesets: [{ id: "dpv", features: { healing: { condition: "critical_points", action: "critical_point",
    hours: [0.5, 1, 3, 6, 12], unconscious: "unconscious", wake: "regain_consciousness", over: ["stabilized", "dead"] } } }] });
  await advanceTime(api, 0.5, "dpv");
  assert.deepEqual(acted, [["critical_point", "t1"], ["critical_point", "t2"]]);
  assert.equal(a.updates.length, 1);
  assert.equal(b.updates.length, 1);
});
