import { test } from "node:test";
import assert from "node:assert/strict";
import { actionVariant, planRequest, shapeParticipant, actionLabel, ownActionLabel } from "../../js-shim/workflow/plan.mjs";
import { publicRollData } from "../../js-shim/workflow/card.mjs";
import { tableTexts } from "../../js-shim/world/tables.mjs";
import { bearingDeg, normalizeDeg, deviatedPoint, metresBetween, pixelsPerMetre, inCircle } from "../../js-shim/core/geometry.mjs";
import { duePoints, dueHours, sheetButtons } from "../../js-shim/canvas/features.mjs";
import { effectsByActor } from "../../js-shim/documents/apply.mjs";

// The shapes pydantic writes: a discriminated union of action models with $defs.
const participant = { type: "object", properties: { name: { type: "string" }, actor_id: { anyOf: [{ type: "string" }, { type: "null" }] },
  token_id: { anyOf: [{ type: "string" }, { type: "null" }] }, pc: { type: "boolean" }, stats: { type: "object" } } };
const request = {
  oneOf: [{ $ref: "#/$defs/Attack" }, { $ref: "#/$defs/AreaFire" }, { $ref: "#/$defs/Critical" }, { $ref: "#/$defs/Resuscitate" }, { $ref: "#/$defs/Missile" }],
  discriminator: { propertyName: "action", mapping: { area_fire: "#/$defs/AreaFire" } },
  $defs: {
    Combatant: participant,
    Figure: { type: "object", properties: { ...participant.properties, distance_m: { anyOf: [{ type: "number" }, { type: "null" }] },
      place: { enum: ["in_area", "line_of_fire", "beyond"], default: "in_area", type: "string" } } },
    Vehicle: { type: "object", properties: { name: { type: "string" }, actor_id: { type: "string" }, token_id: { type: "string" },
      armor: { type: "number", default: 0 }, evasive: { type: "integer", default: 0 } } },
    Weapon: { type: "object", properties: { dpv: { type: "number" } } },
    Distance: { type: "object", properties: { value: { type: "number" } } },
    Attack: { properties: { ruleset: { const: "x" }, action: { const: "attack", default: "attack" }, attacker: { $ref: "#/$defs/Combatant" },
      target: { $ref: "#/$defs/Combatant" }, weapon: { $ref: "#/$defs/Weapon" }, range: { $ref: "#/$defs/Distance" } },
    required: ["attacker", "target", "weapon", "range"] },
    AreaFire: { properties: { ruleset: { const: "x" }, action: { const: "area_fire" }, attacker: { $ref: "#/$defs/Combatant" },
      weapon: { $ref: "#/$defs/Weapon" }, range: { $ref: "#/$defs/Distance" },
      targets: { type: "array", minItems: 1, items: { $ref: "#/$defs/Figure" } }, options: { type: "object" }, settings: { type: "object" } },
    required: ["weapon", "range", "targets"] },
    Critical: { properties: { ruleset: { const: "x" }, action: { const: "critical_point" }, patient: { $ref: "#/$defs/Combatant" },
      point: { enum: [1, 2, 3, 4, 5], type: "integer" }, moved: { type: "boolean", default: false } }, required: ["patient", "point"] },
    Resuscitate: { properties: { action: { const: "resuscitate" }, medic: { $ref: "#/$defs/Combatant" }, patient: { $ref: "#/$defs/Combatant" },
      killed_by: { enum: ["head", "torso", "shock"], type: "string" }, minutes_since_death: { type: "number", minimum: 0 },
      trauma_tables: { anyOf: [{ type: "object" }, { type: "null" }] } }, required: ["killed_by", "minutes_since_death"] },
    Missile: { properties: { action: { const: "missile" }, attacker: { $ref: "#/$defs/Combatant" }, target: { $ref: "#/$defs/Vehicle" },
      homing: { type: "integer" } }, required: ["homing"] },
  },
};

test("actionVariant finds the variant by its action const (mapping, oneOf, or a plain model)", () => {
  assert.equal(actionVariant(request, "area_fire").properties.action.const, "area_fire");
  assert.equal(actionVariant(request, "critical_point").properties.point.enum.length, 5);
  assert.equal(actionVariant(request, "nope"), null);
  const plain = { properties: { action: { const: "attack", default: "attack" } } };
  assert.equal(actionVariant(plain, "attack"), plain);
  assert.equal(actionVariant(plain, "will_check"), null);
});

test("planRequest: participants by name, lists of participants, weapon, range, scalar form fields", () => {
  const area = planRequest(actionVariant(request, "area_fire"), request);
  assert.equal(area.self, "attacker");
  assert.equal(area.list.name, "targets");
  assert.ok(area.list.distance);
  assert.deepEqual(area.list.place.enum, ["in_area", "line_of_fire", "beyond"]);
  assert.equal(area.list.min, 1);
  assert.ok(area.weapon.required && area.range.required && area.options && area.settings);
  assert.deepEqual(Object.keys(area.scalar.properties), []);

  const crit = planRequest(actionVariant(request, "critical_point"), request);
  assert.equal(crit.self, "patient");
  assert.equal(crit.patient, null);
  assert.deepEqual(Object.keys(crit.scalar.properties), ["point", "moved"]);
  assert.deepEqual(crit.scalar.required, ["point"]);

  // The medic acts (controlled token); the patient is the targeted token. Objects stay out of the form.
  const res = planRequest(actionVariant(request, "resuscitate"), request);
  assert.equal(res.self, "medic");
  assert.equal(res.patient, "patient");
  assert.deepEqual(Object.keys(res.scalar.properties), ["killed_by", "minutes_since_death"]);

  const missile = planRequest(actionVariant(request, "missile"), request);
  assert.equal(missile.target, "target");
});

test("shapeParticipant keeps the schema's keys and fills the others from the actor's stats", () => {
  const entry = { name: "APC", actor_id: "a1", token_id: "t1", pc: false, stats: { armor: 12 }, armor: [] };
  const out = shapeParticipant(entry, request.$defs.Vehicle, { armor: 12, evasive: 3 });
  assert.deepEqual(out, { name: "APC", actor_id: "a1", token_id: "t1", armor: 12, evasive: 3 });
});

test("publicRollData leaves the referee's hidden dice off the players' message", () => {
  const result = { dice: [
    { formula: "1d20", faces: 20, results: [12], total: 12, purpose: "task" },
    { formula: "1d20", faces: 20, results: [3], total: 3, purpose: "task (referee, hidden)" },
    { formula: "3d6", faces: 6, results: [1, 2, 3], total: 6, purpose: "task time" },
  ] };
  const rolls = publicRollData(result, [1]);
  assert.deepEqual(rolls.map((r) => r.options.flavor), ["task", "task time"]);
  assert.equal(publicRollData(result).length, 3);
});

test("actionLabel: the lang key under FIREFIGHT.ui.actions, else the action humanised", () => {
  assert.equal(actionLabel("dpv", "critical_point"), "Critical point");
  assert.equal(actionLabel("soe", "will_check", (k) => (k === "FIREFIGHT.ui.actions.soe.will_check" ? "Willenswurf" : k)), "Willenswurf");
  // a plugin's label in its own namespace (its lang files), issue 26
  assert.equal(actionLabel("duel", "brawl", (k) => (k === "FIREFIGHT.duel.action.brawl" ? "Rauferei" : k)), "Rauferei");
  // The Shoot dialog's title: the default action's own label, or none (then "Fire!")
  assert.equal(ownActionLabel("duel", "attack", (k) => (k === "FIREFIGHT.duel.action.attack" ? "Angriff" : k)), "Angriff");
  assert.equal(ownActionLabel("soe", "attack"), null);
});

test("bearingDeg: Foundry rotation 0 faces south, clockwise; the angle to the target", () => {
  const o = { x: 0, y: 0 };
  assert.equal(bearingDeg(o, { x: 0, y: 100 }, 0), 0); // straight ahead
  assert.equal(Math.abs(bearingDeg(o, { x: 0, y: -100 }, 0)), 180); // behind
  assert.equal(bearingDeg(o, { x: -100, y: 0 }, 90), 0); // rotation 90 faces west
  assert.equal(bearingDeg(o, { x: 100, y: 100 }, 0), -45); // exactly on the arc's edge
  assert.equal(bearingDeg(o, { x: 0, y: 100 }, 180), -180);
  assert.equal(normalizeDeg(540), -180);
  assert.equal(normalizeDeg(-190), 170);
});

test("deviatedPoint turns the firer-frame offset by the line of fire", () => {
  const firer = { x: 0, y: 0 };
  const aim = { x: 100, y: 0 }; // firing east; 20 px per metre
  assert.deepEqual(deviatedPoint(firer, aim, 5, 0, 20), { x: 200, y: 0 }); // long
  assert.deepEqual(deviatedPoint(firer, aim, -5, 0, 20), { x: 0, y: 0 }); // short
  assert.deepEqual(deviatedPoint(firer, aim, 0, 5, 20), { x: 100, y: 100 }); // right of east is south (y down)
  const north = deviatedPoint(firer, { x: 0, y: -100 }, 0, 5, 20); // firing north, right is east
  assert.ok(Math.abs(north.x - 100) < 1e-9 && Math.abs(north.y + 100) < 1e-9);
  assert.equal(pixelsPerMetre({ size: 100, distance: 5 }), 20);
  assert.equal(metresBetween({ x: 0, y: 0 }, { x: 300, y: 400 }, 20), 25);
  assert.ok(inCircle({ x: 3, y: 4 }, { x: 0, y: 0 }, 5));
  assert.ok(!inCircle({ x: 3, y: 4.1 }, { x: 0, y: 0 }, 5));
});

test("the healing clock: points and whole hours that fall due", () => {
  const hours = [0.5, 1, 3, 6, 12];
  assert.deepEqual(duePoints(hours, 0, 0.5), [1]);
  assert.deepEqual(duePoints(hours, 0.5, 0.5, 1), [2]);
  assert.deepEqual(duePoints(hours, 0, 12), [1, 2, 3, 4, 5]);
  assert.deepEqual(duePoints(hours, 1, 1, 2), []);
  assert.deepEqual(dueHours(0, 0.5), []);
  assert.deepEqual(dueHours(0.5, 0.5), [1]);
  assert.deepEqual(dueHours(1, 3), [2, 3, 4]);
});

test("sheetButtons: one button per action, one per pending entry, a badge for a negative stat", () => {
  const ruleset = "soe";
  // Sheet actions as a ruleset declares them in its table features (Ruleset.features).
  const specs = [
    { action: "will_check", badge: "pretrauma" },
    { action: "delayed_injury_check", each: "delayed_injuries", field: "trauma_class", labelKey: "injury.class" },
    { action: "general_trauma", dialog: true, tables: { field: "trauma_tables", by: "trauma_class" } },
  ];
  const buttons = sheetButtons(ruleset, specs, { pretrauma: -3, delayed_injuries: ["minor", "severe", "minor"] });
  assert.deepEqual(buttons.map((b) => b.action), ["will_check", "delayed_injury_check", "delayed_injury_check", "general_trauma"]);
  assert.equal(buttons[0].label, "Will check (-3)");
  assert.deepEqual(buttons.map((b) => b.values.trauma_class ?? null), [null, "minor", "severe", null]);
  assert.ok(buttons[3].dialog && buttons[3].tables.field === "trauma_tables");
  assert.equal(sheetButtons(ruleset, specs, { pretrauma: 0 })[0].label, "Will check");
});

test("tableTexts: a RollTable's five texts in the order of their ranges", () => {
  const results = [5, 1, 3, 2, 4].map((n) => ({ range: [n * 4 - 3, n * 4], text: `effect ${n}` }));
  assert.deepEqual(tableTexts(results), ["effect 1", "effect 2", "effect 3", "effect 4", "effect 5"]);
});

test("effectsByActor: a request's single participant (character, patient) takes the target side's effects", () => {
  const result = { request: { action: "will_check", character: { name: "Vera", actor_id: "a1", token_id: "t1" } },
    effects: [{ target: "target", kind: "pretrauma", value: 0 }] };
  assert.deepEqual(effectsByActor(result).map((g) => [g.actorId, g.name, g.effects.length]), [["a1", "Vera", 1]]);
  const explosion = { request: { action: "explosion", targets: [] }, effects: [{ target: "attacker", kind: "blast" }] };
  assert.deepEqual(effectsByActor(explosion), []);
});

test("shapeParticipant keeps worn armor out of a nullable number field (a vehicle's rating)", () => {
  const vehicle = { properties: { name: { type: "string" }, pc: { type: "boolean" },
    armor: { anyOf: [{ type: "number" }, { type: "null" }] }, stats: { type: "object" } } };
  const entry = { name: "APC", pc: false, armor: [{ name: "vest" }], stats: {} };
  assert.deepEqual(shapeParticipant(entry, vehicle, {}), { name: "APC", pc: false, stats: {} });
  assert.deepEqual(shapeParticipant({ ...entry, armor: 4 }, vehicle, {}).armor, 4);
});
