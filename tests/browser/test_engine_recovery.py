"""The engine worker recovers (reliability audit D6, D7): a worker killed while a shot resolves is
replaced and the shot still lands; a runaway call is cut off at its time limit and the engine
answers the next one; a Pyodide fatal error does not leave a broken interpreter answering.

The page's engine worker is tests/pyodide/engine-test-worker.mjs: the real engine-worker.mjs plus
control messages to make one call slow, stuck or fatal (routed in for the module's worker URL;
production code has no such hook).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from _js import SETTLED_JS
from conftest import BOOT_TIMEOUT_MS, Table

RIFLEMAN = "Rifleman Aldo Ferri"
RHINO = "Lesser Venusian Rhino"
WORKER_PATH = "/modules/firefight/js-shim/engine/engine-worker.mjs"
# What the worker URL serves instead: the test worker (which loads the real one with a query).
WRAPPER = 'import "/modules/firefight/tests/pyodide/engine-test-worker.mjs";\n'
ENGINE = "game.modules.get('firefight').api.engine"
FIRE = 'dialog.application button[data-action="fire"]'


def _is_worker_script(url: str) -> bool:
    parts = urlsplit(url)
    return parts.path == WORKER_PATH and not parts.query


def _serve_test_worker(route: Any) -> None:
    route.fulfill(status=200, body=WRAPPER, headers={
        "Content-Type": "text/javascript",
        "Cross-Origin-Embedder-Policy": "require-corp",
        "Cross-Origin-Resource-Policy": "same-origin",
        "Cache-Control": "no-cache",
    })


@pytest.fixture
def recovery_table(server: str, browser: Any) -> Iterator[Table]:
    """A fresh GM page whose engine is the test worker; ready to shoot."""
    context = browser.new_context(viewport={"width": 1440, "height": 860})
    context.route(_is_worker_script, _serve_test_worker)
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(server)
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()
    assert t.errors == []


def _control(page: Any, message: dict[str, Any]) -> None:
    """A control message to the current test worker (as the test's own hand on the engine)."""
    page.evaluate(f"(m) => {ENGINE}.worker.postMessage(m)", message)


def _open_shot_dialog(table: Table) -> None:
    table.token(RIFLEMAN).click()
    table.token(RHINO).click(button="right")
    table.page.click("#shoot-button")
    table.page.wait_for_selector("dialog.application .firefight-shot")


def _messages(page: Any) -> int:
    return int(page.evaluate("() => game.messages.size"))


def test_worker_killed_while_a_shot_resolves_is_replaced_and_the_shot_lands(
    recovery_table: Table,
) -> None:
    page = recovery_table.page
    _open_shot_dialog(recovery_table)
    page.wait_for_function(SETTLED_JS, timeout=60000)
    before = _messages(page)
    page.evaluate(f"() => {{ globalThis.__first = {ENGINE}.worker; }}")
    _control(page, {"test": "slow", "op": "resolve", "ms": 8000})

    page.click(FIRE)
    # The resolve is in flight (the worker is busy on it) when the worker is killed.
    page.wait_for_function(f"() => {ENGINE}.pending.size > 0")
    page.wait_for_timeout(300)
    page.evaluate(f"() => {ENGINE}.worker.terminate()")

    page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=BOOT_TIMEOUT_MS)
    assert page.locator(".chat-message").last.locator(".firefight-card").count() == 1
    # The new worker answers the shot it was sent again before the module has read its catalog
    # (the client's `prepare`, after which the engine is "ready").
    page.wait_for_function(f"() => {ENGINE}.status === 'ready'", timeout=BOOT_TIMEOUT_MS)
    state = page.evaluate(f"""() => ({{status: {ENGINE}.status, restarts: {ENGINE}.restarts,
        replaced: {ENGINE}.worker !== globalThis.__first, pending: {ENGINE}.pending.size}})""")
    assert state == {"status": "ready", "restarts": 1, "replaced": True, "pending": 0}
    assert page.locator(".notification.error").count() == 0


def test_a_runaway_call_is_cut_off_and_the_engine_answers_the_next(
    recovery_table: Table,
) -> None:
    page = recovery_table.page
    limit_s = page.evaluate(f"() => {ENGINE}.timeLimitFor('odds') / 1000")
    _control(page, {"test": "hang", "op": "odds"})

    _open_shot_dialog(recovery_table)  # the dialog's hit chance asks `odds`: it never ends
    odds = page.locator("[data-firefight-odds]")
    page.wait_for_selector("[data-firefight-odds].error", timeout=int(limit_s * 1000) + 60000)
    assert odds.locator("[data-odds-value]").inner_text() == "—"
    detail = odds.locator("[data-odds-detail]").inner_text()
    assert "“odds”" in detail
    assert f"{limit_s:.0f} s" in detail

    # The stuck worker was replaced: changing an option asks again, and is answered.
    page.wait_for_function(f"() => {ENGINE}.status === 'ready' && {ENGINE}.restarts === 1",
                           timeout=BOOT_TIMEOUT_MS)
    page.select_option('select[name="opt.options.mode"]', label="Quickfire")
    page.wait_for_function(SETTLED_JS, timeout=60000)
    before = _messages(page)
    page.click(FIRE)
    page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=60000)
    assert page.locator(".chat-message").last.locator(".firefight-card").count() == 1


def test_a_pyodide_fatal_error_does_not_leave_a_broken_engine_answering(
    recovery_table: Table,
) -> None:
    page = recovery_table.page
    _control(page, {"test": "fatal"})  # json.loads of JSON nested 100 000 deep: a stack overflow

    # The next call finds the interpreter broken; it is answered by a new worker instead.
    _open_shot_dialog(recovery_table)
    page.wait_for_function(SETTLED_JS, timeout=BOOT_TIMEOUT_MS)
    assert page.evaluate(f"() => {ENGINE}.restarts") == 1
    before = _messages(page)
    page.click(FIRE)
    page.wait_for_function("(n) => game.messages.size > n", arg=before, timeout=60000)
    assert page.locator(".chat-message").last.locator(".firefight-card").count() == 1
