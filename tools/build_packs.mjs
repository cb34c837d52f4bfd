#!/usr/bin/env node
// Validate packs/_source/<pack>/*.json and compile them to LevelDB in packs/<pack>/.
// Usage: node tools/build_packs.mjs [--check]   (--check validates only)
import { readFile, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

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

/** Validate one pack's documents; returns error strings. `seen` maps id -> file across packs. */
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

async function loadPack(pack) {
  const dir = path.join(ROOT, "packs", "_source", pack.name);
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  const docs = [];
  for (const file of files) {
    const text = await readFile(path.join(dir, file), "utf8");
    try {
      docs.push({ file, doc: JSON.parse(text) });
    } catch (err) {
      throw new Error(`${pack.name}/${file}: invalid JSON: ${err.message}`);
    }
  }
  if (!docs.length) throw new Error(`${pack.name}: no documents in ${dir}`);
  return { dir, docs };
}

async function main() {
  const checkOnly = process.argv.includes("--check");
  const manifest = JSON.parse(await readFile(path.join(ROOT, "module.json"), "utf8"));
  const seen = new Map();
  const loaded = [];
  const errors = [];
  for (const pack of manifest.packs) {
    if (pack.path !== `packs/${pack.name}`) errors.push(`${pack.name}: path should be packs/${pack.name}`);
    const { dir, docs } = await loadPack(pack);
    errors.push(...validateDocs(pack, docs, seen));
    loaded.push({ pack, dir, count: docs.length });
  }
  const listed = new Set(manifest.packs.map((p) => p.name));
  const sources = (await readdir(path.join(ROOT, "packs", "_source"), { withFileTypes: true }))
    .filter((d) => d.isDirectory() && !listed.has(d.name)).map((d) => d.name);
  if (sources.length) console.warn(`build_packs: WARNING: not in module.json "packs", not built: ${sources.join(", ")}`);
  if (errors.length) {
    console.error(`build_packs: ${errors.length} error(s):\n  ` + errors.join("\n  "));
    process.exit(1);
  }
  if (checkOnly) {
    console.log(`build_packs: ${loaded.length} packs valid`);
    return;
  }
  const { compilePack } = await import("@foundryvtt/foundryvtt-cli");
  for (const { pack, dir, count } of loaded) {
    const dest = path.join(ROOT, pack.path);
    await rm(dest, { recursive: true, force: true });
    await compilePack(dir, dest, { log: false });
    console.log(`build_packs: ${pack.name}: ${count} documents -> ${pack.path}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`build_packs: ${err.message}`);
    process.exit(1);
  });
}
