// canvas.grid: a square grid and its measurePath, as Foundry v13 documents them.
//   SquareGridConfiguration.diagonals: "The rule for diagonal measurement (see
//     CONST.GRID_DIAGONALS). Default: CONST.GRID_DIAGONALS.EQUIDISTANT."
//     (foundryvtt.com/api/interfaces/foundry.grid.types.SquareGridConfiguration.html)
//   CONST.GRID_DIAGONALS: EQUIDISTANT 0 (a diagonal is 1), EXACT 1 (√2), APPROXIMATE 2 (1.5),
//     RECTILINEAR 3 (2), ALTERNATING_1 4 (1, 2, 1, ...), ALTERNATING_2 5 (2, 1, 2, ...), ILLEGAL 6
//     (no diagonal moves) (foundryvtt.com/api/v14/variables/CONST.GRID_DIAGONALS.html,
//     foundryvtt.com/api/enums/foundry.CONST.GRID_DIAGONALS.html).
//   GridMeasurePathResult {waypoints, segments, distance, cost, spaces, diagonals, euclidean}:
//     `distance` is travelled along the grid (the diagonal rule counts), `euclidean` is "the total
//     Euclidean length of the straight line path through all waypoints"; `spaces`: "moving from
//     a grid space to any of its neighbors counts as 1 step"
//     (foundryvtt.com/api/interfaces/foundry.grid.types.GridMeasurePathResult.html).

export const GRID_DIAGONALS = Object.freeze({
  EQUIDISTANT: 0, EXACT: 1, APPROXIMATE: 2, RECTILINEAR: 3, ALTERNATING_1: 4, ALTERNATING_2: 5, ILLEGAL: 6,
});

/** A diagonal rule from a number or a CONST.GRID_DIAGONALS name (e.g. "EXACT"); null if none. */
export function diagonalRule(value) {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "string" && value.toUpperCase() in GRID_DIAGONALS) return GRID_DIAGONALS[value.toUpperCase()];
  const n = Number(value);
  if (!Object.values(GRID_DIAGONALS).includes(n)) {
    throw new Error(`Sandbox: grid.diagonals ${JSON.stringify(value)} is not one of CONST.GRID_DIAGONALS (${Object.keys(GRID_DIAGONALS).join(", ")})`);
  }
  return n;
}

/** Square grid (type 1) measuring by the scene's diagonal rule. */
export class SquareGrid {
  constructor({ size = 100, distance = 5, units = "m", diagonals } = {}) {
    Object.assign(this, { type: 1, size, sizeX: size, sizeY: size, distance, units });
    this.diagonals = diagonalRule(diagonals) ?? GRID_DIAGONALS.EQUIDISTANT;
  }
  isSquare = true;
  isGridless = false;
  isHexagonal = false;
  getOffset({ x, y }) {
    return { i: Math.floor(y / this.size), j: Math.floor(x / this.size) };
  }
  getCenterPoint({ i, j }) {
    return { x: (j + 0.5) * this.size, y: (i + 0.5) * this.size };
  }
  getTopLeftPoint({ i, j }) {
    return { x: j * this.size, y: i * this.size };
  }

  /** Grid spaces travelled for `n` diagonal moves, the `before` diagonals of the path counted. */
  _diagonalSpaces(n, before) {
    const D = GRID_DIAGONALS;
    switch (this.diagonals) {
      case D.EXACT: return n * Math.SQRT2;
      case D.APPROXIMATE: return n * 1.5;
      case D.RECTILINEAR: return n * 2;
      case D.ALTERNATING_1:
      case D.ALTERNATING_2: {
        let spaces = 0;
        for (let k = before + 1; k <= before + n; k++) {
          const odd = k % 2 === 1;
          spaces += (this.diagonals === D.ALTERNATING_1) === odd ? 1 : 2;
        }
        return spaces;
      }
      default: return n; // EQUIDISTANT
    }
  }

  /** measurePath(waypoints) -> {waypoints, segments, distance, cost, spaces, diagonals, euclidean} */
  measurePath(waypoints, _options = {}) {
    const segments = [];
    const total = { distance: 0, spaces: 0, diagonals: 0, euclidean: 0 };
    for (let k = 1; k < waypoints.length; k++) {
      const from = waypoints[k - 1];
      const to = waypoints[k];
      const a = this.getOffset(from);
      const b = this.getOffset(to);
      const di = Math.abs(b.i - a.i);
      const dj = Math.abs(b.j - a.j);
      const illegal = this.diagonals === GRID_DIAGONALS.ILLEGAL;
      const diagonals = illegal ? 0 : Math.min(di, dj);
      const straight = illegal ? di + dj : Math.max(di, dj) - diagonals;
      const spaces = straight + diagonals;
      const distance = (straight + this._diagonalSpaces(diagonals, total.diagonals)) * this.distance;
      const euclidean = (Math.hypot(to.x - from.x, to.y - from.y) / this.size) * this.distance;
      segments.push({ from, to, distance, cost: distance, spaces, diagonals, euclidean });
      total.distance += distance;
      total.spaces += spaces;
      total.diagonals += diagonals;
      total.euclidean += euclidean;
    }
    return { waypoints, segments, ...total, cost: total.distance };
  }
}
