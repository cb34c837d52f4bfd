// The shot: tokens -> dialog (weapon, options, live odds) -> resolve -> ChatMessage.
import { MODULE_ID, ENTROPY_START, ENTROPY_MAX } from "./config.mjs";
import { buildRequest, weaponsOf, rangeFromMeasure, rulesetData, ownsToken, tokenAddress } from "./request.mjs";
import { rollDataFromResult, EntropyStream } from "./dice.mjs";
import { fieldsFromSchema, defaultValues, renderFields, readForm, escapeHTML, choicesUnder, oddsBreakdown, percentText } from "./form.mjs";
import { EngineError } from "./engine.mjs";
import { t, said, localize, fieldErrorsText, errorText, numberText } from "./i18n.mjs";
import { rulesetSettings, houseSettings, unitMetres, gmRollsShots } from "./settings.mjs";
import { Refusal, ask } from "./relay.mjs";
import { currentRuleset, houseRules, tableFeatures } from "./catalog.mjs";
import { worldTables } from "./features.mjs";
import { houseFields, houseOptions, houseRequest, houseSectionHTML, chosenHouseOptions, unknownHouseOption } from "./house.mjs";
import { checkRounds, spendRounds, wireAmmo, roundsOf } from "./ammo.mjs";
import { placeButton, placeAndAct, severalTargets, severalTargetsError } from "./template.mjs";
import { copyRequestHTML, wireCopyRequest } from "./copy-request.mjs";

export { currentRuleset };

const schemaCache = new Map();

/**
 * Table features that fill shot options from the scene (facing, sighting-in ...) and react to
 * a posted shot: fn({ruleset, a, b}) -> options; fn({ruleset, a, b, request, result, message}).
 */
export const shotOptionProviders = [];
export const shotListeners = [];

function autoOptions(ctx) {
  const out = {};
  for (const fn of shotOptionProviders) {
    try {
      Object.assign(out, fn(ctx) ?? {});
    } catch (err) {
      console.error("Firefight |", err);
    }
  }
  return out;
}

/**
 * Show an engine or shim error to the user; never throws. With the request, a field of one side
 * ("target.stats.hp") is shown with that actor's name, so the referee knows whose data to fix.
 */
export function reportError(err, request = null) {
  let text = errorText(err);
  if (err instanceof EngineError && err.fields?.length) {
    // The engine labels the field (`label_key`); a side's field also names its actor.
    const who = (field) => {
      const side = String(field).split(".")[0];
      return side === "attacker" || side === "target" ? request?.[side]?.name : null;
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
  ui.notifications?.error(`Firefight: ${text}`);
}

/** Pure: whether an error is a fault of the code (reported with its stack), not a refusal. */
export function isFault(err) {
  if (err instanceof EngineError) return err.code === "internal_error";
  return err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || err instanceof SyntaxError || !(err instanceof Error);
}

/** The language cards are rendered in (Foundry's client language). */
export function cardLanguage() {
  return globalThis.game?.i18n?.lang ?? "en";
}

/**
 * Distance between two tokens on the scene, as a request range: the straight line between their
 * centres (GridMeasurePathResult#euclidean), whatever the scene's diagonal rule (`distance` counts
 * a diagonal as one square on a default v13 scene, CONST.GRID_DIAGONALS.EQUIDISTANT).
 */
export function measureRange(a, b) {
  const path = canvas.grid.measurePath([a.center, b.center]);
  return rangeFromMeasure(path.euclidean, canvas.scene?.grid?.units ?? canvas.grid.units, unitMetres());
}

export async function optionsSchema(engine, ruleset) {
  if (!schemaCache.has(ruleset)) {
    const p = engine.call("schema", { ruleset });
    schemaCache.set(ruleset, p);
    p.catch(() => schemaCache.delete(ruleset));
  }
  return (await schemaCache.get(ruleset)).options;
}

/**
 * The world's RollTables an action's request carries (`features.actionTables.<action>`: {field,
 * by}, read as the sheet's buttons read theirs: features.mjs `worldTables`): {<field>: tables}, or
 * {} when the ruleset names none or the world has none.
 */
export function actionTables(ruleset, action) {
  const spec = tableFeatures(ruleset).actionTables?.[action];
  if (!spec?.field || !spec?.by) return {};
  const tables = worldTables(ruleset, spec.by);
  return Object.keys(tables).length ? { [spec.field]: tables } : {};
}

/** resolve with VTT entropy; top the list up (never redrawn: dice.mjs) while the engine reports it ran out. */
export async function resolveWithEntropy(engine, request, random = () => CONFIG.Dice.randomUniform()) {
  const stream = new EntropyStream(random);
  for (let n = ENTROPY_START; ; n *= 4) {
    const entropy = stream.take(n);
    try {
      return await engine.call("resolve", { request, entropy, lang: cardLanguage() });
    } catch (err) {
      if (err?.code !== "entropy_exhausted" || n * 4 > ENTROPY_MAX) throw err;
    }
  }
}

function pickTokens({ attacker, target }) {
  const a = attacker ?? canvas.tokens.controlled[0];
  // Every targeted token but the shooter (several only where the ruleset allows: template.mjs).
  const targets = target ? [target] : [...game.user.targets].filter((t) => t !== a && t.id !== a?.id);
  const b = targets[0] ?? [...game.user.targets][0];
  if (!a) throw new Error(t("FIREFIGHT.ui.error.noAttacker", "Select your token first."));
  if (!b) throw new Error(t("FIREFIGHT.ui.error.noTarget", "Target a token first."));
  if (a === b || (a.id && a.id === b.id)) throw new Error(t("FIREFIGHT.ui.error.selfTarget", "A token cannot shoot itself."));
  // A player shoots only with a token they own: refused here, before anything is rolled (the GM
  // relay refuses to apply such a shot too).
  if (!ownsToken(a)) throw new Error(t("FIREFIGHT.ui.error.notOwner", "You do not own {name}: act only with your own tokens.", { name: a.name ?? "?" }));
  return { a, b, targets: targets.length ? targets : [b] };
}

/**
 * The headline chance in the client's language (the exact fraction goes in a tooltip: issue 16,
 * no raw fractions). A shot of several rolls (the odds' `rolls`) says its chance is per roll and
 * that the outcomes below are for the whole shot; the modifiers' totals are in "Why", per step.
 */
function formatOdds(odds) {
  const rolls = Number.isInteger(odds.rolls) && odds.rolls > 1 ? odds.rolls : 0;
  const detail = rolls ? t("FIREFIGHT.ui.dialog.rolls", "per roll; this shot makes {n} {n:roll|rolls}: the outcomes are for all of them", { n: rolls }) : "";
  return { pct: percentText(odds.probability, cardLanguage(), odds.exact), detail };
}

/** A step's name for the "Why" tables: the ruleset's own step label (`FIREFIGHT.<id>.step.<step>`, as the card's). */
function stepName(step) {
  const key = `FIREFIGHT.${currentRuleset()}.step.${step}`;
  const text = t(key, "");
  return text && text !== key ? text : String(step).replace(/_/g, " ");
}

const WHY_KEY = "firefight.whyOpen";

/** Whether the "Why" section starts open: yes on first use, then as the user left it (this browser). */
function whyOpen() {
  try {
    return globalThis.localStorage?.getItem(WHY_KEY) !== "0";
  } catch {
    return true;
  }
}

/**
 * The odds box of a dialog: the headline chance (a polite live region), then every outcome's
 * chance and a collapsible "Why" (modifiers with their sources, notes) that `showOdds` fills.
 */
export function oddsBoxHTML(label = t("FIREFIGHT.ui.dialog.hitChance", "Hit chance")) {
  return `<div class="ff-odds" data-firefight-odds aria-live="polite">
    <span class="ff-odds-label">${escapeHTML(label)}</span>
    <span class="ff-odds-value" data-odds-value>…</span>
    <span class="ff-odds-detail" data-odds-detail></span>
  </div>
  <div class="ff-breakdown" data-firefight-breakdown>
    <div class="ff-outcome-list" data-odds-outcomes></div>
    <details class="ff-why" data-odds-why${whyOpen() ? " open" : ""}><summary>${escapeHTML(t("FIREFIGHT.ui.dialog.why", "Why"))}</summary>
      <div class="ff-why-body" data-odds-why-body></div></details>
  </div>`;
}

/** Remember whether the user keeps "Why" open. */
function watchWhy(root) {
  const why = root?.querySelector?.("[data-odds-why]");
  why?.addEventListener("toggle", () => {
    try {
      globalThis.localStorage?.setItem(WHY_KEY, why.open ? "1" : "0");
    } catch {
      // storage off: it opens again next time
    }
  });
}

/**
 * Keep a dialog's odds box live: `compute()` -> the odds of what the form says now, asked again
 * on every change (a number as it is typed); only the latest answer is shown.
 */
export function liveOdds(form, compute) {
  let seq = 0;
  const refresh = async () => {
    const mine = ++seq;
    const out = form.querySelector("[data-firefight-odds]");
    out?.classList.add("pending");
    try {
      const odds = await compute();
      if (mine === seq) showOdds(form, odds);
    } catch (err) {
      if (mine === seq) showOdds(form, null, err);
    } finally {
      if (mine === seq) out?.classList.remove("pending");
    }
  };
  watchWhy(form);
  form.addEventListener("change", refresh);
  form.addEventListener("input", (ev) => { if (ev.target.type === "number") refresh(); });
  refresh();
  return refresh;
}

/** Render an `odds` reply (or the error it failed with) into a dialog's odds box. */
export function showOdds(root, odds, err = null) {
  const out = root?.querySelector?.("[data-firefight-odds]");
  if (!out) return;
  const outcomes = root.querySelector("[data-odds-outcomes]");
  const why = root.querySelector("[data-odds-why-body]");
  if (err) {
    out.hidden = false;
    out.querySelector("[data-odds-value]").textContent = "—";
    out.querySelector("[data-odds-value]").removeAttribute("title");
    // The fields at fault by the dialog's own labels, in the client's language.
    const labelOf = (path) => root.querySelector?.(`.form-group[data-field="${CSS.escape(path)}"] label`)?.textContent ?? "";
    out.querySelector("[data-odds-detail]").textContent = fieldErrorsText(err, labelOf) || errorText(err);
    out.classList.add("error");
    if (outcomes) outcomes.innerHTML = "";
    if (why) why.innerHTML = "";
    return;
  }
  // An action without a chance has empty odds: no box.
  const none = !odds || (typeof odds.probability !== "number" && !odds.outcomes?.length);
  out.hidden = none;
  root.querySelector("[data-firefight-breakdown]")?.toggleAttribute("hidden", none);
  if (none) return;
  // The action's own title for its chance (the engine's `label_key`: Action.odds_label_key), else the box's.
  const label = out.querySelector(".ff-odds-label");
  if (label) {
    label.dataset.defaultLabel ??= label.textContent;
    label.textContent = odds.label_key ? t(odds.label_key, label.dataset.defaultLabel) : label.dataset.defaultLabel;
  }
  const f = formatOdds(odds);
  const value = out.querySelector("[data-odds-value]");
  value.textContent = f.pct;
  if (odds.exact) value.title = t("FIREFIGHT.ui.dialog.exact", "exactly {fraction}", { fraction: odds.exact });
  out.querySelector("[data-odds-detail]").textContent = f.detail;
  out.dataset.probability = String(odds.probability);
  out.classList.remove("error");
  const parts = oddsBreakdown(odds, {
    format: (k, p) => t(k, k, p),
    lang: cardLanguage(),
    labels: {
      outcome: t("FIREFIGHT.ui.dialog.outcome", "Outcome"), chance: t("FIREFIGHT.ui.dialog.chance", "Chance"),
      modifier: t("FIREFIGHT.ui.dialog.modifier", "Modifier"), value: t("FIREFIGHT.ui.dialog.value", "Value"),
      source: t("FIREFIGHT.ui.dialog.source", "Source"), notes: t("FIREFIGHT.ui.dialog.notes", "Notes"),
      noModifiers: t("FIREFIGHT.ui.dialog.noModifiers", "No modifiers"),
      exact: t("FIREFIGHT.ui.dialog.exact", "exactly {fraction}"),
      total: t("FIREFIGHT.ui.dialog.total", "Total"),
      step: stepName,
    },
  });
  if (outcomes) outcomes.innerHTML = parts.outcomes;
  if (why) why.innerHTML = parts.why;
  root.querySelector("[data-odds-why]")?.toggleAttribute("hidden", !parts.why);
}

function dialogContent({ a, b, targets = [b], range, weapons, fields, values, house }) {
  const weaponOpts = weapons.map((w, i) => `<option value="${i}">${escapeHTML(w.name)}</option>`).join("");
  return `<div class="firefight-shot">
  <p class="ff-matchup"><strong>${escapeHTML(a.name)}</strong> → ${targets.map((tk) => `<strong data-target="${escapeHTML(tk.id)}">${escapeHTML(tk.name)}</strong>`).join(", ")}
    <span class="ff-range">${escapeHTML(numberText(Math.round(range.value * 10) / 10, cardLanguage()))} ${escapeHTML(range.units)}</span></p>
  <div class="ff-shot-columns">
  <div class="ff-shot-options">
  <div class="form-group" data-field="weapon"><label for="firefight-weapon">${escapeHTML(t("FIREFIGHT.ui.dialog.weapon", "Weapon"))}</label>
    <div class="form-fields"><select id="firefight-weapon" name="weapon">${weaponOpts}</select></div></div>
  <div class="form-group ff-ammo" data-firefight-ammo hidden></div>
  ${renderFields(fields, values)}
  ${houseSectionHTML(house.rules, house.fields, values, { heading: t("FIREFIGHT.ui.dialog.houseRules", "House rules"), localize: (k) => game.i18n.localize(k) })}
  </div>
  <div class="ff-shot-outcome">${oddsBoxHTML()}<p class="ff-facing" data-firefight-facing hidden></p>${copyRequestHTML()}</div>
  </div>
</div>`;
}

/** The Shoot dialog open now ({dialog}: null while it is being prepared), or null. */
let openShot = null;

/** Bring an open dialog to the front (ApplicationV2#bringToFront) and put the focus in it. */
function bringForward(dialog) {
  dialog?.bringToFront?.();
  const el = dialog?.element;
  (el?.querySelector?.("select, input, button.default") ?? el)?.focus?.();
}

/** Open the shot dialog; resolves {weaponItem, options, house} or null. */
async function shotDialog(engine, ctx) {
  const { ruleset, a, b, range, weapons, fields, house } = ctx;
  const values = { ...defaultValues(fields), ...defaultValues(house.fields), ...(ctx.auto ?? {}) };
  const DialogV2 = foundry.applications.api.DialogV2;
  const read = (form) => ({
    weaponItem: weapons[Number(form.elements.namedItem("weapon").value)] ?? weapons[0],
    options: readForm(form, fields),
    house: houseRequest(house.rules, houseOptions(readForm(form, house.fields), house.rules), houseSettings),
  });
  const result = await DialogV2.wait({
    window: { title: t("FIREFIGHT.ui.dialog.title", "Fire!"), icon: "fa-solid fa-crosshairs" },
    classes: ["firefight-dialog"],
    // Options beside their outcome: both stay in view in a 1280x720 window (issue 16).
    position: { width: 760 },
    content: dialogContent({ a, b, targets: ctx.targets, range, weapons, fields, values, house }),
    buttons: [
      { action: "fire", label: t("FIREFIGHT.ui.dialog.fire", "Fire"), icon: "fa-solid fa-crosshairs", default: true,
        callback: (event, button) => read(button.form) },
      // Area fire at an area placed by hand, where the ruleset has it (template.mjs).
      ...[placeButton(ruleset, "attack", read)].filter(Boolean),
      { action: "cancel", label: t("FIREFIGHT.ui.dialog.cancel", "Cancel"), icon: "fa-solid fa-xmark" },
    ],
    render: (event, dialog) => {
      if (ctx.mark) ctx.mark.dialog = dialog ?? event?.target ?? null;
      const root = dialog?.element ?? event?.target?.element;
      const form = root?.querySelector("form") ?? root;
      if (!form) return;
      // The chosen weapon's magazine, with the rounds each odds reply says the shot fires.
      let showAmmo = () => {};
      // The request the choices make now: for the live odds and "Copy request".
      const requestNow = () => {
        const { weaponItem, options, house: chosen } = read(form);
        const request = buildRequest({ ruleset, attackerToken: a, targetToken: b, weaponItem, range, options, settings: ctx.settings, house: chosen, tables: ctx.tables });
        return asRolled(request, { ruleset, action: "attack", user: game.user, attacker: a, target: b, weapon: weaponItem, gmRolls: !game.user?.isGM && gmRollsShots() });
      };
      wireCopyRequest(form, requestNow);
      let facing = () => {};
      const refresh = liveOdds(form, async () => {
        const request = requestNow();
        const odds = await engine.call("odds", { request });
        showAmmo(roundsOf(odds));
        facing(request, odds);
        return odds;
      });
      showAmmo = wireAmmo(form, () => read(form).weaponItem, () => refresh());
      facing = offerToFace(engine, form, a, b, () => refresh());
    },
    rejectClose: false,
  });
  return result && typeof result === "object" ? result : null;
}

/**
 * Where the shot's options carry the shooter's facing (`bearing_deg`, filled from the token's
 * rotation: features.mjs), and facing the target would change the chance, the dialog says so and
 * offers to turn the shooter (its owner's button): a token dropped on the scene faces south, so
 * a first shot along a row was hasty fire without a word (UX walkthrough 3 #12).
 * -> show(request, odds), called with each odds reply.
 */
function offerToFace(engine, form, a, b, refresh) {
  const box = form.querySelector("[data-firefight-facing]");
  const field = form.querySelector('[name="opt.bearing_deg"]');
  if (!box) return () => {};
  let asked = 0;
  return async (request, odds) => {
    const mine = ++asked;
    const bearing = request?.options?.bearing_deg;
    let faced = null;
    if (typeof bearing === "number" && Math.abs(bearing) >= 1 && typeof odds?.probability === "number") {
      const turned = structuredClone(request);
      turned.options.bearing_deg = 0;
      faced = await engine.call("odds", { request: turned }).catch(() => null);
    }
    if (mine !== asked) return;
    if (!faced || faced.probability === odds.probability) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const text = document.createElement("span");
    text.textContent = t("FIREFIGHT.ui.dialog.facing", "{name} faces {degrees}° away from {target}; facing it, the hit chance would be {chance}.",
      { name: a.name, target: b.name, degrees: Math.round(Math.abs(bearing)), chance: percentText(faced.probability, cardLanguage()) });
    box.replaceChildren(text);
    if (a.document?.isOwner ?? a.isOwner) {
      const turn = document.createElement("button");
      turn.type = "button";
      turn.dataset.firefightAction = "face-target";
      turn.textContent = t("FIREFIGHT.ui.dialog.turn", "Turn to face {target}", { target: b.name });
      turn.addEventListener("click", async () => {
        turn.disabled = true;
        const rotation = (((a.document?.rotation ?? 0) + bearing) % 360 + 360) % 360;
        await a.document.update({ rotation });
        if (field) field.value = "0";
        refresh();
      });
      box.append(turn);
    }
    box.hidden = false;
  };
}

/**
 * Post the resolved shot as a ChatMessage whose rolls are the engine's dice. `rolledFor`: the
 * player a GM's client rolled it for (they may then ask for it to be applied); `rollMode`: theirs.
 */
export async function postCard(reply, request, speakerToken, { rolledFor = null, rollMode = null } = {}) {
  const rolls = rollDataFromResult(reply.result).map((data) => Roll.fromData(data));
  const data = {
    speaker: ChatMessage.getSpeaker({ token: speakerToken?.document ?? speakerToken }),
    content: reply.html,
    rolls,
    flags: { [MODULE_ID]: { result: reply.result, request, ...(rolledFor ? { rolledFor } : {}) } },
  };
  if (CONFIG.sounds?.dice) data.sound = CONFIG.sounds.dice;
  if (typeof ChatMessage.applyRollMode === "function" && game.settings.settings?.has?.("core.rollMode")) {
    ChatMessage.applyRollMode(data, rollMode ?? game.settings.get("core", "rollMode"));
    if (rolledFor) forTheRoller(data, rolledFor, rollMode);
  }
  return ChatMessage.create(data);
}

/**
 * A card the GM's client rolled for a player, shown to that player as Foundry shows their own roll
 * in their roll mode (the GM's client is its author, so the whisper must name them): a private GM
 * roll is read by the GMs and its roller; a blind roll by the GMs only (its roller sees that it
 * was rolled, as any whispered roll is seen); a self roll by its roller only.
 */
function forTheRoller(data, rolledFor, rollMode) {
  if (rollMode === "gmroll") data.whisper = [...new Set([...(data.whisper ?? []), rolledFor])];
  else if (rollMode === "selfroll") data.whisper = [rolledFor];
}

const ROLL_MODES = new Set(["publicroll", "gmroll", "blindroll", "selfroll", "roll"]);

/** A token placeable (or its document) from the address a request carries. */
function tokenAt(address) {
  if (typeof address !== "string" || !address) return null;
  const doc = address.includes(".") ? globalThis.fromUuidSync?.(address) : canvas.tokens?.get?.(address)?.document;
  return doc?.object ?? canvas.tokens?.get?.(doc?.id) ?? null;
}

/**
 * The active GM's side of "The GM's client rolls players' shots": the player chose the tokens,
 * the weapon, the options and the house rules' options; everything else comes from the table
 * here, the dice from this client, and the card is posted with the player's token as its speaker.
 * payload {attacker, target (token addresses), weapon (item id), options, house ({<rule id>:
 * options}), rollMode} -> {messageId}
 */
export async function rollForPlayer(engine, applier, payload, sender) {
  const refuse = (code, reason) => { // reason: text or a `said` text, which the player says in its language
    console.warn(`Firefight | refused a shot from ${sender.name}: ${code} — ${localize(reason)}`);
    return new Refusal(code, reason);
  };
  if (!gmRollsShots()) throw refuse("gm_rolls_off", said("FIREFIGHT.ui.gmRolls.off", "The GM's client does not roll players' shots in this world."));
  const ruleset = currentRuleset();
  const a = tokenAt(payload.attacker);
  const b = tokenAt(payload.target);
  if (!a || !b) throw refuse("unknown_token", said("FIREFIGHT.ui.gmRolls.noToken", "the shooter or the target is not on the scene the GM views"));
  if (a === b) throw refuse("self_target", said("FIREFIGHT.ui.error.selfTarget", "A token cannot shoot itself."));
  if (!ownsToken(a, sender)) {
    throw refuse("not_owner", said("FIREFIGHT.ui.error.notOwner", "You do not own {name}: act only with your own tokens.", { name: a.name ?? "?" }));
  }
  const weaponItem = weaponsOf(a.actor, ruleset).find((w) => w.id === payload.weapon);
  if (!weaponItem) throw refuse("not_weapon", said("FIREFIGHT.ui.gmRolls.weapon", "{name} carries no such weapon", { name: a.name }));
  // The options are the player's choice: only the dialog's fields (the engine checks their values).
  const fields = fieldsFromSchema(await optionsSchema(engine, ruleset), (k) => k);
  const known = new Set(fields.map((f) => f.name));
  const options = payload.options && typeof payload.options === "object" && !Array.isArray(payload.options) ? payload.options : {};
  const extra = Object.keys(options).find((k) => !known.has(k));
  if (extra) throw refuse("unknown_option", said("FIREFIGHT.ui.gmRolls.option", "{field} is not an option of this shot", { field: `options.${extra}` }));
  // The house rules: the world's, for this ruleset; the player chose only their dialog fields.
  const rules = houseRules(ruleset, "attack");
  const badHouse = unknownHouseOption(payload.house, rules);
  if (badHouse) throw refuse("unknown_option", said("FIREFIGHT.ui.gmRolls.option", "{field} is not an option of this shot", { field: badHouse }));
  const house = houseRequest(rules, payload.house ?? {}, houseSettings);
  const request = buildRequest({ ruleset, attackerToken: a, targetToken: b, weaponItem, range: measureRange(a, b), options,
    settings: rulesetSettings(ruleset), house, tables: actionTables(ruleset, "attack") });
  // The rounds from the request built here, never the player's word (ammo.mjs).
  try {
    await checkRounds(engine, request, weaponItem);
  } catch (err) {
    throw refuse(err.code ?? "no_ammo", err.said ?? err.message);
  }
  const reply = await resolveWithEntropy(engine, request);
  const rollMode = ROLL_MODES.has(payload.rollMode) ? payload.rollMode : null;
  const message = await postCard(reply, request, a, { rolledFor: sender.id, rollMode });
  await spendRounds(weaponItem, reply.result);
  return { messageId: message?.id ?? null };
}

/** A player's shot rolled by the active GM's client: resolves the ChatMessage (or throws why not). */
async function shootThroughGM(a, b, request) {
  const reply = await ask("shoot", {
    attacker: tokenAddress(a), target: tokenAddress(b), weapon: request.weapon?.item_id ?? null, options: request.options,
    house: chosenHouseOptions(request.house),
    rollMode: game.settings.settings?.has?.("core.rollMode") ? game.settings.get("core", "rollMode") : null,
  });
  if (!reply.ok) throw new Error(reply.reason ?? reply.code);
  // The message reaches this client as a document of the world (it may follow the reply).
  for (let waited = 0; waited < 10000; waited += 50) {
    const message = game.messages.get(reply.messageId);
    if (message) return message;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(t("FIREFIGHT.ui.gmRolls.lost", "The GM rolled the shot, but its card did not arrive."));
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
 * is rolled (issue 26: a handler's change was in the card, not in the dialog). A handler that
 * cancels leaves the copy as it made it.
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
 * api.shoot({attacker?, target?, weapon?, options?, house?, dialog = true})
 * Resolves with the ChatMessage, or null if cancelled or failed (errors are notified).
 * `house`: {<rule id>: options} for the house rules' dialog fields.
 */
export async function shoot(engine, { attacker, target, weapon, options, house: houseChoice, dialog = true } = {}) {
  let request = null;
  // One Shoot dialog at a time (issue 16): a second Shoot (button, key, HUD) brings it forward.
  if (dialog && openShot) {
    bringForward(openShot.dialog);
    return null;
  }
  const mark = dialog ? (openShot = { dialog: null }) : null;
  const release = () => { if (mark && openShot === mark) openShot = null; };
  try {
    const ruleset = currentRuleset();
    const { a, b, targets } = pickTokens({ attacker, target });
    // Several targeted tokens: only where the ruleset declares it (features.multiTarget), else
    // refused naming them (issue 16), never the first one silently.
    const several = tableFeatures(ruleset).multiTarget;
    const check = severalTargets(several, a.center, targets.map((tk) => tk.center));
    if (!check.ok) throw new Error(severalTargetsError(check, targets.map((tk) => tk.name)));
    if (!rulesetData(a.actor, ruleset)) throw new Error(t("FIREFIGHT.ui.error.noStats", "{name} has no Firefight stats.", { name: a.name }));
    const weapons = weaponsOf(a.actor, ruleset);
    if (!weapons.length) throw new Error(t("FIREFIGHT.ui.error.noWeapon", "{name} carries no weapon.", { name: a.name }));
    const range = measureRange(a, b);
    const settings = rulesetSettings(ruleset);
    if (engine.status !== "ready") ui.notifications?.info(t("FIREFIGHT.ui.engine.booting", "Firefight engine is starting…"));
    const localize = (k) => game.i18n.localize(k);
    const auto = { auto: t("FIREFIGHT.ui.dialog.auto", "auto") };
    // Only the choices the world's settings offer (`x-choices-when`).
    const fields = choicesUnder(fieldsFromSchema(await optionsSchema(engine, ruleset), localize, auto), settings);
    const rules = houseRules(ruleset, "attack");
    const house = { rules, fields: houseFields(rules, localize, auto) };
    const known = new Set(fields.map((f) => f.name));
    const autoValues = Object.fromEntries(Object.entries(autoOptions({ ruleset, a, b })).filter(([k]) => known.has(k)));
    const tables = actionTables(ruleset, "attack");
    let choice;
    if (dialog) {
      choice = await shotDialog(engine, { ruleset, a, b, targets, range, weapons, fields, settings, tables, auto: autoValues, house, mark });
      release();
      if (!choice) return null;
      if (choice.place) return await placeAndAct(ruleset, "attack", { actor: a, weapon: choice.weaponItem?.id, values: {}, dialog: true });
    } else {
      const weaponItem = (weapon && weapons.find((w) => w.id === weapon || w.name === weapon)) ?? weapons[0];
      const chosen = houseOptions(defaultValues(house.fields), rules);
      for (const [id, opts] of Object.entries(houseChoice ?? {})) if (id in chosen) Object.assign(chosen[id], opts);
      choice = { weaponItem, options: { ...defaultValues(fields), ...autoValues, ...(options ?? {}) }, house: houseRequest(rules, chosen, houseSettings) };
    }
    // One request per target, each at its own range (and its own scene options: facing ...).
    const requests = targets.map((tk) => buildRequest({ ruleset, attackerToken: a, targetToken: tk, ...choice,
      options: tk === b ? choice.options : { ...choice.options, ...sceneValues(a, tk, autoValues, choice.options) },
      range: tk === b ? range : measureRange(a, tk), settings, tables }));
    request = requests[0];
    if (targets.length > 1) {
      const shots = requests[0].options?.[several.shots] ?? 1;
      const total = severalTargets(several, a.center, targets.map((tk) => tk.center), { shots, budget: requests[0].weapon?.[several.budget] ?? null });
      if (!total.ok) throw new Error(severalTargetsError(total, targets.map((tk) => tk.name)));
    }
    let message = null;
    for (const [i, tk] of targets.entries()) message = await shootAt(engine, { ruleset, a, b: tk, request: requests[i], choice });
    return message;
  } catch (err) {
    reportError(err, request);
    return null;
  } finally {
    release();
  }
}

/**
 * The scene's options for another target of the same shot (facing ...): those the dialog left as
 * the scene filled them for the first target, measured again for this one.
 */
function sceneValues(a, tk, autoValues, chosen) {
  const out = {};
  const fresh = autoOptions({ ruleset: currentRuleset(), a, b: tk });
  for (const [k, v] of Object.entries(autoValues)) if (chosen?.[k] === v && k in fresh) out[k] = fresh[k];
  return out;
}

/** One target's shot: the hooks, the roll (here or by the GM's client), its card and listeners. */
async function shootAt(engine, { ruleset, a, b, request: built, choice }) {
  let request = built;
  try {
    const gmRolls = !game.user?.isGM && gmRollsShots();
    if (!preRequest(request, { ruleset, action: "attack", user: game.user, attacker: a, target: b, weapon: choice.weaponItem, gmRolls })) return null;
    let message;
    // A magazine short of the rounds this shot fires: refused before anything is rolled.
    await checkRounds(engine, request, choice.weaponItem);
    if (gmRolls) {
      // The world wants dice a player's client cannot choose: the active GM's client rolls (and
      // takes the rounds off).
      message = await shootThroughGM(a, b, request);
      request = message.flags?.[MODULE_ID]?.request ?? null;
    } else {
      const reply = await resolveWithEntropy(engine, request);
      if (game.settings.get(MODULE_ID, "debug")) console.debug("Firefight |", { request, reply });
      message = await postCard(reply, request, a);
      await spendRounds(choice.weaponItem, reply.result);
    }
    const result = message?.flags?.[MODULE_ID]?.result ?? null;
    announceResult(message);
    for (const fn of shotListeners) {
      try {
        await fn({ ruleset, a, b, request, result, message });
      } catch (err) {
        reportError(err);
      }
    }
    return message;
  } catch (err) {
    reportError(err, request);
    return null;
  }
}
