// Pure geometry for the table: facing arcs, deviation offsets, blast circles.
// Scene coordinates: x to the right, y down (Foundry's canvas). Foundry's token `rotation`:
// 0 = facing down (south), degrees clockwise on the screen.

/** Angle in degrees normalised to [-180, 180). */
export function normalizeDeg(deg) {
  let a = ((Number(deg) % 360) + 360) % 360;
  if (a >= 180) a -= 360;
  return Math.round(a * 1e6) / 1e6;
}

/** Screen direction (degrees clockwise from +x) a token with Foundry `rotation` faces. */
export function facingScreenDeg(rotation = 0) {
  return 90 + Number(rotation || 0);
}

/**
 * The angle from the shooter's facing to the target, −180..180 (positive: clockwise on the map).
 * from/to: {x, y} centres; rotation: the shooter token's Foundry rotation.
 */
export function bearingDeg(from, to, rotation = 0) {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  if (dx === 0 && dy === 0) return 0;
  const toTarget = (Math.atan2(dy, dx) * 180) / Math.PI;
  return normalizeDeg(toTarget - facingScreenDeg(rotation));
}

/**
 * A deviation in the firer's frame (forward_m along the line of fire, right_m to the firer's
 * right) -> the landing point in scene pixels, from the aimed point.
 * pxPerMetre: scene pixels per metre.
 */
export function deviatedPoint(firer, aim, forwardM, rightM, pxPerMetre) {
  const dx = aim.x - firer.x;
  const dy = aim.y - firer.y;
  const len = Math.hypot(dx, dy) || 1;
  const fx = dx / len;
  const fy = dy / len;
  // Right of the direction of fire, with y down: rotate forward by +90° on the screen.
  const rx = -fy;
  const ry = fx;
  return {
    x: aim.x + (fx * forwardM + rx * rightM) * pxPerMetre,
    y: aim.y + (fy * forwardM + ry * rightM) * pxPerMetre,
  };
}

/** Distance in metres between two scene points. */
export function metresBetween(a, b, pxPerMetre) {
  return Math.round((Math.hypot(b.x - a.x, b.y - a.y) / pxPerMetre) * 100) / 100;
}

/** Scene pixels per metre for a grid ({size, distance}) whose units are `metresPerUnit` metres. */
export function pixelsPerMetre(grid, metresPerUnit = 1) {
  return grid.size / (grid.distance * (metresPerUnit || 1));
}

/** Is a point inside a circle (inclusive)? */
export function inCircle(point, centre, radius) {
  return Math.hypot(point.x - centre.x, point.y - centre.y) <= radius + 1e-9;
}
