// How an error reaches the user: one place for every action, sheet and button (issue 24).
import { EngineError } from "../engine/engine.mjs";
import { errorText, fieldErrorsText } from "./i18n.mjs";

/**
 * Show an engine or shim error to the user; never throws. With the request, a field of one side
 * ("target.stats.hp") is shown with that actor's name, so the referee knows whose data to fix.
 */
export function reportError(err, request = null) {
  let text = errorText(err);
  if (err instanceof EngineError && err.fields?.length) {
    // The engine labels the field (`label_key`); a participant's field also names its actor.
    const who = (field) => {
      const side = String(field).split(".")[0];
      const p = request?.[side];
      const named = p && typeof p === "object" && !Array.isArray(p) && (p.actor_id || p.token_id);
      return named && typeof p.name === "string" ? p.name : null;
    };
    text += ": " + err.fields.map((f) => {
      const one = fieldErrorsText({ fields: [f] });
      return who(f.field) ? `${who(f.field)} — ${one}` : one;
    }).join("; ");
  }
  // A refusal of what the user chose is said to them, and noted in the console without a stack;
  // a fault of ours (the engine's internal error, a script error) is logged whole, for a report.
  if (isFault(err)) console.error("Firefight |", err);
  else console.warn(`Firefight | ${text}`);
  globalThis.ui?.notifications?.error(`Firefight: ${text}`);
}

/** Pure: whether an error is a fault of the code (reported with its stack), not a refusal. */
export function isFault(err) {
  if (err instanceof EngineError) return err.code === "internal_error";
  return err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || err instanceof SyntaxError || !(err instanceof Error);
}
