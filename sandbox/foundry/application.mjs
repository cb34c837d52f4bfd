// foundry.applications.api.ApplicationV2 subset: what a settings submenu needs
// (foundryvtt.com/api/classes/foundry.applications.api.ApplicationV2.html).
//   static DEFAULT_OPTIONS   merged with the constructor's options (id, tag, classes, window
//                            {title}, position {width}, form {handler, closeOnSubmit})
//   render({force})          _prepareContext(options) -> _renderHTML(context, options) ->
//                            _replaceHTML(result, content, options): the two abstract methods an
//                            ApplicationV2 without a template mixin implements
//   tag "form"               the window element is the <form>; a submit calls
//                            form.handler(event, form, formData) (formData.object: name -> value)
//                            and closes when form.closeOnSubmit (dnd5e 5.x BaseSettingsConfig:
//                            tag "form", form {closeOnSubmit: true, handler},
//                            foundryvtt/dnd5e module/applications/settings/base-settings.mjs)
//   close()
// Windows open centred and kept inside the viewport, as ApplicationV2#setPosition clamps its
// position to the window (ApplicationPosition, foundryvtt.com/api/interfaces/
// foundry.applications.types.ApplicationPosition.html). Not imitated: PARTS, templates, tabs,
// actions (data-action handlers), minimize, resizing.
import { Hooks } from "./hooks.mjs";
import { escapeHTML } from "./utils.mjs";
import { dragByHeader } from "./window.mjs";

let zIndex = 200;
let counter = 0;

function merge(base, extra) {
  const out = { ...base };
  for (const [k, v] of Object.entries(extra ?? {})) {
    out[k] = v && typeof v === "object" && !Array.isArray(v) && base?.[k] && typeof base[k] === "object" ? merge(base[k], v) : v;
  }
  return out;
}

export class ApplicationV2 {
  static DEFAULT_OPTIONS = { tag: "div", classes: [], window: { title: "", icon: "" }, position: {}, form: {} };

  constructor(options = {}) {
    // DEFAULT_OPTIONS of every class in the chain, the subclass's last, then the constructor's.
    const chain = [];
    for (let c = this.constructor; c && c !== Object; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, "DEFAULT_OPTIONS")) chain.unshift(c.DEFAULT_OPTIONS);
    }
    this.options = [...chain, options].reduce((a, b) => merge(a, b), {});
    this.options.classes = chain.flatMap((o) => o.classes ?? []).concat(options.classes ?? []);
    this.element = null;
    this.rendered = false;
  }

  get id() {
    return this.options.id ?? (this._id ??= `app-${++counter}`);
  }

  get title() {
    return this.options.window?.title ?? "";
  }

  async _prepareContext() {
    return {};
  }

  // Both abstract: "Applications are not renderable unless a subclass defines the _renderHTML and
  // _replaceHTML methods" (ApplicationV2, foundryvtt.com/api/classes/
  // foundry.applications.api.ApplicationV2.html). A template mixin (HandlebarsApplicationMixin)
  // supplies them; a bare subclass must write both.
  async _renderHTML() {
    throw new Error(`${this.constructor.name} must implement _renderHTML: an ApplicationV2 is not renderable without it`);
  }

  _replaceHTML() {
    throw new Error(`${this.constructor.name} must implement _replaceHTML: an ApplicationV2 is not renderable without it`);
  }

  async render(options = {}) {
    const opts = typeof options === "boolean" ? { force: options } : options;
    const context = await this._prepareContext(opts);
    const result = await this._renderHTML(context, opts);
    if (!this.element) {
      const el = document.createElement(this.options.tag === "form" ? "form" : "div");
      el.id = this.id;
      el.className = ["application", "window-app", ...this.options.classes].join(" ");
      el.setAttribute("role", "dialog");
      el.setAttribute("aria-label", this.title);
      el.style.zIndex = String(++zIndex);
      if (this.options.position?.width) el.style.width = `${this.options.position.width}px`;
      el.innerHTML = `<header class="window-header"><h1 class="window-title">${escapeHTML(this.title)}</h1>
        <button type="button" class="header-control" data-action="close" aria-label="Close">✕</button></header>
        <section class="window-content"></section>`;
      el.querySelector('[data-action="close"]').addEventListener("click", () => this.close());
      el.addEventListener("keydown", (ev) => {
        if (ev.key !== "Escape") return;
        ev.preventDefault();
        this.close();
      });
      if (this.options.tag === "form") {
        el.noValidate = true;
        el.addEventListener("submit", (ev) => this._onSubmitForm(ev));
      }
      dragByHeader(el);
      document.getElementById("dialogs").append(el);
      this.element = el;
    }
    this._replaceHTML(result, this.element.querySelector(".window-content"), opts);
    this.rendered = true;
    this.element.querySelector("[autofocus], input, select, button:not([data-action=close])")?.focus();
    Hooks.callAll(`render${this.constructor.name}`, this, this.element, context, opts);
    Hooks.callAll("renderApplicationV2", this, this.element, context, opts);
    return this;
  }

  async _onSubmitForm(event) {
    event.preventDefault();
    const form = this.element;
    const object = {};
    for (const el of form.elements) {
      if (!el.name || el.disabled) continue;
      object[el.name] = el.type === "checkbox" ? el.checked : el.type === "number" ? (el.value === "" ? null : Number(el.value)) : el.value;
    }
    try {
      await this.options.form?.handler?.call(this, event, form, { object });
    } catch (err) {
      console.error(err);
      ui.notifications.error(err.message);
      return;
    }
    if (this.options.form?.closeOnSubmit) await this.close({ submitted: true });
  }

  async close() {
    if (!this.rendered) return this;
    this.rendered = false;
    this.element?.remove();
    this.element = null;
    Hooks.callAll(`close${this.constructor.name}`, this);
    return this;
  }
}
