// Hooks: on / once / off / call / callAll, as in Foundry's client API.
const events = new Map(); // name -> [{fn, once, id}]
const ids = new Map(); // id -> name
let nextId = 1;

function add(name, fn, once) {
  const id = nextId++;
  if (!events.has(name)) events.set(name, []);
  events.get(name).push({ fn, once, id });
  ids.set(id, name);
  return id;
}

function run(entry, name, args) {
  if (entry.once) Hooks.off(name, entry.id);
  try {
    return entry.fn(...args);
  } catch (err) {
    console.error(`Error thrown in hooked function for ${name}`, err);
    return undefined;
  }
}

export const Hooks = {
  get events() {
    return Object.fromEntries(events);
  },
  on: (name, fn) => add(name, fn, false),
  once: (name, fn) => add(name, fn, true),
  off(name, fn) {
    const list = events.get(name);
    if (!list) return;
    const i = list.findIndex((e) => e.fn === fn || e.id === fn);
    if (i >= 0) {
      ids.delete(list[i].id);
      list.splice(i, 1);
    }
  },
  /** Call every hook; returns true. */
  callAll(name, ...args) {
    for (const entry of [...(events.get(name) ?? [])]) run(entry, name, args);
    return true;
  },
  /** Call hooks in order; a hook returning false stops it and call returns false. */
  call(name, ...args) {
    for (const entry of [...(events.get(name) ?? [])]) {
      if (run(entry, name, args) === false) return false;
    }
    return true;
  },
};
