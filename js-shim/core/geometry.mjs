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

/**
 * Pure: where a point lies along the segment a -> b: `t` (0 at a, 1 at b; beyond 1 past b) and
 * `off`, its distance from the infinite line through a and b.
 */
export function alongLine(p, a, b) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy || 1;
  const t = ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2;
  const off = Math.abs((p.x - a.x) * dy - (p.y - a.y) * dx) / Math.sqrt(len2);
  return { t, off };
}

/**
 * Pure: the tokens an area of fire touches, from the weapon at `weapon` at a circle (`centre`,
 * `radius`, scene pixels): "inside" the circle; on the "line" from the weapon to the circle (the
 * line crosses the token: within its half-size of it); "beyond" the circle on the same line.
 * tokens: [{id, center, half}] -> [{id, where, px}] (px: from the weapon), nearest first.
 */
export function areaPlaces(weapon, centre, radius, tokens) {
  const out = [];
  for (const tk of tokens) {
    const px = Math.hypot(tk.center.x - weapon.x, tk.center.y - weapon.y);
    if (inCircle(tk.center, centre, radius)) {
      out.push({ id: tk.id, where: "inside", px });
      continue;
    }
    const { t, off } = alongLine(tk.center, weapon, centre);
    if (t <= 0 || off > (tk.half ?? 0) + 1e-9) continue;
    out.push({ id: tk.id, where: t < 1 ? "line" : "beyond", px });
  }
  return out.sort((a, b) => a.px - b.px);
}
