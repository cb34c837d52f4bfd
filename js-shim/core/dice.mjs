// Pure: the engine's dice records -> Foundry Roll data (for Roll.fromData),
// so the rolls on a ChatMessage are exactly the dice Python used.

import { t } from "./i18n.mjs";
import { cardParams } from "./form.mjs";

const TERM_RE = /^\s*(\d*)d(\d+)([^+\-*/\s]*)/i;

/** Parse "1d20x20" -> {number: 1, faces: 20, modifiers: ["x20"]}. */
export function parseFormula(formula, fallbackFaces) {
  const m = TERM_RE.exec(formula ?? "");
  if (!m) return { number: 1, faces: fallbackFaces, modifiers: [] };
  const modifiers = m[3] ? m[3].match(/[a-z]+[<>=]*\d*/gi) ?? [] : [];
  return { number: m[1] ? Number(m[1]) : 1, faces: Number(m[2]), modifiers };
}

/**
 * Why a die was rolled in the client's language: its `purpose_key` with `purpose_params`, a
 * param named `<name>_key` said as `<name>` (as the card says it, py/firefight/cards.py
 * `_params`), else the engine's English `purpose`.
 */
export function purposeText(record) {
  const purpose = record.purpose ?? "";
  if (!record.purpose_key) return purpose;
  const params = record.purpose_params ?? {};
  return t(record.purpose_key, purpose, cardParams(params, (k) => t(k, k, params)));
}

/**
 * One dice record {formula, faces, explode_on, results, total, purpose, purpose_key, side}
 * -> plain Roll data with a single evaluated Die term. Its flavour (what Foundry and Dice So
 * Nice show beside the roll) is `say(record)`, the purpose in the client's language; the
 * English purpose stays in `options.firefight.purpose`.
 */
export function rollDataFromDice(record, say = purposeText) {
  const { number, faces, modifiers } = parseFormula(record.formula, record.faces);
  const explodeOn = record.explode_on ?? null;
  const results = record.results.map((value, i) => {
    const r = { result: value, active: true };
    // A die that triggered the next roll is marked exploded, as Foundry marks it.
    if (explodeOn !== null && value >= explodeOn && i < record.results.length - 1) r.exploded = true;
    return r;
  });
  const total = record.total ?? results.reduce((s, r) => s + r.result, 0);
  const flavor = say(record);
  const options = { flavor, firefight: { purpose: record.purpose ?? null, side: record.side ?? null } };
  return {
    class: "Roll",
    options,
    dice: [],
    formula: record.formula ?? `${number}d${faces ?? record.faces}`,
    terms: [{
      class: "Die",
      options: { flavor },
      evaluated: true,
      number,
      faces: faces ?? record.faces,
      modifiers,
      results,
    }],
    total,
    evaluated: true,
  };
}

// A pool step's count of successes (docs/extending.md, "A dice pool": `numbers.successes`).
const POOL_COUNT = "successes";

/**
 * Pure: the dice a pool step counts (a step of `kind` "pool": its faces are counted, never
 * summed) -> the count its Roll shows as its total, as Foundry's success-counting rolls do: the
 * step's count when the step has one dice record (`rec.roll(6, count=n)`), else null.
 */
export function poolTotals(result) {
  const out = new Map();
  for (const step of result?.steps ?? []) {
    if (step?.kind !== "pool" || !Array.isArray(step.dice)) continue;
    const count = step.numbers?.[POOL_COUNT];
    for (const i of step.dice) out.set(i, step.dice.length === 1 && Number.isInteger(count) ? count : null);
  }
  return out;
}

/** All dice of a result -> Roll data list; a pool's roll totals its successes, not its faces. */
export function rollDataFromResult(result, say = purposeText) {
  const pools = poolTotals(result);
  return (result?.dice ?? []).map((record, i) => {
    const data = rollDataFromDice(record, say);
    if (pools.has(i)) {
      data.total = pools.get(i);
      data.options.firefight.pool = true;
    }
    return data;
  });
}

/** The faces a Roll (or its JSON) carries, flattened in order. */
export function facesOfRoll(roll) {
  const data = typeof roll?.toJSON === "function" ? roll.toJSON() : roll;
  return (data?.terms ?? []).flatMap((t) => (t.results ?? []).map((r) => r.result));
}

/**
 * The uniforms a resolve sends as `entropy`: drawn from `random` (Foundry's
 * CONFIG.Dice.randomUniform) only once each. `take(n)` returns the first n, drawing only those not
 * drawn yet, so a retry after `entropy_exhausted` sends the same values topped up with new ones:
 * the engine reads them in order, so the dice it read before stay the dice that count (issue 17).
 */
export class EntropyStream {
  constructor(random) {
    this.random = random;
    this.values = [];
  }

  take(n) {
    while (this.values.length < n) this.values.push(this.random());
    return this.values.slice(0, n);
  }
}
