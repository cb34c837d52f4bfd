import { test } from "node:test";
import assert from "node:assert/strict";
import { parseFormula, rollDataFromDice, rollDataFromResult, facesOfRoll } from "../../js-shim/core/dice.mjs";

const exploding = { formula: "1d20x20", faces: 20, explode_on: 20, results: [20, 19], total: 39, purpose: "to-hit, shooter", side: "attacker" };

test("parseFormula", () => {
  assert.deepEqual(parseFormula("1d20x20"), { number: 1, faces: 20, modifiers: ["x20"] });
  assert.deepEqual(parseFormula("d20"), { number: 1, faces: 20, modifiers: [] });
  assert.deepEqual(parseFormula("3d6"), { number: 3, faces: 6, modifiers: [] });
  assert.deepEqual(parseFormula("?", 10), { number: 1, faces: 10, modifiers: [] });
});

test("an exploding d20 becomes one Die term with the same faces", () => {
  const data = rollDataFromDice(exploding);
  assert.equal(data.class, "Roll");
  assert.equal(data.formula, "1d20x20");
  assert.equal(data.total, 39);
  assert.equal(data.evaluated, true);
  assert.equal(data.terms.length, 1);
  const die = data.terms[0];
  assert.equal(die.class, "Die");
  assert.equal(die.faces, 20);
  assert.equal(die.number, 1);
  assert.deepEqual(die.modifiers, ["x20"]);
  assert.deepEqual(die.results, [{ result: 20, active: true, exploded: true }, { result: 19, active: true }]);
  assert.equal(data.options.flavor, "to-hit, shooter");
  assert.deepEqual(data.options.firefight, { purpose: "to-hit, shooter", side: "attacker" });
});

test("a final 20 that did not explode further is not marked", () => {
  const data = rollDataFromDice({ formula: "1d20x20", faces: 20, explode_on: 20, results: [20, 20, 3], total: 43 });
  assert.deepEqual(data.terms[0].results.map((r) => Boolean(r.exploded)), [true, true, false]);
  const plain = rollDataFromDice({ formula: "1d20", faces: 20, explode_on: null, results: [20], total: 20 });
  assert.deepEqual(plain.terms[0].results, [{ result: 20, active: true }]);
});

test("total defaults to the sum of results", () => {
  assert.equal(rollDataFromDice({ formula: "2d6", faces: 6, results: [3, 4] }).total, 7);
});

test("rollDataFromResult keeps order; faces round-trip", () => {
  const result = { dice: [exploding, { formula: "1d20x20", faces: 20, explode_on: 20, results: [7], total: 7, purpose: "to-hit, target" }] };
  const rolls = rollDataFromResult(result);
  assert.equal(rolls.length, 2);
  assert.deepEqual(rolls.flatMap(facesOfRoll), [20, 19, 7]);
  assert.deepEqual(facesOfRoll({ toJSON: () => rolls[1] }), [7]);
  assert.deepEqual(rollDataFromResult({}), []);
});

test("a pool's roll totals its successes, never the sum of its faces", () => {
  // Issue 26 item 5: the chat message's roll of a 5d6 pool said 16 (docs/extending.md: never the sum).
  const result = {
    dice: [{ formula: "1d20", faces: 20, results: [12], total: 12, purpose: "to hit" },
      { formula: "5d6", faces: 6, results: [1, 5, 6, 2, 2], total: 16, purpose: "pool" }],
    steps: [{ id: "to_hit", kind: "target_number", dice: [0] },
      { id: "volley", kind: "pool", dice: [1], numbers: { successes: 2 } }],
  };
  const rolls = rollDataFromResult(result);
  assert.equal(rolls[0].total, 12); // summed as before
  assert.equal(rolls[1].total, 2);
  assert.equal(rolls[1].options.firefight.pool, true);
  assert.deepEqual(rolls.flatMap(facesOfRoll), [12, 1, 5, 6, 2, 2]); // the faces stay, for the GM's replay
  // A pool split over two records, or without its count: no total rather than a sum.
  const split = { ...result, steps: [{ id: "p", kind: "pool", dice: [0, 1], numbers: { successes: 3 } }] };
  assert.deepEqual(rollDataFromResult(split).map((r) => r.total), [null, null]);
});

test("the sandbox's Roll.fromData reads the data back unchanged", async () => {
  const { Roll } = await import("../../sandbox/foundry/dice.mjs");
  const data = rollDataFromDice(exploding);
  const roll = Roll.fromData(data);
  assert.equal(roll.formula, "1d20x20");
  assert.equal(roll.total, 39);
  assert.deepEqual(roll.dice[0].results.map((r) => r.result), [20, 19]);
  assert.equal(roll.dice[0].total, 39);
  assert.deepEqual(roll.toJSON(), data);
});

test("EntropyStream draws each value once and hands out growing prefixes", async () => {
  const { EntropyStream } = await import("../../js-shim/core/dice.mjs");
  let n = 0;
  const stream = new EntropyStream(() => ++n / 100);
  assert.deepEqual(stream.take(2), [0.01, 0.02]);
  assert.deepEqual(stream.take(4), [0.01, 0.02, 0.03, 0.04]);
  assert.deepEqual(stream.take(3), [0.01, 0.02, 0.03]);
  assert.equal(n, 4);
});

test("a die's flavour is its purpose in the client's language, its English purpose kept", () => {
  // Issue 25 item 6: Foundry's roll flavours were the engine's English in a German world.
  const saved = globalThis.game;
  const de = { "FIREFIGHT.dpv.roll.to_hit": "Treffer, Schuss {shot}" };
  globalThis.game = { i18n: { lang: "de", localize: (k) => de[k] ?? k } };
  try {
    const record = { formula: "1d10", faces: 10, results: [7], total: 7, purpose: "to-hit, shot 2",
      purpose_key: "FIREFIGHT.dpv.roll.to_hit", purpose_params: { shot: 2 }, side: "attacker" };
    const [data] = rollDataFromResult({ dice: [record] });
    assert.equal(data.options.flavor, "Treffer, Schuss 2");
    assert.equal(data.terms[0].options.flavor, "Treffer, Schuss 2");
    assert.equal(data.options.firefight.purpose, "to-hit, shot 2");
    // A param named <name>_key is a lang key itself, said as <name> (cards.py `_params`).
    de["FIREFIGHT.soe.roll.rant"] = "{roll}, {side}";
    de["FIREFIGHT.soe.side.attacker"] = "Angreifer";
    const keyed = rollDataFromDice({ ...record, purpose: "to-hit, attacker", purpose_key: "FIREFIGHT.soe.roll.rant",
      purpose_params: { roll: "Treffer", side_key: "FIREFIGHT.soe.side.attacker" } });
    assert.equal(keyed.options.flavor, "Treffer, Angreifer");
    // Without a key, the engine's purpose as it is.
    assert.equal(rollDataFromDice(exploding).options.flavor, "to-hit, shooter");
  } finally {
    globalThis.game = saved;
  }
});
