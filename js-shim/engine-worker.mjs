// The engine's Web Worker: boots Pyodide, installs the engine's wheels, answers bridge messages.
// Start it as a module worker: new Worker(new URL("engine-worker.mjs", import.meta.url), {type: "module"})
//
// Protocol (docs/architecture.md, "Worker protocol"):
//   in:  {id, message}          message: a JSON string for firefight.bridge.handle
//   out: {id, reply}            reply: the JSON string handle() returned
//   in:  {type: "wheels", urls}  plugin wheels to load at boot, after the engine's own (sent by the
//                               client right after it starts the worker)
//   in:  {id, type: "load-wheel", url}   load one wheel now (answered in turn like a bridge call)
//   out: {id, reply}            reply: {"ok": true, "value": {"url", "loaded": bool, "error"}}
//        {type: "ready", version, pyodide, bootMs, wheelErrors: [{url, error}]}
//                                                     once, when Python is ready (wheelErrors:
//                                                     the plugin wheels that failed to load)
//        {type: "boot-error", message}                once, if booting failed
//        {type: "fatal", id?, message}                Pyodide broke (while answering `id`): the
//                                                     worker answers nothing more; replace it
//   in:  {type: "watch", lock}  hold the Web Lock `lock` while this worker lives
//   out: {type: "watching"}     it is held (the client waits for it: granted = this worker ended)
// Messages that arrive while booting are queued and answered once boot ends, one at a time, in
// order. After a failed boot every message is answered {"ok": false, "error": {"code":
// "boot_failed", ...}}. A plugin wheel that fails to load is reported, never fails the boot.
//
// Every URL derives from import.meta.url (the module's folder is served at
// /modules/firefight/ in Foundry): Pyodide, its lockfile, the stdlib and every wheel come from
// ../runtime/, nothing from a CDN. packageBaseUrl points there too, so even a package
// requested by name could only ever be looked for locally.

const runtimeURL = new URL("../runtime/", import.meta.url);
const indexURL = new URL("pyodide/", runtimeURL).href;
const wheelsURL = new URL("wheels/", runtimeURL);

// Compiling the WebAssembly: Pyodide compiles pyodide.asm.wasm with
// WebAssembly.instantiateStreaming(fetch(url)) and, when that throws, only logs "wasm
// instantiation failed!" and waits for ever (node_modules/pyodide/pyodide.mjs,
// getInstantiateWasmFunc). Streaming needs the response's MIME type to be application/wasm, which
// not every server sends. So: stream only a response served as application/wasm, and compile any
// other from its bytes (WebAssembly.instantiate), as Pyodide does where streaming is unavailable;
// a response that is not ok, or bytes that do not compile, fail the boot with a clear message.
let rejectWasm = null;
const wasmFailure = new Promise((_, reject) => (rejectWasm = reject));
wasmFailure.catch(() => {}); // raced in boot(); never reported as unhandled meanwhile
const instantiateStreaming = WebAssembly.instantiateStreaming?.bind(WebAssembly);

async function instantiateFromResponse(source, imports) {
  let response;
  try {
    response = await source;
  } catch (err) { // a network error: fail the boot naming the file, as for a bad response
    const failure = new Error(`runtime/pyodide/pyodide.asm.wasm: ${err?.message ?? err}`, { cause: err });
    rejectWasm(failure);
    throw failure;
  }
  const where = String(response.url || "WebAssembly module").replace(/^.*?\/runtime\//, "runtime/");
  try {
    if (!response.ok) throw new Error(`${where}: HTTP ${response.status}`);
    const mime = (response.headers.get("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
    if (instantiateStreaming && mime === "application/wasm") {
      try {
        return await instantiateStreaming(response, imports);
      } catch (err) {
        console.warn(`[firefight worker] streaming compile of ${where} failed (${err?.message ?? err}); compiling its bytes`);
        response = await fetch(response.url);
        if (!response.ok) throw new Error(`${where}: HTTP ${response.status}`, { cause: err });
      }
    } else {
      console.warn(`[firefight worker] ${where} is served as "${mime || "no type"}", not application/wasm: compiling its bytes`);
    }
    return await WebAssembly.instantiate(await response.arrayBuffer(), imports);
  } catch (err) {
    const text = String(err?.message ?? err);
    const failure = new Error(text.startsWith(where) ? text : `compiling ${where}: ${text}`);
    rejectWasm(failure);
    throw failure;
  }
}
WebAssembly.instantiateStreaming = instantiateFromResponse;

/** The booted Pyodide (exported for tests/pyodide/engine-test-worker.mjs, which wraps this file). */
export let pyodide = null;
let handle = null; // firefight.bridge.handle, once booted
let bootError = null; // the boot failure's message, if booting failed
let broken = null; // why the interpreter can no longer be trusted (a Pyodide fatal error)
const queue = []; // [{id, message}] received while booting
const pluginWheels = []; // plugin wheel URLs to load at boot ({type: "wheels"})
let turn = Promise.resolve(); // answers are given one at a time, in order (a wheel load is async)

function errorReply(code, message) {
  return JSON.stringify({ ok: false, error: { code, message, fields: [] } });
}

/**
 * Why Pyodide can no longer be used, or null. A fatal error (a stack overflow in WebAssembly is a
 * RangeError; Pyodide reports "Pyodide has suffered a fatal error") marks the error it throws
 * `pyodide_fatal_error` and replaces every function of Pyodide's public API with a getter that
 * throws "Pyodide already fatally failed and can no longer be used" (node_modules/pyodide,
 * `API.fatal_error`). A PyProxy such as `handle` may still run afterwards, on broken state: a
 * second fatal error only logs "Recursive call to fatal_error" and `handle` returns undefined
 * (reliability audit D7). So every call checks the API before and after, and checks its reply.
 */
function fatalReason(err = null, reply = "") {
  if (err?.pyodide_fatal_error || err instanceof RangeError) return String(err?.message ?? err);
  try {
    void pyodide.runPython; // a throwing getter once Pyodide fatally failed
  } catch (e) {
    return String(e?.message ?? e);
  }
  if (typeof reply !== "string") return `firefight.bridge.handle returned ${typeof reply}, not a string (Pyodide is broken)`;
  return null;
}

/** Report the interpreter broken (while answering `id`, if known) and answer nothing more. */
function fatal(id, reason) {
  broken = reason;
  console.error("[firefight worker] Pyodide can no longer be used:", reason);
  self.postMessage({ type: "fatal", ...(id === undefined ? {} : { id }), message: `Pyodide fatal error: ${reason}` });
}

/**
 * Load wheels into Pyodide, each on its own so a failure is named by its URL: loadPackage
 * reports a wheel it could not load (a 404, a bad archive) through errorCallback, without
 * throwing. -> [{url, error}] of those that failed.
 */
async function loadWheels(urls) {
  const failures = [];
  for (const url of urls) {
    const errors = [];
    try {
      await pyodide.loadPackage([url], { messageCallback: () => {}, errorCallback: (m) => errors.push(String(m)) });
    } catch (err) {
      errors.push(String(err?.message ?? err));
    }
    if (errors.length) failures.push({ url, error: errors.join("; ") });
  }
  return failures;
}

async function answerLoadWheel({ id, url }) {
  const [failure] = await loadWheels([String(url)]);
  const value = { url: String(url), loaded: !failure, error: failure?.error ?? null };
  self.postMessage({ id, reply: JSON.stringify({ ok: true, value }) });
}

function answer(data) {
  const { id, message } = data;
  if (broken !== null) return; // the client replaces this worker
  if (data.type === "load-wheel" && bootError === null) return answerLoadWheel(data);
  let reply;
  if (bootError !== null) {
    reply = errorReply("boot_failed", `The Firefight engine failed to start: ${bootError}`);
  } else {
    const before = fatalReason();
    if (before) return fatal(undefined, before); // broken before this call: not its fault
    try {
      reply = handle(String(message)); // never raises by contract; guard anyway
    } catch (err) {
      const why = fatalReason(err);
      if (why) return fatal(id, why);
      reply = errorReply("internal_error", String(err?.message ?? err));
    }
    const why = fatalReason(null, reply);
    if (why) return fatal(id, why);
  }
  self.postMessage({ id, reply });
}

/**
 * Hold the Web Lock `lock` for as long as this worker lives. The browser releases a worker's locks
 * when it ends for any reason (terminate(), close(), a crash), which is how the client learns of
 * an end that fires no event (W3C Web Locks API; navigator.locks needs a secure context).
 */
function watch(lock) {
  const held = () => {
    self.postMessage({ type: "watching" });
    return new Promise(() => {}); // never released by us
  };
  self.navigator?.locks?.request(String(lock), held).catch(() => {});
}

/** Answer in turn: after every answer owed before it (a wheel load is awaited). */
function inTurn(data) {
  turn = turn.then(() => answer(data)).catch((err) => console.error("[firefight worker]", err));
}

self.onmessage = (event) => {
  const data = event.data ?? {};
  if (data.type === "watch") watch(data.lock);
  else if (data.type === "wheels") pluginWheels.push(...(Array.isArray(data.urls) ? data.urls.map(String) : []));
  else if (handle === null && bootError === null) queue.push(data);
  else inTurn(data);
};

async function fetchManifest() {
  let response;
  try {
    response = await fetch(new URL("manifest.json", wheelsURL), { cache: "no-cache" });
  } catch (err) { // a network error names no URL ("Failed to fetch"): say which file
    throw new Error(`runtime/wheels/manifest.json: ${err?.message ?? err}`, { cause: err });
  }
  if (!response.ok) throw new Error(`runtime/wheels/manifest.json: HTTP ${response.status}`);
  return (await response.json()).wheels;
}

async function boot() {
  const started = performance.now();
  const manifest = fetchManifest(); // in parallel with Pyodide's own boot
  manifest.catch(() => {}); // awaited below; don't report it as unhandled meanwhile
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  pyodide = await Promise.race([wasmFailure, loadPyodide({
    indexURL, // pyodide.asm.mjs, pyodide.asm.wasm, python_stdlib.zip
    lockFileURL: new URL("pyodide-lock.json", indexURL).href,
    packageBaseUrl: indexURL,
  })]);

  // loadPackage reports a wheel it could not load through errorCallback, without throwing.
  const wheels = await manifest;
  const failures = [];
  await pyodide.loadPackage(
    wheels.map((name) => new URL(name, wheelsURL).href),
    { messageCallback: () => {}, errorCallback: (m) => failures.push(m) },
  );
  if (failures.length) throw new Error(`loading the engine's wheels: ${failures.join("; ")}`);
  // Plugin wheels (other modules' flags.firefight.wheels), before the engine first reads its
  // entry points; one that fails is reported with the ready message, the engine boots anyway.
  const wheelErrors = await loadWheels(pluginWheels);

  const bridge = pyodide.pyimport("firefight.bridge");
  const version = pyodide.runPython("import firefight; firefight.__version__");
  handle = bridge.handle;
  return { version, pyodide: pyodide.version, bootMs: Math.round(performance.now() - started), wheelErrors };
}

boot().then(
  (info) => self.postMessage({ type: "ready", ...info }),
  (err) => {
    bootError = String(err?.message ?? err);
    console.error("[firefight worker] boot failed:", err);
    self.postMessage({ type: "boot-error", message: bootError });
  },
).finally(() => {
  // Answer what arrived while booting, in order (with results, or boot_failed errors).
  for (const data of queue.splice(0)) inTurn(data);
});
