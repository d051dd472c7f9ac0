// <dialog> helpers: open modally, remember what had focus and give it back on close.

export function openDialog(dialog, focus = null) {
  if (dialog.open) return;
  const opener = document.activeElement;
  dialog.addEventListener(
    "close",
    () => {
      if (opener && opener.isConnected && typeof opener.focus === "function") opener.focus();
    },
    { once: true },
  );
  dialog.showModal();
  if (focus) focus.focus();
}

export function closeDialog(dialog) {
  if (dialog.open) dialog.close();
}

/** Buttons marked data-close close their dialog. */
export function wireCloseButtons(root = document) {
  for (const button of root.querySelectorAll("dialog [data-close]")) {
    button.addEventListener("click", (event) => {
      event.preventDefault();
      closeDialog(button.closest("dialog"));
    });
  }
}

let toastTimer = 0;

/** A short message at the bottom of the screen (also read out: the element is role=alert).
 * `keep`, a part of the text such as a deal code, is kept on one line. */
export function toast(text, keep = "") {
  const el = document.querySelector("[data-toast]");
  if (!el) return;
  const at = keep ? text.indexOf(keep) : -1;
  if (at < 0) {
    el.textContent = text;
  } else {
    const part = document.createElement("span");
    part.className = "nowrap";
    part.textContent = keep;
    el.replaceChildren(text.slice(0, at), part, text.slice(at + keep.length));
  }
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 2600);
}
