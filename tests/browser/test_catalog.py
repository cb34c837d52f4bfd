"""The engine's catalog at the table (js-shim/world/catalog.mjs): the world's ruleset choice and its
settings on a fresh world once the engine is up, straight from the world's cache on the next load
(before, or without, any engine), and a wheel loaded at runtime with ``api.engine.loadWheel``: its
ruleset chosen in Settings without a reload, loaded again by a restarted engine; a wheel that does
not load reported to the GM while play goes on (issue 13)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, REPO

# The ruleset choices as Configure Settings lists them (the sandbox's copy; see its settings.mjs).
CHOICES_JS = "() => Object.keys(game.settings._choicesOf('firefight.ruleset'))"
API = "game.modules.get('firefight').api"
HELLO = f"(await {API}.engine.call('hello'))"
HAS_DUEL_JS = f"async () => {HELLO}.rulesets.some((r) => r.id === 'duel')"
COUNT_JS = f"async () => {HELLO}.rulesets.length"
DUEL_WHEEL = "modules/firefight-duel/wheels/firefight_duel-0.1.0-py3-none-any.whl"
LOAD_JS = """async (path) => {
    const api = game.modules.get('firefight').api;
    try {
        await api.engine.loadWheel(new URL(path, location.href).href);
        return 'loaded';
    } catch (err) {
        return err.message;
    }
}"""


def _ready(page: Any) -> None:
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)


def _settings_options(page: Any) -> list[str]:
    """Configure Settings, as the referee opens it: the ruleset's options; closed again."""
    page.click("#settings-button")
    select = page.locator('dialog.settings-config select[name="firefight.ruleset"]')
    select.wait_for()
    options = select.locator("option").all_inner_texts()
    page.keyboard.press("Escape")
    page.locator("dialog.settings-config").wait_for(state="detached")
    return list(options)


def test_a_fresh_world_learns_its_rulesets_and_the_next_load_has_them_at_once(
        server: str, open_page: Callable[..., Any]) -> None:
    page, _, errors = open_page(server)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    _ready(page)
    # Once the engine is up: every ruleset a choice, their settings registered, the default played.
    assert page.evaluate(CHOICES_JS) == ["dpv", "percentile", "shock", "soe"]
    assert page.evaluate("() => game.settings.get('firefight', 'ruleset')") == "soe"
    assert page.evaluate("() => game.settings.settings.has('firefight.soe.pretrauma')")
    assert "Stars of Empire (experimental)" in _settings_options(page)
    # The next load, with no engine at all (its WebAssembly unreachable): everything is registered
    # from the world's cached catalog at init, and a setting of a ruleset keeps its value.
    page.evaluate("() => game.settings.set('firefight', 'soe.pretrauma', true)")
    assert errors == []
    page.route("**/pyodide.asm.wasm", lambda route: route.abort())
    page.reload()
    page.wait_for_function("() => game.ready === true", timeout=30000)
    assert page.evaluate("() => game.modules.get('firefight').api.engine.status") != "ready"
    assert page.evaluate(CHOICES_JS) == ["dpv", "percentile", "shock", "soe"]
    assert page.evaluate("() => game.settings.get('firefight', 'soe.pretrauma')") is True
    assert page.evaluate(f"() => {API}.settings('soe').pretrauma") is True
    assert "Stars of Empire (experimental)" in page.locator("#ruleset-label").inner_text()
    # The wasm aborted on purpose: under load Chromium has surfaced that network failure as a
    # page error once in a while (its source not found yet: the closing note of issue 13).
    assert [e for e in errors if e != "Failed to fetch"] == []


def test_a_wheel_loaded_at_runtime_is_a_choice_at_once_and_survives_a_restart(
        server: str, open_page: Callable[..., Any]) -> None:
    subprocess.run([sys.executable, str(REPO / "tools" / "build_examples.py")], check=True,
                   cwd=REPO, timeout=600)
    page, _, errors = open_page(server)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    _ready(page)
    page.evaluate("""() => { globalThis.__changed = 0;
        Hooks.on('firefight.rulesetsChanged', () => globalThis.__changed++); }""")
    assert "duel" not in page.evaluate(CHOICES_JS)
    assert page.evaluate(LOAD_JS, DUEL_WHEEL) == "loaded"
    assert page.evaluate("() => globalThis.__changed") == 1
    assert "duel" in page.evaluate(CHOICES_JS)
    # The referee chooses it in Settings, without a reload; its label is the plugin's own string.
    page.click("#settings-button")
    select = page.locator('dialog.settings-config select[name="firefight.ruleset"]')
    select.wait_for()
    select.select_option(label="Duel")
    page.click('dialog.settings-config button[data-action="save"]')
    page.wait_for_function("() => game.settings.get('firefight', 'ruleset') === 'duel'")
    assert page.evaluate("() => game.modules.get('firefight').api.ruleset()") == "duel"
    # A restarted engine loads the wheel again.
    page.evaluate("() => game.modules.get('firefight').api.engine.restart()")
    _ready(page)
    assert page.evaluate(HAS_DUEL_JS)
    # A wheel that is not there: the GM is told which, the engine goes on.
    message = page.evaluate(LOAD_JS, "modules/firefight-duel/wheels/nowhere-0.1.0-py3-none-any.whl")
    assert "nowhere-0.1.0-py3-none-any.whl" in message
    note = page.locator("#notifications .notification.error", has_text="nowhere-0.1.0")
    note.first.wait_for()
    assert "Firefight" in note.first.inner_text()
    assert page.evaluate(COUNT_JS) == 5
    assert errors == []


def test_a_wheel_loaded_at_runtime_is_loaded_again_at_the_next_page_load(
        server: str, open_page: Callable[..., Any]) -> None:
    """Issue 26 item 2: the GM's runtime wheel is kept in the world and every later boot loads
    it; where it is gone, the world's ruleset is named as not installed with how to get it back,
    and Shoot says that (never the engine's "unknown ruleset")."""
    subprocess.run([sys.executable, str(REPO / "tools" / "build_examples.py")], check=True,
                   cwd=REPO, timeout=600)
    page, _, errors = open_page(server)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    _ready(page)
    assert page.evaluate(LOAD_JS, DUEL_WHEEL) == "loaded"
    page.click("#settings-button")
    select = page.locator('dialog.settings-config select[name="firefight.ruleset"]')
    select.select_option(label="Duel")
    page.click('dialog.settings-config button[data-action="save"]')
    page.wait_for_function("() => game.settings.get('firefight', 'ruleset') === 'duel'")
    # The next page load: the engine has the Duel again, nothing is missing.
    page.reload()
    page.wait_for_function("() => game.ready === true", timeout=30000)
    _ready(page)
    assert page.evaluate(HAS_DUEL_JS)
    assert "duel" in page.evaluate(CHOICES_JS)
    assert "not installed" not in page.locator("#ruleset-label").inner_text()
    # The wheel gone (its module removed): the GM is told which ruleset and how to get it back.
    page.route("**/firefight_duel-0.1.0-py3-none-any.whl", lambda route: route.fulfill(status=404))
    page.reload()
    page.wait_for_function("() => game.ready === true", timeout=30000)
    _ready(page)
    missing = page.locator("#notifications .notification.error", has_text="is not installed")
    missing.first.wait_for(timeout=15000)
    assert "“duel”" in missing.first.inner_text()
    assert "Configure Settings" in missing.first.inner_text()
    # A shot, as the referee fires one: the same plain message, not the engine's refusal.
    names = page.evaluate("() => canvas.tokens.placeables.map((t) => t.name)")
    page.locator(f'.token[data-name="{names[0]}"]').click()
    page.locator(f'.token[data-name="{names[1]}"]').click(button="right")
    page.evaluate("""() => document.querySelectorAll('#notifications .notification')
        .forEach((n) => n.remove())""")
    page.click("#shoot-button")
    note = page.locator("#notifications .notification.error").first
    note.wait_for(timeout=15000)
    assert "“duel” is not installed" in note.inner_text()
    assert "unknown ruleset" not in page.locator("#notifications").inner_text()
    assert [e for e in errors if e != "Failed to fetch"] == []


def _tutorial_snippet(marker: str) -> str:
    """The ```js block of docs/extending.md that contains `marker`, as a reader copies it."""
    text = (REPO / "docs" / "extending.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```js\n(.*?)```", text, flags=re.S)
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, f"one ```js block of docs/extending.md has {marker!r}"
    return found[0]


@pytest.mark.parametrize(("prefix", "system"), [("", "worldbuilding"), ("ff", "dnd5e"),
                                                 ("ff", "pf2e")])
def test_the_tutorials_load_wheel_snippet_runs_at_the_table(
        prefix: str, system: str, serve: Callable[..., str],
        open_page: Callable[..., Any]) -> None:
    """docs/extending.md "Loading a wheel at runtime", pasted into a macro as the GM would: it
    resolves the wheel's path with foundry.utils.getRoute, so it works under a route prefix too."""
    subprocess.run([sys.executable, str(REPO / "tools" / "build_examples.py")], check=True,
                   cwd=REPO, timeout=600)
    base = serve(*(["--route-prefix", prefix] if prefix else []))
    page, requests, errors = open_page(f"{base}?system={system}")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    _ready(page)
    snippet = _tutorial_snippet("api.engine.loadWheel")
    outcome = page.evaluate(f"""async () => {{
        try {{
            {snippet}
            return {{ids: catalog.rulesets.map((r) => r.id)}};
        }} catch (err) {{
            return {{error: String(err)}};
        }}
    }}""")
    assert "duel" in outcome.get("ids", []), outcome
    wheel = [u for u in requests if u.endswith("firefight_duel-0.1.0-py3-none-any.whl")]
    assert wheel
    assert all(u.startswith(base + "modules/firefight-duel/") for u in wheel), wheel
    assert errors == []


@pytest.mark.parametrize("system", ["worldbuilding", "dnd5e", "pf2e"])
def test_the_clock_tool_follows_the_first_choice_of_a_ruleset(
        system: str, server: str, open_page: Callable[..., Any], browser: Any) -> None:
    """A world whose ruleset was never set (the catalog cached, the engine unreachable): the
    referee's first choice in Configure Settings creates the setting's document (createSetting,
    not updateSetting); 2300 AD's healing clock ("Advance time") is offered at once (audit D4)."""
    page, _, errors = open_page(server)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    _ready(page)
    cache = page.evaluate("() => game.settings.get('firefight', 'catalog')")
    assert any(r["id"] == "dpv" for r in cache["rulesets"])
    context = browser.new_context(viewport={"width": 1440, "height": 860})
    try:
        context.add_init_script(script=f"""if (!localStorage.getItem('firefight-sandbox.settings'))
            localStorage.setItem('firefight-sandbox.settings',
                JSON.stringify({{'firefight.catalog': {json.dumps(cache)}}}))""")
        gm = context.new_page()
        gm.route("**/pyodide.asm.wasm", lambda route: route.abort())
        # The scene's actors have 2300 AD data, so choosing it keeps the page (sandbox/panel.mjs).
        gm.goto(f"{server}?system={system}&pack=dpv-npcs")
        gm.wait_for_function("() => game.ready === true", timeout=30000)
        tool = gm.locator('#shot-panel [data-tool="firefightAdvanceTime"]')
        assert tool.count() == 0  # the engine's default, SOE, has no healing clock
        gm.click("#settings-button")
        select = gm.locator('dialog.settings-config select[name="firefight.ruleset"]')
        select.select_option("dpv")
        gm.click('dialog.settings-config button[data-action="save"]')
        gm.wait_for_function("() => game.settings.get('firefight', 'ruleset') === 'dpv'")
        tool.wait_for(timeout=10000)
    finally:
        context.close()
    assert errors == []
