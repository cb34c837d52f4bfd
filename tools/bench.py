"""Print how fast the engine is, on CPython and in Pyodide under Node. Figures only, no limits.

    .venv/bin/python tools/bench.py [-n 2000] [--request FILE.json]
    (make bench; needs make runtime)

Pyodide: cold boot (loadPyodide, then the runtime's wheels, then `import firefight.bridge`),
the first `resolve` through the bridge (as the browser's first click pays it), the mean of
later ones, and the Node process's peak RSS. CPython: import time, first resolve, mean per
resolve over N seeded calls, and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# A plain aimed rifle shot at 100 m (the engine tests' `soe_request` fixture).
DEFAULT_REQUEST: dict[str, Any] = {
    "ruleset": "soe",
    "attacker": {"name": "Ada", "pc": True, "stats": {"marksmanship": 12, "str": 10, "agl": 10}},
    "target": {"name": "Bandit", "pc": False, "stats": {"str": 10, "agl": 12}},
    "weapon": {"name": "Rifle", "damage": 10, "weapon_type": "rifle"},
    "range": {"value": 100, "units": "m"},
    "options": {"mode": "aimed"},
}

# Runs under Node from the repo root; prints one JSON line of figures (milliseconds, KiB).
NODE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";
const [request, n] = [process.argv[1], Number(process.argv[2])];
const ms = (t0) => performance.now() - t0;
const out = {};
let t0 = performance.now();
const py = await loadPyodide({ stdout: () => {}, stderr: () => {} });
out.load_pyodide = ms(t0);
const wheels = JSON.parse(readFileSync("runtime/wheels/manifest.json", "utf8")).wheels;
let t1 = performance.now();
await py.loadPackage(wheels.map((w) => "runtime/wheels/" + w), { messageCallback: () => {} });
out.load_wheels = ms(t1);
t1 = performance.now();
const handle = py.pyimport("firefight.bridge").handle;
out.import_bridge = ms(t1);
out.cold_boot = ms(t0);
const cpu = process.cpuUsage();
out.cold_boot_cpu = (cpu.user + cpu.system) / 1000; // CPU time: steadier on a busy machine
const message = () => JSON.stringify({ op: "resolve", request: JSON.parse(request),
  entropy: Array.from({ length: 256 }, () => Math.random()) });
t1 = performance.now();
const first = JSON.parse(handle(message()));
out.first_resolve = ms(t1);
out.first_ok = first.ok;
if (!first.ok) out.first_error = first.error;
const times = [];
for (let i = 0; i < n; i++) { t1 = performance.now(); handle(message()); times.push(ms(t1)); }
out.mean_resolve = times.reduce((a, b) => a + b, 0) / Math.max(times.length, 1);
out.n = n;
out.peak_rss_kib = process.resourceUsage().maxRSS;
console.log(JSON.stringify(out));
"""


def bench_pyodide(request: dict[str, Any], n: int) -> dict[str, Any]:
    started = time.perf_counter()
    proc = subprocess.run(
        ["node", "--input-type=module", "-e", NODE_SCRIPT, json.dumps(request), str(n)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"pyodide bench failed:\n{proc.stderr}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    figures["process"] = (time.perf_counter() - started) * 1000
    return figures


def bench_cpython(request: dict[str, Any], n: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    import firefight

    figures: dict[str, Any] = {"import": (time.perf_counter() - t0) * 1000}
    t0 = time.perf_counter()
    first = firefight.resolve(request, seed=0)
    figures["first_resolve"] = (time.perf_counter() - t0) * 1000
    figures["first_ok"] = "error" not in first
    if "error" in first:
        figures["first_error"] = first["error"]
    times = []
    for seed in range(1, n + 1):
        t0 = time.perf_counter()
        firefight.resolve(request, seed=seed)
        times.append((time.perf_counter() - t0) * 1000)
    figures["mean_resolve"] = statistics.fmean(times)
    figures["median_resolve"] = statistics.median(times)
    t0 = time.perf_counter()
    result = firefight.resolve(request, seed=0)
    firefight.render_card(result, fmt="html")
    figures["resolve_and_card"] = (time.perf_counter() - t0) * 1000
    # ru_maxrss is KiB on Linux.
    figures["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=2000, help="resolves on CPython (default 2000)")
    parser.add_argument("--pyodide-n", type=int, default=200, help="later resolves in Pyodide")
    parser.add_argument("--request", type=Path, help="a request JSON file (default: a rifle shot)")
    args = parser.parse_args()
    request = json.loads(args.request.read_text()) if args.request else DEFAULT_REQUEST

    print(f"firefight bench: request {args.request or 'built-in soe rifle shot'}", flush=True)
    pyo = bench_pyodide(request, args.pyodide_n)
    print("Pyodide (Node, wasm):")
    print(f"  cold boot                    {pyo['cold_boot']:8.0f} ms"
          f"  (loadPyodide {pyo['load_pyodide']:.0f}, wheels {pyo['load_wheels']:.0f},"
          f" import firefight.bridge {pyo['import_bridge']:.0f}; CPU {pyo['cold_boot_cpu']:.0f})")
    print(f"  first resolve (bridge+cards) {pyo['first_resolve']:8.1f} ms"
          f"{'' if pyo['first_ok'] else '  ERROR ' + json.dumps(pyo.get('first_error'))}")
    print(f"  mean resolve over {pyo['n']:<5}     {pyo['mean_resolve']:8.2f} ms")
    print(f"  peak RSS (node)              {pyo['peak_rss_kib'] / 1024:8.0f} MiB")

    cpy = bench_cpython(request, args.n)
    print(f"CPython {sys.version.split()[0]}:")
    print(f"  import firefight             {cpy['import']:8.0f} ms")
    print(f"  first resolve                {cpy['first_resolve']:8.2f} ms"
          f"{'' if cpy['first_ok'] else '  ERROR ' + json.dumps(cpy.get('first_error'))}")
    print(f"  mean resolve over {args.n:<5}     {cpy['mean_resolve']:8.3f} ms"
          f"  (median {cpy['median_resolve']:.3f})")
    print(f"  resolve + html card          {cpy['resolve_and_card']:8.2f} ms")
    print(f"  peak RSS (python)            {cpy['peak_rss_kib'] / 1024:8.0f} MiB")


if __name__ == "__main__":
    main()
