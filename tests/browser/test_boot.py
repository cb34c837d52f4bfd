"""Engine boot edge cases: a shot fired while Python boots, and a boot that fails."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

PREPARE_JS = """() => {
    const by = (n) => canvas.tokens.placeables.find(t => t.name === n);
    by('Rifleman Aldo Ferri').control();
    by('Lesser Venusian Rhino').setTarget(true);
    const api = game.modules.get('firefight').api;
    const status = api.engine.status;
    globalThis.__shot = api.shoot({dialog: false});
    return status;
}"""


@pytest.fixture
def fresh_page(server: str, browser: Any) -> Iterator[tuple[Any, Any]]:
    context = browser.new_context(viewport={"width": 1280, "height": 760})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield context, page
    context.close()
    assert errors == []


def test_shot_fired_during_boot_waits_for_the_engine(server: str, fresh_page: Any) -> None:
    _, page = fresh_page
    page.goto(server)
    page.wait_for_function("() => game.ready === true")
    assert page.evaluate(PREPARE_JS) == "booting"
    page.wait_for_function("() => game.messages.size === 1", timeout=180000)
    assert page.evaluate("async () => (await globalThis.__shot)?.id") is not None
    assert page.locator(".chat-message .firefight-card").count() == 1


def test_boot_failure_is_reported_not_thrown(server: str, fresh_page: Any) -> None:
    context, page = fresh_page
    # The worker's runtime request fails: boot must fail cleanly.
    context.route("**/runtime/wheels/manifest.json", lambda route: route.abort())
    page.goto(server)
    page.wait_for_selector('#engine-status[data-status="failed"]', timeout=180000)
    # The top bar says so once, with the reason (no "Engine failed: Engine failed to start: …").
    pill = page.locator("#engine-status .text").inner_text()
    assert pill.startswith("Engine failed: "), pill
    assert "Engine failed" not in pill.removeprefix("Engine failed: "), pill
    assert "manifest.json" in pill, pill
    page.evaluate(PREPARE_JS)
    assert page.evaluate("async () => await globalThis.__shot") is None
    page.wait_for_selector(".notification.error")
    assert "failed to start" in page.locator(".notification.error").last.inner_text()
