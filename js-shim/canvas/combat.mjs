// Combat: activation by chit pull, and the end of a turn, in Foundry's combat tracker.
//
// Ruleset-agnostic: a ruleset that declares the `activation` table feature (from the engine's
// catalog: {draw, settle, units, round, served, order}) draws each round's activation order with
// its `draw` action; with a `settle` action it settles the round before the next draw (e.g. the
// morale checks a ruleset declares, stunned units recover). The units of both requests (its
// `units` field) are built from
// the combatants and their actors' `flags.firefight.<ruleset>`, with the fields the ruleset's
// request schema takes, and carry the world's house rules for those actions.
//
// How the order drives Foundry's turns. Foundry keeps one initiative per combatant, so
// `combat.turns` cannot say that a unit acts twice, or in which phase. The drawn order is kept on
// the combat instead, as its own turn sequence:
//   combat.flags.firefight.activations = {round, ruleset, list: [{combatantId, name, phase, chit,
//     seq, stunned}], index, skipped: [indexes of activations lost to a stun], messageId}
// and `combat.turn` always points at the combatant of `list[index]`. Only public hooks are used,
// no core class is patched:
// - "combatTurn"(combat, updateData, updateOptions) fires before the update of nextTurn /
//   previousTurn, and updateData may be mutated: it is pointed at the next activation whose unit
//   can act (a stunned unit's activation is skipped and remembered, its stun is then served; a
//   unit that is dead or unconscious is passed over); after the last activation, at the next round.
// - "combatRound" likewise: Foundry's nextTurn calls nextRound past the last combatant of
//   `turns`; while the drawn order has activations left, that is turned back into the next
//   activation. An explicit "end the round" is `api.combat.endRound()`.
// - "updateCombat": when the round goes up (startCombat, the last activation, nextRound), the
//   active GM settles the round that ended (`settle`: card, then its effects applied through
//   the apply path, so states show on the tokens) and draws the new round (`draw`: card, its dice
//   are the draws, its outcome's `order` the order), then points the combat at the first activation.
// - "renderCombatTracker": the tracker lists the activations, the current one highlighted.
// Only the active GM ever writes the activation state, and the turn and round with it. Foundry
// lets a player who owns the current combatant update a combat's `turn` and `round` and nothing
// else (fvtt-fria-ligan/yearzero-combat-fvtt#85, Nimble-Co/FoundryVTT-Nimble#853), so on a
// player's client "combatTurn" / "combatRound" leave those two as they are and ask the active GM
// over the module socket (`{type: "combat-turn"}`); the GM checks that the player owns the unit
// whose activation ends and writes the next one (one forward), its turn and round. A round or
// turn a player writes directly is put back; only a GM's new round is settled and drawn.
// Rewinding into a previous round is not supported (its order is spent and settled).
import { MODULE_ID } from "../core/config.mjs";
import { isActiveGM } from "../relay/relay.mjs";
import { t } from "../core/i18n.mjs";
import { reportError } from "../core/errors.mjs";
import { resolveWithEntropy } from "../workflow/roll.mjs";
import { postCard } from "../workflow/card.mjs";
import { rulesetSettings, houseSettings } from "../world/settings.mjs";
import { catalogReady, tableFeatures, houseRules, currentRuleset } from "../world/catalog.mjs";
import { houseRequest } from "../world/house.mjs";
import { engineStatuses } from "../systems/index.mjs";
import { TurnEvents } from "./turns.mjs";
import { FLAG, unitFields, unitOf, activationSpec, activationsFromOrder, advance, skippedUnits, turnIndexOf, blockedByStatuses, activationsHTML, stateOf } from "./activations.mjs";

const SOCKET = `module.${MODULE_ID}`;

function setActivationFlags(updateData, state) {
  updateData.flags ??= {};
  updateData.flags[MODULE_ID] ??= {};
  updateData.flags[MODULE_ID][FLAG] = state;
}

/** The world's house rules for a combat action, as request fields ({} when there are none). */
function houseOf(ruleset, action) {
  const rules = houseRules(ruleset, action);
  return rules.length ? { house: houseRequest(rules, {}, houseSettings) } : {};
}

function rulesetDataOf(actor, ruleset) {
  return actor?.flags?.[MODULE_ID]?.[ruleset] ?? null;
}

export class ChitActivation {
  constructor(engine, applier) {
    this.engine = engine;
    this.applier = applier;
    this.schemas = new Map();
    this.queue = Promise.resolve();
    this.pending = new Set(); // combat ids whose round is being drawn
    this.endRoundMarker = new Set(); // combat ids whose nextRound ends the round on purpose
  }

  /** The ruleset's chit-pull activation (its table feature), or null. */
  async activation(ruleset) {
    await Promise.race([catalogReady, this.engine.start().catch(() => {})]); // or the engine failed
    return activationSpec(tableFeatures(ruleset));
  }

  async fields(ruleset, action, unitsField) {
    if (!this.schemas.has(ruleset)) {
      const p = this.engine.call("schema", { ruleset });
      this.schemas.set(ruleset, p);
      p.catch(() => this.schemas.delete(ruleset));
    }
    return unitFields((await this.schemas.get(ruleset)).request, action, unitsField);
  }

  blocked(combat) {
    return (activation) => {
      const c = combat.combatants?.get?.(activation.combatantId);
      if (!c) return "out";
      const actor = c.actor;
      return blockedByStatuses(engineStatuses(actor), {
        defeated: Boolean(c.defeated), drawnStunned: activation.stunned, known: Boolean(actor),
      });
    };
  }

  /**
   * The turn the drawn order gives next from the current activation (`direction` +1 / -1):
   * {round, turn, next: the activation state to record, or null when nothing moves}. After the
   * last activation, the next round.
   */
  nextStep(combat, state, direction) {
    const step = advance(state.list, state.index, direction, this.blocked(combat));
    const skipped = [...(state.skipped ?? []), ...step.skipped];
    if (step.index === null) {
      if (direction < 0) return { round: state.round, turn: combat.turn, next: null };
      // Every chit of the round is spent: the round ends (and the next one is drawn).
      return { round: state.round + 1, turn: 0, next: { ...state, index: state.list.length, skipped } };
    }
    const turn = turnIndexOf(combat.turns, state.list[step.index].combatantId);
    return { round: state.round, turn, next: { ...state, index: step.index, skipped } };
  }

  /** Hooks.on("combatTurn"): point the turn at the next activation whose unit can act. */
  onCombatTurn(combat, updateData, updateOptions = {}) {
    const state = stateOf(combat);
    if (!state?.list || state.round !== combat.round) return;
    const direction = (updateOptions.direction ?? 1) < 0 ? -1 : 1;
    const { round, turn, next } = this.nextStep(combat, state, direction);
    Object.assign(updateData, { round, turn });
    if (!globalThis.game?.user?.isGM) this.relayTurn(combat, state, updateData);
    else if (next) setActivationFlags(updateData, next);
  }

  /** Hooks.on("combatRound"): Foundry's nextTurn past the last combatant goes on in the drawn order. */
  onCombatRound(combat, updateData, updateOptions = {}) {
    const state = stateOf(combat);
    if (!state?.list || state.round !== combat.round) return;
    const direction = (updateOptions.direction ?? 1) < 0 ? -1 : 1;
    if (direction > 0 && globalThis.game?.user?.isGM) {
      const onPurpose = this.endRoundMarker.delete(combat.id);
      const fromLastTurn = combat.turn === combat.turns.length - 1;
      const left = advance(state.list, state.index, 1, this.blocked(combat)).index !== null;
      if (onPurpose || !fromLastTurn || !left) return; // the round ends
    }
    this.onCombatTurn(combat, updateData, { ...updateOptions, direction });
  }

  /**
   * A player's End Turn. The player's own update changes nothing (its `turn` and `round` stay as
   * they are): the active GM, asked over the module socket, writes the next activation's turn,
   * round and activation state in one update, so a round changes only by the GM's write (the
   * reliability audit's advice for hole 5). With no GM connected nothing moves.
   */
  relayTurn(combat, state, updateData) {
    for (const key of Object.keys(updateData)) if (key !== "round" && key !== "turn") delete updateData[key];
    Object.assign(updateData, { round: combat.round, turn: combat.turn });
    if (!game.users?.activeGM) {
      ui.notifications?.warn(`Firefight: ${t("FIREFIGHT.ui.combat.noGM", "A GM must be connected to end the turn: the GM's client keeps the activation order.")}`);
      return;
    }
    // Only forward: a player's End Turn ends the current activation, never rewinds one.
    game.socket?.emit(SOCKET, { type: "combat-turn", combatId: combat.id, round: state.round, index: state.index, direction: 1 });
  }

  /**
   * The active GM, on a player's End Turn: if the drawn order still stands at the activation the
   * player ended (a second click or a late message changes nothing) and the player owns its
   * unit, record the next activation (and the turn, the same as the player's own update).
   */
  async onSocket(data, senderId) {
    if (data?.type !== "combat-turn" || !isActiveGM()) return null;
    const combat = game.combats?.get?.(data.combatId);
    const state = stateOf(combat);
    if (!combat || !state?.list || state.round !== data.round || state.index !== data.index) return null;
    // Who ended the turn is the socket's sender (Foundry names it), never a payload field.
    const user = game.users?.get?.(senderId);
    const unit = combat.combatants?.get?.(state.list[state.index]?.combatantId);
    if (!user || !unit?.testUserPermission?.(user, "OWNER")) {
      console.warn("Firefight |", t("FIREFIGHT.ui.combat.notYours", "{user} may not end this turn: {name} is not theirs.",
        { user: user?.name ?? String(senderId), name: unit?.name ?? "?" }));
      return null;
    }
    // A player's End Turn moves one activation forward, whatever the payload's direction says.
    const { round, turn, next } = this.nextStep(combat, state, 1);
    if (!next) return null;
    return combat.update({ round, turn, [`flags.${MODULE_ID}.${FLAG}`]: next });
  }

  /** End the current round on purpose (the remaining activations are lost). */
  async endRound(combat = game.combat) {
    if (!combat) return null;
    this.endRoundMarker.add(combat.id);
    try {
      return await combat.nextRound();
    } finally {
      this.endRoundMarker.delete(combat.id);
    }
  }

  /**
   * Hooks.on("updateCombat"): a new round is settled and drawn by the active GM, when a GM's
   * client changed the round. A player's own change of the round or the turn (Foundry lets the
   * current combatant's owner write both) is put back to the drawn order's activation: the End
   * Turn relay is the player's way to move it (reliability audit hole 5).
   */
  onUpdateCombat(combat, changed, options, userId) {
    if (!("round" in (changed ?? {}) || "turn" in (changed ?? {})) || !isActiveGM()) return;
    const state = stateOf(combat);
    if (!game.users?.get?.(userId)?.isGM) return this.putBack(combat, state);
    if (!("round" in changed)) return;
    if (!combat.round || (state && state.round >= combat.round)) return;
    this.pending.add(combat.id);
    ui.combat?.render?.();
    const run = this.queue.then(() => this.newRound(combat)).catch((err) => reportError(err)).finally(() => {
      this.pending.delete(combat.id);
      ui.combat?.render?.();
    });
    this.queue = run;
    return run;
  }

  /** The active GM puts a combat's round and turn back where its drawn order stands, if a player moved them. */
  putBack(combat, state) {
    if (!state?.list || !combat || this.pending.has(combat.id)) return null; // a GM's new round is being drawn
    const activation = state.list[state.index];
    const turn = activation ? turnIndexOf(combat.turns, activation.combatantId) : combat.turn;
    if (combat.round === state.round && combat.turn === turn) return null;
    console.warn("Firefight |", t("FIREFIGHT.ui.combat.putBack", "A player moved the combat's round or turn: put back to the drawn order."));
    return combat.update({ round: state.round, turn }).catch((err) => reportError(err));
  }

  /** The units of an action's request from the combat's combatants. */
  async units(combat, ruleset, action, unitsField, extra = () => ({})) {
    const fields = await this.fields(ruleset, action, unitsField);
    if (!fields) return [];
    return combat.turns.map((combatant) => {
      const actor = combatant.actor;
      return unitOf({ combatant, actor, stats: rulesetDataOf(actor, ruleset) }, fields, extra(combatant));
    }).filter(Boolean);
  }

  async newRound(combat) {
    if (!game.combats?.get?.(combat.id)) return;
    const state = stateOf(combat);
    if (state && state.round >= combat.round) return; // drawn already
    const ruleset = currentRuleset();
    const spec = await this.activation(ruleset);
    if (!spec) return;
    const settings = rulesetSettings(ruleset);
    if (state?.list && state.round < combat.round && spec.settle && !state.settled) {
      await this.endOfTurn(combat, ruleset, state, settings, spec);
    }
    await this.draw(combat, ruleset, settings, spec);
  }

  /** The end of the turn: every unit's wounds and state, and whether a stun was served. */
  async endOfTurn(combat, ruleset, state, settings, spec) {
    const served = skippedUnits(state);
    const units = await this.units(combat, ruleset, spec.settle, spec.units,
      (c) => (spec.served ? { [spec.served]: served.has(c.id) } : {}));
    if (!units.length) return null;
    const request = { ruleset, action: spec.settle, [spec.units]: units, settings, ...houseOf(ruleset, spec.settle) };
    const reply = await resolveWithEntropy(this.engine, request);
    const message = await postCard(reply, request, null);
    if (message && (reply.result?.effects ?? []).length) await this.applier.request(message);
    await combat.update({ [`flags.${MODULE_ID}.${FLAG}.settled`]: true });
    return message;
  }

  /** Draw the round's chits; the combat's turn goes to the first activation that can act. */
  async draw(combat, ruleset, settings, spec) {
    const units = await this.units(combat, ruleset, spec.draw, spec.units);
    if (!units.length) return null;
    const request = { ruleset, action: spec.draw, [spec.units]: units, settings, ...houseOf(ruleset, spec.draw) };
    if (spec.round) request[spec.round] = Math.max(1, combat.round);
    const reply = await resolveWithEntropy(this.engine, request);
    const message = await postCard(reply, request, null);
    // The draw's own effects (e.g. each unit's pool capped): applied like the settle's.
    if (message && (reply.result?.effects ?? []).length) await this.applier.request(message);
    const list = activationsFromOrder(reply.result?.outcome?.[spec.order]);
    const first = advance(list, -1, 1, this.blocked(combat));
    const index = first.index ?? list.length;
    const next = { round: combat.round, ruleset, list, index, skipped: first.skipped, settled: false, messageId: message?.id ?? null };
    const update = { [`flags.${MODULE_ID}.${FLAG}`]: next };
    if (first.index !== null) update.turn = turnIndexOf(combat.turns, list[first.index].combatantId);
    await combat.update(update);
    return message;
  }

  /** Hooks.on("renderCombatTracker"): the activation order under the turn list. */
  onRenderCombatTracker(app, html) {
    const root = html instanceof HTMLElement ? html : html?.[0];
    if (!root) return;
    root.querySelector(".firefight-activations")?.remove();
    const combat = app?.viewed ?? game.combat;
    if (!combat) return;
    const pending = this.pending.has(combat.id);
    const state = stateOf(combat);
    const markup = activationsHTML(state?.round === combat.round ? state : null, { pending, blocked: this.blocked(combat) });
    if (!markup) return;
    const holder = document.createElement("div");
    holder.innerHTML = markup;
    const section = holder.firstElementChild;
    const list = root.querySelector("ol.combat-tracker, #combat-tracker");
    if (list) list.after(section);
    else root.append(section);
  }

  /** Register the hooks (at module load); with them the declared turn events (turns.mjs). */
  listen() {
    this.turnEvents = new TurnEvents(this.engine, this.applier);
    this.turnEvents.listen();
    Hooks.on("combatTurn", (c, d, o) => this._safe(() => this.onCombatTurn(c, d, o)));
    Hooks.on("combatRound", (c, d, o) => this._safe(() => this.onCombatRound(c, d, o)));
    Hooks.on("updateCombat", (c, changed, options, userId) => this._safe(() => this.onUpdateCombat(c, changed, options, userId)));
    Hooks.on("renderCombatTracker", (app, html) => this._safe(() => this.onRenderCombatTracker(app, html)));
    // game.socket is there once the world is set up.
    Hooks.once("setup", () => game.socket?.on?.(SOCKET, (data, senderId) => {
      this.onSocket(data, senderId).catch((err) => reportError(err));
    }));
  }

  _safe(fn) {
    try {
      fn();
    } catch (err) {
      console.error("Firefight |", err);
    }
  }
}
