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
// - foundryvtt.com/article/module-development/: a module's `id` "must match exactly with the name of
//   your module directory"; `relationships`: "If a module has been installed with dependencies,
//   but its dependencies are missing, it cannot be enabled"; "Dependency entries require the id
//   attribute"; "By default dependencies are assumed to be a module".
// - foundryvtt.com/article/modules/ (Manage Modules): enabling a module with dependencies prompts
//   to enable them; the form refuses "You have enabled the module X, but its dependencies Y are not
//   enabled!" (v13.346's message, quoted in foundryvtt/foundryvtt#13197); a world loads with a
//   module disabled when its required dependency is not satisfied (#9514, #8556).

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
export async function manifestErrors(manifest, { exists, folder } = {}) {
  const errors = [];
  if (!manifest || typeof manifest !== "object" || Array.isArray(manifest)) return ["The package manifest is not a JSON object"];
  for (const field of ["id", "title", "version"]) {
    if (!isString(manifest[field])) errors.push(`The package manifest must declare a "${field}" string`);
  }
  if (isString(manifest.id) && !ID_RE.test(manifest.id)) {
    errors.push(`The package id "${manifest.id}" must be lower-case with no spaces or special characters`);
  }
  // module-development: the id "must match exactly with the name of your module directory".
  if (folder !== undefined && isString(manifest.id) && manifest.id !== folder) {
    errors.push(`The package id "${manifest.id}" must match the name of its folder "${folder}"`);
  }
  const rel = manifest.relationships;
  if (rel !== undefined && (!rel || typeof rel !== "object" || Array.isArray(rel))) errors.push(`"relationships" must be an object {systems, requires, recommends, conflicts}`);
  for (const key of ["systems", "requires", "recommends", "conflicts"]) {
    const list = rel?.[key];
    if (list === undefined || !rel || typeof rel !== "object") continue;
    if (!Array.isArray(list)) {
      errors.push(`relationships.${key} must be a list`);
      continue;
    }
    // "Dependency entries require the id attribute."
    for (const [i, dep] of list.entries()) if (!isString(dep?.id)) errors.push(`relationships.${key}[${i}] must declare an "id" string`);
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

/**
 * The `game.modules` entry of a module: v13's Module exposes its manifest's fields (`id`, `title`,
 * `version`, `esmodules`, `languages`, `flags`, `relationships`, ...) and whether it is `active`
 * in this world (foundryvtt/dnd5e module/module-art.mjs reads `module.flags`, `module.id`,
 * `module.title` and `module.active` for every module of `game.modules`); absent lists are empty.
 */
export function moduleEntry(manifest, active) {
  return {
    ...manifest, type: "module", active: Boolean(active),
    flags: manifest.flags ?? {}, esmodules: manifest.esmodules ?? [], scripts: manifest.scripts ?? [],
    styles: manifest.styles ?? [], languages: manifest.languages ?? [], packs: manifest.packs ?? [],
    relationships: manifest.relationships ?? {},
  };
}

/** A required dependency: a module unless `type` says otherwise ("By default dependencies are
 * assumed to be a module"). */
const depType = (dep) => dep?.type ?? "module";

/**
 * Enabling modules as Manage Modules does: each wanted module (valid manifests, in the order asked)
 * becomes active only if every module it requires is active too (and every system it requires, or
 * one of its `relationships.systems`, is the world's); a module whose dependency is refused is
 * refused in turn. Pure.
 * @param {object[]} manifests      the wanted modules' manifests
 * @param {{active?: string[], systemId?: string}} world  modules already active (Firefight) and the
 *   world's system
 * @returns {{active: object[], refused: {id: string, title: string, error: string}[]}}  `active` in
 *   load order: a module after the modules it requires
 */
export function resolveModules(manifests, { active = [], systemId = "" } = {}) {
  const on = new Set(active);
  const pending = new Map(manifests.map((m) => [m.id, m]));
  const refused = [];
  const unmet = (m) => (m.relationships?.requires ?? []).filter((dep) =>
    (depType(dep) === "system" ? dep.id !== systemId : depType(dep) === "module" && !on.has(dep.id)));
  const order = [];
  // Activate in rounds: whatever has all its requirements active; the rest waits for the next round.
  for (let progress = true; progress && pending.size;) {
    progress = false;
    for (const [id, m] of pending) {
      if (unmet(m).length) continue;
      const systems = m.relationships?.systems ?? [];
      pending.delete(id);
      progress = true;
      if (systems.length && !systems.some((s) => s.id === systemId)) {
        refused.push({ id, title: m.title, error: `The module ${m.title} cannot be enabled in a world of the system "${systemId}": it supports ${systems.map((s) => s.id).join(", ")}` });
        continue;
      }
      on.add(id);
      order.push(m);
    }
  }
  // Foundry's Manage Modules refuses the form with this message (v13, foundryvtt/foundryvtt#13197).
  for (const m of pending.values()) {
    const missing = unmet(m).map((dep) => dep.id);
    refused.push({ id: m.id, title: m.title, error: `You have enabled the module ${m.title}, but its dependencies ${missing.join(", ")} are not enabled!` });
  }
  return { active: order, refused };
}
