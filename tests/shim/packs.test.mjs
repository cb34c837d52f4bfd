import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import {
  SOURCES, generatedManifest, manifestPackFolders, manifestPacks, roleOf, toSystem, validateDocs,
} from "../../tools/build_packs.mjs";
import { readPack } from "../../tools/read_pack.mjs";
import { ADAPTERS } from "../../js-shim/systems/index.mjs";
import { effectsByActor } from "../../js-shim/documents/apply.mjs";
import { ROOT, actorByName, packDocs } from "./fakes.mjs";

const manifest = JSON.parse(readFileSync(path.join(ROOT, "module.json"), "utf8"));

test("module.json is a v13 module manifest", () => {
  assert.equal(manifest.id, "firefight");
  assert.deepEqual(manifest.compatibility, { minimum: "13", verified: "13" });
  assert.deepEqual(manifest.esmodules, ["js-shim/firefight.mjs"]);
  assert.deepEqual(manifest.languages, [
    { lang: "en", name: "English", path: "lang/en.json" }, { lang: "de", name: "Deutsch", path: "lang/de.json" },
  ]);
  assert.equal(manifest.socket, true);
});

test("one Actor/Item pack per supported system, each declaring it; RollTables once, without one", () => {
  const systems = Object.keys(ADAPTERS);
  assert.deepEqual(systems, ["worldbuilding", "dnd5e", "pf2e"]);
  const byName = new Map(manifest.packs.map((p) => [p.name, p]));
  assert.equal(byName.size, manifest.packs.length, "pack names are unique");
  for (const source of SOURCES) {
    if (source.type === "RollTable") {
      const pack = byName.get(source.name);
      assert.deepEqual([pack.type, pack.path, pack.system], ["RollTable", `packs/${source.name}`, undefined]);
      continue;
    }
    for (const system of systems) {
      const pack = byName.get(`${source.name}-${system}`);
      assert.ok(pack, `${source.name}-${system}`);
      assert.deepEqual([pack.type, pack.system, pack.path, pack.label, pack.flags.firefight.source],
        [source.type, system, `packs/${source.name}-${system}`, source.label, source.name]);
    }
  }
  assert.equal(manifest.packs.length, 11 * systems.length + 1);
  // Each ruleset's folder holds its packs of every system (a world shows those of its own).
  const folders = manifest.packFolders[0].folders;
  assert.deepEqual(folders.map((f) => f.name), ["Stars of Empire", "Percentile Skirmish", "SHOCK", "2300 AD"]);
  assert.deepEqual(folders.flatMap((f) => f.packs).sort(), [...byName.keys()].sort());
});

test("module.json's packs and packFolders are the ones the build generates", () => {
  const { changed } = generatedManifest(manifest);
  assert.equal(changed, false, "run `make packs` to regenerate module.json's packs");
  assert.deepEqual(manifest.packs, manifestPacks());
  assert.deepEqual(manifest.packFolders, manifestPackFolders());
});

test("pack sources are valid, system-neutral, and ids unique across sources", () => {
  const seen = new Map();
  for (const source of SOURCES) {
    const docs = packDocs(source.name).map((doc, i) => ({ file: `${i}.json`, doc }));
    assert.deepEqual(validateDocs(source, docs, seen), [], source.name);
    for (const { doc } of docs) {
      if (source.type === "RollTable") continue;
      assert.equal(doc.type, "base", `${source.name}: ${doc.name} stays system-neutral`);
      for (const item of doc.items ?? []) assert.equal(item.type, "base", `${doc.name}: ${item.name}`);
    }
  }
});

test("each document gets the type its role maps to in each system, embedded items too", () => {
  const rifleman = actorByName("Rifleman");
  const wolf = packDocs("soe-bestiary").find((a) => a.name.startsWith("Wolf"));
  assert.equal(roleOf("Actor", rifleman), "character"); // linked prototype token
  assert.equal(roleOf("Actor", wolf), "npc");
  assert.equal(roleOf("Item", rifleman.items.find((i) => i.flags.firefight.soe.category === "weapon")), "weapon");
  assert.equal(roleOf("Item", { flags: { firefight: { soe: { category: "armor" } } } }), "armor");
  assert.equal(roleOf("Item", { flags: { firefight: { equipped: true, dpv: { kind: "kit" } } } }), "gear");
  const want = {
    worldbuilding: { character: "character", npc: "character", weapon: "item", armor: "item" },
    dnd5e: { character: "character", npc: "npc", weapon: "weapon", armor: "equipment" },
    pf2e: { character: "character", npc: "npc", weapon: "weapon", armor: "armor" },
  };
  for (const [system, types] of Object.entries(want)) {
    const adapter = ADAPTERS[system];
    const actor = toSystem("Actor", rifleman, adapter);
    assert.equal(actor.type, types.character, system);
    assert.equal(toSystem("Actor", wolf, adapter).type, types.npc, system);
    const items = Object.fromEntries(actor.items.map((i) => [i.flags.firefight.soe.category, i.type]));
    assert.deepEqual(items, { weapon: types.weapon, armor: types.armor }, system);
    // The source is untouched and the Firefight data carried over.
    assert.equal(rifleman.type, "base");
    assert.deepEqual(actor.flags, rifleman.flags);
  }
  // pf2e: the adapter's documentDefaults give the minimal `system` its classes read.
  const pf2eWeapon = toSystem("Item", rifleman.items[0], ADAPTERS.pf2e);
  assert.deepEqual(pf2eWeapon.system.rules, []);
  assert.equal(pf2eWeapon.system.traits.rarity, "common");
});

test("the compiled packs hold the mapped types (LevelDB, as the zip ships them)", async () => {
  for (const system of Object.keys(ADAPTERS)) {
    const docs = await readPack(path.join(ROOT, "packs", `soe-actors-${system}`));
    const rifleman = docs.find((d) => d._id === "ffH0rifleman0001");
    assert.equal(rifleman.type, ADAPTERS[system].documentTypes.Actor.character, system);
    assert.deepEqual(rifleman.items.map((i) => i.type).sort(),
      rifleman.items.map((i) => toSystem("Item", i, ADAPTERS[system]).type).sort(), system);
    assert.ok(rifleman.items.every((i) => typeof i === "object" && i.name), "embedded items re-attached");
  }
  const trauma = await readPack(path.join(ROOT, "packs", "soe-trauma"));
  assert.ok(trauma.length > 0 && trauma.every((t) => t.results.every((r) => typeof r.text === "string")));
});

/** The adapter's stamp fields a document lacks or has otherwise: ["_stats.systemVersion", ...]. */
function missingStamp(doc, stamp, prefix = "") {
  const out = [];
  for (const [k, v] of Object.entries(stamp ?? {})) {
    if (v && typeof v === "object") out.push(...missingStamp(doc?.[k], v, `${prefix}${k}.`));
    else if (doc?.[k] !== v) out.push(`${prefix}${k}`);
  }
  return out;
}

test("every compiled pack document and embedded item says which version of its system's data it holds", async () => {
  // pf2e: system._migration.version (null: pf2e runs its whole migration list on it); dnd5e:
  // _stats.systemVersion; core's _stats.systemId/coreVersion everywhere (js-shim/systems/ `stamp`).
  assert.equal(ADAPTERS.pf2e.stamp.system._migration.version, 0.96);
  assert.equal(ADAPTERS.dnd5e.stamp._stats.systemVersion, "5.3.3");
  let count = 0;
  for (const pack of manifest.packs.filter((p) => p.system)) {
    const { stamp } = ADAPTERS[pack.system];
    for (const doc of await readPack(path.join(ROOT, pack.path))) {
      for (const d of [doc, ...(doc.items ?? [])]) {
        assert.deepEqual(missingStamp(d, stamp), [], `${pack.name}: ${d.name}`);
        count += 1;
      }
    }
  }
  assert.ok(count > 300, `${count} documents checked`);
  // pf2e's migration runner iterates system.subitems of weapons, armor and equipment.
  const pf2e = await readPack(path.join(ROOT, "packs", "soe-weapons-pf2e"));
  assert.ok(pf2e.every((w) => Array.isArray(w.system.subitems)));
});

test("validation catches bad ids, keys and duplicates", () => {
  const pack = { name: "p", type: "Item" };
  const good = { _id: "abcdefghijklmnop", _key: "!items!abcdefghijklmnop", name: "A", type: "base", flags: { firefight: {} } };
  const errors = validateDocs(pack, [
    { file: "a.json", doc: good },
    { file: "b.json", doc: { ...good } },
    { file: "c.json", doc: { ...good, _id: "short", _key: "!actors!short" } },
  ]);
  assert.equal(errors.length, 3);
  assert.match(errors[0], /duplicates p\/a.json/);
  assert.match(errors.join("\n"), /not 16 alphanumerics/);
  assert.match(errors.join("\n"), /_key "!actors!short" should be "!items!short"/);
});

test("weapon and armor sources carry the documented fields", () => {
  for (const w of packDocs("soe-weapons")) {
    const d = w.flags.firefight.soe;
    assert.equal(d.category, "weapon");
    for (const k of ["damage", "to_hit", "weapon_type", "quality", "max_range_m", "scope", "projectiles"]) assert.ok(k in d, `${w.name} ${k}`);
  }
  for (const a of packDocs("soe-armor")) {
    const d = a.flags.firefight.soe;
    assert.equal(d.category, "armor");
    for (const k of ["vs_rifle", "vs_pistol", "coverage", "thickness_mm", "mass_kg", "helmet"]) assert.ok(k in d, `${a.name} ${k}`);
  }
  const rhino = packDocs("soe-actors").find((a) => a.name.includes("Rhino"));
  assert.deepEqual([rhino.flags.firefight.soe.toughness, rhino.flags.firefight.soe.hp], [8, 65]);
});

test("effectsByActor groups effects by the actor their side or params name", () => {
  const result = { ruleset: "soe", request: { ruleset: "soe", target: { actor_id: "A", token_id: "T", name: "Rhino" } },
    effects: [{ target: "target", kind: "hp", delta: -3 }, { target: "target", kind: "state", value: "dead" }] };
  assert.deepEqual(effectsByActor(result), [{ key: "A|T", actorId: "A", tokenId: "T", name: "Rhino", effects: result.effects }]);
  assert.deepEqual(effectsByActor({}), []);
});

test("the shim is ruleset-agnostic: only config.mjs names a ruleset", () => {
  const dir = path.join(ROOT, "js-shim");
  const files = readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".mjs") && f !== path.join("core", "config.mjs"));
  assert.ok(files.some((f) => f.includes(path.sep)), "the shim's folders are read too");
  for (const file of files) {
    const text = readFileSync(path.join(dir, file), "utf8");
    assert.doesNotMatch(text, /\bsoe\b|Stars of Empire/i, file);
  }
});
