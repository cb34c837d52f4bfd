import { test } from "node:test";
import assert from "node:assert/strict";
import { EngineClient, EngineError } from "../../js-shim/engine/engine.mjs";
import { resolveWithEntropy } from "../../js-shim/workflow/roll.mjs";

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
      if (msg.type) return; // protocol messages ("watch")
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

// --- Recovery (reliability audit D6, D7): time limits, crashes, restarts -----------------------

const NO_REPLY = Symbol("no reply"); // the handler answers by itself, or never
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The Web Locks API as the client uses it: a lock held by a worker is granted once it ends. */
class FakeLocks {
  constructor() { this.held = new Map(); }
  hold(name, worker) { this.held.set(name, { worker, waiters: [] }); }
  request(name, cb) {
    const h = this.held.get(name);
    if (!h || h.released) return Promise.resolve().then(() => cb({ name }));
    return new Promise((resolve) => h.waiters.push(() => resolve(cb({ name }))));
  }
  release(worker) {
    for (const h of this.held.values()) {
      if (h.worker !== worker || h.released) continue;
      h.released = true;
      for (const w of h.waiters) setTimeout(w, 0);
    }
  }
}

/**
 * Fake workers that behave like engine-worker.mjs: boot, then answer one message at a time, in
 * order, `workMs` each. `handler(request, worker, n)` gives the reply (n: which worker, from 0), or
 * NO_REPLY. `workers` lists every worker made.
 */
function fakeEngine(handler = (m) => ({ ok: true, value: m.op }), { bootMs = 2, workMs = 1, locks = null, boot = () => "ready" } = {}) {
  const workers = [];
  class FakeWorker {
    constructor(url, opts) {
      this.n = workers.length;
      workers.push(this);
      Object.assign(this, { url, opts, posted: [], queue: [], busy: false, booted: false, terminated: false });
      setTimeout(() => {
        const how = boot(this.n);
        if (how === "silent") return;
        this.booted = true;
        this.emit(how === "ready" ? { type: "ready" } : { type: "boot-error", message: how });
        this.next();
      }, bootMs);
    }
    emit(data) {
      if (!this.terminated) this.onmessage?.({ data });
    }
    postMessage(msg) {
      if (this.terminated) return; // a dead worker swallows messages
      this.posted.push(msg);
      if (msg.type === "watch") {
        locks.hold(msg.lock, this);
        setTimeout(() => this.emit({ type: "watching" }), 0);
        return;
      }
      if (msg.type === "wheels" || msg.type === "ruleset") return; // what to load, not a call
      this.queue.push(msg);
      this.next();
    }
    next() {
      if (!this.booted || this.busy || this.terminated || !this.queue.length) return;
      const msg = this.queue.shift();
      this.busy = true;
      setTimeout(() => {
        if (this.terminated) return;
        const out = handler(JSON.parse(msg.message), this, this.n);
        if (out === NO_REPLY) return; // stays busy: a runaway computation
        this.busy = false;
        this.emit({ id: msg.id, reply: typeof out === "string" ? out : JSON.stringify(out) });
        this.next();
      }, workMs);
    }
    /** Ended from outside (worker.terminate(), a crash without an event). */
    terminate() {
      this.terminated = true;
      locks?.release(this);
    }
  }
  return { FakeWorker, workers };
}

test("a call past its time limit stops the worker and fails `timeout` naming the op; the others are answered by a new worker", async () => {
  const { FakeWorker, workers } = fakeEngine((m, w) => (m.op === "odds" && w.n === 0 ? NO_REPLY : { ok: true, value: `${m.op}@${w.n}` }));
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker, timeLimitsMs: { odds: 40, hello: 1000 } });
  const odds = client.call("odds", { request: {} });
  const hello = client.call("hello");
  await assert.rejects(odds, (err) => err instanceof EngineError && err.code === "timeout"
    && /“odds”/.test(err.message) && /0 s|within/.test(err.message));
  assert.equal(await hello, "hello@1", "retried on the new worker");
  assert.ok(workers[0].terminated, "the runaway worker is stopped");
  assert.equal(client.worker, workers[1]);
  assert.equal(client.status, "ready");
  assert.equal(client.restarts, 1);
  assert.equal(await client.call("odds", {}), "odds@1", "the engine answers the next call");
});

test("a call's clock starts when the worker starts on it, not when it was queued", async () => {
  // Five calls of 30 ms each, 60 ms limit: the last is answered 150 ms after it was sent.
  const { FakeWorker, workers } = fakeEngine((m) => ({ ok: true, value: m.op }), { workMs: 30 });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker, timeLimitsMs: { odds: 60 } });
  const values = await Promise.all(Array.from({ length: 5 }, () => client.call("odds")));
  assert.deepEqual(values, ["odds", "odds", "odds", "odds", "odds"]);
  assert.equal(workers.length, 1);
  assert.equal(client.restarts, 0);
});

test("the time limits are per op, from CALL_TIME_LIMITS_MS", async () => {
  const { CALL_TIME_LIMITS_MS, DEFAULT_CALL_TIME_LIMIT_MS } = await import("../../js-shim/engine/engine.mjs");
  const client = new EngineClient("w.mjs", { WorkerClass: class {} });
  assert.equal(client.timeLimitFor("resolve"), CALL_TIME_LIMITS_MS.resolve);
  assert.equal(client.timeLimitFor("no_such_op"), DEFAULT_CALL_TIME_LIMIT_MS);
  assert.ok(CALL_TIME_LIMITS_MS.odds < CALL_TIME_LIMITS_MS.schema);
});

test("a crash mid-call (error event) restarts the worker; the pending calls are answered by the new one", async () => {
  const { FakeWorker, workers } = fakeEngine((m, w) => {
    if (w.n === 0) {
      setTimeout(() => w.onerror?.({ message: "out of memory" }), 0);
      return NO_REPLY;
    }
    return { ok: true, value: `${m.op}@${w.n}` };
  });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker });
  const statuses = [];
  client.addEventListener("status", () => statuses.push(client.status));
  const calls = [client.call("resolve"), client.call("odds"), client.call("apply")];
  assert.deepEqual(await Promise.all(calls), ["resolve@1", "odds@1", "apply@1"]);
  assert.ok(workers[0].terminated);
  assert.deepEqual(statuses, ["booting", "ready", "booting", "ready"], "status tells the restart");
});

test("a call caught in a second crash fails with a clear error (retried once)", async () => {
  const { FakeWorker, workers } = fakeEngine((m, w) => {
    setTimeout(() => w.onerror?.({ message: `crash ${w.n}` }), 0);
    return NO_REPLY;
  });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker, maxRestarts: 10 });
  await assert.rejects(client.call("resolve"), (err) => err instanceof EngineError && err.code === "engine_crashed"
    && /“resolve”/.test(err.message) && /crash 1/.test(err.message));
  assert.equal(workers.length, 3, "first crash: retried on worker 1; second: failed, and worker 2 started");
  assert.equal(workers[1].posted.filter((m) => !m.type).length, 1);
});

test("every worker started is told the world's ruleset, to import ahead once idle (a restarted one too)", async () => {
  const { FakeWorker, workers } = fakeEngine((m, w) => {
    if (w.n === 0) {
      setTimeout(() => w.onerror?.({ message: "crash" }), 0);
      return NO_REPLY;
    }
    return { ok: true, value: m.op };
  });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker });
  client.ruleset = "duel";
  assert.equal(await client.call("odds"), "odds");
  assert.equal(workers.length, 2);
  for (const worker of workers) assert.deepEqual(worker.posted.filter((m) => m.type === "ruleset"), [{ type: "ruleset", id: "duel" }]);
});

test("a worker that ends without a word (terminated from outside) is noticed through its Web Lock, and the call is answered after the restart", async () => {
  const locks = new FakeLocks();
  const { FakeWorker, workers } = fakeEngine((m, w) => ({ ok: true, value: `${m.op}@${w.n}` }), { workMs: 50, locks });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker, locks });
  await client.start();
  assert.equal(workers[0].posted[0].type, "watch");
  const call = client.call("resolve");
  await sleep(10);
  workers[0].terminate(); // as api.engine.worker.terminate() does: no event at all
  assert.equal(await call, "resolve@1");
  assert.equal(client.restarts, 1);
  assert.equal(client.status, "ready");
});

test("Pyodide's fatal error while answering a call fails that call and retries the others", async () => {
  const { FakeWorker } = fakeEngine((m, w) => {
    if (w.n === 0 && m.op === "odds") {
      setTimeout(() => w.emit({ type: "fatal", id: 1, message: "Pyodide fatal error: RangeError: Maximum call stack size exceeded" }), 0);
      return NO_REPLY;
    }
    return { ok: true, value: `${m.op}@${w.n}` };
  });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker });
  const odds = client.call("odds");
  const hello = client.call("hello");
  await assert.rejects(odds, (err) => err.code === "engine_crashed" && /“odds”/.test(err.message) && /Maximum call stack/.test(err.message));
  assert.equal(await hello, "hello@1");
});

test("a fatal error reported outside any call retries every pending call", async () => {
  const { FakeWorker } = fakeEngine((m, w) => {
    if (w.n === 0) {
      setTimeout(() => w.emit({ type: "fatal", message: "Pyodide fatal error: Pyodide already fatally failed" }), 0);
      return NO_REPLY;
    }
    return { ok: true, value: `${m.op}@${w.n}` };
  });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker });
  assert.deepEqual(await Promise.all([client.call("odds"), client.call("hello")]), ["odds@1", "hello@1"]);
});

test("a reply the client cannot read replaces the worker", async () => {
  const { FakeWorker, workers } = fakeEngine((m, w) => (w.n === 0 && m.op === "resolve" ? "undefined" : { ok: true, value: `${m.op}@${w.n}` }));
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker });
  const resolve = client.call("resolve");
  const hello = client.call("hello");
  await assert.rejects(resolve, (err) => err.code === "engine_crashed" && /could not be read/.test(err.message));
  assert.equal(await hello, "hello@1");
  assert.ok(workers[0].terminated);
});

test("messageerror replaces the worker", async () => {
  const { FakeWorker } = fakeEngine((m, w) => {
    if (w.n === 0) {
      setTimeout(() => w.onmessageerror?.({}), 0);
      return NO_REPLY;
    }
    return { ok: true, value: `${m.op}@${w.n}` };
  });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker });
  assert.equal(await client.call("schema"), "schema@1");
});

test("a restart storm is bounded: the engine fails, saying how to restart it; restart() brings it back", async () => {
  let healthy = false;
  const { FakeWorker, workers } = fakeEngine((m, w) => {
    if (healthy) return { ok: true, value: `${m.op}@${w.n}` };
    setTimeout(() => w.onerror?.({ message: `crash ${w.n}` }), 0);
    return NO_REPLY;
  });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker, maxRestarts: 2, restartWindowMs: 60_000 });
  // A poisoned call crashes worker 0 and, sent again, worker 1 (2 restarts); the next crashes worker 2.
  await assert.rejects(client.call("odds"), (err) => err.code === "engine_crashed");
  const third = await client.call("odds").catch((err) => err);
  assert.equal(third.code, "engine_failed");
  assert.equal(client.status, "failed");
  assert.equal(workers.length, 3, "2 restarts, then no more");
  const failed = await client.call("hello").catch((err) => err);
  assert.equal(failed, client.failure);
  assert.equal(failed.code, "engine_failed");
  assert.match(failed.message, /3 times within 60 s/);
  assert.match(failed.message, /api\.engine\.restart\(\)/);
  assert.equal(workers.length, 3, "a failed engine starts no worker");

  healthy = true;
  await client.restart();
  assert.equal(client.status, "ready");
  assert.equal(await client.call("hello"), "hello@3");
});

test("terminate() fails the pending calls clearly, and the next call starts a fresh worker", async () => {
  const { FakeWorker, workers } = fakeEngine((m, w) => ({ ok: true, value: `${m.op}@${w.n}` }), { workMs: 50 });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker });
  await client.start();
  const pending = client.call("resolve");
  client.terminate();
  await assert.rejects(pending, (err) => err.code === "terminated" && /“resolve”/.test(err.message));
  assert.equal(client.status, "idle");
  assert.ok(workers[0].terminated);
  assert.equal(await client.call("hello"), "hello@1");
  assert.equal(client.status, "ready");
  assert.equal(client.restarts, 0, "a terminate on purpose is no crash");
});

test("the boot time limit applies to the boot of a replacement worker", async () => {
  const { FakeWorker } = fakeEngine((m, w) => {
    setTimeout(() => w.onerror?.({ message: "crash" }), 0);
    return NO_REPLY;
  }, { boot: (n) => (n === 0 ? "ready" : "silent") });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker, bootTimeLimitMs: 50 });
  await client.start();
  await assert.rejects(client.call("hello"), (err) => err.code === "boot_failed" && /did not start within/.test(err.message));
  assert.equal(client.status, "failed");
});

test("a replaced worker's late messages are ignored", async () => {
  const { FakeWorker, workers } = fakeEngine((m, w) => (w.n === 0 ? NO_REPLY : { ok: true, value: `${m.op}@${w.n}` }));
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker, timeLimitsMs: { odds: 30 } });
  const odds = client.call("odds");
  await assert.rejects(odds, (err) => err.code === "timeout");
  const late = client.call("hello");
  workers[0].terminated = false; // the old worker speaks after all
  workers[0].onmessage?.({ data: { id: 2, reply: JSON.stringify({ ok: true, value: "stale" }) } });
  assert.equal(await late, "hello@1");
});

test("terminate() on a failed engine lets the next call start afresh", async () => {
  let bootOk = false;
  const { FakeWorker, workers } = fakeEngine((m, w) => ({ ok: true, value: `${m.op}@${w.n}` }), { boot: () => (bootOk ? "ready" : "no wasm") });
  const client = new EngineClient("w.mjs", { WorkerClass: FakeWorker });
  await assert.rejects(client.call("hello"), (err) => err.code === "boot_failed");
  await assert.rejects(client.call("hello"), (err) => err.code === "boot_failed", "a boot failure is final");
  assert.equal(workers.length, 1);
  bootOk = true;
  client.terminate();
  assert.equal(client.status, "idle");
  assert.equal(await client.call("hello"), "hello@1");
});

test("an entropy retry tops the stream up: the values already sent are sent again, never redrawn", async () => {
  const sent = [];
  const client = new EngineClient("w.mjs", { WorkerClass: fakeWorkerClass((m) => {
    sent.push(m.entropy);
    if (m.entropy.length < 200) return { ok: false, error: { code: "entropy_exhausted", message: "more" } };
    return { ok: true, value: { result: { dice: [] }, html: "" } };
  }) });
  let drawn = 0;
  await resolveWithEntropy(client, { ruleset: "soe" }, () => (drawn++ % 997) / 997);
  assert.deepEqual(sent.map((e) => e.length), [64, 256]);
  assert.deepEqual(sent[1].slice(0, 64), sent[0]);
  assert.equal(drawn, 256); // each value drawn once
});

test("the boot's stages: the worker's, then the catalog while prepare runs, none once ready", async () => {
  const W = fakeWorkerClass(() => ({ ok: true, value: {} }));
  const client = new EngineClient("w.mjs", { WorkerClass: class extends W {
    constructor(...args) {
      super(...args);
      setTimeout(() => this.onmessage?.({ data: { type: "stage", stage: "packages" } }), 1);
      setTimeout(() => this.onmessage?.({ data: { type: "stage", stage: "engine" } }), 2);
    }
  } });
  const stages = [];
  client.addEventListener("stage", () => stages.push(client.bootStage));
  let duringPrepare = null;
  client.prepare = async () => { duringPrepare = client.bootStage; };
  await client.start();
  assert.deepEqual(stages, ["python", "packages", "engine", "catalog"]);
  assert.equal(duringPrepare, "catalog");
  assert.equal(client.bootStage, null);
});
