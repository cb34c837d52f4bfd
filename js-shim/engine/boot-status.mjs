// What a person sees while the engine starts (issue 17, "Boot feedback"): a dialog opened as they
// press Shoot (or an action), at once, with a progress line that follows the boot's stages
// (EngineClient#bootStage: loading Python, its packages, the rules, reading the rulesets). Once the
// engine is ready it closes and the full dialog opens; a boot that failed says so, why, and how to
// try again (a Try again button: EngineClient#restart).
import { t } from "../core/i18n.mjs";
import { escapeHTML } from "../core/form.mjs";

/** The progress line's text for the engine's state now: {failed, text}. */
export function bootStatusLine(engine) {
  if (engine.status === "failed") {
    const why = engine.failure?.message ?? t("FIREFIGHT.ui.engine.failed", "The Firefight engine failed to start: {reason}", { reason: engine.bootError ?? "?" });
    return { failed: true, text: `${why} ${t("FIREFIGHT.ui.engine.bootRetryHint", "Press Try again, or reload the page (F5).")}` };
  }
  const stage = engine.bootStage ?? "python";
  return { failed: false, text: t(`FIREFIGHT.ui.engine.stage.${stage}`, t("FIREFIGHT.ui.engine.booting", "Firefight engine is starting…")) };
}

/**
 * Keep `el` showing the engine's boot status (text, `data-status`: booting | failed | ready) and
 * call `onChange(engine.status)` on each change. -> a function that stops watching.
 */
export function watchBootStatus(engine, el, onChange = () => {}) {
  const update = () => {
    const { failed, text } = bootStatusLine(engine);
    el.textContent = text;
    el.dataset.status = engine.status === "ready" ? "ready" : failed ? "failed" : "booting";
    el.classList.toggle("error", failed);
    onChange(engine.status);
  };
  engine.addEventListener("status", update);
  engine.addEventListener("stage", update);
  update();
  return () => {
    engine.removeEventListener("status", update);
    engine.removeEventListener("stage", update);
  };
}

/** The boot dialog open now, or null (one at a time: a second press brings it forward). */
let openBoot = null;

/**
 * Wait for the engine with a dialog that says how far it is. Resolves true at once when the engine
 * is ready, true when it becomes ready (the dialog closes itself), false when the person closes it
 * (or presses Shoot again while it is open: it comes forward, and that second press does nothing).
 * `title`, `icon`: the dialog's; `matchup`: a line of context (escaped here), optional.
 */
export async function waitForEngine(engine, { title, icon = "fa-solid fa-crosshairs", matchup = "" } = {}) {
  if (engine.status === "ready") return true;
  if (openBoot) {
    openBoot.bringToFront?.();
    return false;
  }
  engine.start()?.catch?.(() => {}); // the line shows a failure
  const DialogV2 = foundry.applications.api.DialogV2;
  for (;;) {
    let becameReady = false;
    let stop = () => {};
    const choice = await DialogV2.wait({
      window: { title: title ?? t("FIREFIGHT.ui.dialog.title", "Fire!"), icon },
      classes: ["firefight-dialog", "firefight-boot"],
      content: `<div class="firefight-booting">${matchup ? `<p class="ff-matchup">${escapeHTML(matchup)}</p>` : ""}
        <p class="ff-boot-status" data-firefight-boot role="status" aria-live="polite"></p></div>`,
      buttons: [
        { action: "retry", label: t("FIREFIGHT.ui.engine.retry", "Try again"), icon: "fa-solid fa-rotate-right" },
        { action: "cancel", label: t("FIREFIGHT.ui.dialog.cancel", "Cancel"), icon: "fa-solid fa-xmark", default: true },
      ],
      render: (event, dialog) => {
        openBoot = dialog ?? event?.target ?? null;
        const root = openBoot?.element;
        const line = root?.querySelector?.("[data-firefight-boot]");
        const retry = root?.querySelector?.('[data-action="retry"]');
        if (!line) return;
        stop = watchBootStatus(engine, line, (status) => {
          retry?.toggleAttribute("hidden", status !== "failed");
          if (status === "ready" && !becameReady) {
            becameReady = true;
            openBoot?.close?.();
          }
        });
      },
      rejectClose: false,
    }).finally(() => {
      stop();
      openBoot = null;
    });
    if (becameReady || engine.status === "ready") return true;
    if (choice !== "retry") return false;
    engine.restart().catch(() => {}); // the next dialog follows the new boot
  }
}
