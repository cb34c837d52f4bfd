#!/usr/bin/env node
// Print the documents of a compiled LevelDB compendium pack (packs/<pack>/, what the module zip
// ships) as a JSON list, each with its embedded documents re-attached, sorted as Foundry's
// compendium lists them (by `sort`, then name). The sandbox server (tools/serve.py) uses it for
// /sandbox-api/packs/<pack>, so the browser tier opens the shipped packs, not packs/_source.
//
// Usage: node tools/read_pack.mjs <pack directory>
// The pack is copied to a temporary directory first: opening a LevelDB takes its lock and may
// rewrite its log, and neither may touch the shipped files (or fail while another reader holds it).
import { cp, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ClassicLevel } from "classic-level";

/** Re-attach embedded documents: `!actors.items!<actor>.<item>` into the actor's `items`
 * (the compiled parent holds only the children's ids; @foundryvtt/foundryvtt-cli layout). */
export function assemble(entries) {
  const byKey = new Map(entries);
  const attach = (doc, collection, idPath) => {
    for (const [field, value] of Object.entries(doc)) {
      if (!Array.isArray(value) || !value.length || !value.every((v) => typeof v === "string")) continue;
      const sub = `${collection}.${field}`;
      const keys = value.map((id) => `!${sub}!${idPath}.${id}`);
      if (!keys.every((k) => byKey.has(k))) continue;
      doc[field] = keys.map((k, i) => attach(structuredClone(byKey.get(k)), sub, `${idPath}.${value[i]}`));
    }
    return doc;
  };
  const docs = [];
  for (const [key, value] of entries) {
    const m = /^!([A-Za-z]+)!([^.!]+)$/.exec(key);
    if (m) docs.push(attach(structuredClone(value), m[1], m[2]));
  }
  return docs.sort((a, b) => (a.sort ?? 0) - (b.sort ?? 0) || String(a.name ?? "").localeCompare(String(b.name ?? "")));
}

export async function readPack(dir) {
  if (!existsSync(path.join(dir, "CURRENT"))) throw new Error(`${dir} is not a LevelDB pack (run \`make packs\`)`);
  const tmp = await mkdtemp(path.join(os.tmpdir(), "firefight-pack-"));
  try {
    await cp(dir, tmp, { recursive: true, filter: (src) => !["LOCK", "LOG", "LOG.old"].includes(path.basename(src)) });
    const db = new ClassicLevel(tmp, { keyEncoding: "utf8", valueEncoding: "json", createIfMissing: false });
    try {
      return assemble(await db.iterator().all());
    } finally {
      await db.close();
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: node tools/read_pack.mjs <pack directory>");
    process.exit(2);
  }
  readPack(path.resolve(dir)).then(
    (docs) => process.stdout.write(JSON.stringify(docs)),
    (err) => {
      console.error(`read_pack: ${err.message}`);
      process.exit(1);
    },
  );
}
