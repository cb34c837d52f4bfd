"""tools/build_module.py: the release's address goes into the zip's module.json (audit D5)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

if sys.platform == "emscripten":
    pytest.skip("reads the repository's tools: CPython only", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import build_module  # noqa: E402

MANIFEST = json.loads((REPO / "module.json").read_text("utf-8"))


def test_a_base_url_gives_url_manifest_and_download() -> None:
    out = build_module.with_urls(MANIFEST, "https://example.org/ff/0.1.0/")
    assert out["download"] == "https://example.org/ff/0.1.0/firefight.zip"
    assert out["manifest"] == "https://example.org/ff/0.1.0/module.json"
    assert out["url"] == "https://example.org/ff/0.1.0"
    assert {k: v for k, v in out.items() if k not in ("url", "manifest", "download")} == {
        k: v for k, v in MANIFEST.items() if k not in ("url", "manifest", "download")}


def test_a_fixed_manifest_address_and_project_page() -> None:
    latest = "https://github.com/o/firefight/releases/latest/download/module.json"
    out = build_module.with_urls(MANIFEST, "https://github.com/o/firefight/releases/download/v0.1.0",
                                 manifest_url=latest, project_url="https://github.com/o/firefight")
    assert out["manifest"] == latest
    assert out["url"] == "https://github.com/o/firefight"
    assert out["download"].endswith("/releases/download/v0.1.0/firefight.zip")


def test_a_base_url_must_be_http() -> None:
    with pytest.raises(build_module.BuildError, match="BASE_URL"):
        build_module.with_urls(MANIFEST, "example.org/ff")


def test_make_module_passes_the_addresses() -> None:
    makefile = (REPO / "Makefile").read_text("utf-8")
    assert '--base-url "$(BASE_URL)"' in makefile
    assert '--manifest-url "$(MANIFEST_URL)"' in makefile
