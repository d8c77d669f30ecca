// The race's toolbar (the clock, the counts, the hint's words, the tools) and the keys' list.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { hintButton, hintText as hintWords } from "../model/hints.js";
import { tools } from "../model/select.js";
import { formatMs } from "../model/words.js";

/** The resign button's words: its label, its second press's, its title. */
export function resignWords() {
  return { label: t("tb.resign"), sure: t("tb.resignSure"), title: t("tb.resignTitle") };
}

/** The toolbar; ``act`` has shuffle, hint, undo, restart and resign. */
export function toolbar(act, resign = resignWords()) {
  const button = (testid, label, onclick, title) => h("button", { type: "button", "data-testid": testid, class: "tool", onclick, title }, label);
  const stat = (label, el, title) => h("div", { class: "stats", title }, h("span", { class: "label" }, label), el);
  const timer = h("span", { class: "timer", "data-testid": "timer", role: "timer", "aria-label": t("tb.raceTime") }, "0:00.0");
  const moves = h("span", { class: "stat", "data-testid": "move-count" }, "0");
  const cards = h("span", { class: "stat", "data-testid": "card-count" }, "8");
  const left = h("span", { class: "timer", "data-testid": "time-left", role: "timer", "aria-label": t("tb.timeLeft") });
  const leftBox = h("div", { class: "stats", hidden: true }, h("span", { class: "label" }, t("tb.left")), left);
  const hintText = h("p", { class: "hint-text", "data-testid": "hint-text", "aria-live": "polite" });
  const b = {
    shuffle: button("shuffle", t("tb.shuffle"), act.shuffle, t("tb.shuffleTitle")),
    hint: button("hint", t("tb.hint"), act.hint, t("tb.hintTitle")),
    undo: button("undo", t("tb.undo"), act.undo, t("tb.undoTitle")),
    restart: button("restart", t("tb.restart"), act.restart, t("tb.restartTitle")),
    resign: button("resign", resign.label, act.resign, resign.title),
  };
  const el = h(
    "div",
    { class: "toolbar", "data-testid": "toolbar" },
    stat(t("tb.time"), timer),
    stat(t("tb.moves"), moves, t("tb.movesTitle")),
    stat(t("tb.home"), cards),
    leftBox,
    hintText,
    h("div", { class: "tools" }, Object.values(b)),
  );
  const text = (node, value) => node.textContent !== value && (node.textContent = value);
  return {
    el,
    /** ``confirming``: the tool waiting for its second press. */
    draw(s, confirming) {
      const may = tools(s);
      text(b.shuffle, t("tb.shuffleN", { n: may.shufflesLeft }));
      b.shuffle.dataset.shufflesLeft = may.shufflesLeft;
      b.shuffle.disabled = !may.shuffle;
      b.shuffle.classList.toggle("hint", may.shuffleHinted);
      b.hint.disabled = !may.hint;
      const costs = hintButton(s.room);
      text(b.hint, costs.label);
      b.hint.title = costs.title;
      b.hint.hidden = costs.off;
      b.undo.disabled = !may.undo;
      b.undo.classList.toggle("hint", may.undoHinted);
      b.restart.disabled = !may.restart;
      b.resign.disabled = !may.resign;
      for (const [name, label, sure] of [["restart", t("tb.restart"), t("tb.restartSure")], ["resign", resign.label, resign.sure]]) {
        text(b[name], confirming === name ? sure : label);
        b[name].classList.toggle("confirm", confirming === name);
      }
      text(hintText, hintWords(s.hint, s.mine?.board, s.mine?.legal_moves));
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
  const row = (keys, what) => [h("dt", {}, keys.map((k, i) => [i ? t("keys.or") : "", h("kbd", {}, k)])), h("dd", {}, what)];
  return h(
    "details",
    { class: "keys", "data-testid": "keys-help" },
    h("summary", { title: t("keys.title") }, t("keys.summary")),
    h(
      "dl",
      { class: "keys-panel" },
      row(["1…8", "Z…,"], t("keys.piles")),
      row(["↑", "↓"], t("keys.home")),
      row(["F 1…8"], t("keys.foundation")),
      row([":"], t("keys.type")),
      row(["Tab"], t("keys.tab")),
      row(["Enter", t("keys.space")], t("keys.enter")),
      row(["Shift+Enter"], t("keys.shiftEnter")),
      row(["Escape"], t("keys.escape")),
      row(["S"], t("keys.shuffle")),
      row(["H"], t("keys.hint")),
      row(["U"], t("keys.undo")),
      row(["?"], t("keys.help")),
    ),
  );
}
