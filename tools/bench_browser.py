"""Browser figures for `make bench` (issue 17), measured side by side in one run of the system
Chromium (headless, the browser tier's flags): figures only, no limits.

(a) the engine worker's ``{type: "ready"}`` (engine/engine-worker.mjs) ÷ a bare ``loadPyodide``
    of the same runtime (runtime/pyodide) in a worker, each in a fresh profile;
(b) the same, second load in the same profile (a returning player: HTTP cache, compiled code and
    the engine's memory snapshot in the Origin Private File System kept; the first load waits,
    after `ready`, for the worker's report that it made and stored the snapshot, whose CPU is not
    in (a)'s);
(c) click -> card in the sandbox table: a person clicks Fire in the Shoot dialog, time until the
    chat card is in the log (first shot, median, p95);
(d) the tab's memory against a bare Pyodide: the PSS of the tab's renderer process, which runs the
    page and its workers, WebAssembly memory included (CDP SystemInfo.getProcessInfo for its pid,
    /proc/<pid>/smaps_rollup for its PSS). JSHeapUsedSize would miss the worker and its
    WebAssembly memory; performance.measureUserAgentSpecificMemory waits for a garbage collection;
(e) the engine's `hello` posted right after `ready`, as the module's `prepare` sends it: after a
    fresh profile's first boot, and after the second boot, which restores the memory snapshot.

Run: ``python tools/bench_browser.py [--rounds 3] [--shots 20]`` (tools/bench.py calls it).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the one Chromium and its flags)

TIMEOUT_MS = 180_000

# Starts a worker and resolves when it is ready: the engine's own file, or a module worker (from a
# Blob) that does nothing but Pyodide's loadPyodide with the worker's own options. The worker is
# kept (globalThis.__ffWorker) with a promise of the engine's {type: "snapshot"} report
# (globalThis.__ffSnapshot), which a first load awaits after `ready` (SNAPSHOT_JS) so that the
# second load finds what the first one cached.
BOOT_JS = """async ({kind, base, timeout}) => {
  const index = new URL("modules/firefight/runtime/pyodide/", base).href;
  const raw = `import { loadPyodide } from "${index}pyodide.mjs";
    await loadPyodide({indexURL: "${index}", lockFileURL: "${index}pyodide-lock.json",
      packageBaseUrl: "${index}"});
    postMessage({type: "ready"});`;
  const t0 = performance.now();
  const worker = kind === "raw"
    ? new Worker(URL.createObjectURL(new Blob([raw], {type: "text/javascript"})), {type: "module"})
    : new Worker(new URL("modules/firefight/js-shim/engine/engine-worker.mjs", base),
        {type: "module"});
  globalThis.__ffWorker = worker;
  let stored;
  globalThis.__ffSnapshot = new Promise((resolve) => (stored = resolve));
  return await new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error(`${kind}: no ready within ${timeout} ms`)), timeout);
    worker.onerror = (e) => reject(new Error(`${kind}: ${e.message}`));
    worker.onmessage = (e) => {
      const d = e.data ?? {};
      if (d.type === "ready") {
        resolve({ms: performance.now() - t0, stages: d.stages ?? null,
                 snapshot: d.snapshot ?? null});
      } else if (d.type === "snapshot") {
        stored({...d, ms: performance.now() - t0});
      } else if (d.type === "boot-error") reject(new Error(`${kind}: ${d.message}`));
    };
  });
}"""
SNAPSHOT_JS = "() => globalThis.__ffSnapshot"
END_JS = "() => globalThis.__ffWorker?.terminate()"

# Time from the click on Fire (capture phase, before the dialog handles it) to the card in the log.
WATCH_JS = """() => {
  globalThis.__ffClicks = [];
  globalThis.__ffCards = [];
  document.addEventListener("click", (ev) => {
    const fire = 'dialog.application button[data-action="fire"]';
    // The person's click only: the dialog clicks Fire again once its check passed (untrusted).
    if (ev.isTrusted && ev.target.closest?.(fire)) __ffClicks.push(performance.now());
  }, true);
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      const card = n.nodeType === 1 && (n.matches(".firefight-card")
        || n.querySelector(".firefight-card"));
      if (card) __ffCards.push(performance.now());
    }
  }).observe(document.body, {childList: true, subtree: true});
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve() -> tuple[subprocess.Popen[str], str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(REPO / "tools" / "serve.py"), "--port", str(port),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=REPO)
    line = proc.stdout.readline() if proc.stdout else ""
    if f"http://127.0.0.1:{port}/" not in line:
        proc.terminate()
        raise SystemExit(f"tools/serve.py did not start: {line!r}")
    return proc, f"http://127.0.0.1:{port}/"


def _cpu_seconds(profile: str) -> float:
    """CPU seconds used so far by the Chromium whose --user-data-dir is `profile`: its browser
    process and every descendant alive (renderer, GPU, network ...); steadier than wall time on a
    shared machine."""
    parents: dict[int, int] = {}
    roots: set[int] = set()
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime
        if f"--user-data-dir={profile}".encode() in cmdline:
            roots.add(pid)

    def ours(pid: int) -> bool:
        while pid > 1:
            if pid in roots:
                return True
            pid = parents.get(pid, 1)
        return False

    return sum(t for pid, t in ticks.items() if ours(pid)) / os.sysconf("SC_CLK_TCK")


def _boot(context: Any, profile: str, base: str, kind: str, wait_snapshot: bool
          ) -> dict[str, Any]:
    """One worker boot in a new page: its ready time and CPU (until `ready`); with
    `wait_snapshot`, also the engine's snapshot report and the CPU until it (`cpu_snapshot`)."""
    page = context.new_page()
    try:
        # Any page of the origin will do (served with the sandbox's cross-origin isolation).
        page.goto(f"{base}modules/firefight/module.json")
        cpu = _cpu_seconds(profile)
        out = dict(page.evaluate(BOOT_JS, {"kind": kind, "base": base, "timeout": TIMEOUT_MS}))
        out["cpu"] = (_cpu_seconds(profile) - cpu) * 1000
        if wait_snapshot and out.get("snapshot") not in (None, "none", "restored"):
            out["stored"] = page.evaluate(SNAPSHOT_JS)
            out["cpu_snapshot"] = (_cpu_seconds(profile) - cpu) * 1000
        page.evaluate(END_JS)
        return out
    finally:
        page.close()


def bench_boot(p: Any, base: str, rounds: int) -> dict[str, list[float]]:
    """Per round, for each kind (alternating which goes first): a fresh profile, a first load, a
    second load in the same profile. -> {"raw1", "raw2", "engine1", "engine2": [ms]}."""
    out: dict[str, list[float]] = {f"{kind}{n}{cpu}": [] for kind in ("raw", "engine")
                                   for n in (1, 2) for cpu in ("", "cpu")}
    for r in range(rounds):
        kinds = ["raw", "engine"] if r % 2 == 0 else ["engine", "raw"]
        for kind in kinds:
            with tempfile.TemporaryDirectory(prefix="ff-bench-profile-") as profile:
                context = p.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                try:
                    first = _boot(context, profile, base, kind, wait_snapshot=kind == "engine")
                    second = _boot(context, profile, base, kind, wait_snapshot=False)
                finally:
                    context.close()
            out[f"{kind}1"].append(first["ms"])
            out[f"{kind}2"].append(second["ms"])
            out[f"{kind}1cpu"].append(first["cpu"])
            out[f"{kind}2cpu"].append(second["cpu"])
            if kind == "engine":
                print(f"    round {r + 1} engine: first {first['ms']:.0f} ms {first.get('stages')},"
                      f" stored {first.get('stored')} (CPU with it"
                      f" {first.get('cpu_snapshot', 0):.0f} ms); second {second['ms']:.0f} ms"
                      f" {second.get('stages')}; CPU {first['cpu']:.0f} / {second['cpu']:.0f} ms",
                      flush=True)
            else:
                print(f"    round {r + 1} raw: first {first['ms']:.0f} ms, second"
                      f" {second['ms']:.0f} ms; CPU {first['cpu']:.0f} / {second['cpu']:.0f} ms",
                      flush=True)
    return out


# The `hello` as the module's `prepare` sends it right after `ready` (issue 27: after a restore
# it reads the built-ins' catalogs from data and imports no ruleset): ms to its reply.
HELLO_JS = """async () => {
  const worker = globalThis.__ffWorker;
  const t0 = performance.now();
  return await new Promise((resolve) => {
    worker.addEventListener("message", (e) => {
      if (e.data?.id === 27) resolve({ms: performance.now() - t0, ok: JSON.parse(e.data.reply).ok});
    });
    worker.postMessage({id: 27, message: JSON.stringify({op: "hello"})});
  });
}"""


def bench_hello(p: Any, base: str, rounds: int) -> dict[str, list[float]]:
    """Per round, a fresh profile: the engine's first boot (it makes and stores the snapshot)
    and its `hello`, then a second boot (it restores the snapshot) and its `hello`.
    -> {"made": [ms], "restored": [ms]}."""
    out: dict[str, list[float]] = {"made": [], "restored": []}
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="ff-bench-profile-") as profile:
            context = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                for _boot_kind in ("made", "restored"):
                    page = context.new_page()
                    page.goto(f"{base}modules/firefight/module.json")
                    ready = page.evaluate(BOOT_JS, {"kind": "engine", "base": base,
                                                    "timeout": TIMEOUT_MS})
                    hello = page.evaluate(HELLO_JS)
                    if not hello["ok"]:
                        raise SystemExit("bench: the hello failed")
                    if ready.get("snapshot") == "made":
                        page.evaluate(SNAPSHOT_JS)  # stored, for the second boot
                    out[ready.get("snapshot") or "none"] = [
                        *out.get(ready.get("snapshot") or "none", []), hello["ms"]]
                    page.evaluate(END_JS)
                    page.close()
            finally:
                context.close()
    return out


def _pss_kib(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def _renderer_pss_mib(browser: Any) -> float:
    """PSS of the largest renderer process (one tab is open: its renderer, with its workers)."""
    cdp = browser.new_browser_cdp_session()
    try:
        info = cdp.send("SystemInfo.getProcessInfo")
    finally:
        cdp.detach()
    pids = [int(proc["id"]) for proc in info["processInfo"] if proc.get("type") == "renderer"]
    return max((_pss_kib(pid) for pid in pids), default=0) / 1024


def bench_memory_raw(browser: Any, base: str) -> float:
    """A tab whose worker holds a bare booted Pyodide: its renderer's PSS in MiB."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{base}modules/firefight/module.json")
        page.evaluate("""async (base) => {
          const index = new URL("modules/firefight/runtime/pyodide/", base).href;
          const raw = `import { loadPyodide } from "${index}pyodide.mjs";
            await loadPyodide({indexURL: "${index}", lockFileURL: "${index}pyodide-lock.json"});
            postMessage("ready");`;
          const blob = new Blob([raw], {type: "text/javascript"});
          globalThis.__raw = new Worker(URL.createObjectURL(blob), {type: "module"});
          await new Promise((resolve) => (__raw.onmessage = resolve));
        }""", base)
        time.sleep(1)
        return _renderer_pss_mib(browser)
    finally:
        context.close()


# Settled: Python's memory and the caches do not shrink after this.
SETTLE_S = 3
# The memory figures' workers: as BOOT_JS's, each wrapped in a module worker (from a Blob) that
# also answers {bench: "gc"} by collecting its garbage (Chromium started with --expose-gc), so
# that what a worker holds is told apart from what it has yet to collect. The engine worker is
# imported by its own URL, so it finds Pyodide and its packages as it always does.
GC_HOOK = ("const real = self.onmessage; self.onmessage = (e) => e.data?.bench === 'gc'"
           " ? (globalThis.gc(), postMessage({bench: 'gc'})) : real?.(e);")
ENGINE_WORKER = ('new Worker(new URL("modules/firefight/js-shim/engine/engine-worker.mjs", base),'
                 '\n        {type: "module"})')  # as BOOT_JS writes it
WRAPPED_ENGINE_WORKER = (
    'new Worker(URL.createObjectURL(new Blob([`import "${new URL('
    '"modules/firefight/js-shim/engine/engine-worker.mjs", base).href}"; ' + GC_HOOK + '`],'
    ' {type: "text/javascript"})), {type: "module"})')
MEMORY_BOOT_JS = BOOT_JS.replace(
    'postMessage({type: "ready"});`;', 'postMessage({type: "ready"}); ' + GC_HOOK + '`;'
).replace(ENGINE_WORKER, WRAPPED_ENGINE_WORKER)
if WRAPPED_ENGINE_WORKER not in MEMORY_BOOT_JS or MEMORY_BOOT_JS.count(GC_HOOK) != 2:
    raise SystemExit("bench_browser: MEMORY_BOOT_JS no longer wraps BOOT_JS's workers")
COLLECT_JS = """() => new Promise((resolve) => {
  const w = globalThis.__ffWorker;
  w.addEventListener("message", (e) => { if (e.data?.bench === "gc") resolve(); });
  w.postMessage({bench: "gc"});
  globalThis.gc();
})"""


def _uss_kib(pid: int) -> int:
    """A process's own memory (Private_Clean + Private_Dirty): unlike PSS, not moved by how many
    other Chromiums on the machine share its libraries' pages."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    return sum(int(line.split()[1]) for line in text.splitlines()
               if line.startswith(("Private_Clean:", "Private_Dirty:")))


def _profile_renderer_mib(profile: str) -> tuple[float, float]:
    """(PSS, USS) in MiB of the largest renderer process of the Chromium whose --user-data-dir is
    `profile` (one page is open: its renderer, which runs its workers)."""
    parents: dict[int, int] = {}
    roots: set[int] = set()
    renderers: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
        if f"--user-data-dir={profile}".encode() in cmdline:
            roots.add(pid)
        if b"--type=renderer" in cmdline:
            renderers.append(pid)

    def ours(pid: int) -> bool:
        while pid > 1:
            if pid in roots:
                return True
            pid = parents.get(pid, 1)
        return False

    pid = max((pid for pid in renderers if ours(pid)), key=_pss_kib, default=0)
    return _pss_kib(pid) / 1024, _uss_kib(pid) / 1024


def bench_worker_memory(p: Any, base: str, kind: str) -> dict[str, tuple[float, float]]:
    """The renderer's USS in MiB of a page of the module's origin whose one worker is `kind`
    ("raw": a bare Pyodide; "engine": the engine worker as a table holds it), on a first visit
    (a fresh profile) and on a return (the same profile, the browser started again: the engine
    restores its snapshot): (as left, once its garbage is collected). V8 collects a worker's
    garbage when it allocates, so an idle worker keeps what it left: the first figure is what the
    tab holds; the second, what the worker needs (a critical memory-pressure notification, CDP
    `Memory.simulatePressureNotification`, did not collect a worker's garbage)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="ff-bench-memory-") as profile:
        for visit in ("first", "return"):
            context = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--js-flags=--expose-gc"],
                headless=True)
            try:
                page = context.pages[0] if context.pages else context.new_page()
                page.goto(f"{base}modules/firefight/module.json")
                page.evaluate(MEMORY_BOOT_JS, {"kind": kind, "base": base, "timeout": TIMEOUT_MS})
                if kind == "engine":
                    if visit == "first":
                        page.evaluate(SNAPSHOT_JS)
                    page.evaluate(HELLO_JS)  # the catalogs read; then idle for its warm-up
                time.sleep(SETTLE_S)
                left = _profile_renderer_mib(profile)[1]
                page.evaluate(COLLECT_JS)
                time.sleep(1)
                out[visit] = (left, _profile_renderer_mib(profile)[1])
            finally:
                context.close()
    return out


def bench_table(browser: Any, base: str, shots: int) -> tuple[list[float], float]:
    """The sandbox table as a person uses it: -> (click -> card ms per shot, the tab's PSS MiB
    once the engine is ready and has answered the shots)."""
    context = browser.new_context(viewport={"width": 1440, "height": 860})
    try:
        page = context.new_page()
        page.goto(base)
        page.wait_for_selector('#engine-status[data-status="ready"]', timeout=TIMEOUT_MS)
        page.evaluate(WATCH_JS)
        for n in range(shots):
            page.evaluate("""() => {
              const open = 'dialog.application [data-action=close]';
              document.querySelectorAll(open).forEach(b => b.click());
              canvas.tokens.releaseAll();
              for (const t of [...game.user.targets]) t.setTarget(false, {releaseOthers: false});
            }""")
            page.locator('.token[data-name="Rifleman Aldo Ferri"]').click()
            page.locator('.token[data-name="Lesser Venusian Rhino"]').click(button="right")
            page.click("#shoot-button")
            page.wait_for_selector("dialog.application .firefight-shot")
            page.wait_for_function("() => !document.querySelector('[data-firefight-odds].pending')")
            page.click('dialog.application button[data-action="fire"]')
            page.wait_for_function("(n) => __ffCards.length > n", arg=n, timeout=60_000)
        times = page.evaluate("() => __ffCards.map((t, i) => t - __ffClicks[i])")
        time.sleep(1)
        return [float(t) for t in times], _renderer_pss_mib(browser)
    finally:
        context.close()


# Issue 27's targets: the engine worker's `ready` against a bare loadPyodide, a first visit and a
# return; the engine worker's own memory over a bare Pyodide worker's.
FIRST_TARGET = 1.2
RETURN_TARGET = 0.4
MEMORY_TARGET_MIB = 40


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def print_worker_memory(p: Any, base: str, rounds: int) -> None:
    """(e): the engine worker's own memory, beside a bare Pyodide worker's (medians)."""
    runs: dict[str, list[dict[str, tuple[float, float]]]] = {"raw": [], "engine": []}
    for r in range(rounds):
        for kind in ("raw", "engine") if r % 2 == 0 else ("engine", "raw"):
            runs[kind].append(bench_worker_memory(p, base, kind))
    med = {(kind, visit, i): statistics.median(r[visit][i] for r in rows)
           for kind, rows in runs.items() for visit in ("first", "return") for i in (0, 1)}
    print(f"  (e) the engine worker's own memory: the renderer's USS with it, less with a bare"
          f" Pyodide worker (median of {rounds}; target <= +{MEMORY_TARGET_MIB} MiB):")
    for visit, label in (("first", "first visit"), ("return", "return     ")):
        left = med["engine", visit, 0] - med["raw", visit, 0]
        held = med["engine", visit, 1] - med["raw", visit, 1]
        print(f"      {label}: as left {left:+4.0f} MiB ({med['engine', visit, 0]:.0f} /"
              f" {med['raw', visit, 0]:.0f}): {_met(left <= MEMORY_TARGET_MIB)};"
              f" garbage collected {held:+4.0f} MiB ({med['engine', visit, 1]:.0f} /"
              f" {med['raw', visit, 1]:.0f}): {_met(held <= MEMORY_TARGET_MIB)}", flush=True)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="fresh profiles per kind")
    parser.add_argument("--shots", type=int, default=20, help="shots fired in the sandbox")
    parser.add_argument("--only", choices=("boot", "memory"),
                        help="only the boot figures (a, b), or only the worker's memory (e)")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"Browser figures: skipped ({CHROMIUM} is missing: make setup installs it)")
        return
    import playwright.sync_api as playwright_sync

    proc, base = _serve()
    try:
        with playwright_sync.sync_playwright() as p:
            load = os.getloadavg()
            print(f"Browser (headless Chromium, {args.rounds} fresh profiles per kind, medians;"
                  f" load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}):", flush=True)
            if args.only == "memory":
                print_worker_memory(p, base, args.rounds)
                return
            boot = bench_boot(p, base, args.rounds)
            med = {k: statistics.median(v) for k, v in boot.items()}
            print(f"  raw loadPyodide          first {med['raw1']:7.0f} ms   second"
                  f" {med['raw2']:7.0f} ms")
            print(f"  engine worker ready      first {med['engine1']:7.0f} ms   second"
                  f" {med['engine2']:7.0f} ms")
            print(f"  (CPU of the browser's processes: raw {med['raw1cpu']:.0f} /"
                  f" {med['raw2cpu']:.0f} ms, engine {med['engine1cpu']:.0f} /"
                  f" {med['engine2cpu']:.0f} ms)")
            first, back = med["engine1"] / med["raw1"], med["engine2"] / med["raw2"]
            print("  (a) ready ÷ raw, fresh profile             "
                  f" {first:5.2f}  target <= {FIRST_TARGET}: {_met(first <= FIRST_TARGET)}"
                  f"  (CPU {med['engine1cpu'] / med['raw1cpu']:.2f})")
            print("  (b) ready ÷ raw, second load, same profile "
                  f" {back:5.2f}  target <= {RETURN_TARGET}: {_met(back <= RETURN_TARGET)}"
                  f"  (CPU {med['engine2cpu'] / med['raw2cpu']:.2f};"
                  f" ÷ the raw first load {med['engine2'] / med['raw1']:.2f})", flush=True)
            hello = bench_hello(p, base, args.rounds)
            print(f"  (e) hello after ready: first boot {statistics.median(hello['made']):.0f} ms,"
                  f" after a restore {statistics.median(hello['restored']):.0f} ms"
                  f" (target <= 30; {[round(x) for x in hello['restored']]})", flush=True)
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                raw_mib = bench_memory_raw(browser, base)
                clicks, table_mib = bench_table(browser, base, args.shots)
            finally:
                browser.close()
            print(f"  (c) click Fire -> card, {len(clicks)} shots: first {clicks[0]:.0f} ms,"
                  f" median {statistics.median(clicks):.0f} ms, p95 {_p95(clicks):.0f} ms")
            print(f"  (d) tab memory (renderer PSS): sandbox table {table_mib:.0f} MiB, bare"
                  f" Pyodide {raw_mib:.0f} MiB, ratio {table_mib / raw_mib:.2f}", flush=True)
            print("  " + json.dumps({k: [round(x) for x in v] for k, v in boot.items()}))
            if args.only != "boot":
                print_worker_memory(p, base, max(1, args.rounds // 2))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
