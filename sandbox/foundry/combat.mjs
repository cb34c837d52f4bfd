// Combat encounters: Combat and Combatant documents, game.combats / game.combat, and the combat
// tracker (ui.combat). Written from Foundry v13's public API documentation:
//   Combat#startCombat: fires "combatStart"(combat, updateData {round, turn}), then updates.
//   Combat#nextTurn: the next turn; past the last one it calls nextRound. Fires
//     "combatTurn"(combat, updateData {round, turn}, updateOptions {advanceTime, direction}).
//   Combat#nextRound / previousRound: fire "combatRound"(combat, updateData {round, turn},
//     updateOptions {direction, worldTime: {delta}}).
//   The hooks fire on the initiating client before the update, and updateData / updateOptions
//   may be mutated by them; then "updateCombat"(combat, changed, options, userId) on every client.
//   Combat#setupTurns sorts the combatants by initiative (highest first), then by name.
// Who may update a Combat: a GM anything; a player who owns the current combatant only its `turn`
// and `round` (a player's End Turn; any other key, e.g. flags, is refused:
// fvtt-fria-ligan/yearzero-combat-fvtt#85, Nimble-Co/FoundryVTT-Nimble#853,
// foundryvtt/foundryvtt#10501). The tracker gives that player an End Turn control
// (foundryvtt/foundryvtt#11737: "For normal player, there's end turn button").
// Every table page keeps the same encounters over foundry/net.mjs, like the other documents.
import { Collection } from "./collection.mjs";
import { Document, applyDiff } from "./documents.mjs";
import { Hooks } from "./hooks.mjs";
import { deepClone, escapeHTML, randomID } from "./utils.mjs";
import * as net from "./net.mjs";

export class Combatant extends Document {
  static documentName = "Combatant";
  get combat() {
    return this.parent;
  }
  get sceneId() {
    return this._source.sceneId ?? this.parent?.scene?.id ?? null;
  }
  get tokenId() {
    return this._source.tokenId ?? null;
  }
  get actorId() {
    return this._source.actorId ?? this.token?.actorId ?? null;
  }
  get token() {
    const scene = game.scenes.get(this.sceneId) ?? canvas.scene;
    return scene?.tokens?.get(this.tokenId) ?? null;
  }
  get actor() {
    return this.token?.actor ?? game.actors.get(this._source.actorId) ?? null;
  }
  get name() {
    return this._source.name || this.token?.name || this.actor?.name || "?";
  }
  get img() {
    return this._source.img || this.token?.texture?.src || this.actor?.img || "";
  }
  get initiative() {
    return this._source.initiative ?? null;
  }
  get defeated() {
    return Boolean(this._source.defeated);
  }
  get isDefeated() {
    return this.defeated || Boolean(this.actor?.statuses?.has?.("dead"));
  }
  get hidden() {
    return Boolean(this._source.hidden);
  }
  _isOwnedBy(user) {
    return this.actor?._isOwnedBy?.(user) ?? false;
  }
  async update(changes = {}, options = {}) {
    return this.parent.updateEmbeddedDocuments("Combatant", [{ ...changes, _id: this.id }], options).then((r) => r[0]);
  }
}

export class Combat extends Document {
  static documentName = "Combat";
  _initialize() {
    const { combatants = [], ...rest } = this._source;
    for (const [k, v] of Object.entries(rest)) {
      if (k === "_id" || k in Combat.prototype) continue;
      this[k] = v;
    }
    this.round = this._source.round ?? 0;
    this.turn = this._source.turn ?? null;
    this.combatants ??= new Collection();
    const seen = new Set();
    for (const data of combatants) {
      seen.add(data._id);
      const existing = this.combatants.get(data._id);
      if (existing) {
        existing._source = deepClone(data);
        existing._initialize();
      } else this.combatants.set(data._id, new Combatant(data, { parent: this }));
    }
    for (const id of [...this.combatants.keys()]) if (!seen.has(id)) this.combatants.delete(id);
    this.setupTurns();
  }
  get scene() {
    return game.scenes.get(this._source.scene) ?? null;
  }
  get active() {
    return Boolean(this._source.active);
  }
  get started() {
    return this.round > 0;
  }
  get isActive() {
    return this.active;
  }
  /** The combatant whose turn it is. */
  get combatant() {
    return this.turn === null || this.turn === undefined ? undefined : this.turns[this.turn];
  }
  get nextCombatant() {
    return this.turns[(this.turn ?? -1) + 1];
  }
  get settings() {
    return { skipDefeated: false };
  }
  /** Sort the combatants: highest initiative first (none last), then by name, then id. */
  setupTurns() {
    const init = (c) => (Number.isFinite(c.initiative) ? c.initiative : -Infinity);
    this.turns = this.combatants.contents.sort((a, b) => init(b) - init(a)
      || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    if (this.turn !== null && this.turn >= this.turns.length) this.turn = this.turns.length ? 0 : null;
    return this.turns;
  }
  getCombatantsByToken(tokenOrId) {
    const id = typeof tokenOrId === "string" ? tokenOrId : tokenOrId?.id;
    return this.combatants.filter((c) => c.tokenId === id);
  }
  getCombatantsByActor(actorOrId) {
    const id = typeof actorOrId === "string" ? actorOrId : actorOrId?.id;
    return this.combatants.filter((c) => c.actorId === id);
  }
  canUserModify(user) {
    return Boolean(user?.isGM);
  }
  /** May this user make this update? GM: anything; the current combatant's owner: turn/round only. */
  canUserUpdate(user, changes) {
    if (user?.isGM) return true;
    const keys = Object.keys(changes ?? {}).filter((k) => k !== "_id");
    return Boolean(this.combatant?._isOwnedBy(user)) && keys.length > 0 && keys.every((k) => k === "turn" || k === "round");
  }

  static async create(data = {}, options = {}) {
    if (!game.user?.isGM) throw new Error(`User ${game.user?.name} lacks permission to create Combat`);
    const source = { round: 0, turn: null, active: true, scene: canvas.scene?.id ?? null, combatants: [], ...deepClone(data) };
    const combat = new this(source);
    if (Hooks.call("preCreateCombat", combat, source, options, game.user.id) === false) return undefined;
    Combat._onCreate(combat, options, game.user.id);
    net.send("combat", { op: "create", data: combat.toObject(), userId: game.user.id });
    return combat;
  }
  static _onCreate(combat, options, userId) {
    if (combat.active) for (const other of game.combats) other._source.active = false;
    game.combats.set(combat.id, combat);
    Hooks.callAll("createCombat", combat, options, userId);
    ui.combat?.render();
  }

  async createEmbeddedDocuments(embeddedName, list, options = {}) {
    if (embeddedName !== "Combatant") throw new Error(`Sandbox: no embedded ${embeddedName} on Combat`);
    if (!this.canUserModify(game.user)) throw new Error(`User ${game.user?.name} lacks permission to create Combatant`);
    const data = list.map((d) => {
      const token = canvas.scene?.tokens?.get(d.tokenId);
      return { _id: randomID(), sceneId: canvas.scene?.id ?? null, actorId: token?.actorId ?? null, initiative: null,
        defeated: false, hidden: false, flags: {}, ...deepClone(d) };
    });
    const created = this._createCombatants(data, options, game.user.id);
    net.send("combat", { op: "createEmbedded", id: this.id, data, userId: game.user.id });
    return created;
  }
  _createCombatants(list, options, userId) {
    this._source.combatants = [...(this._source.combatants ?? []), ...deepClone(list)];
    this._initialize();
    const created = list.map((d) => this.combatants.get(d._id));
    for (const c of created) Hooks.callAll("createCombatant", c, options, userId);
    ui.combat?.render();
    return created;
  }
  async updateEmbeddedDocuments(embeddedName, updates, options = {}) {
    if (embeddedName !== "Combatant") throw new Error(`Sandbox: no embedded ${embeddedName} on Combat`);
    if (!this.canUserModify(game.user)) throw new Error(`User ${game.user?.name} lacks permission to update Combatant`);
    const done = this._updateCombatants(updates, options, game.user.id);
    net.send("combat", { op: "updateEmbedded", id: this.id, updates: deepClone(updates), options, userId: game.user.id });
    return done;
  }
  _updateCombatants(updates, options, userId) {
    const done = [];
    for (const { _id, ...diff } of updates) {
      const data = this._source.combatants.find((d) => d._id === _id);
      if (!data) continue;
      applyDiff(data, diff);
      done.push([_id, diff]);
    }
    this._initialize();
    for (const [id, diff] of done) Hooks.callAll("updateCombatant", this.combatants.get(id), diff, options, userId);
    ui.combat?.render();
    return done.map(([id]) => this.combatants.get(id));
  }
  async deleteEmbeddedDocuments(embeddedName, ids, options = {}) {
    if (!this.canUserModify(game.user)) throw new Error(`User ${game.user?.name} lacks permission to delete Combatant`);
    this._deleteCombatants(ids, options, game.user.id);
    net.send("combat", { op: "deleteEmbedded", id: this.id, ids, userId: game.user.id });
  }
  _deleteCombatants(ids, options, userId) {
    const gone = ids.map((id) => this.combatants.get(id)).filter(Boolean);
    this._source.combatants = this._source.combatants.filter((d) => !ids.includes(d._id));
    this._initialize();
    for (const c of gone) Hooks.callAll("deleteCombatant", c, options, userId);
    ui.combat?.render();
  }

  async update(changes = {}, options = {}) {
    // Foundry's server changes only what differs ("changed" is the differential data): a turn or
    // round set to what it is already is no change, and an update of nothing is not sent at all.
    changes = Object.fromEntries(Object.entries(changes).filter(([k, v]) => !((k === "round" || k === "turn") && v === this[k])));
    if (!Object.keys(changes).filter((k) => k !== "_id").length) return this;
    if (!this.canUserUpdate(game.user, changes)) {
      const keys = Object.keys(changes).filter((k) => k !== "_id").join(", ");
      throw new Error(`User ${game.user?.name} lacks permission to update Combat [${this.id}] (${keys || "nothing"}): a player may change only turn and round, on their own combatant's turn`);
    }
    const diff = deepClone(changes);
    if (Hooks.call("preUpdateCombat", this, diff, options, game.user.id) === false) return undefined;
    this._applyUpdate(diff, options, game.user.id);
    net.send("combat", { op: "update", id: this.id, diff, options: deepClone(options), userId: game.user.id });
    return this;
  }
  _applyUpdate(diff, options, userId) {
    const prior = { round: this.round, turn: this.turn, combatantId: this.combatant?.id ?? null, tokenId: this.combatant?.tokenId ?? null };
    applyDiff(this._source, diff);
    this._initialize();
    Hooks.callAll("updateCombat", this, diff, options, userId);
    if ("turn" in diff || "round" in diff) {
      const current = { round: this.round, turn: this.turn, combatantId: this.combatant?.id ?? null, tokenId: this.combatant?.tokenId ?? null };
      Hooks.callAll("combatTurnChange", this, prior, current);
    }
    ui.combat?.render();
  }

  /** Begin the encounter: round 1, the first turn. */
  async startCombat() {
    const updateData = { round: 1, turn: 0 };
    Hooks.callAll("combatStart", this, updateData);
    await this.update(updateData);
    return this;
  }
  /** The next turn; past the last turn, the next round. */
  async nextTurn() {
    if (this.round === 0) return this.startCombat();
    const turn = this.turn ?? -1;
    const next = turn + 1;
    if (next >= this.turns.length) return this.nextRound();
    const updateData = { round: this.round, turn: next };
    const updateOptions = { advanceTime: 0, direction: 1 };
    Hooks.callAll("combatTurn", this, updateData, updateOptions);
    await this.update(updateData, updateOptions);
    return this;
  }
  async previousTurn() {
    if (this.round === 0) return this;
    if ((this.turn ?? 0) === 0) return this.previousRound();
    const updateData = { round: this.round, turn: (this.turn ?? 1) - 1 };
    const updateOptions = { advanceTime: 0, direction: -1 };
    Hooks.callAll("combatTurn", this, updateData, updateOptions);
    await this.update(updateData, updateOptions);
    return this;
  }
  async nextRound() {
    const updateData = { round: this.round + 1, turn: 0 };
    const updateOptions = { direction: 1, worldTime: { delta: 0 } };
    Hooks.callAll("combatRound", this, updateData, updateOptions);
    await this.update(updateData, updateOptions);
    return this;
  }
  async previousRound() {
    const round = Math.max(this.round - 1, 0);
    const updateData = { round, turn: round === 0 ? null : Math.max(this.turns.length - 1, 0) };
    const updateOptions = { direction: -1, worldTime: { delta: 0 } };
    Hooks.callAll("combatRound", this, updateData, updateOptions);
    await this.update(updateData, updateOptions);
    return this;
  }
  /** End the encounter (after a confirmation in Foundry; here at once). */
  async endCombat() {
    return this.delete();
  }
  async delete(options = {}) {
    if (!this.canUserModify(game.user)) throw new Error(`User ${game.user?.name} lacks permission to delete Combat`);
    this._onDelete(options, game.user.id);
    net.send("combat", { op: "delete", id: this.id, userId: game.user.id });
    return this;
  }
  _onDelete(options, userId) {
    game.combats.delete(this.id);
    Hooks.callAll("deleteCombat", this, options, userId);
    ui.combat?.render();
  }
}

/** game.combats: the world's encounters; `active` / `viewed` is the one the tracker shows. */
export class CombatEncounters extends Collection {
  get active() {
    return this.find((c) => c.active && (!c.scene || c.scene === canvas.scene)) ?? null;
  }
  get viewed() {
    return this.active ?? this.contents.at(-1) ?? null;
  }
}

net.on("combat", ({ op, id, data, diff, updates, ids, options, userId }) => {
  const combat = game.combats.get(id);
  if (op === "create") Combat._onCreate(new Combat(data), {}, userId);
  else if (op === "update") combat?._applyUpdate(diff, options ?? {}, userId);
  else if (op === "delete") combat?._onDelete({}, userId);
  else if (op === "createEmbedded") combat?._createCombatants(data, {}, userId);
  else if (op === "updateEmbedded") combat?._updateCombatants(updates, options ?? {}, userId);
  else if (op === "deleteEmbedded") combat?._deleteCombatants(ids, {}, userId);
});

/**
 * ui.combat: the combat tracker. Lists the turn order (the active one highlighted) with Begin,
 * previous / next turn, next round and End buttons, and fires "renderCombatTracker"(app, html,
 * context) so modules can add to it.
 */
export class CombatTracker {
  constructor(element) {
    this.element = element;
    this.rendered = false;
  }
  get viewed() {
    return game.combats?.viewed ?? null;
  }
  render() {
    const root = this.element;
    if (!root) return this;
    const combat = this.viewed;
    const gm = game.user.isGM;
    const selected = canvas.tokens?.controlled?.length ?? 0;
    const rows = (combat?.turns ?? []).map((c, i) => {
      const active = combat.started && i === combat.turn;
      const statuses = [...(c.actor?.statuses ?? [])];
      return `<li class="combatant${active ? " active" : ""}${c.isDefeated ? " defeated" : ""}" data-combatant-id="${escapeHTML(c.id)}" data-token-id="${escapeHTML(c.tokenId ?? "")}">
        <img src="${escapeHTML(c.img)}" alt=""><span class="name">${escapeHTML(c.name)}</span>
        <span class="statuses">${statuses.map((s) => `<span class="status" data-status="${escapeHTML(s)}">${escapeHTML(s)}</span>`).join("")}</span>
        <span class="initiative">${c.initiative ?? ""}</span></li>`;
    }).join("");
    const scrolled = root.querySelector(".combat-panel-body")?.scrollTop ?? 0;
    const button = (action, label, title, disabled = false) => `<button type="button" data-action="${action}" title="${escapeHTML(title)}"${disabled || !gm ? " disabled" : ""}>${label}</button>`;
    // A player sees End Turn on their own combatant's turn (Combat#nextTurn, turn/round only).
    const myTurn = !gm && combat?.started && Boolean(combat.combatant?._isOwnedBy(game.user));
    const endTurn = myTurn ? `<button type="button" data-action="nextTurn" class="end-turn" title="End your turn">End Turn ▶</button>` : "";
    root.innerHTML = `<header class="combat-panel-header">
        <h3>Combat</h3>
        <span class="encounter-round" data-round="${combat?.round ?? 0}">${combat ? (combat.started ? `Round ${combat.round}` : "Not started") : "No encounter"}</span>
        <button type="button" class="collapse" data-action="collapse" title="Hide / show">▾</button>
      </header>
      <div class="combat-controls">
        ${combat ? "" : `<p class="hint">${selected ? `${selected} token${selected > 1 ? "s" : ""} selected.` : "Select tokens (Shift-click for more), then:"}</p>`}
        ${combat ? "" : button("create", "⚔ Create encounter", "A new encounter with the selected tokens (all tokens if none is selected)")}
        ${combat && !combat.started ? button("startCombat", "▶ Begin", "Begin combat") : ""}
        ${combat?.started && gm ? button("previousTurn", "◀", "Previous turn") : ""}
        ${combat?.started && gm ? button("nextTurn", "Next ▶", "Next turn") : ""}
        ${combat?.started && gm ? button("nextRound", "Next round", "Next round") : ""}
        ${combat && gm ? button("endCombat", "End", "End the encounter") : ""}
        ${endTurn}
      </div>
      <div class="combat-panel-body">
        <ol id="combat-tracker" class="directory combat-tracker combat-turns">${rows}</ol>
      </div>`;
    root.dataset.started = String(Boolean(combat?.started));
    root.hidden = false;
    for (const b of root.querySelectorAll("[data-action]")) {
      b.addEventListener("click", () => this._onAction(b.dataset.action).catch((err) => ui.notifications.error(err.message)));
    }
    for (const li of root.querySelectorAll(".combatant")) {
      li.addEventListener("click", () => canvas.tokens.get(li.dataset.tokenId)?.control({ releaseOthers: true }));
    }
    this.rendered = true;
    Hooks.callAll("renderCombatTracker", this, root, { combat, round: combat?.round ?? 0, turn: combat?.turn ?? null, turns: combat?.turns ?? [] });
    // Keep the list where the user scrolled it; when the turn moves, bring the current one into view.
    const body = root.querySelector(".combat-panel-body");
    const moment = `${combat?.id}|${combat?.round}|${combat?.turn}|${root.querySelector(".current")?.dataset.index ?? ""}`;
    if (body) body.scrollTop = scrolled;
    const current = root.querySelector(".ff-activation.current") ?? root.querySelector(".combatant.active");
    if (body && current && moment !== this._moment) {
      const offset = current.getBoundingClientRect().top - body.getBoundingClientRect().top + body.scrollTop;
      body.scrollTop = Math.max(0, offset - body.clientHeight / 2);
    }
    this._moment = moment;
    return this;
  }
  async _onAction(action) {
    const combat = this.viewed;
    if (action === "collapse") {
      this.element.classList.toggle("collapsed");
      return;
    }
    if (action === "create") {
      const tokens = canvas.tokens.controlled.length ? canvas.tokens.controlled : canvas.tokens.placeables;
      const created = await Combat.create({ scene: canvas.scene?.id });
      await created.createEmbeddedDocuments("Combatant", tokens.map((t) => ({ tokenId: t.id, sceneId: canvas.scene.id, actorId: t.document.actorId })));
      return;
    }
    await combat?.[action]?.();
  }
}
