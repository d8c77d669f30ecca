// The race's toolbar (the clock, the counts, the hint's words, the tools) and the keys' list.

import { h } from "../dom.js";
import { hintButton, hintText as hintWords } from "../model/hints.js";
import { tools } from "../model/select.js";
import { formatMs } from "../model/words.js";

export const RESIGN = { label: "Resign", sure: "Really resign?", title: "Resign from this race" };

/** The toolbar; ``act`` has shuffle, hint, undo, restart and resign. */
export function toolbar(act, resign = RESIGN) {
  const button = (testid, label, onclick, title) => h("button", { type: "button", "data-testid": testid, class: "tool", onclick, title }, label);
  const stat = (label, el, title) => h("div", { class: "stats", title }, h("span", { class: "label" }, label), el);
  const timer = h("span", { class: "timer", "data-testid": "timer", role: "timer", "aria-label": "race time" }, "0:00.0");
  const moves = h("span", { class: "stat", "data-testid": "move-count" }, "0");
  const cards = h("span", { class: "stat", "data-testid": "card-count" }, "8");
  const left = h("span", { class: "timer", "data-testid": "time-left", role: "timer", "aria-label": "time left" });
  const leftBox = h("div", { class: "stats", hidden: true }, h("span", { class: "label" }, "Left"), left);
  const hintText = h("p", { class: "hint-text", "data-testid": "hint-text", "aria-live": "polite" });
  const b = {
    shuffle: button("shuffle", "Shuffle", act.shuffle, "Shuffle (S): every pile's bottom card goes to its top"),
    hint: button("hint", "Hint", act.hint, "Hint (H)"),
    undo: button("undo", "Undo", act.undo, "Undo (U)"),
    restart: button("restart", "Restart", act.restart, "Restart this deal (the clock keeps running)"),
    resign: button("resign", resign.label, act.resign, resign.title),
  };
  const el = h(
    "div",
    { class: "toolbar", "data-testid": "toolbar" },
    stat("Time", timer),
    stat("Moves", moves, "Every move made, undone or not (a restart keeps the count): between equal results, fewer is better"),
    stat("Home", cards),
    leftBox,
    hintText,
    h("div", { class: "tools" }, Object.values(b)),
  );
  const text = (node, value) => node.textContent !== value && (node.textContent = value);
  return {
    el,
    /** ``confirming``: the tool waiting for its second press. */
    draw(s, confirming) {
      const t = tools(s);
      text(b.shuffle, `Shuffle (${t.shufflesLeft})`);
      b.shuffle.dataset.shufflesLeft = t.shufflesLeft;
      b.shuffle.disabled = !t.shuffle;
      b.shuffle.classList.toggle("hint", t.shuffleHinted);
      b.hint.disabled = !t.hint;
      const costs = hintButton(s.room);
      text(b.hint, costs.label);
      b.hint.title = costs.title;
      b.hint.hidden = costs.off;
      b.undo.disabled = !t.undo;
      b.undo.classList.toggle("hint", t.undoHinted);
      b.restart.disabled = !t.restart;
      b.resign.disabled = !t.resign;
      for (const [name, label, sure] of [["restart", "Restart", "Really restart?"], ["resign", resign.label, resign.sure]]) {
        text(b[name], confirming === name ? sure : label);
        b[name].classList.toggle("confirm", confirming === name);
      }
      text(hintText, hintWords(s.hint, s.mine?.board));
      hintText.dataset.move = s.hint?.move || "";
      hintText.dataset.wayOut = s.hint && s.hint.progress === false ? s.hint.way_out || "none" : "";
      if (s.mine) {
        text(moves, String(s.mine.moves));
        text(cards, `${s.mine.cards}/104`);
      }
    },
    time(c) {
      text(timer, formatMs(c.elapsed));
      leftBox.hidden = c.left === null;
      if (c.left !== null) text(left, formatMs(c.left));
    },
  };
}

/** The keys: a small "Keys" disclosure (? opens and closes it too). */
export function keysHelp() {
  const row = (keys, what) => [h("dt", {}, keys.map((k, i) => [i ? " or " : "", h("kbd", {}, k)])), h("dd", {}, what)];
  return h(
    "details",
    { class: "keys", "data-testid": "keys-help" },
    h("summary", { title: "Keys (?)" }, "Keys"),
    h(
      "dl",
      { class: "keys-panel" },
      row(["Tab"], "go from pile to pile, and to the foundations"),
      row(["Enter", "Space"], "play a pile’s card home, or pick it up if no foundation takes it"),
      row(["Shift+Enter"], "pick up a pile’s card to choose where it goes: then Enter there"),
      row(["Escape"], "put the card down"),
      row(["S"], "shuffle"),
      row(["H"], "hint"),
      row(["U"], "undo"),
      row(["?"], "show or hide these keys"),
    ),
  );
}
