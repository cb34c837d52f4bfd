// The activation order a combat keeps (combat.mjs): its flag, the units of a multi-unit action,
// and the pure steps of the drawn order. Shared by the chit pull (combat.mjs) and the turn's
// events (turns.mjs).
import { MODULE_ID } from "../core/config.mjs";
import { t } from "../core/i18n.mjs";
import { escapeHTML } from "../core/form.mjs";

export const FLAG = "activations";
const IDENTITY = ["name", "actor_id", "token_id", "combatant_id"];

// --- pure helpers ------------------------------------------------------------------------------

/**
 * The fields of a unit in a multi-unit action's request (`units: [...]`, or the list field
 * `unitsField`), read from the ruleset's request JSON schema; null if it has no such action.
 */
export function unitFields(requestSchema, action, unitsField = "units") {
  const defs = requestSchema?.$defs ?? {};
  const deref = (s) => (s?.$ref ? defs[s.$ref.split("/").pop()] : s);
  const variants = [...(requestSchema?.oneOf ?? requestSchema?.anyOf ?? []), requestSchema];
  for (const variant of variants.map(deref)) {
    const props = variant?.properties ?? {};
    const a = props.action;
    if (!a || (a.const !== action && !(a.enum ?? []).includes(action))) continue;
    const unit = deref(props[unitsField]?.items);
    return unit?.properties ? Object.keys(unit.properties) : null;
  }
  return null;
}

/**
 * One combatant as a unit of a multi-unit request: who it is (name, actor, token, combatant) and
 * the actor's data the unit takes; `extra` adds table facts (the `served` field). null without data.
 */
export function unitOf({ combatant, actor, stats }, fields, extra = {}) {
  if (!stats || !fields) return null;
  const unit = {
    name: String(combatant.name ?? actor?.name ?? ""),
    actor_id: actor?.id ?? null,
    token_id: combatant.tokenId ?? null,
    combatant_id: combatant.id ?? null,
  };
  for (const f of fields) {
    if (IDENTITY.includes(f)) continue;
    if (f in extra) unit[f] = extra[f];
    else if (stats[f] !== undefined && stats[f] !== null) unit[f] = stats[f];
  }
  for (const k of Object.keys(unit)) if (!fields.includes(k)) delete unit[k];
  return unit;
}

/**
 * Pure: a ruleset's `activation` table feature with its defaults, or null (no chit pull):
 * {draw, settle (or null), units, round (or null), served (or null), order}.
 */
export function activationSpec(features) {
  const spec = features?.activation;
  if (!spec || typeof spec.draw !== "string" || !spec.draw) return null;
  const name = (v, fallback = null) => (typeof v === "string" && v ? v : fallback);
  return { draw: spec.draw, settle: name(spec.settle), units: name(spec.units, "units"), round: name(spec.round),
    served: name(spec.served), order: name(spec.order, "order") };
}

/** The engine's drawn order (the draw's `outcome.order`) -> the combat's activation list. */
export function activationsFromOrder(order) {
  return (order ?? []).map((d, i) => ({
    combatantId: d.combatant_id ?? null, name: d.name ?? "", phase: d.phase ?? null,
    chit: d.chit ?? 1, seq: d.seq ?? i + 1, stunned: Boolean(d.stunned),
  }));
}

/** Activations per combatant id, e.g. {c1: 8, c2: 1}. */
export function countByCombatant(list) {
  const out = {};
  for (const a of list ?? []) out[a.combatantId] = (out[a.combatantId] ?? 0) + 1;
  return out;
}

/**
 * From activation `index`, the next one in `direction` (+1 / -1) whose unit can act.
 * `blocked(activation, i)` says why a unit cannot: "stunned" (the activation is lost and
 * remembered: going forward only) or "out" (dead, unconscious: passed over), or null.
 * -> {index (null: none left that way), skipped: [indexes of stunned activations passed]}.
 */
export function advance(list, index, direction, blocked) {
  const step = direction < 0 ? -1 : 1;
  const skipped = [];
  for (let i = index + step; i >= 0 && i < list.length; i += step) {
    const why = blocked(list[i], i);
    if (!why) return { index: i, skipped };
    if (why === "stunned" && step > 0) skipped.push(i);
  }
  return { index: null, skipped };
}

/** Combatant ids whose activation was skipped while stunned. */
export function skippedUnits(state) {
  return new Set((state?.skipped ?? []).map((i) => state.list?.[i]?.combatantId).filter(Boolean));
}

/** Index of a combatant in `combat.turns` (0 if it is not there). */
export function turnIndexOf(turns, combatantId) {
  return Math.max(0, (turns ?? []).findIndex((c) => c.id === combatantId));
}

/**
 * Why a unit cannot take its activation, from its token statuses as engine status ids (the
 * engine's `apply` sets them; systems/index.mjs engineStatuses reads them in the world's ids).
 */
export function blockedByStatuses(statuses, { defeated = false, drawnStunned = false, known = true } = {}) {
  if (!known) return drawnStunned ? "stunned" : null;
  if (defeated || statuses.has("dead") || statuses.has("unconscious")) return "out";
  if (statuses.has("stun")) return "stunned";
  return null;
}

/** The activation list as tracker HTML. */
export function activationsHTML(state, { pending = false, blocked = (a) => (a.stunned ? "stunned" : null) } = {}) {
  const head = `<header class="ff-activations-header"><h4>${escapeHTML(t("FIREFIGHT.ui.combat.order", "Activation order (chit pull)"))}</h4>`;
  if (pending) {
    return `<section class="firefight-activations" data-pending="true">${head}</header><p class="ff-activations-note">${escapeHTML(t("FIREFIGHT.ui.combat.drawing", "Drawing chits…"))}</p></section>`;
  }
  if (!state?.list) return "";
  const skipped = new Set(state.skipped ?? []);
  const count = t("FIREFIGHT.ui.combat.count", "Round {round}: {n} activations", { round: state.round, n: state.list.length });
  const drawnBefore = new Map(); // unit|phase -> chits of it drawn so far (the chit's number is its identity, not its order)
  const items = state.list.map((a, i) => {
    const key = `${a.combatantId}|${a.phase}`;
    const nth = (drawnBefore.get(key) ?? 0) + 1;
    drawnBefore.set(key, nth);
    const ahead = i > state.index ? blocked(a, i) : null; // what will become of it, as things stand
    const cls = ["ff-activation", i === state.index ? "current" : "", i < state.index ? "done" : "",
      skipped.has(i) ? "skipped" : "", a.stunned ? "stunned" : "", ahead === "out" ? "out" : ""].filter(Boolean).join(" ");
    const phase = a.phase ? t("FIREFIGHT.ui.combat.phase", "P{phase}", { phase: a.phase }) : "";
    const note = skipped.has(i) ? ` <span class="ff-note">${escapeHTML(t("FIREFIGHT.ui.combat.skipped", "skipped: stunned"))}</span>`
      : ahead === "stunned" ? ` <span class="ff-note">${escapeHTML(t("FIREFIGHT.ui.combat.stunned", "stunned"))}</span>` : "";
    return `<li class="${cls}" data-index="${i}" data-combatant-id="${escapeHTML(a.combatantId ?? "")}" data-phase="${a.phase ?? ""}">`
      + `<span class="ff-phase">${escapeHTML(phase)}</span> <span class="ff-name">${escapeHTML(a.name)}</span>${nth > 1 ? ` <span class="ff-chit">${escapeHTML(t("FIREFIGHT.ui.combat.second", "2nd chit"))}</span>` : ""}${note}</li>`;
  }).join("");
  return `<section class="firefight-activations" data-round="${state.round}" data-count="${state.list.length}" data-index="${state.index}">${head}`
    + `<span class="ff-activations-count">${escapeHTML(count)}</span></header><ol>${items}</ol></section>`;
}

// --- the table side ----------------------------------------------------------------------------

export function stateOf(combat) {
  return combat?.flags?.[MODULE_ID]?.[FLAG] ?? null;
}


