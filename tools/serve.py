#!/usr/bin/env python3
"""Serve the Firefight sandbox table on loopback (stdlib only).

    python3 tools/serve.py [--port 30000] [--route-prefix ff] [--wasm-mime application/wasm]

URLs mirror Foundry's: ``/`` is ``sandbox/``; ``/modules/firefight/`` is the repo root
(``runtime/``, ``lang/``, ``js-shim/`` ...); ``/modules/<id>/`` is every other module installed:
each folder ``examples/<id>/`` that has a ``module.json``, and each ``--module DIR`` (its folder
name is its id, as Foundry's ``Data/modules/<id>/``; the sandbox activates them with
``?modules=<id>,<id>``). ``/sandbox-api/packs/<pack>`` returns the
documents of the compiled LevelDB pack ``packs/<pack>/`` (what the module zip ships, read by
``tools/read_pack.mjs``) as a JSON list, so the table can place the actors;
``/sandbox-api/packs/<module id>/<pack>`` those of another installed module's pack (its manifest's
``packs[].path``, a folder inside the module's).

``--route-prefix PREFIX`` serves everything under ``/PREFIX/`` (the sandbox at ``/PREFIX/``, the
module at ``/PREFIX/modules/firefight/``), as Foundry's ``routePrefix`` option does; nothing is
served outside it. ``--wasm-mime TYPE`` is the Content-Type of ``.wasm`` files (Foundry's own
server may not send ``application/wasm``; the engine must boot either way).
``--module DIR`` (repeatable) installs the module in DIR at ``/modules/<DIR's name>/``.
``--firefight DIR`` serves Firefight from DIR instead of the repo (its files at
``/modules/firefight/``, its compiled packs from ``DIR/packs/``): e.g. an unpacked
``dist/firefight.zip``, as Foundry installs it in ``Data/modules/firefight/``.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import os
import posixpath
import re
import shutil
import subprocess
import sys
import threading
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

REPO = Path(__file__).resolve().parent.parent
MODULE_PREFIX = "/modules/firefight/"
MODULES_PREFIX = "/modules/"
EXAMPLES = REPO / "examples"
# A package id: "lower-case with no spaces or special characters" (PackageManifestData `id`), and
# a module's folder name is its id (foundryvtt.com/article/module-development/, "id").
MODULE_ID = re.compile(r"^[a-z0-9_-]+$")
PACK_API = "/sandbox-api/packs/"
PACK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
# LevelDB files that change when a pack is merely opened (they say nothing about its content).
PACK_VOLATILE = {"LOCK", "LOG", "LOG.old"}

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
    modules: dict[str, Path] = {}  # noqa: RUF012  (--module: id -> folder)
    firefight = REPO  # Firefight's folder (--firefight: an unpacked module zip)
    quiet = False
    prefix = ""  # "" or "/PREFIX" (no trailing slash)
    # pack name -> (signature of its files, JSON body); shared by the server's threads
    pack_cache: dict[str, tuple[tuple[tuple[str, int, int], ...], bytes]] = {}  # noqa: RUF012
    pack_lock = threading.Lock()

    def end_headers(self) -> None:
        # Cross-origin isolation lets Pyodide use SharedArrayBuffer; everything is same-origin.
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def _unprefixed(self, path: str) -> str | None:
        """The URL path below the route prefix (None: outside it)."""
        url_path = posixpath.normpath(unquote(urlsplit(path).path))
        if not self.prefix:
            return url_path
        if url_path == self.prefix:
            return "/"
        if url_path.startswith(self.prefix + "/"):
            return url_path[len(self.prefix) :]
        return None

    def translate_path(self, path: str) -> str:
        url_path = self._unprefixed(path)
        if url_path is not None and url_path in self.overrides:
            return str(self.overrides[url_path])
        target = None if url_path is None else self._target(url_path)
        if target is None:
            return str(REPO / "sandbox" / "__missing__")
        if path.endswith("/") and not str(target).endswith("/"):
            return str(target) + "/"
        return str(target)

    def _target(self, url_path: str) -> Path | None:
        """The file a URL path below the prefix names; None: no such module, a hidden file
        (.git, .venv, ...) or outside its folder."""
        where = self._tree(url_path)
        if where is None:
            return None
        base, rest = where
        if any(part.startswith(".") for part in rest.split("/")):
            return None
        target = (base / rest).resolve()
        return target if target == base or base in target.parents else None

    def _tree(self, url_path: str) -> tuple[Path, str] | None:
        """(folder, path inside it) of a URL path below the prefix; None: no such module."""
        if (url_path + "/").startswith(MODULE_PREFIX):
            return self.firefight, url_path[len(MODULE_PREFIX) :]
        if url_path.startswith(MODULES_PREFIX):
            module_id, _, rest = url_path[len(MODULES_PREFIX) :].partition("/")
            folder = self.module_folder(module_id)
            return None if folder is None else (folder, rest)
        return REPO / "sandbox", url_path.lstrip("/")

    @classmethod
    def module_folder(cls, module_id: str) -> Path | None:
        """The folder of an installed module other than Firefight (None: not installed): a
        --module folder, else examples/<id>/ while it has a module.json (looked up per request:
        an example written while the table runs is installed at once)."""
        if not MODULE_ID.match(module_id) or module_id == "firefight":
            return None
        if module_id in cls.modules:
            return cls.modules[module_id]
        folder = EXAMPLES / module_id
        return folder if (folder / "module.json").is_file() else None

    def do_GET(self) -> None:
        path = self._unprefixed(self.path)
        if path is None:
            self.send_error(HTTPStatus.NOT_FOUND, f"outside the route prefix {self.prefix}/")
            return
        if path.startswith(PACK_API):
            self._send_pack(path[len(PACK_API) :])
            return
        super().do_GET()

    def list_directory(self, path: str | os.PathLike[str]) -> None:  # type: ignore[override]
        """No directory listings: only files are served."""
        self.send_error(HTTPStatus.NOT_FOUND, "no directory listings")

    def _module_pack(self, module_id: str, name: str) -> Path | None:
        """The compiled folder of pack `name` of another installed module (its manifest's
        `packs[].path`, inside its folder), or None."""
        folder = self.module_folder(module_id)
        if folder is None or not PACK_NAME.match(name):
            return None
        try:
            manifest = json.loads((folder / "module.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        declared = [p for p in manifest.get("packs") or [] if isinstance(p, dict)
                    and p.get("name") == name and isinstance(p.get("path"), str)]
        if not declared:
            return None
        pack = (folder / declared[0]["path"]).resolve()
        return pack if folder.resolve() in pack.parents else None

    def _send_pack(self, name: str) -> None:
        module_id, _, inner = name.partition("/")
        if inner:  # another module's pack
            pack = self._module_pack(module_id, inner)
            key = f"{module_id}/{inner}"
        else:
            pack = self.firefight / "packs" / name
            key = name
            if not PACK_NAME.match(name) or name == "_source":
                pack = None
        if pack is None or not (pack / "CURRENT").is_file():
            self.send_error(HTTPStatus.NOT_FOUND, f"no compiled pack {name}")
            return
        try:
            body = self._read_pack(key, pack)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:  # e.g. while rebuilt
            self.send_error(HTTPStatus.INTERNAL_SERVER_ERROR, "pack unreadable", explain=str(exc))
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    @classmethod
    def _read_pack(cls, name: str, pack: Path) -> bytes:
        """The pack's documents as JSON, read from LevelDB by tools/read_pack.mjs (cached until
        its files change)."""
        signature = tuple(
            (f.name, f.stat().st_mtime_ns, f.stat().st_size)
            for f in sorted(pack.iterdir())
            if f.name not in PACK_VOLATILE
        )
        with cls.pack_lock:
            cached = cls.pack_cache.get(name)
            if cached and cached[0] == signature:
                return cached[1]
            node = shutil.which("node")
            if node is None:
                raise RuntimeError("node is not installed: it reads the LevelDB packs")
            proc = subprocess.run(
                [node, str(REPO / "tools" / "read_pack.mjs"), str(pack)],
                capture_output=True, cwd=REPO, timeout=120, check=False,
            )
            if proc.returncode != 0:
                raise RuntimeError(f"reading packs/{name}: {proc.stderr.decode(errors='replace')}")
            cls.pack_cache[name] = (signature, proc.stdout)
            return proc.stdout

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 30000),
                        help="the port on 127.0.0.1 (default $PORT or 30000); 0: any free one")
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    parser.add_argument(
        "--route-prefix", default="", metavar="PREFIX",
        help="serve everything under /PREFIX/, as Foundry's routePrefix option does",
    )
    parser.add_argument(
        "--wasm-mime", default="application/wasm", metavar="TYPE",
        help="Content-Type of .wasm files (default application/wasm)",
    )
    parser.add_argument(
        "--override", action="append", default=[], metavar="URLPATH=FILE",
        help="serve FILE at URLPATH (below the route prefix) instead; a FILE that does not exist"
        " gives 404 (development and tests, e.g. a stub engine worker or a missing runtime)",
    )
    parser.add_argument(
        "--module", action="append", default=[], metavar="DIR",
        help="install the module in DIR (it holds a module.json) at /modules/<DIR's name>/;"
        " repeatable (examples/<id>/ with a module.json are installed already)",
    )
    parser.add_argument(
        "--firefight", default=str(REPO), metavar="DIR",
        help="serve Firefight from DIR (e.g. an unpacked dist/firefight.zip, named firefight/ as"
        " the manifest's id) instead of the repository",
    )
    args = parser.parse_args(argv)
    firefight = Path(args.firefight).resolve()
    if not (firefight / "module.json").is_file():
        sys.exit(f"serve.py: --firefight {args.firefight}: no module.json in {firefight}")
    if firefight != REPO and firefight.name != "firefight":
        sys.exit(f"serve.py: --firefight {args.firefight}: the folder must be named firefight"
                 " (a module's folder name is its id)")
    modules = {}
    for spec in args.module:
        folder = Path(spec).resolve()
        if not (folder / "module.json").is_file():
            sys.exit(f"serve.py: --module {spec}: no module.json in {folder}")
        if folder.name == "firefight" or not MODULE_ID.match(folder.name):
            sys.exit(f"serve.py: --module {spec}: the folder name {folder.name!r} is the module's"
                     " id: lower-case letters, digits, - and _, and not firefight")
        modules[folder.name] = folder
    overrides = {}
    for spec in args.override:
        url_path, _, file = spec.partition("=")
        overrides[posixpath.normpath(url_path)] = Path(file).resolve()
    prefix = "/" + args.route_prefix.strip("/") if args.route_prefix.strip("/") else ""
    handler = type("FirefightHandler", (Handler,), {
        "overrides": overrides, "modules": modules, "firefight": firefight,
        "quiet": args.quiet, "prefix": prefix,
        "extensions_map": {**Handler.extensions_map, ".wasm": args.wasm_mime},
    })
    try:
        server = ThreadingHTTPServer(("127.0.0.1", args.port),
                                     partial(handler, directory=str(REPO)))
    except OSError as exc:  # the port is taken (Foundry itself defaults to 30000) or not allowed
        sys.exit(f"serve.py: cannot listen on 127.0.0.1:{args.port} ({exc.strerror}). Is Foundry "
                 "or another table running there? Choose another port: make table PORT=30001")
    url = f"http://127.0.0.1:{server.server_address[1]}{prefix}/"
    print(f"Firefight sandbox table: {url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
