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
      <div class="message-content">${hidden ? `<p class="blind">${escapeHTML(game.i18n.localize("CHAT.BlindRoll") === "CHAT.BlindRoll" ? "Blind roll: only the GM sees it" : game.i18n.localize("CHAT.BlindRoll"))}</p>` : message.content}</div>${hidden ? "" : rollsHTML(message)}`;
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
