#!/usr/bin/env python3
"""Serve the Firefight sandbox table on loopback (stdlib only).

    python3 tools/serve.py [--port 30000]

URLs mirror Foundry's: ``/`` is ``sandbox/``; ``/modules/firefight/`` is the repo root
(``runtime/``, ``lang/``, ``js-shim/`` ...). ``/sandbox-api/packs/<pack>`` returns the
documents of ``packs/_source/<pack>/`` as a JSON list, so the table can place the actors.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import os
import posixpath
import sys
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

REPO = Path(__file__).resolve().parent.parent
MODULE_PREFIX = "/modules/firefight/"
PACK_API = "/sandbox-api/packs/"

TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/octet-stream",
    ".zip": "application/octet-stream",
    ".tar": "application/octet-stream",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".css": "text/css",
    ".html": "text/html",
    ".py": "text/plain",
}


class Handler(SimpleHTTPRequestHandler):
    """Maps the two URL trees onto the repo and adds the headers a module worker needs."""

    extensions_map = {**mimetypes.types_map, **TYPES}  # noqa: RUF012
    overrides: dict[str, Path] = {}  # noqa: RUF012
    quiet = False

    def end_headers(self) -> None:
        # Cross-origin isolation lets Pyodide use SharedArrayBuffer; everything is same-origin.
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def translate_path(self, path: str) -> str:
        url_path = posixpath.normpath(unquote(urlsplit(path).path))
        if url_path in self.overrides:
            return str(self.overrides[url_path])
        if (url_path + "/").startswith(MODULE_PREFIX):
            base, rest = REPO, url_path[len(MODULE_PREFIX) :]
        else:
            base, rest = REPO / "sandbox", url_path.lstrip("/")
        if any(part.startswith(".") for part in rest.split("/")):
            return str(REPO / "sandbox" / "__missing__")  # no .git, .venv, ...
        target = (base / rest).resolve()
        if target != base and base not in target.parents:
            return str(REPO / "sandbox" / "__missing__")
        if path.endswith("/") and not str(target).endswith("/"):
            return str(target) + "/"
        return str(target)

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path.startswith(PACK_API):
            self._send_pack(path[len(PACK_API) :])
            return
        super().do_GET()

    def list_directory(self, path: str | os.PathLike[str]) -> None:  # type: ignore[override]
        """No directory listings: only files are served."""
        self.send_error(HTTPStatus.NOT_FOUND, "no directory listings")

    def _send_pack(self, name: str) -> None:
        src = REPO / "packs" / "_source" / name
        if not name or "/" in name or name.startswith(".") or not src.is_dir():
            self.send_error(HTTPStatus.NOT_FOUND, "no such pack")
            return
        docs = [json.loads(p.read_text("utf-8")) for p in sorted(src.glob("*.json"))]
        body = json.dumps(docs).encode()
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=30000)
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    parser.add_argument(
        "--override", action="append", default=[], metavar="URLPATH=FILE",
        help="serve FILE at URLPATH instead (development, e.g. a stub engine worker)",
    )
    args = parser.parse_args(argv)
    overrides = {}
    for spec in args.override:
        url_path, _, file = spec.partition("=")
        overrides[posixpath.normpath(url_path)] = Path(file).resolve()
    handler = type("FirefightHandler", (Handler,), {"overrides": overrides, "quiet": args.quiet})
    server = ThreadingHTTPServer(("127.0.0.1", args.port), partial(handler, directory=str(REPO)))
    print(f"Firefight sandbox table: http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
