// Package manifests: the checks Foundry's server makes before it loads a module, and which of its
// compendium packs a world gets. Pure functions (Node imports this file too: the module zip's test
// runs the same validation), so nothing here touches a browser global at import time.
//
// Sources (sandbox/README.md, "Packages"):
// - PackageManifestData (foundryvtt.com/api/interfaces/foundry.packages.types.PackageManifestData.html):
//   `id`, `title`, `version` are required strings; `compatibility`, `esmodules`, `styles`,
//   `languages`, `packs`, `packFolders` optional, with the shapes below.
// - PackageCompendiumData (foundryvtt.com/api/interfaces/foundry.packages.types.PackageCompendiumData.html):
//   `name` "should contain no spaces or special characters", `label`, `path`, `type` required;
//   `system` "Required for "Actor" and "Item" packs".
// - foundryvtt/foundryvtt#7636 (strict requirement that Actor and Item packs declare their
//   system), #8037 (such packs "fail to fetch"), #13505 (open: asks to relax it); the message, as
//   users meet it: CurtR95/FVTT-Dishonored#115.

/** Compendium types that must name the system they depend on (v13: Actor and Item, #7636). */
export const SYSTEM_SPECIFIC_PACK_TYPES = ["Actor", "Item"];
// CONST.COMPENDIUM_DOCUMENT_TYPES (foundryvtt.com/api/variables/CONST.COMPENDIUM_DOCUMENT_TYPES.html, v13).
const PACK_TYPES = ["Actor", "Adventure", "Cards", "Item", "JournalEntry", "Macro", "Playlist", "RollTable", "Scene"];
// "no spaces or special characters"
const NAME_RE = /^[A-Za-z0-9_-]+$/;
// "The machine-readable unique package id, should be lower-case with no spaces or special characters"
const ID_RE = /^[a-z0-9_-]+$/;

export class PackageValidationError extends Error {
  constructor(message, errors = [message]) {
    super(message);
    this.name = "PackageValidationError";
    this.errors = errors;
  }
}

const isString = (v) => typeof v === "string" && v.trim() !== "";

/**
 * Every rule the manifest breaks, as Foundry words them where its wording is public.
 * @param {object} manifest  module.json
 * @param {{exists?: (path: string, opts: {directory?: boolean}) => boolean|Promise<boolean>}} [opts]
 *   does a path the manifest names exist in the package (esmodules, styles, languages; a pack's
 *   folder: `directory`)?
 * @returns {Promise<string[]>}
 */
export async function manifestErrors(manifest, { exists } = {}) {
  const errors = [];
  if (!manifest || typeof manifest !== "object") return ["The package manifest is not a JSON object"];
  for (const field of ["id", "title", "version"]) {
    if (!isString(manifest[field])) errors.push(`The package manifest must declare a "${field}" string`);
  }
  if (isString(manifest.id) && !ID_RE.test(manifest.id)) {
    errors.push(`The package id "${manifest.id}" must be lower-case with no spaces or special characters`);
  }
  const compat = manifest.compatibility;
  if (compat !== undefined) {
    if (!compat || typeof compat !== "object") errors.push(`"compatibility" must be an object {minimum, verified, maximum}`);
    else {
      for (const key of ["minimum", "verified", "maximum"]) {
        const v = compat[key];
        if (v !== undefined && v !== null && !/^\d+(\.\d+)?$/.test(String(v))) errors.push(`compatibility.${key} "${v}" is not a core version (e.g. "13" or "13.345")`);
      }
      const gen = (v) => Number(String(v).split(".")[0]);
      if (compat.minimum != null && compat.maximum != null && gen(compat.minimum) > gen(compat.maximum)) {
        errors.push(`compatibility.minimum ${compat.minimum} is above compatibility.maximum ${compat.maximum}`);
      }
    }
  }
  const paths = [];
  for (const key of ["esmodules", "scripts", "styles"]) {
    const list = manifest[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every(isString)) errors.push(`"${key}" must be a list of file paths`);
    else paths.push(...list.map((p) => [key, p]));
  }
  if (manifest.languages !== undefined) {
    if (!Array.isArray(manifest.languages)) errors.push(`"languages" must be a list of {lang, name, path}`);
    else {
      for (const [i, l] of manifest.languages.entries()) {
        for (const field of ["lang", "name", "path"]) if (!isString(l?.[field])) errors.push(`languages[${i}] must declare a "${field}" string`);
        if (isString(l?.path)) paths.push([`languages[${i}]`, l.path]);
      }
    }
  }
  const packNames = new Set();
  for (const [i, pack] of (Array.isArray(manifest.packs) ? manifest.packs : []).entries()) {
    const where = `packs[${i}]${isString(pack?.name) ? ` "${pack.name}"` : ""}`;
    for (const field of ["name", "label", "path", "type"]) if (!isString(pack?.[field])) errors.push(`${where} must declare a "${field}" string`);
    if (isString(pack?.name)) {
      if (!NAME_RE.test(pack.name)) errors.push(`The Compendium pack name "${pack.name}" must contain no spaces or special characters`);
      if (packNames.has(pack.name)) errors.push(`The Compendium pack name "${pack.name}" is declared twice`);
      packNames.add(pack.name);
    }
    if (isString(pack?.type) && !PACK_TYPES.includes(pack.type)) errors.push(`The Compendium pack "${pack.name}" has an unknown type "${pack.type}"`);
    // CurtR95/FVTT-Dishonored#115: the message users see when installing such a package.
    if (SYSTEM_SPECIFIC_PACK_TYPES.includes(pack?.type) && !isString(pack.system)) {
      errors.push(`The Compendium pack "${pack.name}" of the "${pack.type}" type must declare the "system" upon which it depends`);
    }
    if (isString(pack?.path)) paths.push([`The Compendium pack "${pack.name}"`, pack.path, true]);
  }
  if (manifest.packs !== undefined && !Array.isArray(manifest.packs)) errors.push(`"packs" must be a list`);
  // PackFolderData: {name, sorting, color, packs, folders}; a folder names packs of this package.
  const walk = (folders, depth) => {
    for (const folder of folders ?? []) {
      if (!isString(folder?.name)) errors.push("A pack folder must declare a \"name\" string");
      if (folder?.sorting !== undefined && !["a", "m"].includes(folder.sorting)) errors.push(`Pack folder "${folder.name}": sorting must be "a" or "m"`);
      for (const name of folder?.packs ?? []) if (!packNames.has(name)) errors.push(`Pack folder "${folder.name}" names the pack "${name}", which the manifest does not declare`);
      // PackFolderData `folders`: "Nested folder data, up to three levels".
      if (depth >= 3 && folder?.folders?.length) errors.push(`Pack folder "${folder.name}" nests deeper than three levels`);
      walk(folder?.folders, depth + 1);
    }
  };
  walk(manifest.packFolders, 1);
  if (exists) {
    const checks = paths.map(async ([what, p, directory]) => {
      if (/^(\/|[a-z]+:)/i.test(p) || p.split("/").includes("..")) return `${what}: "${p}" must be a path relative to the package`;
      return (await exists(p, { directory })) ? null : `${what}: "${p}" does not exist in the package`;
    });
    errors.push(...(await Promise.all(checks)).filter(Boolean));
  }
  return errors;
}

/** Throw Foundry's message for the first rule the manifest breaks (all of them on `.errors`). */
export async function validateManifest(manifest, opts) {
  const errors = await manifestErrors(manifest, opts);
  if (errors.length) throw new PackageValidationError(errors[0], errors);
  return manifest;
}

/** The packs a world of this system gets: those of its system, or of none (PackageCompendiumData
 * `system`: the pack "requires a specific game system to function properly"). */
export function packsForSystem(manifest, systemId) {
  return (manifest.packs ?? []).filter((p) => !p.system || p.system === systemId);
}

/** The pack built from `source` (module.json packs[].flags.firefight.source, or its own name) for
 * the world's system: `?pack=soe-actors` finds soe-actors-<system>. */
export function packFromSource(manifest, source, systemId) {
  const packs = packsForSystem(manifest, systemId);
  return packs.find((p) => p.name === source) ?? packs.find((p) => p.flags?.firefight?.source === source) ?? null;
}
