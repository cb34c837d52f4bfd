// Client for the engine Web Worker (js-shim/engine-worker.mjs).
// Protocol (docs/architecture.md): post {id, message}, receive {id, reply};
// {type:"ready"} once booted, {type:"boot-error", message} on failure. A boot that reports neither
// within BOOT_TIME_LIMIT_MS fails too (e.g. the server sends .wasm with a MIME type the browser's
// streaming compile refuses, and Pyodide then waits for ever): no call waits longer than that.
import { t } from "./i18n.mjs";

// How long the worker may take to boot: a cold boot downloads ~14 MB and compiles Pyodide
// (about 6 s on two cores, `make bench`); a slow connection or a busy machine needs far more.
export const BOOT_TIME_LIMIT_MS = 180_000;

export class EngineError extends Error {
  constructor(error) {
    super(error?.message ?? String(error?.code ?? "engine error"));
    this.name = "EngineError";
    this.code = error?.code ?? "engine_error";
    this.fields = error?.fields ?? [];
    this.error = error;
  }
}

export class EngineClient {
  /** @param {URL|string} url  @param {{WorkerClass?: Function, bootTimeLimitMs?: number}} [opts] */
  constructor(url, { WorkerClass = globalThis.Worker, bootTimeLimitMs = BOOT_TIME_LIMIT_MS } = {}) {
    this.url = url;
    this.WorkerClass = WorkerClass;
    this.bootTimeLimitMs = bootTimeLimitMs;
    this._bootTimer = null;
    this.worker = null;
    this.status = "idle"; // idle | booting | ready | failed
    this.bootError = null;
    this.nextId = 1;
    this.pending = new Map();
    this.ready = null;
  }

  /** Start the worker (idempotent). Resolves when Python is ready. */
  start() {
    if (this.ready) return this.ready;
    this.status = "booting";
    this.ready = new Promise((resolve, reject) => {
      this._resolveReady = resolve;
      this._rejectReady = reject;
    });
    this.ready.catch(() => {}); // callers see it through call()
    this._bootTimer = setTimeout(() => {
      const seconds = Math.round(this.bootTimeLimitMs / 1000);
      this._fail(t("FIREFIGHT.ui.engine.timeout", "it did not start within {seconds} s (is runtime/pyodide/pyodide.asm.wasm served, as application/wasm?)", { seconds }));
      this.worker?.terminate?.();
    }, this.bootTimeLimitMs);
    try {
      this.worker = new this.WorkerClass(this.url, { type: "module" });
    } catch (err) {
      this._fail(err?.message ?? String(err));
      return this.ready;
    }
    this.worker.onmessage = (ev) => this._onMessage(ev.data);
    this.worker.onerror = (ev) => this._fail(ev?.message || "engine worker failed to load");
    return this.ready;
  }

  _onMessage(data) {
    if (data?.type === "ready") {
      if (this.status !== "booting") return; // timed out already
      clearTimeout(this._bootTimer);
      this.status = "ready";
      this._resolveReady?.();
      return;
    }
    if (data?.type === "boot-error") {
      this._fail(data.message);
      return;
    }
    const entry = this.pending.get(data?.id);
    if (!entry) return;
    this.pending.delete(data.id);
    let reply;
    try {
      reply = JSON.parse(data.reply);
    } catch {
      entry.reject(new EngineError({ code: "bad_reply", message: "unreadable engine reply" }));
      return;
    }
    if (reply.ok) entry.resolve(reply.value);
    else entry.reject(new EngineError(reply.error));
  }

  _bootFailedError() {
    return new EngineError({ code: "boot_failed", message: t("FIREFIGHT.ui.engine.failed", "Engine failed to start: {reason}", { reason: this.bootError }) });
  }

  _fail(message) {
    clearTimeout(this._bootTimer);
    if (this.status === "failed") return; // the first reason stands
    this.status = "failed";
    this.bootError = message;
    const err = this._bootFailedError();
    this._rejectReady?.(err);
    for (const entry of this.pending.values()) entry.reject(err);
    this.pending.clear();
  }

  /** Send one bridge op; resolves with `value`, rejects with EngineError. */
  call(op, payload = {}) {
    this.start();
    if (this.status === "failed") {
      return Promise.reject(this._bootFailedError());
    }
    const id = this.nextId++;
    const message = JSON.stringify({ op, ...payload });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // The worker queues messages that arrive before Python is ready.
      this.worker.postMessage({ id, message });
    });
  }

  terminate() {
    this.worker?.terminate();
    this._fail("terminated");
  }
}
