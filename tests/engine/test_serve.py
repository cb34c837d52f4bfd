"""tools/serve.py, the sandbox table's server: its port and a clear message when it is taken."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
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
