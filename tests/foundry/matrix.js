// Helpers the real-Foundry matrix runs in a Foundry v13 game page (page.evaluate of this file
// defines globalThis.fftier). Only Foundry's public client API (foundryvtt.com/api/v13) and
// Firefight's documented api (game.modules.get("firefight").api) are used: no sandbox, no
// Foundry internals. Every failure throws an Error naming what was missing.
(() => {
  if (globalThis.fftier) return;
  const MODULE = "firefight";
  const api = () => {
    const mod = game.modules.get(MODULE);
    if (!mod?.active) throw new Error("module firefight is not active in this world");
    if (!mod.api) throw new Error("game.modules.get('firefight').api is not set");
    return mod.api;
  };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function until(what, test, ms = 30000) {
    const end = Date.now() + ms;
    for (;;) {
      const value = await test();
      if (value) return value;
      if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await sleep(100);
    }
  }
  const clone = (v) => foundry.utils.deepClone(v ?? null);

  // ui.notifications.error calls, so a step can prove it raised none.
  const errors = [];
  const notifications = ui.notifications;
  const original = notifications.error.bind(notifications);
  notifications.error = (message, ...rest) => {
    errors.push(String(message));
    return original(message, ...rest);
  };

  /** Packs of this module visible in this world (CompendiumCollection#metadata.packageName). */
  const modulePacks = () => game.packs.filter((p) => p.metadata.packageName === MODULE);

  /** A pack actor carrying the ruleset's data: {pack, id, name}. */
  async function findPackActor({ ruleset, linked, armed }) {
    for (const pack of modulePacks().filter((p) => p.documentName === "Actor")) {
      for (const actor of await pack.getDocuments()) {
        if (!actor.flags?.[MODULE]?.[ruleset]) continue;
        if (linked !== undefined && Boolean(actor.prototypeToken?.actorLink) !== linked) continue;
        const weapons = actor.items.filter((i) => i.flags?.[MODULE]?.[ruleset]?.category === "weapon");
        if (armed && !weapons.length) continue;
        return { pack: pack.collection, id: actor.id, name: actor.name };
      }
    }
    const what = [linked === false ? "unlinked" : linked ? "linked" : "", armed ? "armed" : ""].filter(Boolean).join(", ");
    throw new Error(`no ${what} actor with flags.firefight.${ruleset} in the firefight packs of ${game.system.id}`);
  }

  /** Import a pack actor into the world (WorldCollection#importFromCompendium). */
  async function importActor(ref) {
    const pack = game.packs.get(ref.pack);
    const actor = await game.actors.importFromCompendium(pack, ref.id, {}, { keepId: false });
    if (!actor) throw new Error(`importing ${ref.name} from ${ref.pack} gave no actor`);
    return actor.id;
  }

  /** A square-grid scene of 5 m squares, viewed (and activated: players see it). */
  async function makeScene(name) {
    const grid = { type: CONST.GRID_TYPES.SQUARE, size: 100, distance: 5, units: "m" };
    const scene = await Scene.create({ name, width: 1600, height: 1200, padding: 0, grid });
    await scene.activate();
    await scene.view();
    await until(`scene ${name} on the canvas`, () => canvas.ready && canvas.scene?.id === scene.id);
    return scene.id;
  }

  /**
   * The diagonal rule (CONST.GRID_DIAGONALS) of the viewed scene's grid, canvas.grid.diagonals
   * (SquareGridConfiguration#diagonals). Public v12/v13 modules set it as the world setting
   * core.gridDiagonals and redraw the canvas; the scene's own grid.diagonals is set too, for a
   * core that keeps the rule per scene (an unknown field is dropped by the scene's schema).
   * Returns the rule the canvas had before.
   */
  async function setDiagonals(diagonals) {
    const before = canvas.grid.diagonals;
    if (game.settings.settings.has("core.gridDiagonals")) {
      await game.settings.set("core", "gridDiagonals", diagonals);
    }
    await canvas.scene.update({ "grid.diagonals": diagonals });
    await canvas.draw();
    await until(`grid diagonals ${diagonals} on the canvas`,
      () => canvas.ready && canvas.grid?.diagonals === diagonals);
    return before;
  }

  /** A token of a world actor at grid square (col, row); returns the token id. */
  async function placeToken(sceneId, actorId, col, row) {
    const scene = game.scenes.get(sceneId);
    const actor = game.actors.get(actorId);
    const size = scene.grid.size;
    const data = (await actor.getTokenDocument({ x: col * size, y: row * size })).toObject();
    const [doc] = await scene.createEmbeddedDocuments("Token", [data]);
    await until(`token ${doc.name} on the canvas`, () => canvas.tokens.get(doc.id));
    return doc.id;
  }

  async function moveToken(tokenId, col, row) {
    const doc = canvas.scene.tokens.get(tokenId);
    const size = canvas.scene.grid.size;
    await doc.update({ x: col * size, y: row * size }, { animate: false });
    await until(`token ${doc.name} at ${col},${row}`, () => {
      const t = canvas.tokens.get(tokenId);
      return t && t.document.x === col * size && t.document.y === row * size;
    });
  }

  /** What a token's actor is: its own (synthetic for unlinked tokens) actor's data. */
  function tokenActor(tokenId) {
    const doc = canvas.scene.tokens.get(tokenId);
    const actor = doc?.actor;
    if (!actor) throw new Error(`token ${tokenId} has no actor`);
    return {
      id: actor.id, uuid: actor.uuid, isToken: Boolean(actor.isToken), linked: Boolean(doc.actorLink),
      flags: clone(actor.flags?.[MODULE]), statuses: [...(actor.statuses ?? [])].sort(),
    };
  }

  function worldActor(actorId) {
    const actor = game.actors.get(actorId);
    return { id: actor.id, flags: clone(actor.flags?.[MODULE]), statuses: [...(actor.statuses ?? [])].sort() };
  }

  /** api.shoot with dialog:false between two tokens; the posted message's flags. */
  async function shoot(attackerId, targetId, options = {}) {
    const message = await api().shoot({
      attacker: canvas.tokens.get(attackerId), target: canvas.tokens.get(targetId), dialog: false, options,
    });
    if (!message) throw new Error(`api.shoot posted no message; notifications: ${errors.join(" | ") || "none"}`);
    return messageState(message.id);
  }

  function messageState(messageId) {
    const message = game.messages.get(messageId);
    const ff = message?.flags?.[MODULE] ?? {};
    return { id: messageId, request: clone(ff.request), result: clone(ff.result), applied: clone(ff.applied),
      undone: clone(ff.undone) };
  }

  // api.apply / api.undo resolve {ok, code?, reason?} and never throw (js-shim/documents/apply.mjs).
  async function apply(messageId) {
    const reply = await api().apply(messageId);
    return { ...messageState(messageId), reply: clone(reply) };
  }

  async function undo(messageId) {
    const reply = await api().undo(messageId);
    return { ...messageState(messageId), reply: clone(reply) };
  }

  /** The ids of CONFIG.statusEffects (the statuses this world's system defines). */
  const statusIds = () => CONFIG.statusEffects.map((s) => s.id);

  /** The distance Foundry measures between two tokens under the scene's diagonal rule. */
  function measured(aId, bId) {
    const a = canvas.tokens.get(aId), b = canvas.tokens.get(bId);
    const path = canvas.grid.measurePath([a.center, b.center]);
    return { distance: path.distance, euclidean: path.euclidean ?? null };
  }

  /** Install state: this module's packs, their document types, the package issues. */
  async function installState() {
    const packs = [];
    for (const pack of modulePacks()) {
      const docs = await pack.getDocuments();
      const allowed = game.documentTypes?.[pack.documentName] ?? null;
      packs.push({
        name: pack.metadata.name, type: pack.documentName, system: pack.metadata.system ?? null, count: docs.length,
        badTypes: allowed ? [...new Set(docs.map((d) => d.type).filter((t) => t && !allowed.includes(t)))] : [],
      });
    }
    return {
      system: game.system.id, packs,
      issues: clone(game.issues?.packageCompatibilityIssues?.[MODULE] ?? null),
      invalid: Object.fromEntries(Object.entries(game.issues?.validationFailures ?? {})
        .map(([type, failures]) => [type, Object.keys(failures ?? {}).length]).filter(([, n]) => n)),
    };
  }

  /** Make a user (a player) and give them ownership of actors. */
  async function makePlayer(name, actorIds) {
    const user = game.users.getName(name) ?? await User.create({ name, role: CONST.USER_ROLES.PLAYER, password: "" });
    for (const id of actorIds) {
      await game.actors.get(id).update({ [`ownership.${user.id}`]: CONST.DOCUMENT_OWNERSHIP_LEVELS.OWNER });
    }
    return user.id;
  }

  /** An encounter of tokens on the viewed scene, started. */
  async function startCombat(tokenIds) {
    const combat = await Combat.create({ scene: canvas.scene.id, active: true });
    await combat.createEmbeddedDocuments("Combatant", tokenIds.map((tokenId) => ({
      tokenId, sceneId: canvas.scene.id, actorId: canvas.scene.tokens.get(tokenId)?.actorId,
    })));
    await combat.startCombat();
    // The GM's client draws the round's activations (docs/architecture.md, chit pull).
    await until("the round's activations", () => api().combat.activations(combat)?.list?.length);
    await api().combat.settled();
    return combat.id;
  }

  function combatState() {
    const c = game.combat;
    if (!c) return null;
    const act = c.flags?.[MODULE]?.activations ?? null;
    return { id: c.id, round: c.round, turn: c.turn, combatant: c.combatant?.id ?? null,
      owner: Boolean(c.combatant?.isOwner), index: act?.index ?? null, round_drawn: act?.round ?? null };
  }

  /** As a player: the tracker's End Turn (Combat#nextTurn); the error it raised, if any. */
  async function endTurn() {
    try {
      await game.combat.nextTurn();
      return null;
    } catch (err) {
      return String(err?.message ?? err);
    }
  }

  globalThis.fftier = {
    until, errors, modulePacks, findPackActor, importActor, makeScene, setDiagonals, placeToken, moveToken,
    tokenActor, worldActor, shoot, messageState, apply, undo, statusIds, measured, installState, makePlayer,
    startCombat, combatState, endTurn,
    engineReady: () => api().engine.status === "ready",
    setRuleset: (id) => game.settings.set(MODULE, "ruleset", id),
  };
})();
