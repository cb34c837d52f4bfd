// Turn changes in the combat tracker: what a ruleset declares to happen when a combatant's turn
// starts or a round starts and ends, run by the active GM's client, once per turn change.
//
// Generic: driven by the world ruleset's table features (from the engine's catalog):
// - `followUp`: [{state, after: "turn" | "round", unless: {stat, above}, effects, labelKey,
//   source}]: an actor left in `state` (its data's `state`, else its last `state` condition) is followed up when its combatant
//   next starts its turn ("turn") or the next round starts ("round"): unless its `stat` is above
//   the value by then, the `effects` are applied to it through the applier (undoable like any
//   result) and a chat note says `labelKey` with {name}.
// - `turn`: {action, phase, initiative, canAct, statuses}: the action the tracker runs per
//   combatant with the ruleset's data. When a round starts, with `phase` "start" for every
//   combatant: its outcome's `initiative` goes into the tracker (the round's order); when a
//   combatant's turn starts, again for it (a wound taken meanwhile counts): if its outcome's
//   `canAct` is false its card is posted and the turn passes on. When a round ends, with `phase`
//   "end" for every combatant: cards with effects are posted and applied. `statuses`: {stat:
//   engine status id}: the token shows the status while any stat naming it is set (non-zero /
//   true), kept in step whenever the actor's data changes.
//
// - the catalog's `conditions` (declared by a house rule or the ruleset, firefight.models.Condition):
//   a condition in the actor's ruleset data (`conditions`) that `ends` "turn" is ended when its
//   combatant's turn starts, one that ends "round" when a round starts (the engine's
//   `end_conditions` decides; the actor's data is written back).
//
// Once per turn change: the moment handled last (the furthest forward: round, turn, activation
// index, combatant) is kept on the combat (`flags.firefight.turnEvents`) and written BEFORE
// anything is done for a new one, so a second GM's client, a GM who reloads mid-turn (the ready
// check) or a late update never runs it twice; rewinding runs nothing. Only the active GM
// (`game.users.activeGM`) acts; a player's End Turn reaches it as the combat's update (the
// chit-pull relay in combat.mjs for the activation state). Hooks used: "updateCombat" (fires on
// every client after the update, foundryvtt.com/api/functions/hookEvents.updateDocument.html)
// and "updateActor"; no core class is patched.
import { MODULE_ID } from "../core/config.mjs";
import { isActiveGM } from "../relay/relay.mjs";
import { t } from "../core/i18n.mjs";
import { escapeHTML, resolveRef } from "../core/form.mjs";
import { reportError } from "../core/errors.mjs";
import { resolveWithEntropy } from "../workflow/roll.mjs";
import { postCard, speakerOf } from "../workflow/card.mjs";
import { rulesetSettings } from "../world/settings.mjs";
import { rulesetInfo, tableFeatures, currentRuleset } from "../world/catalog.mjs";
import { rulesetData, combatant as participantOf } from "../workflow/request.mjs";
import { actionVariant, planRequest, rulesetSchema, shapeParticipant } from "../workflow/plan.mjs";
import { statusPlan, setStatus } from "../systems/index.mjs";
import { FLAG as ACTIVATIONS, activationSpec, blockedByStatuses, stateOf as activationState } from "./activations.mjs";
import { engineStatuses } from "../systems/index.mjs";

export const MARK = "turnEvents";

// --- pure helpers ------------------------------------------------------------------------------

const isObject = (v) => Boolean(v) && typeof v === "object" && !Array.isArray(v);

/** The ids of a ruleset's declared conditions (its catalog's `conditions`) that end at `when`. */
export function conditionsEndingAt(info, when) {
  const declared = Array.isArray(info?.conditions) ? info.conditions : [];
  return declared.filter((c) => isObject(c) && c.ends === when && typeof c.id === "string").map((c) => c.id);
}

/** A ruleset's follow-ups (`features.followUp`), the well-formed ones, `after` defaulting to "turn". */
export function followUpsOf(features) {
  const raw = features?.followUp;
  return (Array.isArray(raw) ? raw : []).filter((f) => isObject(f) && typeof f.state === "string" && Array.isArray(f.effects))
    .map((f) => ({ ...f, after: f.after === "round" ? "round" : "turn" }));
}

/** Whether a follow-up's `unless` holds for an actor's data ({stat, above}: the stat is above it). */
export function unlessHolds(unless, stats) {
  if (!isObject(unless) || typeof unless.stat !== "string") return false;
  const v = Number(stats?.[unless.stat]);
  return "above" in unless && stats?.[unless.stat] !== null && Number.isFinite(v) && v > Number(unless.above);
}

/**
 * An actor's state: its data's `state` where the ruleset keeps one, else the last `state`
 * condition its results left (`flags.firefight.conditions`, kept by the applier).
 */
export function stateOfActor(stats, conditions) {
  if (typeof stats?.state === "string") return stats.state;
  const last = [...(Array.isArray(conditions) ? conditions : [])].reverse().find((c) => c?.kind === "state" && c.value !== undefined);
  return last ? String(last.value) : null;
}

/** The follow-ups due now (`when`: "turn" | "round") for an actor's data and state. */
export function dueFollowUps(specs, stats, state, when) {
  if (!stats) return [];
  return specs.filter((f) => f.after === when && state === f.state && !unlessHolds(f.unless, stats));
}

/** A ruleset's `turn` feature with its defaults, or null. */
export function turnSpec(features) {
  const spec = features?.turn;
  if (!isObject(spec) || typeof spec.action !== "string" || !spec.action) return null;
  const name = (v, fallback) => (typeof v === "string" && v ? v : fallback);
  return { action: spec.action, phase: name(spec.phase, "phase"), initiative: name(spec.initiative, "initiative"),
    canAct: name(spec.canAct, "can_act"), statuses: isObject(spec.statuses) ? spec.statuses : {} };
}

/** {engine status id: active} from an actor's data and a `statuses` map {stat: status id}. */
export function statusesFromStats(map, stats) {
  const out = {};
  for (const [stat, status] of Object.entries(map ?? {})) {
    const v = stats?.[stat];
    out[status] = Boolean(out[status]) || (v !== null && v !== undefined && v !== false && v !== 0 && v !== "");
  }
  return out;
}

/** Whether moment `now` comes after moment `mark` (round, then activation index or turn). */
export function isAfter(now, mark) {
  if (!mark) return true;
  if (now.round !== mark.round) return now.round > mark.round;
  const pos = (m) => (Number.isInteger(m.index) ? m.index : m.turn ?? -1);
  return pos(now) > pos(mark);
}

/** A chat note for a follow-up as a result the applier can apply and undo. */
export function followUpResult(ruleset, spec, who) {
  const params = { actor_id: who.actor_id ?? null, token_id: who.token_id ?? null, name: who.name ?? "" };
  return {
    ruleset, action: "follow_up", table: true, followUp: spec.state, source: spec.source ?? "",
    effects: spec.effects.map((e) => ({ target: "target", ...e, params: { ...(e.params ?? {}), ...params } })),
    request: { ruleset, action: "follow_up", target: params },
  };
}

/** An update's differential, nested (Foundry passes it expanded; dotted keys are read the same). */
function expand(diff) {
  return diff && typeof diff === "object" ? foundry.utils.expandObject(diff) : diff;
}

/** Dead, unconscious or defeated: out of the fight (token statuses, as the chit pull reads them). */
function isOut(c) {
  return Boolean(c?.isDefeated) || blockedByStatuses(engineStatuses(c?.actor), { defeated: Boolean(c?.defeated), known: Boolean(c?.actor) }) === "out";
}

// --- the table side ----------------------------------------------------------------------------

export class TurnEvents {
  constructor(engine, applier) {
    this.engine = engine;
    this.applier = applier;
    this.queue = Promise.resolve();
  }

  /** The moment a combat is at: {round, turn, index (activation), combatantId}, or null before it starts. */
  momentOf(combat) {
    if (!combat?.started && !(combat?.round > 0)) return null;
    const c = combat.combatant;
    if (!c) return null;
    const act = activationState(combat);
    return { round: combat.round, turn: combat.turn, index: act?.round === combat.round ? act.index : null, combatantId: c.id };
  }

  /**
   * Whether the moment is settled: with a chit-pull activation the turn moves twice (the round,
   * then the drawn first activation; a player's turn, then the GM's record of it): only the moment
   * the drawn order stands at counts.
   */
  settled(combat, moment, ruleset) {
    if (!activationSpec(tableFeatures(ruleset))) return true;
    const act = activationState(combat);
    return act?.round === moment.round && act.list?.[act.index]?.combatantId === moment.combatantId;
  }

  /** Hooks.on("updateCombat"): a turn or round change, handled by the active GM in its queue. */
  onUpdateCombat(combat, diff) {
    const changed = expand(diff);
    // A chit pull's drawn order moves the turn with its own record (combat.mjs): that counts too.
    const drawn = changed?.flags?.[MODULE_ID]?.[ACTIVATIONS] !== undefined;
    if (!changed || !("turn" in changed || "round" in changed || drawn) || !isActiveGM()) return null;
    const moment = this.momentOf(combat); // as it is now, not when the queue gets to it
    if (!moment) return null;
    return this.enqueue(() => this.handle(combat, moment));
  }

  /** At ready (a GM who reloads, or the active GM arriving mid-turn): the current moment, if not handled. */
  catchUp() {
    if (!isActiveGM()) return null;
    const combat = game.combat;
    const moment = this.momentOf(combat);
    return moment ? this.enqueue(() => this.handle(combat, moment)) : null;
  }

  enqueue(fn) {
    const run = this.queue.then(fn).catch((err) => reportError(err));
    this.queue = run;
    return run;
  }

  /** Everything declared for reaching `moment`, once: the mark is written first. */
  async handle(combat, moment) {
    if (!game.combats?.get?.(combat.id) || !isActiveGM()) return false;
    const ruleset = currentRuleset();
    const features = tableFeatures(ruleset);
    const follow = followUpsOf(features);
    const turn = turnSpec(features);
    const ending = { turn: conditionsEndingAt(rulesetInfo(ruleset), "turn"), round: conditionsEndingAt(rulesetInfo(ruleset), "round") };
    if (!follow.length && !turn && !ending.turn.length && !ending.round.length) return false;
    const mark = combat.flags?.[MODULE_ID]?.[MARK] ?? null;
    if (!isAfter(moment, mark) || !this.settled(combat, moment, ruleset)) return false;
    await combat.update({ [`flags.${MODULE_ID}.${MARK}`]: moment });
    const newRound = !mark || moment.round > mark.round;
    if (newRound) {
      if (turn && mark) await this.everyone(combat, ruleset, turn, "end");
      for (const c of combat.turns) await this.followUp(c, ruleset, follow, "round");
      for (const c of combat.turns) await this.endConditions(c, ruleset, ending.round, "round");
      if (turn) {
        await this.roundStart(combat, ruleset, turn);
        // The round begins with the first of the new order (the highest initiative), unless a
        // drawn order decides the turns.
        if (!activationSpec(features) && combat.turn !== 0 && combat.turns.length) await combat.update({ turn: 0 });
      }
    }
    // The moment's combatant (the GM may have clicked on meanwhile: each turn is its own), or,
    // when a new round's initiatives reordered the turns, the first of the new order: the mark
    // then says so, so the update that moved the turn is not handled again.
    let now = combat.combatants?.get?.(moment.combatantId) ?? null;
    if (newRound && turn) {
      now = combat.combatant ?? null;
      const here = this.momentOf(combat);
      if (here && (here.turn !== moment.turn || here.combatantId !== moment.combatantId)) {
        await combat.update({ [`flags.${MODULE_ID}.${MARK}`]: here });
      }
    }
    if (!now) return true;
    await this.endConditions(now, ruleset, ending.turn, "turn");
    await this.followUp(now, ruleset, follow, "turn");
    // Passed on while the turn is still its own, and only while someone else is still in the
    // fight (never round after round for nobody).
    if (turn && !(await this.mayAct(now, ruleset, turn)) && combat.combatant?.id === now.id
      && combat.turns.some((x) => x.id !== now.id && !isOut(x))) {
      await combat.nextTurn();
    }
    return true;
  }

  /** End the conditions of a combatant's actor that end at `when` (`ids`: those declared so). */
  async endConditions(c, ruleset, ids, when) {
    const actor = c?.actor;
    const stats = rulesetData(actor, ruleset);
    if (!ids.length || !Array.isArray(stats?.conditions) || !stats.conditions.some((id) => ids.includes(id))) return;
    const out = await this.engine.call("end_conditions", { ruleset, stats: structuredClone(stats), when });
    await actor.update({ [`flags.${MODULE_ID}.${ruleset}.conditions`]: out.stats.conditions ?? [] });
  }

  /** The declared follow-ups due for a combatant's actor (`when`): each a note, applied. */
  async followUp(c, ruleset, specs, when) {
    const actor = c?.actor;
    const stats = rulesetData(actor, ruleset);
    const state = stateOfActor(stats, actor?.flags?.[MODULE_ID]?.conditions);
    for (const spec of dueFollowUps(specs, stats, state, when)) {
      const who = { name: c.name ?? actor.name, actor_id: actor.id, token_id: c.token?.uuid ?? c.tokenId ?? null };
      const result = followUpResult(ruleset, spec, who);
      const key = spec.labelKey ?? "";
      const text = key ? t(key, "{name}", { name: who.name }) : who.name;
      const source = spec.source ? `<p class="ff-source">${escapeHTML(spec.source)}</p>` : "";
      const message = await ChatMessage.create({
        speaker: speakerOf(c.token?.object ?? { actor }),
        content: `<div class="firefight-card ff-note ff-follow-up" data-follow-up="${escapeHTML(spec.state)}"><p>${escapeHTML(text)}</p>${source}</div>`,
        flags: { [MODULE_ID]: { note: true, result } },
      });
      await this.applier.applyTableResult(message);
    }
  }

  /** The `turn` action's request for a combatant (its participant field from the schema), or null. */
  async request(c, ruleset, spec, phase) {
    const token = c?.token;
    if (!token?.actor || !rulesetData(token.actor, ruleset)) return null;
    const schema = await rulesetSchema(this.engine, ruleset);
    const variant = actionVariant(schema.request, spec.action);
    if (!variant) return null;
    const plan = planRequest(variant, schema.request);
    const field = plan.self ?? plan.target;
    if (!field) return null;
    const node = resolveRef(variant.properties[field], schema.request);
    const request = { ruleset, action: spec.action, [field]: shapeParticipant(participantOf(token, ruleset), node, rulesetData(token.actor, ruleset)),
      options: { [spec.phase]: phase } };
    if (plan.settings) request.settings = structuredClone(rulesetSettings(ruleset));
    return request;
  }

  async run(c, ruleset, spec, phase) {
    const request = await this.request(c, ruleset, spec, phase);
    if (!request) return null;
    return { request, reply: await resolveWithEntropy(this.engine, request) };
  }

  /** A new round: every combatant's `phase` start, its initiative into the tracker. */
  async roundStart(combat, ruleset, spec) {
    const updates = [];
    for (const c of combat.turns) {
      const done = await this.run(c, ruleset, spec, "start");
      const value = done?.reply.result?.outcome?.[spec.initiative];
      if (Number.isFinite(value) && value !== c.initiative) updates.push({ _id: c.id, initiative: value });
    }
    if (updates.length) await combat.updateEmbeddedDocuments("Combatant", updates);
  }

  /** The end of a round: every combatant's `phase` end; cards with effects posted and applied. */
  async everyone(combat, ruleset, spec, phase) {
    for (const c of combat.turns) {
      const done = await this.run(c, ruleset, spec, phase);
      if (!done?.reply.result?.effects?.length) continue;
      const message = await postCard(done.reply, done.request, c.token?.object ?? null);
      if (message) await this.applier.request(message);
    }
  }

  /** A combatant's turn start: may it act? If not, its card says why (the turn then passes on). */
  async mayAct(c, ruleset, spec) {
    if (isOut(c)) return false; // passed over without a card
    const done = await this.run(c, ruleset, spec, "start");
    if (!done || done.reply.result?.outcome?.[spec.canAct] !== false) return true;
    await postCard(done.reply, done.request, c.token?.object ?? null);
    return false;
  }

  /** Hooks.on("updateActor"): the token statuses the `turn` feature maps from the actor's data. */
  onUpdateActor(actor, diff) {
    const changed = expand(diff);
    const ruleset = currentRuleset();
    const spec = turnSpec(tableFeatures(ruleset));
    if (!spec || !Object.keys(spec.statuses).length || !isActiveGM()) return null;
    if (!changed?.flags?.[MODULE_ID] || !(ruleset in changed.flags[MODULE_ID])) return null;
    return this.syncStatuses(actor, ruleset, spec);
  }

  async syncStatuses(actor, ruleset, spec) {
    const stats = rulesetData(actor, ruleset);
    if (!stats) return;
    // Statuses the world's system lacks are left out (systems/index.mjs).
    for (const s of statusPlan(actor, statusesFromStats(spec.statuses, stats))) if (s.id) await setStatus(actor, s.id, s.active);
  }

  listen() {
    const safe = (fn) => {
      try {
        return fn();
      } catch (err) {
        console.error("Firefight |", err);
        return null;
      }
    };
    Hooks.on("updateCombat", (combat, changed) => safe(() => this.onUpdateCombat(combat, changed)));
    Hooks.on("updateActor", (actor, changed) => safe(() => this.onUpdateActor(actor, changed))?.catch?.((err) => reportError(err)));
    Hooks.once("ready", () => safe(() => this.catchUp()));
  }
}
