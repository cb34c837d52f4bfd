// ActorSheetV2 subset: a floating window with tabs (Details, Items), re-rendered when its actor
// changes, accepting Item drops (Hooks "dropActorSheetData", then the item is created on the
// actor), and firing "renderActorSheetV2" like Foundry, so modules can add to it.
// Two shapes, by the system the page imitates (sandbox/foundry/systems.mjs `sheet`):
//   "whole"  the sheet's whole content is replaced on each render (an AppV1-style sheet such as
//            Simple Worldbuilding's templates/actor-sheet.html: nav.sheet-tabs + .sheet-body).
//   "parts"  an ApplicationV2 sheet rendered from PARTS, as dnd5e 5.x's actor sheets are
//            (HandlebarsApplicationMixin: "a registry of template parts which are supported for
//            this application for partial rendering", foundryvtt.com/api/v12/classes/
//            foundry.HandlebarsApplication.html; HandlebarsTemplatePart, foundryvtt.com/api/
//            interfaces/foundry.HandlebarsTemplatePart.html). Each part is one element, placed in
//            its container on the first render and replaced in place on a re-render; anything
//            else in a container stays. The parts and markup follow foundryvtt/dnd5e
//            module/applications/actor/character-sheet.mjs (PARTS: header; sidebar in the
//            "main-content" container; the tab parts in the "tab-body" container, each a
//            `section.tab[data-tab][data-group="primary"]`; `tabs` =
//            templates/shared/sidebar-tabs.hbs: `nav.tabs[data-group="primary"]` of
//            `a.item.control[data-action="tab"]` icon links).
// Every sheet's content is a <form> that submits on change, as the systems' sheets are: dnd5e 5.x
// actor and item sheets are DocumentSheetV2 forms with `form: {submitOnChange: true}`
// (foundryvtt/dnd5e module/applications/actor/api/base-actor-sheet.mjs, item/item-sheet.mjs);
// Simple Worldbuilding's and pf2e's are AppV1 ActorSheet/ItemSheet forms (foundryvtt/worldbuilding
// module/actor-sheet.js extends foundry.appv1.sheets.ActorSheet and overrides _getSubmitData),
// which submit on change (FormApplicationOptions.submitOnChange: "Whether to automatically submit
// the contained HTML form when an input or select element is changed"). A change anywhere in the
// form submits every named field of it (FormDataExtended of the form) as a document update; a key
// the document does not have is reported (sandbox/README.md: what Foundry does with it is not
// public), so another module's inputs inside the form show up.
import { Hooks } from "./hooks.mjs";
import { escapeHTML, expandObject, getProperty } from "./utils.mjs";
import { fromUuid } from "./documents.mjs";
import { dragByHeader } from "./window.mjs";

let zIndex = 50;
let opened = 0;

// The top-level fields of the documents' schemas (ActorData, ItemData: foundryvtt.com/api/
// interfaces/foundry.documents.types.ActorData.html, ItemData.html); `system` is the system's own
// model and `flags` any package's.
const DOCUMENT_FIELDS = {
  Actor: ["_id", "name", "img", "type", "system", "prototypeToken", "items", "effects", "folder", "sort", "ownership", "flags", "_stats"],
  Item: ["_id", "name", "img", "type", "system", "effects", "folder", "sort", "ownership", "flags", "_stats"],
};
const nameInput = (doc, editable) => `<input type="text" name="name" class="document-name-input" value="${escapeHTML(doc.name ?? "")}"${editable ? "" : " disabled"} aria-label="Name">`;

/**
 * What every sheet here shares (foundry.applications.api.DocumentSheetV2): a floating window over
 * the board, raised when pressed, dragged by its header, with one tab group and a close button.
 */
class DocumentSheetV2 {
  constructor(document, tab) {
    this.document = document;
    this.element = null;
    this.rendered = false;
    this.tabGroups = { primary: tab };
    this._offset = (opened++ % 5) * 28;
  }

  /** The window's element, made on the first render (`first`), raised to the top. */
  _window(className, left, top) {
    let el = this.element;
    const first = !el || !el.isConnected;
    if (first) {
      el = document.createElement("section");
      el.className = className;
      el.id = this.id;
      el.style.left = `${left + this._offset}px`;
      el.style.top = `${top + this._offset}px`;
      document.getElementById("dialogs").append(el);
      this._listen(el);
    }
    el.style.zIndex = String(++zIndex);
    this.element = el;
    return { el, first };
  }

  /**
   * The window's HTML: all of it on the first render; after that only its content and title, as
   * ApplicationV2 builds its frame (header and its controls) once: dnd5e 5.x adds header buttons
   * in `_renderFrame` (`module/applications/actor/api/base-actor-sheet.mjs`) and sets the window's
   * options only when `isFirstRender` (`module/applications/api/application-v2-mixin.mjs`). So a
   * click on ✕ whose press made a field save (blur, change, update, render) still closes.
   */
  _fill(el, first, html) {
    if (first) {
      el.innerHTML = html;
      return;
    }
    const next = document.createElement("template");
    next.innerHTML = html;
    el.querySelector(".window-content")?.replaceWith(next.content.querySelector(".window-content"));
    const title = el.querySelector(".window-title");
    const wanted = next.content.querySelector(".window-title");
    if (title && wanted) title.textContent = wanted.textContent;
  }

  changeTab(tab, group = "primary") {
    this.tabGroups[group] = tab;
    for (const el of this.element.querySelectorAll(`[data-group="${group}"][data-tab]`)) {
      el.classList.toggle("active", el.dataset.tab === tab);
    }
  }

  async close() {
    this.rendered = false;
    this.element?.remove();
    return this;
  }

  /**
   * The sheet's form submitted on a change (submitOnChange): its named fields, as Foundry reads a
   * form (checkboxes as booleans, numbers as numbers), become an update of the fields that differ;
   * a key the document's schema lacks is refused loudly.
   */
  async _onChangeForm(event) {
    const form = this.element?.querySelector("form.window-content");
    if (!form || !form.contains(event.target) || !this.isEditable) return;
    const data = {};
    for (const input of form.elements) {
      if (!input.name || input.disabled || input.type === "button" || input.type === "submit") continue;
      data[input.name] = input.type === "checkbox" ? input.checked : input.type === "number" ? (input.value === "" ? null : Number(input.value)) : input.value;
    }
    const fields = DOCUMENT_FIELDS[this.document.documentName] ?? [];
    const unknown = Object.keys(data).filter((k) => !fields.includes(k.split(".")[0]));
    if (unknown.length) {
      const text = `Sandbox: the ${this.document.documentName} sheet's form submitted fields the ${this.document.documentName} does not have: ${unknown.join(", ")}`;
      ui.notifications?.error(text);
      throw new Error(text);
    }
    const changed = Object.fromEntries(Object.entries(data).filter(([k, v]) => getProperty(this.document._source, k) !== v));
    if (Object.keys(changed).length) await this.document.update(expandObject(changed));
  }

  get isEditable() {
    return Boolean(this.document.isOwner) && !this.document.pack;
  }

  /** Close, tabs, raise and drag; any other `data-action` goes to `onAction(action, target)`. */
  _listen(el, onAction = () => {}) {
    el.addEventListener("change", (ev) => this._onChangeForm(ev));
    el.addEventListener("submit", (ev) => ev.preventDefault());
    el.addEventListener("click", async (ev) => {
      const target = ev.target.closest("[data-action]");
      if (!target || !el.contains(target)) return;
      const action = target.dataset.action;
      if (action === "close") this.close();
      else if (action === "tab") this.changeTab(target.dataset.tab, target.dataset.group);
      else await onAction(action, target);
    });
    el.addEventListener("pointerdown", () => (el.style.zIndex = String(++zIndex)));
    dragByHeader(el);
  }
}

export class ActorSheetV2 extends DocumentSheetV2 {
  constructor({ document } = {}) {
    super(document, "details");
    for (const hook of ["updateActor", "createItem", "updateItem", "deleteItem"]) {
      Hooks.on(hook, (doc) => {
        const actor = doc?.documentName === "Item" ? doc.parent : doc;
        if (this.rendered && actor === this.document) this._onChange(doc?.documentName);
      });
    }
  }
  get actor() {
    return this.document;
  }
  /** The actor or one of its items changed: render again. */
  _onChange(_documentName) {
    this.render();
  }
  get id() {
    return `actor-sheet-${this.document.id}`;
  }
  get title() {
    return this.document.name;
  }

  _html() {
    const actor = this.document;
    const owners = game.users.filter((u) => !u.isGM && actor._isOwnedBy(u)).map((u) => u.name).join(", ") || "—";
    const items = actor.items.contents.map((i) => `<li class="item" data-item-id="${escapeHTML(i.id)}">
      <span class="name">${escapeHTML(i.name)}</span>
      ${actor.isOwner ? `<button type="button" class="item-delete" data-action="deleteItem" aria-label="Delete">✕</button>` : ""}</li>`).join("");
    const tab = (id, label) => `<a class="item${this.tabGroups.primary === id ? " active" : ""}" data-action="tab" data-tab="${id}" data-group="primary">${label}</a>`;
    const section = (id, inner) => `<section class="tab${this.tabGroups.primary === id ? " active" : ""}" data-tab="${id}" data-group="primary">${inner}</section>`;
    return `<header class="window-header"><img class="profile" src="${escapeHTML(actor.img ?? "")}" alt="">
        <h1 class="window-title">${escapeHTML(actor.name)}</h1>
        <button type="button" class="header-control" data-action="close" aria-label="Close">✕</button></header>
      <form class="window-content" autocomplete="off">
        <nav class="sheet-tabs tabs" data-group="primary">${tab("details", "Details")}${tab("items", "Items")}</nav>
        <div class="sheet-body">
          ${section("details", `<dl class="details"><dt>Name</dt><dd>${nameInput(actor, this.isEditable)}</dd><dt>Type</dt><dd>${escapeHTML(actor.type ?? "base")}</dd>
            <dt>Owners</dt><dd>${escapeHTML(owners)}</dd></dl>`)}
          ${section("items", `<ul class="items-list">${items || "<li class=\"empty\">No items</li>"}</ul>`)}
          <p class="drop-hint">Drop items from the compendiums here</p>
        </div>
      </form>`;
  }

  async render(_options = {}) {
    const { el, first } = this._window("application sheet actor-sheet", 120, 70);
    this._fill(el, first, this._html());
    this.rendered = true;
    Hooks.callAll("renderActorSheetV2", this, el, { actor: this.document, editable: this.document.isOwner }, {});
    return this;
  }

  _listen(el) {
    super._listen(el, async (action, target) => {
      if (action !== "deleteItem") return;
      const id = target.closest("[data-item-id]").dataset.itemId;
      await this.document.deleteEmbeddedDocuments("Item", [id]).catch((err) => ui.notifications.error(err.message));
    });
    // Double-click an item of the list: its sheet (as Foundry's actor sheets open an owned item's).
    el.addEventListener("dblclick", (ev) => {
      const row = ev.target.closest(".items-list [data-item-id]");
      if (!row || ev.target.closest("button")) return;
      const item = this.document.items.get(row.dataset.itemId);
      if (item) itemSheetFor(item).render({ force: true });
    });
    el.addEventListener("dragover", (ev) => {
      ev.preventDefault();
      el.classList.add("drop-target");
    });
    el.addEventListener("dragleave", () => el.classList.remove("drop-target"));
    el.addEventListener("drop", async (ev) => {
      ev.preventDefault();
      el.classList.remove("drop-target");
      let data;
      try {
        data = JSON.parse(ev.dataTransfer.getData("text/plain"));
      } catch {
        return;
      }
      if (Hooks.call("dropActorSheetData", this.document, this, data) === false) return;
      if (data.type !== "Item") return;
      try {
        const item = await fromUuid(data.uuid);
        if (!item) return;
        const source = item.toObject();
        delete source._id;
        await this.document.createEmbeddedDocuments("Item", [source]);
      } catch (err) {
        ui.notifications.error(err.message);
      }
    });
  }
}

/**
 * A dnd5e 5.x-like actor sheet: ApplicationV2 PARTS rendered into containers and re-rendered
 * part by part (see the top of this file). render({parts}) re-renders only those parts; an
 * actor update re-renders every part, an item change the inventory.
 */
export class PartsActorSheet extends ActorSheetV2 {
  static PARTS = {
    header: {},
    sidebar: { container: { classes: ["main-content"], id: "main" } },
    details: { container: { classes: ["tab-body"], id: "tabs" } },
    inventory: { container: { classes: ["tab-body"], id: "tabs" } },
    biography: { container: { classes: ["tab-body"], id: "tabs" } },
    tabs: {},
  };
  static TABS = [
    { tab: "details", label: "Details", icon: "fas fa-cog" },
    { tab: "inventory", label: "Inventory", icon: "fas fa-backpack" },
    { tab: "biography", label: "Biography", icon: "fas fa-feather" },
  ];
  constructor(options) {
    super(options);
    this.parts = {};
    this.renders = 0;
  }
  /** An item change re-renders the inventory part only; an actor change every part. */
  _onChange(documentName) {
    this.render(documentName === "Item" ? { parts: ["inventory"] } : {});
  }

  _part(id) {
    const actor = this.document;
    const active = (tab) => (this.tabGroups.primary === tab ? " active" : "");
    const tabSection = (tab, inner) => `<section class="tab ${tab}${active(tab)}" data-tab="${tab}" data-group="primary">${inner}</section>`;
    switch (id) {
      case "header":
        return `<header class="sheet-header"><img class="portrait" src="${escapeHTML(actor.img ?? "")}" alt="">
          <div class="document-name">${nameInput(actor, this.isEditable)}</div></header>`;
      case "sidebar":
        return `<aside class="sidebar"><dl><dt>Type</dt><dd>${escapeHTML(actor.type ?? "")}</dd></dl></aside>`;
      case "details": {
        const owners = game.users.filter((u) => !u.isGM && actor._isOwnedBy(u)).map((u) => u.name).join(", ") || "—";
        return tabSection("details", `<dl class="details"><dt>Name</dt><dd>${escapeHTML(actor.name)}</dd>
          <dt>Owners</dt><dd>${escapeHTML(owners)}</dd></dl>`);
      }
      case "inventory": {
        const items = actor.items.contents.map((i) => `<li class="item" data-item-id="${escapeHTML(i.id)}">
          <span class="name">${escapeHTML(i.name)}</span>
          ${actor.isOwner ? `<button type="button" class="item-delete" data-action="deleteItem" aria-label="Delete">✕</button>` : ""}</li>`).join("");
        return tabSection("inventory", `<ul class="items-list">${items || "<li class=\"empty\">No items</li>"}</ul>
          <p class="drop-hint">Drop items from the compendiums here</p>`);
      }
      case "biography":
        return tabSection("biography", `<p class="biography">${escapeHTML(actor.name)}</p>`);
      case "tabs":
        return `<nav class="tabs tabs-right" data-group="primary">${this.constructor.TABS.map(({ tab, label, icon }) => `<a class="item control${active(tab)}" data-action="tab" data-group="primary" data-tab="${tab}" data-tooltip aria-label="${escapeHTML(label)}"><i class="${icon}" inert></i></a>`).join("")}</nav>`;
      default:
        throw new Error(`Sandbox: no sheet part "${id}"`);
    }
  }

  /** One rendered part: its template's single top-level element, marked with its part id. */
  _renderPart(id) {
    const holder = document.createElement("div");
    holder.innerHTML = this._part(id).trim();
    const el = holder.firstElementChild;
    el.dataset.applicationPart = id;
    return el;
  }

  async render(options = {}) {
    addPartsStyle();
    const { el, first } = this._window("application sheet actor-sheet dnd5e2 actor standard-form character vertical-tabs", 120, 70);
    if (first) {
      el.innerHTML = `<header class="window-header"><h1 class="window-title">${escapeHTML(this.document.name)}</h1>
        <button type="button" class="header-control" data-action="close" aria-label="Close">✕</button></header>
        <form class="window-content" autocomplete="off"></form>`;
      this.parts = {};
    }
    const content = el.querySelector(".window-content");
    const wanted = first || !options.parts ? Object.keys(this.constructor.PARTS) : options.parts;
    for (const id of wanted) {
      const part = this._renderPart(id);
      const prior = this.parts[id];
      if (prior?.isConnected) prior.replaceWith(part); // only the part's own element is replaced
      else {
        const container = this.constructor.PARTS[id].container;
        let parent = content;
        if (container) {
          parent = content.querySelector(`[data-container-id="${container.id}"]`);
          if (!parent) {
            parent = document.createElement("div");
            parent.className = container.classes.join(" ");
            parent.dataset.containerId = container.id;
            content.append(parent);
          }
        }
        parent.append(part);
      }
      this.parts[id] = part;
    }
    this.rendered = true;
    this.renders += 1;
    Hooks.callAll("renderActorSheetV2", this, el, { actor: this.document, editable: this.document.isOwner }, { ...options, parts: wanted, isFirstRender: first });
    return this;
  }
}

// The sandbox loads no icon font: the dnd5e-like sheet's icon-only tab links show their
// aria-label instead (any module's link with an aria-label too). Sandbox look only.
const PARTS_CSS = `
.actor-sheet.dnd5e2 .window-content { display: grid; grid-template-columns: 1fr auto; gap: 0 10px; }
.actor-sheet.dnd5e2 .sheet-header, .actor-sheet.dnd5e2 .main-content { grid-column: 1 / -1; }
.actor-sheet.dnd5e2 .sheet-header { display: flex; gap: 10px; align-items: center; padding: 8px 0; }
.actor-sheet.dnd5e2 .sheet-header .portrait { width: 40px; height: 40px; border-radius: 6px; }
.actor-sheet.dnd5e2 .sidebar dl { display: flex; gap: 8px; margin: 0 0 8px; font-size: 13px; }
.actor-sheet.dnd5e2 .sidebar dd { margin: 0; }
.actor-sheet.dnd5e2 .tab-body > .tab:not(.active) { display: none; }
.actor-sheet.dnd5e2 nav.tabs { display: flex; flex-direction: column; gap: 4px; }
.actor-sheet.dnd5e2 nav.tabs a.item { padding: 6px 8px; border-radius: 6px; cursor: pointer; color: var(--muted); background: var(--panel-2); font-size: 12px; }
.actor-sheet.dnd5e2 nav.tabs a.item::before { content: attr(aria-label); }
.actor-sheet.dnd5e2 nav.tabs a.item i { display: none; }
.actor-sheet.dnd5e2 nav.tabs a.item.active { color: var(--text); outline: 1px solid var(--accent); }
`;

function addPartsStyle() {
  if (document.getElementById("sandbox-parts-sheet-style")) return;
  const style = Object.assign(document.createElement("style"), { id: "sandbox-parts-sheet-style", textContent: PARTS_CSS });
  document.head.append(style);
}

/** The actor sheet class for a system shape ("whole" or "parts"). */
export function sheetClassFor(system) {
  if (system?.sheet === "parts") return PartsActorSheet;
  if (!system?.sheet || system.sheet === "whole") return ActorSheetV2;
  throw new Error(`Sandbox: no sheet shape "${system.sheet}" (choose whole or parts)`);
}

// --- item sheets -----------------------------------------------------------------------------------
// ItemSheetV2 subset (foundry.applications.sheets.ItemSheetV2, a DocumentSheetV2): a floating
// window with Description and Details tabs (nav.sheet-tabs + .sheet-body, the Simple Worldbuilding
// item sheet's markup, templates/item-sheet.html), opened by double-clicking an item (an actor
// sheet's item list, a compendium entry), re-rendered when its item changes. Its render fires
// "renderItemSheetV2", "renderDocumentSheetV2" and "renderApplicationV2": an ApplicationV2 fires
// its render hook for each class of its inheritance chain (foundryvtt.com/api/functions/
// hookEvents.renderApplicationV2.html). `isEditable`: the user owns the item (DocumentSheetV2's
// editPermission, OWNER: foundryvtt.com/api/v14/interfaces/foundry.DocumentSheetConfiguration.html;
// an owned item's owners are its actor's), and it is not in a compendium (module packs are locked
// as shipped; unlocking is not imitated).

const ITEM_RENDER_HOOKS = ["renderItemSheetV2", "renderDocumentSheetV2", "renderApplicationV2"];
const itemSheets = new WeakMap();

/** The one sheet of an item (Document#sheet). */
export function itemSheetFor(item) {
  if (!itemSheets.has(item)) itemSheets.set(item, new ItemSheetV2({ document: item }));
  return itemSheets.get(item);
}

export class ItemSheetV2 extends DocumentSheetV2 {
  constructor({ document } = {}) {
    super(document, "description");
    Hooks.on("updateItem", (doc) => {
      if (this.rendered && doc === this.document) this.render();
    });
    Hooks.on("deleteItem", (doc) => {
      if (this.rendered && doc === this.document) this.close();
    });
  }
  get item() {
    return this.document;
  }
  get id() {
    return `item-sheet-${String(this.document.uuid).replace(/\./g, "-")}`;
  }
  get title() {
    return this.document.name;
  }
  _html() {
    const item = this.document;
    const tab = (id, label) => `<a class="item${this.tabGroups.primary === id ? " active" : ""}" data-action="tab" data-tab="${id}" data-group="primary">${label}</a>`;
    const section = (id, inner) => `<div class="tab${this.tabGroups.primary === id ? " active" : ""}" data-tab="${id}" data-group="primary">${inner}</div>`;
    const where = item.pack ? `Compendium ${item.pack}` : item.parent ? item.parent.name : "World";
    return `<header class="window-header"><img class="profile" src="${escapeHTML(item.img ?? "")}" alt="">
        <h1 class="window-title">${escapeHTML(item.name)}</h1>
        <button type="button" class="header-control" data-action="close" aria-label="Close">✕</button></header>
      <form class="window-content" autocomplete="off">
        <nav class="sheet-tabs tabs" data-group="primary">${tab("description", "Description")}${tab("details", "Details")}</nav>
        <section class="sheet-body">
          ${section("description", `<p class="description">${escapeHTML(item.name)}</p>`)}
          ${section("details", `<dl class="details"><dt>Name</dt><dd>${nameInput(item, this.isEditable)}</dd><dt>Type</dt><dd>${escapeHTML(item.type ?? "")}</dd><dt>In</dt><dd>${escapeHTML(where)}</dd></dl>`)}
        </section>
      </form>`;
  }

  async render(_options = {}) {
    const { el, first } = this._window("application sheet item-sheet", 420, 90);
    this._fill(el, first, this._html());
    this.rendered = true;
    const context = { document: this.document, item: this.document, editable: this.isEditable };
    for (const hook of ITEM_RENDER_HOOKS) Hooks.callAll(hook, this, el, context, { isFirstRender: first });
    return this;
  }
}

