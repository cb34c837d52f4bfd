// The import graph of the shim (js-shim/**/*.mjs) and its cycles, for `make test`
// (tests/shim/layout.test.mjs) and by hand: `node tools/import_cycles.mjs [dir]` prints each
// cycle and exits 1 when there is one. Static imports, re-exports and import("./literal") count.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SPEC = /(?:^|[;\s])(?:import|export)\s[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']|(?:^|[;\s])import\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/gm;

/** Pure: a module's source -> the relative specifiers it imports (comments left out). */
export function importsOf(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  return [...code.matchAll(SPEC)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** {file (relative to dir, "/"-separated): [imported files]} for every .mjs under dir. */
export function importGraph(dir) {
  const graph = {};
  for (const rel of readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".mjs")).map((f) => f.split(path.sep).join("/")).sort()) {
    const source = readFileSync(path.join(dir, rel), "utf8");
    graph[rel] = [...new Set(importsOf(source).map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec.split("?")[0]))))];
  }
  return graph;
}

/** Pure: the cycles of a graph: its strongly connected components of more than one file, or one importing itself. */
export function cycles(graph) {
  let index = 0;
  const idx = new Map(), low = new Map(), stack = [], on = new Set(), out = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index += 1;
    stack.push(v); on.add(v);
    for (const w of graph[v] ?? []) {
      if (!(w in graph)) continue;
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do { w = stack.pop(); on.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1 || (graph[v] ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of Object.keys(graph)) if (!idx.has(v)) visit(v);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "js-shim");
  const found = cycles(importGraph(dir));
  for (const c of found) console.log(`import cycle: ${c.join(" <-> ")}`);
  if (!found.length) console.log(`no import cycles in ${path.relative(process.cwd(), dir) || dir}`);
  process.exit(found.length ? 1 : 0);
}
