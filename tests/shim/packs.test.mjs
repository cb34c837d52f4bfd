import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { validateDocs } from "../../tools/build_packs.mjs";
import { effectsByActor } from "../../js-shim/apply.mjs";
import { ROOT, packDocs } from "./fakes.mjs";

const manifest = JSON.parse(readFileSync(path.join(ROOT, "module.json"), "utf8"));

test("module.json is a v13 module manifest", () => {
  assert.equal(manifest.id, "firefight");
  assert.deepEqual(manifest.compatibility, { minimum: "13", verified: "13" });
  assert.deepEqual(manifest.esmodules, ["js-shim/firefight.mjs"]);
  assert.deepEqual(manifest.languages, [
    { lang: "en", name: "English", path: "lang/en.json" }, { lang: "de", name: "Deutsch", path: "lang/de.json" },
  ]);
  assert.equal(manifest.socket, true);
  assert.ok(!("system" in manifest.packs[0]));
  assert.deepEqual(manifest.packs.map((p) => [p.name, p.type, p.path]), [
    ["soe-weapons", "Item", "packs/soe-weapons"], ["soe-armor", "Item", "packs/soe-armor"], ["soe-actors", "Actor", "packs/soe-actors"],
    ["soe-bestiary", "Actor", "packs/soe-bestiary"], ["soe-trauma", "RollTable", "packs/soe-trauma"],
    ["percentile-weapons", "Item", "packs/percentile-weapons"], ["percentile-actors", "Actor", "packs/percentile-actors"],
    ["shock-weapons", "Item", "packs/shock-weapons"], ["shock-troops", "Actor", "packs/shock-troops"],
    ["dpv-weapons", "Item", "packs/dpv-weapons"], ["dpv-npcs", "Actor", "packs/dpv-npcs"],
  ]);
});

test("pack sources are valid and ids unique across packs", () => {
  const seen = new Map();
  for (const pack of manifest.packs) {
    const docs = packDocs(pack.name).map((doc, i) => ({ file: `${i}.json`, doc }));
    assert.deepEqual(validateDocs(pack, docs, seen), [], pack.name);
  }
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
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".mjs") && f !== "config.mjs")) {
    const text = readFileSync(path.join(dir, file), "utf8");
    assert.doesNotMatch(text, /\bsoe\b|Stars of Empire/i, file);
  }
});
