"""tools/serve.py, the sandbox table's server: its port and a clear message when it is taken;
other modules installed at /modules/<id>/ (examples/ and --module) with their MIME types."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from _examples import IN_PYODIDE

SERVE = Path(__file__).resolve().parents[2] / "tools" / "serve.py"
pytestmark = pytest.mark.skipif(IN_PYODIDE or not SERVE.is_file(),
                                reason="starts a server process")


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(SERVE), "--quiet", *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})


def test_a_taken_port_is_a_clear_message_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _serve("--port", str(port))
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert "Traceback" not in err
    assert f"cannot listen on 127.0.0.1:{port}" in err
    assert "make table PORT=" in err


def test_the_port_comes_from_port_in_the_environment() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = _serve(env={"PORT": str(port)})
    try:
        assert proc.stdout is not None
        assert f"http://127.0.0.1:{port}/" in proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as res:  # noqa: S310 (http on loopback)
            return res.status, res.headers.get("Content-Type", ""), res.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), b""


def _started(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = _serve("--port", "0", *args)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "http://127.0.0.1:" in line, line
    return proc, line.split(": ", 1)[1].strip()


def _module(root: Path, name: str) -> Path:
    folder = root / name
    (folder / "wheels").mkdir(parents=True)
    (folder / ".hidden").mkdir()
    (folder / "module.json").write_text(json.dumps({"id": name, "title": name, "version": "1"}))
    (folder / "main.mjs").write_text("export {};\n")
    (folder / "wheels" / "p-0.1.0-py3-none-any.whl").write_bytes(b"PK\x03\x04")
    (folder / ".hidden" / "secret.txt").write_text("no")
    return folder


def test_other_modules_are_served_at_modules_id_under_the_route_prefix(tmp_path: Path) -> None:
    folder = _module(tmp_path, "ff-test-module")
    proc, base = _started("--route-prefix", "ff", "--module", str(folder))
    try:
        assert base.endswith("/ff/")
        mod = base + "modules/ff-test-module/"
        status, mime, body = _get(mod + "module.json")
        assert (status, mime) == (200, "application/json")
        assert json.loads(body)["id"] == "ff-test-module"
        assert _get(mod + "main.mjs")[:2] == (200, "text/javascript")
        status, mime, body = _get(mod + "wheels/p-0.1.0-py3-none-any.whl")
        assert (status, mime, body) == (200, "application/octet-stream", b"PK\x03\x04")
        # Nothing hidden, nothing outside the module's folder, nothing outside the prefix.
        assert _get(mod + ".hidden/secret.txt")[0] == 404
        assert _get(mod + "%2e%2e/ff-test-module/module.json")[0] in (200, 404)
        assert _get(mod + "..%2f..%2fmodule.json")[0] == 404
        assert _get(base.replace("/ff/", "/") + "modules/ff-test-module/module.json")[0] == 404
        assert _get(base + "modules/not-installed/module.json")[0] == 404
        # Firefight itself is still the repo root.
        assert _get(base + "modules/firefight/module.json")[:2] == (200, "application/json")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_every_example_module_is_served_at_its_folder_name() -> None:
    examples = sorted(p.parent for p in (SERVE.parents[1] / "examples").glob("*/module.json"))
    if not examples:
        pytest.skip("no examples/<module>/module.json in this checkout")
    proc, base = _started()
    try:
        for folder in examples:
            status, mime, body = _get(f"{base}modules/{folder.name}/module.json")
            assert (status, mime) == (200, "application/json"), folder.name
            assert json.loads(body) == json.loads((folder / "module.json").read_text("utf-8"))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("name", ["firefight", "Bad Name"])
def test_a_module_folder_must_hold_a_manifest_and_be_named_as_an_id(
        tmp_path: Path, name: str) -> None:
    empty = tmp_path / "no-manifest"
    empty.mkdir()
    proc = _serve("--port", "0", "--module", str(empty))
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert "no module.json" in err
    assert "Traceback" not in err
    folder = _module(tmp_path, name)
    proc = _serve("--port", "0", "--module", str(folder))
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert f"the folder name {name!r} is the module's id" in err
