// Client documents: Actor, Item, User, Scene, TokenDocument, ChatMessage.
// Local only (no server): create/update/delete fire the same hooks Foundry fires.
import { Collection } from "./collection.mjs";
import { deepClone, getProperty, mergeObject, randomID, setProperty } from "./utils.mjs";
import { Hooks } from "./hooks.mjs";
import { Roll } from "./dice.mjs";

export class Document {
  static documentName = "Document";
  constructor(data = {}, { parent = null } = {}) {
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
  getFlag(scope, key) {
    return getProperty(this.flags?.[scope], key);
  }
  async setFlag(scope, key, value) {
    return this.update({ [`flags.${scope}.${key}`]: value });
  }
  async unsetFlag(scope, key) {
    const flags = deepClone(this._source.flags ?? {});
    const parts = key.split(".");
    const last = parts.pop();
    const holder = getProperty(flags[scope] ?? {}, parts.join(".")) ?? flags[scope];
    if (holder) delete holder[last];
    this._source.flags = flags;
    this._initialize();
    return this;
  }
  toObject() {
    return deepClone(this._source);
  }
  toJSON() {
    return this.toObject();
  }
  /** Apply changes (dotted or nested), fire pre/update hooks, return this. */
  async update(changes = {}, options = {}) {
    const name = this.documentName;
    const diff = deepClone(changes);
    if (Hooks.call(`preUpdate${name}`, this, diff, options, game.user?.id) === false) return undefined;
    for (const [k, v] of Object.entries(diff)) {
      if (k.includes(".")) setProperty(this._source, k, deepClone(v));
      else if (v && typeof v === "object" && !Array.isArray(v) && typeof this._source[k] === "object") mergeObject(this._source[k], v);
      else this._source[k] = deepClone(v);
    }
    this._initialize();
    Hooks.callAll(`update${name}`, this, diff, options, game.user?.id);
    return this;
  }
}

export class Item extends Document {
  static documentName = "Item";
  get actor() {
    return this.parent instanceof Actor ? this.parent : null;
  }
}

export class Actor extends Document {
  static documentName = "Actor";
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
  /** True when a non-GM user owns it (ownership level 3). */
  get hasPlayerOwner() {
    const own = this._source.ownership ?? {};
    return game.users.some((u) => !u.isGM && (own[u.id] ?? own.default ?? 0) >= 3);
  }
  getActiveTokens() {
    return canvas.tokens?.placeables.filter((t) => t.actor === this) ?? [];
  }
}

export class User extends Document {
  static documentName = "User";
  constructor(data, context) {
    super(data, context);
    this.targets = new Set();
  }
  get isGM() {
    return (this.role ?? 1) >= 4;
  }
}

export class TokenDocument extends Document {
  static documentName = "Token";
  get actor() {
    return game.actors.get(this.actorId) ?? null;
  }
  get object() {
    return canvas.tokens?.get(this.id) ?? null;
  }
}

export class Scene extends Document {
  static documentName = "Scene";
  _initialize() {
    const { tokens = [], ...rest } = this._source;
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

  /** Create a message: preCreate -> store -> createChatMessage -> render into the chat log. */
  static async create(data = {}, options = {}) {
    const source = deepClone({ ...data, rolls: undefined });
    source.rolls = (data.rolls ?? []).map((r) => JSON.stringify(typeof r?.toJSON === "function" ? r.toJSON() : r));
    source.author ??= game.user.id;
    source.timestamp ??= Date.now();
    source.speaker ??= ChatMessage.getSpeaker();
    source.content ??= "";
    const message = new this(source);
    if (Hooks.call("preCreateChatMessage", message, source, options, game.user.id) === false) return undefined;
    game.messages.set(message.id, message);
    Hooks.callAll("createChatMessage", message, options, game.user.id);
    await ui.chat.postOne(message);
    return message;
  }

  async update(changes, options) {
    const out = await super.update(changes, options);
    await ui.chat.updateMessage(this);
    return out;
  }

  async delete() {
    game.messages.delete(this.id);
    Hooks.callAll("deleteChatMessage", this, {}, game.user.id);
    ui.chat.deleteMessage(this.id);
    return this;
  }
}
