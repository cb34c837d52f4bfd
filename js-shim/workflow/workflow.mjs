// The one workflow of every action, Shoot included (the ruleset's default action, "attack"):
//   gather (gather.mjs: tokens, targets, weapons, fields) -> dialog (dialog.mjs: schema form, live
//   odds, ammunition, place area) -> roll (roll.mjs: here, or on the active GM's client when the
//   world says so) -> card (card.mjs: roll mode, hidden parts) -> apply (documents/apply.mjs).
// One place for each stage, so roll modes, GM-rolls, ammunition, several targets, hidden results
// and the wording of refusals hold for every action alike (Midi-QOL's Workflow is the model).
import { MODULE_ID, DEFAULT_ACTION } from "../core/config.mjs";
import { escapeHTML } from "../core/form.mjs";
import { t } from "../core/i18n.mjs";
import { reportError } from "../core/errors.mjs";
import { currentRuleset, rulesetActions, tableFeatures } from "../world/catalog.mjs";
import { AmmoRefusal, checkRounds, spendRounds } from "../documents/ammo.mjs";
import { placeAndAct } from "../canvas/template.mjs";
import { gather, checkSeveral } from "./gather.mjs";
import { actionDialog, bringForward } from "./dialog.mjs";
import { resolveWithEntropy, rollsThroughGM, rollThroughGM, debugging } from "./roll.mjs";
import { postCard } from "./card.mjs";
import { actionLabel, offeredActions } from "./plan.mjs";
import { preRequest, asRolled, announceResult, resultListeners, tableActions, tableActionsOf } from "./hooks.mjs";

const localize = (k) => game.i18n.localize(k);

/** The dialogs open now, by action ({dialog}: null while one is being prepared). */
const openDialogs = new Map();

/**
 * Run an action: gather, dialog, roll, card, apply. Resolves the ChatMessage carrying the (last)
 * result, or null when cancelled or refused (the refusal is shown to the user).
 * opts: {ruleset, actor (attacker), target, targets, origin, values, options, house, weapon,
 * places, dialog = true, apply (default: the world's autoApply), flags (kept on the card)}
 */
export async function act(engine, applier, action, opts = {}) {
  const ruleset = opts.ruleset ?? currentRuleset();
  if (!action) return pickAction(engine, applier, opts);
  const withDialog = opts.dialog !== false;
  // One dialog of an action at a time (issue 16): asked again (button, key, HUD), it comes forward.
  if (withDialog && openDialogs.has(action)) {
    bringForward(openDialogs.get(action).dialog);
    return null;
  }
  const mark = withDialog ? { dialog: null } : null;
  if (mark) openDialogs.set(action, mark);
  const release = () => { if (mark && openDialogs.get(action) === mark) openDialogs.delete(action); };
  let request = null;
  try {
    if (engine.status && engine.status !== "ready") ui.notifications?.info(t("FIREFIGHT.ui.engine.booting", "Firefight engine is starting…"));
    const ctx = await gather(engine, ruleset, action, opts);
    let choice = ctx.firstChoice;
    if (ctx.needsDialog) {
      // The dialog's live odds and "Copy request" take the request its choices make, unchecked, as
      // it will be rolled ("firefight.preRequest" on a copy: hooks.mjs asRolled).
      const requestNow = (c) => asRolled(ctx.build(c, { check: false }), { ...ctx.hookContext(c), gmRolls: rollsThroughGM() });
      const odds = (c) => engine.call("odds", { request: requestNow(c) });
      // Roll is refused in the dialog, the dialog kept open, while its request would be: a
      // required field left empty, or what the engine refuses (its field named by its label).
      const validate = async (c) => {
        try {
          await engine.call("odds", { request: asRolled(ctx.build(c), { ...ctx.hookContext(c), gmRolls: rollsThroughGM() }) });
          return null;
        } catch (err) {
          return err;
        }
      };
      choice = await actionDialog(engine, ctx, { odds, requestNow, validate, mark });
      release();
      if (!choice) return null;
      // "Place area" (template.mjs): the area is placed by hand, then the area's action is asked there.
      if (choice.place) {
        // Short already (the odds of the figures targeted now say so): refused before the area is placed.
        if (!ctx.isDefault) {
          await checkRounds(engine, ctx.build(choice, { check: false }), choice.weapon)
            .catch((err) => { if (err instanceof AmmoRefusal) throw err; });
        }
        return await placeAndAct(ruleset, action, { actor: ctx.self, weapon: choice.weapon?.id,
          values: ctx.isDefault ? {} : choice.values, dialog: ctx.isDefault });
      }
      if (ctx.figures && ctx.figures.length < ctx.plan.list.min && !(opts.values?.[ctx.plan.list.name])) {
        throw new Error(t("FIREFIGHT.ui.actions.error.noTargets", "Target the figures first."));
      }
    }
    // One request per target (each at its own range, with its own scene options).
    const targets = ctx.targets.length ? ctx.targets : [null];
    const requests = targets.map((tk) => ctx.build(choice, { target: tk }));
    request = requests[0];
    checkSeveral(ctx, requests);
    let message = null;
    for (const [i, tk] of targets.entries()) {
      // Each target's roll stands alone: one refused (by the GM's client ...) leaves the others.
      try {
        const posted = await rollAndPost(engine, applier, ctx, choice, requests[i], tk, opts);
        if (posted) message = posted;
      } catch (err) {
        reportError(err, requests[i]);
      }
    }
    return message;
  } catch (err) {
    reportError(err, request);
    return null;
  } finally {
    release();
  }
}

/**
 * One request's roll, card and apply: the hooks, the rounds checked, the dice (here or by the
 * GM's client), the card, the rounds taken off, the listeners, and the apply the world or the
 * caller asks for. -> the message, or null when a "firefight.preRequest" handler cancelled.
 */
async function rollAndPost(engine, applier, ctx, choice, built, target, opts) {
  let request = built;
  const gmRolls = rollsThroughGM();
  if (!preRequest(request, { ...ctx.hookContext(choice, target), gmRolls })) return null;
  // A magazine short of the rounds this fires: refused before anything is rolled.
  await checkRounds(engine, request, choice.weapon);
  let message;
  let result;
  if (gmRolls) {
    // The world wants dice a player's client cannot choose: the active GM's client checks the
    // request against the table, rolls, posts the card and takes the rounds off (relay/gm.mjs).
    message = await rollThroughGM(request, { flags: opts.flags });
    request = message.flags?.[MODULE_ID]?.request ?? request;
    result = message.flags?.[MODULE_ID]?.result ?? null;
  } else {
    const reply = await resolveWithEntropy(engine, request);
    if (debugging()) console.debug("Firefight |", { request, reply });
    message = await postCard(reply, request, ctx.self ?? target, { extra: opts.flags ?? {} });
    await spendRounds(choice.weapon, reply.result);
    result = reply.result;
  }
  announceResult(message);
  for (const fn of resultListeners) {
    try {
      await fn({ ruleset: ctx.ruleset, action: ctx.action, a: ctx.self, b: target, request, result, message });
    } catch (err) {
      reportError(err);
    }
  }
  // A player's hidden result is the referee's to apply (its card went to the GMs).
  const wantApply = opts.apply ?? game.settings.get(MODULE_ID, "autoApply");
  if (message?.flags?.[MODULE_ID]?.result && wantApply && applier) await applier.request(message);
  Hooks.callAll("firefightAction", { ruleset: ctx.ruleset, action: ctx.action, request, result, message });
  return message;
}

/** Shoot: the ruleset's default action on the workflow (api.shoot). */
export function shoot(engine, applier, opts = {}) {
  return act(engine, applier, DEFAULT_ACTION, opts);
}

/** A picker of the ruleset's actions (plus the table's own, e.g. "sight_in"), Shoot aside. */
async function pickAction(engine, applier, opts) {
  const ruleset = opts.ruleset ?? currentRuleset();
  const actions = offeredActions([...rulesetActions(ruleset).filter((a) => a !== DEFAULT_ACTION), ...tableActionsOf(ruleset)],
    tableFeatures(ruleset), Boolean(game.user?.isGM));
  if (!actions.length) {
    ui.notifications?.info(t("FIREFIGHT.ui.actions.none", "This ruleset has no other actions."));
    return null;
  }
  const DialogV2 = foundry.applications.api.DialogV2;
  const choice = await DialogV2.wait({
    window: { title: t("FIREFIGHT.ui.actions.title", "Firefight actions"), icon: "fa-solid fa-list" },
    classes: ["firefight-dialog", "firefight-action-picker"],
    position: { width: 360 },
    content: `<div class="ff-action-list">${actions.map((a) => `<label class="ff-action-choice"><input type="radio" name="ff-action" value="${escapeHTML(a)}"> ${escapeHTML(actionLabel(ruleset, a, localize))}</label>`).join("")}</div>`,
    buttons: [{ action: "pick", label: t("FIREFIGHT.ui.actions.pick", "Choose"), default: true,
      callback: (ev, button) => button.form.querySelector('input[name="ff-action"]:checked')?.value ?? null }],
    rejectClose: false,
  });
  if (!choice || choice === "pick") return null;
  return runAction(engine, applier, choice, opts);
}

/** api.act: a table-side action the ruleset uses if one has the name, else the engine's. */
export function runAction(engine, applier, action, opts = {}) {
  if (action && tableActionsOf(opts.ruleset ?? currentRuleset()).includes(action)) return tableActions.get(action)(opts);
  return act(engine, applier, action, opts);
}
