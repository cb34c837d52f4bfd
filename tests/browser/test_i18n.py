"""A second language proves nothing is hard-coded: with German chosen, the shot dialog and the
chat card show no English text from lang/en.json (the card is rendered by the engine in the
client's language, game.i18n.lang)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import BOOT_TIMEOUT_MS, REPO, Table

FIRST_ID_JS = "() => game.messages.contents[0].id"
TEXTS_JS = """(selector) => {
    const root = document.querySelector(selector);
    const out = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const t = n.textContent.trim();
        if (t) out.push(t);
    }
    for (const el of root.querySelectorAll('[placeholder]')) out.push(el.placeholder);
    return out;
}"""


def _flat(node: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    for k, v in node.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            yield from _flat(v, key)
        else:
            yield key, str(v)


def _english_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Every English string that differs from its German one, as a full-match pattern."""
    en = dict(_flat(json.loads((REPO / "lang/en.json").read_text("utf-8"))))
    de = dict(_flat(json.loads((REPO / "lang/de.json").read_text("utf-8"))))
    out = []
    for key, text in en.items():
        if de.get(key) == text or not re.sub(r"\{\w+\}|[\W\d_]", "", text):
            continue  # the same in both languages, or nothing but placeholders and signs
        pattern = "".join(
            ".+?" if part.startswith("{") else re.escape(part)
            for part in re.split(r"(\{\w+\})", text)
        )
        out.append((key, re.compile(pattern)))
    return out


def _english_in(texts: list[str]) -> list[str]:
    patterns = _english_patterns()
    return [f"{t!r} ({key})" for t in texts for key, p in patterns if p.fullmatch(t)]


@pytest.fixture(scope="module")
def german_table(server: str, browser: Any) -> Iterator[Table]:
    context = browser.new_context(viewport={"width": 1440, "height": 860})
    page = context.new_page()
    t = Table(server, context, page)
    page.on("pageerror", lambda e: t.errors.append(str(e)))
    page.goto(f"{server}?lang=de")
    page.wait_for_function("() => game.ready === true", timeout=30000)
    page.wait_for_selector('#engine-status[data-status="ready"]', timeout=BOOT_TIMEOUT_MS)
    yield t
    context.close()


def test_german_and_english_have_the_same_keys() -> None:
    en = {k for k, _ in _flat(json.loads((REPO / "lang/en.json").read_text("utf-8")))}
    de = {k for k, _ in _flat(json.loads((REPO / "lang/de.json").read_text("utf-8")))}
    assert en == de


def test_dialog_and_card_show_no_english(german_table: Table) -> None:
    page = german_table.page
    assert page.evaluate("() => game.i18n.lang") == "de"
    german_table.token("Rifleman Aldo Ferri").click()
    german_table.token("Lesser Venusian Rhino").click(button="right")
    page.click("#shoot-button")
    page.wait_for_selector("dialog.application .firefight-shot")
    page.wait_for_function(
        "() => document.querySelector('[data-odds-value]').textContent.includes('%')", timeout=60000
    )
    dialog = _english_in(page.evaluate(TEXTS_JS, "dialog.application"))
    assert "Feuer!" in page.locator("dialog.application .window-title").inner_text()
    german_table.shot("30-dialog-de")
    assert dialog == []
    page.click('dialog.application button[data-action="fire"]')
    page.wait_for_function("() => game.messages.size === 1", timeout=60000)
    card = page.locator(".chat-message").last
    card.locator(".firefight-card").wait_for()
    german_table.shot("31-card-de")
    texts = page.evaluate(
        TEXTS_JS,
        f'[data-message-id="{page.evaluate(FIRST_ID_JS)}"] .message-content',
    )
    assert _english_in(texts) == []
    assert any("Treffer" in t or "Fehlschuss" in t for t in texts)
    assert german_table.errors == []


def test_every_lang_file_is_in_the_manifest() -> None:
    manifest = json.loads((REPO / "module.json").read_text("utf-8"))
    assert {entry["lang"] for entry in manifest["languages"]} == {
        p.stem for p in Path(REPO / "lang").glob("*.json")
    }
