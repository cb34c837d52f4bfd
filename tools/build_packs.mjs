#!/usr/bin/env node
// Validate packs/_source/<source>/*.json and compile them to LevelDB packs, one per supported game
// system for Actor and Item sources (packs/<source>-<system>/), one for the others (RollTable).
//
// Why one pack per system: Foundry refuses an Actor or Item compendium pack that does not declare
// the `system` it depends on (foundryvtt/foundryvtt#7636, #8037; #13505, still open, asks to relax
// it), and hides a pack whose system is not the world's. The sources stay system-neutral
// (type "base", system {}); the build gives each document the type the system's adapter
// (js-shim/systems/) maps its Firefight role to, plus the adapter's `documentDefaults`.
//
// module.json's `packs` and `packFolders` are generated from SOURCES and FOLDERS below: the build
// rewrites them when they differ, and `--check` fails when they differ.
//
// Usage: node tools/build_packs.mjs [--check]   (--check: validate sources and module.json only)
//        node tools/build_packs.mjs --module DIR   (a plugin module's own packs: each of DIR/module.json
//        `packs` with flags.firefight.source compiled from DIR/packs/_source/<source>/ into DIR/<path>,
//        for its `system` as above; tools/build_examples.py builds the examples' packs so)
import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ADAPTERS } from "../js-shim/systems/index.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ID_RE = /^[A-Za-z0-9]{16}$/;
const COLLECTION = { Item: "items", Actor: "actors", RollTable: "tables" };
const EMBEDDED = {
  Actor: { items: "items", effects: "effects" },
  Item: { effects: "effects" },
  RollTable: { results: "results" },
};
// RollTables have no subtype, and their results carry text rather than a name.
const TYPED = new Set(["Item", "Actor"]);
const OWNERSHIP = { PLAYER: "OBSERVER", ASSISTANT: "OWNER" };

/** The pack sources (packs/_source/<name>/), system-neutral. Each label is a lang key (its
 * ruleset's lang/, "pack"): Foundry localizes a pack's label (foundryvtt/foundryvtt#9561). */
export const SOURCES = [
  { name: "soe-weapons", label: "FIREFIGHT.soe.pack.weapons", type: "Item" },
  { name: "soe-armor", label: "FIREFIGHT.soe.pack.armor", type: "Item" },
  { name: "soe-actors", label: "FIREFIGHT.soe.pack.actors", type: "Actor" },
  { name: "soe-bestiary", label: "FIREFIGHT.soe.pack.bestiary", type: "Actor" },
  { name: "soe-trauma", label: "FIREFIGHT.soe.pack.trauma", type: "RollTable" },
  { name: "percentile-weapons", label: "FIREFIGHT.percentile.pack.weapons", type: "Item" },
  { name: "percentile-actors", label: "FIREFIGHT.percentile.pack.actors", type: "Actor" },
  { name: "shock-weapons", label: "FIREFIGHT.shock.pack.weapons", type: "Item" },
  { name: "shock-troops", label: "FIREFIGHT.shock.pack.troops", type: "Actor" },
  { name: "dpv-weapons", label: "FIREFIGHT.dpv.pack.weapons", type: "Item" },
  { name: "dpv-npcs", label: "FIREFIGHT.dpv.pack.npcs", type: "Actor" },
  { name: "dpv-vehicles", label: "FIREFIGHT.dpv.pack.vehicles", type: "Actor" },
];

/** One compendium folder per ruleset, under "Firefight" (PackageManifestData packFolders). A
 * folder's name is shown as written in every language (it cannot be a lang key: foundryvtt#9910),
 * so it is the ruleset's title; the packs' labels are lang keys. */
export const FOLDERS = [
  { name: "Stars of Empire", sources: ["soe-weapons", "soe-armor", "soe-actors", "soe-bestiary", "soe-trauma"] },
  { name: "Percentile Skirmish", sources: ["percentile-weapons", "percentile-actors"] },
  { name: "SHOCK", sources: ["shock-weapons", "shock-troops"] },
  { name: "2300 AD", sources: ["dpv-weapons", "dpv-npcs", "dpv-vehicles"] },
];

/** The name of the pack built from a source for a system (the source's own for a RollTable). */
export function packName(source, systemId) {
  return TYPED.has(source.type) ? `${source.name}-${systemId}` : source.name;
}

/** module.json `packs`: every Actor/Item source once per system of ADAPTERS, the others once. */
export function manifestPacks(sources = SOURCES, systems = Object.keys(ADAPTERS)) {
  const packs = [];
  for (const source of sources) {
    for (const system of TYPED.has(source.type) ? systems : [null]) {
      const name = packName(source, system);
      packs.push({
        name, label: source.label, ...(system ? { system } : {}), path: `packs/${name}`, type: source.type,
        ownership: { ...OWNERSHIP }, flags: { firefight: { source: source.name } },
      });
    }
  }
  return packs;
}

/** module.json `packFolders`: Firefight / <ruleset> / its packs, of every system (a world lists
 * only the packs of its own system, so each folder shows one copy of each source). */
export function manifestPackFolders(packs = manifestPacks()) {
  return [{
    name: "Firefight", sorting: "m", packs: [],
    folders: FOLDERS.map((folder) => ({
      name: folder.name, sorting: "m",
      packs: packs.filter((p) => folder.sources.includes(p.flags.firefight.source)).map((p) => p.name),
    })),
  }];
}

/** A pack document's Firefight role: Actor "character" (linked token) | "npc"; Item "weapon" |
 * "armor" | "gear" (its ruleset data's `category`). */
export function roleOf(documentName, doc) {
  if (documentName === "Actor") return doc.prototypeToken?.actorLink ? "character" : "npc";
  const data = Object.values(doc.flags?.firefight ?? {}).find((v) => v && typeof v === "object" && "category" in v);
  return ["weapon", "armor"].includes(data?.category) ? data.category : "gear";
}

function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function withDefaults(defaults, data) {
  const out = structuredClone(defaults ?? {});
  for (const [k, v] of Object.entries(data ?? {})) out[k] = isObject(v) && isObject(out[k]) ? withDefaults(out[k], v) : structuredClone(v);
  return out;
}

/** A source document as the given system's pack holds it: its `type` mapped from its role by the
 * adapter's documentTypes, `system` filled from the adapter's documentDefaults, the adapter's
 * `stamp` (`_stats`, `system` version fields) under its own; embedded items too. */
export function toSystem(documentName, doc, adapter) {
  if (!TYPED.has(documentName)) return structuredClone(doc);
  const type = adapter.documentTypes?.[documentName]?.[roleOf(documentName, doc)];
  if (!type) throw new Error(`${adapter.id}: no ${documentName} type for role ${roleOf(documentName, doc)} (${doc.name})`);
  const stamp = adapter.stamp ?? {};
  const system = withDefaults(withDefaults(adapter.documentDefaults?.[documentName]?.[type], stamp.system), doc.system);
  const out = { ...structuredClone(doc), type, system };
  if (stamp._stats || doc._stats) out._stats = withDefaults(stamp._stats, doc._stats);
  if (documentName === "Actor" && Array.isArray(doc.items)) out.items = doc.items.map((item) => toSystem("Item", item, adapter));
  return out;
}

/** Validate one source's documents; returns error strings. `seen` maps id -> file across sources. */
export function validateDocs(pack, docs, seen = new Map()) {
  const errors = [];
  const collection = COLLECTION[pack.type];
  if (!collection) errors.push(`${pack.name}: unsupported pack type ${pack.type}`);
  const claim = (id, where) => {
    if (!ID_RE.test(id ?? "")) errors.push(`${where}: _id ${JSON.stringify(id)} is not 16 alphanumerics`);
    else if (seen.has(id)) errors.push(`${where}: _id ${id} duplicates ${seen.get(id)}`);
    else seen.set(id, where);
  };
  for (const { file, doc } of docs) {
    const where = `${pack.name}/${file}`;
    claim(doc._id, where);
    if (doc._key !== `!${collection}!${doc._id}`) errors.push(`${where}: _key ${JSON.stringify(doc._key)} should be "!${collection}!${doc._id}"`);
    if (typeof doc.name !== "string" || !doc.name.trim()) errors.push(`${where}: missing name`);
    if (TYPED.has(pack.type) && (typeof doc.type !== "string" || !doc.type)) errors.push(`${where}: missing type`);
    if (!doc.flags?.firefight || typeof doc.flags.firefight !== "object") errors.push(`${where}: missing flags.firefight`);
    for (const [field, sub] of Object.entries(EMBEDDED[pack.type] ?? {})) {
      for (const [i, child] of (doc[field] ?? []).entries()) {
        const cw = `${where} ${field}[${i}]`;
        claim(child._id, cw);
        const want = `!${collection}.${sub}!${doc._id}.${child._id}`;
        if (child._key !== want) errors.push(`${cw}: _key ${JSON.stringify(child._key)} should be "${want}"`);
        const label = pack.type === "RollTable" ? child.text : child.name;
        if (typeof label !== "string" || !label.trim()) errors.push(`${cw}: missing ${pack.type === "RollTable" ? "text" : "name"}`);
      }
    }
  }
  return errors;
}

async function loadSource(source, sources = path.join(ROOT, "packs", "_source")) {
  const dir = path.join(sources, source.name);
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  const docs = [];
  for (const file of files) {
    const text = await readFile(path.join(dir, file), "utf8");
    try {
      docs.push({ file, doc: JSON.parse(text) });
    } catch (err) {
      throw new Error(`${source.name}/${file}: invalid JSON: ${err.message}`, { cause: err });
    }
  }
  if (!docs.length) throw new Error(`${source.name}: no documents in ${dir}`);
  return { dir, docs };
}

/** module.json with its packs and packFolders as generated; `changed` when they differed. */
export function generatedManifest(manifest) {
  const packs = manifestPacks();
  const next = { ...manifest, packs, packFolders: manifestPackFolders(packs) };
  const changed = JSON.stringify(manifest.packs) !== JSON.stringify(next.packs)
    || JSON.stringify(manifest.packFolders) !== JSON.stringify(next.packFolders);
  return { manifest: next, changed };
}

async function main() {
  const checkOnly = process.argv.includes("--check");
  const manifestPath = path.join(ROOT, "module.json");
  const { manifest, changed } = generatedManifest(JSON.parse(await readFile(manifestPath, "utf8")));
  const seen = new Map();
  const loaded = [];
  const errors = [];
  for (const source of SOURCES) {
    const { dir, docs } = await loadSource(source);
    errors.push(...validateDocs(source, docs, seen));
    loaded.push({ source, dir, count: docs.length });
  }
  const known = new Set(SOURCES.map((s) => s.name));
  const unknown = (await readdir(path.join(ROOT, "packs", "_source"), { withFileTypes: true }))
    .filter((d) => d.isDirectory() && !known.has(d.name)).map((d) => d.name);
  if (unknown.length) console.warn(`build_packs: WARNING: not in SOURCES (tools/build_packs.mjs), not built: ${unknown.join(", ")}`);
  if (checkOnly && changed) errors.push("module.json packs/packFolders differ from the build's (run `make packs`)");
  if (errors.length) {
    console.error(`build_packs: ${errors.length} error(s):\n  ` + errors.join("\n  "));
    process.exit(1);
  }
  if (checkOnly) {
    console.log(`build_packs: ${loaded.length} sources valid, module.json in step`);
    return;
  }
  if (changed) {
    await writeFile(manifestPath, JSON.stringify(manifest, null, 2) + "\n");
    console.log("build_packs: module.json packs/packFolders regenerated");
  }
  const { compilePack } = await import("@foundryvtt/foundryvtt-cli");
  for (const pack of manifest.packs) {
    const { source, dir, count } = loaded.find((l) => l.source.name === pack.flags.firefight.source);
    const adapter = pack.system ? ADAPTERS[pack.system] : null;
    const dest = path.join(ROOT, pack.path);
    await rm(dest, { recursive: true, force: true });
    // transformEntry sees each top-level document with its embedded ones before it is written.
    const transformEntry = adapter ? (doc) => void Object.assign(doc, toSystem(source.type, doc, adapter)) : undefined;
    await compilePack(dir, dest, { log: false, transformEntry });
    console.log(`build_packs: ${pack.name}: ${count} documents -> ${pack.path}`);
  }
  // Packs of an earlier build that module.json no longer names (e.g. the system-less ones).
  const built = new Set(manifest.packs.map((p) => p.name));
  for (const d of await readdir(path.join(ROOT, "packs"), { withFileTypes: true })) {
    if (d.isDirectory() && d.name !== "_source" && !built.has(d.name)) {
      await rm(path.join(ROOT, "packs", d.name), { recursive: true, force: true });
      console.log(`build_packs: removed stale packs/${d.name}`);
    }
  }
}

/** A plugin module's packs (--module DIR): validated, then compiled per its manifest's `packs`. */
async function buildModule(dir) {
  const manifest = JSON.parse(await readFile(path.join(dir, "module.json"), "utf8"));
  const packs = (manifest.packs ?? []).filter((p) => p.flags?.firefight?.source);
  const errors = [];
  const loaded = new Map();
  const seen = new Map();
  for (const name of new Set(packs.map((p) => p.flags.firefight.source))) {
    const type = packs.find((p) => p.flags.firefight.source === name).type;
    const source = { name, type };
    const { dir: src, docs } = await loadSource(source, path.join(dir, "packs", "_source"));
    errors.push(...validateDocs(source, docs, seen));
    loaded.set(name, { source, dir: src, count: docs.length });
  }
  for (const pack of packs) {
    if (TYPED.has(pack.type) && !ADAPTERS[pack.system]) errors.push(`${pack.name}: system ${JSON.stringify(pack.system)} has no adapter (js-shim/systems/)`);
    if (!String(pack.path ?? "").startsWith("packs/")) errors.push(`${pack.name}: path must be under packs/`);
  }
  if (errors.length) throw new Error(`${errors.length} error(s):\n  ${errors.join("\n  ")}`);
  const { compilePack } = await import("@foundryvtt/foundryvtt-cli");
  for (const pack of packs) {
    const { source, dir: src, count } = loaded.get(pack.flags.firefight.source);
    const adapter = pack.system ? ADAPTERS[pack.system] : null;
    const dest = path.join(dir, pack.path);
    await rm(dest, { recursive: true, force: true });
    const transformEntry = adapter ? (doc) => void Object.assign(doc, toSystem(source.type, doc, adapter)) : undefined;
    await compilePack(src, dest, { log: false, transformEntry });
    console.log(`build_packs: ${manifest.id}: ${pack.name}: ${count} documents -> ${pack.path}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--module");
  (at > 0 ? buildModule(path.resolve(process.argv[at + 1] ?? ".")) : main()).catch((err) => {
    console.error(`build_packs: ${err.message}`);
    process.exit(1);
  });
}
