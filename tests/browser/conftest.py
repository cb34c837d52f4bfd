"""Fixtures for the browser tier: the sandbox table served on loopback, one Chromium.

Run: ``python -m pytest tests/browser`` (needs ``make runtime`` and ``make packs`` first).
The system Chromium is used (``/usr/bin/chromium``, or ``$FIREFIGHT_CHROMIUM``); never
``playwright install``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import playwright.sync_api as playwright_sync
import pytest

REPO = Path(__file__).resolve().parents[2]
SERVE = Path(os.environ.get("FIREFIGHT_SERVE_SCRIPT", REPO / "tools" / "serve.py"))
BOOT_TIMEOUT_MS = int(os.environ.get("FIREFIGHT_BOOT_TIMEOUT_MS", "180000"))
SHOTS = REPO / "test-results" / "browser"
sys.path.insert(0, str(REPO / "tools"))
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the one Chromium and its flags)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def serve() -> Iterator[Callable[..., str]]:
    """Start tools/serve.py with extra arguments; returns its base URL (with the route prefix)."""
    procs: list[subprocess.Popen[str]] = []

    def start(*args: str) -> str:
        port = _free_port()
        cmd = [sys.executable, str(SERVE), "--port", str(port), "--quiet", *args]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                cwd=REPO)
        procs.append(proc)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line, f"server did not start: {line!r}"
        return line.split(": ", 1)[1].strip()

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """tools/serve.py on a free loopback port; yields its base URL."""
    port = _free_port()
    cmd = [sys.executable, str(SERVE), "--port", str(port), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=REPO)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    try:
        assert f"http://127.0.0.1:{port}/" in line, f"server did not start: {line!r}"
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def browser(server: str) -> Iterator[Any]:
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        _POOLS[id(b)] = Contexts(b, server)
        yield b
        _POOLS.pop(id(b)).close()
        b.close()


STORE_KEY = "firefight-sandbox.settings"  # sandbox/foundry/settings.mjs: the stored settings
# What a pooled context may be asked for and still be handed to the next test: a test that
# routes, adds init scripts, grants permissions or goes offline gets a context that is closed
# when it is done with it.
_CLEAN = frozenset({"new_page", "pages", "close", "on", "browser", "wait_for_event",
                    "expect_page"})


class PooledContext:
    """A browser context from `Contexts`: what a test does with it goes to the real context;
    `close()` hands it back for the next test (its pages closed, its listeners removed)."""

    def __init__(self, pool: Contexts, key: tuple[Any, ...], context: Any,
                 viewport: dict[str, int]) -> None:
        self._pool, self._key, self._context = pool, key, context
        self._viewport = viewport
        self._listeners: list[tuple[str, Any]] = []
        self.dirty = False

    def new_page(self) -> Any:
        """A page of the size this test asked for (one context serves every size)."""
        page = self._context.new_page()
        page.set_viewport_size(self._viewport)
        return page

    def on(self, event: str, handler: Any) -> None:
        self._listeners.append((event, handler))
        self._context.on(event, handler)

    def close(self) -> None:
        self._pool.give(self)

    def __getattr__(self, name: str) -> Any:
        if name not in _CLEAN:
            self.dirty = True  # routes, init scripts, permissions ...: not for the next test
        return getattr(self._context, name)


class Contexts:
    """The browser contexts of this test process, handed from test to test (issue 24: make test
    under 7 minutes). A context handed back keeps what the browser keeps between two visits of
    one world: its HTTP cache (Chromium's compiled code of the engine's WebAssembly with it) and
    its Origin Private File System (the engine's memory snapshot), so the next table boots as a
    returning player's does, for about a third of a fresh context's CPU. Everything else is
    fresh: its pages are closed, so the next page's world is built anew (sandbox/boot.mjs), and
    its localStorage (the sandbox's world and client settings) is cleared and set to what the
    next test asks for. Tests of a first visit open their own contexts."""

    def __init__(self, browser: Any, server: str) -> None:
        self.browser, self.server = browser, server
        self.idle: dict[tuple[Any, ...], list[Any]] = {}

    def open(self, *, viewport: dict[str, int] | None = None, permissions: list[str] | None = None,
             settings: dict[str, Any] | None = None) -> PooledContext:
        """A context whose world's stored settings are `settings` (else none) and nothing else."""
        size = viewport or {"width": 1440, "height": 860}
        # By permissions only: a page is given its size (PooledContext.new_page), so a test of
        # another size reuses a context, and the engine's snapshot in it, rather than booting
        # a first visit.
        key = tuple(sorted(permissions or []))
        idle = self.idle.get(key) or []
        context = idle.pop() if idle else self.browser.new_context(
            viewport=size, permissions=list(key))
        page = context.new_page()  # same origin as the table: its localStorage
        page.goto(f"{self.server}sandbox.css")
        page.evaluate("""([key, value]) => { localStorage.clear();
            if (value) localStorage.setItem(key, value); }""",
                      [STORE_KEY, json.dumps(settings) if settings else None])
        page.close()
        return PooledContext(self, key, context, size)

    def give(self, pooled: PooledContext) -> None:
        context = pooled._context
        if pooled.dirty:
            context.close()
            return
        for event, handler in pooled._listeners:
            context.remove_listener(event, handler)
        for page in list(context.pages):
            page.close()
        self.idle.setdefault(pooled._key, []).append(context)

    def close(self) -> None:
        for contexts in self.idle.values():
            for context in contexts:
                context.close()
        self.idle.clear()


_POOLS: dict[int, Contexts] = {}


def contexts_of(browser: Any) -> Contexts:
    """The pooled contexts of the session's browser."""
    return _POOLS[id(browser)]


class Table:
    """One loaded sandbox page plus everything it (and its worker) requested."""

    def __init__(self, base: str, context: Any, page: Any) -> None:
        self.base = base
        self.context = context
        self.page = page
        self.requests: list[str] = []
        self.errors: list[str] = []  # uncaught page errors: must stay empty
        self.console_errors: list[str] = []  # console.error (the shim logs handled errors too)

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path

    def reset(self) -> None:
        """Close dialogs, clear selection and targets, move tokens home."""
        self.page.evaluate("""() => {
            const close = document.querySelectorAll('dialog.application [data-action=close]');
            close.forEach(b => b.click());
            canvas.tokens.releaseAll();
            for (const t of [...game.user.targets]) t.setTarget(false, {releaseOthers: false});
        }""")

    def token(self, name: str) -> Any:
        return self.page.locator(f'.token[data-name="{name}"]')


@pytest.fixture(scope="module")
def table(server: str, browser: Any) -> Iterator[Table]:
    context = contexts_of(browser).open()
    page = context.new_page()
    t = Table(server, context, page)
    # context-level: includes requests made by the engine's Web Worker.
    context.on("request", lambda r: t.requests.append(r.url))
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.on("console", lambda m: t.console_errors.append(m.text) if m.type == "error" else None)
    page.goto(server)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    yield t
    context.close()


@pytest.fixture(scope="module")
def ready_table(table: Table) -> Table:
    table.page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    return table


@pytest.fixture
def open_page(server: str, browser: Any
              ) -> Iterator[Callable[..., tuple[Any, list[str], list[str]]]]:
    """A page of a new world at a URL; returns (page, every request it and its worker made, page
    errors). Closed at the end of the test. At the session's table its context is a pooled one
    (`Contexts`: a returning player's browser) unless `fresh`: a first visit, as a newcomer's."""
    contexts: list[Any] = []

    def open_(url: str, viewport: dict[str, int] | None = None, *, fresh: bool = False
              ) -> tuple[Any, list[str], list[str]]:
        size = viewport or {"width": 1440, "height": 860}
        context = (contexts_of(browser).open(viewport=size)
                   if url.startswith(server) and not fresh
                   else browser.new_context(viewport=size))
        contexts.append(context)
        requests: list[str] = []
        errors: list[str] = []
        context.on("request", lambda r: requests.append(r.url))
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        return page, requests, errors

    yield open_
    for context in contexts:
        context.close()


@pytest.fixture(scope="module")
def module_page(browser: Any) -> Iterator[tuple[Any, list[str]]]:
    """One page for a module's tests (see `open_world_page`): (page, its page errors)."""
    context = contexts_of(browser).open()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page, errors
    context.close()


@pytest.fixture
def open_world_page(module_page: tuple[Any, list[str]]
                    ) -> Callable[[str], tuple[Any, list[str]]]:
    """The module's one page, gone to a URL: a new world (sandbox/boot.mjs builds it anew when no
    other page of it is open, and none is); returns (page, page errors since). The engine boots
    as on a reload at the table: from the memory snapshot the first visit stored, with the
    compiled code Chromium keeps for the page (a new page or context compiles everything again:
    about three times the CPU). World settings one test stores stay for the next: for tests that
    store none."""
    page, errors = module_page

    def open_(url: str) -> tuple[Any, list[str]]:
        errors.clear()
        page.goto(url)
        return page, errors

    return open_


def open_sheet_from_directory(page: Any, name: str) -> Any:
    """As a person does: the actors directory, a click on the actor, its sheet's Firefight tab;
    back to the chat. Returns the sheet."""
    page.click('#sidebar-tabs [data-sidebar-tab="actors"]')
    page.locator("#actors-list .directory-item", has_text=name).click()
    page.click('#sidebar-tabs [data-sidebar-tab="chat"]')
    sheet = page.locator("section.actor-sheet", has_text=name).last
    sheet.wait_for()
    sheet.locator("nav .firefight-tab").click()
    return sheet


def open_table(server: str, browser: Any, ruleset: str, pack: str, user: str | None = None,
               *, lang: str | None = None, system: str | None = None,
               permissions: list[str] | None = None) -> Table:
    """A sandbox page whose world ruleset is `ruleset` and whose scene holds `pack`'s actors,
    as the GM or as `user`, in the client language `lang` (else English), in a world of the
    game system `system` (else the sandbox's default, worldbuilding), with the browser
    `permissions` a person granted the page (e.g. "clipboard-read")."""
    # The world's stored settings (kept on a reload, as a world keeps them).
    context = contexts_of(browser).open(permissions=permissions,
                                        settings={"firefight.ruleset": ruleset})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    who = f"&user={user.replace(' ', '%20')}" if user else ""
    page.goto(f"{server}?pack={pack}{who}{f'&lang={lang}' if lang else ''}"
              f"{f'&system={system}' if system else ''}")
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    return t


def open_card(page: Any, mid: str) -> Any:
    """A chat card's message with its "Dice and modifiers" opened, as a person reading its steps
    does (the card leads with its result: templates/card.html.j2)."""
    message = page.locator(f'[data-message-id="{mid}"]')
    toggle = message.locator(".ff-details-toggle")
    if toggle.count() and message.locator(".ff-card-details").get_attribute("open") is None:
        toggle.click()
    return message


def open_gm_and_player(server: str, browser: Any, ruleset: str, pack: str,
                       user: str = "Player 1") -> tuple[Any, Table, Table]:
    """The GM's page and `user`'s of one world (one browser context: they share it), its
    ruleset `ruleset`, its scene `pack`'s actors: (context, GM, player)."""
    context = contexts_of(browser).open(settings={"firefight.ruleset": ruleset})
    tables = []
    for who in ("", f"&user={user.replace(' ', '%20')}"):
        page = context.new_page()
        t = Table(server, context, page)
        page.on("pageerror", lambda e, t=t: t.errors.append(str(e)))
        page.goto(f"{server}?pack={pack}{who}")
        page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
        tables.append(t)
    return context, tables[0], tables[1]
