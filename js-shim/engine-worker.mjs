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
//        {type: "stage", stage}   how far the boot is: "python", "packages", "engine" (the
//                                 client shows it: js-shim/boot-status.mjs)
//        {type: "ready", version, pyodide, bootMs, stages, snapshot, wheelErrors: [{url, error}]}
//                                                     once, when Python is ready (wheelErrors:
//                                                     the plugin wheels that failed to load;
//                                                     stages: ms per stage; snapshot: "restored",
//                                                     "made" or "none", see the memory snapshot
//                                                     below)
//        {type: "snapshot", stored, bytes?, message?}  after "ready" when a snapshot was made:
//                                                     whether it was stored
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
  return response.json();
}

/** Tell the client how far the boot is (the Shoot dialog shows it): python | packages | engine. */
function stage(name) {
  self.postMessage({ type: "stage", stage: name });
}

// The memory snapshot (issue 17, "Boot"): the first boot in a browser saves Pyodide's memory
// after Python and the engine's pure-Python dependencies are imported, and a later boot restores
// it instead of starting Python again (Pyodide's loadPyodide options `_makeSnapshot` /
// `_loadSnapshot`, `pyodide.makeMemorySnapshot()`). Pyodide cannot snapshot a binary extension's
// load state (pyodide issue 6418: a snapshot taken after pydantic_core was loaded crashes in it on
// restore), so the snapshot is taken before any binary wheel is installed, and those are loaded
// after the restore. Kept in Cache Storage under the runtime's hash (manifest.json "runtime",
// tools/build_runtime.py): a rebuilt runtime never restores an old interpreter. A snapshot that
// is missing, stale or fails to restore means a plain boot (and a new snapshot).
const SNAPSHOT_CACHE = "firefight-engine-snapshot";
const snapshotKey = (hash) => new URL(`snapshot/${hash}.bin`, runtimeURL).href;
/** ms of each step of the last startPython (the ready message's `stages.steps`). */
const laps = {};
/** The snapshot to store once ready ({key, bytes}), or null. */
let newSnapshot = null;

async function cachedSnapshot(key) {
  try {
    const response = await (await self.caches.open(SNAPSHOT_CACHE)).match(key);
    return response ? new Uint8Array(await response.arrayBuffer()) : null;
  } catch (err) {
    console.warn("[firefight worker] the cached memory snapshot could not be read:", err);
    return null;
  }
}

/** Store the snapshot under `key`, and drop every other (a stale runtime's). */
async function storeSnapshot({ key, bytes }) {
  const cache = await self.caches.open(SNAPSHOT_CACHE);
  for (const request of await cache.keys()) if (request.url !== key) await cache.delete(request);
  await cache.put(key, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
}

async function forgetSnapshot(key) {
  try {
    await (await self.caches.open(SNAPSHOT_CACHE)).delete(key);
  } catch {
    // nothing cached, or no Cache Storage: nothing to forget
  }
}

// Imports, before the snapshot, the top-level modules of every installed distribution whose
// requirements are all installed (the binary wheels are not yet): the engine's pure-Python
// dependencies, without naming them. A module that fails to import is left to the engine's boot.
const PRELOAD_PY = `
import importlib, os, re, site
def _ff_preload():
    # dist-info files read as text: importlib.metadata would cost more than the imports it finds
    root = site.getsitepackages()[0]
    norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
    dists = {}
    for entry in os.listdir(root):
        if entry.endswith(".dist-info"):
            with open(f"{root}/{entry}/METADATA", encoding="utf-8") as f:
                head = f.read().split("\\n\\n", 1)[0]
            name = re.search(r"^Name: *(.+)$", head, re.M).group(1).strip()
            with open(f"{root}/{entry}/RECORD", encoding="utf-8") as f:
                tops = sorted({line.split("/")[0].split(",")[0].removesuffix(".py")
                               for line in f if line.split(",")[0].endswith(".py")
                               and ".dist-info/" not in line and ".data/" not in line})
            dists[norm(name)] = (re.findall(r"^Requires-Dist: *(.+)$", head, re.M), tops)
    verdict = {}
    def ok(name):
        if name not in verdict:
            verdict[name] = False
            deps = []
            for req in dists[name][0]:
                dep = norm(re.match(r"[A-Za-z0-9._-]+", req).group(0))
                if ";" in req and (dep not in dists or "extra" in req.split(";", 1)[1]):
                    continue
                deps.append(dep)
            verdict[name] = all(d in dists and ok(d) for d in deps)
        return verdict[name]
    for name, (_, tops) in dists.items():
        for top in tops if ok(name) else ():
            try:
                importlib.import_module(top)
            except Exception:
                pass
_ff_preload()
del _ff_preload
`;

/** Load wheels (URLs) with loadPackage; a wheel it could not load fails the boot. */
async function installWheels(urls) {
  const failures = [];
  await pyodide.loadPackage(urls, { messageCallback: () => {}, errorCallback: (m) => failures.push(m) });
  if (failures.length) throw new Error(`loading the engine's wheels: ${failures.join("; ")}`);
}

/** A wheel's bytes; a failure names its URL. */
async function fetchWheel(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`loading the engine's wheels: ${url}: ${err?.message ?? err}`, { cause: err });
  }
  if (!response.ok) throw new Error(`loading the engine's wheels: ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The pure wheels' bytes, fetched while Pyodide starts: url -> Promise<Uint8Array>. */
const wheelBodies = new Map();

/**
 * Unpack pure-Python wheels (URLs) into site-packages with Python's zipfile, as loadPackage
 * would, but leaving Pyodide no reference to a JavaScript object (a memory snapshot refuses
 * those: "Unexpected hiwire entry"). Fetched in parallel; a wheel that fails fails the boot.
 */
async function unpackWheels(urls) {
  const bodies = await Promise.all(urls.map((url) => wheelBodies.get(url) ?? fetchWheel(url)));
  for (const body of bodies) {
    pyodide.FS.writeFile("/tmp/firefight-wheel.whl", body);
    pyodide.runPython("import site, zipfile\nwith zipfile.ZipFile('/tmp/firefight-wheel.whl') as w: w.extractall(site.getsitepackages()[0])");
  }
  if (bodies.length) pyodide.FS.unlink("/tmp/firefight-wheel.whl");
}

/**
 * Pyodide with the engine's wheels installed: from `snapshot` when given (throws if it does not
 * restore), else a plain boot that also takes a snapshot when `key` is given.
 */
async function startPython(loadPyodide, wheelURLs, { snapshot = null, key = null } = {}) {
  const options = {
    indexURL, // pyodide.asm.mjs, pyodide.asm.wasm, python_stdlib.zip
    lockFileURL: new URL("pyodide-lock.json", indexURL).href,
    packageBaseUrl: indexURL,
  };
  if (snapshot) options._loadSnapshot = snapshot;
  else if (key) options._makeSnapshot = true;
  let t = performance.now();
  const lap = (name) => {
    const now = performance.now();
    laps[name] = Math.round(now - t);
    t = now;
  };
  pyodide = await Promise.race([wasmFailure, loadPyodide(options)]);
  lap("loadPyodide");
  stage("packages");
  if (!snapshot && !key) {
    await installWheels(wheelURLs);
    return;
  }
  // Binary wheels (a platform tag, not py3-none-any) only after the snapshot (pyodide issue 6418).
  const pure = wheelURLs.filter((url) => url.endsWith("-none-any.whl"));
  // The files of the snapshot's site-packages are gone after a restore (Emscripten keeps its
  // file system in JavaScript, outside the snapshot): unpacked again.
  await unpackWheels(pure);
  lap("unpack");
  if (!snapshot) {
    try {
      pyodide.runPython(PRELOAD_PY);
      lap("preload");
      newSnapshot = { key, bytes: pyodide.makeMemorySnapshot() };
      lap("snapshot");
    } catch (err) {
      console.warn("[firefight worker] no memory snapshot:", err);
    }
  }
  await installWheels(wheelURLs.filter((url) => !pure.includes(url)));
  lap("binary");
}

async function boot() {
  const started = performance.now();
  stage("python");
  // The manifest, then the cached snapshot, in parallel with importing Pyodide's loader.
  const lookup = fetchManifest().then(async (manifest) => {
    // No Cache Storage (a page outside a secure context), or no runtime hash: no snapshot.
    const key = self.caches && manifest.runtime ? snapshotKey(manifest.runtime) : null;
    const wheelURLs = manifest.wheels.map((name) => new URL(name, wheelsURL).href);
    if (key) { // the snapshot's boot unpacks the pure wheels itself: fetched meanwhile
      for (const url of wheelURLs.filter((u) => u.endsWith("-none-any.whl"))) {
        const body = fetchWheel(url);
        body.catch(() => {}); // awaited when unpacked
        wheelBodies.set(url, body);
      }
    }
    return { key, wheelURLs, snapshot: key ? await cachedSnapshot(key) : null };
  });
  lookup.catch(() => {}); // awaited below; don't report it as unhandled meanwhile
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  const { key, wheelURLs, snapshot } = await lookup;
  const tLookup = performance.now();
  let restored = false;
  if (snapshot) {
    try {
      await startPython(loadPyodide, wheelURLs, { snapshot });
      pyodide.runPython("import sys");
      restored = true;
    } catch (err) {
      console.warn("[firefight worker] the memory snapshot did not restore; booting without it:", err);
      await forgetSnapshot(key);
    }
  }
  if (!restored) {
    if (snapshot) stage("python"); // again, after the snapshot failed
    await startPython(loadPyodide, wheelURLs, { key });
  }
  wheelBodies.clear();
  const tPython = performance.now();
  // Plugin wheels (other modules' flags.firefight.wheels), before the engine first reads its
  // entry points; one that fails is reported with the ready message, the engine boots anyway.
  let wheelErrors = await loadWheels(pluginWheels);

  stage("engine");
  const tWheels = performance.now();
  let bridge;
  try {
    bridge = pyodide.pyimport("firefight.bridge");
  } catch (err) {
    if (!restored) throw err;
    // The restored interpreter cannot import the engine: forget the snapshot, boot without it.
    console.warn("[firefight worker] the engine did not import after the memory snapshot; booting without it:", err);
    await forgetSnapshot(key);
    restored = false;
    stage("python");
    await startPython(loadPyodide, wheelURLs, { key });
    wheelErrors = await loadWheels(pluginWheels);
    stage("engine");
    bridge = pyodide.pyimport("firefight.bridge");
  }
  const version = pyodide.runPython("import firefight; firefight.__version__");
  handle = bridge.handle;
  const end = performance.now();
  const stages = { lookup: Math.round(tLookup - started), python: Math.round(tPython - started), plugins: Math.round(tWheels - tPython), engine: Math.round(end - tWheels), steps: laps };
  const snapshotState = restored ? "restored" : newSnapshot ? "made" : "none";
  return { version, pyodide: pyodide.version, bootMs: Math.round(end - started), stages, snapshot: snapshotState, wheelErrors };
}

boot().then(
  (info) => {
    self.postMessage({ type: "ready", ...info });
    // Stored after "ready", while the engine answers: it delays no call.
    if (newSnapshot) {
      const { bytes } = newSnapshot;
      storeSnapshot(newSnapshot).then(
        () => self.postMessage({ type: "snapshot", stored: true, bytes: bytes.length }),
        (err) => {
          console.warn("[firefight worker] the memory snapshot could not be stored:", err);
          self.postMessage({ type: "snapshot", stored: false, message: String(err?.message ?? err) });
        },
      );
      newSnapshot = null;
    }
  },
  (err) => {
    bootError = String(err?.message ?? err);
    console.error("[firefight worker] boot failed:", err);
    self.postMessage({ type: "boot-error", message: bootError });
  },
).finally(() => {
  // Answer what arrived while booting, in order (with results, or boot_failed errors).
  for (const data of queue.splice(0)) inTurn(data);
});
