#!/usr/bin/env python3
"""Build the installable module zip: ``dist/firefight.zip`` (stdlib only).

    python tools/build_module.py [--out dist/firefight.zip] [--base-url URL] [--manifest-url URL]

``--base-url URL`` (``make module BASE_URL=URL``): where this release is hosted. The zip's
``module.json`` (and ``dist/module.json`` beside the zip, to host with it) then says
``download: URL/firefight.zip`` (PackageManifestData ``download``: "where the source files for
this package may be downloaded. Required in order to support package installation"),
``manifest: URL/module.json`` (where Foundry looks for the package's newest manifest when it
checks for updates; ``--manifest-url`` / ``MANIFEST_URL=`` for a fixed "latest" address) and
``url: URL`` (``--project-url`` / ``PROJECT_URL=`` for the project's page). Without it the
repository's placeholders (``example.invalid``) stay: the zip installs by unpacking only.

The zip holds, at its root (Foundry unpacks it as ``Data/modules/firefight/``): ``module.json``,
the shim (``js-shim/``), the Pyodide runtime and the engine's packages (``runtime/``: the site
bundle packed from the runtime's wheels, ``runtime/wheels/site-packages.bin``), the
card templates, the languages, the icons and the compendium packs
compiled to LevelDB, one per supported game system for Actor and Item packs
(``packs/<source>-<system>/``, each declaring its ``system`` in module.json; run ``make packs``
first). Nothing else: no tests, no
Python sources (the engine ships in the site bundle), no ``node_modules``, no pack sources.
Every path the manifest names is checked to be in the zip, and the site bundle the runtime's
manifest names; a missing one fails the build.
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Whole directories shipped as they are (files only; dot-files and caches skipped).
TREES = ("js-shim", "runtime/pyodide", "templates", "lang", "assets")
SINGLE = ("module.json", "runtime/wheels/manifest.json", "README.md")
# LevelDB files a pack does not need (the lock and the log are recreated when it is opened).
PACK_SKIP = {"LOCK", "LOG", "LOG.old"}
SKIP_SUFFIXES = (".pyc", ".map")


class BuildError(Exception):
    pass


def with_urls(manifest: dict[str, object], base_url: str, manifest_url: str = "",
              project_url: str = "") -> dict[str, object]:
    """The manifest with `url`, `manifest` and `download` for a release hosted at `base_url`."""
    base = base_url.strip().rstrip("/")
    if not base.startswith(("https://", "http://")):
        raise BuildError(f"BASE_URL must be an http(s) URL, not {base_url!r}")
    return {**manifest, "url": project_url.strip() or base,
            "manifest": manifest_url.strip() or f"{base}/module.json",
            "download": f"{base}/firefight.zip"}


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(REPO)
        if path.is_dir() or any(p.startswith(".") or p == "__pycache__" for p in rel.parts):
            continue
        if path.name.endswith(SKIP_SUFFIXES):
            continue
        yield path


def manifest_paths(manifest: dict[str, object]) -> list[str]:
    """Every path module.json names: esmodules, scripts, styles, languages, packs (dirs)."""
    paths: list[str] = []
    for key in ("esmodules", "scripts", "styles"):
        paths += [str(p) for p in manifest.get(key, []) or []]  # type: ignore[union-attr]
    for entry in manifest.get("languages", []) or []:  # type: ignore[union-attr]
        paths.append(str(entry["path"]))  # type: ignore[index]
    for entry in manifest.get("packs", []) or []:  # type: ignore[union-attr]
        paths.append(str(entry["path"]).rstrip("/") + "/")  # type: ignore[index]
    return paths


def collect(manifest: dict[str, object]) -> dict[str, Path]:
    """Archive name -> file on disk."""
    out: dict[str, Path] = {}
    for name in SINGLE:
        path = REPO / name
        if not path.is_file():
            raise BuildError(f"{name} is missing (run `make runtime`)")
        out[name] = path
    for tree in TREES:
        root = REPO / tree
        if not root.is_dir():
            raise BuildError(f"{tree}/ is missing (run `make runtime`)")
        for path in _files(root):
            out[path.relative_to(REPO).as_posix()] = path
    # The worker loads the engine's packages from the site bundle the wheels were packed into
    # (tools/build_runtime.py `write_site_bundle`), not from the wheels themselves.
    path = REPO / "runtime/wheels/site-packages.bin"
    if not path.is_file():
        raise BuildError("runtime/wheels/site-packages.bin is missing (run `make runtime`)")
    out["runtime/wheels/site-packages.bin"] = path
    for entry in manifest.get("packs", []) or []:  # type: ignore[union-attr]
        pack = REPO / str(entry["path"])  # type: ignore[index]
        files = [p for p in _files(pack) if p.name not in PACK_SKIP] if pack.is_dir() else []
        if not any(p.name == "CURRENT" for p in files):
            raise BuildError(f"{entry['path']} is not a compiled LevelDB pack (run `make packs`)")  # type: ignore[index]
        for path in files:
            out[path.relative_to(REPO).as_posix()] = path
    return out


def check(names: set[str], manifest: dict[str, object]) -> list[str]:
    """The manifest paths missing from a set of archive names."""
    missing = []
    for path in manifest_paths(manifest):
        ok = any(n.startswith(path) for n in names) if path.endswith("/") else path in names
        if not ok:
            missing.append(path)
    return missing


def compresses(path: Path) -> bool:
    """Deflate what it shrinks (the wasm by about two thirds, issue 17); store what is compressed
    already (wheels and most of what is zipped), where deflate only costs unpacking time."""
    data = path.read_bytes()
    return len(zlib.compress(data, 6)) < 0.9 * len(data)


def build(out: Path, base_url: str = "", manifest_url: str = "", project_url: str = "") -> Path:
    manifest = json.loads((REPO / "module.json").read_text("utf-8"))
    if base_url:
        manifest = with_urls(manifest, base_url, manifest_url, project_url)
    elif manifest_url or project_url:
        raise BuildError("MANIFEST_URL and PROJECT_URL need BASE_URL (where the zip is hosted)")
    files = collect(manifest)
    missing = check(set(files), manifest)
    if missing:
        raise BuildError(
            f"module.json names paths that are not in the module: {', '.join(missing)}"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
        for name in sorted(files):
            if name == "module.json":  # with the release's URLs, if given
                zf.writestr(name, text, compress_type=zipfile.ZIP_DEFLATED)
                continue
            kind = zipfile.ZIP_DEFLATED if compresses(files[name]) else zipfile.ZIP_STORED
            zf.write(files[name], name, compress_type=kind)
    tmp.replace(out)
    # The manifest to host beside the zip (install by manifest URL).
    (out.parent / "module.json").write_text(text, "utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=REPO / "dist" / "firefight.zip")
    parser.add_argument("--base-url", default="", help="where the release is hosted")
    parser.add_argument("--manifest-url", default="",
                        help="the manifest's address (default BASE/module.json)")
    parser.add_argument("--project-url", default="", help="the project's page (default BASE)")
    args = parser.parse_args(argv)
    try:
        out = build(args.out, args.base_url, args.manifest_url, args.project_url)
    except BuildError as exc:
        sys.exit(f"make module: {exc}")
    size = out.stat().st_size / 1e6
    with zipfile.ZipFile(out) as zf:
        count = len(zf.namelist())
    print(
        f"wrote {out.relative_to(REPO) if out.is_relative_to(REPO) else out}: "
        f"{count} files, {size:.1f} MB"
    )
    if not args.base_url:
        print("make module: no BASE_URL: module.json keeps example.invalid (install by unzipping; "
              "README, 'Hosting a release')")


if __name__ == "__main__":
    main()
