// The sandbox's package validation (sandbox/foundry/packages.mjs): what Foundry's server refuses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  manifestErrors, packFromSource, packsForSystem, validateManifest,
} from "../../sandbox/foundry/packages.mjs";
import { ROOT } from "./fakes.mjs";

const manifest = JSON.parse(readFileSync(path.join(ROOT, "module.json"), "utf8"));
const exists = (p) => existsSync(path.join(ROOT, p));

test("the shipped module.json passes, with every path it names present", async () => {
  assert.deepEqual(await manifestErrors(manifest, { exists }), []);
});

test("an Actor or Item pack without a system is refused with Foundry's message", async () => {
  const bad = structuredClone(manifest);
  delete bad.packs.find((p) => p.name === "soe-weapons-dnd5e").system;
  await assert.rejects(validateManifest(bad),
    { message: 'The Compendium pack "soe-weapons-dnd5e" of the "Item" type must declare the "system" upon which it depends' });
  // The manifest as it was before the packs were built per system: all ten Actor/Item packs.
  const old = structuredClone(manifest);
  old.packs = old.packs.filter((p) => !p.system || p.system === "worldbuilding").map(({ system: _, ...p }) => p);
  const errors = await manifestErrors(old);
  assert.equal(errors.filter((e) => e.includes('must declare the "system"')).length, 11);
  // A RollTable pack needs none.
  assert.ok(!errors.some((e) => e.includes("soe-trauma")));
});

test("required fields, ids, names, compatibility, paths and folders", async () => {
  const m = structuredClone(manifest);
  delete m.title;
  m.id = "Fire Fight";
  m.compatibility = { minimum: "14", maximum: "13" };
  m.esmodules = ["js-shim/missing.mjs"];
  m.styles = ["/abs.css"];
  m.languages = [{ lang: "en", path: "lang/en.json" }];
  m.packs[0].name = "soe weapons";
  m.packs.push({ ...m.packs[1] });
  m.packFolders[0].folders[0].packs.push("no-such-pack");
  const errors = await manifestErrors(m, { exists });
  for (const want of [
    'The package manifest must declare a "title" string',
    'The package id "Fire Fight" must be lower-case with no spaces or special characters',
    "compatibility.minimum 14 is above compatibility.maximum 13",
    'esmodules: "js-shim/missing.mjs" does not exist in the package',
    'styles: "/abs.css" must be a path relative to the package',
    'languages[0] must declare a "name" string',
    'The Compendium pack name "soe weapons" must contain no spaces or special characters',
    `The Compendium pack name "${m.packs[1].name}" is declared twice`,
    'Pack folder "Stars of Empire" names the pack "no-such-pack", which the manifest does not declare',
  ]) assert.ok(errors.includes(want), `${want}\n in ${errors.join("\n")}`);
});

test("a world lists the packs of its system (or of none); ?pack=<source> finds its system's", () => {
  for (const system of ["worldbuilding", "dnd5e", "pf2e"]) {
    const packs = packsForSystem(manifest, system);
    assert.equal(packs.length, 12, system);
    assert.ok(packs.every((p) => !p.system || p.system === system));
    assert.equal(packFromSource(manifest, "soe-actors", system).name, `soe-actors-${system}`);
    assert.equal(packFromSource(manifest, `shock-troops-${system}`, system).name, `shock-troops-${system}`);
  }
  assert.equal(packFromSource(manifest, "soe-trauma", "pf2e").name, "soe-trauma");
  assert.equal(packFromSource(manifest, "soe-actors-dnd5e", "pf2e"), null, "another system's pack is not the world's");
});
