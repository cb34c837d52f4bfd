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
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
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
        if not target.exists() or target.stat().st_size != wheel.stat().st_size:
            shutil.copy2(wheel, target)
        copies.append(target)
    return copies


def build_wheels() -> None:
    wheels_dir = RUNTIME / "wheels"
    deps = copy_into(wheels_dir, fetch(RUNTIME_DEPS))
    for old in wheels_dir.glob("firefight-*.whl"):
        old.unlink()
    project = build_project_wheel(wheels_dir)
    write_manifest(wheels_dir, [*deps, project])


def build_test_wheels() -> None:
    write_manifest(TEST_WHEELS, copy_into(TEST_WHEELS, fetch(TEST_DEPS)))


def copy_pyodide() -> None:
    target = RUNTIME / "pyodide"
    target.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        source = PYODIDE_NPM / name
        if not source.exists():
            raise SystemExit(f"{source} is missing: run `npm ci` (make setup)")
        shutil.copy2(source, target / name)
    version = json.loads((PYODIDE_NPM / "package.json").read_text())["version"]
    log(f"runtime/pyodide: pyodide {version}, {len(PYODIDE_FILES)} files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", choices=["wheels", "pyodide", "test-wheels"])
    for part in parser.parse_args().parts:
        {"wheels": build_wheels, "pyodide": copy_pyodide, "test-wheels": build_test_wheels}[part]()


if __name__ == "__main__":
    main()
