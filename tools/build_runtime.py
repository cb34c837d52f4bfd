"""Build the browser runtime: `runtime/wheels/` and `runtime/pyodide/`.

    python tools/build_runtime.py wheels        # runtime/wheels/*.whl + manifest.json
    python tools/build_runtime.py pyodide       # runtime/pyodide/ from node_modules/pyodide
    python tools/build_runtime.py test-wheels   # build/pyodide-test-wheels/ (pytest, hypothesis)

Every wheel is for Pyodide 314 (CPython 3.14, emscripten 2026_0, wasm32). Third-party wheels
are downloaded once into `build/wheel-cache/` and reused; the project's own wheel is rebuilt on
every `wheels` run (a plain PEP 517 build, the same wheel CPython would install).
Run with the project venv's interpreter: it needs `pip`, `build` and `hatchling`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "wheel-cache"
RUNTIME = ROOT / "runtime"
TEST_WHEELS = ROOT / "build" / "pyodide-test-wheels"
PYODIDE_NPM = ROOT / "node_modules" / "pyodide"

# What the engine needs at run time, in load order (dependencies first).
# pydantic 2.14.3 pins pydantic-core 2.50.4, the only compiled wheel: PyPI has it for Pyodide.
RUNTIME_DEPS = [
    "typing-extensions==4.16.0",
    "annotated-types==0.8.0",
    "typing-inspection==0.4.5",
    "pydantic-core==2.50.4",
    "pydantic==2.14.3",
    "markupsafe==3.0.4",  # no Pyodide wheel on PyPI: built pure from its sdist, see below
    "jinja2==3.1.6",
]

# What pytest and hypothesis need inside Pyodide (all pure); versions match requirements-dev.txt.
TEST_DEPS = [
    "iniconfig==2.3.1",
    "packaging==26.3",
    "pluggy==1.7.0",
    "pygments==2.21.0",
    "pytest==9.2.0",
    "sortedcontainers==2.4.0",
    "hypothesis==6.155.7",
]

# Everything loadPyodide() fetches from indexURL (checked against a browser's network log),
# plus the source map devtools asks for.
PYODIDE_FILES = [
    "pyodide.mjs",
    "pyodide.mjs.map",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
]

PYODIDE_TAGS = [
    "--only-binary=:all:",
    "--platform=pyemscripten_2026_0_wasm32",
    "--python-version=3.14",
    "--implementation=cp",
    "--abi=cp314",
]


def log(message: str) -> None:
    print(f"[build_runtime] {message}", flush=True)


def run(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    subprocess.run([str(a) for a in args], check=True, env=env, cwd=cwd)


def dist_name(requirement: str) -> tuple[str, str]:
    name, version = requirement.split("==")
    return name.replace("-", "_").lower(), version


def cached_wheel(requirement: str) -> Path | None:
    name, version = dist_name(requirement)
    for wheel in CACHE.glob("*.whl"):
        wheel_name, wheel_version = wheel.name.split("-")[:2]
        if wheel_name.lower() == name and wheel_version == version:
            return wheel
    return None


def fetch(requirements: list[str]) -> list[Path]:
    """Wheels for `requirements`, in order, downloading only the ones not cached yet."""
    CACHE.mkdir(parents=True, exist_ok=True)
    missing = [r for r in requirements if cached_wheel(r) is None]
    for requirement in [r for r in missing if dist_name(r)[0] == "markupsafe"]:
        build_pure_markupsafe(dist_name(requirement)[1])
        missing.remove(requirement)
    if missing:
        log(f"downloading {' '.join(missing)}")
        run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *PYODIDE_TAGS,
            "--dest", CACHE, *missing)
    wheels = []
    for requirement in requirements:
        wheel = cached_wheel(requirement)
        if wheel is None:
            raise SystemExit(f"no wheel for {requirement} after download")
        wheels.append(wheel)
    return wheels


def build_pure_markupsafe(version: str) -> None:
    """MarkupSafe's setup.py falls back to pure Python when its C speedups fail to build.

    CC=/bin/false makes them fail on purpose, so the sdist yields `py3-none-any`.
    """
    log(f"building a pure markupsafe {version} wheel from its sdist")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary=:all:",
            "--dest", work, f"markupsafe=={version}")
        sdist = next(work.glob("*.tar.gz"))
        with tarfile.open(sdist) as archive:
            archive.extractall(work, filter="data")
        source = next(p for p in work.iterdir() if p.is_dir())
        env = {**os.environ, "CC": "/bin/false", "CXX": "/bin/false"}
        run(sys.executable, "-m", "build", "--wheel", "--outdir", work / "dist", source, env=env)
        wheel = next((work / "dist").glob("*.whl"))
        if not wheel.name.endswith("-py3-none-any.whl"):
            raise SystemExit(f"expected a pure wheel, got {wheel.name}")
        with zipfile.ZipFile(wheel) as zipped:
            if any(n.endswith(".so") for n in zipped.namelist()):
                raise SystemExit(f"{wheel.name} contains a compiled extension")
        shutil.copy2(wheel, CACHE / wheel.name)


def build_project_wheel(dest: Path) -> Path:
    """`python -m build --wheel` of the repo (hatchling), without isolation: fast and offline."""
    with tempfile.TemporaryDirectory() as tmp:
        log("building the firefight wheel")
        run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", tmp, ROOT)
        wheel = next(Path(tmp).glob("firefight-*.whl"))
        target = dest / wheel.name
        shutil.copy2(wheel, target)
        return target


def write_manifest(directory: Path, wheels: list[Path]) -> None:
    for stale in directory.glob("*.whl"):
        if stale not in wheels:
            stale.unlink()
    manifest = {"wheels": [w.name for w in wheels]}
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    log(f"{directory.relative_to(ROOT)}/manifest.json: {len(wheels)} wheels")


def copy_into(directory: Path, wheels: list[Path]) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    copies = []
    for wheel in wheels:
        target = directory / wheel.name
        # A runtime wheel with bytecode added (newer than its cached original) is kept.
        if not target.exists() or target.stat().st_mtime < wheel.stat().st_mtime:
            shutil.copy2(wheel, target)
        copies.append(target)
    return copies


# Bytecode (issue 17: every boot compiled every module from source). Pyodide's own CPython
# compiles, under Node, the modules the engine imports to boot and to resolve each example
# request (tests/engine/examples) with its card: those of the runtime's wheels and those of
# Pyodide's stdlib zip (shipped as source only). Modules the engine never imports stay source,
# so the zip stays small. Python code run inside Pyodide:
COMPILE_PY = r"""
import base64, hashlib, importlib.util, json, site, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

def _pyc(data, filename):
    # Unchecked hash-based .pyc (PEP 552): used without the source's mtime, which unpacking a
    # wheel or a zip does not keep.
    code = compile(data, filename, "exec", dont_inherit=True)
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))

def engine_modules(requests):
    # (paths under site-packages, paths inside the stdlib zip) of the modules the engine imports.
    from firefight.bridge import handle
    for request in requests:
        handle(json.dumps({"op": "resolve", "request": request, "entropy": [0.5] * 512}))
    zipped = next(p for p in sys.path if p.endswith(".zip")) + "/"
    packages = site.getsitepackages()[0] + "/"
    files = [getattr(m, "__file__", None) or "" for m in list(sys.modules.values())]
    files = [f for f in files if f.endswith(".py")]
    return (sorted(f[len(packages):] for f in files if f.startswith(packages)),
            sorted(f[len(zipped):] for f in files if f.startswith(zipped)))

def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"

def add_wheel_bytecode(src, dst, only):
    # __pycache__/<name>.cpython-314.pyc beside each module; RECORD gains each file's hash and
    # size, so the wheel stays a valid wheel (PEP 376/427).
    with zipfile.ZipFile(src) as zin:
        entries = [(info, zin.read(info)) for info in zin.infolist()]
    names = {info.filename for info, _ in entries}
    added = []
    for info, data in entries:
        target = importlib.util.cache_from_source(info.filename)
        if info.filename in only and target not in names:
            added.append((target, _pyc(data, info.filename)))
    lines = "\n".join(_record_line(t, pyc) for t, pyc in added)
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
        for info, data in entries:
            if info.filename.endswith(".dist-info/RECORD") and added:
                data = data.rstrip(b"\n") + b"\n" + lines.encode() + b"\n"
            zout.writestr(info, data, zipfile.ZIP_DEFLATED, 9)
        for target, pyc in added:
            zout.writestr(target, pyc)
    return len(added)

def add_stdlib_bytecode(src, dst, only):
    # zipimport looks for <name>.pyc beside <name>.py in the zip and takes it first.
    with zipfile.ZipFile(src) as zin:
        entries = [(info, zin.read(info)) for info in zin.infolist()]
    zipped = next(p for p in sys.path if p.endswith(".zip")) + "/"
    names = {info.filename for info, _ in entries}
    added = [(info.filename + "c", _pyc(data, zipped + info.filename)) for info, data in entries
             if info.filename in only and info.filename + "c" not in names]
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
        for info, data in entries:
            zout.writestr(info, data, zipfile.ZIP_DEFLATED, 9)
        for name, pyc in added:
            zout.writestr(name, pyc)
    return len(added)
"""

# Runs under Node from the repo root. argv: the example requests (a JSON file), COMPILE_PY's
# file, what to compile ("wheels" or "stdlib"). Loads the runtime as the worker does (Pyodide
# from runtime/pyodide, the runtime's wheels), then writes the wheels or the stdlib zip back.
COMPILE_NODE = r"""
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadPyodide } from "pyodide";
const [requests, script, what] = process.argv.slice(1);
const py = await loadPyodide({ indexURL: path.resolve("runtime/pyodide") + "/",
                               stdout: () => {}, stderr: (m) => console.error(m) });
const wheels = JSON.parse(readFileSync("runtime/wheels/manifest.json", "utf8")).wheels
  .map((w) => "runtime/wheels/" + w);
await py.loadPackage(wheels, { messageCallback: () => {} });
py.runPython(readFileSync(script, "utf8"));
py.globals.set("requests_json", readFileSync(requests, "utf8"));
const [inSite, inZip] = py.runPython("engine_modules(json.loads(requests_json))").toJs();
const compile = (fn, file, only) => {
  py.FS.writeFile("/tmp/in.zip", readFileSync(file));
  py.globals.set("only", py.toPy(only));
  const added = py.runPython(`${fn}("/tmp/in.zip", "/tmp/out.zip", set(only))`);
  writeFileSync(file, py.FS.readFile("/tmp/out.zip"));
  console.log(`[build_runtime] ${path.basename(file)}: ${added} modules compiled`);
};
if (what === "stdlib") compile("add_stdlib_bytecode", "runtime/pyodide/python_stdlib.zip", inZip);
else for (const wheel of wheels) compile("add_wheel_bytecode", wheel, inSite);
"""


def add_bytecode(what: str) -> None:
    """Compile what the engine imports into the runtime's ``wheels`` or ``stdlib`` zip, in
    place, with Pyodide's own Python (see COMPILE_NODE). Needs both parts of the runtime."""
    if not (RUNTIME / "wheels" / "manifest.json").is_file() or not (
            RUNTIME / "pyodide" / "python_stdlib.zip").is_file():
        log(f"{what}: left as source (build the wheels and copy pyodide first)")
        return
    requests = []
    for path in sorted((ROOT / "tests" / "engine" / "examples").glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        if isinstance(data, dict) and "ruleset" in data:
            requests.append(data)
    with tempfile.TemporaryDirectory() as tmp:
        script, examples = Path(tmp) / "compile.py", Path(tmp) / "requests.json"
        script.write_text(COMPILE_PY)
        examples.write_text(json.dumps(requests))
        run("node", "--input-type=module", "-e", COMPILE_NODE, examples, script, what, cwd=ROOT)


def has_bytecode(wheel: Path) -> bool:
    with zipfile.ZipFile(wheel) as zipped:
        return any(n.endswith(".pyc") for n in zipped.namelist())


def build_wheels() -> None:
    wheels_dir = RUNTIME / "wheels"
    deps = copy_into(wheels_dir, fetch(RUNTIME_DEPS))
    for old in wheels_dir.glob("firefight-*.whl"):
        old.unlink()
    project = build_project_wheel(wheels_dir)
    wheels = [*deps, project]
    write_manifest(wheels_dir, wheels)
    add_bytecode("wheels")  # adds only what a wheel lacks: a kept wheel's bytecode stays
    # A changed engine may import stdlib modules it did not before: compile those too (the
    # stdlib zip, like a wheel, only gains what it lacks).
    add_bytecode("stdlib")
    if (RUNTIME / "pyodide" / "python_stdlib.zip").is_file():
        trim_stdlib(RUNTIME / "pyodide" / "python_stdlib.zip")
    stamp_runtime_hash()


SITE_BUNDLE = "site-packages.bin"  # the worker asks for it by name (engine/engine-worker.mjs)


def write_site_bundle(manifest: dict[str, list[str]]) -> None:
    """runtime/wheels/site-packages.bin: every file of the manifest's wheels (their bytecode
    included), in one raw deflate stream (RFC 1951): u32 n (little-endian), n bytes of JSON
    [[path inside site-packages, size], ...], then the files' bytes in that order. The worker
    inflates it while Pyodide starts and writes the files itself (engine/site-bundle.mjs); the
    module's zip carries it instead of the wheels (tools/build_module.py)."""
    index: list[list[object]] = []
    data = bytearray()
    for wheel in manifest["wheels"]:
        with zipfile.ZipFile(RUNTIME / "wheels" / wheel) as zipped:
            for info in zipped.infolist():
                if not info.is_dir():
                    body = zipped.read(info)
                    index.append([info.filename, len(body)])
                    data += body
    head = json.dumps(index, separators=(",", ":")).encode()
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = len(head).to_bytes(4, "little") + head + bytes(data)
    bundle = squeeze.compress(raw) + squeeze.flush()
    (RUNTIME / "wheels" / SITE_BUNDLE).write_bytes(bundle)
    log(f"runtime/wheels/{SITE_BUNDLE}: {len(index)} files, {len(data)} -> {len(bundle)} bytes")


def stamp_runtime_hash() -> None:
    """Write the runtime's hash into runtime/wheels/manifest.json ("runtime"): SHA-256 over the
    wheels and runtime/pyodide's files. The worker keys its cached memory snapshot by it, so a
    rebuilt runtime never restores an old interpreter."""
    manifest_path = RUNTIME / "wheels" / "manifest.json"
    if not manifest_path.is_file():
        return
    manifest = json.loads(manifest_path.read_text())
    write_site_bundle(manifest)
    digest = hashlib.sha256()
    files = [RUNTIME / "wheels" / w for w in [*manifest["wheels"], SITE_BUNDLE]]
    files += [RUNTIME / "pyodide" / name for name in PYODIDE_FILES]
    for path in files:
        digest.update(path.name.encode() + b"\0")
        if path.is_file():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    manifest["runtime"] = digest.hexdigest()[:32]
    # The micropip wheel's name under runtime/pyodide/ (copy_pyodide), for the worker.
    micropip = sorted((RUNTIME / "pyodide").glob("micropip-*.whl"))
    if micropip:
        manifest["micropip"] = micropip[-1].name
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


def build_test_wheels() -> None:
    write_manifest(TEST_WHEELS, copy_into(TEST_WHEELS, fetch(TEST_DEPS)))


# The codecs the stdlib zip keeps (encodings/<name>.py): Unicode, ASCII, Latin-1 and the codecs
# Python, zipfile (cp437 names) and the idna/punycode host names use. The other ~95 (legacy code
# pages, mac_*, iso8859_*, the CJK codecs) are ~280 KB of the module zip that no engine, Pyodide
# or Jinja code reads (issue 17: the zip <= 12 MB); bytes.decode("cp1252") in a plugin would
# raise LookupError.
KEPT_CODECS = frozenset({
    "__init__", "aliases", "utf_8", "utf_8_sig", "utf_16", "utf_16_le", "utf_16_be", "utf_32",
    "utf_32_le", "utf_32_be", "ascii", "latin_1", "charmap", "cp437", "idna", "punycode",
    "raw_unicode_escape", "unicode_escape", "base64_codec", "hex_codec", "undefined", "mbcs",
    "oem", "palmos", "rot_13", "uu_codec", "zlib_codec", "bz2_codec", "quopri_codec",
})


def trim_stdlib(path: Path) -> None:
    """Drop from Pyodide's stdlib zip (rewritten in place) the codecs outside KEPT_CODECS."""
    with zipfile.ZipFile(path) as zin:
        entries = [(info, zin.read(info)) for info in zin.infolist()]

    def dropped(name: str) -> bool:
        parts = name.split("/")
        return (len(parts) == 2 and parts[0] == "encodings" and bool(parts[1])
                and parts[1].split(".")[0] not in KEPT_CODECS)
    kept = [(info, data) for info, data in entries if not dropped(info.filename)]
    if len(kept) == len(entries):
        return
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w") as zout:
        for info, data in kept:
            zout.writestr(info, data, info.compress_type, 9)
    tmp.replace(path)
    log(f"runtime/pyodide/python_stdlib.zip: {len(entries) - len(kept)} unused codecs dropped")


def micropip_wheel() -> Path:
    """The micropip wheel of the version Pyodide's lockfile names (the npm package lists it but
    ships no wheel): a pure wheel from PyPI. The worker installs plugin wheels with it, loading it
    by its URL under runtime/pyodide/ (js-shim/engine/engine-worker.mjs MICROPIP); PyPI's build
    is not the byte-identical file the lockfile's sha256 names, so never by name."""
    lock = json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text())
    return fetch([f"micropip=={lock['packages']['micropip']['version']}"])[0]


def copy_pyodide() -> None:
    target = RUNTIME / "pyodide"
    target.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        source = PYODIDE_NPM / name
        if not source.exists():
            raise SystemExit(f"{source} is missing: run `npm ci` (make setup)")
        shutil.copy2(source, target / name)
    for old in target.glob("micropip-*.whl"):
        old.unlink()
    micropip = micropip_wheel()
    shutil.copy2(micropip, target / micropip.name)
    version = json.loads((PYODIDE_NPM / "package.json").read_text())["version"]
    log(f"runtime/pyodide: pyodide {version}, {len(PYODIDE_FILES)} files")
    add_bytecode("stdlib")
    trim_stdlib(target / "python_stdlib.zip")
    wheels = json.loads((RUNTIME / "wheels" / "manifest.json").read_text())["wheels"] if (
        RUNTIME / "wheels" / "manifest.json").is_file() else []
    if wheels and not all(has_bytecode(RUNTIME / "wheels" / w) for w in wheels):
        add_bytecode("wheels")  # a fresh build: the wheels came before Pyodide was copied
    stamp_runtime_hash()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", choices=["wheels", "pyodide", "test-wheels"])
    for part in parser.parse_args().parts:
        {"wheels": build_wheels, "pyodide": copy_pyodide, "test-wheels": build_test_wheels}[part]()


if __name__ == "__main__":
    main()
