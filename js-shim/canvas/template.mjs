// Areas placed by hand and several targets in one shot (issue 16, "Player-placed templates ...
// and several targets in one shot where the ruleset allows it"; issue 14, "Area fire").
//
// Place area: the Shoot dialog and the dialogs of the ruleset's area-fire and explosion actions
// (`features.areaFire`, `features.explosion`, docs/extending.md Part 5) offer "Place area". The
// dialog closes, a preview circle follows the pointer on the template layer, a left click places
// it, a right click or Escape cancels: the way dnd5e's AbilityTemplate places a spell's area
// (foundryvtt/dnd5e module/canvas/ability-template.mjs: a MeasuredTemplate object in
// `canvas.templates.preview`, `canvas.stage` "mousemove" / "mousedown", the view's
// `oncontextmenu`, the point snapped by `canvas.templates.getSnappedPoint`). Then the shot is
// asked at that area.
//
// Several targets: a ruleset that declares `features.multiTarget` shoots at every targeted token
// from one Shoot dialog (one request and one card per target); one that does not refuses with a
// message naming the targeted tokens, never silently shooting the first.
import { MODULE_ID, DEFAULT_ACTION } from "../core/config.mjs";
import { tableFeatures, currentRuleset } from "../world/catalog.mjs";
import { t } from "../core/i18n.mjs";
import { rulesetData } from "../workflow/request.mjs";
import { pixelsPerMetre, metresBetween, areaPlaces } from "../core/geometry.mjs";
import { metresPerSceneUnit } from "./measure.mjs";

// --- pure ----------------------------------------------------------------------------------------

/**
 * Pure: what "Place area" does for an action of a ruleset's features, or null: area fire (a
 * circle of the declared diameter, the area itself) for the Shoot dialog ("attack") and the
 * `areaFire.action`; an explosion (a circle out to the reach of the chosen power, a point) for
 * `explosion.action`.
 */
export function placementFor(features, action) {
  const area = features?.areaFire;
  if (area && (action === DEFAULT_ACTION || action === area.action) && Number(area.diameterM) > 0) {
    return { kind: "areaFire", radiusM: Number(area.diameterM) / 2 };
  }
  const blast = features?.explosion;
  if (blast && action === blast.action && blast.power) return { kind: "explosion", power: blast.power };
  return null;
}

/** Pure: the reach (metres) of an explosion of `power` before it is resolved (`features.explosion`). */
export function explosionReachM(spec, power, tamped = false) {
  const steps = tamped && spec?.concussionReachTamped ? spec.concussionReachTamped : spec?.concussionReach;
  return reachForPower(steps, power);
}

/**
 * Pure: the smallest arc (degrees) that holds every point as seen from `from`: 360 minus the
 * widest gap between neighbouring bearings; 0 for one point.
 */
export function arcSpreadDeg(from, points) {
  const bearings = points.map((p) => ((Math.atan2(p.y - from.y, p.x - from.x) * 180) / Math.PI + 360) % 360)
    .sort((a, b) => a - b);
  if (bearings.length < 2) return 0;
  let gap = 360 - bearings.at(-1) + bearings[0];
  for (let i = 1; i < bearings.length; i++) gap = Math.max(gap, bearings[i] - bearings[i - 1]);
  return Math.round((360 - gap) * 100) / 100;
}

/**
 * Pure: may a shot go at these targets? `spec`: the ruleset's `features.multiTarget` (or none);
 * `shots`: each target's shots; `budget`: the weapon's limit of all shots together. ->
 * {ok: true} or {ok: false, why: "single" | "arc" | "budget", ...numbers for the message}.
 */
export function severalTargets(spec, from, targets, { shots = 1, budget = null } = {}) {
  if (targets.length <= 1) return { ok: true };
  if (!spec) return { ok: false, why: "single", n: targets.length };
  const arc = arcSpreadDeg(from, targets);
  if (Number(spec.arcDeg) > 0 && arc > Number(spec.arcDeg)) return { ok: false, why: "arc", arc, max: Number(spec.arcDeg) };
  const total = targets.length * (Number(shots) || 1);
  if (budget !== null && Number.isFinite(Number(budget)) && total > Number(budget)) {
    return { ok: false, why: "budget", total, budget: Number(budget) };
  }
  return { ok: true };
}

/** The message for a refused `severalTargets` check, naming the targeted tokens. */
export function severalTargetsError(check, names) {
  const list = names.join(", ");
  if (check.why === "arc") {
    return t("FIREFIGHT.ui.targets.arc", "The targets ({names}) spread over {arc}°: aimed fire at several targets needs them within {max}°.",
      { names: list, arc: check.arc, max: check.max });
  }
  if (check.why === "budget") {
    return t("FIREFIGHT.ui.targets.budget", "{total} shots at {names} exceed the weapon's {budget} a round: fewer shots or fewer targets.",
      { names: list, total: check.total, budget: check.budget });
  }
  return t("FIREFIGHT.ui.targets.single", "This ruleset shoots at one target at a time, and {n} tokens are targeted ({names}): target only one.",
    { names: list, n: check.n });
}

/**
 * Pure: how far an explosion reaches before anything is resolved: the `reach_m` of the last
 * declared step (`features.explosion.concussionReach`, ascending `ep`) whose `ep` is at or below
 * the charge's power; 0 when none is.
 */
export function reachForPower(steps, power) {
  let reach = 0;
  for (const s of steps ?? []) if (Number(s?.ep) <= Number(power)) reach = Math.max(reach, Number(s.reach_m) || 0);
  return reach;
}


/**
 * Area fire at an area (`features.areaFire`): the circle the user placed with the template tool,
 * else one of the declared diameter drawn at the targeted token. Every token inside is a figure
 * `places.inside`, every token the line from the weapon to the centre crosses `places.line`, every
 * one past the area on that line `places.beyond` (the engine keeps those in the area's band);
 * the range is the weapon to the centre. Then the action's dialog, as for targeted tokens.
 */
export async function areaFireAt(api, opts = {}) {
  const ruleset = opts.ruleset ?? currentRuleset();
  const spec = tableFeatures(ruleset).areaFire;
  if (!spec) throw new Error(t("FIREFIGHT.ui.actions.error.unknown", "{ruleset} has no action {action}.", { ruleset, action: "areaFire" }));
  const a = opts.actor?.object ?? opts.actor ?? canvas.tokens.controlled[0];
  if (!a) throw new Error(t("FIREFIGHT.ui.error.noAttacker", "Select your token first."));
  const mpu = metresPerSceneUnit();
  const ppm = pixelsPerMetre(canvas.grid, mpu);
  let area = opts.template ?? placedArea();
  if (!area) {
    const aim = [...game.user.targets].find((tk) => tk !== a && tk.id !== a.id);
    if (!aim) throw new Error(t("FIREFIGHT.ui.error.noTarget", "Target a token first."));
    [area] = await canvas.scene.createEmbeddedDocuments("MeasuredTemplate", [{ t: "circle", x: aim.center.x, y: aim.center.y,
      distance: spec.diameterM / 2 / mpu, direction: 0, borderColor: "#2471a3", fillColor: "#2471a3", flags: { [MODULE_ID]: { area: true } } }]);
  }
  const centre = { x: area.x, y: area.y };
  const radius = (area.distance ?? spec.diameterM / 2 / mpu) * mpu * ppm;
  const tokens = canvas.tokens.placeables.filter((tk) => tk !== a && tk.id !== a.id && rulesetData(tk.actor, ruleset));
  const side = (tk, px, cells) => Number(tk[px] ?? (tk.document?.[cells] ?? 1) * canvas.grid.size) || 0;
  const placed = areaPlaces(a.center, centre, radius, tokens.map((tk) => ({ id: tk.id, center: tk.center,
    half: Math.min(side(tk, "w", "width"), side(tk, "h", "height")) / 2 })));
  const byId = new Map(tokens.map((tk) => [tk.id, tk]));
  const places = Object.fromEntries(placed.map((p) => [p.id, spec.places?.[p.where] ?? p.where]));
  const range = { value: metresBetween(a.center, centre, ppm), units: "m" };
  return api.act(spec.action, { ruleset, actor: a, targets: placed.map((p) => byId.get(p.id)), places,
    values: { ...(opts.values ?? {}), range }, options: opts.options, weapon: opts.weapon, house: opts.house, dialog: opts.dialog });
}

// --- area fire at a placed area -----------------------------------------------------------------

/** The area a user placed: their last circle MeasuredTemplate on the scene that is not a blast. */
function placedArea() {
  const circles = [...(canvas.scene?.templates ?? [])].filter((tpl) => tpl.t === "circle" && tpl.isOwner !== false
    && !tpl.flags?.[MODULE_ID]?.blast);
  return circles.at(-1) ?? null;
}

// --- placing a circle ----------------------------------------------------------------------------

/**
 * End the template layer's own drag that the placing click may have begun, as dnd5e's
 * AbilityTemplate#_finishPlacement does: v13's TemplateLayer#_onDragLeftCancel (protected: there
 * is no public v13 call for it), v14's public PlaceablesLayer#clearPreviewContainer
 * (foundryvtt/dnd5e 5.3.3 module/canvas/ability-template.mjs: `if ( game.release.generation < 14 )
 * this.layer._onDragLeftCancel(event); else this.layer.clearPreviewContainer();`).
 */
export function endLayerDrag(layer, event, generation = globalThis.game?.release?.generation ?? 13) {
  if (generation < 14) layer?._onDragLeftCancel?.(event);
  else layer?.clearPreviewContainer?.();
}

/** The scene point of a canvas pointer event (PIXI's FederatedPointerEvent#getLocalPosition). */
function pointOf(event, layer) {
  const p = event.getLocalPosition?.(layer) ?? event.data?.getLocalPosition?.(layer);
  return p ? { x: p.x, y: p.y } : null;
}

/**
 * Place a circle of `distance` scene units by hand: a preview follows the pointer (snapped as the
 * template layer snaps), a left click places it, a right click or Escape cancels. `create`: make
 * it a MeasuredTemplate of the scene (Foundry's TEMPLATE_CREATE permission) and resolve with it;
 * else resolve with the chosen point. Resolves null when cancelled.
 */
export async function placeCircle({ distance, flags = {}, color = null, create = true }) {
  if (create && game.user?.can && !game.user.can("TEMPLATE_CREATE")) {
    throw new Error(t("FIREFIGHT.ui.template.denied", "You may not create measured templates in this world."));
  }
  const layer = canvas.templates;
  const fill = color ?? game.user?.color ?? "#2471a3";
  const Doc = CONFIG.MeasuredTemplate.documentClass;
  // Its author is the user who creates it (set on creation).
  const doc = new Doc({ t: "circle", distance, direction: 0, x: 0, y: 0, fillColor: fill, borderColor: fill,
    flags: { [MODULE_ID]: { ...flags } } }, { parent: canvas.scene });
  const preview = new CONFIG.MeasuredTemplate.objectClass(doc);
  await preview.draw();
  const initial = canvas.activeLayer;
  layer.activate();
  layer.preview.addChild(preview);
  ui.notifications?.info(t("FIREFIGHT.ui.template.hint", "Click to place the area; right-click or Escape cancels."));
  return new Promise((resolve, reject) => {
    const view = canvas.app.view;
    const finish = (event) => {
      endLayerDrag(layer, event);
      canvas.stage.off("mousemove", move);
      canvas.stage.off("mousedown", confirm);
      view.oncontextmenu = null;
      window.removeEventListener("keydown", escape, true);
      layer.preview.removeChild(preview);
      preview.destroy?.();
      initial?.activate?.();
    };
    const moveTo = (event) => {
      const p = pointOf(event, layer);
      if (!p) return;
      doc.updateSource(layer.getSnappedPoint(p));
      preview.refresh();
    };
    function move(event) {
      event.stopPropagation?.();
      moveTo(event);
    }
    async function confirm(event) {
      moveTo(event);
      finish(event);
      const point = { x: doc.x, y: doc.y };
      if (!create) return resolve(point);
      try {
        const [made] = await canvas.scene.createEmbeddedDocuments("MeasuredTemplate", [doc.toObject()]);
        resolve(made ?? null);
      } catch (err) {
        reject(err);
      }
      return null;
    }
    const cancel = (event) => {
      event?.preventDefault?.();
      finish(event);
      resolve(null);
    };
    function escape(event) {
      if (event.key !== "Escape") return;
      event.stopPropagation();
      cancel(event);
    }
    canvas.stage.on("mousemove", move);
    canvas.stage.on("mousedown", confirm);
    view.oncontextmenu = cancel;
    window.addEventListener("keydown", escape, true);
  });
}

/**
 * "Place area" for an action whose dialog returned {place: true}: place the circle, then ask the
 * shot at it. `choice`: {actor (the shooter's token), weapon (item id), values (the dialog's:
 * request fields, "options.<name>", "house.<rule>.<name>"), dialog (ask the area fire's dialog
 * again: from the Shoot dialog, whose options are aimed fire's)}. Resolves the ChatMessage, or
 * null when cancelled.
 */
export async function placeAndAct(ruleset, action, choice) {
  const features = tableFeatures(ruleset);
  const place = placementFor(features, action);
  if (!place) return null;
  const api = game.modules.get(MODULE_ID)?.api;
  const mpu = metresPerSceneUnit();
  const { values, options, house } = splitChoice(choice.values);
  if (place.kind === "areaFire") {
    const area = await placeCircle({ distance: place.radiusM / mpu, flags: { area: true } });
    if (!area) return null;
    return areaFireAt(api, { ruleset, actor: choice.actor, template: area, weapon: choice.weapon, values, options, house,
      dialog: Boolean(choice.dialog) });
  }
  const spec = features.explosion;
  const power = Number(values[spec.power]);
  if (!(power > 0)) throw new Error(t("FIREFIGHT.ui.actions.error.required", "{field} is required.", { field: spec.power }));
  const reach = explosionReachM(spec, power, Boolean(spec.tamped && options[spec.tamped])) || 1;
  const point = await placeCircle({ distance: reach / mpu, create: false, color: "#c0392b" });
  if (!point) return null;
  return api.explodeAt(point, { power, name: values.name ?? "", options, ruleset });
}

/** Pure: a dialog's values ("options.<k>", "house.<rule>.<k>", fields) -> {values, options, house}. */
export function splitChoice(chosen = {}) {
  const out = { values: {}, options: {}, house: {} };
  for (const [k, v] of Object.entries(chosen ?? {})) {
    if (k.startsWith("options.")) out.options[k.slice(8)] = v;
    else if (k.startsWith("house.")) {
      const [, rule, ...rest] = k.split(".");
      (out.house[rule] ??= {})[rest.join(".")] = v;
    } else out.values[k] = v;
  }
  return out;
}

/**
 * Pure: whether "Place area" fits the chosen weapon, its ruleset data `weapon`: area fire is not
 * for a weapon that explodes (its `features.explosion` power set: a grenade is thrown at a target
 * and its blast placed where it lands, afterExplodingShot), so the button is hidden for it
 * (docs/rules-notes.md, "Place area with a grenade"; issue 25 item 2).
 */
export function placeFitsWeapon(features, action, weapon) {
  const place = placementFor(features, action);
  if (!place) return false;
  const power = features?.explosion?.power;
  return !(place.kind === "areaFire" && power && weapon?.[power] != null);
}

/** The "Place area" button of a dialog for `action`, or null when the ruleset places none. */
export function placeButton(ruleset, action, read) {
  if (!placementFor(tableFeatures(ruleset), action)) return null;
  return { action: "place", label: t("FIREFIGHT.ui.template.place", "Place area"), icon: "fa-solid fa-bullseye",
    callback: (event, button) => ({ ...read(button.form), place: true }) };
}
