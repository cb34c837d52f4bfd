// Roll and Die: enough of Foundry's dice API for Firefight (fromData, toJSON,
// formula, total, dice, terms, evaluate) with plain "NdF[xE] ± k" formulas.

export class RollTerm {
  static fromData(data) {
    const cls = { Die, NumericTerm, OperatorTerm }[data.class] ?? NumericTerm;
    return cls.fromData(data);
  }
}

export class Die extends RollTerm {
  constructor({ number = 1, faces = 6, modifiers = [], results = [], options = {} } = {}) {
    super();
    Object.assign(this, { number, faces, modifiers: [...modifiers], results: results.map((r) => ({ ...r })), options: { ...options } });
    this._evaluated = results.length > 0;
  }
  static DENOMINATION = "d";
  static fromData(data) {
    const die = new Die(data);
    die._evaluated = data.evaluated ?? die.results.length > 0;
    return die;
  }
  get denomination() {
    return "d";
  }
  get expression() {
    return `${this.number}d${this.faces}${this.modifiers.join("")}`;
  }
  get formula() {
    return this.expression;
  }
  get flavor() {
    return this.options.flavor ?? "";
  }
  get isDeterministic() {
    return false;
  }
  get values() {
    return this.results.filter((r) => r.active).map((r) => r.result);
  }
  get total() {
    return this._evaluated ? this.values.reduce((s, v) => s + v, 0) : undefined;
  }
  get _explodeOn() {
    const m = this.modifiers.map((x) => /^x(\d*)$/.exec(x)).find(Boolean);
    if (!m) return null;
    return m[1] ? Number(m[1]) : this.faces;
  }
  async evaluate() {
    const roll = () => Math.ceil((1 - CONFIG.Dice.randomUniform()) * this.faces);
    const explode = this._explodeOn;
    for (let i = 0; i < this.number; i++) {
      let r = { result: roll(), active: true };
      this.results.push(r);
      for (let depth = 0; explode !== null && r.result >= explode && depth < 100; depth++) {
        r.exploded = true;
        r = { result: roll(), active: true };
        this.results.push(r);
      }
    }
    this._evaluated = true;
    return this;
  }
  toJSON() {
    return { class: "Die", options: this.options, evaluated: this._evaluated, number: this.number, faces: this.faces,
      modifiers: this.modifiers, results: this.results };
  }
}

export class NumericTerm extends RollTerm {
  constructor({ number = 0, options = {} } = {}) {
    super();
    this.number = Number(number);
    this.options = options;
  }
  static fromData(data) {
    return new NumericTerm(data);
  }
  get expression() {
    return String(this.number);
  }
  get total() {
    return this.number;
  }
  async evaluate() {
    return this;
  }
  toJSON() {
    return { class: "NumericTerm", options: this.options, evaluated: true, number: this.number };
  }
}

export class OperatorTerm extends RollTerm {
  constructor({ operator = "+", options = {} } = {}) {
    super();
    this.operator = operator;
    this.options = options;
  }
  static fromData(data) {
    return new OperatorTerm(data);
  }
  get expression() {
    return ` ${this.operator} `;
  }
  get total() {
    return this.operator;
  }
  async evaluate() {
    return this;
  }
  toJSON() {
    return { class: "OperatorTerm", options: this.options, evaluated: true, operator: this.operator };
  }
}

function parse(formula) {
  const terms = [];
  const re = /\s*([+-])?\s*(?:(\d*)d(\d+)((?:x\d*)?)|(\d+(?:\.\d+)?))/gy;
  let m;
  let first = true;
  while ((m = re.exec(formula)) && m[0].trim()) {
    if (m[1]) terms.push(new OperatorTerm({ operator: m[1] }));
    else if (!first) throw new Error(`Unsupported roll formula: ${formula}`);
    if (m[3]) terms.push(new Die({ number: m[2] ? Number(m[2]) : 1, faces: Number(m[3]), modifiers: m[4] ? [m[4]] : [] }));
    else terms.push(new NumericTerm({ number: Number(m[5]) }));
    first = false;
  }
  if (!terms.length) throw new Error(`Unsupported roll formula: ${formula}`);
  return terms;
}

export class Roll {
  constructor(formula = "", data = {}, options = {}) {
    this.data = data;
    this.options = options;
    this._formula = formula;
    this.terms = formula ? parse(formula) : [];
    this._evaluated = false;
    this._total = undefined;
  }
  static fromData(data) {
    const roll = new this("", {}, data.options ?? {});
    roll._formula = data.formula;
    roll.terms = (data.terms ?? []).map((t) => RollTerm.fromData(t));
    roll._evaluated = Boolean(data.evaluated);
    roll._total = data.total;
    return roll;
  }
  static fromJSON(json) {
    return this.fromData(JSON.parse(json));
  }
  get formula() {
    return this._formula || this.terms.map((t) => t.expression).join("");
  }
  get dice() {
    return this.terms.filter((t) => t instanceof Die);
  }
  get total() {
    return this._evaluated ? this._total : undefined;
  }
  get result() {
    return this.terms.map((t) => t.total).join(" ");
  }
  get isDeterministic() {
    return this.dice.length === 0;
  }
  async evaluate() {
    if (this._evaluated) throw new Error("This Roll object has already been evaluated and is now immutable");
    for (const t of this.terms) await t.evaluate();
    let total = 0;
    let sign = 1;
    for (const t of this.terms) {
      if (t instanceof OperatorTerm) sign = t.operator === "-" ? -1 : 1;
      else total += sign * t.total;
    }
    this._total = total;
    this._evaluated = true;
    return this;
  }
  toJSON() {
    return { class: this.constructor.name, options: this.options, dice: [], formula: this.formula,
      terms: this.terms.map((t) => t.toJSON()), total: this._total, evaluated: this._evaluated };
  }
}
