// Table features driven by declarations: referee actions, roles, sighting max, blast circles and
// reach, the healing clock's "moved", per-token cover.
import { test } from "node:test";
import assert from "node:assert/strict";
import { planRequest, refereeActionsIn, offeredActions, roleFields } from "../../js-shim/workflow/plan.mjs";
import { nextSighting, blastCircles, clockRunning } from "../../js-shim/canvas/features.mjs";
import { reachForPower } from "../../js-shim/canvas/template.mjs";
import { areaPlaces, alongLine } from "../../js-shim/core/geometry.mjs";
import { coverSpec, coverFields, coverEntry, coverForPath, coverOptions, coverEntries } from "../../js-shim/canvas/cover.mjs";

const participant = { type: "object", properties: { name: { type: "string" }, actor_id: { type: "string" }, token_id: { type: "string" } } };

test("refereeActions: one key, a list or action -> spec; the menu offers them to GMs only", () => {
  assert.deepEqual(refereeActionsIn({ refereeActions: ["a", "b"] }), { a: {}, b: {} });
  const shockLike = { refereeActions: { treat: { list: "units", from: "targeted" }, end: { list: "units", from: "scene" } } };
  assert.deepEqual(Object.keys(refereeActionsIn(shockLike)), ["treat", "end"]);
  assert.deepEqual(refereeActionsIn({}), {});
  const actions = ["task", "treat", "end", "sight_in"];
  assert.deepEqual(offeredActions(actions, shockLike, false), ["task", "sight_in"]);
  assert.deepEqual(offeredActions(actions, shockLike, true), actions);
});

test("roles: the declared fields take the acting and the targeted token", () => {
  const task = { properties: { action: { const: "task" }, character: participant, opponent: { anyOf: [participant, { type: "null" }] },
    modifier: { type: "integer" } }, required: ["character"] };
  // Without roles, `opponent` is not a name the shim knows: it is left out.
  assert.equal(planRequest(task, {}).target, null);
  const plan = planRequest(task, {}, { actor: "character", target: "opponent" });
  assert.equal(plan.self, "character");
  assert.equal(plan.target, "opponent");
  assert.equal(plan.targetRequired, false);
  assert.ok(!("opponent" in plan.scalar.properties));
  assert.ok("modifier" in plan.scalar.properties);
  // A targeted role alone: the targeted token, else the selected one.
  const crit = { properties: { action: { const: "critical_point" }, patient: participant }, required: ["patient"] };
  const p2 = planRequest(crit, {}, { target: "patient" });
  assert.deepEqual([p2.self, p2.target, p2.targetRequired, p2.targetOrSelf], [null, "patient", true, true]);
  // A role naming a field the action lacks is ignored.
  assert.equal(roleFields({ actor: "nope" }, crit.properties, {}), null);
});

test("sighting in stops at the declared max", () => {
  assert.equal(nextSighting(undefined, 50), 1);
  assert.equal(nextSighting(49, 50), 50);
  assert.equal(nextSighting(50, 50), 50);
  assert.equal(nextSighting(50, undefined), 51);
});

test("an explosion reaches by the declared concussion steps, and draws every declared ring", () => {
  const steps = [{ ep: 0.25, reach_m: 5 }, { ep: 1, reach_m: 10 }, { ep: 2, reach_m: 15 }];
  assert.equal(reachForPower(steps, 0.1), 0);
  assert.equal(reachForPower(steps, 1), 10);
  assert.equal(reachForPower(steps, 1.9), 10);
  assert.equal(reachForPower(steps, 40), 15);
  const circles = { concussion_reach_m: "concussion", outer_radius_m: "outer", burst_radius_m: "burst" };
  // No fragments: the concussion ring alone, not a 1 m mark (issue 14 defect 4).
  assert.deepEqual(blastCircles(circles, { burst_radius_m: 0, outer_radius_m: 0, concussion_reach_m: 10 }), [{ metres: 10, role: "concussion" }]);
  assert.deepEqual(blastCircles(circles, { burst_radius_m: 5, outer_radius_m: 10, concussion_reach_m: 15 }).map((c) => c.role), ["concussion", "outer", "burst"]);
  assert.deepEqual(blastCircles(circles, {}), [{ metres: 1, role: "impact" }]);
});

test("the healing clock runs from its start condition until an `over` state", () => {
  const spec = { condition: "critical_points", over: ["stabilized", "dead"] };
  assert.equal(clockRunning({}, spec), false);
  const started = { conditions: [{ kind: "critical_points", value: "start" }] };
  assert.equal(clockRunning(started, spec), true);
  assert.equal(clockRunning({ conditions: [...started.conditions, { kind: "state", value: "stabilized" }] }, spec), false);
});

const shockCover = {
  schema: { type: "object", required: ["locations", "stops"], properties: {
    name: { type: "string", default: "", maxLength: 200 },
    locations: { type: "array", minItems: 1, items: { type: "string", enum: ["head", "arm", "leg"] } },
    stops: { type: "string", enum: ["I", "II", "V"] } } },
  fields: ["target.cover"], fixed: { category: "cover" }, maxItems: 20,
};
const dpvCover = {
  schema: { type: "object", required: ["material", "thickness_cm"], properties: {
    material: { type: "string", enum: ["wood", "brick_cement"], "x-label-key": "M" },
    thickness_cm: { type: "number", exclusiveMinimum: 0 } } },
  fields: ["targets[].cover"], options: { material: "cover_material", thickness_cm: "cover_thickness_cm" },
};

test("cover: the editor's fields come from the declared schema", () => {
  assert.equal(coverSpec({}), null);
  assert.equal(coverSpec({ cover: { fields: [] } }), null);
  const fields = coverFields(shockCover);
  assert.deepEqual(fields.map((f) => [f.name, f.kind]), [["name", "text"], ["locations", "multi"], ["stops", "select"]]);
  assert.deepEqual(fields[1].choices.map((c) => c.value), ["head", "arm", "leg"]);
  const entry = coverEntry(fields, { name: "Sandbags", locations: ["leg", "head"], stops: "2" }, shockCover.fixed);
  assert.deepEqual(entry, { name: "Sandbags", locations: ["head", "leg"], stops: "V", category: "cover" });
  assert.equal(coverEntry(fields, { name: "", locations: [], stops: "" }), null);
  assert.throws(() => coverEntry(fields, { name: "Wall", locations: [], stops: "0" }), /Locations/);
  const dpv = coverFields(dpvCover, (k) => (k === "M" ? "Cover material" : k));
  assert.deepEqual(dpv.map((f) => [f.name, f.kind, f.label]), [["material", "select", "Cover material"], ["thickness_cm", "number", "Thickness cm"]]);
  assert.deepEqual(coverEntry(dpv, { material: "1", thickness_cm: "20" }), { material: "brick_cement", thickness_cm: 20 });
});

test("cover: sent where the ruleset declares, as a list or one entry, and as shot options", () => {
  const kept = [{ name: "Sandbags", locations: ["leg"], stops: "V" }];
  assert.deepEqual(coverForPath(shockCover, kept, "target"), { cover: [{ ...kept[0], category: "cover" }] });
  assert.equal(coverForPath(shockCover, kept, "attacker"), null);
  assert.equal(coverForPath(shockCover, null, "target"), null);
  const wall = { material: "wood", thickness_cm: 20 };
  assert.deepEqual(coverForPath(dpvCover, wall, "targets[]"), { cover: wall });
  assert.equal(coverForPath(dpvCover, wall, "target"), null);
  assert.deepEqual(coverOptions(dpvCover, wall), { cover_material: "wood", cover_thickness_cm: 20 });
  assert.deepEqual(coverOptions(shockCover, kept), {});
  assert.deepEqual(coverEntries(null), []);
});

test("area fire: inside the circle, on the line from the weapon, beyond it on the same line", () => {
  const weapon = { x: 0, y: 0 };
  const centre = { x: 100, y: 0 };
  assert.deepEqual(alongLine({ x: 50, y: 5 }, weapon, centre), { t: 0.5, off: 5 });
  const tokens = [
    { id: "in", center: { x: 105, y: 8 }, half: 10 },
    { id: "line", center: { x: 40, y: 6 }, half: 10 },
    { id: "wide", center: { x: 40, y: 30 }, half: 10 },
    { id: "beyond", center: { x: 200, y: -4 }, half: 10 },
    { id: "behind", center: { x: -50, y: 0 }, half: 10 },
  ];
  const out = areaPlaces(weapon, centre, 20, tokens);
  assert.deepEqual(out.map((p) => [p.id, p.where]), [["line", "line"], ["in", "inside"], ["beyond", "beyond"]]);
  assert.ok(Math.abs(out[2].px - Math.hypot(200, 4)) < 1e-9);
});
