""""Copy request" (issue 28): the Shoot dialog and an action dialog put the request their choices
make on the clipboard, and the command line's balance lab takes it as it is (`firefight sim`,
`firefight sweep`). The sweep of the copied shot is the README's balance-lab chart
(test-results/browser/readme-sweep.png, committed as docs/screenshots/sweep.png)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, SHOTS, Table, open_table

SHOOTER, TARGET = "Generic Conscript", "Generic Experienced"
# The option's label as the dialog shows it (lang/en.json).
CONFIRMED = json.loads((REPO / "lang" / "en.json").read_text(encoding="utf-8"))[
    "FIREFIGHT"]["shock"]["opt"]["referee_confirmed_hit"]["label"]
CLI = [sys.executable, "-m", "firefight"]
# The README's chart: test-results/browser/readme-sweep.png, committed as
# docs/screenshots/sweep.png (tests/engine/test_cli.py checks the README names it).
README_PICTURE = "sweep"
COPIED = "Request copied"  # lang/en.json FIREFIGHT.ui.dialog.requestCopied, its start


@pytest.fixture(scope="module")
def shock(server: str, browser: Any) -> Iterator[Table]:
    t = open_table(server, browser, "shock", "shock-troops",
                   permissions=["clipboard-read", "clipboard-write"])
    yield t
    t.context.close()


def _clipboard(page: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(page.evaluate("() => navigator.clipboard.readText()"))
    return data


def _copy(page: Any, dialog: Any) -> dict[str, Any]:
    """Empty the clipboard, click "Copy request", wait for the notification: the request."""
    page.evaluate("() => navigator.clipboard.writeText('')")
    dialog.get_by_role("button", name="Copy request").click()
    page.locator("#notifications .notification", has_text=COPIED).last.wait_for()
    return _clipboard(page)


def _sim(path: Path, *more: str) -> dict[str, Any]:
    done = subprocess.run([*CLI, "sim", str(path), "-n", "2000", "--seed", "1", *more],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def _close(page: Any) -> None:
    page.evaluate("() => document.querySelectorAll('dialog.application [data-action=close]')"
                  ".forEach((b) => b.click())")


def test_the_shoot_dialog_copies_its_request_for_the_lab(shock: Table, tmp_path: Path) -> None:
    page = shock.page
    shock.token(SHOOTER).click()
    shock.token(TARGET).click(button="right")
    page.wait_for_function("(b) => [...game.user.targets].map((t) => t.name).join() === b",
                           arg=TARGET)
    page.keyboard.press("Shift+F")
    dialog = page.locator("dialog.application").filter(has=page.locator(".firefight-shot"))
    dialog.wait_for()
    # As the choices stand: the referee's confirmation unticked, then ticked.
    box = dialog.get_by_label(CONFIRMED, exact=True)
    box.uncheck()
    first = _copy(page, dialog)
    box.check()
    request = _copy(page, dialog)
    assert first["options"]["referee_confirmed_hit"] is False
    assert request["options"]["referee_confirmed_hit"] is True
    assert request["ruleset"] == "shock"
    assert request["attacker"]["name"] == SHOOTER
    assert request["target"]["name"] == TARGET
    assert request["weapon"]["name"]
    path = tmp_path / "shot.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    out = _sim(path)
    assert out["outcomes"]["hit"]["count"] == 2000  # the confirmed hit always lands
    # The clipboard refused (as a browser without the permission does): the JSON shows in the
    # dialog, selected, for the person to copy.
    page.evaluate("""() => { navigator.clipboard.writeText = () =>
        Promise.reject(new DOMException('refused', 'NotAllowedError')); }""")
    dialog.get_by_role("button", name="Copy request").click()
    text = dialog.locator(".ff-copy-request-text")
    text.wait_for()
    assert json.loads(text.input_value()) == request
    selected = page.evaluate("() => document.activeElement.selectionEnd"
                             " - document.activeElement.selectionStart")
    assert selected == len(text.input_value())
    page.evaluate("() => { delete navigator.clipboard.writeText; }")  # the browser's own again
    _close(page)
    # The README's chart: the copied shot, the hit rolled, over range and three pack weapons.
    request["options"]["referee_confirmed_hit"] = False
    path.write_text(json.dumps(request, indent=2), encoding="utf-8")
    out_dir = SHOTS / "readme-sweep"
    shutil.rmtree(out_dir, ignore_errors=True)
    done = subprocess.run(
        [*CLI, "sweep", str(path), "--vary", "range.value=25:500:25",
         "--vary", "weapon=DShK,PKM,AKM", "-n", "20000", "--seed", "1", "--workers", "2",
         "--out", str(out_dir), "--chart", "png"],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert (out_dir / "sweep.png").stat().st_size > 20_000
    shutil.copyfile(out_dir / "sweep.png", SHOTS / f"readme-{README_PICTURE}.png")
    rows = (out_dir / "sweep.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + 20 * 3


def test_an_action_dialog_copies_its_request_for_the_lab(shock: Table, tmp_path: Path) -> None:
    page = shock.page
    page.evaluate("() => canvas.tokens.releaseAll()")
    shock.token(SHOOTER).click()
    page.locator('.scene-tool[data-tool="firefightActions"]').click()
    picker = page.locator("dialog.firefight-action-picker")
    picker.wait_for()
    picker.locator('input[name="ff-action"][value="activation_pool"]').check()
    picker.locator("button[data-action=pick]").click()
    dialog = page.locator("dialog.firefight-action-dialog")
    dialog.wait_for()
    held = _copy(page, dialog)
    dialog.get_by_label("Activation", exact=True).select_option(label="Act on a held one")
    request = _copy(page, dialog)
    assert held["options"]["change"] != request["options"]["change"]  # as the choice stands
    assert held["action"] == "activation_pool"
    assert held["actor"]["name"] == SHOOTER
    path = tmp_path / "action.json"
    path.write_text(json.dumps(held), encoding="utf-8")
    assert _sim(path)["n"] == 2000
    # Spending an activation the unit does not hold: the lab refuses it as the table would,
    # naming the field.
    path.write_text(json.dumps(request), encoding="utf-8")
    done = subprocess.run([*CLI, "sim", str(path), "-n", "10"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["fields"][0]["field"] == "actor.pool"
    _close(page)


@pytest.fixture(autouse=True)
def _no_page_errors(shock: Table) -> Iterator[None]:
    yield
    assert not shock.errors
