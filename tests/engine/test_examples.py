"""The example plugins of examples/, built, installed and used the way their author would
(issue 13, "Prove it with the author's own path"; docs/extending.md is the tutorial they follow).

Three Foundry module folders, each with its own wheel: firefight-duel (a ruleset), firefight-
laser-sight (a house rule for soe) and firefight-broken (a plugin whose import fails).

- On CPython, ``test_the_author_path_on_cpython`` builds the wheels (tools/build_examples.py,
  the standard PEP 517 build), installs them with ``pip install --no-deps --target`` into a
  temporary folder and runs the ``test_installed_*`` tests below, and the plugins' own tests,
  in a child Python with that folder on its path: entry points are found through the wheels'
  dist-info, exactly as in an author's environment. This interpreter stays without them.
- Inside Pyodide, tests/pyodide/run.mjs loads the wheels each example's module.json names (as
  the table does at boot), so the ``test_installed_*`` tests (and the plugins' own) run in the
  suite itself.

The other tests read files only: the manifests, and the tutorial's code against the examples.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import firefight

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MODULES = ("firefight-duel", "firefight-laser-sight", "firefight-broken")
TUTORIAL = ROOT / "docs" / "extending.md"
# The plugins' own tests (run with the wheels installed).
OWN_TESTS = (EXAMPLES / "firefight-duel" / "python" / "tests",
             EXAMPLES / "firefight-laser-sight" / "python" / "tests")

INSTALLED = importlib.util.find_spec("firefight_duel") is not None
installed = pytest.mark.skipif(
    not INSTALLED, reason="the example wheels are not installed in this interpreter: "
    "test_the_author_path_on_cpython runs these in a child Python that has them")

# The tutorial's request (examples/firefight-duel/python/tests/test_duel.py).
ATTACK: dict[str, Any] = {
    "ruleset": "duel",
    "attacker": {"name": "Ada", "stats": {"skill": 3}},
    "target": {"name": "Bo", "stats": {"hp": 5}},
    "weapon": {"name": "Sabre", "damage": 6},
    "range": {"value": 25, "units": "m"},
    "options": {"aim": True},
}


def _manifest(module: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / module / "module.json")
                                      .read_text(encoding="utf-8"))
    return data


def _attack(**changes: Any) -> dict[str, Any]:
    request = copy.deepcopy(ATTACK)
    request.update(changes)
    return request


def _hello(lang: str = "en") -> dict[str, Any]:
    from firefight.bridge import handle

    reply = json.loads(handle(json.dumps({"op": "hello", "lang": lang})))
    assert reply["ok"], reply
    value: dict[str, Any] = reply["value"]
    return value


def _flat(node: Any, prefix: str = "") -> dict[str, str]:
    if not isinstance(node, dict):
        return {prefix: node}
    out: dict[str, str] = {}
    for k, v in node.items():
        out.update(_flat(v, f"{prefix}.{k}" if prefix else k))
    return out


def _label_keys(schema: dict[str, Any] | None) -> list[str]:
    keys = []
    for prop in (schema or {}).get("properties", {}).values():
        keys.append(prop["x-label-key"])
        keys += prop.get("x-enum-label-keys", [])
    return keys


# --- the plugins installed: what the table learns -------------------------------------------------

@installed
def test_installed_hello_reports_every_plugin_and_the_rest_plays_on() -> None:
    # First in this file: in the child Python, hello is the engine's first call, as at boot.
    value = _hello()
    status = {p["name"]: p for p in value["plugins"]}
    assert status["broken"]["ok"] is False
    assert status["broken"]["group"] == "firefight.rulesets"
    assert status["broken"]["dist"] == "firefight-broken"
    assert status["broken"]["error"].startswith("ImportError: firefight-broken fails to import")
    for name, group, dist in (("duel", "firefight.rulesets", "firefight-duel"),
                              ("laser_sight", "firefight.house_rules", "firefight-laser-sight")):
        assert (status[name]["ok"], status[name]["group"], status[name]["dist"],
                status[name]["error"]) == (True, group, dist, None)
    ids = {r["id"] for r in value["rulesets"]}
    assert {"soe", "percentile", "shock", "dpv", "duel"} <= ids
    assert "broken" not in ids


@installed
def test_installed_catalog_lists_duel_with_its_dialog_settings_sheet_and_features() -> None:
    duel = next(r for r in firefight.catalog()["rulesets"] if r["id"] == "duel")
    assert (duel["label_key"], duel["builtin"], duel["default_action"], duel["actions"]) == (
        "FIREFIGHT.duel.name", False, "attack", ["attack", "brawl"])
    dialog = duel["options"]["attack"]["properties"]
    assert dialog["aim"]["type"] == "boolean"
    assert dialog["aim"]["x-label-key"] == "FIREFIGHT.duel.opt.aim.label"
    assert dialog["cover"]["enum"] == ["none", "partial", "full"]
    assert dialog["cover"]["x-enum-label-keys"][1] == "FIREFIGHT.duel.opt.cover.choices.partial"
    settings = duel["settings"]["properties"]
    assert (settings["target_number"]["default"], settings["critical_on_20"]["default"]) == (
        12, True)
    stats = duel["stats"]["properties"]
    assert set(stats) == {"hp", "hp_max", "skill", "state"}
    assert stats["skill"]["x-label-key"] == "FIREFIGHT.duel.stat.skill"  # labelled by the core
    assert duel["features"] == {}
    assert duel["house_steps"] == {"to_hit": "Duel rule 2"}


@installed
@pytest.mark.parametrize(("lang", "name", "fitted"), [
    ("en", "Duel", "Laser sight fitted (+2 to hit)"),
    ("de", "Duell", "Laserzielgerät montiert (+2 auf Treffen)"),
])
def test_installed_hello_carries_the_plugins_strings(lang: str, name: str, fitted: str) -> None:
    value = _hello(lang)
    strings = _flat(value["strings"])
    assert strings["FIREFIGHT.duel.name"] == name
    assert strings["FIREFIGHT.laser_sight.opt.fitted.label"] == fitted
    assert not any(k.startswith(("FIREFIGHT.soe.", "FIREFIGHT.ui.")) for k in strings), \
        "hello.strings holds the plugins' labels only (Foundry loads Firefight's own lang/)"
    duel = next(r for r in value["rulesets"] if r["id"] == "duel")
    laser = next(r for r in value["house_rules"] if r["id"] == "laser_sight")
    keys = [duel["label_key"], laser["label_key"], *_label_keys(duel["options"]["attack"]),
            *_label_keys(duel["settings"]), *_label_keys(duel["stats"]),
            *_label_keys(laser["options"]), *_label_keys(laser["settings"])]
    assert [k for k in keys if k not in strings] == []


# --- Duel: resolved, exact, shown -----------------------------------------------------------------

@installed
def test_installed_duel_resolves_with_scripted_dice() -> None:
    result = firefight.resolve(ATTACK, dice=[9, 5])
    assert [(m["key"], m["value"], m["source"]) for m in result["modifiers"]] == [
        ("FIREFIGHT.duel.mod.skill", 3, "Duel rule 2"),
        ("FIREFIGHT.duel.mod.aim", 2, "Duel rule 2"),
        ("FIREFIGHT.duel.mod.range", -2, "Duel rule 2"),  # 25 m: two full 10 m
    ]
    to_hit, damage = result["steps"]
    assert (to_hit["modifier_total"], to_hit["numbers"], to_hit["success"]) == (
        3, {"roll": 9, "total": 12, "target": 12}, True)
    assert damage["numbers"] == {"roll": 5, "damage": 5}
    assert [d["results"] for d in result["dice"]] == [[9], [5]]
    assert result["outcome"]["state"] == "unconscious"
    assert result["odds"] == {"probability": 0.6, "exact": "3/5", "net_modifier": 3,
                              "label_key": "FIREFIGHT.duel.odds.hit"}

    critical = firefight.resolve(ATTACK, dice=[20, 3])  # rule 4: doubled, and at 0 hp: dead
    assert (critical["outcome"]["critical"], critical["outcome"]["damage"]) == (True, 6)
    assert [e["value"] for e in critical["effects"] if e["kind"] == "state"] == ["dead"]
    plain = firefight.resolve(_attack(settings={"critical_on_20": False}), dice=[20, 3])
    assert (plain["outcome"]["critical"], plain["outcome"]["damage"]) == (False, 3)
    miss = firefight.resolve(ATTACK, dice=[8])
    assert (miss["outcome"]["hit"], miss["effects"], len(miss["dice"])) == (False, [], 1)


@installed
def test_installed_duel_odds_are_exact_over_every_roll() -> None:
    """The exact odds against all 20 x 6 equally likely rolls, resolved one by one."""
    from fractions import Fraction

    for request in (ATTACK, _attack(options={"cover": "full"}),
                    _attack(settings={"critical_on_20": False, "target_number": 25})):
        hits = downs = 0
        for face in range(1, 21):
            for dmg in range(1, 7):
                result = firefight.resolve(request, dice=[face, dmg])
                hits += result["outcome"]["hit"]
                downs += result["outcome"]["state"] is not None
        odds = firefight.odds(request)
        assert Fraction(odds["exact"]) == Fraction(hits, 120)
        assert Fraction(odds["down_exact"]) == Fraction(downs, 120)
        assert odds["probability"] == float(Fraction(hits, 120))


@installed
@pytest.mark.parametrize(("lang", "title", "versus"), [
    ("en", "Ada attacks Bo", "vs"), ("de", "Ada greift Bo an", "gegen")])
def test_installed_duel_card_is_localized_and_uses_its_template(lang: str, title: str,
                                                                versus: str) -> None:
    result = firefight.resolve(ATTACK, dice=[9, 5])
    html = firefight.render_card(result, lang=lang)
    assert title in html
    assert "FIREFIGHT." not in html  # no raw lang key anywhere
    assert re.search(rf'class="duel-faceoff">⚔ 12 {versus} 12<', html)  # templates/card.html.j2
    assert 'class="firefight-card ruleset-duel is-hit"' in html  # the core card inside it
    text = firefight.render_card(result, fmt="text", lang=lang)  # templates/card.txt.j2
    assert title in text
    assert f"⚔ 12 {versus} 12" in text
    assert "FIREFIGHT." not in text


@installed
def test_installed_duel_effects_apply_to_the_sheet() -> None:
    result = firefight.resolve(ATTACK, dice=[9, 5])
    applied = firefight.apply("duel", {"hp": 5, "skill": 2}, result["effects"])
    assert applied["stats"] == {"hp": 0, "hp_max": 10, "skill": 2, "state": "unconscious"}
    assert applied["statuses"]["unconscious"] is True
    assert applied["statuses"]["dead"] is False
    bad = firefight.apply("duel", {"hp": "lots"}, result["effects"])
    assert bad["error"]["fields"][0]["field"] == "hp"


@installed
def test_installed_duel_errors_name_the_field() -> None:
    bad = firefight.odds(_attack(options={"cover": "a tree"}))
    assert bad["error"]["fields"][0]["field"] == "options.cover"
    bad = firefight.resolve(_attack(weapon={"damage": 7}), dice=[9, 5])
    assert bad["error"]["fields"][0]["field"] == "weapon.damage"


# --- the laser sight on soe -----------------------------------------------------------------------

def _soe_shot(house: dict[str, Any] | None = None, metres: float = 100) -> dict[str, Any]:
    request: dict[str, Any] = {
        "ruleset": "soe",
        "attacker": {"name": "Ada", "pc": True, "stats": {"marksmanship": 12}},
        "target": {"name": "Bandit", "stats": {"agl": 12}},
        "weapon": {"name": "Rifle", "damage": 10, "weapon_type": "rifle"},
        "range": {"value": metres, "units": "m"},
        "options": {"mode": "aimed"},
    }
    if house is not None:
        request["house"] = house
    return request


FITTED = {"laser_sight": {"options": {"fitted": True}}}


@installed
def test_installed_laser_sight_is_on_the_card_with_its_source_and_in_the_odds() -> None:
    plain, fitted = firefight.odds(_soe_shot()), firefight.odds(_soe_shot(FITTED))
    assert "error" not in fitted, fitted
    assert fitted["net_modifier"] == plain["net_modifier"] + 2
    assert fitted["probability"] > plain["probability"]
    assert firefight.odds(_soe_shot({"laser_sight": {"options": {"fitted": False}}})) == plain
    result = firefight.resolve(_soe_shot(FITTED), dice=[10, 10, 10, 10])
    laser = [m for m in result["modifiers"] if m["key"] == "FIREFIGHT.laser_sight.mod.fitted"]
    assert [(m["value"], m["step"], m["source"]) for m in laser] == [
        (2, "to_hit", "Laser Sight house rule")]
    for lang, label in (("en", "Laser sight"), ("de", "Laserzielgerät")):
        html = firefight.render_card(result, lang=lang)
        assert re.search(rf'<td class="ff-mod-label">{label}</td>\s*'
                         r'<td class="ff-mod-value">\+2</td>\s*'
                         r'<td class="ff-mod-source">Laser Sight house rule</td>', html), html


@installed
def test_installed_laser_sight_world_setting() -> None:
    far = firefight.odds(_soe_shot(FITTED, metres=150))
    assert far == firefight.odds(_soe_shot(metres=150))  # the dot is lost beyond 100 m
    beyond = {"laser_sight": {"options": {"fitted": True}, "settings": {"beyond_100m": True}}}
    assert firefight.odds(_soe_shot(beyond, metres=150))["net_modifier"] == \
        far["net_modifier"] + 2


@installed
def test_installed_a_bad_house_option_names_its_field() -> None:
    bad = firefight.odds(_soe_shot({"laser_sight": {"options": {"fitted": "very"}}}))
    assert bad["error"]["fields"][0]["field"] == "house.laser_sight.options.fitted"
    assert "house.laser_sight.options.fitted" in bad["error"]["message"]
    bad = firefight.resolve(_soe_shot({"laser_sight": {"settings": {"beyond_100m": "x"}}}),
                            dice=[10, 10, 10, 10])
    assert bad["error"]["fields"][0]["field"] == "house.laser_sight.settings.beyond_100m"
    bad = firefight.odds(_soe_shot({"laser_sight": {"options": {"colour": "red"}}}))
    assert bad["error"]["fields"][0]["field"] == "house.laser_sight.options.colour"
    bad = firefight.odds(_attack(house=FITTED))  # a rule of soe, not of Duel
    assert bad["error"]["fields"][0]["field"] == "house.laser_sight"


@installed
def test_installed_plugins_load_once() -> None:
    from firefight import registry

    first = firefight.rescan()
    duel = registry.get("duel")
    second, third = firefight.rescan(), firefight.rescan()
    assert first == second == third
    assert registry.get("duel") is duel  # not loaded again
    names = [(p["group"], p["name"]) for p in third["plugins"]]
    assert len(names) == len(set(names))
    assert [r["id"] for r in third["rulesets"]].count("duel") == 1


# --- files: the manifests and the tutorial --------------------------------------------------------

@pytest.mark.parametrize("module", MODULES)
def test_each_example_is_a_foundry_module_naming_its_wheel(module: str) -> None:
    manifest = _manifest(module)
    assert manifest["id"] == module
    assert manifest["compatibility"]["verified"] == "13"
    assert {"id": "firefight", "type": "module"}.items() <= \
        manifest["relationships"]["requires"][0].items()
    project = (EXAMPLES / module / "python" / "pyproject.toml").read_text(encoding="utf-8")
    name = re.search(r'^name = "(.+)"$', project, re.MULTILINE)
    version = re.search(r'^version = "(.+)"$', project, re.MULTILINE)
    assert name
    assert version
    wheel = f"wheels/{name[1].replace('-', '_')}-{version[1]}-py3-none-any.whl"
    assert manifest["flags"]["firefight"]["wheels"] == [wheel]
    for lang in manifest.get("languages", []):
        assert (EXAMPLES / module / lang["path"]).is_file(), lang


@pytest.mark.skipif(shutil.which("node") is None or sys.platform == "emscripten",
                    reason="needs Node (the sandbox's manifest checks are JavaScript)")
def test_the_manifests_pass_foundrys_package_checks() -> None:
    """The checks the sandbox makes before it loads a module (sandbox/foundry/packages.mjs)."""
    script = """
import { manifestErrors } from "./sandbox/foundry/packages.mjs";
import { existsSync, readFileSync } from "node:fs";
const out = {};
for (const m of JSON.parse(process.argv[1])) {
  const dir = `examples/${m}/`;
  const manifest = JSON.parse(readFileSync(dir + "module.json", "utf8"));
  out[m] = await manifestErrors(manifest, { exists: (p) => existsSync(dir + p) });
}
console.log(JSON.stringify(out));
"""
    done = subprocess.run(["node", "--input-type=module", "-e", script, json.dumps(MODULES)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {m: [] for m in MODULES}


def _code_blocks(text: str) -> list[tuple[str, str]]:
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text,
                                              re.MULTILINE | re.DOTALL)]


def test_the_tutorials_code_is_the_examples_code() -> None:
    """Every Python, TOML, JSON and template sample of docs/extending.md is, line for line, in
    an example's files: the tutorial shows what the tests run. (Shell and JavaScript samples
    are commands for the table and the build; the build's is tools/build_examples.py's.)"""
    files = {p: p.read_text(encoding="utf-8") for p in EXAMPLES.rglob("*")
             if p.is_file() and p.suffix in {".py", ".toml", ".json", ".j2"}
             and "wheels" not in p.parts}
    blocks = [(lang, code) for lang, code in _code_blocks(TUTORIAL.read_text(encoding="utf-8"))
              if lang in {"python", "toml", "json", "jinja"}]
    assert len(blocks) >= 10
    for lang, code in blocks:
        assert any(code in text for text in files.values()), \
            f"this {lang} sample of docs/extending.md is in no example file:\n{code}"
    commands = "\n".join(code for lang, code in _code_blocks(TUTORIAL.read_text(encoding="utf-8"))
                         if lang == "sh")
    assert "pip wheel --no-deps --no-build-isolation -w" in commands
    assert "pip wheel --no-deps --no-build-isolation -w" in \
        (ROOT / "tools" / "build_examples.py").read_text(encoding="utf-8")


@pytest.mark.skipif(sys.platform == "emscripten", reason="pip and a shell: CPython only")
def test_the_tutorials_build_commands_run_as_written(tmp_path: Path) -> None:
    """docs/extending.md step 7's shell block, run as a reader pastes it (issue 26: a bare
    ``python`` folder was read by pip as a requirement's name): in a copy of Duel's module
    folder, ``python`` this interpreter, ``/tmp/duel-site`` a temporary folder."""
    blocks = [code for lang, code in _code_blocks(TUTORIAL.read_text(encoding="utf-8"))
              if lang == "sh" and "pip wheel" in code]
    assert len(blocks) == 1, blocks
    block = blocks[0]
    assert block.startswith("cd examples/firefight-duel\n"), block
    folder = tmp_path / "examples" / "firefight-duel"
    shutil.copytree(EXAMPLES / "firefight-duel" / "python", folder / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"))
    site = tmp_path / "duel-site"
    pasted = block.replace("/tmp/duel-site", str(site))  # noqa: S108 - the doc's own path
    script = re.sub(r"(^|\s)python -m ", lambda m: f"{m[1]}{sys.executable} -m ", pasted,
                    flags=re.MULTILINE)
    run = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600, check=False)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    assert (folder / "wheels" / "firefight_duel-0.1.0-py3-none-any.whl").is_file()
    assert (site / "firefight_duel" / "__init__.py").is_file()
    assert re.search(r"\d+ passed", out), out[-2000:]


# --- CPython: install the wheels and run the installed tests in a child ---------------------------

@pytest.mark.skipif(INSTALLED or sys.platform == "emscripten",
                    reason="the wheels are installed here: the installed tests run directly")
def test_the_author_path_on_cpython(tmp_path: Path) -> None:
    build = subprocess.run([sys.executable, "tools/build_examples.py"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300, check=False)
    assert build.returncode == 0, build.stdout + build.stderr
    wheels = [str(EXAMPLES / m / w) for m in MODULES
              for w in _manifest(m)["flags"]["firefight"]["wheels"]]
    site = tmp_path / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                              "--disable-pip-version-check", "--no-deps", "--no-index",
                              "--target", str(site), *wheels],
                             capture_output=True, text=True, timeout=300, check=False)
    assert install.returncode == 0, install.stdout + install.stderr
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    child = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                            "-o", "addopts=", "-k", "installed or test_duel or test_laser_sight",
                            __file__, *map(str, OWN_TESTS)],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
                           check=False)
    out = child.stdout + child.stderr
    assert child.returncode == 0, out[-6000:]
    wanted = len(re.findall(r"^def test_installed_", Path(__file__).read_text(encoding="utf-8"),
                            re.MULTILINE))
    passed = re.search(r"(\d+) passed", out)
    assert passed, out[-2000:]
    assert int(passed[1]) >= wanted + 4, out[-2000:]  # + the plugins' own four
    assert "skipped" not in out, out[-2000:]
