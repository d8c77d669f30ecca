// Reading a long pile: its fan spread over what is below it, so every card's corner shows (the
// deep cards a shuffle brings up). The pile's cards stay where they are: only their spacing
// changes.
//
// A mouse resting on a pile spreads it, and leaving or pressing closes it. A finger has no
// hover, and its long press selects a card: the board's "Spread" toggle makes a tap on a pile
// spread it (a second tap, or a tap on another pile, closes it) instead of playing its card,
// until the toggle is pressed again.

import { h } from "../dom.js";
import { t } from "../i18n.js";

const PEEK_MS = 350; // a mouse resting this long on a pile spreads it

const long = (el) => el.querySelectorAll(".card").length > 1;

/** A pile under a resting mouse spreads its fan, and closes when the mouse leaves or presses. */
export function peekable(el) {
  let timer = null;
  const close = (e) => {
    if (e.pointerType !== "mouse") return; // (a finger's leave follows its every tap)
    clearTimeout(timer);
    el.classList.remove("peek");
  };
  el.addEventListener("pointerenter", (e) => {
    if (e.pointerType !== "mouse") return;
    clearTimeout(timer);
    timer = setTimeout(() => el.classList.toggle("peek", long(el)), PEEK_MS);
  });
  el.addEventListener("pointerleave", close);
  el.addEventListener("pointerdown", close);
}

/** The "Spread" toggle of ``board`` (a BoardView): while pressed, a tap on a pile spreads it. */
export function spreadToggle(board) {
  const button = h(
    "button",
    { type: "button", class: "small spread-toggle", "data-testid": "spread", "aria-pressed": "false", title: t("peek.title") },
    h("span", { "aria-hidden": "true" }, "⇕"),
    h("span", { class: "sr-only" }, t("peek.label")),
  );
  button.addEventListener("click", () => spreading(board, !board.spreading));
  return button;
}

/** Turn the board's spreading on or off (off closes any pile spread). */
export function spreading(board, on) {
  board.spreading = on;
  board.el.classList.toggle("spreading", on);
  board.spreadButton?.setAttribute("aria-pressed", String(on));
  if (on) board.clearSelection();
  else for (const el of board.el.querySelectorAll(".pile.peek")) el.classList.remove("peek");
  board.announce(t(on ? "peek.on" : "peek.off"));
}

/** A tap on pile ``el`` while spreading: it opens (the others close), or closes if open. */
export function spreadPile(board, el) {
  const open = !el.classList.contains("peek") && long(el);
  for (const other of board.el.querySelectorAll(".pile.peek")) other.classList.remove("peek");
  el.classList.toggle("peek", open);
  if (open) board.announce(t("peek.open", { pile: el.getAttribute("aria-label") || t("board.aCard") }));
}
