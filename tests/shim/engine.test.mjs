import { test } from "node:test";
import assert from "node:assert/strict";
import { EngineClient, EngineError } from "../../js-shim/engine.mjs";
import { resolveWithEntropy } from "../../js-shim/shoot.mjs";

/** A fake worker that answers like engine-worker.mjs, with a handler per op. */
function fakeWorkerClass(handler, { boot = "ready" } = {}) {
  return class {
    constructor(url, opts) {
      this.url = url;
      this.opts = opts;
      this.posted = [];
      setTimeout(() => this.onmessage?.({ data: boot === "ready" ? { type: "ready" } : { type: "boot-error", message: boot } }), 5);
    }
    postMessage(msg) {
      this.posted.push(msg);
      const req = JSON.parse(msg.message);
      setTimeout(() => this.onmessage?.({ data: { id: msg.id, reply: JSON.stringify(handler(req)) } }), 1);
    }
    terminate() {}
  };
}

test("calls resolve with the value; boot starts a module worker", async () => {
  const client = new EngineClient("w.mjs", { WorkerClass: fakeWorkerClass((m) => ({ ok: true, value: { echo: m } })) });
  const ready = client.start();
  assert.equal(client.status, "booting");
  assert.deepEqual(client.worker.opts, { type: "module" });
  const value = await client.call("schema", { ruleset: "soe" });
  assert.deepEqual(value, { echo: { op: "schema", ruleset: "soe" } });
  await ready;
  assert.equal(client.status, "ready");
  assert.equal(client.start(), ready);
});

test("error replies reject with EngineError carrying code and fields", async () => {
  const error = { code: "invalid_request", message: "bad", fields: [{ field: "weapon.damage", reason: "missing" }] };
  const client = new EngineClient("w.mjs", { WorkerClass: fakeWorkerClass(() => ({ ok: false, error })) });
  await assert.rejects(client.call("odds", {}), (err) => err instanceof EngineError && err.code === "invalid_request" && err.fields[0].field === "weapon.damage");
});

test("boot-error rejects pending and later calls", async () => {
  const client = new EngineClient("w.mjs", { WorkerClass: fakeWorkerClass(() => new Promise(() => {}), { boot: "no wasm" }) });
  // The fake answers nothing useful; the boot error must reject the pending call.
  const W = client.WorkerClass;
  client.WorkerClass = class extends W { postMessage() {} };
  const pending = client.call("hello");
  await assert.rejects(pending, /no wasm/);
  assert.equal(client.status, "failed");
  await assert.rejects(client.call("hello"), (err) => err.code === "boot_failed");
});

test("resolveWithEntropy grows the entropy list on entropy_exhausted", async () => {
  const sizes = [];
  const client = new EngineClient("w.mjs", { WorkerClass: fakeWorkerClass((m) => {
    sizes.push(m.entropy.length);
    if (m.entropy.length < 1000) return { ok: false, error: { code: "entropy_exhausted", message: "more" } };
    return { ok: true, value: { result: { dice: [] }, html: "<p>ok</p>" } };
  }) });
  const reply = await resolveWithEntropy(client, { ruleset: "soe" }, () => 0.5);
  assert.equal(reply.html, "<p>ok</p>");
  assert.deepEqual(sizes, [64, 256, 1024]);
  assert.ok(sizes.every((n) => n > 0));
});

test("other errors are not retried", async () => {
  let calls = 0;
  const client = new EngineClient("w.mjs", { WorkerClass: fakeWorkerClass(() => { calls++; return { ok: false, error: { code: "invalid_request", message: "x" } }; }) });
  await assert.rejects(resolveWithEntropy(client, {}, () => 0.1), (err) => err.code === "invalid_request");
  assert.equal(calls, 1);
});

test("a boot that reports nothing fails after the time limit, rejecting pending calls clearly", async () => {
  let terminated = false;
  class SilentWorker { // e.g. Pyodide waiting for ever on a .wasm it could not compile
    postMessage() {}
    terminate() { terminated = true; }
  }
  const client = new EngineClient("w.mjs", { WorkerClass: SilentWorker, bootTimeLimitMs: 30 });
  const pending = client.call("hello");
  assert.equal(client.status, "booting");
  await assert.rejects(pending, (err) => err instanceof EngineError && err.code === "boot_failed"
    && /did not start within 0 s/.test(err.message) && /pyodide\.asm\.wasm/.test(err.message));
  assert.equal(client.status, "failed");
  assert.ok(terminated, "the stuck worker is stopped");
  await assert.rejects(client.call("hello"), /did not start within/);
  // A late "ready" does not revive it.
  client._onMessage({ type: "ready" });
  assert.equal(client.status, "failed");
});

test("a boot within the time limit is not failed by it", async () => {
  const client = new EngineClient("w.mjs", { WorkerClass: fakeWorkerClass(() => ({ ok: true, value: 1 })), bootTimeLimitMs: 200 });
  assert.equal(await client.call("hello"), 1);
  await new Promise((r) => setTimeout(r, 250));
  assert.equal(client.status, "ready");
});
