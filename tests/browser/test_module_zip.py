"""`make module`: dist/firefight.zip is what a Foundry v13 world installs. Every path its
module.json names is in it, every wheel the runtime loads, the compiled packs, and nothing of
the development tree (tests, Python sources, node_modules, pack sources)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
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


def test_the_runtime_and_its_wheels_are_in_the_zip(
    zip_names: tuple[set[str], zipfile.ZipFile],
) -> None:
    names, zf = zip_names
    wheels = json.loads(zf.read("runtime/wheels/manifest.json"))["wheels"]
    assert any(w.startswith("firefight-") for w in wheels)
    for wheel in wheels:
        assert f"runtime/wheels/{wheel}" in names
    for f in (
        "pyodide.mjs",
        "pyodide.asm.mjs",
        "pyodide.asm.wasm",
        "python_stdlib.zip",
        "pyodide-lock.json",
    ):
        assert f"runtime/pyodide/{f}" in names
    schemas = json.loads(zf.read("runtime/schemas.json"))
    assert set(schemas["rulesets"]) >= {"soe", "percentile", "shock", "dpv"}
    # The worker finds everything relative to itself, as in the repository.
    assert "js-shim/engine-worker.mjs" in names


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
