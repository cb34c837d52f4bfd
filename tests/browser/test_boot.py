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


def _select_and_target(page: Any) -> None:
    page.locator('.token[data-name="Rifleman Aldo Ferri"]').click()
    page.locator('.token[data-name="Lesser Venusian Rhino"]').click(button="right")


def test_shoot_during_boot_opens_at_once_with_a_progress_line(server: str, fresh_page: Any
                                                               ) -> None:
    context, page = fresh_page
    held: list[Any] = []  # the worker's manifest request, held until the dialog was seen

    def hold(route: Any) -> None:  # Playwright wraps the handler: a bound builtin will not do
        held.append(route)

    context.route("**/runtime/wheels/manifest.json", hold)
    page.goto(server)
    page.wait_for_function("() => game.ready === true")
    _select_and_target(page)
    page.click("#shoot-button")
    line = page.locator("dialog.application [data-firefight-boot]")
    line.wait_for()
    assert line.get_attribute("data-status") == "booting"
    assert "Starting the engine" in line.inner_text()
    assert "Rifleman Aldo Ferri → Lesser Venusian Rhino" in page.locator(
        "dialog.application .firefight-booting").inner_text()
    assert page.locator('dialog.application [data-action="retry"]').is_hidden()
    # A second press brings the same dialog forward instead of opening another.
    page.click("#shoot-button")
    assert page.locator("dialog.application [data-firefight-boot]").count() == 1
    for _ in range(3600):  # the worker asks for its manifest at once (bounded, not timed)
        if held:
            break
        page.wait_for_timeout(50)
    held[0].continue_()
    # Once the engine is ready the full Shoot dialog replaces the boot line.
    page.wait_for_selector("dialog.application .firefight-shot", timeout=180000)
    assert page.locator("[data-firefight-boot]").count() == 0


def test_failed_boot_says_so_in_the_dialog_and_try_again_boots(server: str, fresh_page: Any
                                                                ) -> None:
    context, page = fresh_page
    context.route("**/runtime/wheels/manifest.json", lambda route: route.abort())
    page.goto(server)
    page.wait_for_selector('#engine-status[data-status="failed"]', timeout=180000)
    _select_and_target(page)
    # The sandbox panel's Shoot button is disabled on a failed engine: the key binding (Shift+F).
    page.keyboard.press("Shift+F")
    line = page.locator('dialog.application [data-firefight-boot][data-status="failed"]')
    line.wait_for()
    text = line.inner_text()
    assert "failed to start" in text, text
    assert "manifest.json" in text, text
    assert "Starting" not in text, text
    assert "Try again" in text, text
    context.unroute("**/runtime/wheels/manifest.json")
    page.click('dialog.application [data-action="retry"]')
    page.wait_for_selector("dialog.application .firefight-shot", timeout=180000)
    assert page.evaluate("() => game.modules.get('firefight').api.engine.status") == "ready"
