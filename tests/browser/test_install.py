"""Installing into a real world: the packs per system, the manifest Foundry validates, the
document types of the world's system, the shipped LevelDB packs, a route prefix, a .wasm served
with another MIME type, and a runtime that cannot boot (issue 11: problems 1, 2 and 9)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, REPO

RHINO = "Lesser Venusian Rhino"
RIFLEMAN = "Rifleman Aldo Ferri"
# js-shim/engine/engine.mjs BOOT_TIME_LIMIT_MS: a broken runtime must fail well within it.
BOOT_TIME_LIMIT_S = 180




def _open_compendium(page: Any, pack: str) -> Any:
    page.click('#sidebar-tabs [data-sidebar-tab="compendium"]')
    details = page.locator(f'.compendium-pack[data-pack="{pack}"]')
    details.locator("summary").click()
    details.locator(".compendium-entry").first.wait_for()
    return details


def test_under_a_route_prefix_with_wasm_as_octet_stream_the_engine_boots(
    serve: Callable[..., str], open_page: Callable[..., Any],
) -> None:
    base = serve("--route-prefix", "ff", "--wasm-mime", "application/octet-stream")
    assert base.endswith("/ff/")
    page, requests, errors = open_page(base)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    # The compendium is read under the prefix too.
    _open_compendium(page, "soe-armor-worldbuilding")
    wasm = [u for u in requests if u.endswith("pyodide.asm.wasm")]
    assert wasm
    assert all(u.startswith(base + "modules/firefight/runtime/") for u in wasm)
    assert any(u.startswith(base + "sandbox-api/packs/") for u in requests)
    outside = [u for u in requests if not u.startswith((base, "data:", "blob:"))]
    assert outside == [], outside
    # The server really sent the wasm as application/octet-stream (so streaming was refused).
    mime = page.evaluate("""async () => (await fetch('modules/firefight/runtime/pyodide/'
        + 'pyodide.asm.wasm', {method: 'HEAD'})).headers.get('content-type')""")
    assert mime == "application/octet-stream"
    assert errors == []


def test_a_runtime_that_cannot_boot_fails_with_a_clear_message(
    serve: Callable[..., str], open_page: Callable[..., Any],
) -> None:
    wasm = "/modules/firefight/runtime/pyodide/pyodide.asm.wasm"
    base = serve("--override", f"{wasm}=/nonexistent/pyodide.asm.wasm")
    started = time.monotonic()
    page, _, _ = open_page(base)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="failed"]',
                           timeout=BOOT_TIME_LIMIT_S * 1000)
    assert time.monotonic() - started < BOOT_TIME_LIMIT_S
    status = page.locator("#engine-status .text").inner_text()
    assert "pyodide.asm.wasm" in status, status
    assert "HTTP 404" in status, status
    # A person presses Shoot: the notification says why, the shot does not wait.
    page.locator(f'.token[data-name="{RIFLEMAN}"]').click()
    page.locator(f'.token[data-name="{RHINO}"]').click(button="right")
    page.click("#shoot-button", force=True)
    notice = page.locator(".notification.error").last
    notice.wait_for(timeout=10000)
    assert "failed to start" in notice.inner_text()
    assert page.evaluate("() => game.messages.size") == 0


def test_a_pack_without_a_system_is_refused_at_boot(
    serve: Callable[..., str], open_page: Callable[..., Any], tmp_path: Path,
) -> None:
    manifest = json.loads((REPO / "module.json").read_text("utf-8"))
    pack = next(p for p in manifest["packs"] if p["name"] == "soe-weapons-worldbuilding")
    del pack["system"]
    bad = tmp_path / "module.json"
    bad.write_text(json.dumps(manifest), "utf-8")
    base = serve("--override", f"/modules/firefight/module.json={bad}")
    page, _, _ = open_page(base)
    page.wait_for_selector("#engine-status.failed", timeout=30000)
    assert page.locator("#engine-status .text").inner_text() == (
        'Sandbox failed: The Compendium pack "soe-weapons-worldbuilding" of the "Item" type must'
        ' declare the "system" upon which it depends'
    )
    assert page.evaluate("() => game.ready") is False
    assert page.evaluate("() => Boolean(game.modules.get('firefight')?.api)") is False


@pytest.mark.parametrize("system", ["worldbuilding", "dnd5e", "pf2e"])
def test_the_world_gets_its_systems_packs_and_types_from_leveldb(
    server: str, open_page: Callable[..., Any], system: str,
) -> None:
    page, _, errors = open_page(f"{server}?system={system}&pack=soe-actors")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    types = page.evaluate("() => game.documentTypes")
    # The scene's actors come from soe-actors-<system>: the types are the system's, which only
    # the compiled (LevelDB) packs hold; the sources say "base".
    actors = page.evaluate("""() => game.actors.map(a => ({name: a.name, type: a.type,
        items: a.items.map(i => i.type)}))""")
    assert {a["name"] for a in actors} == {RIFLEMAN, "Officer Vera Lind", RHINO}
    for actor in actors:
        assert actor["type"] in types["Actor"], actor
        assert all(t in types["Item"] for t in actor["items"]), actor
    source = json.loads(next((REPO / "packs/_source/soe-actors").glob("*.json")).read_text())
    assert source["type"] == "base"
    # The sidebar lists this system's packs only.
    page.click('#sidebar-tabs [data-sidebar-tab="compendium"]')
    listed = page.eval_on_selector_all(".compendium-pack", "els => els.map(e => e.dataset.pack)")
    # Every Actor and Item pack the manifest has for this system (the sidebar lists those).
    manifest = json.loads((REPO / "module.json").read_text())
    assert sorted(listed) == sorted(p["name"] for p in manifest["packs"]
                                    if p.get("system") == system and p["type"] in ("Actor", "Item"))
    assert len(listed) >= 10
    assert all(name.endswith(f"-{system}") for name in listed), listed
    # A compendium weapon, opened by its uuid, has the system's weapon type.
    details = _open_compendium(page, f"soe-weapons-{system}")
    uuid = json.loads(details.locator(".compendium-entry").first.evaluate(
        "el => { const dt = new DataTransfer(); el.dispatchEvent(new DragEvent('dragstart',"
        " {dataTransfer: dt})); return dt.getData('text/plain'); }"))["uuid"]
    weapon_type = page.evaluate("async (u) => (await fromUuid(u)).type", uuid)
    assert weapon_type == {"worldbuilding": "item", "dnd5e": "weapon", "pf2e": "weapon"}[system]
    # An Actor or Item of a type the system does not declare cannot exist in it.
    refused = page.evaluate("""() => { try { new Actor({name: 'x', type: 'base'}); return null; }
        catch (e) { return e.message; } }""")
    assert refused is not None
    assert 'type: "base" is not a valid type for the Actor Document class' in refused
    assert errors == []
