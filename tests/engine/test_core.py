"""The core rulesets plug into (issue 13): actions validated and dispatched one way, one
recorder, house rules, plugins that fail without taking the others down, no import circles."""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from collections.abc import Iterator
from fractions import Fraction
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from pydantic import Field

import firefight
from firefight import house, registry
from firefight.models import ActionRequest, Modifier, Strict
from firefight.record import Recorder

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "py" / "firefight"


# --- a ruleset written against the core, as a plugin author would -------------------------------

class ToyOptions(Strict):
    aim: int = Field(default=0, ge=0, le=3)


class ToyAttack(ActionRequest):
    ruleset: Literal["toy"]
    action: Literal["attack"] = "attack"
    skill: int = Field(ge=0, le=10)
    options: ToyOptions = Field(default_factory=ToyOptions)


class ToyHeal(ActionRequest):
    ruleset: Literal["toy"]
    action: Literal["heal"]
    amount: int = Field(ge=1, le=6)


def _ledger(request: ToyAttack) -> list[Modifier]:
    mods = [Modifier(key="FIREFIGHT.toy.mod.skill", value=request.skill, source="toy 1",
                     step="to_hit")]
    if request.options.aim:
        mods.append(Modifier(key="FIREFIGHT.toy.mod.aim", value=request.options.aim,
                             source="toy 2", step="to_hit"))
    return mods + house.modifiers("toy", "to_hit", request)


def _attack(request: ToyAttack, rec: Recorder) -> None:
    mods = rec.add(_ledger(request))
    total, die = rec.roll(20, purpose="to-hit")
    hit = total + sum(m.value for m in mods) >= 15
    rec.step("to_hit", dice=[die], numbers={"roll": total}, success=hit)
    rec.outcome.update(hit=hit, summary_key="FIREFIGHT.toy.hit" if hit else "FIREFIGHT.toy.miss")
    if hit:
        rec.effect("hp", delta=-1)
    rec.card("title", attacker="A")


def _odds(request: ToyAttack) -> dict[str, Any]:
    need = 15 - sum(m.value for m in _ledger(request))
    p = Fraction(max(0, min(20, 21 - need)), 20)
    return {"probability": float(p), "exact": f"{p.numerator}/{p.denominator}"}


def _heal(request: ToyHeal, rec: Recorder) -> None:
    rec.effect("hp", delta=request.amount)
    rec.card("heal")


class Toy(registry.Ruleset):
    id = "toy"
    label_key = "FIREFIGHT.toy.name"
    actions = (registry.Action("attack", ToyAttack, _attack, _odds, options=ToyOptions),
               registry.Action("heal", ToyHeal, _heal))
    house_steps: ClassVar[dict[str, str]] = {"to_hit": "toy 1"}


class Steady(house.HouseRule):
    id = "steady"
    ruleset = "toy"
    label_key = "FIREFIGHT.steady.name"

    class Options(Strict):
        braced: bool = False

    options_model = Options

    def modifiers(self, step: str, request: Any, options: Any, settings: Any) -> list[Modifier]:
        if step == "to_hit" and options.braced:
            return [Modifier(key="FIREFIGHT.steady.mod", value=2, source="", step=step)]
        return []


@pytest.fixture
def toy() -> Iterator[Toy]:
    made = firefight.register(Toy())
    yield made
    house.unregister_house_rule("steady")
    registry.unregister("toy")


def test_each_action_is_validated_with_its_own_model(toy: Toy) -> None:
    bad = firefight.resolve({"ruleset": "toy", "skill": 99}, dice=[10])
    assert bad["error"]["fields"][0]["field"] == "skill"  # not "attack.skill"
    bad = firefight.resolve({"ruleset": "toy", "action": "heal", "amount": 9})
    assert [f["field"] for f in bad["error"]["fields"]] == ["amount"]
    bad = firefight.resolve({"ruleset": "toy", "action": "sing"})
    assert bad["error"]["fields"][0]["field"] == "action"
    assert "attack, heal" in bad["error"]["fields"][0]["reason"]


def test_the_core_computes_step_totals_and_keeps_the_dice(toy: Toy) -> None:
    result = firefight.resolve({"ruleset": "toy", "skill": 3, "options": {"aim": 2}}, dice=[10])
    step = result["steps"][0]
    assert step["modifier_total"] == 5  # 3 + 2, from the step's modifiers
    assert step["dice"] == [0]
    assert result["dice"][0]["results"] == [10]
    assert result["outcome"]["hit"] is True
    assert result["effects"][0]["label_key"] == "FIREFIGHT.toy.effect.hp"
    assert result["card"]["title_key"] == "FIREFIGHT.toy.card.title"
    assert result["odds"]["exact"] == "11/20"
    assert "house" not in result["request"]  # no house rule chosen: the request as always


def test_a_house_rule_changes_odds_and_roll_and_is_checked(toy: Toy) -> None:
    request = {"ruleset": "toy", "skill": 3, "house": {"steady": {"options": {"braced": True}}}}
    assert "error" in firefight.odds(request)  # not registered yet: unknown rule
    before = firefight.odds({"ruleset": "toy", "skill": 3})
    firefight.register_house_rule(Steady())
    assert firefight.odds({"ruleset": "toy", "skill": 3}) == before  # unticked: no change
    assert firefight.odds(request)["exact"] == "11/20"  # 3 + 2: need 10
    result = firefight.resolve(request, dice=[10])
    mod = result["modifiers"][-1]
    assert (mod["key"], mod["value"], mod["source"]) == ("FIREFIGHT.steady.mod", 2,
                                                         "house rule: steady")
    assert result["steps"][0]["modifier_total"] == 5
    bad = firefight.odds({**request, "house": {"steady": {"options": {"braced": "very"}}}})
    assert bad["error"]["fields"][0]["field"] == "house.steady.options.braced"
    bad = firefight.odds({"ruleset": "toy", "action": "heal", "amount": 1,
                          "house": request["house"]})
    assert bad["error"]["fields"][0]["field"] == "house.steady"  # not a rule of this action
    cat = firefight.catalog()
    rule = next(r for r in cat["house_rules"] if r["id"] == "steady")
    assert rule["options"]["properties"]["braced"]["type"] == "boolean"


def test_a_ruleset_without_actions_is_refused_at_registration() -> None:
    class Empty(registry.Ruleset):
        id = "empty"
        label_key = "x"

    class Loose(registry.Ruleset):
        id = "loose"
        label_key = "x"
        actions = (registry.Action("attack", Strict, _attack),)

    with pytest.raises(ValueError, match="declares no actions"):
        firefight.register(Empty())
    with pytest.raises(TypeError, match="ActionRequest"):
        firefight.register(Loose())


def test_a_broken_plugin_is_reported_and_the_rest_plays_on(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    broken = [EntryPoint("broken", "firefight_no_such_plugin:RULESET", "firefight.rulesets"),
              EntryPoint("wrong", "firefight.models:Strict", "firefight.house_rules")]

    def fake(*, group: str) -> list[EntryPoint]:
        return [ep for ep in broken if ep.group == group]

    registry.discover()  # the built-ins found first, by the real scan
    monkeypatch.setattr(registry, "entry_points", fake)
    monkeypatch.setattr(registry, "_seen", set(registry._seen))
    monkeypatch.setattr(registry, "_status", list(registry._status))
    status = firefight.rescan()["plugins"]
    by_name = {s["name"]: s for s in status}
    assert by_name["broken"]["ok"] is False
    assert "ModuleNotFoundError" in by_name["broken"]["error"]
    assert "firefight_no_such_plugin" in by_name["broken"]["error"]
    assert by_name["wrong"]["ok"] is False
    assert "HouseRule" in by_name["wrong"]["error"]
    assert len(firefight.rescan()["plugins"]) == len(status)  # each is tried once
    ids = {r["id"] for r in firefight.catalog()["rulesets"]}
    assert {"soe", "percentile", "shock", "dpv"} <= ids


def test_hello_carries_the_catalog() -> None:
    from firefight.bridge import handle

    reply = json.loads(handle(json.dumps({"op": "hello", "lang": "de"})))
    assert reply["ok"], reply
    value = reply["value"]
    assert value["default_ruleset"] in {r["id"] for r in value["rulesets"]}
    soe = next(r for r in value["rulesets"] if r["id"] == "soe")
    assert soe["builtin"] is True
    assert soe["settings"]["properties"]
    assert value["units"]["ft"] == pytest.approx(0.3048)


def test_shipped_lang_is_built_from_the_packages() -> None:
    spec = importlib.util.spec_from_file_location("build_lang", ROOT / "tools" / "build_lang.py")
    assert spec
    assert spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for lang in ("en", "de"):
        assert (ROOT / "lang" / f"{lang}.json").read_text(encoding="utf-8") == tool.built(lang), \
            "lang/ is stale: run tools/build_lang.py"
    assert tool.main(["--check"]) == 0


def _imports_in(nodes: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at the top of the module or inside a function, a class, a
    ``try``...: all but those under ``if TYPE_CHECKING:`` (never run)."""
    out: list[ast.Import | ast.ImportFrom] = []
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out += _imports_in(node.orelse)
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                out += _imports_in([child])
            elif isinstance(child, ast.excepthandler | ast.match_case):
                out += _imports_in(child.body)
    return out


def _module_imports(path: Path) -> set[str]:
    """firefight modules a file imports, when it is imported or later in a function (lazy
    imports count: a circle through one still ties the modules together), but not under
    TYPE_CHECKING."""
    name = ".".join(path.relative_to(PKG.parent).with_suffix("").parts).removesuffix(".__init__")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in _imports_in(tree.body):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("firefight")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = name.split(".")[: -node.level + (1 if path.name == "__init__.py" else 0)
                                         or None]
                base = ".".join([*parent, base] if base else parent)
            if not base.startswith("firefight"):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if _exists(sub) else base)
    return out - {name}


def _exists(module: str) -> bool:
    rel = Path(*module.split("."))
    return (PKG.parent / rel).with_suffix(".py").exists() or (PKG.parent / rel).is_dir()


def test_no_import_circles() -> None:
    graph = {".".join(p.relative_to(PKG.parent).with_suffix("").parts).removesuffix(".__init__"):
             _module_imports(p) for p in PKG.rglob("*.py")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(mod: str) -> None:
        state[mod] = 1
        stack.append(mod)
        for dep in sorted(graph.get(mod, ())):
            if state.get(dep) == 1:
                cycle = [*stack[stack.index(dep):], dep]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if dep in graph and not state.get(dep):
                visit(dep)
        stack.pop()
        state[mod] = 2

    for mod in sorted(graph):
        if not state.get(mod):
            visit(mod)
    assert sys.modules["firefight.registry"]


def test_house_choices_are_checked_when_the_request_is_parsed(toy: Toy) -> None:
    class Calm(Steady):
        id = "calm"
        actions = ("heal",)  # heal's resolver never asks for house modifiers

    firefight.register_house_rule(Calm())
    try:
        bad = firefight.resolve({"ruleset": "toy", "action": "heal", "amount": 1,
                                 "house": {"calm": {"options": {"braced": "very"}}}})
        assert bad["error"]["fields"][0]["field"] == "house.calm.options.braced"
    finally:
        house.unregister_house_rule("calm")
