"""The opt-in real-Foundry tier: fixtures (``make test-foundry``; docs/building.md).

Without FOUNDRY_ZIP and FOUNDRY_LICENSE every test is dropped but one, which is skipped with
the tier's one line (tools/foundry_tier.py SKIP_LINE); pytest then exits 0. With them,
tools/foundry_tier.py unpacks the user's Foundry v13 into a temporary folder, starts it under
the route prefix, signs the licence, installs dist/firefight.zip and the FOUNDRY_SYSTEMS zips,
and creates one world per system; each world is launched in turn, joined as its Gamemaster in
Debian's Chromium, Firefight enabled in it, and played through the public client API
(tests/foundry/matrix.js).

Joining and the setup screens follow what public Playwright drivers of real v13 servers do
(Daxiongmao87/simulacrum-foundry tests/e2e/fixtures/foundry-helpers.mjs: the /join form's
``select[name=userid]`` and ``button[name=join]``; tours and the usage-data prompt may cover
the setup page).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import foundry_tier as tier  # noqa: E402

MATRIX_JS = (Path(__file__).parent / "matrix.js").read_text("utf-8")
GM_NAME = "Gamemaster"  # the user a new v13 world is created with
PLAYER_NAME = "Firefight Player"
BOOT_TIMEOUT_MS = int(os.environ.get("FIREFIGHT_BOOT_TIMEOUT_MS", "180000"))
GAME_TIMEOUT_MS = int(os.environ.get("FOUNDRY_GAME_TIMEOUT_MS", "180000"))


def _browser_settings() -> tuple[str, list[str]]:
    """Chromium and its flags: the browser tier's own (tests/browser/conftest.py)."""
    spec = importlib.util.spec_from_file_location("browser_tier_conftest",
                                                  REPO / "tests" / "browser" / "conftest.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CHROMIUM, list(module.CHROMIUM_ARGS)


def _system_ids() -> list[str]:
    try:
        config = tier.read_config(os.environ)
    except tier.TierError:
        return ["(settings)"]  # the foundry fixture fails with the message
    if config is None:
        return ["(none)"]
    return [str(tier.read_manifest(z, "system.json")[0]["id"]) for z in config.systems]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "system_id" in metafunc.fixturenames:
        metafunc.parametrize("system_id", _system_ids(), scope="session")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """No Foundry: keep one test, skipped with the one line (exit 0, not "no tests")."""
    reason = tier.skip_reason(os.environ)
    if reason is None or not items:
        return
    items[0].add_marker(pytest.mark.skip(reason=reason))
    del items[1:]


# --- the server ---------------------------------------------------------------------------------


def is_under(url: str, base: str) -> bool:
    """A request on loopback and under the route prefix (http and ws alike)."""
    parts, want = urllib.parse.urlsplit(url), urllib.parse.urlsplit(base)
    if parts.scheme in {"data", "blob", "about", "chrome-extension"}:
        return True
    return (parts.hostname, parts.port) == (want.hostname, want.port) and \
        parts.path.startswith(want.path.rstrip("/") + "/")


@dataclass
class Client:
    """One browser context logged into the running world."""

    context: Any
    page: Any
    requests: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def js(self, expression: str, arg: Any = None) -> Any:
        return self.page.evaluate(expression, arg)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    import playwright.sync_api as playwright_sync

    chromium, args = _browser_settings()
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=args)
        yield b
        b.close()


def _open(browser: Any, base: str) -> Client:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    client = Client(context, page)
    context.on("request", lambda r: client.requests.append(r.url))  # workers' requests too
    page.on("websocket", lambda ws: client.requests.append(ws.url))
    page.on("pageerror", lambda e: client.page_errors.append(str(e)))
    return client


def _check_setup_page(server: tier.FoundryServer, browser: Any) -> dict[str, Any]:
    """The setup screen as the admin sees it: is Firefight listed, with which issues?"""
    client = _open(browser, server.layout.base)
    state: dict[str, Any] = {"error": None, "listed": False, "readable": False, "issues": None}
    try:
        session = server.http.session()
        if session:
            client.context.add_cookies([{"name": "session", "value": session,
                                         "url": server.layout.base + "/"}])
        client.page.goto(f"{server.layout.base}/setup")
        try:
            client.page.wait_for_function("() => globalThis.game?.data !== undefined",
                                          timeout=GAME_TIMEOUT_MS)
        except PlaywrightError as err:  # reported by the install test
            state["error"] = (f"the setup screen {client.page.url} never defined game.data: "
                              f"{str(err).splitlines()[0]}")
            return state
        # The package issues Foundry reports, per package id, as lists of error and warning
        # messages: game.issues.packageCompatibilityIssues, which public modules read as
        # game.data.packageWarnings (foundryvtt.com/api/v13 PackageCompatibilityIssue).
        state |= client.js("""() => {
            const issues = game.issues?.packageCompatibilityIssues ?? game.data?.packageWarnings;
            const listed = game.modules?.get?.("firefight")
                ?? game.data?.modules?.find?.((m) => m.id === "firefight");
            return {listed: Boolean(listed), readable: Boolean(issues),
                    issues: issues?.firefight ?? null};
        }""")
        return state
    finally:
        state["requests"] = list(client.requests)
        client.context.close()


def sign_licence_in_browser(browser: Any) -> Any:
    """The /license screen as a person uses it: the key if asked, then tick and agree to the
    EULA (selectors from the public drivers named in tools/foundry_tier.py)."""

    def sign(server: tier.FoundryServer) -> None:
        client = _open(browser, server.layout.base)
        page = client.page
        try:
            page.goto(f"{server.layout.base}/license")
            key = page.locator('input[name="licenseKey"]')
            if key.count() and server.config.licence:
                key.first.fill(server.config.licence)
                key.first.press("Enter")
                page.wait_for_load_state("networkidle")
            agree = page.locator('#eula-agree, input[type="checkbox"][name="agree"]')
            if not agree.count():
                return  # nothing more to sign here; the caller checks /setup again
            agree.first.check()
            page.locator('button#sign, button[name="sign"], button[data-action="agree"], '
                         'form button[type="submit"]').first.click()
            page.wait_for_url(lambda url: "/license" not in url, timeout=90_000)
        except PlaywrightError as err:
            first = str(err).strip().splitlines()[0]
            raise tier.TierError(f"signing the licence in the browser at {page.url}: {first}",
                                 ) from err
        finally:
            client.context.close()

    return sign


@dataclass
class Tier:
    server: tier.FoundryServer
    browser: Any
    setup_page: dict[str, Any]
    manifest: dict[str, Any]


@pytest.fixture(scope="session")
def foundry(browser: Any) -> Iterator[Tier]:
    try:
        config = tier.read_config(os.environ)
    except tier.TierError as err:
        raise pytest.fail.Exception(f"real-Foundry tier: {err}", pytrace=False) from None
    assert config is not None
    manifest, _ = tier.read_manifest(config.module_zip, "module.json")
    try:
        with tier.running(config, sign_licence_in_browser(browser)) as server:
            yield Tier(server, browser, _check_setup_page(server, browser), manifest)
    except tier.TierError as err:
        raise pytest.fail.Exception(f"real-Foundry tier: {err}", pytrace=False) from None


# --- a world ------------------------------------------------------------------------------------


def join(client: Client, base: str, user: str) -> None:
    """Log into the running world through its /join form, then wait for Game#ready."""
    page = client.page
    page.goto(f"{base}/join")
    try:
        page.wait_for_selector('button[name="join"]', timeout=GAME_TIMEOUT_MS)
    except PlaywrightError as err:
        raise AssertionError(f"no join form (button[name=join]) within "
                             f"{GAME_TIMEOUT_MS // 1000} s") from err
    options = page.eval_on_selector_all('select[name="userid"] option',
                                        "els => els.map(o => [o.value, o.textContent.trim()])")
    value = next((v for v, label in options if label == user), None)
    if not value:
        raise AssertionError(f"the join page of {base} offers no user {user!r}; it offers "
                             f"{[label for _, label in options if label]}")
    page.select_option('select[name="userid"]', value)
    if page.locator('input[name="password"]').count():
        page.fill('input[name="password"]', "")
    page.click('button[name="join"]')
    page.wait_for_url(lambda url: "/game" in url, timeout=GAME_TIMEOUT_MS)
    page.wait_for_function("() => game.ready === true", timeout=GAME_TIMEOUT_MS)
    client.js(MATRIX_JS)


def enable_firefight(client: Client) -> None:
    """What Manage Modules saves (the core.moduleConfiguration setting), then a reload."""
    active = client.js("() => Boolean(game.modules.get('firefight')?.active)")
    if active:
        return
    client.js("""async () => {
        const current = game.settings.get("core", "moduleConfiguration") ?? {};
        const config = foundry.utils.deepClone(current);
        config.firefight = true;
        await game.settings.set("core", "moduleConfiguration", config);
    }""")
    client.page.wait_for_timeout(1000)  # the setting may reload the page by itself
    try:
        client.page.reload()
    except PlaywrightError:  # a reload already under way
        client.page.wait_for_load_state()
    client.page.wait_for_function("() => game.ready === true", timeout=GAME_TIMEOUT_MS)
    if not client.js("() => Boolean(game.modules.get('firefight')?.active)"):
        raise AssertionError("Firefight is not active after setting core.moduleConfiguration")
    client.js(MATRIX_JS)


def wait_engine(client: Client) -> None:
    client.page.wait_for_function(
        "() => game.modules.get('firefight')?.api?.engine?.status === 'ready'",
        timeout=BOOT_TIMEOUT_MS)


SHOTS = REPO / "test-results" / "foundry"


@contextlib.contextmanager
def step(client: Client, what: str) -> Iterator[None]:
    """One setup step: a failure becomes one clear line naming the step (and a screenshot)."""
    try:
        yield
    except (PlaywrightError, AssertionError) as err:
        SHOTS.mkdir(parents=True, exist_ok=True)
        shot = SHOTS / f"{''.join(c if c.isalnum() else '-' for c in what)[:60]}.png"
        with contextlib.suppress(PlaywrightError):
            client.page.screenshot(path=str(shot))
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        message = (f"real-Foundry tier: {what} failed at {client.page.url}: {first} "
                   f"(screenshot {shot.relative_to(REPO)})")
        raise pytest.fail.Exception(message, pytrace=False) from None


@dataclass
class World:
    system_id: str
    tier: Tier
    gm: Client
    cast: dict[str, Any] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return self.tier.server.layout.base

    def player(self) -> Client:
        client = _open(self.tier.browser, self.base)
        with step(client, f"{self.system_id}: joining as {PLAYER_NAME}"):
            join(client, self.base, PLAYER_NAME)
        with step(client, f"{self.system_id}: the engine booting for {PLAYER_NAME}"):
            wait_engine(client)
        return client


@pytest.fixture(scope="session")
def world(foundry: Tier, system_id: str) -> Iterator[World]:
    server = foundry.server
    world_id = tier.world_id(system_id)
    try:
        server.return_to_setup()
        server.launch_world(world_id)
    except tier.TierError as err:
        raise pytest.fail.Exception(f"real-Foundry tier ({system_id}): {err}",
                                    pytrace=False) from None
    gm = _open(foundry.browser, server.layout.base)
    try:
        with step(gm, f"{system_id}: joining {world_id} as {GM_NAME}"):
            join(gm, server.layout.base, GM_NAME)
        with step(gm, f"{system_id}: enabling Firefight in {world_id}"):
            enable_firefight(gm)
        with step(gm, f"{system_id}: the engine booting in {world_id}"):
            wait_engine(gm)
        yield World(system_id, foundry, gm)
    finally:
        gm.context.close()


@pytest.fixture(scope="session")
def cast(world: World) -> dict[str, Any]:
    """SoE actors imported from the module's packs: an armed linked shooter and an unlinked NPC."""
    if not world.cast:
        gm = world.gm
        gm.js("(id) => fftier.setRuleset(id)", "soe")
        shooter = gm.js("() => fftier.findPackActor({ruleset: 'soe', linked: true, armed: true})")
        npc = gm.js("() => fftier.findPackActor({ruleset: 'soe', linked: false})")
        world.cast.update(
            shooter=gm.js("(ref) => fftier.importActor(ref)", shooter),
            npc=gm.js("(ref) => fftier.importActor(ref)", npc),
            names={"shooter": shooter["name"], "npc": npc["name"]},
        )
    return world.cast
