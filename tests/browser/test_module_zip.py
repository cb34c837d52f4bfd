"""`make module`: dist/firefight.zip is what a Foundry v13 world installs. Every path its
module.json names is in it, every wheel the runtime loads, the compiled packs, and nothing of
the development tree (tests, Python sources, node_modules, pack sources)."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import shutil
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "tools"))
import build_module


@pytest.fixture(scope="module")
def zip_names(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[set[str], zipfile.ZipFile]]:
    out = build_module.build(tmp_path_factory.mktemp("dist") / "firefight.zip")
    with zipfile.ZipFile(out) as zf:
        yield set(zf.namelist()), zf


def test_manifest_paths_are_in_the_zip(zip_names: tuple[set[str], zipfile.ZipFile]) -> None:
    names, zf = zip_names
    manifest = json.loads(zf.read("module.json"))
    assert manifest == json.loads((REPO / "module.json").read_text("utf-8"))
    for path in manifest["esmodules"] + manifest["styles"]:
        assert path in names, path
    for lang in manifest["languages"]:
        assert lang["path"] in names, lang
        json.loads(zf.read(lang["path"]))
    for pack in manifest["packs"]:
        files = {n for n in names if n.startswith(pack["path"] + "/")}
        assert f"{pack['path']}/CURRENT" in files, pack["name"]
        assert any(n.endswith((".ldb", ".log")) for n in files), pack["name"]
    assert build_module.check(names, manifest) == []


def test_the_zip_carries_one_pack_per_system(zip_names: tuple[set[str], zipfile.ZipFile]) -> None:
    names, zf = zip_names
    manifest = json.loads(zf.read("module.json"))
    systems = {"worldbuilding", "dnd5e", "pf2e"}
    typed = [p for p in manifest["packs"] if p["type"] in {"Actor", "Item"}]
    assert {p["system"] for p in typed} == systems
    for source in {p["flags"]["firefight"]["source"] for p in typed}:
        built = {p["system"] for p in typed if p["flags"]["firefight"]["source"] == source}
        assert built == systems, source
    shipped = {n.split("/")[1] for n in names if n.startswith("packs/")}
    assert shipped == {p["name"] for p in manifest["packs"]}


VALIDATE_JS = """
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { manifestErrors } from "./sandbox/foundry/packages.mjs";
const [root] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(path.join(root, "module.json"), "utf8"));
const exists = (p, { directory } = {}) =>
  existsSync(path.join(root, directory ? `${p}/CURRENT` : p));
console.log(JSON.stringify(await manifestErrors(manifest, { exists })));
"""


def test_the_zips_manifest_passes_foundrys_package_validation(
    zip_names: tuple[set[str], zipfile.ZipFile], tmp_path: Path,
) -> None:
    """The same checks the sandbox makes at boot (sandbox/foundry/packages.mjs), on the unpacked
    zip: an Actor/Item pack without a system, a missing file or pack folder would fail here."""
    _, zf = zip_names
    root = tmp_path / "modules" / "firefight"
    zf.extractall(root)
    node = shutil.which("node")
    assert node, "node is needed to run the sandbox's validator"
    script = tmp_path / "validate.mjs"
    script.write_text(VALIDATE_JS.replace("./sandbox/", (REPO / "sandbox").as_uri() + "/"))
    out = subprocess.run([node, str(script), str(root)], capture_output=True, text=True,
                         check=True, cwd=REPO)
    assert json.loads(out.stdout) == []
    # And the check bites: the same manifest with one pack's system removed is refused.
    manifest = json.loads((root / "module.json").read_text("utf-8"))
    del manifest["packs"][0]["system"]
    (root / "module.json").write_text(json.dumps(manifest), "utf-8")
    out = subprocess.run([node, str(script), str(root)], capture_output=True, text=True,
                         check=True, cwd=REPO)
    name, kind = manifest["packs"][0]["name"], manifest["packs"][0]["type"]
    assert json.loads(out.stdout) == [
        f'The Compendium pack "{name}" of the "{kind}" type must declare the "system" upon which'
        " it depends"
    ]


def site_files(data: bytes) -> dict[str, bytes]:
    """The files of a site bundle (tools/build_runtime.py `write_site_bundle`)."""
    raw = zlib.decompress(data, -15)
    n = int.from_bytes(raw[:4], "little")
    at, files = 4 + n, {}
    for name, size in json.loads(raw[4 : 4 + n]):
        files[name] = raw[at : at + size]
        at += size
    assert at == len(raw)
    return files


def test_the_runtime_and_its_site_bundle_are_in_the_zip(
    zip_names: tuple[set[str], zipfile.ZipFile],
) -> None:
    """The worker loads the engine's packages from one bundle of the runtime's wheels (issue 17):
    the zip carries it, not the wheels, and it holds every file of every wheel, as built."""
    names, zf = zip_names
    manifest = json.loads(zf.read("runtime/wheels/manifest.json"))
    assert any(w.startswith("firefight-") for w in manifest["wheels"])
    # No engine wheel: only micropip's, which installs plugin wheels (engine-worker.mjs).
    assert [n for n in names if n.endswith(".whl")] == [f"runtime/pyodide/{manifest['micropip']}"]
    bundled = site_files(zf.read("runtime/wheels/site-packages.bin"))
    expected: dict[str, bytes] = {}
    for wheel in manifest["wheels"]:
        with zipfile.ZipFile(REPO / "runtime/wheels" / wheel) as built:
            expected |= {i.filename: built.read(i) for i in built.infolist() if not i.is_dir()}
    assert bundled == expected
    for f in (
        "pyodide.mjs",
        "pyodide.asm.mjs",
        "pyodide.asm.wasm",
        "python_stdlib.zip",
        "pyodide-lock.json",
    ):
        assert f"runtime/pyodide/{f}" in names
    # Settings and sheet fields come from the engine at runtime (world/catalog.mjs), not a file.
    assert "runtime/schemas.json" not in names
    # The worker finds everything relative to itself, as in the repository.
    assert "js-shim/engine/engine-worker.mjs" in names


def test_no_development_files(zip_names: tuple[set[str], zipfile.ZipFile]) -> None:
    names, _ = zip_names
    for name in names:
        top = name.split("/")[0]
        assert top not in {
            "tests",
            "py",
            "node_modules",
            "tools",
            "sandbox",
            "build",
            "docs",
            ".venv",
        }, name
        assert not name.endswith((".py", ".pyc")), name
        assert "/_source/" not in name, name
        assert Path(name).name not in {"LOCK", "package.json", "package-lock.json", "Makefile"}, (
            name
        )


def test_the_zip_is_small_and_unpacks_to_the_same_bytes(
    zip_names: tuple[set[str], zipfile.ZipFile],
) -> None:
    """Issue 17: at most 12 MB, the wasm deflated (it was stored: 14.9 MB); Foundry unpacks the
    zip, so every entry must come out byte for byte as built."""
    _, zf = zip_names
    assert zf.filename is not None
    assert Path(zf.filename).stat().st_size <= 12_000_000
    wasm = zf.getinfo("runtime/pyodide/pyodide.asm.wasm")
    assert wasm.compress_type == zipfile.ZIP_DEFLATED
    assert wasm.compress_size < wasm.file_size / 2
    assert zf.read(wasm) == (REPO / "runtime/pyodide/pyodide.asm.wasm").read_bytes()
    assert zf.testzip() is None  # every entry's CRC
    for info in zf.infolist():  # stored only where deflate does not pay (a wheel is a zip)
        if info.compress_type == zipfile.ZIP_STORED and info.file_size > 100_000:
            assert info.filename.endswith((".bin", ".zip", ".whl")), info.filename


def _record_ok(wheel: zipfile.ZipFile) -> None:
    """PEP 376/427: RECORD lists every file of the wheel with its sha256 and size."""
    record = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    rows = {r[0]: r for r in csv.reader(io.StringIO(wheel.read(record).decode())) if r}
    assert set(rows) == set(wheel.namelist()), set(rows) ^ set(wheel.namelist())
    for name, (_, digest, size) in rows.items():
        if name == record:
            continue
        data = wheel.read(name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        assert digest == f"sha256={expected.decode()}", name
        assert int(size) == len(data), name


def test_the_runtime_ships_bytecode_from_pyodides_python(
    zip_names: tuple[set[str], zipfile.ZipFile],
) -> None:
    """Issue 17: the modules the engine imports come as .pyc compiled by Pyodide's CPython
    3.14 (its magic number), in valid wheels, in their site bundle and in the stdlib zip beside
    their sources."""
    _, zf = zip_names
    magic = None
    manifest = json.loads(zf.read("runtime/wheels/manifest.json"))
    for wheel_name in manifest["wheels"]:
        with zipfile.ZipFile(REPO / "runtime/wheels" / wheel_name) as wheel:
            _record_ok(wheel)
            if wheel_name.startswith(("firefight-", "pydantic-", "jinja2-")):
                assert any(n.endswith(".cpython-314.pyc") for n in wheel.namelist()), wheel_name
    bundled = site_files(zf.read("runtime/wheels/site-packages.bin"))
    for pyc in [n for n in bundled if n.endswith(".cpython-314.pyc")]:
        source = pyc.replace("__pycache__/", "").replace(".cpython-314.pyc", ".py")
        assert source in bundled, pyc
        header = bundled[pyc][:16]
        magic = magic or header[:4]
        assert header[:4] == magic, pyc
        # PEP 552 flags: hash-based, unchecked (the source hash is keyed by 3.14's magic
        # number, so only Pyodide can check it: the worker test boots on these).
        assert header[4:8] == b"\x01\0\0\0", pyc
    assert magic is not None
    assert magic[2:] == b"\r\n"  # a CPython magic number (the stdlib zip's is the same)
    with zipfile.ZipFile(io_bytes(zf.read("runtime/pyodide/python_stdlib.zip"))) as stdlib:
        listed = set(stdlib.namelist())
        pycs = [n for n in listed if n.endswith(".pyc")]
        assert {"typing.pyc", "enum.pyc", "json/__init__.pyc"} <= set(pycs)
        for pyc in pycs:
            assert pyc[:-1] in listed, pyc
            assert stdlib.read(pyc)[:4] == magic, pyc


def io_bytes(data: bytes) -> io.BytesIO:
    return io.BytesIO(data)


# Boots the runtime as the worker does (Pyodide from runtime/pyodide, the site bundle's files
# written by js-shim/engine/site-bundle.mjs) and
# counts the modules Python compiles from source while `firefight.bridge` is imported and a
# shot resolved: with the shipped bytecode there are none.
COMPILES_JS = """
import { readFileSync } from "node:fs";
import path from "node:path";
import { loadPyodide } from "pyodide";
import { inflateSite, siteFiles, writeFiles } from "./js-shim/engine/site-bundle.mjs";
const py = await loadPyodide({ indexURL: path.resolve("runtime/pyodide") + "/" });
const all = await inflateSite(readFileSync("runtime/wheels/site-packages.bin"));
writeFiles(py.FS, py._api.sitePackages, siteFiles(all));
py.globals.set("request", readFileSync("tests/engine/examples/shock_dshk.json", "utf8"));
console.log(py.runPython(`
import json, zipimport
from importlib.machinery import SourceFileLoader
compiled = []
to_code = SourceFileLoader.source_to_code
def counting(self, data, path, *args, **kwargs):
    compiled.append(path)
    return to_code(self, data, path, *args, **kwargs)
SourceFileLoader.source_to_code = counting
zip_compile = zipimport._compile_source
def zip_counting(pathname, source):
    compiled.append(pathname)
    return zip_compile(pathname, source)
zipimport._compile_source = zip_counting
from firefight.bridge import handle
reply = json.loads(handle(json.dumps({"op": "resolve", "request": json.loads(request),
                                      "entropy": [0.5] * 64})))
json.dumps({"ok": reply["ok"], "compiled": compiled})
`));
"""


def test_the_engine_boots_without_compiling_a_module() -> None:
    """Issue 17: a .pyc Pyodide's Python could not use (a wrong magic number, a stale source
    check) would be skipped silently and the module compiled from source again."""
    proc = subprocess.run(["node", "--input-type=module", "-e", COMPILES_JS], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ok"]
    assert out["compiled"] == []
