// "Copy request" (issue 28): the request a dialog's choices make, as the JSON the command line's
// balance lab takes (`firefight sim REQUEST`, `firefight sweep REQUEST`, README "Balance lab").
// One button for every action's dialog, Shoot's included (dialog.mjs).
import { escapeHTML } from "../core/form.mjs";
import { t } from "../core/i18n.mjs";

/** The button (and the place its fallback text goes), for a dialog's content. */
export function copyRequestHTML() {
  return `<div class="ff-copy-request">
  <button type="button" data-firefight-copy-request><i class="fa-solid fa-copy" inert></i> ${escapeHTML(t("FIREFIGHT.ui.dialog.copyRequest", "Copy request"))}</button>
  <textarea class="ff-copy-request-text" readonly hidden rows="6"></textarea>
</div>`;
}

/**
 * Wire the button in `root`: `build()` returns (or resolves) the request as the choices stand.
 * The clipboard (navigator.clipboard.writeText, which a browser grants only to a secure page
 * with the user's click) gets its JSON and a notification says so; where it is refused, the
 * JSON shows in the dialog, selected, for the user to copy.
 */
export function wireCopyRequest(root, build) {
  const button = root?.querySelector?.("[data-firefight-copy-request]");
  const text = root?.querySelector?.(".ff-copy-request-text");
  if (!button || !text) return;
  button.addEventListener("click", async (event) => {
    event.preventDefault();
    let json;
    try {
      json = JSON.stringify(await build(), null, 2);
    } catch (err) {
      ui.notifications?.error(String(err?.message ?? err));
      return;
    }
    try {
      await navigator.clipboard.writeText(json);
      text.hidden = true;
      ui.notifications?.info(t("FIREFIGHT.ui.dialog.requestCopied", "Request copied: save it as a file for firefight sim or firefight sweep."));
    } catch {
      text.value = json;
      text.hidden = false;
      text.focus();
      text.select();
      ui.notifications?.warn(t("FIREFIGHT.ui.dialog.requestNotCopied", "The browser refused the clipboard: the request is selected below, copy it from there."));
    }
  });
}
