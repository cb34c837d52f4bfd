"""A stand-in for Foundry's server, for the tier's own tests (tests/engine/test_foundry_tier.py).

It is packed as ``main.mjs`` into a fake "Foundry zip" and started by tools/foundry_tier.py
exactly as the real one is (``<node> main.mjs --dataPath=... --port=... --adminKey=...``, with
FOUNDRY_NODE set to Python). It imitates only the routes the orchestration uses, as public
e2e drivers describe them (see tools/foundry_tier.py): everything under the ``routePrefix`` of
``Config/options.json`` and nothing outside it; /api/status; /setup redirecting to /license
until the EULA is signed and to /auth until the session is the admin's; POST /license, /auth,
/setup (createWorld, launchWorld), /create, /join (shutdown). No Foundry code or markup.

Behaviour switches come from ``fake.json`` beside this script: {"exit": n} exits at once,
{"refuse_licence": true} never signs, {"create_route": "create"} creates worlds only there,
{"stubborn": true} ignores shutdown, {"auth_json_only": true} takes the admin key as JSON only.
"""

from __future__ import annotations

import json
import secrets
import sys
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs


def _args(argv: list[str]) -> dict[str, str]:
    out = {}
    for arg in argv:
        if arg.startswith("--"):
            key, _, value = arg[2:].partition("=")
            out[key] = value or "true"
    return out


ARGS = _args(sys.argv[1:])
DATA = Path(ARGS["dataPath"])
FAKE = json.loads((Path(__file__).parent / "fake.json").read_text("utf-8")) \
    if (Path(__file__).parent / "fake.json").is_file() else {}
OPTIONS = json.loads((DATA / "Config" / "options.json").read_text("utf-8"))
PREFIX = "/" + OPTIONS["routePrefix"].strip("/") if OPTIONS.get("routePrefix") else ""
STATE: dict[str, object] = {"signed": False, "world": None, "admins": set()}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        print(f"{self.command} {self.path}", flush=True)

    def _session(self) -> str:
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        return cookie["session"].value if "session" in cookie else ""

    def _send(self, status: int, body: object = "", location: str = "",
              session: str = "") -> None:
        data = (json.dumps(body) if not isinstance(body, str) else body).encode()
        self.send_response(status)
        if location:
            self.send_header("Location", PREFIX + location)
        if session:
            self.send_header("Set-Cookie", f"session={session}; Path={PREFIX or '/'}")
        kind = "text/html" if isinstance(body, str) else "application/json"
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self) -> str | None:
        path = self.path.split("?")[0]
        if PREFIX and not (path == PREFIX or path.startswith(PREFIX + "/")):
            return None
        return path[len(PREFIX):] or "/"

    def _body(self) -> dict[str, str]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        if self.headers.get("Content-Type", "").startswith("application/json"):
            return json.loads(raw or "{}")
        return {k: v[0] for k, v in parse_qs(raw).items()}

    def do_GET(self) -> None:  # noqa: PLR0911
        route = self._route()
        if route is None:
            return self._send(404, "outside the route prefix")
        if route == "/api/status":
            world = STATE["world"]
            return self._send(200, {"active": bool(world), "world": world, "version": "13.351",
                                    "users": 0})
        if route == "/setup":
            if not STATE["signed"]:
                return self._send(302, location="/license")
            if world := STATE["world"]:
                return self._send(302, location="/join")
            if self._session() not in STATE["admins"]:  # type: ignore[operator]
                return self._send(302, location="/auth")
            return self._send(200, "<html>setup</html>")
        return self._send(404, "no such page")

    def do_POST(self) -> None:
        route = self._route()
        if route is None:
            return self._send(404, "outside the route prefix")
        body = self._body()
        if route == "/license":
            return self._license(body)
        if route == "/auth":
            return self._auth(body)
        if self._session() not in STATE["admins"]:  # type: ignore[operator]
            return self._send(403, {"error": "admin only"})
        return self._admin(route, body)

    def _license(self, body: dict[str, str]) -> None:
        licence = json.loads((DATA / "Config" / "license.json").read_text("utf-8"))
        agreed = body.get("agree") == "on" and licence.get("license")
        if agreed and not FAKE.get("refuse_licence"):
            STATE["signed"] = True
        return self._send(302, location="/setup")

    def _auth(self, body: dict[str, str]) -> None:
        as_json = self.headers.get("Content-Type", "").startswith("application/json")
        if FAKE.get("auth_json_only") and not as_json:
            return self._send(302, location="/auth")
        if body.get("adminPassword") == ARGS.get("adminKey"):
            session = secrets.token_hex(8)
            STATE["admins"].add(session)  # type: ignore[attr-defined]
            return self._send(302, location="/setup", session=session)
        return self._send(302, location="/auth")

    def _admin(self, route: str, body: dict[str, str]) -> None:
        action = body.get("action")
        if action == "createWorld" and route == "/" + FAKE.get("create_route", "setup"):
            system = DATA / "Data" / "systems" / body["system"] / "system.json"
            if not system.is_file():
                return self._send(400, {"error": f"no system {body['system']}"})
            world = DATA / "Data" / "worlds" / body["id"]
            world.mkdir(parents=True)
            (world / "world.json").write_text(json.dumps(
                {"id": body["id"], "title": body["title"], "system": body["system"]}), "utf-8")
            return self._send(200, {"id": body["id"]})
        if action == "launchWorld" and route == "/setup":
            if not (DATA / "Data" / "worlds" / body["world"] / "world.json").is_file():
                return self._send(400, {"error": f"no world {body['world']}"})
            STATE["world"] = body["world"]
            return self._send(200, {"status": "success"})
        if action == "shutdown" and route == "/join":
            if not FAKE.get("stubborn"):
                STATE["world"] = None
            return self._send(200, {"status": "success"})
        return self._send(404, {"error": f"unknown action {action} at {route}"})


def main() -> None:
    if "exit" in FAKE:
        print("fake foundry: exiting as told", flush=True)
        sys.exit(int(FAKE["exit"]))
    print(f"fake foundry on {PREFIX or '/'} port {ARGS['port']}", flush=True)
    ThreadingHTTPServer(("127.0.0.1", int(ARGS["port"])), Handler).serve_forever()


if __name__ == "__main__":
    main()
