// The gather stage of every action, Shoot included (Shoot is the ruleset's default action): the
// request variant read from the engine's schema (plan.mjs), the tokens (the acting token, the
// targeted one or ones, a list of figures), the weapons, the dialog's fields, the house rules and
// the scene's options; then `build(choice)`, the request the dialog's choices make.
//
// Participant fields are filled from tokens by name (attacker/actor/character/firer/medic/patient
// <- the controlled token; target <- the targeted token; lists of participants <- all targeted
// tokens, with `distance_m` measured on the scene) or by the ruleset's declared roles.
import { DEFAULT_ACTION } from "../core/config.mjs";
import { fieldsFromSchema, defaultValues, resolveRef, choicesUnder } from "../core/form.mjs";
import { t } from "../core/i18n.mjs";
import { combatant, weaponsOf, itemEntry, rulesetData, ownsToken } from "./request.mjs";
import { actionVariant, planRequest, refereeActionsIn, shapeParticipant, rulesetSchema } from "./plan.mjs";
import { sceneOptions } from "./hooks.mjs";
import { rulesetSettings, houseSettings } from "../world/settings.mjs";
import { tableFeatures, houseRules } from "../world/catalog.mjs";
import { actionTables } from "../world/tables.mjs";
import { houseFields, houseOptions, houseRequest } from "../world/house.mjs";
import { requestAmmo } from "../documents/ammo.mjs";
import { measureRange, metresTo } from "../canvas/measure.mjs";
import { wallCoverForPath } from "../canvas/cover.mjs";
import { placementFor, severalTargets, severalTargetsError } from "../canvas/template.mjs";

const localize = (k) => game.i18n.localize(k);

/** A token placeable from a placeable, a TokenDocument, a token UUID, an id or a name. */
export function tokenOf(x) {
  if (!x) return null;
  if (typeof x === "string") {
    if (x.includes(".")) {
      const doc = globalThis.fromUuidSync?.(x);
      return doc?.object ?? doc ?? null;
    }
    return canvas.tokens.get(x) ?? canvas.tokens.placeables.find((tk) => tk.name === x) ?? null;
  }
  return x.object ?? x;
}

const sameToken = (x, y) => Boolean(x && y && (x === y || (x.id && x.id === y.id)));

/**
 * The tokens an action uses: {self, target, targets, list}. `targets`: every targeted token but
 * the acting one (one request each where the action shoots at several: features.multiTarget). A
 * referee action whose spec says `from: "scene"` takes every token of the scene with the
 * ruleset's data as its list.
 */
function pickTokens(plan, opts, ruleset, referee) {
  const self = tokenOf(opts.actor ?? opts.attacker) ?? canvas.tokens.controlled[0] ?? null;
  const scene = referee?.from === "scene" && !opts.targets
    ? canvas.tokens.placeables.filter((tk) => rulesetData(tk.actor, ruleset)) : null;
  const targetedNow = (opts.targets ?? [...game.user.targets]).map(tokenOf).filter(Boolean);
  // The acting token is not among its own targets (when the action has one).
  const targeted = scene ?? targetedNow.filter((tk) => !(plan.self && sameToken(tk, self)));
  const named = tokenOf(opts.target);
  let target = named ?? targeted[0] ?? null;
  if (!target && plan.targetOrSelf) target = self;
  // Only the acting token targeted: it cannot act on itself where the action has a target.
  if (!target && plan.target && !plan.targetOrSelf && plan.self && targetedNow.some((tk) => sameToken(tk, self))) {
    throw new Error(t("FIREFIGHT.ui.error.selfTarget", "A token cannot shoot itself."));
  }
  return { self, target, targets: named ? [named] : targeted.length ? targeted : target ? [target] : [], list: targeted };
}

function participant(token, ruleset, itemSchema, path = null) {
  const entry = combatant(token, ruleset, path);
  return shapeParticipant(entry, itemSchema, rulesetData(token.actor, ruleset));
}

/**
 * Gather an action: everything its dialog shows and its request needs. Throws (with the user's
 * words) what makes the action impossible here: no token, no target, not the user's token, no
 * weapon, several targets where the ruleset takes one.
 * opts: {actor, target, targets, origin ({x,y} scene point for distances), values (request
 * fields), options (the action's options), house ({<rule id>: options}), weapon (id or name),
 * places ({token id: place}), dialog}
 */
export async function gather(engine, ruleset, action, opts = {}) {
  const schema = await rulesetSchema(engine, ruleset);
  const variant = actionVariant(schema.request, action);
  if (!variant) throw new Error(t("FIREFIGHT.ui.actions.error.unknown", "{ruleset} has no action {action}.", { ruleset, action }));
  const features = tableFeatures(ruleset);
  const referee = refereeActionsIn(features)[action];
  if (referee && !game.user?.isGM) throw new Error(t("FIREFIGHT.ui.actions.gmOnly", "Only the referee can do that."));
  const plan = planRequest(variant, schema.request, features.roles?.[action]);
  const duck = features.cover?.duck;
  if (duck && plan.list?.item?.properties?.[duck]) plan.duck = duck;
  const tokens = pickTokens(plan, opts, ruleset, referee);
  const { self } = tokens;
  // A player acts only with a token they own (checked before anything is rolled; the GM's client
  // refuses to roll or apply such a result too).
  if ((plan.self || tokens.target === self) && self && !ownsToken(self)) {
    throw new Error(t("FIREFIGHT.ui.error.notOwner", "You do not own {name}: act only with your own tokens.", { name: self.name ?? "?" }));
  }
  const base = { ruleset, action };
  if (plan.self) {
    if (self) {
      if (!rulesetData(self.actor, ruleset)) throw new Error(t("FIREFIGHT.ui.error.noStats", "{name} has no Firefight stats.", { name: self.name }));
      base[plan.self] = participant(self, ruleset, resolveRef(variant.properties[plan.self], schema.request), plan.self);
    } else if (plan.selfRequired && !(opts.values?.[plan.self])) throw new Error(t("FIREFIGHT.ui.error.noAttacker", "Select your token first."));
  }
  const second = plan.patient ?? plan.target;
  const secondNode = second ? resolveRef(variant.properties[second], schema.request) : null;
  if (second && !tokens.target && (plan.patient || plan.targetRequired) && !(opts.values?.[second])) {
    throw new Error(t("FIREFIGHT.ui.error.noTarget", "Target a token first."));
  }
  // Several targeted tokens for a one-target action: one request each where the ruleset declares
  // it for this action (features.multiTarget, Shoot), else refused naming them, never the first
  // one silently (issue 16).
  const several = features.multiTarget && action === (features.multiTarget.action ?? DEFAULT_ACTION) ? features.multiTarget : null;
  const targets = plan.target && !plan.targetOrSelf && !opts.target && tokens.targets.length > 1 ? tokens.targets : tokens.target ? [tokens.target] : [];
  if (targets.length > 1) {
    const check = severalTargets(several, self?.center ?? targets[0].center, targets.map((tk) => tk.center));
    if (!check.ok) throw new Error(severalTargetsError(check, targets.map((tk) => tk.name)));
  }
  let figures = null;
  if (plan.list) {
    const from = opts.origin ?? self;
    figures = tokens.list.map((tok) => {
      const f = participant(tok, ruleset, plan.list.item, `${plan.list.name}[]`);
      // No cover set on the token: a wall of the scene between it and the fire (cover.mjs).
      if (from) Object.assign(f, wallCoverForPath(tok, from.center ?? from, ruleset, `${plan.list.name}[]`, f) ?? {});
      if (plan.list.distance && from) f.distance_m = metresTo(from, tok);
      if (plan.list.place) f.place = opts.places?.[tok.id] ?? plan.list.place.default ?? plan.list.place.enum?.[0];
      return f;
    });
    // An action that places its area (template.mjs) may open without figures: they are gathered there.
    if (figures.length < plan.list.min && !(opts.values?.[plan.list.name]) && !(opts.dialog !== false && placementFor(features, action))) {
      throw new Error(t("FIREFIGHT.ui.actions.error.noTargets", "Target the figures first."));
    }
  }
  let weapons = [];
  if (plan.weapon) {
    weapons = self ? weaponsOf(self.actor, ruleset) : [];
    // Only the weapons the action can use (`features.actionWeapons`: the field they must have).
    const needs = features.actionWeapons?.[action];
    if (needs) weapons = weapons.filter((w) => (rulesetData(w, ruleset) ?? {})[needs] != null);
    if (!weapons.length && plan.weapon.required && !opts.values?.weapon) {
      throw new Error(t("FIREFIGHT.ui.error.noWeapon", "{name} carries no weapon.", { name: self?.name ?? "?" }));
    }
    const named = opts.weapon ? weapons.find((w) => w.id === opts.weapon || w.name === opts.weapon) : null;
    if (named) weapons = [named, ...weapons.filter((w) => w !== named)];
  }
  const auto = { auto: t("FIREFIGHT.ui.dialog.auto", "auto") };
  const scalarFields = fieldsFromSchema(plan.scalar, localize, auto);
  const optionFields = plan.options
    ? fieldsFromSchema(schema.actions?.[action] ?? {}, localize, auto).map((f) => ({ ...f, name: `options.${f.name}` }))
    : [];
  const settings = rulesetSettings(ruleset);
  // Only the choices the world's settings offer (`x-choices-when`, form.mjs).
  const fields = choicesUnder([...scalarFields, ...optionFields], settings);
  const rules = houseRules(ruleset, action);
  const house = { rules, fields: houseFields(rules, localize, auto) };
  // The scene's options (facing, sighting-in, cover ...) against the first target, for the options the action has.
  const known = new Set(fields.map((f) => f.name));
  const sceneAgainst = (tk) => Object.fromEntries(Object.entries(sceneOptions({ ruleset, action, a: self, b: tk }))
    .map(([k, v]) => [`options.${k}`, v]).filter(([k]) => known.has(k)));
  const sceneValues = self && targets[0] ? sceneAgainst(targets[0]) : {};
  const values = { ...defaultValues(fields), ...defaultValues(house.fields), ...sceneValues };
  for (const [k, v] of Object.entries(opts.values ?? {})) values[k] = v;
  for (const [k, v] of Object.entries(opts.options ?? {})) values[`options.${k}`] = v;
  for (const [id, chosen] of Object.entries(opts.house ?? {})) {
    for (const [k, v] of Object.entries(chosen ?? {})) values[`house.${id}.${k}`] = v;
  }
  const tables = actionTables(ruleset, action);

  /**
   * The request the choices make ({values, weapon, places, ducks}), for one of the targets (the
   * first by default). `check`: refuse a required field left empty (the dialog marks it).
   */
  const build = (choice, { check = true, target = targets[0] ?? null } = {}) => {
    const req = structuredClone(base);
    if (second && target) req[second] = participant(target, ruleset, secondNode, second);
    if (plan.range && self) {
      const toward = target ?? tokens.list[0];
      if (toward) req.range = measureRange(self, toward);
    }
    if (choice.weapon) req.weapon = itemEntry(choice.weapon, ruleset);
    const ammo = choice.weapon ? requestAmmo(choice.weapon) : null;
    if (ammo) req.ammo = ammo; // the card says the rounds left (ammo.mjs)
    if (figures) {
      const figs = structuredClone(figures);
      if (choice.places) figs.forEach((f, i) => { if (choice.places[i]) f.place = choice.places[i]; });
      // A PC's duck is the player's choice; an NPC's is left out (it rolls: features.cover.duck).
      if (plan.duck && choice.ducks) figs.forEach((f, i) => { if (i in choice.ducks) f[plan.duck] = choice.ducks[i]; });
      req[plan.list.name] = figs;
    }
    // Another target of the same shot: the scene's options the dialog left as the scene filled
    // them for the first target are measured again for this one (facing ...).
    const chosen = { ...choice.values };
    if (target && target !== targets[0]) {
      const fresh = sceneAgainst(target);
      for (const [k, v] of Object.entries(sceneValues)) if (chosen[k] === v && k in fresh) chosen[k] = fresh[k];
    }
    const options = {};
    for (const [k, v] of Object.entries(chosen)) {
      if (k.startsWith("house.")) continue;
      if (k.startsWith("options.")) options[k.slice(8)] = v;
      else if (k in (variant.properties ?? {})) req[k] = v;
    }
    if (plan.options) req.options = options;
    for (const f of check ? scalarFields : []) {
      if (f.required && (req[f.name] === undefined || req[f.name] === null || req[f.name] === "")) {
        const err = new Error(t("FIREFIGHT.ui.actions.error.required", "{field} is required.", { field: f.label }));
        err.fields = [{ field: f.name }]; // marked on the dialog (dialog.mjs checkBeforeRoll)
        throw err;
      }
    }
    // The world's RollTables the ruleset sends with this action (features.actionTables).
    for (const [field, value] of Object.entries(tables)) if (!(field in req)) req[field] = structuredClone(value);
    // Fields given by a macro (objects too: trauma_tables, characteristics ...) win.
    for (const [k, v] of Object.entries(opts.values ?? {})) if (!k.startsWith("options.") && v !== undefined) req[k] = v;
    if (plan.settings && Object.keys(settings).length) req.settings = structuredClone(settings);
    if (rules.length) req.house = houseRequest(rules, houseOptions(chosen, rules), houseSettings);
    return req;
  };

  /** The hooks' context of a request for one target ("firefight.preRequest"). */
  const hookContext = (choice, target = targets[0] ?? null) => ({
    ruleset, action, user: game.user, actor: self, attacker: self, target: target ?? tokens.target, targets: tokens.list,
    weapon: choice?.weapon ?? null,
  });

  return {
    ruleset, action, isDefault: action === DEFAULT_ACTION, features, plan, variant, self, target: tokens.target,
    targets, several, list: tokens.list, figures, weapons, fields, house, values, build, hookContext,
    range: plan.range && self && (targets[0] ?? tokens.list[0]) ? measureRange(self, targets[0] ?? tokens.list[0]) : null,
    firstChoice: { values, weapon: weapons[0] ?? null, places: null },
    needsDialog: opts.dialog !== false && Boolean(fields.length || house.fields.length || weapons.length || plan.list?.place),
  };
}

/** Pure-ish: the several-target budget (the weapon's shots a round over every target), checked with the chosen options. */
export function checkSeveral(ctx, requests) {
  if (ctx.targets.length < 2) return;
  const shots = requests[0].options?.[ctx.several?.shots] ?? 1;
  const total = severalTargets(ctx.several, ctx.self.center, ctx.targets.map((tk) => tk.center), { shots, budget: requests[0].weapon?.[ctx.several?.budget] ?? null });
  if (!total.ok) throw new Error(severalTargetsError(total, ctx.targets.map((tk) => tk.name)));
}
