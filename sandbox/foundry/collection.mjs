// Collection: a Map whose iteration yields values, as Foundry's does.
export class Collection extends Map {
  [Symbol.iterator]() {
    return this.values();
  }
  get contents() {
    return Array.from(this.values());
  }
  get(key, { strict = false } = {}) {
    const v = super.get(key);
    if (strict && v === undefined) throw new Error(`The key ${key} does not exist in the Collection`);
    return v;
  }
  getName(name) {
    return this.find((v) => v.name === name);
  }
  find(fn) {
    for (const v of this.values()) if (fn(v)) return v;
    return undefined;
  }
  filter(fn) {
    return this.contents.filter(fn);
  }
  map(fn) {
    return this.contents.map(fn);
  }
  some(fn) {
    return this.contents.some(fn);
  }
  reduce(fn, init) {
    return this.contents.reduce(fn, init);
  }
  toJSON() {
    return this.contents.map((v) => (typeof v?.toJSON === "function" ? v.toJSON() : v));
  }
}
