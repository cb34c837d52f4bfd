"""js-shim/engine-worker.mjs in a real Chromium, fully offline.

The repository is served at /modules/firefight/ (as Foundry serves the module) by a local server
that records every path asked of it; Chromium resolves no other host, and any request for another
origin is aborted and recorded. So a passing test proves the worker loads Pyodide, its lockfile,
the stdlib and every wheel from runtime/, and nothing from a CDN.

Needs `make runtime` and Chromium ($FIREFIGHT_CHROMIUM, default /usr/bin/chromium).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "/modules/firefight/"

# Posts three messages at once, before Python can be ready, then collects everything.
PAGE = """<!doctype html><meta charset="utf-8"><title>worker test</title><script type="module">
const worker = new Worker("/modules/firefight/js-shim/engine-worker.mjs", {type: "module"});
const events = [];
window.done = new Promise((resolve) => {
  worker.onmessage = (e) => {
    events.push(e.data);
    if (events.filter((d) => "id" in d).length === 3) resolve(events);
  };
  worker.onerror = (e) => { events.push({type: "onerror", message: e.message}); resolve(events); };
});
worker.postMessage({id: 1, message: JSON.stringify({op: "hello"})});
worker.postMessage({id: 2, message: JSON.stringify({op: "no-such-op"})});
worker.postMessage({id: 3, message: "{not json"});
</script>"""


# The worker with test controls (engine-test-worker.mjs wraps engine-worker.mjs).
RECOVERY_PAGE = """<!doctype html><meta charset="utf-8"><title>worker recovery</title><script>
window.events = [];
window.worker = new Worker("/modules/firefight/tests/pyodide/engine-test-worker.mjs",
                           {type: "module"});
worker.onmessage = (e) => events.push(e.data);
worker.onerror = (e) => events.push({type: "onerror", message: e.message});
</script>"""
PAGES = {"/": PAGE, "/recovery": RECOVERY_PAGE}


class Handler(SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 (the stdlib declares it a plain class attribute)
        **SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    def __init__(self, *args: Any, served: list[str], **kwargs: Any) -> None:
        self.served = served
        super().__init__(*args, directory=str(ROOT), **kwargs)

    def do_GET(self) -> None:
        if self.path in PAGES:
            body = PAGES[self.path].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if not self.path.startswith(PREFIX):
            self.send_error(404)
            return
        self.served.append(self.path)
        self.path = "/" + self.path.removeprefix(PREFIX)
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, list[str]]]:
    if not (ROOT / "runtime" / "wheels" / "manifest.json").exists():
        pytest.fail("runtime/ is not built: run `make runtime`")
    served: list[str] = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, served=served))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", served
    httpd.shutdown()


def run_page(base: str, fail: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Load the test page; answer 404 for URLs ending in `fail`. Returns (events, foreign URLs)."""
    from playwright.sync_api import Route, sync_playwright

    foreign: list[str] = []

    def route(route: Route) -> None:
        url = route.request.url
        if not url.startswith(base):
            foreign.append(url)
            route.abort()
        elif fail is not None and url.endswith(fail):
            route.fulfill(status=404, body="gone")
        else:
            route.continue_()

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("FIREFIGHT_CHROMIUM", "/usr/bin/chromium"),
            args=["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
        )
        try:
            context = browser.new_context()
            context.route("**/*", route)
            page = context.new_page()
            page.goto(base + "/")
            events: list[dict[str, Any]] = page.evaluate("window.done", None)
        finally:
            browser.close()
    return events, foreign


def progress(events: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """(the boot's {type: "stage"} names in order, the other events)."""
    stages = [e["stage"] for e in events if e.get("type") == "stage"]
    return stages, [e for e in events if e.get("type") not in {"stage", "snapshot"}]


def test_worker_boots_offline_and_answers_queued_messages(
    server: tuple[str, list[str]],
) -> None:
    base, served = server
    served.clear()
    events, foreign = run_page(base)
    stages, events = progress(events)

    assert foreign == []
    # The dialog's progress line follows these (js-shim/boot-status.mjs).
    assert stages == ["python", "packages", "engine"], stages
    kinds = [e.get("type", "reply") for e in events]
    assert kinds == ["ready", "reply", "reply", "reply"], events
    ready = events[0]
    manifest = json.loads((ROOT / "runtime/wheels/manifest.json").read_text())
    project_wheel = next(w for w in manifest["wheels"] if w.startswith("firefight-"))
    assert project_wheel.startswith(f"firefight-{ready['version']}-")

    replies = {e["id"]: json.loads(e["reply"]) for e in events[1:]}
    assert replies[1]["ok"] is True
    assert replies[1]["value"]["version"] == ready["version"]
    assert replies[2]["ok"] is False
    assert replies[3]["ok"] is False
    assert replies[3]["error"]["code"] == "bad_message"

    # Everything came from runtime/: Pyodide's files and every wheel in the manifest.
    fetched = {p.removeprefix(PREFIX) for p in served}
    assert sorted(p for p in fetched if not (ROOT / p).is_file()) == []  # no 404s
    for name in ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json"]:
        assert f"runtime/pyodide/{name}" in fetched
    for wheel in manifest["wheels"]:
        assert f"runtime/wheels/{wheel}" in fetched


@pytest.mark.parametrize(
    ("fail", "reported"),
    [("/runtime/wheels/manifest.json", "manifest.json"), ("_wasm32.whl", "pydantic_core")],
    ids=["manifest", "wheel"],
)
def test_boot_failure_answers_every_message_with_boot_failed(
    server: tuple[str, list[str]], fail: str, reported: str,
) -> None:
    base, _ = server
    events, foreign = run_page(base, fail=fail)
    _, events = progress(events)

    assert foreign == []
    assert events[0]["type"] == "boot-error"
    assert reported in events[0]["message"]
    replies = [json.loads(e["reply"]) for e in events[1:]]
    assert len(replies) == 3
    for reply in replies:
        assert reply["ok"] is False
        assert reply["error"]["code"] == "boot_failed"
        assert reported in reply["error"]["message"]


def test_a_broken_interpreter_is_reported_fatal_and_answers_nothing(
    server: tuple[str, list[str]],
) -> None:
    """After a Pyodide fatal error (a stack overflow in json.loads of JSON nested 100 000 deep,
    reliability audit D7) the worker says so ({type: "fatal"}) and answers no later call from
    the broken interpreter; its Web Lock tells its end to whoever waits for it."""
    from playwright.sync_api import sync_playwright

    base, _ = server
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("FIREFIGHT_CHROMIUM", "/usr/bin/chromium"),
            args=["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
        )
        try:
            page = browser.new_page()
            page.goto(base + "/recovery")
            page.evaluate("worker.postMessage({type: 'watch', lock: 'firefight-test-lock'})")
            page.wait_for_function("events.some((e) => e.type === 'watching')")
            # Held by the worker: not available to the page.
            held = ("navigator.locks.request('firefight-test-lock', {ifAvailable: true},"
                    " (l) => l === null)")
            assert page.evaluate(held) is True
            page.wait_for_function("events.some((e) => e.type === 'ready')", timeout=180000)
            hello = "(id) => worker.postMessage({id, message: JSON.stringify({op: 'hello'})})"
            page.evaluate(hello, 1)
            page.wait_for_function("events.some((e) => e.id === 1)")

            page.evaluate("worker.postMessage({test: 'fatal'})")
            page.evaluate(hello, 2)
            page.evaluate(hello, 3)
            page.wait_for_function("events.some((e) => e.type === 'fatal')", timeout=60000)
            page.wait_for_timeout(500)
            events = page.evaluate("events")
            fatal = next(e for e in events if e.get("type") == "fatal")
            assert "id" not in fatal  # broken before call 2: not call 2's fault
            assert "fatal" in fatal["message"].lower(), fatal
            assert [e for e in events if e.get("id") in (2, 3)] == []
            assert sum(1 for e in events if e.get("type") == "fatal") == 1

            # terminate() ends the worker without an event; its lock is released.
            page.evaluate("worker.terminate()")
            granted = "navigator.locks.request('firefight-test-lock', () => 'granted')"
            assert page.evaluate(granted) == "granted"
        finally:
            browser.close()


# Boots the worker three times in one profile: the first takes a memory snapshot and stores it,
# the second restores it; then the stored snapshot is replaced by garbage, and the third boots
# without it (and stores a new one). Each boot answers `hello`.
SNAPSHOT_PAGE = """<!doctype html><meta charset="utf-8"><title>snapshot</title>
<script type="module">
async function boot() {
  const worker = new Worker("/modules/firefight/js-shim/engine-worker.mjs", {type: "module"});
  const out = {stored: null};
  await new Promise((resolve) => {
    worker.onmessage = (e) => {
      const d = e.data;
      if (d.type === "ready" || d.type === "boot-error") out.ready = d;
      if (d.type === "snapshot") out.stored = d;
      if (d.id === 1) out.reply = JSON.parse(d.reply);
      if (out.reply && (out.ready?.snapshot !== "made" || out.stored)) resolve();
    };
    worker.postMessage({id: 1, message: JSON.stringify({op: "hello"})});
  });
  worker.terminate();
  return out;
}
window.done = (async () => {
  const first = await boot();
  const second = await boot();
  const cache = await caches.open("firefight-engine-snapshot");
  const keys = (await cache.keys()).map((r) => r.url);
  for (const key of keys) await cache.put(key, new Response(new Uint8Array(4096).fill(7)));
  const third = await boot();
  const after = (await cache.keys()).map((r) => r.url);
  return {first, second, third, keys, after};
})();
</script>"""
PAGES["/snapshot"] = SNAPSHOT_PAGE


def test_the_memory_snapshot_is_stored_restored_and_a_bad_one_is_replaced(
    server: tuple[str, list[str]],
) -> None:
    from playwright.sync_api import sync_playwright

    base, _ = server
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("FIREFIGHT_CHROMIUM", "/usr/bin/chromium"))
        try:
            page = browser.new_context().new_page()
            console: list[str] = []
            page.on("console", lambda m: console.append(m.text))
            page.goto(base + "/snapshot")
            out: dict[str, Any] = page.evaluate("window.done", None)
        finally:
            browser.close()
    for boot in ("first", "second", "third"):
        assert out[boot]["reply"]["ok"] is True, out[boot]
    assert out["first"]["ready"]["snapshot"] == "made", console
    assert out["first"]["stored"]["stored"] is True
    # Keyed by the runtime's hash (manifest.json "runtime", tools/build_runtime.py).
    assert len(out["keys"]) == 1
    assert re.fullmatch(rf"{base}/modules/firefight/runtime/snapshot/[0-9a-f]{{32}}\.bin",
                        out["keys"][0]), out["keys"]
    assert out["second"]["ready"]["snapshot"] == "restored"
    assert out["third"]["ready"]["snapshot"] == "made"  # the garbage did not restore
    assert out["third"]["stored"]["stored"] is True
    assert out["after"] == out["keys"]
