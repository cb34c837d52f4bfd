// Distances on the scene, as requests take them: a range between tokens, metres per scene unit.
import { rangeFromMeasure } from "../workflow/request.mjs";
import { unitMetres } from "../world/settings.mjs";
import { unitTable } from "../world/catalog.mjs";
import { metresBetween, pixelsPerMetre } from "../core/geometry.mjs";
import { t } from "../core/i18n.mjs";

/**
 * Distance between two tokens on the scene, as a request range: the straight line between their
 * centres (GridMeasurePathResult#euclidean), whatever the scene's diagonal rule (`distance` counts
 * a diagonal as one square on a default v13 scene, CONST.GRID_DIAGONALS.EQUIDISTANT).
 */
export function measureRange(a, b) {
  const path = canvas.grid.measurePath([a.center, b.center]);
  return rangeFromMeasure(path.euclidean, canvas.scene?.grid?.units ?? canvas.grid.units, unitMetres());
}

/**
 * Pure: metres per scene unit: the world's setting (> 0), else the unit name in the engine's
 * table (the catalog's `units`, keys lower case); null when neither knows it.
 */
export function metresPerUnit(units, setting = 0, table = {}) {
  if (setting > 0) return setting;
  const factor = table[String(units ?? "").trim().toLowerCase()];
  return Number.isFinite(factor) && factor > 0 ? factor : null;
}

/** Metres per scene unit on the scene shown; an error naming the unit when nothing knows it. */
export function metresPerSceneUnit() {
  const units = canvas.scene?.grid?.units ?? canvas.grid?.units ?? "";
  const m = metresPerUnit(units, unitMetres(), unitTable());
  if (m === null) throw new Error(t("FIREFIGHT.ui.actions.error.units", "Scene units {units} cannot be turned into metres: set Firefight's unit setting.", { units }));
  return m;
}

/** Metres from a token (or a scene point) to a token. */
export function metresTo(from, tok) {
  const ppm = pixelsPerMetre(canvas.grid, metresPerSceneUnit());
  if (from && !from.center) return metresBetween(from, tok.center, ppm);
  return Math.round(metresBetween(from.center, tok.center, ppm) * 100) / 100;
}
