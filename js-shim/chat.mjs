// Chat card wiring (renderChatMessageHTML) and applying a result's effects.
import { MODULE_ID } from "./config.mjs";
import { t } from "./i18n.mjs";

/** Pure: effects + request -> [{side, actor_id, token_id, path, delta}] */
export function plannedUpdates(result) {
  const request = result?.request ?? {};
  const ruleset = result?.ruleset ?? request.ruleset;
  return (result?.effects ?? []).filter((e) => Number.isFinite(e.delta)).map((e) => ({
    side: e.target,
    actor_id: request[e.target]?.actor_id ?? null,
    token_id: request[e.target]?.token_id ?? null,
    path: `flags.${MODULE_ID}.${ruleset}.${e.kind}`,
    delta: e.delta,
  }));
}

function actorFor(u) {
  const token = u.token_id ? canvas.tokens?.get?.(u.token_id) : null;
  return token?.actor ?? game.actors.get(u.actor_id);
}

export async function applyEffects(message) {
  const result = message.flags?.[MODULE_ID]?.result;
  for (const u of plannedUpdates(result)) {
    const actor = actorFor(u);
    if (!actor) continue;
    const current = Number(foundry.utils.getProperty(actor, u.path) ?? 0);
    await actor.update({ [u.path]: current + u.delta });
  }
  await message.setFlag?.(MODULE_ID, "applied", true);
}

/** Hooks.on("renderChatMessageHTML", (message, html, context) => ...) */
export function onRenderChatMessage(message, html) {
  const ff = message.flags?.[MODULE_ID];
  if (!ff?.result || !(html instanceof HTMLElement)) return;
  html.classList.add("firefight-message");
  const hasEffects = plannedUpdates(ff.result).length > 0;
  if (hasEffects && game.user?.isGM && !html.querySelector('[data-firefight-action="apply-effects"]')) {
    const footer = document.createElement("div");
    footer.className = "firefight-card-actions";
    footer.innerHTML = `<button type="button" data-firefight-action="apply-effects"></button>`;
    footer.firstElementChild.textContent = t("FIREFIGHT.ui.chat.applyEffects", "Apply damage");
    (html.querySelector(".message-content") ?? html).append(footer);
  }
  for (const button of html.querySelectorAll('[data-firefight-action="apply-effects"]')) {
    if (ff.applied) {
      button.disabled = true;
      button.textContent = t("FIREFIGHT.ui.chat.applied", "Damage applied");
    }
    button.addEventListener("click", async (ev) => {
      ev.preventDefault();
      button.disabled = true;
      try {
        await applyEffects(message);
        button.textContent = t("FIREFIGHT.ui.chat.applied", "Damage applied");
      } catch (err) {
        button.disabled = false;
        console.error("Firefight |", err);
        ui.notifications?.error(`Firefight: ${err?.message ?? err}`);
      }
    });
  }
}
