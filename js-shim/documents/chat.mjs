// Chat card wiring (renderChatMessageHTML): the Apply / Undo buttons and what was applied, and
// holding back the outcome while Dice So Nice animates the message's dice (only on a client
// where it does animate them).
import { MODULE_ID } from "../core/config.mjs";
import { t } from "../core/i18n.mjs";
import { applyState, effectsByActor, hasHitPointDeltas, mayRequest, tokenDocument } from "./apply.mjs";
import { escapeHTML } from "../core/form.mjs";

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

function button(action, label, icon, { disabled = false, title = null, attrs = "" } = {}) {
  const tip = title ? ` title="${escapeHTML(title)}" aria-label="${escapeHTML(title)}"` : "";
  return `<button type="button" data-firefight-action="${action}"${attrs}${tip}${disabled ? ' disabled data-state="applying"' : ""}><i class="${icon}" aria-hidden="true"></i> ${escapeHTML(label)}</button>`;
}

// The GM's apply choices, as dnd5e's damage card offers them (ChatMessage5e#applyChatCardDamage:
// targets or controlled tokens; multiplier 1, 0.5, 2, -1).
const VARIANT_BUTTONS = [
  ["half", "FIREFIGHT.ui.chat.half", "Half", "FIREFIGHT.ui.chat.applyHalf", "Apply half damage", "fa-solid fa-divide"],
  ["double", "FIREFIGHT.ui.chat.double", "Double", "FIREFIGHT.ui.chat.applyDouble", "Apply double damage", "fa-solid fa-angles-up"],
  ["heal", "FIREFIGHT.ui.chat.heal", "Heal", "FIREFIGHT.ui.chat.applyHeal", "Heal as much instead", "fa-solid fa-heart"],
];

function variantLabel(variant) {
  const row = VARIANT_BUTTONS.find(([v]) => v === variant);
  return row ? t(row[1], row[2]) : variant;
}

/** The GM's controls: apply to targets or selected tokens; full, half, double, heal. */
/**
 * The Apply button's words: "Apply damage", or what the result says it applies instead (its
 * outcome's `apply_key`, a Firefight lang key: a pool recorded, a treatment).
 */
function applyLabel(message) {
  const key = message.flags?.[MODULE_ID]?.result?.outcome?.apply_key;
  return typeof key === "string" && key.startsWith("FIREFIGHT.") && key.length <= 200
    ? t(key, t("FIREFIGHT.ui.chat.applyEffects", "Apply damage"))
    : t("FIREFIGHT.ui.chat.applyEffects", "Apply damage");
}

function gmControls(message) {
  const name = `ff-apply-to-${escapeHTML(message.id)}`;
  const radio = (value, key, fallback, checked) => `<label class="ff-apply-choice"><input type="radio" name="${name}" value="${value}"${checked ? " checked" : ""}> ${escapeHTML(t(key, fallback))}</label>`;
  const parts = [`<fieldset class="ff-apply-to"><legend>${escapeHTML(t("FIREFIGHT.ui.chat.applyTo", "Apply to"))}</legend>`
    + radio("targets", "FIREFIGHT.ui.chat.toTargets", "Targets", true)
    + radio("selected", "FIREFIGHT.ui.chat.toSelected", "Selected tokens", false) + "</fieldset>"];
  parts.push(button("apply-effects", applyLabel(message), "fa-solid fa-heart-crack", { attrs: ' data-variant="full"' }));
  if (hasHitPointDeltas(message.flags?.[MODULE_ID]?.result)) {
    for (const [variant, key, fallback, titleKey, titleFallback, icon] of VARIANT_BUTTONS) {
      parts.push(button("apply-variant", t(key, fallback), icon, { title: t(titleKey, titleFallback), attrs: ` data-variant="${variant}"` }));
    }
  }
  return `<div class="ff-apply-controls">${parts.join("")}</div>`;
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
    const line = state.variant && state.variant !== "full"
      ? t("FIREFIGHT.ui.chat.appliedVariant", "Applied ({variant}) to {names} by {user}",
        { variant: variantLabel(state.variant), names: state.names.join(", "), user: userName(state.by) })
      : t("FIREFIGHT.ui.chat.appliedTo", "Applied to {names} by {user}", { names: state.names.join(", "), user: userName(state.by) });
    parts.push(`<p class="ff-applied-state" data-state="applied" data-variant="${escapeHTML(state.variant ?? "full")}">${escapeHTML(line)}</p>`);
    for (const m of state.missing) {
      parts.push(`<p class="ff-missing-statuses" data-state="missing">${escapeHTML(t("FIREFIGHT.ui.chat.notSet",
        "{name}, not set: {statuses} (no such status in this system)", { name: m.name, statuses: m.statuses.join(", ") }))}</p>`);
    }
    if (user?.isGM) parts.push(button("undo-effects", t("FIREFIGHT.ui.chat.undo", "Undo"), "fa-solid fa-rotate-left"));
  } else if (state.state === "undone") {
    parts.push(`<p class="ff-applied-state" data-state="undone">${escapeHTML(t("FIREFIGHT.ui.chat.undone",
      "Undone by {user}", { user: userName(state.by) }))}</p>`);
    // A GM may apply it again: as before (Redo), or another way.
    if (user?.isGM && !state.applying) {
      parts.push(button("redo-effects", t("FIREFIGHT.ui.chat.redo", "Redo"), "fa-solid fa-rotate-right"));
      parts.push(gmControls(message));
    }
  } else if (state.applying) {
    parts.push(button("apply-effects", t("FIREFIGHT.ui.chat.applying", "Applying…"), "fa-solid fa-spinner", { disabled: true }));
  } else if (user?.isGM) {
    parts.push(gmControls(message));
  } else if (mayRequest(message, user)) {
    parts.push(button("apply-effects", applyLabel(message), "fa-solid fa-heart-crack"));
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
  wireModifiers(html);
  const people = participantsHTML(message);
  const inner = footerHTML(message);
  if (!inner && !people) return;
  const footer = document.createElement("div");
  footer.className = "firefight-card-actions";
  footer.innerHTML = people + inner;
  (html.querySelector(".message-content") ?? html).append(footer);
  wireParticipants(footer);
  const wire = (action, fn) => {
    for (const b of footer.querySelectorAll(`[data-firefight-action="${action}"]`)) {
      b.addEventListener("click", async (ev) => {
        ev.preventDefault();
        b.disabled = true;
        const out = await fn(b);
        if (!out?.ok) b.disabled = false;
      });
    }
  };
  const choice = (b) => {
    const mode = footer.querySelector(".ff-apply-to input:checked")?.value ?? "targets";
    // dnd5e applies to canvas.tokens.controlled: the tokens the GM has selected now.
    const tokens = mode === "selected" ? (canvas?.tokens?.controlled ?? []).map((tk) => tk.document?.uuid).filter(Boolean) : [];
    return { mode, variant: b.dataset.variant ?? "full", tokens };
  };
  wire("apply-effects", (b) => applier?.request(message, user()?.isGM ? choice(b) : {}));
  wire("apply-variant", (b) => applier?.request(message, choice(b)));
  wire("redo-effects", () => applier?.request(message, applyState(message).redo ?? {}));
  wire("undo-effects", () => applier?.undo(message));
}

const user = () => globalThis.game?.user;

// --- hover: what a card refers to -------------------------------------------------------------

/**
 * The tokens a card's result refers to, each once: every participant of its request (a field
 * with a token or actor: attacker, target, patient ...) and every actor its effects name.
 */
export function participantsOf(result) {
  const out = [];
  const seen = new Set();
  const add = (p, role) => {
    const key = p?.token_id ?? p?.actor_id;
    if (!key || seen.has(key)) return;
    seen.add(key);
    out.push({ tokenId: p.token_id ?? null, actorId: p.actor_id ?? null, name: String(p.name ?? "?"), role });
  };
  for (const [field, value] of Object.entries(result?.request ?? {})) {
    for (const p of Array.isArray(value) ? value : [value]) {
      if (p && typeof p === "object" && (p.token_id || p.actor_id)) add(p, field);
    }
  }
  for (const g of effectsByActor(result)) add({ token_id: g.tokenId, actor_id: g.actorId, name: g.name }, "effect");
  return out;
}

function participantsHTML(message) {
  const list = participantsOf(message.flags?.[MODULE_ID]?.result);
  if (!list.length) return "";
  const items = list.map((p) => `<li class="ff-participant" tabindex="0" data-role="${escapeHTML(p.role)}"`
    + ` data-token-uuid="${escapeHTML(p.tokenId ?? "")}" data-actor-id="${escapeHTML(p.actorId ?? "")}"`
    + ` aria-label="${escapeHTML(t("FIREFIGHT.ui.chat.showToken", "{name}: show on the scene", { name: p.name }))}">${escapeHTML(p.name)}</li>`);
  return `<ul class="ff-participants">${items.join("")}</ul>`;
}

/** The token an element names: its token (by UUID), else the actor's first token on the scene. */
function tokenOf(el) {
  const doc = el.dataset.tokenUuid ? tokenDocument(el.dataset.tokenUuid) : null;
  return doc?.object ?? game.actors?.get?.(el.dataset.actorId)?.getActiveTokens?.()[0] ?? null;
}

/**
 * Hovering (or focusing) a name highlights its token on the canvas, as dnd5e's attack card does
 * (ChatMessage5e#_onTargetHoverIn: `token._onHoverIn(event, {hoverOutOthers: true})` on a visible,
 * uncontrolled token; `_onHoverOut` when the pointer leaves); a click or Enter selects it (its
 * owner) (ChatMessage5e#_onTargetMouseDown). `_onHoverIn`/`_onHoverOut` are PlaceableObject's
 * protected handlers: v13 has no public call that hovers a token (its `hover` is set by them), and
 * dnd5e 5.3.3, verified on v14, calls the same two (module/documents/chat-message.mjs); both are
 * called only if present.
 */
function wireParticipants(footer) {
  for (const li of footer.querySelectorAll(".ff-participant")) {
    let highlighted = null;
    const enter = (ev) => {
      const token = tokenOf(li);
      li.classList.add("ff-hovered");
      if (!token || token.isVisible === false) return;
      if (!token.controlled) token._onHoverIn?.(ev, { hoverOutOthers: true });
      highlighted = token;
    };
    const leave = (ev) => {
      li.classList.remove("ff-hovered");
      highlighted?._onHoverOut?.(ev);
      highlighted = null;
    };
    const select = (ev) => {
      const token = tokenOf(li);
      if (!token?.isOwner) return;
      token.control?.({ releaseOthers: !ev.shiftKey });
      canvas?.animatePan?.(token.center);
    };
    li.addEventListener("pointerenter", enter);
    li.addEventListener("pointerleave", leave);
    li.addEventListener("focus", enter);
    li.addEventListener("blur", leave);
    li.addEventListener("click", select);
    li.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        select(ev);
      }
    });
  }
}

/**
 * A modifier row names its source on hover (its title and Foundry's `data-tooltip`) and on
 * keyboard focus too (the row is focusable; TooltipManager#activate shows the same tooltip).
 */
function wireModifiers(html) {
  for (const row of html.querySelectorAll(".ff-modifier")) {
    const source = row.querySelector(".ff-mod-source")?.textContent?.trim();
    if (!source) continue;
    row.title = source;
    row.dataset.tooltip = source;
    row.tabIndex = 0;
    const on = () => {
      row.classList.add("ff-hovered");
      if (document.activeElement === row) game.tooltip?.activate?.(row, { text: source });
    };
    const off = () => {
      row.classList.remove("ff-hovered");
      if (document.activeElement !== row) game.tooltip?.deactivate?.();
    };
    row.addEventListener("pointerenter", on);
    row.addEventListener("pointerleave", () => document.activeElement !== row && off());
    row.addEventListener("focus", on);
    row.addEventListener("blur", off);
  }
}
