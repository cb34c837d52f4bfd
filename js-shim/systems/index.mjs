// System adapters: what Firefight needs to know about the game system a world runs.
// Firefight keeps its own data in flags.firefight on any system's actors and items; what differs
// per system is small and mostly data, one file per system keyed by game.system.id (the shape of
// Item Piles' src/systems/), with `core` as the fallback for any other system:
//   documentTypes  the Actor/Item type a pack document of each Firefight role imports as
//                  (roles: Actor "character" | "npc", Item "weapon" | "armor" | "gear")
//   documentDefaults  the minimal `system` the packs give each document type
//   stamp          what every pack document (and embedded item) carries to say which version of the
//                  system's data it holds ({_stats, system}), merged under the document's own
//   statuses       engine status id -> the system's status id (null: the system has none)
//   sheet          where the Firefight tab goes on the system's actor sheets
//                  {nav: selector of the tab links, body: selector of the tab sections, link:
//                  {classes, icon} for a link like the system's}; {} = the generic guess
//   itemSheet      the same for its item sheets, and `hooks`: the render hooks its item sheets
//                  fire (default: core's "renderItemSheetV2", "renderItemSheet")
// Node imports these files too (tools/build_packs.mjs builds one pack per system from them), so
// they touch no browser global at import time.
import core from "./core.mjs";
import worldbuilding from "./worldbuilding.mjs";
import dnd5e from "./dnd5e.mjs";
import pf2e from "./pf2e.mjs";

/** Adapters of the systems Firefight ships packs for, by game.system.id. */
export const ADAPTERS = Object.freeze({ worldbuilding, dnd5e, pf2e });

/** The adapter for a system id (core's for a system without one of its own). */
export function adapterFor(systemId) {
  return ADAPTERS[systemId] ?? core;
}

/** The adapter of the world's system. */
export function currentAdapter() {
  return adapterFor(globalThis.game?.system?.id);
}

// --- token statuses ------------------------------------------------------------------------------
// The engine speaks its own status ids (dead, unconscious, stun, prone, bleeding, fear). Core's
// Actor#toggleStatusEffect throws `Invalid status ID "…"` for an id that is not in
// CONFIG.statusEffects (foundryvtt.com/api Actor#toggleStatusEffect; copied verbatim by systems
// that override it, e.g. crnormand/gurps), and systems replace that list (dnd5e.mjs
// _configureStatusEffects; pf2e src/module/canvas/status-effects.ts). So every status the shim
// reads or toggles goes through these helpers: mapped by the world's adapter, then checked
// against CONFIG.statusEffects at runtime. A status the system lacks is reported, never toggled.

/** The world's status id for an engine status id, or null when the system has no such status. */
export function systemStatus(engineId, { adapter = currentAdapter(), statusEffects = globalThis.CONFIG?.statusEffects } = {}) {
  const mapped = Object.hasOwn(adapter.statuses ?? {}, engineId) ? adapter.statuses[engineId] : engineId;
  if (!mapped) return null;
  if (Array.isArray(statusEffects) && !statusEffects.some((s) => s?.id === mapped)) return null;
  return mapped;
}

/** Whether an actor shows an engine status (false when the world's system has none). */
export function hasStatus(actor, engineId) {
  const id = systemStatus(engineId);
  if (!id || !actor) return false;
  // pf2e keeps its conditions as items: ActorPF2e#hasCondition (src/module/actor/base.ts).
  return Boolean(actor.statuses?.has?.(id)) || Boolean(actor.hasCondition?.(id));
}

/**
 * The status changes engine statuses ({engineId: active}) make on an actor, without writing:
 * [{engineId, id (the world's status id, null: the system has none), active, was}], only those
 * that change something (a missing status is listed when it was asked to be on).
 */
export function statusPlan(actor, statuses) {
  const out = [];
  for (const [engineId, on] of Object.entries(statuses ?? {})) {
    const id = systemStatus(engineId);
    const active = Boolean(on);
    if (!id) {
      if (active) out.push({ engineId, id: null, active, was: false });
      continue;
    }
    const was = Boolean(actor?.statuses?.has?.(id)) || Boolean(actor?.hasCondition?.(id));
    if (was !== active) out.push({ engineId, id, active, was });
  }
  return out;
}

/** Turn one of the world's statuses on or off (an id from systemStatus / statusPlan). */
export async function setStatus(actor, id, active) {
  if (!id || typeof actor?.toggleStatusEffect !== "function") return false;
  await actor.toggleStatusEffect(id, { active: Boolean(active) });
  return true;
}

/** Apply an engine status by its engine id; false (and nothing toggled) when the system lacks it. */
export async function setEngineStatus(actor, engineId, active) {
  return setStatus(actor, systemStatus(engineId), active);
}

/** The engine status ids an actor shows (read through the world's status ids). */
export function engineStatuses(actor, adapter = currentAdapter()) {
  const ids = new Set([...Object.keys(core.statuses), ...Object.keys(adapter.statuses ?? {})]);
  return new Set([...ids].filter((engineId) => hasStatus(actor, engineId)));
}
