// Client for the engine Web Worker (js-shim/engine/engine-worker.mjs).
// Protocol (docs/architecture.md, "Worker protocol"): post {id, message}, receive {id, reply};
// {type:"ready"} once booted, {type:"boot-error", message} on failure, {type:"fatal", id?, message}
// when Pyodide broke. A boot that reports neither within BOOT_TIME_LIMIT_MS fails too (e.g. the
// server sends .wasm with a MIME type the browser's streaming compile refuses, and Pyodide then
// waits for ever).
//
// Recovery (reliability audit D6, D7): every call has a time limit; a call past it stops the worker
// (a runaway Python computation cannot be interrupted any other way) and fails with `timeout`. A
// worker that crashes (error event, messageerror, a reply the client cannot read, Pyodide's fatal
// error, or an end without a word, seen through a Web Lock the worker holds while it lives) is
// replaced the same way. Every bridge op is a pure function of its message, so the calls it still
// owed are sent again to the new worker, once; a call caught in a second crash fails with
// `engine_crashed`. MAX_RESTARTS restarts within RESTART_WINDOW_MS fail the engine until
// `restart()` (or a reload).
import { t } from "../core/i18n.mjs";

// How long the worker may take to boot: a cold boot downloads ~14 MB and compiles Pyodide
// (about 6 s on two cores, `make bench`); a slow connection or a busy machine needs far more.
export const BOOT_TIME_LIMIT_MS = 180_000;

// How long the worker may work on one call. Its clock starts when the worker starts on it: the
// worker answers one message at a time, in order, so that is when the call before it was answered
// (or the boot ended): a call queued behind others or behind the boot is not charged for them.
// Honest calls take milliseconds; the slowest are the first of a page, which import and build a
// ruleset's models (on two busy cores: first schema of a ruleset up to 1 s, first Apply 1.5 s with
// its replay; odds 0.04-0.11 s, Fire to card 0.1-0.3 s; ux-walkthrough.md "Timings"). The limits
// are ten times that and more, so only a runaway computation reaches them (audit D6: exact
// arithmetic at an absurd range ran for minutes).
export const CALL_TIME_LIMITS_MS = Object.freeze({
  hello: 30_000, // the first calls of a boot import the engine's rulesets
  rulesets: 30_000,
  schema: 30_000, // builds the JSON schemas of a ruleset's models
  odds: 10_000,
  resolve: 15_000, // a result and its card; a multi-target area shot is the largest
  apply: 10_000,
  card: 10_000,
  loadWheel: 60_000, // downloads and installs one plugin wheel
});
/** Any op not listed above. */
export const DEFAULT_CALL_TIME_LIMIT_MS = 30_000;

// A worker that keeps dying (a poisoned message sent again and again, no memory left) is not
// restarted for ever: after MAX_RESTARTS restarts within RESTART_WINDOW_MS the engine is failed.
export const MAX_RESTARTS = 3;
export const RESTART_WINDOW_MS = 60_000;

export class EngineError extends Error {
  constructor(error) {
    super(error?.message ?? String(error?.code ?? "engine error"));
    this.name = "EngineError";
    this.code = error?.code ?? "engine_error";
    this.fields = error?.fields ?? [];
    this.error = error;
  }
}

const seconds = (ms) => Math.round(ms / 1000);

/** A name for the Web Lock one worker holds while it lives (unique across the origin's tabs). */
function lockName(n) {
  const random = globalThis.crypto?.randomUUID?.() ?? Math.random().toString(36).slice(2);
  return `firefight-engine-${random}-${n}`;
}

/**
 * The engine: one worker at a time, replaced when it fails. `status` is idle | booting | ready |
 * failed and is announced with a "status" event. `worker` is the current Worker.
 */
export class EngineClient extends EventTarget {
  /**
   * @param {URL|string} url
   * @param {{WorkerClass?: Function, bootTimeLimitMs?: number, timeLimitsMs?: object,
   *   locks?: LockManager, maxRestarts?: number, restartWindowMs?: number}} [opts]
   *   `locks`: the Web Locks API that tells a worker's end (default navigator.locks; absent
   *   outside a secure context, where a silent end is noticed at the call's time limit instead).
   */
  constructor(url, {
    WorkerClass = globalThis.Worker, bootTimeLimitMs = BOOT_TIME_LIMIT_MS,
    timeLimitsMs = CALL_TIME_LIMITS_MS, locks = globalThis.navigator?.locks,
    maxRestarts = MAX_RESTARTS, restartWindowMs = RESTART_WINDOW_MS,
  } = {}) {
    super();
    this.url = url;
    this.WorkerClass = WorkerClass;
    this.bootTimeLimitMs = bootTimeLimitMs;
    this.timeLimitsMs = timeLimitsMs;
    this.locks = locks;
    this.maxRestarts = maxRestarts;
    this.restartWindowMs = restartWindowMs;
    this.worker = null;
    this.status = "idle"; // idle | booting | ready | failed
    // How far a boot is (js-shim/engine/boot-status.mjs shows it): the worker's {type: "stage"} python |
    // packages | engine, then "catalog" while `prepare` runs; null when not booting. A "stage"
    // event is fired on each change.
    this.bootStage = null;
    this.bootError = null; // why the engine failed (status "failed")
    this.failure = null; // the EngineError calls get while failed
    this.restarts = 0; // workers replaced after a crash or a time limit, since the page loaded
    this._restartTimes = []; // when, within the restart window
    this.nextId = 1;
    this.pending = new Map(); // id -> {id, op, message, resolve, reject, retried}, in send order
    this.ready = null;
    this._bootTimer = null;
    this._clock = null; // {id, worker, timer}: the call the worker is working on
    this._workers = 0;
    // Plugin wheels every worker loads at boot, after the engine's own (the active modules'
    // flags.firefight.wheels, and every wheel loadWheel() loaded since): a restarted engine has
    // them again.
    this.wheels = [];
    this.wheelErrors = []; // [{url, error}]: the plugin wheels the last boot could not load
    // The world's ruleset, which every worker imports ahead once idle after "ready" (issue 27:
    // else a player's first request waits for its import; "": the engine's default).
    this.ruleset = "";
    this.onWheel = null; // async ({url, loaded, error}) => value loadWheel resolves
    // async () => {}: run when a new worker has booted, before the engine is "ready" (the module
    // reads the engine's catalog there, so "ready" means its rulesets and settings are known).
    // It reports its own errors; its calls are answered, untimed, within the boot time limit.
    this.prepare = null;
  }

  /** Start the worker (idempotent while it runs). Resolves when Python is ready. */
  start() {
    if (this.status === "idle") this._boot();
    return this.ready;
  }

  /** The time limit of one call of `op`, in ms. */
  timeLimitFor(op) {
    return this.timeLimitsMs[op] ?? DEFAULT_CALL_TIME_LIMIT_MS;
  }

  _setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    if (status !== "booting") this.bootStage = null;
    this.dispatchEvent(new Event("status"));
  }

  _setStage(stage) {
    if (this.bootStage === stage) return;
    this.bootStage = stage;
    this.dispatchEvent(new Event("stage"));
  }

  /** A new worker; the calls still owed are sent to it (it queues them until Python is ready). */
  _boot() {
    this._setStatus("booting");
    this._setStage("python");
    this.ready = new Promise((resolve, reject) => {
      this._resolveReady = resolve;
      this._rejectReady = reject;
    });
    this.ready.catch(() => {}); // callers see it through call()
    clearTimeout(this._bootTimer);
    this._bootTimer = setTimeout(() => {
      this._fail(t("FIREFIGHT.ui.engine.failed", "The Firefight engine failed to start: {reason}", {
        reason: t("FIREFIGHT.ui.engine.timeout", "it did not start within {seconds} s (is runtime/pyodide/pyodide.asm.wasm served, as application/wasm?)", { seconds: seconds(this.bootTimeLimitMs) }),
      }), "boot_failed");
    }, this.bootTimeLimitMs);
    let worker;
    try {
      worker = new this.WorkerClass(this.url, { type: "module" });
    } catch (err) {
      this._failBoot(err?.message ?? String(err));
      return;
    }
    this.worker = worker;
    const lock = this.locks ? lockName(++this._workers) : null;
    worker.onmessage = (ev) => {
      if (this.worker !== worker) return; // a replaced worker's last words
      if (ev.data?.type === "watching") {
        if (lock) this._watch(worker, lock);
      } else this._onMessage(ev.data);
    };
    worker.onerror = (ev) => {
      if (this.worker !== worker) return;
      const message = ev?.message || t("FIREFIGHT.ui.engine.loadFailed", "the engine worker failed to load");
      // Before "ready" it is the boot that failed (a missing file fails every retry alike).
      if (this.status === "booting") this._failBoot(message);
      else this._crash(message);
    };
    worker.onmessageerror = () => {
      if (this.worker === worker) this._crash(t("FIREFIGHT.ui.engine.messageError", "a message from the engine could not be read (messageerror)"));
    };
    try {
      if (lock) worker.postMessage({ type: "watch", lock });
      if (this.wheels.length) worker.postMessage({ type: "wheels", urls: [...this.wheels] });
      worker.postMessage({ type: "ruleset", id: String(this.ruleset ?? "") });
      for (const entry of this.pending.values()) worker.postMessage(entry.post);
    } catch (err) {
      this._failBoot(err?.message ?? String(err));
    }
  }

  /**
   * The worker holds `lock` from now on (it answered "watching"). The browser releases a Web Lock
   * when its holder ends, whatever the cause (W3C Web Locks API, "agent termination"), and only
   * then grants it to us: a worker ended by terminate(), close() or a crash, with no error event.
   */
  _watch(worker, lock) {
    this.locks.request(lock, () => {
      if (this.worker === worker) this._crash(t("FIREFIGHT.ui.engine.ended", "the engine worker ended"));
    }).catch(() => {});
  }

  _onMessage(data) {
    if (data?.type === "ready") {
      if (this.status !== "booting") return; // timed out or failed already
      this.wheelErrors = Array.isArray(data.wheelErrors) ? data.wheelErrors : [];
      const worker = this.worker;
      const ready = () => {
        if (this.worker !== worker || this.status !== "booting") return; // replaced meanwhile
        clearTimeout(this._bootTimer);
        this._setStatus("ready");
        this._resolveReady?.();
        this._startClock();
      };
      if (!this.prepare) ready();
      else {
        this._setStage("catalog");
        Promise.resolve().then(() => this.prepare()).catch(() => {}).then(ready);
      }
      return;
    }
    if (data?.type === "stage") {
      if (this.status === "booting" && ["python", "packages", "engine"].includes(data.stage)) this._setStage(data.stage);
      return;
    }
    if (data?.type === "boot-error") {
      this._failBoot(data.message);
      return;
    }
    if (data?.type === "fatal") {
      this._crash(String(data.message ?? "fatal error"), data.id ?? null);
      return;
    }
    const entry = this.pending.get(data?.id);
    if (!entry) return;
    let reply = null;
    try {
      reply = JSON.parse(data.reply);
    } catch {
      // below
    }
    if (typeof reply?.ok !== "boolean") {
      this._crash(t("FIREFIGHT.ui.engine.badReply", "its reply could not be read"), entry.id);
      return;
    }
    this.pending.delete(entry.id);
    this._startClock();
    if (reply.ok) entry.resolve(reply.value);
    else entry.reject(new EngineError(reply.error));
  }

  /** Time the call the worker works on now (the oldest one owed), unless it is timed already. */
  _startClock() {
    const head = this.pending.values().next().value;
    const clock = this._clock;
    if (clock && clock.id === head?.id && clock.worker === this.worker) return;
    clearTimeout(clock?.timer);
    this._clock = null;
    if (!head || this.status !== "ready") return;
    const worker = this.worker;
    const limit = this.timeLimitFor(head.op);
    this._clock = {
      id: head.id, worker,
      timer: setTimeout(() => {
        if (this.worker !== worker || this.pending.get(head.id) !== head) return;
        const n = seconds(limit);
        this._crash(t("FIREFIGHT.ui.engine.noAnswer", "no answer to “{op}” within {seconds} s", { op: head.op, seconds: n }), head.id,
          new EngineError({ code: "timeout", message: t("FIREFIGHT.ui.engine.callTimeout", "The Firefight engine did not answer “{op}” within {seconds} s and was stopped; try again.", { op: head.op, seconds: n }) }));
      }, limit),
    };
  }

  _stopWorker() {
    const worker = this.worker;
    this.worker = null;
    clearTimeout(this._bootTimer);
    clearTimeout(this._clock?.timer);
    this._clock = null;
    if (!worker) return;
    worker.onmessage = worker.onerror = worker.onmessageerror = null;
    try {
      worker.terminate?.();
    } catch {
      // already gone
    }
  }

  /**
   * The worker failed (`reason`): stop it, fail the call it failed over (`culpritId`, with
   * `culpritError` or `engine_crashed`), and start a new one for the others, each sent again once.
   */
  _crash(reason, culpritId = null, culpritError = null) {
    if (this.status !== "booting" && this.status !== "ready") return;
    this._stopWorker();
    console.warn(`Firefight | the engine worker stopped: ${reason}`);
    const crashed = (entry) => new EngineError({ code: "engine_crashed", message: t("FIREFIGHT.ui.engine.callCrashed", "The Firefight engine stopped while working on “{op}” ({reason}); try again.", { op: entry.op, reason }) });
    for (const entry of [...this.pending.values()]) {
      if (entry.id === culpritId || entry.retried) {
        this.pending.delete(entry.id);
        entry.reject(entry.id === culpritId && culpritError ? culpritError : crashed(entry));
      } else {
        entry.retried = true;
      }
    }
    const now = Date.now();
    this._restartTimes = this._restartTimes.filter((at) => now - at < this.restartWindowMs);
    if (this._restartTimes.length >= this.maxRestarts) {
      this._fail(t("FIREFIGHT.ui.engine.restartLimit", "The Firefight engine stopped {count} times within {seconds} s and is not started again (last: {reason}). Reload the page, or run game.modules.get(\"firefight\").api.engine.restart().", {
        count: this._restartTimes.length + 1, seconds: seconds(this.restartWindowMs), reason,
      }), "engine_failed");
      return;
    }
    this._restartTimes.push(now);
    this.restarts++;
    this._boot();
  }

  _failBoot(reason) {
    this._fail(t("FIREFIGHT.ui.engine.failed", "The Firefight engine failed to start: {reason}", { reason }), "boot_failed", reason);
  }

  /** Fail the engine (until restart()): every call owed and every later call gets `message`. */
  _fail(message, code, reason = message) {
    if (this.status === "failed") return; // the first reason stands
    this._stopWorker();
    this.bootError = reason;
    this.failure = new EngineError({ code, message });
    this._setStatus("failed");
    this._rejectReady?.(this.failure);
    for (const entry of this.pending.values()) entry.reject(this.failure);
    this.pending.clear();
  }

  /** Send one bridge op; resolves with `value`, rejects with EngineError. */
  call(op, payload = {}) {
    const id = this.nextId++;
    return this._send(op, { id, message: JSON.stringify({ op, ...payload }) });
  }

  /**
   * Load one wheel into the engine now (answered in turn, like a call) and into every worker
   * started later. Resolves {url, loaded, error}, or what `onWheel(that)` resolves (the module
   * sets it: report a failure, ask the engine to `rescan`, use the new catalog).
   */
  async loadWheel(url) {
    const href = String(url);
    if (!this.wheels.includes(href)) this.wheels.push(href);
    const id = this.nextId++;
    const loaded = await this._send("loadWheel", { id, type: "load-wheel", url: href });
    if (!loaded?.loaded) this.wheels = this.wheels.filter((w) => w !== href); // not again at a restart
    return this.onWheel ? this.onWheel(loaded) : loaded;
  }

  _send(op, post) {
    this.start();
    if (this.status === "failed") return Promise.reject(this.failure);
    const { id } = post;
    return new Promise((resolve, reject) => {
      const entry = { id, op, message: post.message, post, resolve, reject, retried: false };
      this.pending.set(id, entry);
      try {
        // The worker queues messages that arrive before Python is ready.
        this.worker.postMessage(post);
      } catch (err) {
        this._crash(err?.message ?? String(err));
        return;
      }
      this._startClock();
    });
  }

  /**
   * Stop the worker now. The calls it owed fail (`terminated`); the client is `idle` and the next
   * call starts a new worker (a failed engine too: this is the caller's own decision).
   */
  terminate() {
    this._stopWorker();
    const stopped = (op) => new EngineError({ code: "terminated", message: t("FIREFIGHT.ui.engine.terminated", "The Firefight engine was stopped before it answered “{op}”.", { op }) });
    if (this.status === "booting") this._rejectReady?.(stopped("start"));
    for (const entry of this.pending.values()) entry.reject(stopped(entry.op));
    this.pending.clear();
    this.bootError = null;
    this.failure = null;
    this._setStatus("idle");
  }

  /**
   * Start a new worker now, whatever the state (a failed engine too, e.g. after too many
   * restarts); the calls still owed are sent to it. Resolves when Python is ready.
   */
  restart() {
    this._stopWorker();
    this._restartTimes = [];
    this.bootError = null;
    this.failure = null;
    this.status = "idle";
    this._boot();
    return this.ready;
  }
}
