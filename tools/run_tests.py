"""Run every test step of `make test` in order, then print one summary.

Every step runs even when an earlier one failed, so one run shows the whole picture; the exit
status is 1 if any step failed. A pytest run that collects no tests (exit 5: a test directory
nobody has filled yet) counts as passed and is reported as "no tests".
"""

from __future__ import annotations

import re
import subprocess
import sys
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
    # eslint.config.mjs: the shim Foundry loads, the sandbox, the Node build tools.
    Step("eslint", [str(ROOT / "node_modules" / ".bin" / "eslint"), "js-shim", "sandbox",
                    "tools/*.mjs"]),
    Step("mypy", [str(BIN / "mypy")]),
    Step("engine (CPython)", [str(BIN / "pytest"), "tests/engine"], pytest_like=True),
    Step("engine (Pyodide)", ["node", "tests/pyodide/run.mjs"], pytest_like=True),
    Step("worker (Chromium)", [str(BIN / "pytest"), "tests/pyodide"], pytest_like=True),
    Step("shim", ["node", "--test", "tests/shim/"]),
    # Two workers, each module's tests on one (its table fixture boots the engine once).
    # --durations: the slowest tests, to keep the tier's two workers balanced (make test < 10 min).
    Step("browser", [str(BIN / "pytest"), "tests/browser", "-n", "2", "--dist", "loadfile",
                     "--durations", "12"],
         pytest_like=True),
]


# Counts from the runners' own closing lines: pytest's "N passed, M failed in ..." and
# node --test's "# pass N" / "# fail N".
PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|errors?)\b")
NODE_COUNT = re.compile(r"^# (pass|fail) (\d+)$")


def run(step: Step) -> tuple[int, int, int]:
    """Run a step, echoing its output; return (exit code, tests passed, tests failed)."""
    proc = subprocess.Popen(step.command, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1)
    passed = failed = 0
    for line in proc.stdout or ():
        print(line, end="", flush=True)
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
    return proc.wait(), passed, failed


def main() -> int:
    results: list[tuple[str, str, float]] = []
    started = time.monotonic()
    total_passed = total_failed = 0
    for step in STEPS:
        print(f"\n===== {step.name}: {' '.join(step.command)}", flush=True)
        t0 = time.monotonic()
        code, passed, failed = run(step)
        total_passed += passed
        total_failed += failed or (1 if code not in (0, NO_TESTS) else 0)
        seconds = time.monotonic() - t0
        if code == 0:
            status = "ok"
        elif step.pytest_like and code == NO_TESTS:
            status = "no tests"
        else:
            status = f"FAILED (exit {code})"
        results.append((step.name, status, seconds))

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
