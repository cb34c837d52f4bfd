"""The boot imports only what the ready message and the ``hello`` need (issue 17, "Boot"):
Jinja2 and the card templates come with the first card, the balance lab (its sweeps, charts and
Dask too) and the command line when used, and a ruleset with its first request (issue 27: the
``hello`` reads the built-ins' catalogs from data). The plugin scan's importlib.metadata comes
with the bridge's import, so the browser's memory snapshot holds it. (The time each saves:
docs/building.md, "Boot levers".)"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _examples import IN_PYODIDE, example

import firefight
from firefight import registry

# In a fresh interpreter: which modules the bridge's import, the hello and the first shot load.
SCRIPT = """
import json, sys
from firefight import bridge
loaded = lambda: sorted(m for m in {names!r} if m in sys.modules)
seen = {{"import": loaded()}}
assert json.loads(bridge.handle(json.dumps({{"op": "hello"}})))["ok"]
seen["hello"] = loaded()
reply = json.loads(bridge.handle(json.dumps({{"op": "resolve", "request": {request!r},
                                             "entropy": [0.5] * 256}})))
assert reply["ok"] and reply["value"]["html"], reply
seen["shot"] = loaded()
print(json.dumps(seen))
"""
LATER = ("jinja2", "firefight.cards", "firefight.sim", "firefight.cli", "firefight.sweep",
         "firefight.lab_chart", "matplotlib", "distributed", "dask")  # the lab's: issue 28
SCAN = ("importlib.metadata",)  # the plugin scan's, with the email package it brings
RULESETS = tuple(f"firefight.rulesets.{r}" for r in ("dpv", "percentile", "shock", "soe"))


@pytest.mark.skipif(IN_PYODIDE, reason="starts a fresh interpreter")
def test_the_boot_and_the_hello_leave_the_cards_the_lab_and_the_cli_for_later() -> None:
    script = SCRIPT.format(names=LATER + SCAN + RULESETS, request=example("soe_rhino.json"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["import"] == ["importlib.metadata"]  # the scan, in the memory snapshot
    assert seen["hello"] == ["importlib.metadata"]  # no ruleset: their catalogs are data
    # the first card, and the one ruleset the shot names
    assert seen["shot"] == ["firefight.cards", "firefight.rulesets.soe", "importlib.metadata",
                            "jinja2"]


def test_the_cards_are_still_the_packages_own() -> None:
    from firefight import cards

    assert firefight.render_card is cards.render_card
    assert firefight.validate_result is cards.validate_result
    with pytest.raises(AttributeError, match="no_such_thing"):
        firefight.no_such_thing  # noqa: B018 - the attribute read is the test


def test_every_built_in_catalog_builds() -> None:
    # The built-ins' catalogs are built by the hello, not at registration as well.
    for ruleset in registry.all_rulesets():
        if ruleset.catalog()["builtin"]:
            assert ruleset.catalog()["id"] == ruleset.id
    assert not [s for s in registry.plugin_status() if not s["ok"] and
                s["name"] in {"soe", "percentile", "shock", "dpv"}]


# The worker's warm-up once idle after `ready` (firefight.bridge.warm_up): what the first shot
# of the world's ruleset would wait for, loaded ahead; another ruleset's left for later.
WARM_SCRIPT = """
import json, sys
from firefight import bridge, registry
loaded = lambda: sorted(m for m in {names!r} if m in sys.modules)
bridge.warm_up({ruleset!r})
seen = {{"warm": loaded()}}
from firefight import cards
ruleset = registry.get({ruleset!r} or "soe")
seen["complete"] = all(a.request.__pydantic_complete__ for a in ruleset.actions)
seen["templates"] = [k[1] for k in cards.environment().cache]
data = sys.modules[type(ruleset).__module__ + ".data"]
seen["tables"] = data.tables.cache_info().currsize  # Ruleset.load_data
bridge.warm_up("no_such_ruleset")  # a plugin whose wheel failed: left to its first request
print(json.dumps(seen))
"""


@pytest.mark.skipif(IN_PYODIDE, reason="starts a fresh interpreter")
@pytest.mark.parametrize(("ruleset", "imported"), [("dpv", "dpv"), ("", "soe")])
def test_the_warm_up_loads_the_cards_and_the_worlds_ruleset(ruleset: str, imported: str
                                                            ) -> None:
    script = WARM_SCRIPT.format(names=LATER + RULESETS, ruleset=ruleset)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["warm"] == ["firefight.cards", f"firefight.rulesets.{imported}", "jinja2"]
    assert seen["complete"]  # every request model's validator built (``defer_build``)
    assert seen["templates"] == [registry.get(imported).card_template]
    assert seen["tables"] == 1
