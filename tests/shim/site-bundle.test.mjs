// js-shim/engine/site-bundle.mjs: the engine's site-packages in one deflate stream (issue 17).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import test from "node:test";
import { deflateRawSync } from "node:zlib";

import { compactFiles, compileLibraries, inflateSite, siteFiles, writeFiles } from "../../js-shim/engine/site-bundle.mjs";

/** A bundle as tools/build_runtime.py writes it: u32 n | n bytes of JSON index | the files. */
function bundle(files, { extra = new Uint8Array(), index = null } = {}) {
  const head = Buffer.from(JSON.stringify(index ?? files.map(([name, data]) => [name, data.length])));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(head.length);
  return new Uint8Array(deflateRawSync(Buffer.concat([size, head, ...files.map(([, d]) => Buffer.from(d)), extra])));
}

const WASM = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]); // the smallest module: magic, version

test("a bundle's files come out whole, in order, and are written under site-packages", async () => {
  const files = [["pkg/__init__.py", "x = 1\n"], ["pkg/data/table.json", "{}"], ["pkg-1.0.dist-info/METADATA", "Name: pkg\n"]];
  const out = siteFiles(await inflateSite(bundle(files)));
  assert.deepEqual(out.map(({ name, data }) => [name, Buffer.from(data).toString()]), files);
  const calls = [];
  const FS = { mkdirTree: (dir) => calls.push(["mkdir", dir]), writeFile: (path, data) => calls.push(["write", path, data.length]) };
  writeFiles(FS, "/lib/python3.14/site-packages", out);
  assert.deepEqual(calls, [
    ["mkdir", "/lib/python3.14/site-packages/pkg"],
    ["write", "/lib/python3.14/site-packages/pkg/__init__.py", 6],
    ["mkdir", "/lib/python3.14/site-packages/pkg/data"],
    ["write", "/lib/python3.14/site-packages/pkg/data/table.json", 2],
    ["mkdir", "/lib/python3.14/site-packages/pkg-1.0.dist-info"],
    ["write", "/lib/python3.14/site-packages/pkg-1.0.dist-info/METADATA", 10],
  ]);
});

test("a broken bundle is refused naming it and what is wrong", async () => {
  await assert.rejects(inflateSite(new Uint8Array([1, 2, 3]), "runtime/wheels/site-packages.bin"), /site-packages\.bin/);
  const escape = await inflateSite(bundle([["../../etc/x", "x"]]));
  assert.throws(() => siteFiles(escape, "b.bin"), /b\.bin: \.\.\/\.\.\/etc\/x leaves site-packages/);
  const absolute = await inflateSite(bundle([["/abs.py", "x"]]));
  assert.throws(() => siteFiles(absolute), /leaves site-packages/);
  const short = await inflateSite(bundle([["a.py", "xy"]], { index: [["a.py", 5]] }));
  assert.throws(() => siteFiles(short), /a\.py is cut short/);
  const long = await inflateSite(bundle([["a.py", "xy"]], { extra: new Uint8Array(3) }));
  assert.throws(() => siteFiles(long), /3 bytes after its files/);
  assert.throws(() => siteFiles(new Uint8Array([9, 0, 0, 0])), /no file list/);
});

test("the binary extensions compile while Pyodide starts; one that does not is left out", async () => {
  const out = siteFiles(await inflateSite(bundle([["a/ok.so", WASM], ["a/bad.so", "not wasm"], ["a/x.py", "x"]])));
  const compiled = await compileLibraries(out);
  assert.deepEqual([...compiled.keys()], ["a/ok.so"]);
  assert.ok(compiled.get("a/ok.so") instanceof WebAssembly.Module);
});

test("the runtime's bundle holds the engine and its binary extension", { skip: !existsSync("runtime/wheels/site-packages.bin") }, async () => {
  const out = siteFiles(await inflateSite(readFileSync("runtime/wheels/site-packages.bin")));
  const names = new Set(out.map(({ name }) => name));
  for (const name of ["firefight/bridge.py", "pydantic/main.py", "jinja2/__init__.py"]) assert.ok(names.has(name), name);
  assert.ok([...names].some((n) => /^firefight-.*\.dist-info\/entry_points\.txt$/.test(n)));
  assert.ok([...names].some((n) => n.startsWith("pydantic_core/") && n.endsWith(".so")));
});

test("compacting keeps every file but the binary extensions, in a buffer of its own, and frees the bundle", async () => {
  const files = [["pkg/__init__.py", "x = 1\n"], ["pkg/_ext.so", "\0asm-bytes"], ["pkg/data.json", "{}"]];
  const all = await inflateSite(bundle(files));
  const out = siteFiles(all);
  const written = new Map();
  const unlinked = [];
  const FS = { writeFile: (path, data) => written.set(path, data), unlink: (path) => unlinked.push(path) };
  compactFiles(FS, "/sp", out);
  assert.deepEqual([...written.keys()], ["/sp/pkg/__init__.py", "/sp/pkg/data.json"]);
  assert.deepEqual([...written.values()].map((d) => Buffer.from(d).toString()), ["x = 1\n", "{}"]);
  const [kept] = new Set([...written.values()].map((d) => d.buffer));
  assert.equal(kept.byteLength, 8); // one buffer, only the kept files' bytes
  assert.deepEqual(unlinked, ["/sp/pkg/_ext.so"]);
  if (ArrayBuffer.prototype.transfer) { // Node 21+ (Chromium since 114): detached, freed at once
    assert.equal(all.buffer.byteLength, 0);
  }
});
