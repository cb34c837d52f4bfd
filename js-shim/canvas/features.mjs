// Table features built on the action workflow (workflow/), each a generic mechanism that a ruleset
// switches on with the names of its data in its declared table features (`Ruleset.features`,
// read from the engine's catalog: catalog.mjs `tableFeatures`):
//   sheet actions (buttons on the Firefight tab), effects when a combat ends, facing
//   (`bearing_deg` from the token's rotation) and sighting-in memory (`sighting_turns`) for any
//   ruleset whose shot options have them, exploding rounds that deviate (template + blast), and
//   the healing clock ("Advance time").
import { MODULE_ID, DEFAULT_ACTION } from "../core/config.mjs";
import { tableFeatures } from "../world/catalog.mjs";
import { isActiveGM } from "../relay/relay.mjs";
import { t, numberText } from "../core/i18n.mjs";
import { escapeHTML } from "../core/form.mjs";
import { flagUpdate } from "../documents/apply.mjs";
import { withActor } from "../documents/writes.mjs";
import { hasStatus, setEngineStatus, setStatus, statusPlan } from "../systems/index.mjs";
import { rulesetData } from "../workflow/request.mjs";
import { currentRuleset } from "../world/catalog.mjs";
import { worldTables } from "../world/tables.mjs";
import { reportError } from "../core/errors.mjs";
import { resolveWithEntropy } from "../workflow/roll.mjs";
import { sceneOptionProviders, resultListeners, registerTableAction } from "../workflow/hooks.mjs";
import { postNote } from "../workflow/card.mjs";
import { actionLabel } from "../workflow/plan.mjs";
import { metresPerSceneUnit } from "./measure.mjs";
import { bearingDeg, deviatedPoint, pixelsPerMetre, inCircle, metresBetween } from "../core/geometry.mjs";
import { installCover } from "./cover.mjs";
import { areaFireAt, reachForPower } from "./template.mjs";

const localize = (k) => game.i18n.localize(k);

/**
 * Pure: which points of a clock (`hours`: the points the ruleset declares, in hours) fall due
 * when it moves from `elapsed` by `step` hours, after the `done` first ones. -> [1-based points]
 */
export function duePoints(hours, elapsed, step, done = 0) {
  const now = elapsed + step;
  const out = [];
  for (let p = done + 1; p <= hours.length; p++) if (hours[p - 1] <= now + 1e-9) out.push(p);
  return out;
}

/** Pure: the whole hours reached when moving from `elapsed` by `step` hours. */
export function dueHours(elapsed, step) {
  const out = [];
  for (let h = Math.floor(elapsed) + 1; h <= Math.floor(elapsed + step + 1e-9); h++) out.push(h);
  return out;
}

/**
 * Pure: the sighting-in count after one more turn, stopping at the ruleset's declared `max`
 * (`features.sighting.max`: the engine refuses more, so more would break the next shot).
 */
export function nextSighting(n, max) {
  const next = (Number(n) || 0) + 1;
  return Number.isFinite(max) && max > 0 ? Math.min(next, max) : next;
}

/** Pure: the buttons of a sheet's actions for an actor's stats: [{action, label, values, dialog}]. */
export function sheetButtons(ruleset, specs, stats, localizeFn = (k) => k) {
  const out = [];
  for (const spec of specs ?? []) {
    const label = actionLabel(ruleset, spec.action, localizeFn);
    if (spec.each) {
      for (const entry of [...new Set(stats?.[spec.each] ?? [])]) {
        const key = spec.labelKey ? `FIREFIGHT.${ruleset}.${spec.labelKey}.${entry}` : null;
        const text = key && localizeFn(key) !== key ? localizeFn(key) : String(entry);
        out.push({ action: spec.action, label: `${label}: ${text}`, values: { [spec.field]: entry }, dialog: Boolean(spec.dialog) });
      }
      continue;
    }
    const badge = spec.badge && Number(stats?.[spec.badge]) < 0 ? ` (${stats[spec.badge]})` : "";
    out.push({ action: spec.action, label: `${label}${badge}`, values: {}, dialog: Boolean(spec.dialog), tables: spec.tables ?? null });
  }
  return out;
}

function tokenFor(actor) {
  const tok = actor.getActiveTokens?.()[0];
  return tok ?? { actor, name: actor.name, id: null, document: null };
}


/**
 * Write an engine "apply" of effects to one actor directly (table bookkeeping, no card), in the
 * actor's write queue: its data is read there, so an Apply in flight is never written over
 * (reliability audit D9). A record of it goes with the data (`applied.table-<id>`, no result
 * hash: nothing to undo or apply again), so that a shot posted before it still shows data the
 * actor had (verify.mjs `knownStates`; reliability audit hole 7: the end of a combat made an
 * honest hit unappliable).
 */
async function applyDirect(engine, actor, ruleset, effects) {
  return withActor(actor, async () => {
    const before = foundry.utils.deepClone(actor.flags?.[MODULE_ID]?.[ruleset] ?? {});
    const out = await engine.call("apply", { ruleset, stats: before, effects });
    if (!out.changes?.length) return out;
    const record = { table: true, by: game.user?.id ?? null, gm: game.user?.id ?? null, at: Date.now(), ruleset,
      name: actor.name, before, after: out.stats, changes: out.changes };
    await actor.update({ ...flagUpdate(ruleset, before, out.stats), [`flags.${MODULE_ID}.applied.table-${foundry.utils.randomID()}`]: record });
    // Statuses the world's system lacks are left out (systems/index.mjs).
    for (const s of statusPlan(actor, out.statuses)) await setStatus(actor, s.id, s.active);
    return out;
  });
}

// --- sheet actions, RollTables, the end of combat ------------------------------------------------

/** Add the ruleset's action buttons to the Firefight tab of a sheet. */
export function addSheetActions(api, root, actor) {
  const section = root?.querySelector?.(".firefight-sheet");
  if (!section || !actor || section.querySelector(".ff-sheet-actions")) return;
  const ruleset = currentRuleset();
  const stats = rulesetData(actor, ruleset);
  const specs = tableFeatures(ruleset).sheetActions;
  if (!stats || !specs?.length) return;
  const buttons = sheetButtons(ruleset, specs, stats, localize);
  const box = document.createElement("div");
  box.className = "ff-sheet-actions";
  box.innerHTML = `<h4>${escapeHTML(t("FIREFIGHT.ui.actions.title", "Firefight actions"))}</h4>${buttons.map((b, i) =>
    `<button type="button" data-firefight-act="${escapeHTML(b.action)}" data-index="${i}">${escapeHTML(b.label)}</button>`).join("")}`;
  // Right under the ruleset's heading, where the referee sees them first.
  const heading = section.querySelector(".ff-sheet-ruleset");
  if (heading) heading.after(box);
  else section.prepend(box);
  for (const el of box.querySelectorAll("[data-firefight-act]")) {
    el.addEventListener("click", (ev) => {
      ev.preventDefault();
      const b = buttons[Number(el.dataset.index)];
      const values = { ...b.values };
      if (b.tables) {
        const tables = worldTables(ruleset, b.tables.by);
        if (Object.keys(tables).length) values[b.tables.field] = tables;
      }
      api.act(b.action, { actor: tokenFor(actor), values, dialog: b.dialog, apply: true });
    });
  }
}

/** deleteCombat: the ruleset's end-of-combat effects (e.g. a penalty that lasts the combat); the active GM applies them. */
export async function onDeleteCombat(engine, combat) {
  if (!isActiveGM()) return;
  const ruleset = currentRuleset();
  const rules = tableFeatures(ruleset).combatEnd ?? [];
  if (!rules.length) return;
  const actors = new Set();
  for (const c of combat?.combatants ?? []) {
    const actor = c.actor ?? c.token?.actor ?? game.actors.get(c.actorId);
    if (actor) actors.add(actor);
  }
  for (const actor of actors) {
    const stats = rulesetData(actor, ruleset);
    if (!stats) continue;
    const effects = rules.filter((r) => Number(stats[r.stat]) < 0).flatMap((r) => r.effects);
    if (!effects.length) continue;
    try {
      await applyDirect(engine, actor, ruleset, effects);
    } catch (err) {
      reportError(err);
    }
  }
}

// --- facing and sighting in ----------------------------------------------------------------------

/** Shot options from the scene (kept only when the ruleset's options have them): facing, sighting-in. */
function sceneOptions({ a, b }) {
  const out = { bearing_deg: Math.round(bearingDeg(a.center, b.center, a.document?.rotation ?? 0) * 10) / 10 };
  const n = a.actor?.flags?.[MODULE_ID]?.sighting?.[b.id]?.n;
  if (n) out.sighting_turns = n;
  return out;
}

async function clearSighting(actor) {
  if (!actor?.isOwner) return;
  await withActor(actor, async () => {
    if (actor.flags?.[MODULE_ID]?.sighting) await actor.update({ [`flags.${MODULE_ID}.-=sighting`]: null });
  });
}

/** "Sight in": one more consecutive chance spent sighting in on the target (no roll). */
async function sightIn(opts = {}) {
  try {
    const a = opts.actor?.object ?? opts.actor ?? canvas.tokens.controlled[0];
    const b = opts.target?.object ?? opts.target ?? [...game.user.targets].find((tk) => tk !== a);
    if (!a) throw new Error(t("FIREFIGHT.ui.error.noAttacker", "Select your token first."));
    if (!b) throw new Error(t("FIREFIGHT.ui.error.noTarget", "Target a token first."));
    const max = tableFeatures(opts.ruleset ?? currentRuleset()).sighting?.max;
    // In the actor's write queue, counting from its data there (reliability audit D9).
    const n = await withActor(a.actor, async () => {
      const next = nextSighting(a.actor.flags?.[MODULE_ID]?.sighting?.[b.id]?.n, max);
      // Sighting in on another target starts over: only this target is kept.
      await a.actor.update({ [`flags.${MODULE_ID}.-=sighting`]: null });
      await a.actor.update({ [`flags.${MODULE_ID}.sighting`]: { [b.id]: { n: next, round: game.combat?.round ?? null } } });
      return next;
    });
    return postNote(escapeHTML(t("FIREFIGHT.ui.actions.note.sightIn", "{name} sights in on {target} ({n}).",
      { name: a.name, target: b.name, n })), a, { sighting: { target: b.id, n } });
  } catch (err) {
    reportError(err);
    return null;
  }
}

/** Moving resets sighting-in, and marks a patient whose healing clock runs as moved. */
function onUpdateToken(engine, doc, diff, options, userId) {
  if (userId !== game.user?.id || !("x" in diff || "y" in diff)) return;
  clearSighting(doc.actor).catch((err) => console.error("Firefight |", err));
  markMoved(engine, doc.actor).catch((err) => reportError(err));
}

/**
 * Pure: whether an actor's healing clock runs (`features.healing`: its `condition` started by a
 * wound and no `over` state since), from its Firefight flags.
 */
export function clockRunning(ff, spec) {
  const conditions = ff?.conditions ?? [];
  const start = [...conditions].reverse().find((c) => c.kind === spec.condition && c.value === "start");
  const over = conditions.some((c) => c.kind === "state" && (spec.over ?? []).includes(c.value));
  return Boolean(start) && !over;
}

/**
 * A patient moved while its clock runs: the ruleset's `healing.moved` stat is set through the
 * engine's apply (a penalty at the next crisis point, cleared by it).
 */
async function markMoved(engine, actor, ruleset = currentRuleset()) {
  const spec = tableFeatures(ruleset).healing;
  if (!spec?.moved || !actor?.isOwner) return null;
  const stats = rulesetData(actor, ruleset);
  if (!stats || stats[spec.moved] === true || !clockRunning(actor.flags?.[MODULE_ID], spec)) return null;
  return applyDirect(engine, actor, ruleset, [{ target: "target", kind: spec.moved, value: true }]);
}

// --- exploding rounds ----------------------------------------------------------------------------

/** The colour of a drawn blast ring by the role its ruleset gives it (`features.explosion.circles`). */
const RING_COLOURS = { concussion: "#7f8c8d", outer: "#e0a800", burst: "#c0392b", impact: "#c0392b" };

/**
 * Pure: the circles of a blast to draw: the ruleset's `circles` ({param: role}, widest first)
 * with a radius in the blast's params -> [{metres, role}]; a 1 m impact mark when none has one.
 */
export function blastCircles(circles, params) {
  const out = Object.entries(circles ?? {}).map(([param, role]) => ({ metres: Number(params?.[param]) || 0, role }))
    .filter((c) => c.metres > 0).sort((a, b) => b.metres - a.metres);
  return out.length ? out : [{ metres: 1, role: "impact" }];
}

async function drawBlast(point, radii, { label = "", circles = {} } = {}) {
  const mpu = metresPerSceneUnit();
  const docs = blastCircles(circles, radii).map(({ metres, role }) => ({ t: "circle", x: point.x, y: point.y,
    distance: metres / mpu, direction: 0, borderColor: RING_COLOURS[role] ?? "#c0392b", fillColor: RING_COLOURS[role] ?? "#c0392b",
    flags: { [MODULE_ID]: { blast: role, label } } }));
  try {
    return await canvas.scene.createEmbeddedDocuments("MeasuredTemplate", docs);
  } catch (err) {
    console.warn("Firefight | could not draw the blast:", err);
    return [];
  }
}

/**
 * An explosion at a scene point: the blast radii from the engine (a resolve without figures),
 * drawn on the scene as MeasuredTemplates, then one explosion request with every token inside.
 */
export async function explodeAt(api, engine, point, { power, name = "", options = {}, ruleset = currentRuleset() } = {}) {
  const spec = tableFeatures(ruleset).explosion;
  if (!spec) throw new Error(t("FIREFIGHT.ui.actions.error.unknown", "{ruleset} has no action {action}.", { ruleset, action: "explosion" }));
  const probe = await resolveWithEntropy(engine, { ruleset, action: spec.action, [spec.power]: power, name, targets: [], options });
  const blast = probe.result.effects.find((e) => e.kind === spec.blast)?.params ?? {};
  await drawBlast(point, blast, { label: name, circles: spec.circles });
  const ppm = pixelsPerMetre(canvas.grid, metresPerSceneUnit());
  // Everyone the blast can touch: the engine's reach (a concussion carries past the fragments,
  // issue 14 defect 4), else the declared concussion reach for this power.
  const steps = spec.tamped && options?.[spec.tamped] && spec.concussionReachTamped ? spec.concussionReachTamped : spec.concussionReach;
  const reach = Math.max(Number(blast[spec.reach]) || 0, reachForPower(steps, power),
    ...blastCircles(spec.circles, blast).map((c) => c.metres));
  const inside = canvas.tokens.placeables.filter((tk) => rulesetData(tk.actor, ruleset) && inCircle(tk.center, point, reach * ppm));
  if (!inside.length) {
    await postNote(escapeHTML(t("FIREFIGHT.ui.actions.note.nobodyInside", "{name}: nobody inside the blast.", { name: name || "—" })), null);
    return null;
  }
  return api.act(spec.action, { ruleset, targets: inside, origin: point, values: { [spec.power]: power, name }, options, dialog: false });
}

/** After a shot with an exploding round: where it lands (deviation on a miss), the blast, who is caught. */
async function afterExplodingShot(api, engine, { ruleset, action, a, b, request, result }) {
  // A shot's exploding rounds (an action with its own warhead, a missile, resolves its own).
  if (action !== DEFAULT_ACTION) return;
  const spec = tableFeatures(ruleset).explosion;
  const power = request?.weapon?.[spec?.power];
  if (!spec || !power || !a || !b || !result) return;
  const impact = result.effects?.find((e) => e.kind === spec.impact);
  let point = b.center;
  if (impact) {
    const p = impact.params ?? impact.value ?? {};
    point = deviatedPoint(a.center, b.center, p.forward_m ?? 0, p.right_m ?? 0, pixelsPerMetre(canvas.grid, metresPerSceneUnit()));
  } else if (!result.outcome?.hit) return;
  await explodeAt(api, engine, point, { power, name: request.weapon.name, ruleset });
}

// --- the healing clock ---------------------------------------------------------------------------

/**
 * `hours` pass. Patients whose clock runs (the ruleset's condition, from a wound) get each point
 * that falls due; unconscious ones a roll to wake each full hour; every result is posted and
 * applied. The clock of each actor is kept in flags.firefight.healing.
 */
export async function advanceTime(api, hours = 0.5, ruleset = currentRuleset()) {
  const spec = tableFeatures(ruleset).healing;
  if (!spec) return [];
  if (!game.user?.isGM) {
    ui.notifications?.warn(t("FIREFIGHT.ui.actions.gmOnly", "Only the referee can do that."));
    return [];
  }
  const messages = [];
  // Each actor once: a linked actor's tokens share it; every unlinked token has its own
  // synthetic actor (same id as the base actor, its own uuid), so each keeps its own clock.
  const seen = new Set();
  const stateOf = (message) => message?.flags?.[MODULE_ID]?.result?.outcome?.state;
  for (const tok of canvas.tokens.placeables) {
    const actor = tok.actor;
    const who = actor?.uuid ?? actor;
    if (!actor || seen.has(who) || !rulesetData(actor, ruleset) || hasStatus(actor, "dead")) continue;
    seen.add(who);
    const ff = actor.flags?.[MODULE_ID] ?? {};
    const healing = foundry.utils.deepClone(ff.healing ?? {});
    const conditions = ff.conditions ?? [];
    const start = [...conditions].reverse().find((c) => c.kind === spec.condition && c.value === "start");
    if (clockRunning(ff, spec)) {
      // A new wound restarts the clock.
      const clock = healing.critical?.since === (start.messageId ?? null) ? healing.critical : { since: start.messageId ?? null, elapsed: 0, done: 0 };
      for (const point of duePoints(spec.hours, clock.elapsed, hours, clock.done)) {
        const message = await api.act(spec.action, { ruleset, actor: tok, target: tok, values: { point }, dialog: false, apply: true });
        clock.done = point;
        if (message) messages.push(message);
        if (spec.over.includes(stateOf(message))) break;
      }
      clock.elapsed += hours;
      healing.critical = clock;
    }
    if (hasStatus(actor, spec.unconscious)) {
      const elapsed = healing.unconscious ?? 0;
      for (const h of dueHours(elapsed, hours)) {
        const message = await api.act(spec.wake, { ruleset, actor: tok, target: tok, values: { hours_unconscious: h }, dialog: false, apply: true });
        if (message) messages.push(message);
        if (message?.flags?.[MODULE_ID]?.result?.outcome?.hit) {
          await setEngineStatus(actor, spec.unconscious, false);
          break;
        }
      }
      healing.unconscious = hasStatus(actor, spec.unconscious) ? elapsed + hours : 0;
    } else if (healing.unconscious) healing.unconscious = 0;
    // The clock only: one key, written in the actor's queue (the actions above wrote theirs).
    await withActor(actor, () => actor.update({ [`flags.${MODULE_ID}.healing`]: healing }));
  }
  game.time?.advance?.(Math.round(hours * 3600));
  // Nothing fell due: said, so the referee knows the time passed (UX walkthrough 3 #14).
  if (!messages.length) {
    globalThis.ui?.notifications?.info(t("FIREFIGHT.ui.actions.clock.nothing", "{hours} h passed: nobody on the healing clock was due a roll.", { hours: numberText(hours) }));
  }
  return messages;
}

async function advanceTimeDialog(api, ruleset) {
  const DialogV2 = foundry.applications.api.DialogV2;
  const title = t("FIREFIGHT.ui.actions.clock.advance", "Advance time");
  const hours = await DialogV2.wait({
    window: { title, icon: "fa-solid fa-clock" },
    classes: ["firefight-dialog", "firefight-clock-dialog"],
    content: `<div class="form-group"><label for="ff-advance-hours">${escapeHTML(t("FIREFIGHT.ui.actions.clock.hours", "Hours"))}</label>
      <div class="form-fields"><select id="ff-advance-hours" name="hours">${[0.5, 1, 2, 3, 6, 12].map((h) => `<option value="${h}">${escapeHTML(numberText(h))} h</option>`).join("")}</select></div></div>`,
    buttons: [{ action: "go", label: title, default: true, callback: (ev, button) => Number(button.form.elements.namedItem("hours").value) }],
    rejectClose: false,
  });
  return typeof hours === "number" ? advanceTime(api, hours, ruleset) : [];
}

// --- wiring ------------------------------------------------------------------------------------

const TABLE_ACTIONS = {
  sight_in: () => sightIn,
  area_fire_placed: (api) => (opts) => areaFireAt(api, opts).catch((err) => reportError(err)),
  advance_time: (api) => (opts) => (opts?.hours ? advanceTime(api, opts.hours, opts.ruleset) : advanceTimeDialog(api, opts?.ruleset)),
};

export function installFeatures(api, engine) {
  sceneOptionProviders.push(sceneOptions);
  resultListeners.push(({ a, request }) => (a && request?.options && "sighting_turns" in request.options ? clearSighting(a.actor) : null));
  resultListeners.push((ctx) => afterExplodingShot(api, engine, ctx));
  // Offered for the rulesets whose features list them (workflow/hooks.mjs `tableActionsOf`).
  for (const [name, make] of Object.entries(TABLE_ACTIONS)) registerTableAction(name, make(api));
  Hooks.on("updateToken", (...args) => onUpdateToken(engine, ...args));
  Hooks.on("deleteCombat", (combat) => onDeleteCombat(engine, combat).catch((err) => reportError(err)));
  api.advanceTime = (hours) => advanceTime(api, hours);
  api.explodeAt = (point, opts) => explodeAt(api, engine, point, opts);
  api.metresBetween = metresBetween;
  installCover(api);
}
