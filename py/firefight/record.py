"""The one recorder a resolver writes to: dice, modifiers, steps, effects, notes, the outcome and
the card, in order. The core turns it into the immutable ``Resolution``.

Every die goes through the ``Roller`` with a purpose; a step points at its dice by index, and its
modifier total is computed here from the modifiers recorded for it, never typed by hand.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar, get_args

from pydantic import BaseModel

from firefight import house
from firefight.dice import DieRecord, Roller, ScriptedDice
from firefight.errors import FirefightError
from firefight.models import CONDITION_SET, Effect, Modifier, Note, Resolution, Step

T = TypeVar("T")


def num(x: Fraction | float | int) -> float | int:
    """A JSON number for the card: ints stay ints, fractions become floats."""
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else float(x)
    return x


@dataclass
class Recorder:
    roller: Roller
    prefix: str  # "FIREFIGHT.<ruleset id>": keys without it are the ruleset's own
    ruleset: str = ""
    steps: list[Step] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    outcome: dict[str, Any] = field(default_factory=dict)
    title_key: str = "FIREFIGHT.card.title"
    card_params: dict[str, Any] = field(default_factory=dict)
    # The request's key when the core has it (``registry.Parsed.key``): the key of ``once``.
    request_key: str | bytes | None = None

    @classmethod
    def for_odds(cls, ruleset: str, request: BaseModel | None = None) -> Recorder:
        """A recorder that rolls nothing, for the odds: the ledgers the roll uses record their
        modifiers (house rules' too) on it, and the odds read them off it. With ``request``,
        its ``once`` shares the work the resolve of that request did or will do (issue 27: a
        new request's resolve built its ledgers twice, once more for its odds)."""
        key: str | bytes | None = None
        if request is not None:  # the key the core answers its odds by, else its JSON
            key = _ANSWERING[1] if _ANSWERING[0] is request else request.model_dump_json()
        return cls(_NO_DICE, f"FIREFIGHT.{ruleset}", ruleset=ruleset, request_key=key)

    def once(self, name: str, build: Callable[[Recorder], T]) -> T:
        """``build(rec)``, work that depends on nothing but the request (a ledger of modifiers,
        a shot's plan), done once per distinct request (issue 17) when the core knows the
        request's JSON: ``build`` runs on a fresh recorder, and the modifiers and notes it
        recorded are recorded here again each time, its value returned again (shared: never
        change it). ``build`` may record nothing else and roll no die; ``name`` names it (one
        name, one piece of work, within an action)."""
        if self.request_key is None:
            return build(self)
        key = (self.prefix, name, self.request_key)
        found = _ONCE.get(key)
        if found is None:
            scratch = Recorder(_NO_DICE, self.prefix, ruleset=self.ruleset)
            value = build(scratch)
            if (scratch.steps or scratch.effects or scratch.outcome or scratch.card_params
                    or scratch.title_key != Recorder.title_key):
                raise AssertionError(f"{name}: work done once may record only modifiers and "
                                     "notes")
            found = _ONCE[key] = (value, scratch.modifiers, scratch.notes)
            if len(_ONCE) > ONCE_SIZE:
                _ONCE.popitem(last=False)  # least recently used
        else:
            _ONCE.move_to_end(key)
        self.modifiers += found[1]
        self.notes += found[2]
        return found[0]

    def key(self, name: str) -> str:
        """A lang key: ``mod.will`` -> ``FIREFIGHT.<id>.mod.will``; a full key stays as it is."""
        return name if not name or name.startswith("FIREFIGHT.") else f"{self.prefix}.{name}"

    # --- dice ----------------------------------------------------------------------------

    def roll(self, faces: int, *, purpose: str, side: str = "attacker", count: int = 1,
             purpose_key: str = "", purpose_params: dict[str, str] | None = None
             ) -> tuple[int, int]:
        """Roll ``count`` d``faces``; returns (total, index of the die record)."""
        record = self.roller.roll(faces, purpose=purpose, side=side, count=count,
                                  purpose_key=self.key(purpose_key) or None,
                                  purpose_params=purpose_params)
        return record.total, len(self.roller.records) - 1

    def faces(self, index: int) -> tuple[int, ...]:
        return self.roller.records[index].results

    @property
    def next_die(self) -> int:
        """The index the next die rolled will have (for steps of dice rolled by a helper)."""
        return len(self.roller.records)

    # --- modifiers and steps ---------------------------------------------------------------

    def modifier(self, name: str, value: int, source: str, step: str, *,
                 side: str = "attacker", **params: Any) -> Modifier:
        key, side = self.key(name), "target" if side == "target" else "attacker"
        if type(key) is str and type(value) is int and type(source) is str and type(step) is str:
            mod: Modifier = _built(Modifier, {"key": key, "value": value, "source": source,
                                              "step": step, "side": side, "params": params},
                                   _MODIFIER_SET)
        else:
            mod = Modifier(key=key, value=value, source=source, step=step, side=side,
                           params=params)
        self.modifiers.append(mod)
        return mod

    def add(self, mods: list[Modifier]) -> list[Modifier]:
        """Modifiers already built (by a ledger the odds share)."""
        self.modifiers += mods
        return mods

    def house(self, step: str, request: BaseModel) -> list[Modifier]:
        """The house rules' modifiers for ``step`` (recorded). The odds see them too when they
        run the same ledger on ``Recorder.for_odds``."""
        return self.add(house.modifiers(self.ruleset, step, request))

    def step(self, step_id: str, label: str = "", *, kind: str = "target_number",
             dice: list[int] | None = None, numbers: dict[str, Any] | None = None,
             success: bool | None = None, outcome: str = "", source: str = "",
             **params: Any) -> Step:
        label_key, outcome_key = self.key(f"step.{label or step_id}"), self.key(outcome)
        dice, numbers = dice or [], numbers or {}
        if source:
            params["source"] = source
        if (type(step_id) is str and type(kind) is str and kind in _STEP_KINDS
                and type(dice) is list and _INT.issuperset(map(type, dice))
                and type(numbers) is dict and _STR.issuperset(map(type, numbers))
                and (success is None or type(success) is bool)
                and type(label_key) is str and type(outcome_key) is str):
            made: Step = _built(Step, {
                "id": step_id, "label_key": label_key, "kind": kind, "dice": list(dice),
                "modifier_total": 0, "numbers": dict(numbers), "success": success,
                "outcome_key": outcome_key, "params": params, "referee": False}, _STEP_SET)
        else:
            made = Step(id=step_id, label_key=label_key, kind=kind, dice=dice, numbers=numbers,
                        success=success, outcome_key=outcome_key, params=params)
        self.steps.append(made)
        return made

    # --- effects, notes, card ------------------------------------------------------------

    def effect(self, kind: str, *, delta: int = 0, value: Any = None, label: str | None = None,
               target: str = "target", **params: Any) -> Effect:
        """``label``: the effect's whole lang key below the prefix (``effect.<kind>`` when left
        out, none when ""); unlike ``note`` and ``step``, nothing is added to it."""
        key = self.key(f"effect.{kind}") if label is None else self.key(label)
        target = "attacker" if target == "attacker" else "target"
        if type(kind) is str and type(delta) is int and type(key) is str:
            made: Effect = _built(Effect, {"target": target, "kind": kind, "delta": delta,
                                           "value": value, "label_key": key, "params": params},
                                  _EFFECT_SET)
        else:
            made = Effect(target=target, kind=kind, delta=delta, value=value, label_key=key,
                          params=params)
        self.effects.append(made)
        return made

    def condition(self, condition_id: str, *, target: str = "target") -> Effect:
        """Set a declared condition (``firefight.models.Condition``) on the request's
        ``target`` or ``attacker``: an effect the table applies to that actor's data."""
        cond = house.conditions(self.ruleset).get(condition_id)
        if cond is None:
            raise FirefightError(f"no condition {condition_id!r} is declared for {self.ruleset}",
                                 code="plugin_error")
        return self.effect(CONDITION_SET, value=cond.id, target=target,
                           label="FIREFIGHT.condition.set", condition={"key": cond.label_key})

    def note(self, key: str, source: str = "", **params: Any) -> Note:
        """``key``: ``note.<key>`` of the ruleset when it has no dot, else as given below the
        prefix (or a whole ``FIREFIGHT.`` key)."""
        key = self.key(key if "." in key else f"note.{key}")
        if type(key) is str and type(source) is str:
            made: Note = _built(Note, {"key": key, "params": params, "source": source,
                                       "referee": False}, _NOTE_SET)
        else:
            made = Note(key=key, source=source, params=params)
        self.notes.append(made)
        return made

    def for_referee(self, *, notes_from: int, steps_from: int) -> None:
        """Hide the notes and steps made since these counts from the player's card: a hidden
        result's verdict (2300ad UNCERTAIN TASKS)."""
        self.notes[notes_from:] = [n.model_copy(update={"referee": True})
                                   for n in self.notes[notes_from:]]
        self.steps[steps_from:] = [s.model_copy(update={"referee": True})
                                   for s in self.steps[steps_from:]]

    def card(self, title: str, **params: Any) -> None:
        """The card's title (a lang key, ``card.<title>`` of the ruleset when short)."""
        self.title_key = self.key(title if "." in title else f"card.{title}")
        self.card_params = params

    def resolution(self, request: BaseModel, *, action: str, odds: dict[str, Any],
                   template: str, dumped: dict[str, Any] | None = None) -> Resolution:
        """The immutable result. ``dumped``: the request as ``dump_request`` gave it, when the
        caller has it already (it is not dumped twice)."""
        totals = self._totals()
        steps = [s if s.modifier_total == totals.get(s.id, 0)
                 else s.model_copy(update={"modifier_total": totals.get(s.id, 0)})
                 for s in self.steps]
        return Resolution(
            ruleset=self.ruleset, action=action,
            request=dump_request(request) if dumped is None else dumped,
            dice=[r.to_dict() for r in self.roller.records], modifiers=self.modifiers,
            steps=steps, outcome=self.outcome, effects=self.effects, notes=self.notes,
            odds=odds,
            card={"template": template, "title_key": self.title_key, "params": self.card_params},
        )

    def result(self, request: BaseModel, *, action: str, odds: dict[str, Any], template: str,
               dumped: dict[str, Any] | None = None) -> dict[str, Any]:
        """``resolution(...).model_dump(mode="json")``, built straight from what was recorded
        (issue 17: validating the Resolution and dumping it again was a quarter of a resolve).
        Anything but plain JSON data, or a model of another class, takes the pydantic path, so
        the dict is the same either way (tests/engine/test_fast_engine.py checks it)."""
        if dumped is None:
            dumped = dump_request(request)
        try:
            return self._plain_result(dumped, action, odds, template)
        except _NotPlainError:
            return self.resolution(request, action=action, odds=odds, template=template,
                                   dumped=dumped).model_dump(mode="json")

    def _totals(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for mod in self.modifiers:
            totals[mod.step] = totals.get(mod.step, 0) + mod.value
        return totals

    def _plain_result(self, dumped: dict[str, Any], action: str, odds: dict[str, Any],
                      template: str) -> dict[str, Any]:
        totals = self._totals()
        steps = []
        for s in self.steps:
            out = _model(s, Step, _STEP_ANY)
            out["modifier_total"] = totals.get(s.id, 0)
            steps.append(out)
        effects = []
        for e in self.effects:
            out = _model(e, Effect, _EFFECT_ANY)
            out["on_actor"] = e.on_actor
            effects.append(out)
        return {
            "ruleset": _plain(self.ruleset),
            "action": _plain(action),
            "version": 1,
            "request": dumped,  # fresh from model_dump(mode="json"): JSON data already
            "dice": [_die(r) for r in self.roller.records],
            "modifiers": [_model(m, Modifier, _MODIFIER_ANY) for m in self.modifiers],
            "steps": steps,
            "outcome": _plain(self.outcome),
            "effects": effects,
            "notes": [_model(n, Note, _NOTE_ANY) for n in self.notes],
            "odds": _plain(odds),
            "card": {"template": _plain(template), "title_key": _plain(self.title_key),
                     "params": _plain(self.card_params)},
        }


# The roller of a recorder that rolls nothing (the odds', work done once): any die asked of it
# is refused before it is recorded, so one serves them all.
_NO_DICE = Roller(ScriptedDice([]))
# ``Recorder.once``: (prefix, name, request key) -> (value, modifiers, notes), bounded.
ONCE_SIZE = 1024
_ONCE: OrderedDict[tuple[str, str, str | bytes], tuple[Any, list[Modifier], list[Note]]] = (
    OrderedDict())
# The request whose odds the core is computing, and its key (``answering``).
_ANSWERING: list[Any] = [None, None]


@contextmanager
def answering(request: BaseModel, key: str | bytes) -> Iterator[None]:
    """While the core computes ``request``'s odds (``Ruleset.cached_odds``): ``for_odds`` of
    that request keys ``once`` by ``key``, as its resolve does, without writing its JSON."""
    before = list(_ANSWERING)
    _ANSWERING[:] = [request, key]
    try:
        yield
    finally:
        _ANSWERING[:] = before


def forget_once() -> None:
    """Forget the work ``Recorder.once`` kept (a house rule registered changes a ledger)."""
    _ONCE.clear()


def dump_request(request: BaseModel) -> dict[str, Any]:
    """A request as a result records it: JSON-ready, by alias, ``house`` only when chosen."""
    dumped = request.model_dump(mode="json", by_alias=True)
    if not dumped.get("house"):
        dumped.pop("house", None)  # no house rule chosen: the request as it always was
    return dumped


# Models the recorder builds from values that validation would keep as they are (exact str,
# int, bool; a literal among its choices; lists and dicts freshly made), without validating
# them again: a third of a Step's cost was pydantic checking what the recorder had just made.
# Anything else is validated as before. tests/engine/test_fast_engine.py compares the two.
_new = object.__new__
# BaseModel's own slots, set through their descriptors (what object.__setattr__ looks up).
_SET_DICT = BaseModel.__dict__["__dict__"].__set__
_SET_FIELDS = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_SET_EXTRA = BaseModel.__dict__["__pydantic_extra__"].__set__
_SET_PRIVATE = BaseModel.__dict__["__pydantic_private__"].__set__
_STEP_KINDS = frozenset(get_args(Step.model_fields["kind"].annotation))
_INT = frozenset({int})
_STR = frozenset({str})
# The fields each constructor call names (pydantic's ``model_fields_set``).
_MODIFIER_SET = frozenset({"key", "value", "source", "step", "side", "params"})
_STEP_SET = frozenset({"id", "label_key", "kind", "dice", "numbers", "success", "outcome_key",
                       "params"})
_EFFECT_SET = frozenset({"target", "kind", "delta", "value", "label_key", "params"})
_NOTE_SET = frozenset({"key", "source", "params"})

M = TypeVar("M", bound=BaseModel)


def _built(cls: type[M], values: dict[str, Any], fields_set: frozenset[str]) -> M:
    """An instance of ``cls`` as validation makes it: ``values`` (every field, in order)."""
    made = _new(cls)
    _SET_DICT(made, values)
    _SET_FIELDS(made, set(fields_set))
    _SET_EXTRA(made, None)
    _SET_PRIVATE(made, None)
    return made


class _NotPlainError(Exception):
    """A value the fast dump does not handle: pydantic's dump is used instead."""


# The fields of each model that hold any JSON data (the rest are str, int, bool or a literal,
# exact as validation made them); a model's ``__dict__`` holds its fields in order.
_MODIFIER_ANY = ("params",)
_STEP_ANY = ("dice", "numbers", "params")
_EFFECT_ANY = ("value", "params")  # then the computed ``on_actor``
_NOTE_ANY = ("params",)
_SIZES: dict[type[BaseModel], int] = {
    cls: len(cls.model_fields) for cls in (Modifier, Step, Effect, Note)}
_SCALARS = frozenset({str, int, bool, type(None)})
_SCALARS_FLOAT = _SCALARS | {float}


def _plain(value: Any) -> Any:
    """A fresh copy of JSON data as ``model_dump(mode="json")`` gives it for an ``Any`` field:
    str, int, bool, None as they are, floats with inf and nan as None (pydantic's JSON mode),
    tuples as lists. Anything else (a Fraction, an enum, a key that is not a string) raises
    ``_NotPlainError``."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        # Most data is a flat dict of str keys and scalar values (finite floats among them):
        # checked and copied at C speed.
        if _STR.issuperset(map(type, value)):
            types = set(map(type, value.values()))
            if types <= _SCALARS or (types <= _SCALARS_FLOAT and all(map(
                    math.isfinite, [v for v in value.values() if type(v) is float]))):
                return dict(value)
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlainError
            out[key] = item if type(item) in _SCALARS else _plain(item)
        return out
    if kind is list or kind is tuple:
        if _SCALARS.issuperset(map(type, value)):
            return list(value)
        return [item if type(item) in _SCALARS else _plain(item) for item in value]
    if kind is float:
        return value if value - value == 0.0 else None
    raise _NotPlainError


def _die(record: DieRecord) -> dict[str, Any]:
    """``DieRecord.to_dict()`` as pydantic would dump it (its fresh dict with fresh lists)."""
    out: dict[str, Any] = record.to_dict()
    params = out.get("purpose_params")
    # The usual die: whole-number faces, scalar fields, string parameters: nothing to change.
    if (_INT.issuperset(map(type, out["results"]))
            and _SCALARS.issuperset(map(type, (out["formula"], out["faces"], out["explode_on"],
                                               out["total"], out["purpose"], out["side"],
                                               out.get("purpose_key"))))
            and (params is None or (_STR.issuperset(map(type, params))
                                    and _SCALARS.issuperset(map(type, params.values()))))):
        return out
    for key, item in out.items():
        if type(item) not in _SCALARS:
            out[key] = _plain(item)
    return out


_ANY_FIELDS: dict[type[BaseModel], tuple[str, ...]] = {
    Modifier: _MODIFIER_ANY, Note: _NOTE_ANY}


def dump_recorded(models: list[Modifier] | list[Note]) -> list[dict[str, Any]]:
    """Recorded modifiers or notes as ``model_dump(mode="json")`` gives them (the odds list
    them), by the result's own fast path (``_model``); a model it does not handle is dumped
    by pydantic."""
    out = []
    for m in models:
        try:
            out.append(_model(m, type(m), _ANY_FIELDS[type(m)]))
        except (_NotPlainError, KeyError):
            out.append(m.model_dump(mode="json"))
    return out


def _model(model: BaseModel, cls: type[BaseModel], any_fields: tuple[str, ...]
           ) -> dict[str, Any]:
    """One recorded model as ``model_dump(mode="json")`` gives it: its ``__dict__`` copied, the
    fields of any data dumped. Only exactly ``cls`` with exactly its fields (a subclass, or a
    ``model_copy`` that added a key, takes pydantic's path)."""
    if type(model) is not cls:
        raise _NotPlainError
    out = dict(model.__dict__)
    if len(out) != _SIZES[cls]:
        raise _NotPlainError
    for name in any_fields:
        value = out[name]
        if type(value) is dict and not value:  # most params: nothing to look at
            out[name] = {}
        elif type(value) not in _SCALARS:
            out[name] = _plain(value)
    return out
