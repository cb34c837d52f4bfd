"""The ``firefight`` command line (CPython only: Pyodide has no subprocesses)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _examples import EXAMPLES, IN_PYODIDE

from firefight.cli import main

pytestmark = pytest.mark.skipif(IN_PYODIDE, reason="no CLI inside the browser runtime")


def test_resolve_with_scripted_dice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", str(EXAMPLES / "soe_rhino.json"), "--dice", "1,10,13,7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"]["hp_loss"] == 60


def test_resolve_text_card(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", str(EXAMPLES / "soe_rhino.json"), "--dice", "1,10,13,7",
                 "--format", "text"]) == 0
    assert "60 HP lost (65 → 5)" in capsys.readouterr().out


def test_bad_request_exits_1_with_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"ruleset": "soe"}', encoding="utf-8")
    assert main(["resolve", str(bad), "--seed", "1"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "invalid_request"


def test_odds_and_inverse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--modifier", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"] == "11/21"
    assert main(["odds", "--probability", "0.5238"]) == 0
    assert json.loads(capsys.readouterr().out)["net_modifier"] == 0


def test_schema_and_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "soe"]) == 0
    assert "options" in json.loads(capsys.readouterr().out)
    assert main(["resolve", str(EXAMPLES / "soe_rhino.json"), "--seed", "4"]) == 0
    result = tmp_path / "r.json"
    result.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["card", str(result), "--format", "html"]) == 0
    assert "firefight-card" in capsys.readouterr().out


def test_referee_tools(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tool", "creature", "--mass", "1100"]) == 0
    assert json.loads(capsys.readouterr().out)["hit_points"] == 65  # the rhino of Table 7
    assert main(["tool", "coverage", "0.1"]) == 0
    assert json.loads(capsys.readouterr().out)["effectiveness"] == pytest.approx(0.19)
    assert main(["tool", "weapon", "--grains", "63", "--fps", "2362"]) == 0
    assert "damage" in json.loads(capsys.readouterr().out)
    assert main(["tool", "m3", "--width", "0.37", "--distance", "100", "--sigma", "3.7"]) == 0
    assert json.loads(capsys.readouterr().out)["probability"] == pytest.approx(0.632, abs=1e-3)


def test_the_readme_shows_the_screenshots_the_browser_tests_take() -> None:
    # Every picture the README shows (docs/screenshots/<name>.png) is one the README's walk
    # takes (tests/browser/test_readme_walk.py: picture(page, element, "<name>"), saved as
    # test-results/browser/readme-<name>.png), and the README says where it is written.
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    walk = (root / "tests" / "browser" / "test_readme_walk.py").read_text(encoding="utf-8")
    shown = re.findall(r"\(docs/screenshots/([^)/]+)\.png\)", readme)
    taken = set(re.findall(r'\bpicture\(page, \w+, "([^"]+)"\)', walk))
    # The balance lab's chart: the sweep of a copied request (tests/browser/test_copy_request.py).
    lab = (root / "tests" / "browser" / "test_copy_request.py").read_text(encoding="utf-8")
    taken |= set(re.findall(r'^README_PICTURE = "([^"]+)"$', lab, re.M))
    assert shown, "the README shows no screenshot"
    assert 'SHOTS / f"readme-{name}.png"' in walk  # SHOTS: tests/browser/conftest.py
    for name in shown:
        assert name in taken, f"the README shows docs/screenshots/{name}.png, which no test takes"
        assert f"readme-{name}.png" in readme
        assert (root / "docs" / "screenshots" / f"{name}.png").stat().st_size > 10_000
