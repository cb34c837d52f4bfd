#!/usr/bin/env python3
"""The opt-in real-Foundry tier: prepare and start a user's own licensed Foundry VTT v13 (stdlib).

    make test-foundry FOUNDRY_ZIP=~/FoundryVTT-Node-13.351.zip FOUNDRY_LICENSE=XXXX-... \\
        FOUNDRY_SYSTEMS=~/dnd5e.zip,~/pf2e.zip,~/worldbuilding.zip
    python3 tools/foundry_tier.py serve     # the same preparation, then keep Foundry running

Everything happens in a fresh temporary folder (deleted afterwards unless FOUNDRY_KEEP=1):
the Foundry zip is unpacked there, a user data folder is made beside it with
``Config/options.json`` (a route prefix, loopback host names, no UPnP), the licence, the module
zip built by ``make module`` in ``Data/modules/firefight/`` and every system zip in
``Data/systems/<id>/``. Foundry is started with Node.js, the licence and EULA are signed, the
setup screen is unlocked with a one-run admin key, one world per system is created and
launched in turn. Nothing of Foundry is copied into the repository, and every address used is
loopback.

Sources for the headless start (Foundry itself is not read; see docs/building.md):
- foundryvtt.com/article/configuration/: the command-line flags (--port, --world, --dataPath,
  --noupnp, --noupdate, --adminKey) and the options.json directives.
- felddy/foundryvtt-docker: src/launcher.sh and src/set_options.ts (options.json with
  ``routePrefix``, ``--noipdiscovery``), src/entrypoint.sh (``Config/license.json`` =
  ``{"license": key without dashes}``), Dockerfile (``node resources/app/main.mjs --port=...
  --dataPath=...``), src/check_health.sh (``/<routePrefix>/api/status`` answers when Foundry is up).
- Daxiongmao87/simulacrum-foundry tests/e2e/fixtures/foundry-setup.mjs and foundry-helpers.mjs
  (Playwright against v13.351): the v13 Node.js zip has ``main.mjs`` at its root; an unlicensed
  server redirects /setup to /license, which takes the form fields ``licenseKey``, then
  ``agree``/``accept``; the /join form has ``select[name=userid]`` and ``button[name=join]``.
- Public e2e drivers (found by find_string "launchWorld"): POST /setup
  ``{"action": "launchWorld", "world": id}``, POST /setup or /create ``{"action": "createWorld",
  "id", "title", "system"}``, POST /auth with the admin password, POST /join
  ``{"action": "shutdown"}``, and /api/status answering ``{"active", "world", ...}``.
"""

from __future__ import annotations

import argparse
import contextlib
import http.cookiejar
import ipaddress
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MODULE_ID = "firefight"
DEFAULT_MODULE_ZIP = REPO / "dist" / "firefight.zip"
DEFAULT_PREFIX = "ff"
FOUNDRY_GENERATION = 13
LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 180.0
LAUNCH_TIMEOUT_S = 240.0

HOW_TO_RUN = (
    "set FOUNDRY_ZIP (your Foundry VTT v13 Node.js zip) and FOUNDRY_LICENSE (your licence key "
    "or license.json) to run it: make test-foundry FOUNDRY_ZIP=... FOUNDRY_LICENSE=... "
    "FOUNDRY_SYSTEMS=a.zip,b.zip"
)
SKIP_LINE = f"real-Foundry tier skipped: {HOW_TO_RUN}"
REQUIRED = ("FOUNDRY_ZIP", "FOUNDRY_LICENSE")
# Where the Node.js builds keep their entry: v13's Node.js zip has main.mjs at its root
# (simulacrum-foundry foundry-setup.mjs); the Linux build and older ones under resources/app/
# (felddy Dockerfile); the knowledge base still says ``node main.js``.
ENTRY_POINTS = ("main.mjs", "resources/app/main.mjs", "main.js", "resources/app/main.js")
PREFIX_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
PACKAGE_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$", re.IGNORECASE)


class TierError(Exception):
    """A step of the real-Foundry tier failed; the message names the step and the thing."""


# --- configuration ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TierConfig:
    foundry_zip: Path
    licence: str = field(repr=False)  # the key, or "" when licence_file is given
    licence_file: Path | None
    systems: tuple[Path, ...]
    module_zip: Path
    prefix: str = DEFAULT_PREFIX
    port: int = 0  # 0: a free loopback port
    node: str = "node"
    keep: bool = False
    admin_key: str = field(default_factory=lambda: secrets.token_urlsafe(18), repr=False)


def skip_reason(env: Mapping[str, str]) -> str | None:
    """The one line the tier prints when it cannot run, or None when it can."""
    missing = [name for name in REQUIRED if not env.get(name, "").strip()]
    if not missing:
        return None
    if len(missing) == len(REQUIRED):
        return SKIP_LINE
    return f"real-Foundry tier skipped: {missing[0]} is not set; {HOW_TO_RUN}"


def _existing_zip(name: str, value: str) -> Path:
    path = Path(value).expanduser()
    if not path.is_file():
        raise TierError(f"{name}: {value} is not a file")
    if not zipfile.is_zipfile(path):
        raise TierError(f"{name}: {value} is not a zip archive")
    return path.resolve()


def parse_systems(value: str) -> tuple[Path, ...]:
    """FOUNDRY_SYSTEMS: comma-separated system zips (Foundry cannot download them here)."""
    paths = [part.strip() for part in value.split(",") if part.strip()]
    if not paths:
        raise TierError(
            "FOUNDRY_SYSTEMS: name at least one game system zip (e.g. dnd5e.zip, pf2e.zip, "
            "worldbuilding.zip, comma-separated); the tier plays one world per system"
        )
    return tuple(_existing_zip("FOUNDRY_SYSTEMS", p) for p in paths)


def read_config(env: Mapping[str, str]) -> TierConfig | None:
    """The tier's settings from the environment; None when it is to be skipped."""
    if skip_reason(env) is not None:
        return None
    foundry_zip = _existing_zip("FOUNDRY_ZIP", env["FOUNDRY_ZIP"].strip())
    licence = env["FOUNDRY_LICENSE"].strip()
    licence_file: Path | None = None
    if Path(licence).expanduser().is_file():
        licence_file = Path(licence).expanduser().resolve()
        try:
            data = json.loads(licence_file.read_text("utf-8"))
        except (OSError, ValueError) as err:
            raise TierError(f"FOUNDRY_LICENSE: {licence} is not a license.json ({err})") from err
        if not isinstance(data, dict) or not data.get("license"):
            raise TierError(f'FOUNDRY_LICENSE: {licence} has no "license" field')
        licence = ""
    elif not re.fullmatch(r"[A-Za-z0-9]{4}(-?[A-Za-z0-9]{4}){5}", licence):
        raise TierError(
            "FOUNDRY_LICENSE: expected a licence key of 24 letters and digits "
            "(XXXX-XXXX-XXXX-XXXX-XXXX-XXXX) or the path of a license.json"
        )
    systems = parse_systems(env.get("FOUNDRY_SYSTEMS", ""))
    module_value = env.get("FOUNDRY_MODULE_ZIP", "").strip()
    module_zip = Path(module_value).expanduser() if module_value else DEFAULT_MODULE_ZIP
    if not module_zip.is_file():
        raise TierError(f"FOUNDRY_MODULE_ZIP: {module_zip} does not exist (run `make module`)")
    prefix = env.get("FOUNDRY_ROUTE_PREFIX", DEFAULT_PREFIX).strip().strip("/")
    if not PREFIX_RE.match(prefix):
        raise TierError(f"FOUNDRY_ROUTE_PREFIX: {prefix!r} is not a plain path segment")
    port_value = env.get("FOUNDRY_PORT", "0").strip() or "0"
    if not port_value.isdigit() or not 0 <= int(port_value) <= 65535:
        raise TierError(f"FOUNDRY_PORT: {port_value!r} is not a port number (0: a free one)")
    keep = env.get("FOUNDRY_KEEP", "").strip().lower() in {"1", "true", "yes"}
    extra: dict[str, Any] = {}
    if env.get("FOUNDRY_ADMIN_KEY", "").strip():
        extra["admin_key"] = env["FOUNDRY_ADMIN_KEY"].strip()
    return TierConfig(
        foundry_zip=foundry_zip, licence=licence, licence_file=licence_file, systems=systems,
        module_zip=module_zip.resolve(), prefix=prefix, port=int(port_value),
        node=env.get("FOUNDRY_NODE", "").strip() or "node", keep=keep, **extra,
    )


# --- zips ---------------------------------------------------------------------------------------


def _member_path(name: str) -> PurePosixPath:
    """A zip member's path, refused if it could escape the folder it is unpacked into."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise TierError(f"zip member {name!r} points outside the folder it is unpacked into")
    return path


def extract(zip_path: Path, dest: Path, strip: str = "") -> None:
    """Unpack ``zip_path`` into ``dest``; members under ``strip/`` lose that prefix."""
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            path = _member_path(info.filename)
            if strip:
                if not path.parts or path.parts[0] != strip:
                    continue
                path = PurePosixPath(*path.parts[1:])
            if not path.parts:
                continue
            target = dest.joinpath(*path.parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, target.open("wb") as out:
                shutil.copyfileobj(src, out)
            if mode := (info.external_attr >> 16) & 0o777:
                target.chmod(mode | 0o600)


def read_manifest(zip_path: Path, manifest_name: str) -> tuple[dict[str, Any], str]:
    """A package zip's manifest and the folder it sits in ("" = the zip's root).

    Foundry installs a package zip whose manifest is at its root or inside one top folder
    (a GitHub archive); anything else is refused here with the name of what is missing.
    """
    with zipfile.ZipFile(zip_path) as zf:
        names = [_member_path(n) for n in zf.namelist()]
        if PurePosixPath(manifest_name) in names:
            top = ""
        else:
            nested = [p for p in names if len(p.parts) == 2 and p.name == manifest_name]
            if len(nested) != 1:
                raise TierError(
                    f"{zip_path.name}: no {manifest_name} at the zip's root or in one top folder"
                )
            top = nested[0].parts[0]
        raw = zf.read(f"{top}/{manifest_name}" if top else manifest_name)
    try:
        manifest = json.loads(raw)
    except ValueError as err:
        raise TierError(f"{zip_path.name}: {manifest_name} is not JSON ({err})") from err
    package_id = manifest.get("id") if isinstance(manifest, dict) else None
    if not isinstance(package_id, str) or not PACKAGE_ID_RE.match(package_id):
        raise TierError(f"{zip_path.name}: {manifest_name} has no valid \"id\"")
    return manifest, top


def install_package(zip_path: Path, data_dir: Path, kind: str) -> str:
    """Unpack a module or system zip into ``Data/<kind>s/<id>/``; returns the package id."""
    manifest, top = read_manifest(zip_path, f"{kind}.json")
    package_id = str(manifest["id"])
    target = data_dir / "Data" / f"{kind}s" / package_id
    if target.exists():
        raise TierError(f"{zip_path.name}: {kind} {package_id!r} is installed twice")
    extract(zip_path, target, strip=top)
    return package_id


def unpack_foundry(zip_path: Path, dest: Path) -> Path:
    """Unpack the user's Foundry zip; returns its Node.js entry script."""
    with zipfile.ZipFile(zip_path) as zf:
        names = {str(_member_path(n)) for n in zf.namelist()}
    entry = next((e for e in ENTRY_POINTS if e in names), None)
    if entry is None:
        raise TierError(
            f"FOUNDRY_ZIP: {zip_path.name} has none of {', '.join(ENTRY_POINTS)}: "
            "download the Node.js build of Foundry VTT v13 from your foundryvtt.com account"
        )
    extract(zip_path, dest)
    package_json = dest / PurePosixPath(entry).parent / "package.json"
    if package_json.is_file():
        # felddy entrypoint.sh reads the version as package.json release.generation/.build.
        with contextlib.suppress(ValueError, AttributeError):
            release = json.loads(package_json.read_text("utf-8")).get("release") or {}
            generation = release.get("generation")
            if generation is not None and int(generation) != FOUNDRY_GENERATION:
                raise TierError(
                    f"FOUNDRY_ZIP: {zip_path.name} is Foundry {generation}.{release.get('build')}, "
                    f"this tier needs v{FOUNDRY_GENERATION}"
                )
    return dest / entry


# --- the user data folder -----------------------------------------------------------------------


def options_json(data_dir: Path, port: int, prefix: str) -> dict[str, Any]:
    """Config/options.json (foundryvtt.com/article/configuration/; felddy set_options.ts)."""
    return {
        "dataPath": str(data_dir),
        "port": port,
        "routePrefix": prefix,
        # Invitation links and the server's own idea of its address: loopback only.
        "hostname": LOOPBACK,
        "localHostname": LOOPBACK,
        "upnp": False,
        "proxyPort": None,
        "proxySSL": False,
        "sslCert": None,
        "sslKey": None,
        "awsConfig": None,
        "language": "en.core",
        "updateChannel": "release",
        "world": None,
        "telemetry": False,
    }


def write_licence(config: TierConfig, config_dir: Path) -> Path:
    """Config/license.json: the user's own file, or {"license": key} (felddy entrypoint.sh)."""
    target = config_dir / "license.json"
    if config.licence_file is not None:
        shutil.copyfile(config.licence_file, target)
    else:
        target.write_text(json.dumps({"license": config.licence.replace("-", "")}), "utf-8")
    target.chmod(0o600)
    return target


@dataclass
class Layout:
    root: Path
    app: Path  # the unpacked Foundry
    main: Path  # its Node.js entry script
    data: Path  # --dataPath
    port: int
    prefix: str
    systems: dict[str, str]  # system id -> its title
    log: Path

    @property
    def base(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/{self.prefix}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def prepare(config: TierConfig, root: Path) -> Layout:
    """Unpack Foundry, write the data folder, install the module and the systems."""
    app = root / "foundry"
    data = root / "data"
    main = unpack_foundry(config.foundry_zip, app)
    port = config.port or free_port()
    config_dir = data / "Config"
    config_dir.mkdir(parents=True)
    for sub in ("modules", "systems", "worlds"):
        (data / "Data" / sub).mkdir(parents=True)
    (data / "Logs").mkdir()
    options = options_json(data, port, config.prefix)
    (config_dir / "options.json").write_text(json.dumps(options, indent=2) + "\n", "utf-8")
    write_licence(config, config_dir)
    module_id = install_package(config.module_zip, data, "module")
    if module_id != MODULE_ID:
        raise TierError(f"FOUNDRY_MODULE_ZIP: its module.json id is {module_id!r}, "
                        f"not {MODULE_ID!r}")
    systems: dict[str, str] = {}
    for system_zip in config.systems:
        manifest, _ = read_manifest(system_zip, "system.json")
        systems[install_package(system_zip, data, "system")] = str(manifest.get("title") or "")
    return Layout(root=root, app=app, main=main, data=data, port=port, prefix=config.prefix,
                  systems=systems, log=root / "foundry.log")


def foundry_command(config: TierConfig, layout: Layout) -> list[str]:
    """How Foundry is started: Node.js on its entry script, with the documented flags."""
    return [
        config.node, str(layout.main),
        f"--dataPath={layout.data}", f"--port={layout.port}",
        "--noupnp", "--noupdate",
        "--noipdiscovery",  # felddy launcher.sh: no lookup of the public address
        f"--adminKey={config.admin_key}",
    ]


def world_id(system_id: str) -> str:
    return f"firefight-{system_id}".lower()


# --- talking to the server ----------------------------------------------------------------------


def assert_loopback(url: str) -> None:
    """Refuse any address that is not this machine: the tier never leaves loopback."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise TierError(f"refusing a non-loopback address: {url}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class Answer:
    status: int
    location: str
    body: str

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


class Http:
    """Loopback HTTP with one cookie jar (Foundry's ``session`` cookie) and no redirects."""

    def __init__(self, base: str) -> None:
        assert_loopback(base)
        self.base = base.rstrip("/")
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect,
            urllib.request.ProxyHandler({}),  # never through a proxy
        )

    def request(self, method: str, route: str, *, form: Mapping[str, str] | None = None,
                body: Any = None, timeout: float = 30.0) -> Answer:
        url = f"{self.base}/{route.lstrip('/')}"
        assert_loopback(url)
        data: bytes | None = None
        headers = {"Accept": "application/json, text/html"}
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        # http only, loopback only (assert_loopback above)
        req = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310
        try:
            with self.opener.open(req, timeout=timeout) as res:
                return Answer(res.status, res.headers.get("Location", ""), res.read().decode())
        except urllib.error.HTTPError as err:
            body = err.read().decode("utf-8", "replace")
            return Answer(err.code, err.headers.get("Location", ""), body)
        except OSError as err:  # refused, reset, timed out (URLError is one)
            raise TierError(f"{method} {url}: no answer ({err})") from err

    def session(self) -> str | None:
        return next((c.value for c in self.cookies if c.name == "session"), None)


def _path_of(location: str) -> str:
    return urllib.parse.urlsplit(location).path.rstrip("/")


class FoundryServer:
    """One Foundry process on a prepared layout, and the setup steps around it."""

    def __init__(self, config: TierConfig, layout: Layout) -> None:
        self.config = config
        self.layout = layout
        self.http = Http(layout.base)
        self.proc: subprocess.Popen[bytes] | None = None

    # process

    def start(self, timeout: float = START_TIMEOUT_S) -> None:
        if shutil.which(self.config.node) is None:
            raise TierError(f"FOUNDRY_NODE: {self.config.node!r} is not an executable "
                            "(Foundry v13 needs Node.js 20+)")
        log = self.layout.log.open("ab")
        env = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "TZ"}
               or k.startswith("NODE_")}  # felddy launcher.sh: a clean environment
        self.proc = subprocess.Popen(foundry_command(self.config, self.layout),
                                     cwd=self.layout.main.parent, stdout=log,
                                     stderr=subprocess.STDOUT, env=env)
        log.close()
        self.wait_ready(timeout)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_tail(self, lines: int = 25) -> str:
        try:
            text = self.layout.log.read_text("utf-8", "replace").splitlines()[-lines:]
        except OSError:
            return "(no Foundry log)"
        return "\n".join(f"    {line}" for line in text) or "    (Foundry wrote nothing)"

    def fail(self, message: str) -> TierError:
        return TierError(f"{message}\n  Foundry log ({self.layout.log}):\n{self.log_tail()}")

    def status(self) -> dict[str, Any]:
        """/api/status as JSON ({} while it does not answer)."""
        try:
            answer = self.http.request("GET", "api/status", timeout=5)
        except TierError:
            return {}
        data = answer.json()
        return data if answer.status == 200 and isinstance(data, dict) else {}

    def wait_ready(self, timeout: float) -> None:
        """Until /<prefix>/api/status answers (felddy check_health.sh)."""
        deadline = time.monotonic() + timeout
        url = f"{self.layout.base}/api/status"
        last = ""
        while time.monotonic() < deadline:
            if self.proc is not None and (code := self.proc.poll()) is not None:
                raise self.fail(f"Foundry exited with code {code} before {url} answered")
            try:
                answer = self.http.request("GET", "api/status", timeout=3)
            except TierError as err:
                last = str(err)
            else:
                if answer.status == 200:
                    return
                last = f"HTTP {answer.status}"
            time.sleep(0.25)
        raise self.fail(f"Foundry did not answer {url} within {timeout:.0f} s (last: {last}); "
                        "is the route prefix in Config/options.json honoured?")

    # setup screens

    def _setup_redirect(self) -> str:
        answer = self.http.request("GET", "setup")
        return _path_of(answer.location) if answer.status in (301, 302, 303, 307) else ""

    def sign_licence(self, timeout: float = 60.0) -> None:
        """Past /license: the key (unless license.json came signed) and the EULA."""
        if not self._setup_redirect().endswith("/license"):
            return
        if self.config.licence:
            self.http.request("POST", "license", form={"licenseKey": self.config.licence})
        self.http.request("POST", "license", form={"agree": "on", "accept": "accept"})
        deadline = time.monotonic() + timeout
        while self._setup_redirect().endswith("/license"):
            if time.monotonic() > deadline:
                raise self.fail(
                    f"{self.layout.base}/setup still redirects to /license after the licence key "
                    "and the EULA were sent: the key was refused, or Foundry could not sign it "
                    "(it asks foundryvtt.com once; FOUNDRY_LICENSE may name your signed "
                    "license.json)"
                )
            time.sleep(1)

    def admin_login(self) -> None:
        """Unlock the setup screen with this run's admin key (--adminKey)."""
        if not self._setup_redirect().endswith("/auth"):
            return
        key = self.config.admin_key
        fields = {"action": "adminAuth", "adminPassword": key, "adminKey": key}
        # The login form's fields, as a form post; then the same as JSON (drivers use both).
        self.http.request("POST", "auth", form=fields)
        if self._setup_redirect().endswith("/auth"):
            self.http.request("POST", "auth", body=fields)
        if (where := self._setup_redirect()).endswith(("/auth", "/license")):
            raise self.fail(f"the admin key was refused: {self.layout.base}/setup still "
                            f"redirects to {where}")

    def create_world(self, world: str, title: str, system: str) -> None:
        manifest = self.layout.data / "Data" / "worlds" / world / "world.json"
        if manifest.is_file():
            return
        body = {"action": "createWorld", "id": world, "title": title, "system": system,
                "description": "Firefight's real-Foundry tier (tools/foundry_tier.py)"}
        answers = []
        for route in ("setup", "create"):
            answer = self.http.request("POST", route, body=body, timeout=120)
            answers.append(f"POST /{self.layout.prefix}/{route} -> {answer.status} "
                           f"{answer.body[:160]!r}")
            if manifest.is_file():
                return
        raise self.fail(f"world {world!r} ({system}) was not created: no {manifest}; "
                        + "; ".join(answers))

    def launch_world(self, world: str, timeout: float = LAUNCH_TIMEOUT_S) -> None:
        answer = self.http.request("POST", "setup", body={"action": "launchWorld", "world": world},
                                   timeout=timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.status()
            if status.get("active") and status.get("world") == world:
                return
            if self.proc is not None and (code := self.proc.poll()) is not None:
                raise self.fail(f"Foundry exited with code {code} while launching {world!r}")
            time.sleep(1)
        raise self.fail(f"world {world!r} did not launch within {timeout:.0f} s "
                        f"(POST /setup -> {answer.status} {answer.body[:160]!r}; "
                        f"status {self.status()})")

    def return_to_setup(self) -> None:
        """Shut the active world down; restart Foundry if it does not go back to setup."""
        if not self.status().get("active"):
            return
        key = self.config.admin_key
        self.http.request("POST", "join",
                          body={"action": "shutdown", "adminPassword": key, "adminKey": key})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if not self.status().get("active"):
                return
            time.sleep(1)
        self.restart()
        self.sign_licence()
        self.admin_login()

    def ready_for_setup(self, licence_fallback: Callable[[FoundryServer], None] | None = None,
                        ) -> None:
        """Licence and EULA, then the admin key. ``licence_fallback`` signs in a browser when
        the form posts are not enough (the tier's conftest passes one)."""
        try:
            self.sign_licence(timeout=30.0 if licence_fallback else 60.0)
        except TierError:
            if licence_fallback is None:
                raise
            licence_fallback(self)
            self.sign_licence(timeout=60.0)
        self.admin_login()


@contextlib.contextmanager
def running(config: TierConfig,
            licence_fallback: Callable[[FoundryServer], None] | None = None,
            ) -> Iterator[FoundryServer]:
    """Prepare a temporary Foundry, start it, unlock setup, create a world per system."""
    root = Path(tempfile.mkdtemp(prefix="firefight-foundry-"))
    server: FoundryServer | None = None
    try:
        layout = prepare(config, root)
        server = FoundryServer(config, layout)
        server.start()
        server.ready_for_setup(licence_fallback)
        for system_id, system_title in layout.systems.items():
            title = f"Firefight on {system_title or system_id}"
            server.create_world(world_id(system_id), title, system_id)
        yield server
    finally:
        if server is not None:
            server.stop()
        if config.keep:
            print(f"foundry tier: kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("check", "serve"),
                        help="check: print the settings or the skip line; serve: start and wait")
    args = parser.parse_args(argv)
    try:
        config = read_config(os.environ)
        if config is None:
            print(skip_reason(os.environ))
            return 0
        if args.command == "check":
            print(f"foundry tier: {config.foundry_zip.name}, module {config.module_zip}, "
                  f"systems {', '.join(p.name for p in config.systems)}, prefix /{config.prefix}/")
            return 0
        with running(config) as server:
            print(f"Foundry is running at {server.layout.base}/setup "
                  f"(admin key {config.admin_key}); Ctrl+C stops it", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while server.proc is not None and server.proc.poll() is None:
                    time.sleep(1)
    except TierError as err:
        print(f"foundry tier: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
