// Per-token cover: the referee marks what each token is behind, in a form built from the schema
// the ruleset declares (`features.cover`), kept in the token's flag flags.firefight.cover.<ruleset>
// (a token's own: an unlinked token keeps its own, v13 TokenDocument flags), and sent with the
// token wherever the ruleset's requests take it:
//   schema    one cover entry's JSON schema (the editor's fields)
//   maxItems  the token keeps a list of up to this many entries (else one entry)
//   fixed     fields every entry carries, set by the table (not asked)
//   fields    request paths that carry the token's cover: "target.cover", "targets[].cover"
//   options   entry field -> shot option it fills (aimed fire at the token)
//   wall      the entry a scene wall gives a token behind it (a wall's own flag
//             flags.firefight.cover.<ruleset> wins); the referee's cover on a token wins over walls
// The editor is a button on the Token HUD, shown to GMs (v13 "renderTokenHUD" hook, its
// `.col.right` column, as the shot button in firefight.mjs).
import { MODULE_ID } from "../core/config.mjs";
import { tableFeatures, currentRuleset } from "../world/catalog.mjs";
import { t } from "../core/i18n.mjs";
import { escapeHTML, fieldsFromSchema, resolveRef } from "../core/form.mjs";
import { participantExtras } from "../workflow/request.mjs";
import { sceneOptionProviders } from "../workflow/hooks.mjs";
import { reportError } from "../core/errors.mjs";

const localize = (k) => game.i18n.localize(k);
const isObject = (v) => Boolean(v) && typeof v === "object" && !Array.isArray(v);

// --- pure ----------------------------------------------------------------------------------------

/** Pure: a ruleset's cover declaration, or null when it has none (or one without a schema). */
export function coverSpec(features) {
  const spec = features?.cover;
  return isObject(spec) && isObject(spec.schema?.properties) ? spec : null;
}

/** Pure: the cover kept on a token document for a ruleset (a list, one entry, or null). */
export function tokenCover(doc, ruleset) {
  return doc?.flags?.[MODULE_ID]?.cover?.[ruleset] ?? null;
}

/** Pure: a kept cover as a list of entries (one entry or none for a single-entry ruleset). */
export function coverEntries(cover) {
  if (Array.isArray(cover)) return cover.filter(isObject);
  return isObject(cover) ? [cover] : [];
}

/**
 * Pure: the editor's fields from the entry schema: what form.mjs offers (select, number,
 * checkbox), a text box for a string and a set of checkboxes for a list of choices; fixed
 * fields are not asked.
 */
export function coverFields(spec, localizeFn = (k) => k) {
  const schema = spec.schema;
  const fixed = spec.fixed ?? {};
  const simple = new Map(fieldsFromSchema(schema, localizeFn).map((f) => [f.name, f]));
  const required = new Set(schema.required ?? []);
  const out = [];
  for (const [name, raw] of Object.entries(schema.properties)) {
    if (name in fixed) continue;
    const node = resolveRef(raw, schema);
    if (simple.has(name)) {
      out.push({ ...simple.get(name), required: required.has(name) });
      continue;
    }
    const label = node["x-label-key"] && localizeFn(node["x-label-key"]) !== node["x-label-key"]
      ? localizeFn(node["x-label-key"]) : humanize(name);
    const items = node.type === "array" ? resolveRef(node.items ?? {}, schema) : null;
    if (Array.isArray(items?.enum)) {
      const keys = items["x-enum-label-keys"] ?? [];
      const choices = items.enum.map((value, i) => ({ value, label: keys[i] && localizeFn(keys[i]) !== keys[i] ? localizeFn(keys[i]) : humanize(value) }));
      out.push({ name, kind: "multi", label, choices, required: required.has(name), min: node.minItems ?? 0 });
    } else if (node.type === "string") {
      out.push({ name, kind: "text", label, default: node.default ?? "", required: required.has(name), maxLength: node.maxLength });
    }
  }
  return out;
}

function humanize(name) {
  const s = String(name).replace(/[_-]+/g, " ").trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * Pure: one row's readings -> an entry (the fixed fields added). raw: {name: string | boolean |
 * string[]} (select: the choice's index). An error names the field a required value is missing
 * from. A row with nothing filled in is null.
 */
export function coverEntry(fields, raw, fixed = {}) {
  const entry = {};
  let filled = false;
  for (const f of fields) {
    const v = raw[f.name];
    if (f.kind === "multi") {
      const chosen = f.choices.map((c) => c.value).filter((c) => (v ?? []).includes(c));
      if (chosen.length) { entry[f.name] = chosen; filled = true; }
    } else if (f.kind === "select") {
      const choice = f.choices[Number(v)];
      if (v !== "" && v !== undefined && choice) { entry[f.name] = choice.value; filled = true; }
    } else if (f.kind === "number") {
      if (v !== "" && v !== undefined && v !== null && Number.isFinite(Number(v))) { entry[f.name] = Number(v); filled = true; }
    } else if (f.kind === "checkbox") entry[f.name] = Boolean(v);
    else if (typeof v === "string" && v.trim()) { entry[f.name] = v.trim(); filled = true; }
  }
  if (!filled) return null;
  for (const f of fields) {
    const missing = f.kind === "multi" ? (entry[f.name]?.length ?? 0) < Math.max(1, f.min) : entry[f.name] === undefined;
    if (f.required && missing) {
      throw new Error(t("FIREFIGHT.ui.actions.error.required", "{field} is required.", { field: f.label }));
    }
  }
  return { ...entry, ...fixed };
}

/** Pure: what a token's cover gives a participant at a request path: {field: value} or null. */
export function coverForPath(spec, cover, path) {
  const entries = coverEntries(cover);
  if (!spec || !entries.length) return null;
  const out = {};
  for (const field of spec.fields ?? []) {
    const at = String(field).lastIndexOf(".");
    if (at < 0 || field.slice(0, at) !== path) continue;
    const withFixed = entries.map((e) => ({ ...e, ...(spec.fixed ?? {}) }));
    out[field.slice(at + 1)] = spec.maxItems ? withFixed.slice(0, spec.maxItems) : withFixed[0];
  }
  return Object.keys(out).length ? out : null;
}

// --- cover from the scene's walls -------------------------------------------------------------

/** Pure: do the segments p1-p2 and q1-q2 cross (touching counts)? */
export function segmentsCross(p1, p2, q1, q2) {
  const cross = (o, a, b) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const d1 = cross(q1, q2, p1);
  const d2 = cross(q1, q2, p2);
  const d3 = cross(p1, p2, q1);
  const d4 = cross(p1, p2, q2);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  const on = (a, b, c) => Math.min(a.x, b.x) <= c.x && c.x <= Math.max(a.x, b.x) && Math.min(a.y, b.y) <= c.y && c.y <= Math.max(a.y, b.y);
  return (d1 === 0 && on(q1, q2, p1)) || (d2 === 0 && on(q1, q2, p2)) || (d3 === 0 && on(p1, p2, q1)) || (d4 === 0 && on(p1, p2, q2));
}

// CONST.WALL_DIRECTIONS (foundryvtt.com/api/enums/foundry.CONST.WALL_DIRECTIONS.html): BOTH 0
// "The wall collides from both directions", LEFT 1 "The wall collides only when a ray strikes its
// left side", RIGHT 2 "... its right side" (WallData `dir`: "The direction of effect imposed by
// this wall").
const WALL_LEFT = 1;
const WALL_RIGHT = 2;

/**
 * Pure: which side of the wall A-B a point is on, as foundry.utils.orient2dFast(a, b, c) answers
 * ("A positive value if the points are in counter-clockwise order (C lies to the left of AB)";
 * negative: right; 0: on the line. Foundry's is "adapted from" mourner/robust-predicates, whose
 * orient2dfast this formula is; canvas coordinates, y down).
 */
export function sideOf(a, b, c) {
  return (a.y - c.y) * (b.x - c.x) - (a.x - c.x) * (b.y - c.y);
}

/** Pure: does a wall stop a ray that starts at `from`, given its direction (`dir`)? */
export function wallFaces(wall, from) {
  const dir = wall?.dir ?? 0;
  if (dir !== WALL_LEFT && dir !== WALL_RIGHT) return true;
  const [x0, y0, x1, y1] = wall.c;
  const side = sideOf({ x: x0, y: y0 }, { x: x1, y: y1 }, from);
  return dir === WALL_LEFT ? side > 0 : side < 0;
}

/**
 * Pure: the walls (WallData: `c` [x0, y0, x1, y1], `move`, `dir`, `door`, `ds`) a line of fire from
 * `from` to `to` crosses, nearest the target first. A wall that restricts no movement (`move`
 * 0: CONST.WALL_MOVEMENT_TYPES.NONE), an open door (`ds` 1: CONST.WALL_DOOR_STATES.OPEN), or a
 * one-way wall struck from its open side (`dir`, wallFaces) stops nothing. Proximity thresholds
 * do not apply: WallData `threshold` has only `light`, `sight`, `sound` ("Minimum distance from a
 * vision source for which this wall blocks vision", foundryvtt.com/api/interfaces/
 * foundry.documents.types.WallThresholdData.html), and a shot is stopped as movement is. (The
 * documented WallData is read here: Foundry's collision test answers whether a line is blocked,
 * not by which wall, and a wall's own cover is in its flags.)
 */
export function wallsBetween(from, to, walls) {
  const out = [];
  for (const wall of walls ?? []) {
    const c = wall?.c;
    if (!Array.isArray(c) || c.length !== 4 || wall.move === 0 || (wall.door > 0 && wall.ds === 1)) continue;
    if (!wallFaces(wall, from)) continue;
    const q1 = { x: c[0], y: c[1] };
    const q2 = { x: c[2], y: c[3] };
    if (!segmentsCross(from, to, q1, q2)) continue;
    const mid = { x: (q1.x + q2.x) / 2, y: (q1.y + q2.y) / 2 };
    out.push({ wall, near: Math.hypot(mid.x - to.x, mid.y - to.y) });
  }
  return out.sort((a, b) => a.near - b.near).map((w) => w.wall);
}

/**
 * Pure: the cover a wall gives for a ruleset: the wall's own (flags.firefight.cover.<ruleset>,
 * as a token keeps it), else the ruleset's declared `wall` entry; null when neither.
 */
export function wallCover(spec, wall, ruleset) {
  const own = coverEntries(wall?.flags?.[MODULE_ID]?.cover?.[ruleset]);
  if (own.length) return spec?.maxItems ? own : own[0];
  return isObject(spec?.wall) ? { ...spec.wall } : null;
}

/**
 * The cover a token has against a line of fire from `from` (a scene point): its own, set by the
 * referee, wins; else the nearest wall of the scene the line crosses. -> a kept cover or null.
 */
export function coverAgainst(token, from, ruleset) {
  const doc = token?.document ?? token;
  const own = tokenCover(doc, ruleset);
  if (coverEntries(own).length) return own;
  const spec = coverSpec(tableFeatures(ruleset));
  const walls = [...(doc?.parent?.walls ?? canvas?.scene?.walls ?? [])];
  if (!spec || !from || !token?.center || !walls.length) return null;
  const [wall] = wallsBetween(from, token.center, walls);
  return wall ? wallCover(spec, wall, ruleset) : null;
}

/** What a figure in a list gets from the walls between it and `from`, fields it has not got yet. */
export function wallCoverForPath(token, from, ruleset, path, has = {}) {
  if (coverEntries(tokenCover(token?.document ?? token, ruleset)).length) return null;
  const found = coverForPath(coverSpec(tableFeatures(ruleset)), coverAgainst(token, from, ruleset), path);
  return found ? Object.fromEntries(Object.entries(found).filter(([k]) => has[k] === undefined)) : null;
}

/** Pure: the shot options a token's cover fills (`options`: entry field -> option). */
export function coverOptions(spec, cover) {
  const [entry] = coverEntries(cover);
  if (!spec?.options || !entry) return {};
  const out = {};
  for (const [field, option] of Object.entries(spec.options)) if (field in entry) out[option] = entry[field];
  return out;
}

/** Pure: the editor's HTML: one fieldset per entry (and an empty one to fill in when there is room). */
export function coverRowHTML(fields, entry, index) {
  const id = (name) => `ff-cover-${index}-${name}`;
  const inputs = fields.map((f) => {
    const v = entry?.[f.name];
    let input;
    if (f.kind === "select") {
      input = `<select id="${id(f.name)}" name="${escapeHTML(f.name)}"><option value="">—</option>${f.choices.map((c, i) =>
        `<option value="${i}"${c.value === v ? " selected" : ""}>${escapeHTML(c.label)}</option>`).join("")}</select>`;
    } else if (f.kind === "number") {
      const attrs = [f.min !== undefined ? `min="${f.min}"` : "", f.max !== undefined ? `max="${f.max}"` : "", `step="${f.step ?? "any"}"`].filter(Boolean).join(" ");
      input = `<input type="number" id="${id(f.name)}" name="${escapeHTML(f.name)}" value="${escapeHTML(v ?? "")}" ${attrs}>`;
    } else if (f.kind === "checkbox") {
      input = `<input type="checkbox" id="${id(f.name)}" name="${escapeHTML(f.name)}"${v ? " checked" : ""}>`;
    } else if (f.kind === "multi") {
      input = f.choices.map((c) => `<label class="checkbox"><input type="checkbox" name="${escapeHTML(f.name)}" value="${escapeHTML(c.value)}"${(v ?? []).includes(c.value) ? " checked" : ""}> ${escapeHTML(c.label)}</label>`).join(" ");
    } else {
      input = `<input type="text" id="${id(f.name)}" name="${escapeHTML(f.name)}" value="${escapeHTML(v ?? "")}"${f.maxLength ? ` maxlength="${f.maxLength}"` : ""}>`;
    }
    const labelFor = f.kind === "multi" ? "" : ` for="${id(f.name)}"`;
    return `<div class="form-group" data-field="${escapeHTML(f.name)}"><label${labelFor}>${escapeHTML(f.label)}</label><div class="form-fields">${input}</div></div>`;
  }).join("");
  const legend = escapeHTML(t("FIREFIGHT.ui.cover.entry", "Cover {n}", { n: index + 1 }));
  return `<fieldset class="ff-cover-entry" data-entry="${index}"><legend>${legend}</legend>${inputs}
    <button type="button" data-ff-cover="remove">${escapeHTML(t("FIREFIGHT.ui.cover.remove", "Remove"))}</button></fieldset>`;
}

// --- the table side ------------------------------------------------------------------------------

function readRow(fieldset, fields, fixed) {
  const raw = {};
  for (const f of fields) {
    const els = [...fieldset.querySelectorAll(`[name="${CSS.escape(f.name)}"]`)];
    if (f.kind === "multi") raw[f.name] = els.filter((el) => el.checked).map((el) => el.value);
    else if (f.kind === "checkbox") raw[f.name] = Boolean(els[0]?.checked);
    else raw[f.name] = els[0]?.value ?? "";
  }
  return coverEntry(fields, raw, fixed);
}

/** The referee's cover editor for one token. Resolves the saved cover (null: none), or undefined if cancelled. */
export async function editCover(token, ruleset = currentRuleset()) {
  const spec = coverSpec(tableFeatures(ruleset));
  const doc = token?.document ?? token;
  if (!spec || !doc) return undefined;
  if (!game.user?.isGM) {
    ui.notifications?.warn(t("FIREFIGHT.ui.actions.gmOnly", "Only the referee can do that."));
    return undefined;
  }
  const fields = coverFields(spec, localize);
  const most = spec.maxItems ?? 1;
  const kept = coverEntries(tokenCover(doc, ruleset)).slice(0, most);
  const rows = kept.length ? kept : [null];
  const name = doc.name ?? token.name ?? "?";
  const DialogV2 = foundry.applications.api.DialogV2;
  let next = rows.length;
  const result = await DialogV2.wait({
    window: { title: t("FIREFIGHT.ui.cover.title", "Cover: {name}", { name }), icon: "fa-solid fa-shield-halved" },
    classes: ["firefight-dialog", "firefight-cover-dialog"],
    position: { width: 440 },
    content: `<div class="ff-cover" data-ruleset="${escapeHTML(ruleset)}"><div class="ff-cover-entries">${rows.map((e, i) => coverRowHTML(fields, e, i)).join("")}</div>
      ${most > 1 ? `<button type="button" data-ff-cover="add">${escapeHTML(t("FIREFIGHT.ui.cover.add", "Add cover"))}</button>` : ""}</div>`,
    render: (event, dialog) => {
      const root = dialog.element ?? event?.target?.element;
      const box = root?.querySelector(".ff-cover-entries");
      root?.querySelector(".ff-cover")?.addEventListener("click", (ev) => {
        const what = ev.target?.closest?.("[data-ff-cover]")?.dataset.ffCover;
        if (what === "remove") ev.target.closest("fieldset")?.remove();
        else if (what === "add" && box.children.length < most) box.insertAdjacentHTML("beforeend", coverRowHTML(fields, null, next++));
        if (what === "add") box.lastElementChild?.querySelector("input, select")?.focus();
      });
    },
    buttons: [
      { action: "save", label: t("FIREFIGHT.ui.cover.save", "Save cover"), icon: "fa-solid fa-check", default: true,
        callback: (event, button) => ({ entries: [...button.form.querySelectorAll("fieldset.ff-cover-entry")]
          .map((fs) => readRow(fs, fields, spec.fixed ?? {})).filter(Boolean) }) },
      { action: "cancel", label: t("FIREFIGHT.ui.dialog.cancel", "Cancel"), icon: "fa-solid fa-xmark" },
    ],
    rejectClose: false,
  });
  if (!isObject(result)) return undefined;
  const value = result.entries.length ? (spec.maxItems ? result.entries.slice(0, most) : result.entries[0]) : null;
  if (value === null) await doc.unsetFlag(MODULE_ID, `cover.${ruleset}`);
  else await doc.setFlag(MODULE_ID, `cover.${ruleset}`, value);
  ui.notifications?.info(value === null ? t("FIREFIGHT.ui.cover.cleared", "{name}: no cover.", { name })
    : t("FIREFIGHT.ui.cover.saved", "{name}: cover saved.", { name }));
  return value;
}

/** renderTokenHUD: a cover button for GMs when the world's ruleset declares cover. */
function onRenderTokenHUD(hud, html) {
  if (!game.user?.isGM || !coverSpec(tableFeatures(currentRuleset()))) return;
  const root = html instanceof HTMLElement ? html : html?.[0];
  const col = root?.querySelector?.(".col.right");
  if (!col || col.querySelector("[data-firefight-action=cover]")) return;
  const label = t("FIREFIGHT.ui.cover.button", "Cover");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "control-icon";
  button.dataset.firefightAction = "cover";
  button.dataset.tooltip = label;
  button.setAttribute("aria-label", label);
  button.innerHTML = '<i class="fa-solid fa-shield-halved"></i>';
  button.addEventListener("click", (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    editCover(hud.object ?? hud.token).catch((err) => reportError(err));
  });
  col.append(button);
}

export function installCover(api) {
  // A participant at a declared path takes its token's cover (request.mjs `combatant`).
  participantExtras.push((token, ruleset, path) => coverForPath(coverSpec(tableFeatures(ruleset)), tokenCover(token?.document ?? token, ruleset), path));
  // Aimed fire at a token behind cover: the options its cover fills (kept when the dialog has them).
  // Its own cover, else a wall of the scene between the shooter and it.
  sceneOptionProviders.push(({ ruleset, a, b }) => coverOptions(coverSpec(tableFeatures(ruleset)), coverAgainst(b, a?.center, ruleset)));
  Hooks.on("renderTokenHUD", (hud, html) => {
    try {
      onRenderTokenHUD(hud, html);
    } catch (err) {
      console.error("Firefight |", err);
    }
  });
}
