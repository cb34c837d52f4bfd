import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { bootStatusLine, watchBootStatus } from "../../js-shim/engine/boot-status.mjs";

const en = JSON.parse(readFileSync(new URL("../../lang/en.json", import.meta.url), "utf8"));
const lookup = (key) => key.split(".").reduce((node, part) => node?.[part], en) ?? key;
globalThis.game = { i18n: { localize: lookup } };

/** An EngineClient as far as the boot line reads it. */
function fakeEngine() {
  const engine = new EventTarget();
  Object.assign(engine, { status: "booting", bootStage: "python", failure: null, bootError: null });
  engine.set = (fields, event) => {
    Object.assign(engine, fields);
    engine.dispatchEvent(new Event(event));
  };
  return engine;
}

function fakeElement() {
  const classes = new Set();
  return { textContent: "", dataset: {}, classList: { toggle: (c, on) => (on ? classes.add(c) : classes.delete(c)) }, classes };
}

test("the boot line follows the worker's stages, in the client's language", () => {
  const engine = fakeEngine();
  const el = fakeElement();
  const seen = [];
  const stop = watchBootStatus(engine, el, (status) => seen.push(status));
  assert.equal(el.textContent, lookup("FIREFIGHT.ui.engine.stage.python"));
  assert.equal(el.dataset.status, "booting");
  engine.set({ bootStage: "packages" }, "stage");
  assert.equal(el.textContent, lookup("FIREFIGHT.ui.engine.stage.packages"));
  engine.set({ bootStage: "catalog" }, "stage");
  assert.match(el.textContent, /rulesets/);
  engine.set({ status: "ready", bootStage: null }, "status");
  assert.equal(el.dataset.status, "ready");
  stop();
  engine.set({ status: "booting", bootStage: "engine" }, "stage");
  assert.equal(el.dataset.status, "ready"); // no longer watched
  assert.deepEqual(seen, ["booting", "booting", "booting", "ready"]);
});

test("a failed boot says so, why, and how to try again; never that it is starting", () => {
  const engine = fakeEngine();
  engine.status = "failed";
  engine.failure = { message: "The Firefight engine failed to start: runtime/wheels/manifest.json: HTTP 404" };
  const { failed, text } = bootStatusLine(engine);
  assert.equal(failed, true);
  assert.match(text, /failed to start: runtime\/wheels\/manifest\.json: HTTP 404/);
  assert.match(text, /Try again/);
  assert.doesNotMatch(text, /Starting/);
  const el = fakeElement();
  watchBootStatus(engine, el);
  assert.equal(el.dataset.status, "failed");
  assert.ok(el.classes.has("error"));
});
