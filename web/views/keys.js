// The race's keys on the page: U, S, H, ? and Escape, the board's keys (a move in two keys,
// read by model/keys.js), and a move typed in the engine's notation (":" opens its field).

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { foundationOfDigit, keyAction, typedMove } from "../model/keys.js";
import { phase } from "../model/select.js";
import { sound } from "../sound.js";

export class RaceKeys {
  /** The keys of ``board`` (a BoardView); ``act``: undo, shuffle, hint (the seat's);
   * ``state()``: the state last drawn; ``shown()``: whether the race is on the page;
   * ``help``: the keys' list (toolbar.js), which ? opens. ``notation`` is the typed move's
   * form, for the view to place. */
  constructor(board, act, { state, shown, help }) {
    this.board = board;
    this.act = act;
    this.state = state;
    this.shown = shown;
    this.help = help;
    this.pickFoundation = false; // F was pressed: a digit picks a foundation
    this.typed = h("input", { "data-testid": "notation-input", autocomplete: "off", spellcheck: "false", "aria-label": t("keys.typeLabel"), placeholder: "p3>uH" });
    this.typedNote = h("span", { class: "note", "data-testid": "notation-note", "aria-live": "polite" });
    this.notation = h(
      "form",
      { class: "notation", "data-testid": "notation", hidden: true, onsubmit: (e) => this.submitTyped(e) },
      this.typed,
      this.typedNote,
    );
    this.typed.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.closeTyped();
    });
  }

  onKey(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = e.target?.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    const key = e.key.toLowerCase();
    const s = this.state();
    const counting = !!s && phase(s) === "countdown";
    // A key held down repeats: U undoes move after move (each after the last one's reply),
    // but S, H, ? (and U in the countdown: told once it has not started) act once a press.
    if (e.repeat && (key === "s" || key === "h" || key === "?" || (key === "u" && counting))) {
      e.preventDefault();
      return;
    }
    if (this.boardKey(e, key, counting)) {
      e.preventDefault();
      return;
    }
    if (counting && (key === "u" || key === "s" || key === "h")) this.board.announce(t("race.notYet"));
    else if (key === "u") this.act.undo();
    else if (key === "s") this.act.shuffle();
    else if (key === "h") this.act.hint();
    else if (key === "?" && this.shown()) this.help.open = !this.help.open;
    else if (key === "escape") {
      this.help.open = false;
      this.board.clearSelection();
    } else return;
    e.preventDefault();
  }

  /** A board key (a pile's, a target's, F and a digit, ":"); true if it was one. */
  boardKey(e, key, counting) {
    if (!this.state()?.mine || !this.shown()) return false;
    const tag = e.target?.tagName;
    const onControl = tag === "BUTTON" || tag === "A" || tag === "SUMMARY";
    if (e.key === ":") {
      this.openTyped();
      return true;
    }
    if (this.pickFoundation) {
      this.pickFoundation = false;
      const zone = foundationOfDigit(e.key);
      if (zone) {
        this.board.el.classList.add("keyed");
        if (counting) this.board.announce(t("race.notYet"));
        else this.board.select(zone);
        return true;
      }
    }
    if (key === "f") {
      this.pickFoundation = true;
      return true;
    }
    if (onControl && (e.key === "Enter" || e.key === " ")) return false;
    const b = this.board;
    const action = keyAction(e.key, b.selected, b.bySource.get(b.selected) || []);
    if (!action) return false;
    if (e.repeat) return true;
    b.el.classList.add("keyed");
    if (counting) b.announce(t("race.notYet"));
    else if (action.play) {
      b.selected = null;
      b.play(action.play);
    } else if (action.select) b.select(action.select);
    else if (action.clear) b.clearSelection();
    else if (action.refuse) b.refuse(b.selected);
    return true;
  }

  openTyped() {
    this.notation.hidden = false;
    this.typedNote.textContent = t("keys.typeHelp");
    this.typed.value = "";
    this.typed.focus();
  }

  closeTyped() {
    this.notation.hidden = true;
    this.board.piles[0]?.focus({ preventScroll: true });
  }

  submitTyped(e) {
    e.preventDefault();
    const move = typedMove(this.typed.value);
    if (move && this.board.legal.includes(move)) {
      this.board.selected = null;
      this.board.play(move);
      this.closeTyped();
    } else {
      this.typedNote.textContent = move ? t("keys.notLegal", { move }) : t("keys.notAMove");
      sound.play("refused");
    }
  }
}
