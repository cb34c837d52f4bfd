// Small fakes of Foundry documents built from the pack sources.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export function packDocs(pack) {
  const dir = path.join(ROOT, "packs/_source", pack);
  return readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")));
}

export function fakeItem(src) {
  return { id: src._id, name: src.name, type: src.type, flags: structuredClone(src.flags) };
}

/** An actor whose `items` is a Map (like Foundry's Collection) of fake items. */
export function fakeActor(src, { hasPlayerOwner = false } = {}) {
  const items = new Map((src.items ?? []).map((i) => [i._id, fakeItem(i)]));
  return { id: src._id, name: src.name, hasPlayerOwner, flags: structuredClone(src.flags), items };
}

export function fakeToken(actor, id, center = { x: 0, y: 0 }) {
  return { id, name: actor.name, actor, center, document: { id } };
}

export function actorByName(fragment) {
  return packDocs("soe-actors").find((a) => a.name.includes(fragment));
}
