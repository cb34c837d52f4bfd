// The engine's site-packages as one file (issue 17, docs/building.md "Boot levers"):
// runtime/wheels/site-packages.bin, made by tools/build_runtime.py (`write_site_bundle`) from the
// runtime's wheels, every file of them in one raw deflate stream (RFC 1951):
//   u32 (little-endian) n | n bytes of UTF-8 JSON [[path inside site-packages, size], ...] | the
//   files' bytes, in that order.
// One stream inflates natively (DecompressionStream) while Pyodide's WebAssembly compiles, and
// its files are copied into Pyodide's file system by JavaScript: where unpacking the wheels with
// Python's zipfile took ~200 ms of the boot, after Pyodide had started.

/** The bundle inflated (what `siteFiles` reads). `where` names it in errors. */
export async function inflateSite(bytes, where = "site-packages.bin") {
  try {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (err) {
    throw new Error(`${where}: ${err?.message ?? err}`, { cause: err });
  }
}

/** The files of an inflated bundle, [{name, data}] (data: views into `all`). */
export function siteFiles(all, where = "site-packages.bin") {
  const view = new DataView(all.buffer, all.byteOffset, all.byteLength);
  const n = all.length >= 4 ? view.getUint32(0, true) : Infinity;
  if (4 + n > all.length) throw new Error(`${where}: no file list`);
  const index = JSON.parse(new TextDecoder().decode(all.subarray(4, 4 + n)));
  const files = [];
  let at = 4 + n;
  for (const [name, size] of index) {
    if (typeof name !== "string" || name.startsWith("/") || name.split("/").includes("..")) {
      throw new Error(`${where}: ${name} leaves site-packages`);
    }
    if (at + size > all.length) throw new Error(`${where}: ${name} is cut short`);
    files.push({ name, data: all.subarray(at, at + size) });
    at += size;
  }
  if (at !== all.length) throw new Error(`${where}: ${all.length - at} bytes after its files`);
  return files;
}

/** Write the files ([{name, data}]) under `root` (Pyodide's site-packages). */
export function writeFiles(FS, root, files) {
  const made = new Set();
  for (const { name, data } of files) {
    const path = `${root}/${name}`;
    const folder = path.slice(0, path.lastIndexOf("/"));
    if (!made.has(folder)) {
      FS.mkdirTree(folder);
      made.add(folder);
    }
    FS.writeFile(path, data, { canOwn: true });
  }
}

/**
 * Once Python has loaded the binary extensions (`.so`) among `files` (written by `writeFiles`
 * under `root`, as views of one buffer), keep the other files in a buffer of their own and delete
 * the extensions, whose bytes Python never reads again: the bundle's buffer, ~4.7 MB of it the
 * pydantic-core library, is freed at once (issue 27, the engine worker's memory). Nothing may
 * read the old buffer afterwards (a snapshot still to be stored holds it).
 */
export function compactFiles(FS, root, files) {
  const kept = files.filter(({ name }) => !name.endsWith(".so"));
  const copy = new Uint8Array(kept.reduce((sum, { data }) => sum + data.length, 0));
  let at = 0;
  for (const { name, data } of kept) {
    copy.set(data, at);
    FS.writeFile(`${root}/${name}`, copy.subarray(at, (at += data.length)), { canOwn: true });
  }
  for (const { name } of files) if (name.endsWith(".so")) FS.unlink(`${root}/${name}`);
  try {
    files[0]?.data.buffer.transfer?.(0);
  } catch {
    // not detachable: the garbage collector frees it
  }
}

/**
 * Compile the binary extensions (`.so`) among the files in the background, while Pyodide starts:
 * -> Promise<Map(path inside site-packages -> WebAssembly.Module)>, without those that failed
 * (they are compiled again when linked, and fail there by name).
 */
export async function compileLibraries(files) {
  const jobs = files.filter(({ name }) => name.endsWith(".so"))
    .map(({ name, data }) => WebAssembly.compile(data).then((module) => [name, module], () => null));
  return new Map((await Promise.all(jobs)).filter(Boolean));
}
