// Client for the engine Web Worker (js-shim/engine-worker.mjs).
// Protocol (docs/architecture.md): post {id, message}, receive {id, reply};
// {type:"ready"} once booted, {type:"boot-error", message} on failure.

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
  /** @param {URL|string} url  @param {{WorkerClass?: Function}} [opts] */
  constructor(url, { WorkerClass = globalThis.Worker } = {}) {
    this.url = url;
    this.WorkerClass = WorkerClass;
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

  _fail(message) {
    this.status = "failed";
    this.bootError = message;
    const err = new EngineError({ code: "boot_failed", message: `Engine failed to start: ${message}` });
    this._rejectReady?.(err);
    for (const entry of this.pending.values()) entry.reject(err);
    this.pending.clear();
  }

  /** Send one bridge op; resolves with `value`, rejects with EngineError. */
  call(op, payload = {}) {
    this.start();
    if (this.status === "failed") {
      return Promise.reject(new EngineError({ code: "boot_failed", message: `Engine failed to start: ${this.bootError}` }));
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
