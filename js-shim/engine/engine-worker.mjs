// The engine's Web Worker: boots Pyodide, installs the engine's packages, answers bridge messages.
// Start it as a module worker: new Worker(new URL("engine-worker.mjs", import.meta.url), {type: "module"})
//
// Protocol (docs/architecture.md, "Worker protocol"):
//   in:  {id, message}          message: a JSON string for firefight.bridge.handle
//   out: {id, reply}            reply: the JSON string handle() returned
//   in:  {type: "wheels", urls}  plugin wheels to load at boot, after the engine's own (sent by the
//                               client right after it starts the worker)
//   in:  {type: "ruleset", id}  the world's ruleset: imported ahead once the worker is idle after
//                               "ready" (sent by the client with the wheels; "": the default)
//   in:  {id, type: "load-wheel", url}   load one wheel now (answered in turn like a bridge call)
//   out: {id, reply}            reply: {"ok": true, "value": {"url", "loaded": bool, "error"}}
//        {type: "stage", stage}   how far the boot is: "python", "packages", "engine" (the
//                                 client shows it: js-shim/engine/boot-status.mjs)
//        {type: "ready", version, pyodide, bootMs, stages, snapshot, wheelErrors: [{url, error, status?}]}
//                                                     once, when Python is ready (wheelErrors:
//                                                     the plugin wheels that failed to load, status: a missing one's HTTP status;
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
// /modules/firefight/ in Foundry): Pyodide, its lockfile, the stdlib and the engine's packages come from
// ../runtime/, nothing from a CDN. packageBaseUrl points there too, so even a package
// requested by name could only ever be looked for locally.

import { linkState, relink, restoring } from "./snapshot-link.mjs";
import {
  MAX_RESTORE_FAILURES, canStore, forgetFailures, forgetSnapshot, noteFailure, readFailures, readSnapshot, writeHeap,
  writeSnapshot,
} from "./snapshot-store.mjs";
import { compactFiles, compileLibraries, inflateSite, siteFiles, writeFiles } from "./site-bundle.mjs";

const runtimeURL = new URL("../../runtime/", import.meta.url);
const indexURL = new URL("pyodide/", runtimeURL).href;
const wheelsURL = new URL("wheels/", runtimeURL);
const siteURL = new URL("site-packages.bin", wheelsURL).href; // tools/build_runtime.py SITE_BUNDLE

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

// And compiled from the worker's first moment: pyodide.asm.wasm is fetched and compiled while
// Pyodide's loader, the manifest, the engine's packages and the memory snapshot load, instead of once
// loadPyodide asks for it (issue 17, "Boot levers"). Pyodide's own request for it (made when
// loadPyodide starts) is answered without a second download: an empty stand-in once the module is
// compiled, else this response, unread, for the checks below (or, after a network error, a new
// request, whose failure they report).
const wasmURL = new URL("pyodide/pyodide.asm.wasm", runtimeURL).href;
const networkFetch = self.fetch.bind(self);
let earlyResponse = null; // the early response when it was not compiled here: handed over once
const earlyWasm = (async () => {
  const response = await networkFetch(wasmURL, { priority: "high" });
  const mime = (response.headers.get("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
  if (!response.ok || !instantiateStreaming || mime !== "application/wasm") {
    earlyResponse = response;
    return null;
  }
  return await WebAssembly.compileStreaming(response);
})().catch(() => null);
// Pyodide's standard library and lockfile too: requested now, with high priority, and handed
// to loadPyodide's first request for them (a later loadPyodide, after a snapshot that did not
// restore, requests them again). Where a server makes every request revalidate (the sandbox
// sends `no-cache`) each costs a round trip, and a browser opens six connections to a host.
const earlyFetches = new Map(["python_stdlib.zip", "pyodide-lock.json"].map((name) => {
  const url = new URL(`pyodide/${name}`, runtimeURL).href;
  const response = networkFetch(url, { priority: "high" });
  response.catch(() => {}); // a failure is Pyodide's to report, when it asks
  return [url, response];
}));
self.fetch = async (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  const early = earlyFetches.get(url);
  if (early) {
    earlyFetches.delete(url);
    return early;
  }
  if (url !== wasmURL) return networkFetch(input, init);
  if (await earlyWasm) return new Response(null, { headers: { "Content-Type": "application/wasm" } });
  const response = earlyResponse;
  earlyResponse = null;
  return response ?? networkFetch(input, init);
};

async function instantiateFromResponse(source, imports) {
  const compiled = await earlyWasm;
  if (compiled) return { module: compiled, instance: await WebAssembly.instantiate(compiled, imports) };
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

// Plugin wheels are installed with micropip (the version Pyodide's lockfile names, shipped in
// runtime/pyodide/ by tools/build_runtime.py, manifest.json "micropip"), so each wheel's
// Requires-Dist is read and met, or the wheel refused naming what it needs. Requirements resolve
// only from what is installed and the other wheels the world's modules declare (given as
// constraints "<name> @ <url>"): no index (index_urls []) and not Pyodide's lockfile (a
// compatibility layer whose lockfile is empty: runtime/pyodide holds none of its packages).
const INSTALLER = `
import micropip
from micropip._compat import compatibility_layer
from micropip.package_manager import PackageManager

class _Served(compatibility_layer):
    lockfile_packages = {}

_firefight_installer = PackageManager(_Served)

def _firefight_has(name, version):
    """Whether distribution name is installed at version (a served library another wheel
    required is installed once)."""
    from importlib import metadata
    try:
        return metadata.version(name) == version
    except metadata.PackageNotFoundError:
        return False

def _firefight_unmet(wheel_name):
    """The Requires-Dist of an installed wheel's distribution that the installed versions do not
    meet (a constraint "<name> @ <url>" takes the served wheel whatever version was asked)."""
    from importlib import metadata
    from micropip._vendored.packaging.src.packaging.requirements import Requirement
    from micropip._vendored.packaging.src.packaging.utils import canonicalize_name
    want = canonicalize_name(wheel_name)
    dist = next((d for d in metadata.distributions()
                 if canonicalize_name(d.metadata["Name"] or "") == want), None)
    unmet = []
    for text in (dist.requires or []) if dist else []:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            unmet.append(f"{text} (not installed)")
            continue
        if not req.specifier.contains(have, prereleases=True):
            unmet.append(f"{text} ({req.name} {have} is what is installed or served)")
    return unmet
`;
let installer = null; // the PackageManager above, once micropip is loaded

/** micropip loaded from runtime/pyodide/ and the installer made (once). */
async function micropipInstaller() {
  if (installer) return installer;
  const { micropip } = await fetchManifest();
  if (typeof micropip !== "string" || !micropip.endsWith(".whl")) {
    throw new Error("runtime/wheels/manifest.json names no micropip wheel: rebuild the runtime (make runtime)");
  }
  const errors = [];
  await pyodide.loadPackage([new URL(micropip, indexURL).href], { messageCallback: () => {}, errorCallback: (m) => errors.push(String(m)) });
  if (errors.length) throw new Error(`runtime/pyodide/${micropip}: ${errors.join("; ")}`);
  await pyodide.runPythonAsync(INSTALLER);
  installer = pyodide.globals.get("_firefight_installer");
  return installer;
}

/** Pure: a wheel URL's distribution name (PEP 427 file name, PEP 503 normalised), or null. */
export function wheelDist(url) {
  const file = decodeURIComponent(String(url).split(/[?#]/)[0].split("/").pop() ?? "");
  const m = /^([A-Za-z0-9_.]+)-[^-]+-.+\.whl$/.exec(file);
  return m ? m[1].toLowerCase().replace(/[-_.]+/g, "-") : null;
}

/** Pure: a wheel URL's version (PEP 427 file name), or null. */
export function wheelVersion(url) {
  const file = decodeURIComponent(String(url).split(/[?#]/)[0].split("/").pop() ?? "");
  return /^[A-Za-z0-9_.]+-([^-]+)-.+\.whl$/.exec(file)?.[1] ?? null;
}

/** Pure: micropip's refusal said plainly: the requirement it could not meet, from where it looks. */
function installError(err) {
  const text = String(err?.message ?? err).trim();
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  const last = lines.findLast?.((l) => /Error:/.test(l)) ?? lines.at(-1) ?? text;
  const missing = /Can't find a pure Python 3 wheel for: (.*)/.exec(text);
  if (missing) return `requires ${missing[1]}, which neither the engine nor any active module's wheels provide`;
  const clash = /Requested '([^']+)', but (\S+) is already installed/.exec(text);
  if (clash) return `requires ${clash[1]}, but ${clash[2]} is installed`;
  return last.replace(/^\w*Error:\s*/, "");
}

/**
 * Install wheels into Pyodide with micropip, each on its own so a failure is named by its URL;
 * a requirement is met from `served` (every plugin wheel the world's modules declare) or what is
 * installed, never from an index. -> [{url, error}] of those that failed.
 */
async function loadWheels(urls, served = urls) {
  const failures = [];
  if (!urls.length) return failures;
  let manager;
  try {
    manager = await micropipInstaller();
  } catch (err) {
    return urls.map((url) => ({ url, error: String(err?.message ?? err) }));
  }
  for (const url of urls) {
    const dist = wheelDist(url);
    const constraints = served.filter((u) => u !== url && wheelDist(u) && wheelDist(u) !== dist)
      .map((u) => `${wheelDist(u)} @ ${u}`);
    if (dist && pyodide.globals.get("_firefight_has")(dist, wheelVersion(url))) continue;
    const lists = [pyodide.toPy([]), pyodide.toPy(constraints)]; // Python lists, not JS arrays
    try {
      await manager.install.callKwargs(url, { deps: true, keep_going: false, index_urls: lists[0], constraints: lists[1] });
      const unmet = dist ? pyodide.globals.get("_firefight_unmet")(dist).toJs() : [];
      if (unmet.length) {
        await manager.uninstall(dist); // not discovered: its requirement is not met
        failures.push({ url, error: `requires ${unmet.join(", ")}` });
      }
    } catch (err) {
      // A wheel the server does not have reaches micropip as a page of its own ("File is not a
      // zip file"): said as what it is, with the HTTP status (issue 26 item 3).
      const status = await missingStatus(url);
      failures.push(status ? { url, status, error: wheelMissingText(url, status) } : { url, error: installError(err) });
    } finally {
      for (const list of lists) list.destroy();
    }
  }
  return failures;
}

/** The HTTP status of a wheel URL the server does not answer with the file, else null. */
async function missingStatus(url) {
  try {
    const response = await fetch(url, { cache: "no-cache" });
    response.body?.cancel?.().catch?.(() => {});
    return response.ok ? null : response.status;
  } catch {
    return null; // unreachable: micropip's own error says it
  }
}

/** Pure: a wheel the server answered `status` for, said plainly. */
export function wheelMissingText(url, status) {
  return `wheel ${url} ${status === 404 || status === 410 ? "not found" : "could not be fetched"} (HTTP ${status})`;
}

async function answerLoadWheel({ id, url }) {
  const [failure] = await loadWheels([String(url)], [...pluginWheels, String(url)]);
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
  inFlight += 1;
  turn = turn.then(() => answer(data)).catch((err) => console.error("[firefight worker]", err))
    .finally(() => (inFlight -= 1));
}
let inFlight = 0; // calls received and not yet answered

// What a player's first shot would wait for, loaded ahead (firefight.bridge.warm_up): Jinja2
// and the card module, which the engine loads on first use (tests/engine/test_lazy_boot.py,
// ~100 ms), and the world's ruleset ({type: "ruleset"}), which the engine imports on its first
// request (issue 27: ~0.4 s in Pyodide). A boot that makes the memory snapshot loads them before
// taking it (importEngine), so every return restores them; `ready` comes ~0.5 s later on that
// first visit, and its first shot no later. Once booted and idle, again: a restored or
// snapshot-less boot, or another world's ruleset, loads them then. Never while a call waits:
// one that arrives meanwhile waits at most the warm-up.
let warmedUp = false;
let worldRuleset = ""; // {type: "ruleset", id}: the world's ruleset ("": the engine's default)
let bridgeModule = null; // firefight.bridge, once booted

/** firefight.bridge.warm_up of the world's ruleset; a failure is only logged. */
function warmUp(bridge) {
  try {
    bridge.warm_up(worldRuleset);
  } catch (err) {
    console.warn("[firefight worker] could not load the card module and the ruleset ahead:", err);
  }
}

function warmUpWhenIdle(ms = 300) {
  setTimeout(() => {
    if (warmedUp || broken !== null || bootError !== null) return;
    if (inFlight) return warmUpWhenIdle(ms);
    warmedUp = true;
    warmUp(bridgeModule);
    // The site files in a buffer of their own, without the libraries Python has loaded (issue
    // 27), once a snapshot made has been stored (it reads the bundle).
    storing.then(() => {
      if (!written) return;
      try {
        compactFiles(written.FS, written.root, written.files);
      } catch (err) {
        console.warn("[firefight worker] could not compact the site files:", err);
      }
      written = null;
    });
  }, ms);
}

self.onmessage = (event) => {
  const data = event.data ?? {};
  if (data.type === "watch") watch(data.lock);
  else if (data.type === "wheels") pluginWheels.push(...(Array.isArray(data.urls) ? data.urls.map(String) : []));
  else if (data.type === "ruleset") worldRuleset = typeof data.id === "string" ? data.id.slice(0, 200) : "";
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
// once the engine is imported, and a later boot restores it instead of starting Python and
// importing the engine again (Pyodide's loadPyodide options `_makeSnapshot` / `_loadSnapshot`,
// `pyodide.makeMemorySnapshot()`). The snapshot holds pydantic_core, a binary extension, which
// Pyodide cannot restore by itself (pyodide issue 6418): js-shim/engine/snapshot-link.mjs records how it
// was linked and links it again after the restore. Kept in the Origin Private File System
// (js-shim/engine/snapshot-store.mjs) under the runtime's hash (manifest.json "runtime",
// tools/build_runtime.py): a rebuilt runtime never restores an old interpreter. A snapshot that
// is missing, stale or fails to restore means a plain boot (and a new snapshot).
/** ms of each step of the last startPython (the ready message's `stages.steps`). */
const laps = {};
/** A plain boot's binary extensions compiled meanwhile (site-bundle.mjs `compileLibraries`). */
let libraries = null;
/** The snapshot to store once ready ({key, snapshot, link, site}), or null. */
let newSnapshot = null;
/** The site files as written ({FS, root, files}: js-shim/engine/site-bundle.mjs), until compacted. */
let written = null;
/** Settles once the snapshot made is stored (or failed to be): its site bundle is read till then. */
let storing = Promise.resolve();

/** The engine's site-packages (js-shim/engine/site-bundle.mjs), inflated, or a failure naming it. */
async function fetchSite(url) {
  const where = String(url).replace(/^.*\/runtime\//, "runtime/");
  let response;
  try {
    response = await fetch(url, { priority: "high" });
  } catch (err) {
    throw new Error(`${where}: ${err?.message ?? err}`, { cause: err });
  }
  if (!response.ok) throw new Error(`${where}: HTTP ${response.status}`);
  return inflateSite(new Uint8Array(await response.arrayBuffer()), where);
}

// After a restore: Python's cyclic GC back on (off in the snapshot, js-shim/engine/snapshot-link.mjs),
// and pydantic_core called once, so a library that did not link fails here, not in a shot.
const RELINKED_PY = `
__import__("gc").enable()
from pydantic_core import SchemaValidator as _ff_v
assert _ff_v({"type": "int"}).validate_python("7") == 7
del _ff_v
`;

// Before the snapshot: no file left open in it. The entry-point scan (registry.discover) reads
// the standard library's zip through importlib.metadata, whose path cache keeps that ZipFile
// open; restored, its descriptor is not in the new file system, and when the cache is cleared
// (micropip does, installing a plugin wheel) closing it logged "Exception ignored ...
// ZipFile.__del__ ... Bad file descriptor" (issue 26 item 4). The cache cleared and the zip
// closed here; then Python's cyclic GC off (snapshot-link.mjs).
const BEFORE_SNAPSHOT_PY = `
import gc as _ff_gc, importlib.metadata as _ff_md
_ff_md.MetadataPathFinder.invalidate_caches()
_ff_gc.collect()
_ff_gc.disable()
del _ff_gc, _ff_md
`;

/**
 * Pyodide with the engine's packages in site-packages: restored from `snapshot` ({parts},
 * js-shim/engine/snapshot-store.mjs) when given (throws if it does not restore, or is not the runtime
 * `manifest` names), else a plain boot, ready for making a snapshot when `makeSnapshot`, with the
 * files of `site` (the inflated site bundle). -> the function table's length when Pyodide had started
 * (js-shim/engine/snapshot-link.mjs `linkState`).
 */
async function startPython({ loadPyodide, loader }, { snapshot = null, manifest = null, makeSnapshot = false, site = null }) {
  const options = {
    indexURL, // pyodide.asm.wasm, python_stdlib.zip
    lockFileURL: new URL("pyodide-lock.json", indexURL).href,
    packageBaseUrl: indexURL,
    createPyodideModule: async (settings) => (await loader).default(settings), // pyodide.asm.mjs
  };
  let files;
  let compiled = null;
  if (snapshot) {
    Object.assign(options, restoring(loader, snapshot.parts.then((parts) => parts.snapshot), writeHeap));
    files = snapshot.parts.then((parts) => siteFiles(parts.site));
    compiled = files.then(compileLibraries); // its binary extensions, linked again below
    compiled.catch(() => {});
  } else {
    files = site.then((all) => siteFiles(all));
    if (makeSnapshot) options._makeSnapshot = true;
    // pydantic-core's WebAssembly compiled while Pyodide starts (issue 27), not when the engine's
    // import loads it: that import compiles it again from its file, which V8 answers with this
    // module (it keeps one compiled module per distinct bytes while one is alive).
    libraries = files.then(compileLibraries);
    libraries.catch(() => {});
  }
  files.catch(() => {}); // awaited when they are written, below
  let t = performance.now();
  const lap = (name) => {
    const now = performance.now();
    laps[name] = Math.round(now - t);
    t = now;
  };
  // The files are not in a snapshot (Emscripten keeps its file system in JavaScript): always
  // written, from the bundle inflated meanwhile or kept with the snapshot. A restore writes them
  // as soon as Pyodide has a file system (loadPyodide's `fsInit`, while its standard library
  // still downloads); a plain boot once Python runs (files there before Python starts would be
  // listed in Pyodide's loadedPackages, a JavaScript object a snapshot refuses).
  let unwritten = null; // why the files could not be written (Pyodide drops an fsInit's error)
  const write = async (FS, root) => {
    const t0 = performance.now();
    try {
      written = { FS, root, files: await files };
      writeFiles(FS, root, written.files);
    } catch (err) {
      unwritten = err;
    }
    laps.files = Math.round(performance.now() - t0);
  };
  if (snapshot) options.fsInit = (FS, { sitePackages }) => write(FS, sitePackages);
  pyodide = await Promise.race([wasmFailure, loadPyodide(options)]);
  const table = pyodide._module.wasmTable.length;
  lap("loadPyodide");
  if (!snapshot) await write(pyodide.FS, pyodide._api.sitePackages);
  if (unwritten) throw unwritten;
  if (snapshot && (await manifest).runtime !== (await snapshot.parts).key) {
    throw Object.assign(new Error("the snapshot is another runtime's"), { stale: true });
  }
  stage("packages");
  if (snapshot) {
    relink(pyodide, (await snapshot.parts).link, await compiled);
    pyodide.runPython(RELINKED_PY);
    lap("relink");
  }
  return table;
}

/**
 * The engine imported; when `key` is given, the memory snapshot taken then (newSnapshot, stored
 * once ready with `site`, the inflated site bundle).
 */
async function importEngine(key, table, site) {
  const t0 = performance.now();
  const compiled = await libraries?.catch(() => null); // kept alive until the import is done
  if (compiled) laps.libraries = Math.round(performance.now() - t0); // waited for their compile
  const t = performance.now();
  const bridge = pyodide.pyimport("firefight.bridge");
  libraries = null;
  void compiled;
  laps.engine = Math.round(performance.now() - t);
  if (key) {
    try {
      const link = linkState(pyodide, table);
      const files = await site; // inflated by now: its files are written
      // The world's ruleset and the card module in the snapshot (warmUpWhenIdle): a return
      // answers its first shot without importing them (~1.2 s of CPU less per boot, issue 27).
      const warm = performance.now();
      warmUp(bridge);
      laps.warm = Math.round(performance.now() - warm);
      pyodide.runPython(BEFORE_SNAPSHOT_PY);
      try {
        newSnapshot = { key, snapshot: pyodide.makeMemorySnapshot(), link, site: files };
      } finally {
        pyodide.runPython('__import__("gc").enable()');
      }
      laps.snapshot = Math.round(performance.now() - t) - laps.engine - laps.warm;
    } catch (err) {
      console.warn("[firefight worker] no memory snapshot:", err);
    }
  }
  return bridge;
}

async function boot() {
  const started = performance.now();
  stage("python");
  // The stored snapshot and the manifest, in parallel with importing Pyodide. A stored snapshot
  // is restored at once; the manifest, when it comes, must name its runtime.
  const stored = canStore() ? readSnapshot().catch((err) => {
    console.warn("[firefight worker] the stored memory snapshot could not be read:", err);
    return null;
  }) : Promise.resolve(null);
  // The restores that failed in a row, per runtime (js-shim/engine/snapshot-store.mjs): read meanwhile.
  let failures = canStore() ? readFailures() : Promise.resolve(null);
  const manifest = fetchManifest();
  manifest.catch(() => {}); // awaited below; don't report it as unhandled meanwhile
  // Pyodide's loader and the module it loads (its own request for that comes later), together.
  const loader = import(new URL("pyodide.asm.mjs", indexURL).href);
  loader.catch(() => {}); // awaited by loadPyodide
  const { loadPyodide } = await import(new URL("pyodide.mjs", indexURL).href);
  const pyodideLoader = { loadPyodide, loader };
  const snapshot = await stored;
  // Without a snapshot the engine's packages are needed: requested now, inflated while Pyodide
  // starts.
  let site = snapshot ? null : fetchSite(siteURL);
  site?.catch(() => {}); // awaited when its files are written
  let restored = false;
  let bridge = null;
  if (snapshot) {
    try {
      await startPython(pyodideLoader, { snapshot, manifest });
      stage("engine");
      bridge = await importEngine(null, 0, null);
      restored = true;
      if (await failures) await forgetFailures(); // the count is of failures in a row
    } catch (err) {
      console.warn("[firefight worker] the memory snapshot did not restore; booting without it:", err);
      await forgetSnapshot();
      const runtime = await manifest.then((m) => m.runtime, () => null);
      if (typeof runtime === "string" && !err?.stale) { // an old runtime's snapshot did not fail
        failures = noteFailure(runtime).then((n) => ({ runtime, failures: n }), () => null);
      }
      stage("python"); // again
      site = fetchSite(siteURL);
      site.catch(() => {});
    }
  }
  if (!restored) {
    // This runtime's snapshots failed to restore MAX_RESTORE_FAILURES times in a row in this
    // browser: it makes no more (each would cost ~1.5 s of CPU and fail again).
    const failed = await failures;
    const givenUp = failed !== null && failed.failures >= MAX_RESTORE_FAILURES
      && failed.runtime === (await manifest).runtime;
    if (givenUp) {
      console.warn(`[firefight worker] the memory snapshot failed to restore ${failed.failures} times in a row in this browser: no more snapshots of this runtime`);
    }
    const table = await startPython(pyodideLoader, { makeSnapshot: canStore() && !givenUp, site });
    // No OPFS (a page outside a secure context), no runtime hash, or given up: no snapshot.
    const { runtime } = await manifest;
    const key = canStore() && !givenUp && /^[0-9a-f]{16,64}$/.test(runtime ?? "") ? runtime : null;
    stage("engine");
    bridge = await importEngine(key, table, site);
  }
  const tPython = performance.now();
  // Plugin wheels (other modules' flags.firefight.wheels), after the snapshot (a world's own) and
  // before the engine first reads its entry points (the `hello`); one that fails is reported
  // with the ready message, the engine boots anyway.
  const wheelErrors = await loadWheels(pluginWheels);
  const version = pyodide.runPython("import firefight; firefight.__version__");
  handle = bridge.handle;
  bridgeModule = bridge;
  const end = performance.now();
  const stages = { python: Math.round(tPython - started), plugins: Math.round(end - tPython), steps: laps };
  const snapshotState = restored ? "restored" : newSnapshot ? "made" : "none";
  return { version, pyodide: pyodide.version, bootMs: Math.round(end - started), stages, snapshot: snapshotState, wheelErrors };
}

boot().then(
  (info) => {
    self.postMessage({ type: "ready", ...info });
    // Stored after "ready", while the engine answers: it delays no call.
    if (newSnapshot) {
      const made = newSnapshot;
      const bytes = made.snapshot.length + made.site.length;
      storing = writeSnapshot(made).then(
        () => self.postMessage({ type: "snapshot", stored: true, bytes }),
        (err) => {
          console.warn("[firefight worker] the memory snapshot could not be stored:", err);
          self.postMessage({ type: "snapshot", stored: false, message: String(err?.message ?? err) });
        },
      ).finally(() => {
        // Its ~36 MiB copy of Python's memory freed now, not whenever the worker next collects
        // garbage (issue 27: seconds later, or never while the table is idle). The site files
        // stay: Pyodide's file system holds them.
        try {
          made.snapshot.buffer.transfer?.(0);
        } catch {
          // not detachable: the garbage collector frees it
        }
      });
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
  warmUpWhenIdle();
});
