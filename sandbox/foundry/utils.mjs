// foundry.utils subset: getProperty, setProperty, mergeObject, deepClone, randomID,
// expandObject, flattenObject, escapeHTML.

export function getProperty(object, key) {
  if (!key || object == null) return undefined;
  if (key in Object(object)) return object[key];
  let target = object;
  for (const p of key.split(".")) {
    if (target == null || typeof target !== "object") return undefined;
    target = target[p];
  }
  return target;
}

export function setProperty(object, key, value) {
  const parts = key.split(".");
  const last = parts.pop();
  let target = object;
  for (const p of parts) {
    if (typeof target[p] !== "object" || target[p] === null) target[p] = {};
    target = target[p];
  }
  const changed = target[last] !== value;
  target[last] = value;
  return changed;
}

export function deepClone(original) {
  if (original === null || typeof original !== "object") return original;
  if (original instanceof Date) return new Date(original);
  if (Array.isArray(original)) return original.map(deepClone);
  if (Object.getPrototypeOf(original) !== Object.prototype) return original;
  const out = {};
  for (const [k, v] of Object.entries(original)) out[k] = deepClone(v);
  return out;
}

export function expandObject(obj) {
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    const value = v && typeof v === "object" && !Array.isArray(v) ? expandObject(v) : v;
    setProperty(out, k, value);
  }
  return out;
}

export function flattenObject(obj, _d = 0) {
  const flat = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length) {
      for (const [ik, iv] of Object.entries(flattenObject(v, _d + 1))) flat[`${k}.${ik}`] = iv;
    } else flat[k] = v;
  }
  return flat;
}

function isPlain(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** mergeObject(original, other, {insertKeys, insertValues, overwrite, recursive, inplace, performDeletions}) */
export function mergeObject(original, other = {}, {
  insertKeys = true, insertValues = true, overwrite = true, recursive = true, inplace = true, performDeletions = false,
} = {}) {
  other = other || {};
  if (!inplace) original = deepClone(original);
  if (Object.keys(other).some((k) => k.includes("."))) other = expandObject(other);
  for (const [k, v] of Object.entries(other)) {
    if (performDeletions && k.startsWith("-=")) {
      delete original[k.slice(2)];
      continue;
    }
    const exists = k in original;
    if (!exists && !insertKeys) continue;
    if (exists && recursive && isPlain(original[k]) && isPlain(v)) {
      mergeObject(original[k], v, { insertKeys: insertValues, insertValues, overwrite, recursive, inplace: true, performDeletions });
    } else if (!exists && recursive && performDeletions && isPlain(v)) {
      original[k] = mergeObject({}, v, { insertKeys: true, insertValues, overwrite, recursive, inplace: true, performDeletions });
    } else if (!exists || overwrite) {
      original[k] = deepClone(v);
    }
  }
  return original;
}

export function randomID(length = 16) {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => chars[b % chars.length]).join("");
}

export function escapeHTML(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// foundry.utils.getRoute(path, {prefix}): "Get the URL route for a certain path which includes a
// path prefix, if one is set"; returns "The absolute URL path" (foundryvtt.com/api/functions/
// foundry.utils.getRoute.html). Foundry's prefix is its routePrefix server option; the sandbox's is
// the folder its page is served from (tools/serve.py --route-prefix: the page is /PREFIX/).
export function getRoute(path, { prefix } = {}) {
  prefix ??= globalThis.location ? new URL(".", globalThis.location.href).pathname : "";
  const parts = [String(prefix ?? "").replace(/^\/+|\/+$/g, ""), String(path ?? "").replace(/^\/+/, "")];
  return `/${parts.filter(Boolean).join("/")}`;
}
