"""Run every test step of `make test`, then print one summary.

The steps run in three lanes at once, each lane's steps one after another: the browser tier (the
longest: three workers, each booting the engine in Chromium again and again); the quick checks
(ruff, ESLint, mypy), the engine in Pyodide and the shim; the engine on CPython and the worker in
Chromium. A lane that waits (a page, a subprocess) leaves the cores to the others, and nothing
waits for the quick checks to finish first. Each step's output is printed
whole when it ends, so the lanes' lines never interleave.

Every step runs even when an earlier one failed, so one run shows the whole picture; the exit
status is 1 if any step failed. A pytest run that collects no tests (exit 5: a test directory
nobody has filled yet) counts as passed and is reported as "no tests".
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
NO_TESTS = 5  # pytest's exit code when it collected nothing


@dataclass(frozen=True)
class Step:
    name: str
    command: list[str]
    pytest_like: bool = False  # exit 5 means "no tests collected"


STEPS = [
    Step("ruff", [str(BIN / "ruff"), "check", "py", "tests", "tools"]),
    # eslint.config.mjs: the shim Foundry loads, the sandbox, the Node build tools, the JS tests.
    Step("eslint", [str(ROOT / "node_modules" / ".bin" / "eslint"), "js-shim", "sandbox",
                    "tools/*.mjs", "tests/shim", "tests/pyodide"]),
    Step("mypy", [str(BIN / "mypy")]),
    Step("engine (CPython)", [str(BIN / "pytest"), "tests/engine"], pytest_like=True),
    Step("engine (Pyodide)", ["node", "tests/pyodide/run.mjs"], pytest_like=True),
    Step("worker (Chromium)", [str(BIN / "pytest"), "tests/pyodide"], pytest_like=True),
    Step("shim", ["node", "--test", "tests/shim/"]),
    # Three workers, each module's tests on one (its table fixture boots the engine once); the
    # pages mostly wait, so three share two cores. --durations: the slowest tests, to keep the
    # workers balanced (make test < 7 min).
    Step("browser", [str(BIN / "pytest"), "tests/browser", "-n", "3", "--dist", "loadfile",
                     "--durations", "12"],
         pytest_like=True),
]
# The lanes, by step name (every step in one). Lanes 2 and 3 each took well under the browser
# tier in the runs before (engine on CPython 228 s, in Pyodide 236 s, the worker 261 s, the
# browser tier 795 s).
LANES = (
    ("browser",),
    ("ruff", "eslint", "mypy", "engine (Pyodide)", "shim"),
    ("engine (CPython)", "worker (Chromium)"),
)


# Counts from the runners' own closing lines: pytest's "N passed, M failed in ..." and
# node --test's "# pass N" / "# fail N".
PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|errors?)\b")
NODE_COUNT = re.compile(r"^# (pass|fail) (\d+)$")


PRINTING = threading.Lock()


def run(step: Step) -> tuple[int, int, int]:
    """Run a step, printing its output whole when it ends; return (exit code, tests passed,
    tests failed)."""
    with PRINTING:
        print(f"----- {step.name}: started", flush=True)
    proc = subprocess.Popen(step.command, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1)
    passed = failed = 0
    lines: list[str] = []
    for line in proc.stdout or ():
        lines.append(line)
        text = line.strip().strip("=").strip()
        if node := NODE_COUNT.match(text):
            if node.group(1) == "pass":
                passed = int(node.group(2))
            else:
                failed = int(node.group(2))
        elif " in " in text and PYTEST_COUNT.search(text):
            counts = {kind: int(n) for n, kind in PYTEST_COUNT.findall(text)}
            passed = counts.get("passed", 0)
            failed = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    code = proc.wait()
    with PRINTING:
        print(f"\n===== {step.name}: {' '.join(step.command)}", flush=True)
        print("".join(lines), end="", flush=True)
    return code, passed, failed


def main() -> int:
    started = time.monotonic()
    outcomes: dict[str, tuple[str, float, int, int]] = {}

    def lane(steps: list[Step]) -> None:
        for step in steps:
            t0 = time.monotonic()
            code, passed, failed = run(step)
            if code == 0:
                status = "ok"
            elif step.pytest_like and code == NO_TESTS:
                status = "no tests"
            else:
                status = f"FAILED (exit {code})"
            outcomes[step.name] = (status, time.monotonic() - t0, passed,
                                   failed or (1 if code not in (0, NO_TESTS) else 0))

    by_name = {s.name: s for s in STEPS}
    if sorted(n for names in LANES for n in names) != sorted(by_name):
        sys.exit("run_tests: every step must be in exactly one lane")
    threads = [threading.Thread(target=lane, args=([by_name[n] for n in names],))
               for names in LANES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results = [(s.name, outcomes[s.name][0], outcomes[s.name][1]) for s in STEPS]
    total_passed = sum(o[2] for o in outcomes.values())
    total_failed = sum(o[3] for o in outcomes.values())

    print("\n===== summary")
    for name, status, seconds in results:
        print(f"  {name:<20} {status:<18} {seconds:6.1f} s")
    failed = [name for name, status, _ in results if status.startswith("FAILED")]
    total = time.monotonic() - started
    if failed:
        print(f"make test: FAILED {len(failed)}/{len(results)} steps ({', '.join(failed)}) "
              f"in {total:.0f} s")
    else:
        print(f"make test: PASSED all {len(results)} steps in {total:.0f} s")
    # The plain closing line CI reads: every test of every tier.
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
