// A Pyodide memory snapshot that holds a loaded binary extension (pydantic_core), so a returning
// player's boot restores the engine already imported (issue 17, docs/building.md "Boot levers").
//
// Why Pyodide alone cannot (pyodide issue 6418): a snapshot is the WebAssembly memory. Emscripten
// loads a side module (a `.so`) by giving it a block of that memory for its data (`memoryBase`)
// and slots at the end of the function table (`tableBase`), which JavaScript owns and no snapshot
// holds. After a restore the memory still points at those slots, but the table ends before them:
// the first call through one traps ("table index out of bounds").
//
// What this does instead: when the snapshot is made, `linkState` records each loaded library's
// block and slots (from its handle, the `struct dso` Emscripten's dlopen fills) and which
// function every later table slot held. After a restore, `relink` instantiates each library
// again at the same memory and table base, in the same order, as Emscripten's
// loadWebAssemblyModule does (its exported helpers: getDylinkMetadata, GOTHandler,
// resolveGlobalSymbol, relocateExports, updateGOT, updateTableMap, reportUndefinedSymbols,
// newDSO), but neither re-applies the data relocations nor runs the constructors: the library's
// memory block is put back as the snapshot had it, state included. Then every recorded slot must
// hold the same function again, or the restore is refused (and the worker boots without it).
// Python's cyclic GC is off in the snapshot (a collection before the relink would call into the
// library's missing slots) and turned on again once the library is linked.

/** function -> "library\0export name", for every function a loaded library (or the main module) exports. */
function exportNames(M) {
  const names = new Map();
  for (const [lib, dso] of Object.entries(M.LDSO.loadedLibsByName)) {
    for (const [name, value] of Object.entries(dso.exports ?? {})) {
      if (typeof value === "function" && !names.has(value)) names.set(value, `${lib}\u0000${name}`);
    }
  }
  return names;
}

/**
 * What a restore must rebuild: the table's length when Pyodide had started (`table`, before any
 * library), each library's memory block and table slots, and the function held by every other
 * slot added since. Throws when something cannot be rebuilt (then no snapshot is taken).
 */
export function linkState(pyodide, table) {
  const M = pyodide._module;
  const libs = [];
  const handles = new Map(Object.entries(M.LDSO.loadedLibsByHandle).map(([h, dso]) => [dso, Number(h)]));
  for (const [name, dso] of Object.entries(M.LDSO.loadedLibsByName)) {
    if (name === "__main__") continue;
    const h = handles.get(dso);
    if (!h) throw new Error(`${name} was loaded without a dlopen handle`);
    const lib = {
      name, handle: h, global: Boolean(dso.global),
      memoryBase: M.HEAPU32[(h + 12) >>> 2], memorySize: M.HEAP32[(h + 16) >>> 2],
      tableBase: M.HEAPU32[(h + 20) >>> 2], tableSize: M.HEAP32[(h + 24) >>> 2],
    };
    if (!lib.tableSize) throw new Error(`${name} has no table slots to order it by`);
    libs.push(lib);
  }
  libs.sort((a, b) => a.tableBase - b.tableBase);
  const names = exportNames(M);
  const slots = [];
  for (let i = table; i < M.wasmTable.length; i++) {
    if (libs.some((l) => i >= l.tableBase && i < l.tableBase + l.tableSize)) {
      slots.push(null); // the library's own element segment: instantiating it fills these
      continue;
    }
    const f = M.wasmTable.get(i);
    const name = f === null ? "" : names.get(f);
    if (name === undefined) throw new Error(`function table slot ${i} holds no library's export`);
    slots.push(name);
  }
  return { table, libs, slots };
}

/**
 * loadPyodide's options to restore a stored snapshot (js-shim/engine/snapshot-store.mjs, `snapshot`: a
 * promise of its parts, read meanwhile), given `loader`, the import of Pyodide's
 * pyodide.asm.mjs: {_loadSnapshot, createPyodideModule}. loadPyodide would await the snapshot
 * before making Pyodide's module (instantiating its WebAssembly, installing the standard
 * library: ~130 ms); here the module is made while it is read, and Pyodide's restoreSnapshot
 * (node_modules/pyodide, `API.restoreSnapshot`, called once the module is made with what
 * `_loadSnapshot` gave: a stand-in) gets the snapshot's header, once `writeHeap` has put its
 * memory in place. The memory is grown first: Pyodide's own restore does not grow it, so a
 * snapshot of a heap that grew past Pyodide's initial memory (30 MiB; the engine's imports take it
 * to ~36) would not fit ("offset is out of bounds").
 */
export function restoring(loader, snapshot, writeHeap) {
  // Held only until the restore: the snapshot's memory is a view of the whole file read (~38
  // MB), which Pyodide keeps its options and its API (this function among them) alive with
  // (issue 27: a returning player's worker held it for good, +40 MiB).
  let pending = snapshot;
  const createPyodideModule = async (settings) => {
    const module = await (await loader).default(settings);
    let parts = await pending;
    pending = null;
    const restore = module.API.restoreSnapshot;
    module.API.restoreSnapshot = () => {
      module.API.restoreSnapshot = restore;
      const { header } = parts;
      if (module.HEAP8.length < parts.heapLength) module.growMemory(parts.heapLength);
      writeHeap(module.HEAP8, parts);
      parts = null;
      const found = restore(header); // the header, its memory part empty: already in place
      try { // read: the file's bytes freed now, not at the worker's next garbage collection
        header.buffer.transfer?.(0);
      } catch {
        // not detachable: the garbage collector frees them
      }
      return found;
    };
    return module;
  };
  return { _loadSnapshot: new Uint8Array(16), createPyodideModule };
}

/**
 * Link the libraries of `state` (linkState) into a restored Pyodide; throws on any mismatch.
 * `compiled`: path inside its wheel -> WebAssembly.Module of the libraries compiled meanwhile
 * (wheel-files.mjs `compileLibraries`); any other is compiled from Pyodide's file system.
 */
export function relink(pyodide, state, compiled = new Map()) {
  const M = pyodide._module;
  const table = M.wasmTable;
  if (table.length !== state.table) throw new Error(`the function table starts at ${table.length}, not ${state.table}`);
  for (const lib of state.libs) {
    const ready = [...compiled].find(([name]) => lib.name.endsWith(`/${name}`));
    const module = ready?.[1] ?? new WebAssembly.Module(pyodide.FS.readFile(lib.name));
    const metadata = M.getDylinkMetadata(module);
    if (metadata.memorySize !== lib.memorySize || metadata.tableSize !== lib.tableSize) {
      throw new Error(`${lib.name} is not the library the snapshot holds`);
    }
    if (table.length > lib.tableBase) throw new Error(`${lib.name}: its table slots are taken`);
    if (table.length < lib.tableBase) table.grow(lib.tableBase - table.length);
    const { memoryBase, tableBase } = lib;
    const saved = M.HEAPU8.slice(memoryBase, memoryBase + lib.memorySize);
    table.grow(lib.tableSize);
    let exports = null;
    const env = new Proxy({}, {
      get(stubs, prop) {
        if (prop === "__memory_base") return memoryBase;
        if (prop === "__table_base") return tableBase;
        const found = M.resolveGlobalSymbol(prop).sym;
        if (found) return found;
        stubs[prop] ??= (...args) => {
          const f = M.resolveGlobalSymbol(prop).sym ?? exports?.[prop];
          if (!f) throw new Error(`Dynamic linking error: cannot resolve symbol ${String(prop)}`);
          return f(...args);
        };
        return stubs[prop];
      },
    });
    const got = new Proxy(metadata.weakImports, M.GOTHandler);
    const instance = new WebAssembly.Instance(module, { env, wasi_snapshot_preview1: env, "GOT.mem": got, "GOT.func": got });
    const names = Object.keys(instance.exports);
    if (names.some((n) => n === "__start_em_asm" || n.startsWith("__em_js__"))) {
      throw new Error(`${lib.name} has EM_ASM/EM_JS code, which this relink does not rebuild`);
    }
    M.updateTableMap(tableBase, lib.tableSize);
    exports = M.relocateExports(instance.exports, memoryBase);
    M.updateGOT(exports);
    M.reportUndefinedSymbols();
    M.HEAPU8.set(saved, memoryBase); // the data as the snapshot had it: no relocations, no ctors
    const dso = M.newDSO(lib.name, lib.handle, exports);
    dso.global = lib.global;
    if (lib.global) M.mergeLibSymbols(exports, lib.name);
  }
  if (table.length !== state.table + state.slots.length) {
    throw new Error(`the function table has ${table.length} slots, the snapshot's ${state.table + state.slots.length}`);
  }
  state.slots.forEach((want, k) => {
    if (want === null) return;
    const [lib, name] = want.split("\u0000");
    const expected = want === "" ? null : M.LDSO.loadedLibsByName[lib]?.exports?.[name];
    if (table.get(state.table + k) !== expected) {
      throw new Error(`function table slot ${state.table + k} does not hold ${want.replace("\u0000", " ") || "nothing"}`);
    }
  });
}
