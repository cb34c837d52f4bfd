// Test-only: js-shim/engine/engine-worker.mjs, unchanged, plus control messages that no client of the
// module sends, so the worker and browser tiers can make the engine slow, stuck or broken on cue
// (tests/pyodide/test_worker.py starts it directly; tests/browser/test_engine_recovery.py routes
// the module's worker URL to it). Nothing in js-shim/ loads this file.
//
//   {test: "slow", op, ms}  the next call of `op` works `ms` ms (busy) before it is answered
//   {test: "hang", op}      the next call of `op` never ends: a runaway computation
//   {test: "fatal"}         Pyodide suffers a real fatal error: a stack overflow in json.loads
//                           of JSON nested 100 000 deep (reliability audit D7); no reply
//   {test: "loaded", module}  answered {type: "loaded", module, loaded}: whether Python has
//                           imported `module`
//   {test: "site-files", suffix}  answered {type: "site-files", suffix, names}: the files in
//                           site-packages whose names end with `suffix`
//
// The query keeps the real worker a module of its own URL when the test routes the plain one here.
import * as engine from "/modules/firefight/js-shim/engine/engine-worker.mjs?engine";

const real = self.onmessage;
const slow = new Map(); // op -> ms of work before it is answered (Infinity: never)

function spin(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy, as a runaway Python computation keeps the worker busy
  }
}

self.onmessage = (event) => {
  const data = event.data ?? {};
  if (data.test === "slow" || data.test === "hang") {
    slow.set(data.op, data.test === "hang" ? Infinity : Number(data.ms));
    return;
  }
  if (data.test === "loaded") {
    const loaded = engine.pyodide.runPython(`__import__("sys").modules.get(${JSON.stringify(String(data.module))}) is not None`);
    self.postMessage({ type: "loaded", module: data.module, loaded });
    return;
  }
  if (data.test === "site-files") {
    const { FS } = engine.pyodide;
    const names = [];
    const walk = (dir) => {
      for (const name of FS.readdir(dir)) {
        if (name === "." || name === "..") continue;
        const path = `${dir}/${name}`;
        if (FS.isDir(FS.stat(path).mode)) walk(path);
        else if (path.endsWith(String(data.suffix))) names.push(path.slice(path.lastIndexOf("/") + 1));
      }
    };
    walk(engine.pyodide._api.sitePackages);
    self.postMessage({ type: "site-files", suffix: data.suffix, names });
    return;
  }
  if (data.test === "fatal") {
    try {
      engine.pyodide.runPython(`import json; json.loads("[" * 100_000 + "]" * 100_000)`);
    } catch (err) {
      console.warn("[engine-test-worker] fatal error caused:", String(err?.message ?? err).slice(0, 200));
    }
    return;
  }
  if (typeof data.message === "string") {
    let op = null;
    try {
      op = JSON.parse(data.message).op;
    } catch {
      // not JSON: the real worker answers it
    }
    if (slow.has(op)) {
      const ms = slow.get(op);
      slow.delete(op);
      spin(ms);
    }
  }
  real(event);
};
