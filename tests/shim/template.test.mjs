// Areas placed by hand and several targets in one shot (js-shim/canvas/template.mjs): what "Place area"
// places for an action, an explosion's reach before it is resolved, the arc a set of targets
// spans, whether a shot may go at several targets, and a dialog's values split for the action.
import { test } from "node:test";
import assert from "node:assert/strict";
import { placementFor, placeFitsWeapon, explosionReachM, arcSpreadDeg, severalTargets, severalTargetsError, splitChoice, endLayerDrag } from "../../js-shim/canvas/template.mjs";

const DPV_LIKE = {
  areaFire: { action: "area_fire", diameterM: 10 },
  explosion: { action: "explosion", power: "ep", tamped: "tamped",
    concussionReach: [{ ep: 1, reach_m: 5 }, { ep: 4, reach_m: 10 }], concussionReachTamped: [{ ep: 1, reach_m: 2 }] },
  multiTarget: { shots: "shots", budget: "rof", arcDeg: 30 },
};

test("Place area: area fire from the Shoot dialog and the area-fire action, the blast for the explosion action", () => {
  assert.deepEqual(placementFor(DPV_LIKE, "attack"), { kind: "areaFire", radiusM: 5 });
  assert.deepEqual(placementFor(DPV_LIKE, "area_fire"), { kind: "areaFire", radiusM: 5 });
  assert.deepEqual(placementFor(DPV_LIKE, "explosion"), { kind: "explosion", power: "ep" });
  assert.equal(placementFor(DPV_LIKE, "task"), null);
  // A ruleset that declares neither places nothing (the dialogs offer no button).
  assert.equal(placementFor({}, "attack"), null);
  assert.equal(placementFor({ areaFire: { action: "area_fire", diameterM: 0 } }, "attack"), null);
});

test("Place area fits no weapon that explodes: a grenade is thrown, not fired as area fire (issue 25 item 2)", () => {
  assert.equal(placeFitsWeapon(DPV_LIKE, "attack", { ep: 0.5, rof: 1 }), false);
  assert.equal(placeFitsWeapon(DPV_LIKE, "attack", { afv: 2 }), true);
  assert.equal(placeFitsWeapon(DPV_LIKE, "attack", null), true);
  // The explosion action's own placement (a point for its blast) stays.
  assert.equal(placeFitsWeapon(DPV_LIKE, "explosion", {}), true);
  assert.equal(placeFitsWeapon(DPV_LIKE, "task", {}), false);
});

test("an explosion's reach before the resolve: the last declared step at or under its power, tamped steps when tamped", () => {
  assert.equal(explosionReachM(DPV_LIKE.explosion, 3), 5);
  assert.equal(explosionReachM(DPV_LIKE.explosion, 4), 10);
  assert.equal(explosionReachM(DPV_LIKE.explosion, 4, true), 2);
  assert.equal(explosionReachM(DPV_LIKE.explosion, 0.5), 0);
});

test("the arc a set of targets spans, seen from the shooter (across the 0° bearing too)", () => {
  const o = { x: 0, y: 0 };
  assert.equal(arcSpreadDeg(o, [{ x: 10, y: 0 }]), 0);
  assert.equal(arcSpreadDeg(o, [{ x: 10, y: 0 }, { x: 0, y: 10 }]), 90);
  assert.equal(arcSpreadDeg(o, [{ x: 10, y: -1 }, { x: 10, y: 1 }]), 11.42);
  assert.equal(arcSpreadDeg(o, [{ x: 10, y: 0 }, { x: -10, y: 0 }, { x: 0, y: 10 }]), 180);
});

test("several targets: refused without the feature, out of the arc, or over the weapon's shots", () => {
  const o = { x: 0, y: 0 };
  const near = [{ x: 100, y: -10 }, { x: 100, y: 10 }];
  assert.deepEqual(severalTargets(null, o, [near[0]]), { ok: true });
  assert.deepEqual(severalTargets(null, o, near), { ok: false, why: "single", n: 2 });
  assert.deepEqual(severalTargets(DPV_LIKE.multiTarget, o, near, { shots: 2, budget: 4 }), { ok: true });
  assert.deepEqual(severalTargets(DPV_LIKE.multiTarget, o, near, { shots: 3, budget: 4 }), { ok: false, why: "budget", total: 6, budget: 4 });
  const wide = [{ x: 100, y: 0 }, { x: 0, y: 100 }];
  assert.deepEqual(severalTargets(DPV_LIKE.multiTarget, o, wide), { ok: false, why: "arc", arc: 90, max: 30 });
});

test("the refusal names the targeted tokens", () => {
  const single = severalTargetsError({ why: "single", n: 2 }, ["Rhino", "Rifleman"]);
  assert.match(single, /one target/);
  assert.match(single, /Rhino, Rifleman/);
  assert.match(severalTargetsError({ why: "arc", arc: 90, max: 30 }, ["A", "B"]), /90°.*30°/);
  assert.match(severalTargetsError({ why: "budget", total: 6, budget: 4 }, ["A", "B"]), /6 shots at A, B exceed the weapon's 4/);
});

test("a dialog's values split into request fields, options and house-rule options", () => {
  assert.deepEqual(splitChoice({ ep: 2, name: "TNT", "options.tamped": true, "house.laser.on": true }),
    { values: { ep: 2, name: "TNT" }, options: { tamped: true }, house: { laser: { on: true } } });
  assert.deepEqual(splitChoice(undefined), { values: {}, options: {}, house: {} });
});

test("the layer's own drag ends as dnd5e ends it: _onDragLeftCancel on v13, clearPreviewContainer on v14", () => {
  const calls = [];
  const layer = { _onDragLeftCancel: (e) => calls.push(["cancel", e]), clearPreviewContainer: () => calls.push(["clear"]) };
  endLayerDrag(layer, "ev", 13);
  endLayerDrag(layer, "ev", 14);
  assert.deepEqual(calls, [["cancel", "ev"], ["clear"]]);
  endLayerDrag({}, "ev", 14); // a layer without either: nothing to end
});

