"""The real-Foundry tier's own plumbing (tools/foundry_tier.py), without Foundry.

Settings from the environment and the skip line, the data folder and Config/options.json,
the zips unpacked into the right folders, and the whole start-up (licence, admin key, worlds,
launch, shutdown) against a stub server (tests/foundry/fake_foundry.py) packed as a "Foundry
zip" and started the way the real one is. CPython only: it starts processes and servers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if sys.platform == "emscripten":
    pytest.skip("starts processes and servers: CPython only", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import foundry_tier as tier  # noqa: E402
from foundry_tier import TierError  # noqa: E402

KEY = "ABCD-EFGH-JKLM-NPQR-STUV-WXYZ"
FAKE = REPO / "tests" / "foundry" / "fake_foundry.py"


def make_zip(path: Path, files: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


@pytest.fixture
def zips(tmp_path: Path) -> dict[str, Path]:
    """A fake Foundry (the stub as main.mjs), the module zip, two system zips."""
    return {
        "foundry": make_zip(tmp_path / "FoundryVTT-Node-13.351.zip", {
            "main.mjs": FAKE.read_text("utf-8"),
            "package.json": json.dumps({"release": {"generation": 13, "build": 351}}),
        }),
        "module": make_zip(tmp_path / "firefight.zip", {
            "module.json": json.dumps({"id": "firefight", "title": "Firefight"}),
            "js-shim/firefight.mjs": "// shim",
            "packs/soe-actors-dnd5e/CURRENT": "MANIFEST-000001\n",
        }),
        # A release zip (manifest at the root) and a GitHub archive (one top folder).
        "dnd5e": make_zip(tmp_path / "dnd5e-release.zip", {
            "system.json": json.dumps({"id": "dnd5e", "title": "D&D Fifth Edition"}),
            "dnd5e.mjs": "// system",
        }),
        "worldbuilding": make_zip(tmp_path / "worldbuilding-main.zip", {
            "worldbuilding-main/system.json": json.dumps({"id": "worldbuilding",
                                                          "title": "Simple Worldbuilding"}),
            "worldbuilding-main/module/simple.js": "// system",
        }),
    }


def env_for(zips: dict[str, Path], **extra: str) -> dict[str, str]:
    return {
        "FOUNDRY_ZIP": str(zips["foundry"]),
        "FOUNDRY_LICENSE": KEY,
        "FOUNDRY_SYSTEMS": f"{zips['dnd5e']},{zips['worldbuilding']}",
        "FOUNDRY_MODULE_ZIP": str(zips["module"]),
        "FOUNDRY_NODE": sys.executable,  # runs the stub "main.mjs"
        **extra,
    }


# --- settings and the skip line -----------------------------------------------------------------


def test_without_the_variables_the_tier_is_skipped_with_one_line() -> None:
    assert tier.read_config({}) is None
    assert tier.skip_reason({}) == tier.SKIP_LINE
    assert "FOUNDRY_ZIP" in tier.SKIP_LINE
    assert "FOUNDRY_LICENSE" in tier.SKIP_LINE
    assert "\n" not in tier.SKIP_LINE
    only_zip = tier.skip_reason({"FOUNDRY_ZIP": "/x.zip", "FOUNDRY_LICENSE": "  "})
    assert only_zip is not None
    assert only_zip.startswith(
        "real-Foundry tier skipped: FOUNDRY_LICENSE is not set")


def test_settings_are_read_from_the_environment(zips: dict[str, Path]) -> None:
    config = tier.read_config(env_for(zips, FOUNDRY_ROUTE_PREFIX="/table/", FOUNDRY_PORT="31001",
                                      FOUNDRY_KEEP="1"))
    assert config is not None
    assert config.foundry_zip == zips["foundry"].resolve()
    assert config.systems == (zips["dnd5e"].resolve(), zips["worldbuilding"].resolve())
    assert (config.prefix, config.port, config.keep, config.licence) == ("table", 31001, True, KEY)
    assert len(config.admin_key) >= 20  # a fresh one per run
    assert config.admin_key not in repr(config)
    assert KEY not in repr(config)


@pytest.mark.parametrize(("change", "named"), [
    ({"FOUNDRY_ZIP": "/nowhere/foundry.zip"}, "FOUNDRY_ZIP"),
    ({"FOUNDRY_LICENSE": "not-a-key"}, "FOUNDRY_LICENSE"),
    ({"FOUNDRY_SYSTEMS": ""}, "FOUNDRY_SYSTEMS"),
    ({"FOUNDRY_SYSTEMS": "/nowhere/dnd5e.zip"}, "FOUNDRY_SYSTEMS"),
    ({"FOUNDRY_MODULE_ZIP": "/nowhere/firefight.zip"}, "make module"),
    ({"FOUNDRY_ROUTE_PREFIX": "a/b"}, "FOUNDRY_ROUTE_PREFIX"),
    ({"FOUNDRY_PORT": "70000"}, "FOUNDRY_PORT"),
])
def test_bad_settings_name_the_variable(zips: dict[str, Path], change: dict[str, str],
                                        named: str) -> None:
    with pytest.raises(TierError, match=named):
        tier.read_config({**env_for(zips), **change})


def test_a_text_file_is_not_a_zip(zips: dict[str, Path], tmp_path: Path) -> None:
    text = tmp_path / "foundry.zip"
    text.write_text("hello", "utf-8")
    with pytest.raises(TierError, match=r"FOUNDRY_ZIP: .* is not a zip archive"):
        tier.read_config(env_for(zips, FOUNDRY_ZIP=str(text)))


def test_a_license_json_is_accepted_instead_of_a_key(zips: dict[str, Path], tmp_path: Path) -> None:
    signed = tmp_path / "license.json"
    signed.write_text(json.dumps({"license": KEY.replace("-", ""), "signature": "s"}), "utf-8")
    config = tier.read_config(env_for(zips, FOUNDRY_LICENSE=str(signed)))
    assert config is not None
    assert config.licence == ""
    assert config.licence_file == signed
    signed.write_text("{}", "utf-8")
    with pytest.raises(TierError, match='no "license" field'):
        tier.read_config(env_for(zips, FOUNDRY_LICENSE=str(signed)))


# --- the data folder ----------------------------------------------------------------------------


@pytest.fixture
def layout(zips: dict[str, Path], tmp_path: Path) -> tuple[tier.TierConfig, tier.Layout]:
    config = tier.read_config(env_for(zips))
    assert config is not None
    return config, tier.prepare(config, tmp_path / "run")


def test_the_data_folder_and_options_json(layout: tuple[tier.TierConfig, tier.Layout]) -> None:
    config, lay = layout
    options = json.loads((lay.data / "Config" / "options.json").read_text("utf-8"))
    assert options["routePrefix"] == "ff"
    assert options["dataPath"] == str(lay.data)
    assert options["port"] == lay.port > 0
    assert options["hostname"] == options["localHostname"] == "127.0.0.1"
    assert options["upnp"] is False
    assert options["proxyPort"] is None
    assert lay.base == f"http://127.0.0.1:{lay.port}/ff"
    licence = json.loads((lay.data / "Config" / "license.json").read_text("utf-8"))
    assert licence == {"license": KEY.replace("-", "")}
    assert lay.main == lay.app / "main.mjs"
    command = tier.foundry_command(config, lay)
    assert command[:2] == [sys.executable, str(lay.main)]
    assert f"--dataPath={lay.data}" in command
    assert f"--port={lay.port}" in command
    assert {"--noupnp", "--noupdate", "--noipdiscovery"} <= set(command)
    assert f"--adminKey={config.admin_key}" in command


def test_the_module_and_the_systems_are_unpacked_where_foundry_looks(
    layout: tuple[tier.TierConfig, tier.Layout],
) -> None:
    _, lay = layout
    data = lay.data / "Data"
    module = json.loads((data / "modules" / "firefight" / "module.json").read_text("utf-8"))
    assert module["id"] == "firefight"
    assert (data / "modules" / "firefight" / "js-shim" / "firefight.mjs").is_file()
    assert (data / "modules" / "firefight" / "packs" / "soe-actors-dnd5e" / "CURRENT").is_file()
    assert (data / "systems" / "dnd5e" / "system.json").is_file()
    # The GitHub archive's top folder is stripped.
    assert (data / "systems" / "worldbuilding" / "module" / "simple.js").is_file()
    assert not (data / "systems" / "worldbuilding" / "worldbuilding-main").exists()
    assert lay.systems == {"dnd5e": "D&D Fifth Edition", "worldbuilding": "Simple Worldbuilding"}


def test_bad_zips_are_refused_with_their_name(tmp_path: Path) -> None:
    evil = make_zip(tmp_path / "evil.zip", {"system.json": json.dumps({"id": "evil"}),
                                            "../../outside.txt": "x"})
    with pytest.raises(TierError, match="points outside"):
        tier.install_package(evil, tmp_path / "data", "system")
    assert not (tmp_path / "outside.txt").exists()
    bare = make_zip(tmp_path / "bare.zip", {"a/b/system.json": "{}"})
    with pytest.raises(TierError, match=r"bare.zip: no system.json"):
        tier.install_package(bare, tmp_path / "data", "system")
    no_id = make_zip(tmp_path / "noid.zip", {"system.json": json.dumps({"title": "x"})})
    with pytest.raises(TierError, match=r'noid.zip: system.json has no valid "id"'):
        tier.install_package(no_id, tmp_path / "data", "system")


def test_the_module_zip_must_be_firefight(zips: dict[str, Path], tmp_path: Path) -> None:
    other = make_zip(tmp_path / "other.zip", {"module.json": json.dumps({"id": "other"})})
    config = tier.read_config(env_for(zips, FOUNDRY_MODULE_ZIP=str(other)))
    assert config is not None
    with pytest.raises(TierError, match=r"FOUNDRY_MODULE_ZIP: its module\.json id is 'other'"):
        tier.prepare(config, tmp_path / "run")


@pytest.mark.parametrize("entry", ["main.mjs", "resources/app/main.mjs", "main.js"])
def test_foundry_entry_points(tmp_path: Path, entry: str) -> None:
    zip_path = make_zip(tmp_path / "f.zip", {entry: "//", "README.txt": "x"})
    assert tier.unpack_foundry(zip_path, tmp_path / "app") == tmp_path / "app" / entry


def test_a_zip_that_is_not_foundry_v13_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TierError, match=r"Node\.js build of Foundry VTT v13"):
        tier.unpack_foundry(make_zip(tmp_path / "f.zip", {"Foundry.exe": "MZ"}), tmp_path / "a")
    v12 = make_zip(tmp_path / "v12.zip", {
        "resources/app/main.mjs": "//",
        "resources/app/package.json": json.dumps({"release": {"generation": 12, "build": 331}}),
    })
    with pytest.raises(TierError, match=r"is Foundry 12\.331, this tier needs v13"):
        tier.unpack_foundry(v12, tmp_path / "b")


@pytest.mark.parametrize("url", ["http://10.0.0.5:30000/ff", "http://foundry.example/ff",
                                 "https://192.168.1.2/"])
def test_nothing_is_sent_off_loopback(url: str) -> None:
    with pytest.raises(TierError, match="non-loopback"):
        tier.assert_loopback(url)
    with pytest.raises(TierError, match="non-loopback"):
        tier.Http(url)
    for ok in ("http://127.0.0.1:1/ff", "http://localhost:1/", "http://[::1]:1/"):
        tier.assert_loopback(ok)


# --- the start-up against the stub server -------------------------------------------------------


def with_fake(zips: dict[str, Path], behaviour: dict[str, Any]) -> None:
    with zipfile.ZipFile(zips["foundry"], "a") as zf:
        zf.writestr("fake.json", json.dumps(behaviour))


@pytest.fixture
def started(zips: dict[str, Path], tmp_path: Path) -> Iterator[tier.FoundryServer]:
    config = tier.read_config(env_for(zips))
    assert config is not None
    server = tier.FoundryServer(config, tier.prepare(config, tmp_path / "run"))
    try:
        server.start(timeout=20)
        yield server
    finally:
        server.stop()


def test_start_licence_admin_worlds_launch_and_shutdown(started: tier.FoundryServer) -> None:
    server = started
    assert server.status() == {"active": False, "world": None, "version": "13.351", "users": 0}
    server.ready_for_setup()
    assert server.http.session()
    for system_id in server.layout.systems:
        server.create_world(tier.world_id(system_id), f"Firefight on {system_id}", system_id)
        world = server.layout.data / "Data" / "worlds" / f"firefight-{system_id}" / "world.json"
        assert json.loads(world.read_text("utf-8"))["system"] == system_id
    server.launch_world("firefight-dnd5e", timeout=10)
    assert server.status()["world"] == "firefight-dnd5e"
    server.return_to_setup()
    server.launch_world("firefight-worldbuilding", timeout=10)
    assert server.status()["world"] == "firefight-worldbuilding"
    log = server.layout.log.read_text("utf-8")
    # Every request went under the route prefix.
    requests = [line.split()[1] for line in log.splitlines() if line.startswith(("GET ", "POST "))]
    assert requests
    assert all(path.startswith("/ff/") for path in requests)
    assert "POST /ff/license" in log
    assert "POST /ff/auth" in log


def test_the_create_route_and_a_json_login_are_the_fallbacks(zips: dict[str, Path],
                                                             tmp_path: Path) -> None:
    with_fake(zips, {"create_route": "create", "auth_json_only": True})
    config = tier.read_config(env_for(zips))
    assert config is not None
    server = tier.FoundryServer(config, tier.prepare(config, tmp_path / "run"))
    try:
        server.start(timeout=20)
        server.ready_for_setup()
        server.create_world("firefight-dnd5e", "t", "dnd5e")
        with pytest.raises(TierError, match=r"world 'firefight-x' \(nosys\) was not created"):
            server.create_world("firefight-x", "t", "nosys")
    finally:
        server.stop()


def test_a_foundry_that_exits_says_so_with_its_log(zips: dict[str, Path], tmp_path: Path) -> None:
    with_fake(zips, {"exit": 3})
    config = tier.read_config(env_for(zips))
    assert config is not None
    server = tier.FoundryServer(config, tier.prepare(config, tmp_path / "run"))
    with pytest.raises(TierError, match=r"(?s)Foundry exited with code 3 .*exiting as told"):
        server.start(timeout=20)


def test_a_refused_licence_is_named(zips: dict[str, Path], tmp_path: Path) -> None:
    with_fake(zips, {"refuse_licence": True})
    config = tier.read_config(env_for(zips))
    assert config is not None
    server = tier.FoundryServer(config, tier.prepare(config, tmp_path / "run"))
    try:
        server.start(timeout=20)
        with pytest.raises(TierError, match="still redirects to /license"):
            server.sign_licence(timeout=0)
    finally:
        server.stop()


def test_a_wrong_admin_key_is_named(started: tier.FoundryServer) -> None:
    started.sign_licence()
    object.__setattr__(started.config, "admin_key", "wrong")
    with pytest.raises(TierError, match="admin key was refused"):
        started.admin_login()


def test_make_test_foundry_without_variables_prints_one_skip_line() -> None:
    """What `make test-foundry` runs: exit 0 (not "no tests"), the skip line once."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOUNDRY_")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/foundry", "-rs", "-p", "no:cacheprovider"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(tier.SKIP_LINE) == 1, proc.stdout
    assert "1 skipped" in proc.stdout


def test_the_browser_fallback_signs_when_the_form_posts_do_not(zips: dict[str, Path],
                                                                tmp_path: Path) -> None:
    with_fake(zips, {"refuse_licence": True})
    config = tier.read_config(env_for(zips))
    assert config is not None
    server = tier.FoundryServer(config, tier.prepare(config, tmp_path / "run"))
    called: list[str] = []
    try:
        server.start(timeout=20)
        object.__setattr__(server, "sign_licence", lambda timeout=60.0: (
            called.append(f"http {timeout}"),
            tier.FoundryServer.sign_licence(server, timeout=0))[-1])
        with pytest.raises(TierError, match="still redirects to /license"):
            server.ready_for_setup(lambda s: called.append("browser"))
        assert called == ["http 30.0", "browser", "http 60.0"]
    finally:
        server.stop()


def test_a_silent_port_is_named(layout: tuple[tier.TierConfig, tier.Layout]) -> None:
    config, lay = layout
    with pytest.raises(TierError, match=rf"GET http://127\.0\.0\.1:{lay.port}/ff/setup: no answer"):
        tier.Http(lay.base).request("GET", "setup", timeout=2)
    server = tier.FoundryServer(config, lay)
    with pytest.raises(TierError, match=r"(?s)did not answer .*/ff/api/status within 0 s"):
        server.wait_ready(timeout=0.3)
