// ui.notifications (toasts) and ui.chat (the chat log, firing renderChatMessageHTML).
import { Hooks } from "./hooks.mjs";
import { escapeHTML } from "./utils.mjs";

/**
 * ui.notifications: "Submitted notifications are added to a queue, and up to
 * Notifications.MAX_ACTIVE notifications are displayed at once" (MAX_ACTIVE 5;
 * foundryvtt.com/api/classes/foundry.applications.ui.Notifications.html); a queued one shows
 * when a shown one goes. Where they show: sandbox.css (#notifications).
 */
export class Notifications {
  static MAX_ACTIVE = 5;

  constructor(container) {
    this.container = container;
    this.active = [];
    this.queue = [];
  }
  notify(message, type = "info", { permanent = false, console: log = true } = {}) {
    if (log) console[type === "error" ? "error" : type === "warning" ? "warn" : "log"](`[${type}] ${message}`);
    const el = document.createElement("li");
    el.className = `notification ${type}`;
    el.setAttribute("role", type === "error" ? "alert" : "status");
    el.textContent = message;
    const n = { id: this.active.length + this.queue.length + 1, message, type, element: el, remove: () => this._remove(n) };
    n.permanent = permanent;
    el.addEventListener("click", () => n.remove());
    if (this.container.childElementCount >= this.constructor.MAX_ACTIVE) this.queue.push(n);
    else this._show(n);
    this.active.push(n);
    return n;
  }
  _show(n) {
    this.container.append(n.element);
    if (n.permanent) return;
    const life = n.type === "error" ? 7000 : 4000;
    setTimeout(() => n.element.classList.add("fade"), life);
    setTimeout(() => n.remove(), life + 600);
  }
  _remove(n) {
    if (!n.element.isConnected) {
      this.queue = this.queue.filter((q) => q !== n);
      return;
    }
    n.element.remove();
    const next = this.queue.shift();
    if (next) this._show(next);
  }
  info(message, options) {
    return this.notify(message, "info", options);
  }
  warn(message, options) {
    return this.notify(message, "warning", options);
  }
  error(message, options) {
    return this.notify(message, "error", options);
  }
  success(message, options) {
    return this.notify(message, "success", options);
  }
}

function rollsHTML(message) {
  if (!message.rolls.length) return "";
  const rows = message.rolls.map((roll) => {
    const faces = roll.dice.flatMap((d) => d.results.map((r) =>
      `<span class="die d${d.faces}${r.exploded ? " exploded" : ""}${r.result === d.faces ? " max" : r.result === 1 ? " min" : ""}">${r.result}</span>`)).join("");
    const flavor = roll.options?.flavor ? `<span class="flavor">${escapeHTML(roll.options.flavor)}</span>` : "";
    return `<li class="roll" data-formula="${escapeHTML(roll.formula)}">${flavor}<span class="formula">${escapeHTML(roll.formula)}</span><span class="faces">${faces}</span><span class="total">${roll.total}</span></li>`;
  }).join("");
  return `<details class="message-rolls"><summary>${message.rolls.length} roll${message.rolls.length > 1 ? "s" : ""} on this message</summary><ol>${rows}</ol></details>`;
}

/**
 * Can this user read the message's content? Foundry v13 ChatMessage#isContentVisible: "whether
 * the content of the message is visible to the current user. For certain dice rolls, for example,
 * the message itself may be visible while the content of that message is not"
 * (foundryvtt.com/api/classes/foundry.documents.ChatMessage.html); a blind message is "sent
 * blindly where the creating User cannot see it" (ChatMessageData.blind,
 * foundryvtt.com/api/interfaces/foundry.documents.types.ChatMessageData.html): only GMs read it.
 */
export function contentVisible(message) {
  return Boolean(message.isContentVisible); // sandbox/foundry/documents.mjs ChatMessage
}

/** What a user who may not read a message's content reads instead (a blind roll, another's private roll). */
function hiddenText(message) {
  const key = message.blind ? "CHAT.BlindRoll" : "CHAT.PrivateRoll";
  const text = game.i18n.localize(key);
  if (text !== key) return text;
  return message.blind ? "Blind roll: only the GM sees it" : `${message.author?.name ?? "?"} rolled privately`;
}

export class ChatLog {
  constructor(element) {
    this.element = element;
    this.log = element.querySelector("#chat-log");
  }
  async renderMessage(message) {
    if (message.visible === false) return null;
    const li = document.createElement("li");
    li.className = `chat-message message flexcol${message.isRoll ? " roll" : ""}`;
    li.dataset.messageId = message.id;
    const speaker = message.speaker?.alias ?? message.author?.name ?? "";
    const hidden = !contentVisible(message);
    const time = new Date(message.timestamp).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    li.innerHTML = `<header class="message-header flexrow"><h4 class="message-sender">${escapeHTML(speaker)}</h4>
      <span class="message-metadata"><time class="message-timestamp">${time}</time></span></header>
      <div class="message-content">${hidden ? `<p class="blind">${escapeHTML(hiddenText(message))}</p>` : message.content}</div>${hidden ? "" : rollsHTML(message)}`;
    const whisper = message._source.whisper ?? [];
    if (whisper.length) {
      li.classList.add("whisper");
      li.dataset.whisper = whisper.map((id) => game.users.get(id)?.name ?? id).join(", ");
    }
    if (hidden) li.classList.add("blind");
    // Every message rendered into the log fires the hook, a blind one its author cannot read too
    // (hookEvents.renderChatMessageHTML: "fires for each ChatMessage which is rendered for
    // addition to the ChatLog").
    Hooks.callAll("renderChatMessageHTML", message, li, { canDelete: game.user.isGM, canClose: false, message });
    return li;
  }
  async postOne(message) {
    const li = await this.renderMessage(message);
    if (!li) return null;
    this.log.append(li);
    this.scrollBottom();
    return li;
  }
  async updateMessage(message) {
    const old = this.log.querySelector(`[data-message-id="${message.id}"]`);
    const li = await this.renderMessage(message);
    if (!li) return;
    li.classList.add("updated");
    if (old) old.replaceWith(li);
    else this.log.append(li);
  }
  deleteMessage(id) {
    this.log.querySelector(`[data-message-id="${id}"]`)?.remove();
  }
  scrollBottom() {
    this.log.scrollTop = this.log.scrollHeight;
  }
}

/**
 * ui.controls, the scene controls (a subset of v13's SceneControls): the layers' controls, each
 * with its tools. "tokens" (Token Controls: select) and "templates" (Measurement Controls: the
 * circle tool, dragged on the canvas: sandbox/foundry/canvas.mjs). `control` and `tool` are the
 * active ones; `activate({control, tool})` switches, and activates that control's canvas layer.
 * Firefight's own tools (getSceneControlButtons) are buttons under Shoot (sandbox/panel.mjs).
 */
export class SceneControls {
  static CONTROLS = {
    tokens: { name: "tokens", title: "Token Controls", icon: "⬤", layer: "tokens",
      tools: { select: { name: "select", title: "Select Tokens", icon: "➤" } } },
    templates: { name: "templates", title: "Measurement Controls", icon: "△", layer: "templates",
      tools: { circle: { name: "circle", title: "Draw Circle Template", icon: "◯" } } },
  };

  constructor(container) {
    this.container = container;
    this.controls = this.constructor.CONTROLS;
    this._tools = { tokens: "select", templates: "circle" };
    this.element = null;
  }
  /** The active control: the one whose layer is the canvas's active layer. */
  get control() {
    const layer = globalThis.canvas?.activeLayer;
    return Object.values(this.controls).find((c) => globalThis.canvas?.[c.layer] === layer) ?? this.controls.tokens;
  }
  get tool() {
    const control = this.control;
    return control.tools[this._tools[control.name]] ?? null;
  }
  activate({ control, tool } = {}) {
    const c = this.controls[control ?? this.control.name];
    if (!c) return;
    if (tool && c.tools[tool]) this._tools[c.name] = tool;
    canvas[c.layer].activate();
    this.render();
  }
  /**
   * render({reset}): `reset` "Re-prepare the possible list of controls"
   * (foundryvtt.com/api/interfaces/foundry._SceneControlsRenderOptions.html): the modules'
   * getSceneControlButtons tools are collected anew (the sandbox shows them under Shoot:
   * `onReset`, set by sandbox/panel.mjs); a plain render keeps the tools it has.
   */
  render({ reset = false } = {}) {
    if (reset) this.onReset?.();
    if (!this.element) {
      this.element = document.createElement("nav");
      this.element.id = "scene-controls";
      this.element.setAttribute("aria-label", "Scene controls");
      this.container.append(this.element);
    }
    const active = this.control;
    const button = (kind, item, pressed) => `<button type="button" class="ui-control ${kind}" data-${kind}="${escapeHTML(item.name)}"
      aria-pressed="${pressed}" aria-label="${escapeHTML(item.title)}" title="${escapeHTML(item.title)}">${escapeHTML(item.icon)}</button>`;
    this.element.innerHTML = `<menu class="scene-control-layers">${Object.values(this.controls).map((c) =>
      `<li>${button("control", c, c === active)}</li>`).join("")}</menu>
      <menu class="scene-control-tools">${Object.values(active.tools).map((tool) =>
        `<li>${button("tool", tool, tool === this.tool)}</li>`).join("")}</menu>`;
    for (const el of this.element.querySelectorAll("[data-control]")) {
      el.addEventListener("click", () => this.activate({ control: el.dataset.control }));
    }
    for (const el of this.element.querySelectorAll("[data-tool]")) {
      el.addEventListener("click", () => this.activate({ control: active.name, tool: el.dataset.tool }));
    }
    return this;
  }
}
