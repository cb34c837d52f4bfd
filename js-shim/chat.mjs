// Chat card wiring (renderChatMessageHTML): the Apply / Undo buttons and what was applied, and
// holding back the outcome while Dice So Nice animates the message's dice (only on a client
// where it does animate them).
import { MODULE_ID } from "./config.mjs";
import { t } from "./i18n.mjs";
import { effectsByActor, mayRequest } from "./apply.mjs";
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

function button(action, label, icon) {
  return `<button type="button" data-firefight-action="${action}"><i class="${icon}" aria-hidden="true"></i> ${escapeHTML(label)}</button>`;
}

/** The footer of a Firefight card: state line and buttons, for this user. */
export function footerHTML(message, user = game.user) {
  const ff = message.flags?.[MODULE_ID] ?? {};
  const hasEffects = effectsByActor(ff.result).length > 0;
  if (!hasEffects) return "";
  const parts = [];
  if (ff.applied) {
    const names = Object.values(ff.applied.actors ?? {}).map((a) => a.name).join(", ");
    parts.push(`<p class="ff-applied-state" data-state="applied">${escapeHTML(t("FIREFIGHT.ui.chat.appliedTo",
      "Applied to {names} by {user}", { names, user: userName(ff.applied.by) }))}</p>`);
    if (user?.isGM) parts.push(button("undo-effects", t("FIREFIGHT.ui.chat.undo", "Undo"), "fa-solid fa-rotate-left"));
  } else if (ff.undone) {
    parts.push(`<p class="ff-applied-state" data-state="undone">${escapeHTML(t("FIREFIGHT.ui.chat.undone",
      "Undone by {user}", { user: userName(ff.undone.by) }))}</p>`);
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
