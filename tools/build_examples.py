"""Build the example plugins' wheels (examples/<module>/wheels/), as their author would.

Each example under examples/ is a Foundry module folder whose module.json names its wheels in
``flags.firefight.wheels`` and whose Python package is in ``python/``. The wheel is built by the
standard PEP 517 build, offline (hatchling is in the venv):

    python -m pip wheel --no-deps --no-build-isolation -w <module>/wheels <module>/python

A wheel newer than every file of its ``python/`` folder is kept (quick when up to date). A module
with ``packs/_source/`` also gets its compendium packs compiled (``node tools/build_packs.mjs
--module <module>``). The wheels and packs are build products, never committed (.gitignore).
``--check``: fail if any is stale.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def modules() -> list[Path]:
    """Every example module folder (one with a module.json and a python/ package)."""
    return sorted(p.parent for p in EXAMPLES.glob("*/module.json")
                  if (p.parent / "python" / "pyproject.toml").is_file())


def wheels_of(module: Path) -> list[Path]:
    """The wheels the module's manifest names (paths relative to the module folder)."""
    manifest = json.loads((module / "module.json").read_text(encoding="utf-8"))
    names = manifest.get("flags", {}).get("firefight", {}).get("wheels", [])
    if not names:
        raise SystemExit(f"{module.name}/module.json names no flags.firefight.wheels")
    return [module / name for name in names]


def _newest_source(python: Path) -> float:
    """The newest file of a package's folder (bytecode caches aside)."""
    return max(p.stat().st_mtime for p in python.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def stale(module: Path) -> bool:
    newest = _newest_source(module / "python")
    return any(not w.is_file() or w.stat().st_mtime < newest for w in wheels_of(module))


def build(module: Path) -> None:
    out = module / "wheels"
    out.mkdir(exist_ok=True)
    for old in out.glob("*.whl"):
        old.unlink()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
                    "--no-deps", "--no-build-isolation", "-w", str(out), str(module / "python")],
                   check=True)
    missing = [str(w.relative_to(ROOT)) for w in wheels_of(module) if not w.is_file()]
    if missing:
        built = ", ".join(p.name for p in out.glob("*.whl"))
        raise SystemExit(f"{module.name}: module.json names {', '.join(missing)}, "
                         f"the build made {built or 'nothing'}")


def packs_stale(module: Path) -> bool:
    """Whether a module's compiled packs (its manifest's `packs`, from packs/_source/) are older
    than their sources or missing."""
    source = module / "packs" / "_source"
    if not source.is_dir():
        return False
    manifest = json.loads((module / "module.json").read_text(encoding="utf-8"))
    newest = max(p.stat().st_mtime for p in [*source.rglob("*"), module / "module.json"])
    built = [module / p["path"] / "CURRENT" for p in manifest.get("packs", [])]
    return any(not c.is_file() or c.stat().st_mtime < newest for c in built)


def build_packs(module: Path) -> None:
    """The module's own compendium packs, compiled as Firefight's are (tools/build_packs.mjs)."""
    subprocess.run(["node", str(ROOT / "tools" / "build_packs.mjs"), "--module", str(module)],
                   check=True, cwd=ROOT)


def main(argv: list[str]) -> int:
    packs = [m for m in modules() if packs_stale(m)]
    todo = [m for m in modules() if stale(m)]
    if "--check" in argv:
        for module in todo:
            print(f"stale: {module.relative_to(ROOT)}/wheels: run tools/build_examples.py",
                  file=sys.stderr)
        for module in packs:
            print(f"stale: {module.relative_to(ROOT)}/packs: run tools/build_examples.py",
                  file=sys.stderr)
        return 1 if todo or packs else 0
    for module in todo:
        print(f"building {module.relative_to(ROOT)}/wheels/")
        build(module)
    for module in packs:
        build_packs(module)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
