// The workflow's extension points, for table features (canvas/) and other modules: what fills an
// action's options from the scene, what reacts to a posted result, Foundry hooks around the roll,
// and the table-side actions (no engine action). The workflow reads them; nothing here imports it.
import { MODULE_ID } from "../core/config.mjs";
import { tableFeatures } from "../world/catalog.mjs";

/**
 * Table features that fill an action's options from the scene (facing, sighting-in, cover ...):
 * fn({ruleset, action, a, b}) -> {option: value}; only the action's own options are kept.
 */
export const sceneOptionProviders = [];

/** Table features that react to a posted result: fn({ruleset, action, a, b, request, result, message}). */
export const resultListeners = [];

/** The scene's options for an acting token `a` against `b`, from every provider (a failing one is logged). */
export function sceneOptions(ctx) {
  const out = {};
  for (const fn of sceneOptionProviders) {
    try {
      Object.assign(out, fn(ctx) ?? {});
    } catch (err) {
      console.error("Firefight |", err);
    }
  }
  return out;
}

/**
 * Hooks "firefight.preRequest" (request, context) before a request is resolved: a handler may
 * change the request (the GM's check still applies: only what a player may choose survives it)
 * or return false to cancel. -> whether to go on.
 */
export function preRequest(request, context) {
  return Hooks.call("firefight.preRequest", request, context) !== false;
}

/**
 * The request a dialog's choices make as it will be rolled: "firefight.preRequest" run on a copy
 * (context.odds: true), so the odds shown (and "Copy request") are the odds of the request that
 * is rolled (issue 26). A handler that cancels leaves the copy as it made it.
 */
export function asRolled(request, context) {
  const copy = structuredClone(request);
  Hooks.call("firefight.preRequest", copy, { ...context, odds: true });
  return copy;
}

/** Hooks "firefight.result" (result, message) once a result's card is posted. */
export function announceResult(message) {
  const result = message?.flags?.[MODULE_ID]?.result;
  if (result) Hooks.callAll("firefight.result", result, message);
}

/**
 * Table-side actions (no engine action): name -> fn(opts), offered for a ruleset whose table
 * features list the name (`features.actions`, from the engine's catalog).
 */
export const tableActions = new Map();

export function registerTableAction(name, fn) {
  tableActions.set(name, fn);
}

/** The table-side actions a ruleset uses (those the shim has). */
export function tableActionsOf(ruleset) {
  return (tableFeatures(ruleset).actions ?? []).filter((name) => tableActions.has(name));
}
