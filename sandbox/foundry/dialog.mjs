// foundry.applications.api.DialogV2 subset: constructor(options), render, close, static wait.
import { Hooks } from "./hooks.mjs";
import { escapeHTML } from "./utils.mjs";
import { dragByHeader } from "./window.mjs";

let zIndex = 100;

export class DialogV2 {
  constructor(options = {}) {
    this.options = {
      window: { title: "Dialog", icon: "" }, buttons: [], content: "", classes: [], position: {}, modal: false, ...options,
    };
    this.element = null;
    this.rendered = false;
    this._onSubmit = null;
  }
  get id() {
    return this._id ??= `dialog-${Math.random().toString(36).slice(2, 8)}`;
  }
  get title() {
    return this.options.window?.title ?? "";
  }

  _buttonsHTML() {
    return this.options.buttons.map((b) => {
      const icon = b.icon ? `<i class="${escapeHTML(b.icon)}" aria-hidden="true"></i>` : "";
      return `<button type="${b.type ?? "submit"}" data-action="${escapeHTML(b.action)}" class="${b.default ? "default " : ""}${escapeHTML(b.class ?? "")}"${b.default ? " autofocus" : ""}>${icon}<span>${escapeHTML(b.label ?? b.action)}</span></button>`;
    }).join("");
  }

  async render() {
    const el = document.createElement("dialog");
    el.id = this.id;
    el.className = ["application", "dialog", ...this.options.classes].join(" ");
    el.style.zIndex = String(++zIndex);
    if (this.options.position?.width) el.style.width = `${this.options.position.width}px`;
    const content = typeof this.options.content === "string" ? this.options.content : "";
    el.innerHTML = `<header class="window-header"><h1 class="window-title">${escapeHTML(this.title)}</h1>
      <button type="button" class="header-control" data-action="close" aria-label="Close">✕</button></header>
      <form class="window-content dialog-form standard-form" autocomplete="off"><div class="dialog-content">${content}</div>
      <footer class="form-footer">${this._buttonsHTML()}</footer></form>`;
    if (this.options.content instanceof HTMLElement) el.querySelector(".dialog-content").append(this.options.content);
    document.getElementById("dialogs").append(el);
    this.element = el;
    el.show();
    this._activate(el);
    this.rendered = true;
    Hooks.callAll("renderDialogV2", this, el, {}, {});
    return this;
  }

  _activate(el) {
    const form = el.querySelector("form");
    el.querySelector('[data-action="close"]').addEventListener("click", () => this.close());
    el.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape") {
        ev.preventDefault();
        this.close();
      }
    });
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const button = ev.submitter ?? form.querySelector("button.default") ?? form.querySelector("footer button");
      this._onButton(ev, button);
    });
    dragByHeader(el);
  }

  async _onButton(event, button) {
    const config = this.options.buttons.find((b) => b.action === button?.dataset.action);
    if (!config) return;
    let result = config.action;
    try {
      if (config.callback) result = (await config.callback(event, button, this)) ?? config.action;
    } catch (err) {
      console.error(err);
      ui.notifications.error(err.message);
      return;
    }
    await this.options.submit?.(result, this);
    this._onSubmit?.(result);
    await this.close({ submitted: true });
  }

  async close({ submitted = false } = {}) {
    if (!this.rendered) return this;
    this.rendered = false;
    this.element?.remove();
    Hooks.callAll("closeDialogV2", this, this.element);
    this._onClose?.(submitted);
    return this;
  }

  /** Render a dialog and resolve with the clicked button's callback result (or action). */
  static async wait({ rejectClose = false, close, render, ...options } = {}) {
    return new Promise((resolve, reject) => {
      const dialog = new this(options);
      dialog._onSubmit = (result) => resolve(result);
      dialog._onClose = (submitted) => {
        if (submitted) return;
        close?.(new Event("close"), dialog);
        if (rejectClose) reject(new Error("Dialog was dismissed without pressing a button."));
        else resolve(null);
      };
      dialog.render({ force: true }).then(() => render?.(new Event("render"), dialog));
    });
  }

  static async confirm({ yes = {}, no = {}, ...options } = {}) {
    return this.wait({ ...options, buttons: [
      { action: "yes", label: "Yes", default: true, callback: () => true, ...yes },
      { action: "no", label: "No", callback: () => false, ...no },
    ] });
  }

  static async prompt({ ok = {}, ...options } = {}) {
    return this.wait({ ...options, buttons: [{ action: "ok", label: "Confirm", default: true, ...ok }] });
  }
}
