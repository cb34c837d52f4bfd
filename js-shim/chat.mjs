// Chat card wiring (renderChatMessageHTML): the Apply / Undo buttons and what was applied, and
// holding back the outcome while Dice So Nice animates the message's dice (only on a client
// where it does animate them).
import { MODULE_ID } from "./config.mjs";
import { t } from "./i18n.mjs";
import { applyState, effectsByActor, mayRequest } from "./apply.mjs";
import { escapeHTML } from "./form.mjs";

const DICE_WAIT_MAX_MS = 20000; // a safety net only: DSN says when it will not animate
const rolling = new Map(); // message id -> promise resolved when its dice have landed

/**
 * Is Dice So Nice rolling this message's dice on this client? DSN marks the message
 * `_dice3danimating = true` in its createChatMessage hook when it will animate it (and deletes
 * the mark when done), and not when the roll is one this user cannot see; with its world setting
 * "immediatelyDisplayChatMessages" it shows the message at once (Dice So Nice module/main.js).
 */
export function diceRolling(message) {
  if (!game.dice3d || !message?._dice3danimating) return false;
  const immediate = "dice-so-nice.immediatelyDisplayChatMessages";
  return !(game.settings?.settings?.has?.(immediate) && game.settings.get("dice-so-nice", "immediatelyDisplayChatMessages"));
}

/**
 * When this message's dice have landed. DSN's own helper waitFor3DAnimationByMessageID resolves
 * at once where DSN will not animate (3D dice hidden on this client, or immediate display) and
 * otherwise on that message's diceSoNiceRollComplete (Dice So Nice module/Dice3D.js).
 */
function diceLanded(message) {
  if (!rolling.has(message.id)) {
    const dsn = game.dice3d?.waitFor3DAnimationByMessageID?.(message.id)
      ?? new Promise((resolve) => {
        const id = Hooks.on("diceSoNiceRollComplete", (done) => {
          if (done !== message.id) return;
          Hooks.off("diceSoNiceRollComplete", id);
          resolve(true);
        });
      });
    const landed = Promise.race([dsn, new Promise((resolve) => setTimeout(resolve, DICE_WAIT_MAX_MS))])
      .finally(() => rolling.delete(message.id));
    rolling.set(message.id, landed);
  }
  return rolling.get(message.id);
}

/**
 * Can this user read the message's content? ChatMessage#isContentVisible (v13); a blind message
 * ("sent blindly where the creating User cannot see it", ChatMessageData.blind) only a GM reads.
 */
export function contentVisible(message) {
  if (typeof message.isContentVisible === "boolean") return message.isContentVisible;
  return !message.blind || Boolean(game.user?.isGM);
}

function userName(id) {
  return game.users?.get?.(id)?.name ?? id ?? "?";
}

function button(action, label, icon, { disabled = false } = {}) {
  return `<button type="button" data-firefight-action="${action}"${disabled ? ' disabled data-state="applying"' : ""}><i class="${icon}" aria-hidden="true"></i> ${escapeHTML(label)}</button>`;
}

/**
 * The footer of a Firefight card: state line and buttons, for this user. Applied or undone is
 * read from the records the GM keeps on the actors (apply.mjs `applyState`), never from the
 * message's own flags, which its author may edit.
 */
export function footerHTML(message, user = game.user) {
  const ff = message.flags?.[MODULE_ID] ?? {};
  const hasEffects = effectsByActor(ff.result).length > 0;
  if (!hasEffects) return "";
  const state = applyState(message);
  const parts = [];
  if (state.state === "applied") {
    parts.push(`<p class="ff-applied-state" data-state="applied">${escapeHTML(t("FIREFIGHT.ui.chat.appliedTo",
      "Applied to {names} by {user}", { names: state.names.join(", "), user: userName(state.by) }))}</p>`);
    for (const m of state.missing) {
      parts.push(`<p class="ff-missing-statuses" data-state="missing">${escapeHTML(t("FIREFIGHT.ui.chat.notSet",
        "{name}, not set: {statuses} (no such status in this system)", { name: m.name, statuses: m.statuses.join(", ") }))}</p>`);
    }
    if (user?.isGM) parts.push(button("undo-effects", t("FIREFIGHT.ui.chat.undo", "Undo"), "fa-solid fa-rotate-left"));
  } else if (state.state === "undone") {
    parts.push(`<p class="ff-applied-state" data-state="undone">${escapeHTML(t("FIREFIGHT.ui.chat.undone",
      "Undone by {user}", { user: userName(state.by) }))}</p>`);
  } else if (state.applying) {
    parts.push(button("apply-effects", t("FIREFIGHT.ui.chat.applying", "Applying…"), "fa-solid fa-spinner", { disabled: true }));
  } else if (mayRequest(message, user)) {
    parts.push(button("apply-effects", t("FIREFIGHT.ui.chat.applyEffects", "Apply damage"), "fa-solid fa-heart-crack"));
  }
  return parts.join("");
}

/** Hooks.on("renderChatMessageHTML", (message, html, context) => ...) */
export function onRenderChatMessage(message, html, { applier } = {}) {
  const ff = message.flags?.[MODULE_ID];
  if (!ff?.result || !(html instanceof HTMLElement)) return;
  html.classList.add("firefight-message");
  html.querySelector(".firefight-card-actions")?.remove();
  // The hook fires for a blind message its author cannot read: no outcome, nothing to apply.
  if (!contentVisible(message)) {
    html.classList.add("ff-content-hidden");
    return;
  }
  const card = html.querySelector(".firefight-card");
  if (card && diceRolling(message)) {
    // While the dice roll the card shows no faces, no success and no later step.
    card.classList.add("ff-awaiting-dice");
    diceLanded(message).then(() => {
      card.classList.remove("ff-awaiting-dice");
      for (const el of document.querySelectorAll(`[data-message-id="${CSS.escape(message.id)}"] .firefight-card.ff-awaiting-dice`)) {
        el.classList.remove("ff-awaiting-dice");
      }
    });
  }
  const inner = footerHTML(message);
  if (!inner) return;
  const footer = document.createElement("div");
  footer.className = "firefight-card-actions";
  footer.innerHTML = inner;
  (html.querySelector(".message-content") ?? html).append(footer);
  const wire = (action, fn) => {
    for (const b of footer.querySelectorAll(`[data-firefight-action="${action}"]`)) {
      b.addEventListener("click", async (ev) => {
        ev.preventDefault();
        b.disabled = true;
        const out = await fn();
        if (!out?.ok) b.disabled = false;
      });
    }
  };
  wire("apply-effects", () => applier?.request(message));
  wire("undo-effects", () => applier?.undo(message));
}
