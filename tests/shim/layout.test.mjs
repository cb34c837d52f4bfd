// The shim's layout (issue 24): folders by concern, and no import cycles (tools/import_cycles.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { importGraph, importsOf, cycles } from "../../tools/import_cycles.mjs";
import { ROOT } from "./fakes.mjs";

const SHIM = path.join(ROOT, "js-shim");

test("js-shim has no import cycles", () => {
  const graph = importGraph(SHIM);
  assert.ok(Object.keys(graph).length > 30, "every module is read");
  assert.deepEqual(cycles(graph), []);
});

test("the cycle check finds a planted cycle, through folders and import(), and skips comments", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ff-cycles-"));
  try {
    mkdirSync(path.join(dir, "a"));
    writeFileSync(path.join(dir, "a", "one.mjs"), 'import { two } from "../b/two.mjs";\nexport const one = 1;\n');
    mkdirSync(path.join(dir, "b"));
    writeFileSync(path.join(dir, "b", "two.mjs"), 'export const two = () => import("../a/one.mjs");\n// import "./three.mjs";\n');
    writeFileSync(path.join(dir, "b", "three.mjs"), '/* import { one } from "../a/one.mjs"; */\nexport const three = 3;\n');
    assert.deepEqual(cycles(importGraph(dir)), [["a/one.mjs", "b/two.mjs"]]);
    writeFileSync(path.join(dir, "b", "two.mjs"), "export const two = 2;\n");
    assert.deepEqual(cycles(importGraph(dir)), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(importsOf('export { a } from "./a.mjs";\nimport "./side.mjs";\nimport b from "./b.mjs?x";'), ["./a.mjs", "./side.mjs", "./b.mjs?x"]);
});

test("js-shim is in folders by concern: only the module's entry and its stylesheet at the top", () => {
  const top = readdirSync(SHIM, { withFileTypes: true });
  assert.deepEqual(top.filter((e) => e.isFile()).map((e) => e.name).sort(), ["firefight.css", "firefight.mjs"]);
  assert.deepEqual(top.filter((e) => e.isDirectory()).map((e) => e.name).sort(),
    ["canvas", "core", "documents", "engine", "relay", "systems", "workflow", "world"]);
});

test("one workflow: Shoot and every other action share one gather, dialog, roll and card", () => {
  const graph = importGraph(SHIM);
  const users = (file) => Object.entries(graph).filter(([, deps]) => deps.includes(file)).map(([f]) => f).sort();
  // The stages are reached from the workflow alone (and the GM's side of the roll and card).
  assert.deepEqual(users("workflow/gather.mjs"), ["workflow/workflow.mjs"]);
  assert.deepEqual(users("workflow/dialog.mjs"), ["workflow/workflow.mjs"]);
  assert.deepEqual(users("workflow/workflow.mjs"), ["firefight.mjs"]);
  // The core of the table never reaches into the workflow's top.
  for (const [file, deps] of Object.entries(graph)) {
    if (file.startsWith("core/") || file.startsWith("world/")) {
      assert.ok(deps.every((d) => !d.startsWith("workflow/") && !d.startsWith("canvas/") && !d.startsWith("documents/")), `${file} -> ${deps}`);
    }
  }
});
