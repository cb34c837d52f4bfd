// Chat card wiring (renderChatMessageHTML): the Apply / Undo buttons and what was applied, and
// holding back the outcome while Dice So Nice animates the message's dice.
import { MODULE_ID } from "./config.mjs";
import { t } from "./i18n.mjs";
import { effectsByActor, mayRequest } from "./apply.mjs";
import { escapeHTML } from "./form.mjs";

const DICE_WAIT_MAX_MS = 20000;
const awaitingDice = new Set(); // message ids whose dice are still rolling

/** Called on createChatMessage: hold the outcome back until Dice So Nice has rolled the dice. */
export function holdForDice(message) {
  if (!game.dice3d || !message.flags?.[MODULE_ID]?.result || !message.rolls?.length) return;
  awaitingDice.add(message.id);
  setTimeout(() => revealDice(message.id), DICE_WAIT_MAX_MS); // never hold it forever
}

/** Hooks.on("diceSoNiceRollComplete", messageId) */
export function revealDice(messageId) {
  if (!awaitingDice.delete(messageId)) return;
  for (const el of document.querySelectorAll(`[data-message-id="${messageId}"] .firefight-card.ff-awaiting-dice`)) {
    el.classList.remove("ff-awaiting-dice");
  }
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
  if (awaitingDice.has(message.id)) html.querySelector(".firefight-card")?.classList.add("ff-awaiting-dice");
  html.querySelector(".firefight-card-actions")?.remove();
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
