// The engine tests again, inside Pyodide, under Node.
//
//   node tests/pyodide/run.mjs [extra pytest args...]      (make test runs it; needs make runtime)
//
// Boots Pyodide from node_modules/pyodide, installs the browser's own runtime (every wheel in
// runtime/wheels/manifest.json, the firefight wheel included) plus pytest and hypothesis
// (build/pyodide-test-wheels/), then the example plugins' wheels as the table loads a module's
// (every examples/<module>/module.json flags.firefight.wheels, after the engine's own; `make
// examples` builds them), mounts the repository at its real path (NODEFS) and runs pytest on
// tests/engine and on the plugins' own tests (examples/<module>/python/tests). Exits with
// pytest's exit code.
//
// The engine under test is the installed wheel, never py/ from the tree: pyproject's
// `pythonpath = ["py"]` is overridden with `-o pythonpath=`, and the runner fails if
// `firefight` was imported from anywhere but site-packages.

import { readFileSync, readdirSync, writeSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function wheelsFrom(dir) {
  const manifest = path.join(dir, "manifest.json");
  if (!existsSync(manifest)) {
    console.error(`${path.relative(root, manifest)} is missing: run \`make runtime test-wheels\``);
    process.exit(2);
  }
  return JSON.parse(readFileSync(manifest, "utf8")).wheels.map((w) => path.join(dir, w));
}

/** The wheels each example module's manifest names (flags.firefight.wheels, relative to it). */
function exampleWheels() {
  const dir = path.join(root, "examples");
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const manifest = path.join(dir, name, "module.json");
    if (!existsSync(manifest)) continue;
    for (const wheel of JSON.parse(readFileSync(manifest, "utf8")).flags?.firefight?.wheels ?? []) {
      const file = path.join(dir, name, wheel);
      if (!existsSync(file)) {
        console.error(`${path.relative(root, file)} is missing: run \`make examples\``);
        process.exit(2);
      }
      out.push(file);
    }
  }
  return out;
}

const started = performance.now();
const wheels = [
  ...wheelsFrom(path.join(root, "runtime", "wheels")),
  ...wheelsFrom(path.join(root, "build", "pyodide-test-wheels")),
];
const plugins = exampleWheels();

// Python's output goes straight to ours, unbuffered, so pytest's progress shows as it runs.
const write = (fd) => ({ write: (bytes) => writeSync(fd, bytes) });
const pyodide = await loadPyodide({ stdout: () => {}, stderr: () => {} });
pyodide.setStdout(write(1));
pyodide.setStderr(write(2));
const failures = [];
await pyodide.loadPackage(wheels, { messageCallback: () => {}, errorCallback: (m) => failures.push(m) });
// The plugins after the engine's own wheels, as the table loads an active module's at boot.
await pyodide.loadPackage(plugins, { messageCallback: () => {}, errorCallback: (m) => failures.push(m) });
if (failures.length) {
  console.error(`pyodide: could not load wheels:\n  ${failures.join("\n  ")}`);
  process.exit(2);
}

pyodide.FS.mkdirTree(root);
pyodide.mountNodeFS(root, root);
const booted = ((performance.now() - started) / 1000).toFixed(1);

const args = [
  path.join(root, "tests", "engine"),
  path.join(root, "examples", "firefight-duel", "python", "tests"),
  path.join(root, "examples", "firefight-laser-sight", "python", "tests"),
  "-p", "no:cacheprovider", // no .pytest_cache written by a second interpreter
  "-o", "pythonpath=", // not py/: the wheel is what is tested
  ...process.argv.slice(2),
];
pyodide.globals.set("pytest_args", pyodide.toPy(args));
pyodide.globals.set("repo_root", root);
pyodide.globals.set("booted", booted);

const code = await pyodide.runPythonAsync(`
import os, sys
sys.dont_write_bytecode = True  # no cpython-314 .pyc files in the host tree
os.chdir(repo_root)

from importlib.metadata import version
print(f"pyodide: Python {sys.version.split()[0]} on {sys.platform}, booted in {booted} s, "
      f"firefight {version('firefight')}, pydantic {version('pydantic')}", flush=True)

class PyodideProfile:
    """WebAssembly is slower than CPython: no per-example hypothesis deadline here,
    unless a conftest already chose a profile of its own."""

    @staticmethod
    def pytest_configure(config):
        try:
            from hypothesis import settings
        except ImportError:
            return
        if settings.get_current_profile_name() == "default":
            settings.register_profile("pyodide", deadline=None)
            settings.load_profile("pyodide")

import pytest
code = int(pytest.main(list(pytest_args), plugins=[PyodideProfile()]))

for name in ("firefight", "firefight_duel", "firefight_laser_sight"):  # the engine, the plugins
    module = sys.modules.get(name)
    if module is not None and (module.__file__ or "").startswith(repo_root):
        print(f"pyodide: {name} was imported from {module.__file__}, not the installed wheel",
              file=sys.stderr)
        code = code or 1
code
`);
process.exit(code);
