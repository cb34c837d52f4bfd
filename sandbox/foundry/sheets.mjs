// ActorSheetV2 subset: a floating window with tabs (Details, Items), re-rendered when its actor
// changes, accepting Item drops (Hooks "dropActorSheetData", then the item is created on the
// actor), and firing "renderActorSheetV2" like Foundry, so modules can add to it.
import { Hooks } from "./hooks.mjs";
import { escapeHTML } from "./utils.mjs";
import { fromUuid } from "./documents.mjs";
import { dragByHeader } from "./window.mjs";

let zIndex = 50;
let opened = 0;

export class ActorSheetV2 {
  constructor({ document } = {}) {
    this.document = document;
    this.element = null;
    this.rendered = false;
    this.tabGroups = { primary: "details" };
    this._offset = (opened++ % 5) * 28;
    for (const hook of ["updateActor", "createItem", "updateItem", "deleteItem"]) {
      Hooks.on(hook, (doc) => {
        const actor = doc?.documentName === "Item" ? doc.parent : doc;
        if (this.rendered && actor === this.document) this.render();
      });
    }
  }
  get actor() {
    return this.document;
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
      <div class="window-content">
        <nav class="sheet-tabs tabs" data-group="primary">${tab("details", "Details")}${tab("items", "Items")}</nav>
        <div class="sheet-body">
          ${section("details", `<dl class="details"><dt>Name</dt><dd>${escapeHTML(actor.name)}</dd><dt>Type</dt><dd>${escapeHTML(actor.type ?? "base")}</dd>
            <dt>Owners</dt><dd>${escapeHTML(owners)}</dd></dl>`)}
          ${section("items", `<ul class="items-list">${items || "<li class=\"empty\">No items</li>"}</ul>`)}
          <p class="drop-hint">Drop items from the compendiums here</p>
        </div>
      </div>`;
  }

  async render(_options = {}) {
    let el = this.element;
    if (!el || !el.isConnected) {
      el = document.createElement("section");
      el.className = "application sheet actor-sheet";
      el.id = this.id;
      el.style.left = `${120 + this._offset}px`;
      el.style.top = `${70 + this._offset}px`;
      document.getElementById("dialogs").append(el);
      this._listen(el);
    }
    el.style.zIndex = String(++zIndex);
    el.innerHTML = this._html();
    this.element = el;
    this.rendered = true;
    Hooks.callAll("renderActorSheetV2", this, el, { actor: this.document, editable: this.document.isOwner }, {});
    return this;
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

  _listen(el) {
    el.addEventListener("click", async (ev) => {
      const target = ev.target.closest("[data-action]");
      if (!target || !el.contains(target)) return;
      const action = target.dataset.action;
      if (action === "close") this.close();
      else if (action === "tab") this.changeTab(target.dataset.tab, target.dataset.group);
      else if (action === "deleteItem") {
        const id = target.closest("[data-item-id]").dataset.itemId;
        await this.document.deleteEmbeddedDocuments("Item", [id]).catch((err) => ui.notifications.error(err.message));
      }
    });
    el.addEventListener("pointerdown", () => (el.style.zIndex = String(++zIndex)));
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
    dragByHeader(el);
  }
}
