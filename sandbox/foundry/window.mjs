// Sandbox-only window behaviour shared by dialogs and sheets (not part of Foundry's API).

/** Let a window element be dragged by its .window-header (buttons in the header still click). */
export function dragByHeader(el) {
  el.addEventListener("pointerdown", (ev) => {
    if (!ev.target.closest(".window-header") || ev.target.closest("button")) return;
    const r = el.getBoundingClientRect();
    const dx = ev.clientX - r.left;
    const dy = ev.clientY - r.top;
    const move = (e) => {
      el.style.left = `${e.clientX - dx}px`;
      el.style.top = `${e.clientY - dy}px`;
      el.style.transform = "none";
    };
    const up = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  });
}
