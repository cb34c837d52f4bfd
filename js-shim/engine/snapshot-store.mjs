// Where the engine worker keeps its memory snapshot (js-shim/engine/engine-worker.mjs, issue 17): the
// Origin Private File System (WHATWG File System Standard; `navigator.storage.getDirectory()`),
// one file at its root, `firefight-engine-snapshot.bin`. It holds everything a returning
// player's boot needs besides Pyodide itself, so that boot makes no request for the engine and
// inflates nothing:
//   "FFSN" | u32 n (little-endian) | n bytes of JSON {key, link, site, header, pages, data} (key:
//   the runtime's hash, manifest.json "runtime"; the others: byte lengths) | the link state
//   (js-shim/engine/snapshot-link.mjs `linkState`, JSON) | site-packages' files as
//   js-shim/engine/site-bundle.mjs reads them, uncompressed | padding to 8 | Pyodide's snapshot: its
//   header, a byte per 4 KiB page of its memory (1: stored, 0: all zeros; a third of them are)
//   and the stored pages.
// A dedicated worker reads it with a synchronous access handle, straight from the file (a Cache
// Storage response's arrayBuffer() took ~5x longer, the longest step of the boot); one file at a
// fixed name costs the fewest round trips to the browser. Writing goes through createWritable(),
// which replaces the file only when closed: a boot never reads half of one. No OPFS (a page
// outside a secure context): no snapshot.

const NAME = "firefight-engine-snapshot.bin";
const MAGIC = 0x4e534646; // "FFSN"
const PAGE = 4096;

const root = () => self.navigator.storage.getDirectory();

/** Whether this context can keep a snapshot. */
export const canStore = () => typeof self.navigator?.storage?.getDirectory === "function";

async function readAll(handle) {
  let access;
  try { // "read-only" lets two tabs read at once; an older Chromium ignores it (one at a time)
    access = await handle.createSyncAccessHandle({ mode: "read-only" });
  } catch {
    return new Uint8Array(await (await handle.getFile()).arrayBuffer()); // another tab holds it
  }
  try {
    const bytes = new Uint8Array(access.getSize());
    if (access.read(bytes, { at: 0 }) !== bytes.length) throw new Error("the snapshot file was cut short");
    return bytes;
  } finally {
    access.close();
  }
}

/**
 * {key, link, site, snapshot} from a stored file's bytes; throws if they are not one. `snapshot`
 * is {header, heapLength, pages, data}: what `writeHeap` and Pyodide's restoreSnapshot take.
 */
function unpack(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || view.getUint32(0, true) !== MAGIC) throw new Error("not a Firefight snapshot file");
  const n = view.getUint32(4, true);
  const sizes = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  let at = 8 + n;
  const take = (length) => bytes.subarray(at, (at += length));
  const link = JSON.parse(new TextDecoder().decode(take(sizes.link)));
  // A copy: the site files live on in Pyodide's file system as views of it, which would otherwise
  // keep the whole file's buffer, the snapshot's ~25 MB of memory pages with it, alive.
  const site = take(sizes.site).slice();
  at = Math.ceil(at / 8) * 8;
  const header = take(sizes.header);
  const pages = take(sizes.pages);
  at = Math.ceil(at / 8) * 8;
  const data = take(sizes.data);
  if (at !== bytes.length || data.length !== pages.reduce((sum, page) => sum + page, 0) * PAGE) {
    throw new Error("the snapshot file was cut short");
  }
  return { key: sizes.key, link, site, snapshot: { header, heapLength: pages.length * PAGE, pages, data } };
}

/** Copy a stored snapshot's memory into `heap` (Pyodide's HEAP8, at least heapLength long). */
export function writeHeap(heap, { pages, data }) {
  let k = 0;
  for (let i = 0; i < pages.length; i++) {
    if (pages[i]) heap.set(data.subarray(k * PAGE, ++k * PAGE), i * PAGE);
    else heap.fill(0, i * PAGE, (i + 1) * PAGE);
  }
}

/**
 * The stored snapshot: {parts}, or null. `parts` is a promise of {key, link, site, snapshot}
 * (`key`: the hash of the runtime it was made with), rejected if the file is not a whole
 * snapshot.
 */
export async function readSnapshot() {
  let handle;
  try {
    handle = await (await root()).getFileHandle(NAME);
  } catch {
    return null; // never stored
  }
  // Empty: another worker is storing its first one (createWritable fills the file only when it
  // closes): none yet, and nothing to forget.
  if ((await handle.getFile()).size === 0) return null;
  const parts = readAll(handle).then(unpack);
  parts.catch(() => {}); // a failed read fails the restore, which boots without it
  return { parts };
}

/**
 * Store Pyodide's `snapshot` (pyodide.makeMemorySnapshot()) of the runtime `key`, its `link` state
 * and `site` (the uncompressed bytes of site-packages' files, js-shim/engine/site-bundle.mjs), in place
 * of any other.
 */
export async function writeSnapshot({ key, snapshot, link, site }) {
  const header = snapshot.subarray(0, new DataView(snapshot.buffer, snapshot.byteOffset, 8).getUint32(4, true));
  const heap = snapshot.subarray(header.length); // a whole number of 64 KiB pages, 16-byte aligned
  const words = new Uint32Array(heap.buffer, heap.byteOffset, heap.length / 4);
  const pages = new Uint8Array(heap.length / PAGE);
  const stored = [];
  for (let i = 0; i < pages.length; i++) {
    for (let w = i * (PAGE / 4); w < (i + 1) * (PAGE / 4); w++) {
      if (words[w]) {
        pages[i] = 1;
        stored.push(heap.subarray(i * PAGE, (i + 1) * PAGE));
        break;
      }
    }
  }
  const linkBytes = new TextEncoder().encode(JSON.stringify(link));
  const sizes = { key, link: linkBytes.length, site: site.length, header: header.length, pages: pages.length, data: stored.length * PAGE };
  const index = new TextEncoder().encode(JSON.stringify(sizes));
  const head = new Uint8Array(8);
  new DataView(head.buffer).setUint32(0, MAGIC, true);
  new DataView(head.buffer).setUint32(4, index.length, true);
  const parts = [];
  let length = 0;
  for (const part of [head, index, linkBytes, site, "pad", header, pages, "pad", ...stored]) {
    const bytes = part === "pad" ? new Uint8Array(Math.ceil(length / 8) * 8 - length) : part;
    parts.push(bytes);
    length += bytes.length;
  }
  const writable = await (await (await root()).getFileHandle(NAME, { create: true })).createWritable();
  await writable.write(new Blob(parts)); // one write: each is a round trip to the browser
  await writable.close();
}

// Restores that failed, per runtime (issue 27): a restore that keeps failing in some browser would
// otherwise make and store a new snapshot at every boot (~1.5 s of CPU each time). One small
// file beside the snapshot, {runtime, failures}: the failures in a row of the runtime `runtime`
// (a restore that works, or another runtime, starts the count again).
const FAILURES = "firefight-engine-snapshot-failures.json";
/** Failed restores in a row after which a runtime makes no more snapshots in this browser. */
export const MAX_RESTORE_FAILURES = 2;

/** {runtime, failures} as stored, or null (none stored, or unreadable). */
export async function readFailures() {
  try {
    const file = await (await (await root()).getFileHandle(FAILURES)).getFile();
    const { runtime, failures } = JSON.parse(await file.text());
    return typeof runtime === "string" && Number.isInteger(failures) ? { runtime, failures } : null;
  } catch {
    return null;
  }
}

/** Count one more failed restore of the runtime `runtime` -> the failures in a row now. */
export async function noteFailure(runtime) {
  const known = await readFailures();
  const failures = known?.runtime === runtime ? known.failures + 1 : 1;
  const writable = await (await (await root()).getFileHandle(FAILURES, { create: true })).createWritable();
  await writable.write(JSON.stringify({ runtime, failures }));
  await writable.close();
  return failures;
}

/** Forget the failures counted (a restore worked). */
export async function forgetFailures() {
  try {
    await (await root()).removeEntry(FAILURES);
  } catch {
    // none counted
  }
}

/** Forget the stored snapshot (it did not restore). */
export async function forgetSnapshot() {
  try {
    await (await root()).removeEntry(NAME);
  } catch {
    // nothing stored: nothing to forget
  }
}
