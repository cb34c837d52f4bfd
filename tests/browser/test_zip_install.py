"""The README's install path, followed: `make module` builds dist/firefight.zip (tools/
build_module.py), unzipped into a Foundry-like Data folder as `modules/<id>/`; the table is served
with THAT folder as Firefight (`tools/serve.py --firefight`), not the repository. In a world of
each system the README names, the module's packs for that system are listed, an actor dragged from
a compendium lands on the scene, and a shot by the README's steps (select, target, Shoot, Fire)
posts a card; no page error, no request leaves the local server. A zip that misses something the
table needs (its languages, the runtime's wheels, a pack) fails here."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, REPO
from test_readme_walk import DROP_CELL, SCREEN_POINT_JS, firefight, step

SYSTEMS = ("worldbuilding", "dnd5e", "pf2e")  # the README's table of game systems
SHOOTER = "Rifleman Aldo Ferri"  # of the default scene's pack, soe-actors
DROPPED_FROM = "soe-bestiary"  # the pack source a person drags a creature from
INSTALL = "\n## Installing the module into a Foundry world\n"
NAMES_JS = "() => canvas.tokens.placeables.map((t) => t.name)"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dist/firefight.zip as `make module` builds it, unpacked as Foundry installs a module:
    Data/modules/<the manifest's id>/."""
    out = tmp_path_factory.mktemp("dist") / "firefight.zip"
    built = subprocess.run(
        [sys.executable, str(REPO / "tools" / "build_module.py"), "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    with zipfile.ZipFile(out) as zf:
        module_id = str(json.loads(zf.read("module.json"))["id"])
        # The README's step 2 names that folder.
        readme = (REPO / "README.md").read_text("utf-8").partition(INSTALL)[2]
        assert f"`Data/modules/{module_id}/`" in readme
        root = tmp_path_factory.mktemp("Data") / "modules" / module_id
        zf.extractall(root)
    return root


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_unzipped_module_plays_in_a_world_of_each_system(
    installed: Path, serve: Callable[..., str], open_page: Callable[..., Any], system: str,
) -> None:
    base = serve("--firefight", str(installed))
    page, requests, errors = open_page(f"{base}?system={system}")
    page.set_default_timeout(15000)
    # The world and the engine start, or say why not (a missing file fails at once).
    status = page.locator("#engine-status")
    page.locator('#engine-status:is([data-status="ready"], [data-status="failed"])').wait_for(
        timeout=BOOT_TIMEOUT_MS)
    assert status.get_attribute("data-status") == "ready", status.inner_text()
    assert page.evaluate("() => game.ready") is True
    # The sidebar's compendiums: exactly the Actor and Item packs the zip's manifest builds for
    # this system (each declares it; the others' are hidden).
    manifest = json.loads((installed / "module.json").read_text("utf-8"))
    ours = {p["name"] for p in manifest["packs"] if p.get("system") == system}
    assert f"{DROPPED_FROM}-{system}" in ours
    *_, compendiums = step("Ruleset", 4)
    page.get_by_role("tab", name=compendiums, exact=True).click()
    listed = page.eval_on_selector_all(".compendium-pack", "els => els.map(e => e.dataset.pack)")
    assert sorted(listed) == sorted(ours)
    # A creature dragged from the compendium onto an empty cell becomes a token there.
    pack = page.locator(f'.compendium-pack[data-pack="{DROPPED_FROM}-{system}"]')
    pack.locator("summary").click()
    before = page.evaluate(NAMES_JS)
    cell = [(c + 0.5) * 100 for c in DROP_CELL]
    pack.locator(".compendium-entry").first.drag_to(
        page.locator("#scene"), target_position=page.evaluate(SCREEN_POINT_JS, cell))
    page.wait_for_function(f"(n) => ({NAMES_JS})().length > n", arg=len(before))
    (dropped,) = [n for n in page.evaluate(NAMES_JS) if n not in before]
    page.get_by_role("tab", name="Chat", exact=True).click()
    # The README's "At the table": select the shooter, target the creature, Shoot, Fire.
    shoot, _, _, fire = step("Shoot", 4)
    page.locator(f'.token[data-name="{SHOOTER}"]').click()
    page.locator(f'.token[data-name="{dropped}"]').click(button="right")
    page.locator("#shoot-button").filter(has_text=shoot).click()
    dialog = page.locator("dialog.application").filter(has=page.locator(".firefight-shot"))
    dialog.get_by_role("button", name=firefight(fire, "en"), exact=True).click()
    card = page.locator("#chat-log .chat-message .firefight-card").last
    card.wait_for(timeout=60000)
    assert dropped in card.inner_text()
    assert card.locator(".ff-die").count() >= 1
    assert page.locator(".notification.error").count() == 0
    assert errors == []
    outside = [u for u in requests if not u.startswith((base, "data:", "blob:"))]
    assert outside == [], outside
