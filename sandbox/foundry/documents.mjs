// Client documents: Actor, Item, User, Scene, TokenDocument, ChatMessage.
// No server: every open table page is a client, kept in step over foundry/net.mjs. A change is
// checked against the user's permission first, as Foundry's server does (a player may update
// only what they own; a GM anything), applied locally, then sent to the other pages, which fire
// the same hooks with the acting user's id.
import { Collection } from "./collection.mjs";
import { deepClone, expandObject, getProperty, mergeObject, randomID, setProperty } from "./utils.mjs";
import { Hooks } from "./hooks.mjs";
import { Roll } from "./dice.mjs";
import * as net from "./net.mjs";
import { itemSheetFor } from "./sheets.mjs";

const OWNER = 3;

function permissionError(user, action, doc) {
  return new Error(`User ${user?.name ?? "?"} lacks permission to ${action} ${doc.documentName} [${doc.id}]`);
}

/** Apply an update diff to source data: dotted keys, nested objects, and "-=key" deletions. */
export function applyDiff(source, diff) {
  for (const [k, v] of Object.entries(diff)) {
    if (k.includes(".")) {
      const parts = k.split(".");
      const last = parts.pop();
      if (last.startsWith("-=")) {
        const holder = parts.length ? getProperty(source, parts.join(".")) : source;
        if (holder && typeof holder === "object") delete holder[last.slice(2)];
      } else setProperty(source, k, deepClone(v));
    } else if (k.startsWith("-=")) delete source[k.slice(2)];
    else if (v && typeof v === "object" && !Array.isArray(v) && source[k] && typeof source[k] === "object" && !Array.isArray(source[k])) {
      mergeObject(source[k], v, { performDeletions: true });
    } else if (v && typeof v === "object" && !Array.isArray(v)) {
      source[k] = mergeObject({}, v, { performDeletions: true }); // a new object: no stray "-=" keys
    } else source[k] = deepClone(v);
  }
}

// Actor and Item carry a `type` that must be one the world's system declares
// (game.documentTypes); Foundry's validation error reads 'type: "base" is not a valid type for
// the Actor Document class' (sandbox/README.md, "Packages and document types").
const TYPED_DOCUMENTS = ["Actor", "Item"];
function validateType(documentName, type) {
  const types = globalThis.game?.documentTypes?.[documentName];
  if (!TYPED_DOCUMENTS.includes(documentName) || !types || types.includes(type)) return;
  throw new Error(`${documentName} validation errors:\n  type: "${type}" is not a valid type for the ${documentName} Document class`);
}

export class Document {
  static documentName = "Document";
  constructor(data = {}, { parent = null } = {}) {
    validateType(this.constructor.documentName, data?.type);
    this._source = deepClone(data);
    this._source._id ??= randomID();
    this._source.flags ??= {};
    this.parent = parent;
    this._initialize();
  }
  _initialize() {
    for (const [k, v] of Object.entries(this._source)) {
      if (k === "_id" || k === "_key" || k in this.constructor.prototype) continue;
      this[k] = v;
    }
  }
  get id() {
    return this._source._id;
  }
  get _id() {
    return this._source._id;
  }
  get documentName() {
    return this.constructor.documentName;
  }
  get uuid() {
    const own = `${this.documentName}.${this.id}`;
    return this.parent ? `${this.parent.uuid}.${own}` : own;
  }
  /** May this user change it? GMs may change anything. */
  canUserModify(user, _action = "update") {
    return Boolean(user?.isGM) || this._isOwnedBy(user);
  }
  _isOwnedBy(_user) {
    return false;
  }
  testUserPermission(user, level = "OWNER") {
    if (user?.isGM) return true;
    return level === "OWNER" || level === OWNER ? this._isOwnedBy(user) : true;
  }
  get isOwner() {
    return this.canUserModify(game.user);
  }
  getFlag(scope, key) {
    return getProperty(this.flags?.[scope], key);
  }
  async setFlag(scope, key, value) {
    return this.update({ [`flags.${scope}.${key}`]: value });
  }
  async unsetFlag(scope, key) {
    const parts = key.split(".");
    const last = parts.pop();
    return this.update({ [`flags.${scope}.${parts.length ? `${parts.join(".")}.` : ""}-=${last}`]: null });
  }
  toObject() {
    return deepClone(this._source);
  }
  toJSON() {
    return this.toObject();
  }
  /** Change the source data in place, without hooks or permission (preCreate hooks use it). */
  updateSource(changes = {}) {
    applyDiff(this._source, deepClone(changes));
    this._initialize();
    return changes;
  }
  /** Apply changes (dotted or nested), fire pre/update hooks, tell the other clients. */
  async update(changes = {}, options = {}) {
    if (!this.canUserModify(game.user, "update")) throw permissionError(game.user, "update", this);
    // The hooks get the changes expanded, as Foundry's do: dnd5e's `_preUpdate` reads them with
    // `foundry.utils.hasProperty(changed, "system.attributes.hp.value")`, blind to a dotted key.
    const diff = expandObject(deepClone(changes));
    if (Hooks.call(`preUpdate${this.documentName}`, this, diff, options, game.user?.id) === false) return undefined;
    this._applyUpdate(diff, options, game.user?.id);
    net.send("update", { uuid: this.uuid, diff, options: deepClone(options), userId: game.user?.id });
    return this;
  }
  _applyUpdate(diff, options, userId) {
    applyDiff(this._source, diff);
    this._initialize();
    this._onUpdate(diff, options, userId);
    Hooks.callAll(`update${this.documentName}`, this, diff, options, userId);
  }
  _onUpdate() {}
}

export class Item extends Document {
  static documentName = "Item";
  // DocumentClassMetadata `label`: a core lang key for the document type's name (README).
  static metadata = Object.freeze({ name: "Item", label: "DOCUMENT.Item", labelPlural: "DOCUMENT.Items" });
  /** ClientDocumentMixin#sheet: the item's one sheet (the one a double-click opens). */
  get sheet() {
    return itemSheetFor(this);
  }
  get actor() {
    return this.parent instanceof Actor ? this.parent : null;
  }
  _isOwnedBy(user) {
    return this.parent ? this.parent._isOwnedBy(user) : false;
  }
  _onUpdate() {
    // Keep the parent's source in step, so the actor re-initializes with the new data.
    const list = this.parent?._source?.items;
    const i = list?.findIndex((d) => d._id === this.id) ?? -1;
    if (i >= 0) list[i] = deepClone(this._source);
    if (this.parent?.isToken) this.parent.token._storeDelta(this.parent._source);
  }
}

function createItems(actor, list, userId, options = {}) {
  const created = [];
  for (const data of list) {
    const item = new Item(data, { parent: actor });
    if (userId === game.user?.id && Hooks.call("preCreateItem", item, deepClone(data), options, userId) === false) continue;
    actor._source.items ??= [];
    actor._source.items.push(deepClone(item._source));
    actor.items.set(item.id, item);
    created.push(item);
  }
  if (actor.isToken) actor.token._storeDelta(actor._source);
  for (const item of created) Hooks.callAll("createItem", item, options, userId);
  return created;
}

export class Actor extends Document {
  static documentName = "Actor";
  static metadata = Object.freeze({ name: "Actor", label: "DOCUMENT.Actor", labelPlural: "DOCUMENT.Actors" });
  _initialize() {
    const { items = [], ...rest } = this._source;
    for (const [k, v] of Object.entries(rest)) {
      if (k === "_id" || k === "_key" || k in Actor.prototype) continue;
      this[k] = v;
    }
    if (!this.items) this.items = new Collection();
    const seen = new Set();
    for (const data of items) {
      seen.add(data._id);
      const existing = this.items.get(data._id);
      if (existing) {
        existing._source = deepClone(data);
        existing._initialize();
      } else {
        const item = new Item(data, { parent: this });
        this.items.set(item.id, item);
      }
    }
    for (const id of [...this.items.keys()]) if (!seen.has(id)) this.items.delete(id);
  }
  _isOwnedBy(user) {
    if (!user) return false;
    const own = this._source.ownership ?? {};
    return (own[user.id] ?? own.default ?? 0) >= OWNER;
  }
  /** True when a non-GM user owns it (ownership level 3). */
  get hasPlayerOwner() {
    return game.users.some((u) => !u.isGM && this._isOwnedBy(u));
  }
  getActiveTokens() {
    return canvas.tokens?.placeables.filter((t) => t.actor === this) ?? [];
  }
  /** An unlinked token's own (synthetic) actor: same id as the base actor, parent its token. */
  get isToken() {
    return this.parent instanceof TokenDocument;
  }
  get token() {
    return this.isToken ? this.parent : null;
  }
  _onUpdate() {
    // A synthetic actor's changes land on its token (the token's actor delta), never on the world
    // actor; a world actor's changes show through every unlinked token's actor not overriding them.
    if (this.isToken) this.parent._storeDelta(this._source);
    else for (const scene of game.scenes ?? []) for (const token of scene.tokens ?? []) if (token._syntheticActor && token.actorId === this.id) token._refreshActor();
  }
  /** The ids of the status effects on the actor (from its effects, as in Foundry). */
  get statuses() {
    return new Set((this._source.effects ?? []).flatMap((e) => e.statuses ?? []));
  }
  /**
   * Actor#toggleStatusEffect(statusId, {active, overlay}) -> Promise. Only ids of
   * CONFIG.statusEffects (the world's system's list): core throws for any other, with this message
   * (foundryvtt.com/api Actor#toggleStatusEffect; reproduced by systems that copy core's method,
   * e.g. crnormand/gurps GurpsActor#toggleStatusEffect).
   */
  async toggleStatusEffect(statusId, { active, overlay = false } = {}) {
    const status = CONFIG.statusEffects?.find?.((s) => s.id === statusId);
    if (!status) throw new Error(`Invalid status ID "${statusId}" provided to Actor#toggleStatusEffect`);
    const has = this.statuses.has(statusId);
    const want = active ?? !has;
    if (want === has) return want;
    const effects = deepClone(this._source.effects ?? []);
    const next = want
      ? [...effects, { _id: randomID(), name: status?.name ?? statusId, img: status?.img ?? "", statuses: [statusId], flags: { core: { overlay } } }]
      : effects.filter((e) => !(e.statuses ?? []).includes(statusId));
    await this.update({ effects: next });
    return want;
  }
  static async create(data, options = {}) {
    if (!game.user?.isGM) throw new Error(`User ${game.user?.name} lacks permission to create Actor`);
    const actor = new Actor(data);
    game.actors.set(actor.id, actor);
    Hooks.callAll("createActor", actor, options, game.user.id);
    net.send("create", { documentName: "Actor", data: actor.toObject(), userId: game.user.id });
    return actor;
  }
  async createEmbeddedDocuments(embeddedName, list, options = {}) {
    if (embeddedName !== "Item") throw new Error(`Sandbox: no embedded ${embeddedName} on Actor`);
    if (!this.canUserModify(game.user, "update")) throw permissionError(game.user, "create items on", this);
    const created = createItems(this, list.map(deepClone), game.user.id, options);
    net.send("createEmbedded", { uuid: this.uuid, embedded: embeddedName, data: created.map((i) => i.toObject()), userId: game.user.id });
    return created;
  }
  async deleteEmbeddedDocuments(embeddedName, ids, options = {}) {
    if (!this.canUserModify(game.user, "update")) throw permissionError(game.user, "delete items of", this);
    this._deleteItems(ids, options, game.user.id);
    net.send("deleteEmbedded", { uuid: this.uuid, embedded: embeddedName, ids, userId: game.user.id });
  }
  _deleteItems(ids, options, userId) {
    const gone = ids.map((id) => this.items.get(id)).filter(Boolean);
    this._source.items = (this._source.items ?? []).filter((d) => !ids.includes(d._id));
    this._initialize();
    if (this.isToken) this.token._storeDelta(this._source);
    for (const item of gone) Hooks.callAll("deleteItem", item, options, userId);
  }
  get sheet() {
    const Sheet = CONFIG.Actor?.sheetClass;
    if (!Sheet) return null;
    this._sheet ??= new Sheet({ document: this });
    return this._sheet;
  }
}

export class User extends Document {
  static documentName = "User";
  constructor(data, context) {
    super(data, context);
    this.targets = new Set();
    this.active ??= false;
  }
  get isGM() {
    return (this.role ?? 1) >= 4;
  }
  /**
   * User#can(action): "Is this User able to perform a certain permission action" (a name of
   * CONST.USER_PERMISSIONS); GMs always. The lowest role each action needs by default:
   * USER_PERMISSION_ROLES (sandbox/README.md, "The rules it enforces").
   */
  can(action) {
    if (this.isGM) return true;
    const role = USER_PERMISSION_ROLES[action];
    return role !== undefined && (this.role ?? 1) >= role;
  }
  _isOwnedBy(user) {
    return user?.id === this.id;
  }
}

/** Default roles of the permissions the sandbox knows: TEMPLATE_CREATE from PLAYER (1) up. */
export const USER_PERMISSION_ROLES = Object.freeze({ TEMPLATE_CREATE: 1 });

/** A synthetic actor's data: the base actor's, each top-level field of the delta replacing it. */
function syntheticSource(base, delta) {
  return { ...deepClone(base), ...deepClone(delta ?? {}), _id: base._id };
}

export class TokenDocument extends Document {
  static documentName = "Token";
  /**
   * A linked token's actor is the world actor; an unlinked one (actorLink false) has its own
   * synthetic actor: the base actor's data with the token's actor delta over it, the same id,
   * `isToken` true, uuid "Scene.<s>.Token.<t>.Actor.<a>" (foundryvtt.com/api TokenDocument#actor,
   * #delta, Actor#isToken; "Synthetic Actors retain the base Actor ID", adambdooley/foundry-vtt-mcp#111).
   */
  get actor() {
    const base = game.actors.get(this.actorId) ?? null;
    if (!base || this._source.actorLink) return base;
    this._syntheticActor ??= new Actor(syntheticSource(base._source, this._source.delta), { parent: this });
    return this._syntheticActor;
  }
  _refreshActor() {
    const base = game.actors.get(this.actorId);
    if (!base || !this._syntheticActor) return;
    this._syntheticActor._source = syntheticSource(base._source, this._source.delta);
    this._syntheticActor._initialize();
  }
  /** Keep as the token's delta what its actor's data has that the base actor's does not. */
  _storeDelta(actorSource) {
    const base = game.actors.get(this.actorId)?._source ?? {};
    const delta = {};
    for (const [k, v] of Object.entries(actorSource)) {
      if (k !== "_id" && JSON.stringify(v) !== JSON.stringify(base[k])) delta[k] = deepClone(v);
    }
    this._source.delta = delta;
    this._initialize();
    this._syncToScene();
  }
  _onUpdate(diff) {
    this._syncToScene();
    if (diff && "delta" in diff) this._refreshActor();
  }
  /** The scene's source keeps its tokens' data (a page that joins later gets them). */
  _syncToScene() {
    const list = this.parent?._source?.tokens;
    const i = list?.findIndex((d) => d._id === this.id) ?? -1;
    if (i >= 0) list[i] = deepClone(this._source);
  }
  get object() {
    return canvas.tokens?.get(this.id) ?? null;
  }
  _isOwnedBy(user) {
    return this.actor?._isOwnedBy(user) ?? false;
  }
}

export class MeasuredTemplateDocument extends Document {
  static documentName = "MeasuredTemplate";
  _isOwnedBy(user) {
    return user?.id === this._source.user;
  }
}

/**
 * A Wall (WallData: `c` [x0, y0, x1, y1], `move` its movement restriction, `door` and `ds` its
 * door and the door's state, `flags`); only a GM creates one (the Walls layer is the GM's).
 */
export class WallDocument extends Document {
  static documentName = "Wall";
}

export class Scene extends Document {
  static documentName = "Scene";
  _initialize() {
    const { tokens = [], templates = [], walls = [], ...rest } = this._source;
    this.templates ??= new Collection();
    for (const data of templates) if (!this.templates.has(data._id)) this.templates.set(data._id, new MeasuredTemplateDocument(data, { parent: this }));
    this.walls ??= new Collection();
    for (const data of walls) if (!this.walls.has(data._id)) this.walls.set(data._id, new WallDocument(data, { parent: this }));
    for (const [k, v] of Object.entries(rest)) {
      if (k === "_id" || k in Scene.prototype) continue;
      this[k] = v;
    }
    this.tokens ??= new Collection();
    for (const data of tokens) {
      const existing = this.tokens.get(data._id);
      if (existing) {
        existing._source = deepClone(data);
        existing._initialize();
      } else this.tokens.set(data._id, new TokenDocument(data, { parent: this }));
    }
  }
  async createEmbeddedDocuments(embeddedName, list, options = {}) {
    if (embeddedName === "MeasuredTemplate") {
      // Players may draw templates (Foundry's default TEMPLATE_CREATE permission).
      if (!game.user?.can("TEMPLATE_CREATE")) throw permissionError(game.user, "create", { documentName: "MeasuredTemplate", id: "new" });
      const docs = this._createTemplates(list.map((d) => ({ user: game.user.id, ...d })), options, game.user.id);
      net.send("createEmbedded", { uuid: this.uuid, embedded: embeddedName, data: docs.map((d) => d.toObject()), userId: game.user.id });
      return docs;
    }
    if (!game.user?.isGM) throw permissionError(game.user, embeddedName === "Wall" ? "create walls on" : "create tokens on", this);
    const docs = embeddedName === "Wall" ? this._createWalls(list, options, game.user.id) : this._createTokens(list, options, game.user.id);
    net.send("createEmbedded", { uuid: this.uuid, embedded: embeddedName, data: docs.map((d) => d.toObject()), userId: game.user.id });
    return docs;
  }
  /** Wall documents: a finite [x0, y0, x1, y1] each (WallData `c`). */
  _createWalls(list, options, userId) {
    this._source.walls ??= [];
    const docs = [];
    for (const data of list) {
      const c = data.c;
      if (!Array.isArray(c) || c.length !== 4 || !c.every(Number.isFinite)) throw new Error("Wall validation errors: c: must be a length-4 array of finite numbers");
      // CONST.WALL_DIRECTIONS: BOTH 0, LEFT 1, RIGHT 2 (foundryvtt.com/api/enums/foundry.CONST.WALL_DIRECTIONS.html).
      if (data.dir !== undefined && ![0, 1, 2].includes(data.dir)) throw new Error("Wall validation errors: dir: must be one of CONST.WALL_DIRECTIONS (0, 1, 2)");
      const doc = new WallDocument({ move: 20, sight: 20, dir: 0, door: 0, ds: 0, threshold: { light: null, sight: null, sound: null, attenuation: false }, flags: {}, ...data, _id: data._id ?? randomID() }, { parent: this });
      this._source.walls.push(deepClone(doc._source));
      this.walls.set(doc.id, doc);
      docs.push(doc);
      Hooks.callAll("createWall", doc, options, userId);
    }
    return docs;
  }
  /** MeasuredTemplate documents (circles drawn on the scene: blasts). */
  _createTemplates(list, options, userId) {
    this._source.templates ??= [];
    this.templates ??= new Collection();
    const docs = [];
    for (const data of list) {
      const doc = new MeasuredTemplateDocument({ _id: data._id ?? randomID(), ...data }, { parent: this });
      this._source.templates.push(deepClone(doc._source));
      this.templates.set(doc.id, doc);
      docs.push(doc);
      Hooks.callAll("createMeasuredTemplate", doc, options, userId);
    }
    return docs;
  }
  async deleteEmbeddedDocuments(embeddedName, ids, options = {}) {
    if (embeddedName !== "MeasuredTemplate") throw new Error(`Sandbox: cannot delete ${embeddedName} from a Scene`);
    // Only its author (its owner) or a GM deletes a template.
    for (const id of ids) {
      const doc = this.templates?.get(id);
      if (doc && !doc.canUserModify(game.user, "delete")) throw permissionError(game.user, "delete", doc);
    }
    this._deleteTemplates(ids, options, game.user.id);
    net.send("deleteEmbedded", { uuid: this.uuid, embedded: embeddedName, ids, userId: game.user.id });
  }
  _deleteTemplates(ids, options, userId) {
    this._source.templates = (this._source.templates ?? []).filter((d) => !ids.includes(d._id));
    for (const id of ids) {
      const doc = this.templates?.get(id);
      this.templates?.delete(id);
      if (doc) Hooks.callAll("deleteMeasuredTemplate", doc, options, userId);
    }
  }
  _createTokens(list, options, userId) {
    const docs = [];
    for (const data of list) {
      const doc = new TokenDocument(data, { parent: this });
      this._source.tokens.push(deepClone(doc._source));
      this.tokens.set(doc.id, doc);
      docs.push(doc);
      Hooks.callAll("createToken", doc, options, userId);
    }
    return docs;
  }
}

/**
 * A message's `author` is the user who sends it unless a GM sends it: Foundry's server refuses a
 * player's 'The "author" field may only be modified by a GM or Assistant GM user' (quoted from the
 * server in moo-man/WFRP4e-FoundryVTT#2846, for an update; a create that names another user is
 * refused the same way here: not public, see sandbox/README.md).
 */
function checkAuthor(data, user) {
  if (user?.isGM || !data || !("author" in data) || data.author === undefined) return;
  if (data.author !== user?.id) throw new Error('The "author" field may only be modified by a GM or Assistant GM user');
}

export class ChatMessage extends Document {
  static documentName = "ChatMessage";
  _initialize() {
    super._initialize();
    this.rolls = (this._source.rolls ?? []).map((r) => Roll.fromJSON(r));
  }
  get isRoll() {
    return this.rolls.length > 0;
  }
  get author() {
    return game.users.get(this._source.author);
  }
  get isAuthor() {
    return this._source.author === game.user.id;
  }
  _isOwnedBy(user) {
    return user?.id === this._source.author;
  }
  /**
   * ChatMessage#visible: "Messages may not be visible if they are private whispers". Every client
   * receives every message (and its hooks); a whisper is read by its recipients and its author
   * only, GMs included: "GMs can never read other players' whispers in core" (foundryvtt/foundryvtt
   * #9888), so a player's self roll (whispered to the roller) is the roller's alone. A whispered
   * roll shows everyone that it was made, its content hidden (isContentVisible: "the message
   * itself may be visible while the content of that message is not").
   */
  get visible() {
    const whisper = this._source.whisper ?? [];
    if (!whisper.length || this.isRoll) return true;
    return this.isAuthor || whisper.includes(game.user.id);
  }
  get blind() {
    return Boolean(this._source.blind);
  }
  /** ChatMessage#isContentVisible (v13): the content of a whisper is its recipients', and its
   * author's unless the message is blind (ChatMessageData.blind: "sent blindly where the creating
   * User cannot see it"). */
  get isContentVisible() {
    if (!this.visible) return false;
    const whisper = this._source.whisper ?? [];
    if (!whisper.length) return true;
    return whisper.includes(game.user.id) || (this.isAuthor && !this.blind);
  }

  static getSpeaker({ scene, actor, token, alias } = {}) {
    const tokenDoc = token?.document ?? token ?? null;
    const a = actor ?? tokenDoc?.actor ?? null;
    return {
      scene: scene?.id ?? tokenDoc?.parent?.id ?? canvas.scene?.id ?? null,
      actor: a?.id ?? null,
      token: tokenDoc?.id ?? null,
      alias: alias ?? tokenDoc?.name ?? a?.name ?? game.user.name,
    };
  }

  /** ChatMessage.applyRollMode(chatData, rollMode): whisper and blind as Foundry sets them. */
  static applyRollMode(chatData, rollMode) {
    const gms = game.users.filter((u) => u.isGM).map((u) => u.id);
    const mode = rollMode === "roll" ? "publicroll" : rollMode;
    chatData.whisper = [];
    chatData.blind = false;
    if (mode === "gmroll") chatData.whisper = gms;
    else if (mode === "blindroll") {
      chatData.whisper = gms;
      chatData.blind = true;
    } else if (mode === "selfroll") chatData.whisper = [game.user.id];
    return chatData;
  }

  /** Create a message: preCreate -> store -> createChatMessage -> render into the chat log. */
  static async create(data = {}, options = {}) {
    checkAuthor(data, game.user);
    const source = deepClone({ ...data, rolls: undefined });
    source.rolls = (data.rolls ?? []).map((r) => JSON.stringify(typeof r?.toJSON === "function" ? r.toJSON() : r));
    source.author ??= game.user.id;
    source.timestamp ??= Date.now();
    source.speaker ??= ChatMessage.getSpeaker();
    source.content ??= "";
    const message = new this(source);
    if (Hooks.call("preCreateChatMessage", message, source, options, game.user.id) === false) return undefined;
    await this._onCreate(message, options, game.user.id);
    net.send("create", { documentName: "ChatMessage", data: message.toObject(), userId: game.user.id });
    return message;
  }
  static async _onCreate(message, options, userId) {
    game.messages.set(message.id, message);
    Hooks.callAll("createChatMessage", message, options, userId);
    await ui.chat.postOne(message);
  }

  async update(changes = {}, options = {}) {
    checkAuthor(expandObject(deepClone(changes)), game.user);
    return super.update(changes, options);
  }

  _onUpdate() {
    ui.chat.updateMessage(this);
  }

  async delete() {
    if (!this.canUserModify(game.user, "delete")) throw permissionError(game.user, "delete", this);
    this._onDelete(game.user.id);
    net.send("delete", { uuid: this.uuid, userId: game.user.id });
    return this;
  }
  _onDelete(userId) {
    game.messages.delete(this.id);
    Hooks.callAll("deleteChatMessage", this, {}, userId);
    ui.chat.deleteMessage(this.id);
  }
}

// --- UUIDs -------------------------------------------------------------------------------------

const COLLECTIONS = { Actor: () => game.actors, ChatMessage: () => game.messages, Scene: () => game.scenes, User: () => game.users };
const EMBEDDED = { Item: "items", Token: "tokens" };

/** A world document by uuid ("Actor.x", "Actor.x.Item.y", "Scene.s.Token.t", ...). */
export function fromUuidSync(uuid) {
  const parts = String(uuid ?? "").split(".");
  if (parts[0] === "Compendium") return compendiumCache.get(uuid) ?? null;
  let doc = COLLECTIONS[parts[0]]?.()?.get(parts[1]) ?? null;
  for (let i = 2; doc && i + 1 < parts.length; i += 2) {
    // "Scene.<s>.Token.<t>.Actor.<a>": an unlinked token's synthetic actor.
    if (parts[i] === "Actor" && doc instanceof TokenDocument) doc = doc.actor?.id === parts[i + 1] ? doc.actor : null;
    else doc = doc[EMBEDDED[parts[i]]]?.get(parts[i + 1]) ?? null;
  }
  return doc;
}

// Compendium documents come from the compiled LevelDB packs the module ships (tools/serve.py reads
// them with tools/read_pack.mjs); the URL is relative to the page, for a route prefix.
const compendiumCache = new Map();
const packCache = new Map();

/** The documents of pack `pack` of module `module` (Firefight's own: `sandbox-api/packs/<pack>`,
 * another module's: `sandbox-api/packs/<module>/<pack>`, tools/serve.py). */
export async function packDocuments(pack, module = "firefight") {
  const path = module === "firefight" ? encodeURIComponent(pack) : `${encodeURIComponent(module)}/${encodeURIComponent(pack)}`;
  if (!packCache.has(path)) {
    packCache.set(path, fetch(new URL(`sandbox-api/packs/${path}`, location.href)).then((r) => (r.ok ? r.json() : [])));
  }
  return packCache.get(path);
}

/** fromUuid: world documents and "Compendium.<module>.<pack>.<Type>.<id>". */
export async function fromUuid(uuid) {
  const parts = String(uuid ?? "").split(".");
  if (parts[0] !== "Compendium") return fromUuidSync(uuid);
  if (compendiumCache.has(uuid)) return compendiumCache.get(uuid);
  const [, module, pack, type, id] = parts;
  const data = (await packDocuments(pack, module)).find((d) => d._id === id);
  if (!data) return null;
  const Cls = type === "Actor" ? Actor : Item;
  const doc = new Cls(data);
  Object.defineProperty(doc, "uuid", { value: uuid });
  doc.pack = `${parts[1]}.${pack}`;
  compendiumCache.set(uuid, doc);
  return doc;
}

// --- changes from the other clients --------------------------------------------------------------

net.on("update", ({ uuid, diff, options, userId }) => fromUuidSync(uuid)?._applyUpdate(diff, options ?? {}, userId));
net.on("create", async ({ documentName, data, userId }) => {
  if (documentName === "ChatMessage") await ChatMessage._onCreate(new ChatMessage(data), {}, userId);
  else if (documentName === "Actor") {
    const actor = new Actor(data);
    game.actors.set(actor.id, actor);
    Hooks.callAll("createActor", actor, {}, userId);
  }
});
net.on("delete", ({ uuid, userId }) => fromUuidSync(uuid)?._onDelete?.(userId));
net.on("createEmbedded", ({ uuid, embedded, data, userId }) => {
  const parent = fromUuidSync(uuid);
  if (!parent) return;
  if (embedded === "Item") createItems(parent, data, userId);
  else if (embedded === "Token") parent._createTokens(data, {}, userId);
  else if (embedded === "MeasuredTemplate") parent._createTemplates(data, {}, userId);
  else if (embedded === "Wall") parent._createWalls(data, {}, userId);
});
net.on("deleteEmbedded", ({ uuid, embedded, ids, userId }) => {
  const parent = fromUuidSync(uuid);
  if (embedded === "MeasuredTemplate") parent?._deleteTemplates?.(ids, {}, userId);
  else parent?._deleteItems?.(ids, {}, userId);
});
