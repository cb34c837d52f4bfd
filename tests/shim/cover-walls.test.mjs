// Cover from the scene's walls (cover.mjs): which walls a line of fire crosses (WallData `c`,
// `move`, `dir`, `door`, `ds`), and what cover a wall gives (its own flag, else the ruleset's `wall`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { segmentsCross, sideOf, wallFaces, wallsBetween, wallCover } from "../../js-shim/canvas/cover.mjs";

const from = { x: 0, y: 0 };
const to = { x: 100, y: 0 };

test("a line of fire crosses a wall across it, not one beside it or behind the target", () => {
  assert.equal(segmentsCross(from, to, { x: 50, y: -10 }, { x: 50, y: 10 }), true);
  assert.equal(segmentsCross(from, to, { x: 50, y: 5 }, { x: 50, y: 20 }), false);
  assert.equal(segmentsCross(from, to, { x: 120, y: -10 }, { x: 120, y: 10 }), false);
  assert.equal(segmentsCross(from, to, { x: 50, y: 0 }, { x: 50, y: 10 }), true); // touching
});

test("walls that stop nothing (move 0, an open door) give no cover; the nearest to the target first", () => {
  const across = (x, extra = {}) => ({ c: [x, -10, x, 10], move: 20, ...extra });
  const walls = [across(20, { id: "far" }), across(80, { id: "near" }), across(50, { id: "open", door: 1, ds: 1 }),
    across(60, { id: "ethereal", move: 0 }), across(40, { id: "closed", door: 1, ds: 0 }), { c: [1, 2] }];
  assert.deepEqual(wallsBetween(from, to, walls).map((w) => w.id), ["near", "closed", "far"]);
  assert.deepEqual(wallsBetween(from, to, []), []);
});

test("a one-way wall stops only a line struck from its closed side (WallData dir); thresholds do not count", () => {
  // c from (50, 10) to (50, -10): on screen (y down) a wall drawn upwards, whose left is west:
  // orient2dFast's "C lies to the left of AB" is positive for the shooter at x 0.
  assert.ok(sideOf({ x: 50, y: 10 }, { x: 50, y: -10 }, from) > 0);
  assert.ok(sideOf({ x: 50, y: 10 }, { x: 50, y: -10 }, to) < 0);
  const up = (dir, id) => ({ id, c: [50, 10, 50, -10], move: 20, dir });
  assert.equal(wallFaces(up(1, "left"), from), true);
  assert.equal(wallFaces(up(2, "right"), from), false);
  assert.equal(wallFaces(up(0, "both"), from), true);
  assert.deepEqual(wallsBetween(from, to, [up(0, "both"), up(1, "left"), up(2, "right")]).map((w) => w.id).sort(), ["both", "left"]);
  // The other way round: a shot from x 100 towards x 0 strikes the right side.
  assert.deepEqual(wallsBetween(to, from, [up(1, "left"), up(2, "right")]).map((w) => w.id), ["right"]);
  // A proximity window (sight 30 with a threshold) is solid to a shot: threshold is for senses.
  const window = { id: "window", c: [50, 10, 50, -10], move: 20, sight: 30, threshold: { sight: 30 } };
  assert.deepEqual(wallsBetween(from, to, [window]).map((w) => w.id), ["window"]);
});

test("a wall's own cover wins over the ruleset's wall cover", () => {
  const spec = { schema: { properties: {} }, wall: { material: "brick_cement", thickness_cm: 20 } };
  assert.deepEqual(wallCover(spec, { c: [0, 0, 1, 1] }, "dpv"), { material: "brick_cement", thickness_cm: 20 });
  const own = { flags: { firefight: { cover: { dpv: { material: "wood", thickness_cm: 5 } } } } };
  assert.deepEqual(wallCover(spec, own, "dpv"), { material: "wood", thickness_cm: 5 });
  assert.equal(wallCover({ schema: { properties: {} } }, {}, "dpv"), null);
});
