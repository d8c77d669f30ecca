// The board: 16 fanned piles in a crescent around the 8 foundations. It knows no rules: it
// draws the board the server sent and offers exactly the server's legal moves, by drag and
// drop (drag.js) or by tapping.
//
// Keys: Enter or Space on a focused pile or foundation is a tap; with Shift it selects the
// card whatever it could do (so a card a foundation takes can still go to the other
// foundation or to a pile), and Enter or Space on a lit target then plays there.

import { announce, announcer, h } from "../dom.js";
import { t } from "../i18n.js";
import { card, foundationLabel, parseMove, SUIT_ORDER } from "../model/cards.js";
import { sentence } from "../model/words.js";
import { PointerInput } from "./drag.js";
import { courtFigure } from "./faces.js";
import * as motion from "./motion.js";
import { peekable, spreadPile, spreadToggle } from "./peek.js";
import { keyOfPile } from "../model/keys.js";
import { sound } from "../sound.js";

export const TOP_ROW = [0, 1, 2, 3, 4, 5, 6, 7];
export const BOTTOM_ROW = [15, 14, 13, 12, 11, 10, 9, 8]; // clockwise around the crescent
const ARC = [1, 0.42, 0.1, 0, 0, 0.1, 0.42, 1]; // how far each column bends toward the middle
const FOUNDATION_ROWS = [SUIT_ORDER.map((s) => "u" + s), SUIT_ORDER.map((s) => "d" + s)];

/** A card element: rank and suit as text in the corner, a big suit symbol in the middle. */
export function cardElement(text, extra = {}) {
  const c = card(text);
  if (c.hidden) return h("div", { class: "card back", "data-card": text, "aria-label": c.name, ...extra });
  return h(
    "div",
    {
      class: `card ${c.red ? "red" : "black"} suit-${c.suit}${c.face ? " face" : ""}`,
      "data-card": text,
      "aria-label": c.name,
      title: c.name,
      ...extra,
    },
    h("span", { class: "idx" }, c.label),
    h("span", { class: "pip", "aria-hidden": "true" }, c.face ? courtFigure(c.rank, c.symbol) : c.emblem),
  );
}

export class BoardView {
  /**
   * @param {object} options interactive (accept input), compact (small, for spectators),
   *   onMove(text) called with a legal move the player made.
   */
  constructor({ interactive = false, compact = false, onMove = null } = {}) {
    this.interactive = interactive;
    this.onMove = onMove;
    this.board = null;
    this.legal = [];
    this.bySource = new Map();
    this.hint = null;
    this.pending = false;
    this.closed = null; // why no card moves now, when none may (the race has not started)
    this.selected = null;
    this.spreading = false; // a tap spreads a pile to be read (the "Spread" toggle, for touch)
    this.fly = null; // the card a drop put down: {text, to, rect}
    this.drawn = null; // the cards last drawn, as text
    this.dirty = false;
    this.piles = [];
    this.foundations = {};
    this.el = h("div", {
      class: `board${compact ? " compact" : ""}${interactive ? " interactive" : ""}`,
      "data-testid": compact ? "mini-board" : "board",
    });
    this.build();
    if (interactive) {
      this.input = new PointerInput(this);
      this.el.addEventListener("keydown", (e) => this.onKey(e));
    }
  }

  build() {
    const pileEl = (i, col, row) => {
      const el = h("div", {
        class: `pile ${row}`,
        "data-pile": i,
        "data-drop": `p${i}`,
        "data-key": this.interactive ? keyOfPile(`p${i}`) : null,
        style: { "--arc": ARC[col] },
        tabindex: this.interactive ? "0" : null,
        role: this.interactive ? "button" : "group",
      });
      this.piles[i] = el;
      peekable(el);
      return el;
    };
    const top = h("div", { class: "arc arc-top" }, TOP_ROW.map((i, col) => pileEl(i, col, "top")));
    const bottom = h("div", { class: "arc arc-bottom" }, BOTTOM_ROW.map((i, col) => pileEl(i, col, "bottom")));
    const rows = FOUNDATION_ROWS.map((keys, r) =>
      h(
        "div",
        { class: `frow ${r ? "down" : "up"}` },
        keys.map((key) => {
          const el = h(
            "div",
            {
              class: `foundation ${r ? "down" : "up"}`,
              "data-foundation": key,
              "data-drop": key,
              tabindex: this.interactive ? "0" : null,
              role: this.interactive ? "button" : "group",
            },
            h("span", { class: "flabel" }, r ? "▼" : "▲", h("span", { class: "word" }, t(r ? "board.down" : "board.up"))),
            h("div", { class: "fslot" }),
            h("span", { class: "fcount", "data-testid": "foundation-count" }),
          );
          el.setAttribute("aria-label", t("board.foundation", { label: foundationLabel(key) }));
          this.foundations[key] = el;
          return el;
        }),
      ),
    );
    const middle = h("div", { class: "foundations", "data-testid": "foundations" }, rows);
    this.el.append(top, middle, bottom);
    // What a screen reader is told of the board's input: a selection and its targets, a refusal.
    this.announcer = announcer("board-announce");
    if (this.interactive) {
      this.spreadButton = spreadToggle(this);
      this.el.append(this.announcer, this.spreadButton);
    }
  }

  /** Draw a new board (and the moves allowed on it). Deferred while a card is dragged.
   * ``closed``: why no card may move at all now, said instead of refusing each card. */
  update(board, { legal = [], hint = null, version = null, pending = false, closed = null } = {}) {
    this.board = board;
    this.legal = legal;
    this.hint = hint;
    this.pending = pending;
    this.closed = closed;
    this.bySource = new Map();
    for (const text of legal) {
      const move = parseMove(text);
      if (move.shuffle) continue;
      const list = this.bySource.get(move.from.key) || [];
      list.push(move);
      this.bySource.set(move.from.key, list);
    }
    if (this.selected && !this.bySource.has(this.selected)) this.selected = null;
    if (version !== null) this.el.dataset.version = version;
    this.el.dataset.legal = legal.join(" "); // what this board offers, for tests and tools
    this.el.toggleAttribute("data-pending", pending);
    if (this.input?.dragging) {
      this.dirty = true;
      return;
    }
    this.draw();
  }

  draw() {
    this.dirty = false;
    const board = this.board;
    if (!board) return;
    // The same cards where they were (the server's reply to the move shown): only what may
    // move changes, and cards in flight fly on.
    const drawn = JSON.stringify([board.piles, board.foundations]);
    if (drawn === this.drawn) {
      this.fly = null;
      for (const el of this.el.querySelectorAll(".card.movable")) el.classList.remove("movable");
      for (const key of this.bySource.keys()) this.topCard(key)?.classList.add("movable");
      this.mark();
      return;
    }
    // Where the cards are before this drawing (on the screen, and drawn once already): they
    // fly from there (motion.js).
    const before = this.drawn && this.el.isConnected && this.el.offsetParent !== null ? motion.snapshot(this) : null;
    this.drawn = drawn;
    board.piles.forEach((cards, i) => {
      const el = this.piles[i];
      if (!el) return;
      el.replaceChildren();
      el.dataset.count = cards.length;
      el.style.setProperty("--n1", Math.max(cards.length - 1, 1));
      el.classList.toggle("empty", cards.length === 0);
      const movable = this.bySource.has(`p${i}`);
      cards.forEach((text, j) => {
        const isTop = j === cards.length - 1;
        const c = cardElement(text, isTop ? { "data-top": "true" } : {});
        if (isTop && movable) c.classList.add("movable");
        el.append(c);
      });
      if (!cards.length) el.append(h("span", { class: "empty-label" }, t("board.empty")));
      const names = cards.map((c) => card(c).label).join(" ");
      const face = cards.length && card(cards[0]).hidden ? t("board.faceDown", { n: cards.length }) : null;
      const what = face || (cards.length ? t("board.pileTop", { names, top: card(cards[cards.length - 1]).label }) : t("board.empty"));
      el.setAttribute("aria-label", t("board.pile", { n: i + 1, what }));
    });
    for (const [key, el] of Object.entries(this.foundations)) {
      const f = board.foundations[key];
      const slot = el.querySelector(".fslot");
      slot.replaceChildren(cardElement(f.top, { "data-top": "true" }));
      if (this.bySource.has(key)) slot.firstChild.classList.add("movable");
      el.dataset.count = f.count;
      el.classList.toggle("full", f.count >= 13);
      // "/13" goes where the cards are smallest (a phone on its side): the counts keep apart
      el.querySelector(".fcount").replaceChildren(String(f.count), h("span", { class: "of" }, "/13"));
      el.setAttribute("aria-label", t("board.foundationState", { label: foundationLabel(key), card: card(f.top).name, n: f.count }));
    }
    this.mark();
    const fly = this.fly;
    this.fly = null;
    motion.play(this, before, { override: fly });
  }

  /** The deal flying out from the middle (at "Go!"). */
  deal() {
    return motion.deal(this);
  }

  /** Selection, hint and target highlights. */
  mark() {
    for (const el of this.el.querySelectorAll(".selected, .target, .hint, .hint-target, .hover")) {
      el.classList.remove("selected", "target", "hint", "hint-target", "hover");
    }
    for (const el of this.el.querySelectorAll("[aria-pressed]")) el.removeAttribute("aria-pressed");
    if (this.selected) {
      this.zone(this.selected)?.classList.add("selected");
      if (this.interactive) this.zone(this.selected)?.setAttribute("aria-pressed", "true");
      for (const move of this.bySource.get(this.selected) || []) this.zone(move.to.key)?.classList.add("target");
    }
    if (this.hint && !this.hint.shuffle) {
      this.zone(this.hint.from.key)?.classList.add("hint");
      this.zone(this.hint.to.key)?.classList.add("hint-target");
    }
    this.el.dataset.selected = this.selected || "";
  }

  zone(key) {
    return key[0] === "p" ? this.piles[Number(key.slice(1))] : this.foundations[key];
  }

  clearSelection() {
    if (this.selected) {
      this.selected = null;
      this.mark();
      this.announce(t("board.cleared"));
    }
  }

  // -- taps ------------------------------------------------------------------------

  /**
   * A tap on a pile or foundation. With a card selected, a tap on one of its lit targets
   * plays there. Otherwise a tap on a pile plays its top card to a foundation when one takes
   * it (the up foundation when both of the suit's foundations do), else selects it so the
   * next tap picks a pile; a tap on a foundation selects its top card for a give-back. A tap
   * on the selected card clears the selection. While spreading (the "Spread" toggle), a tap
   * on a pile spreads it to be read instead.
   */
  tap(key) {
    if (this.spreading && key[0] === "p") return spreadPile(this, this.zone(key));
    if (this.pending) return;
    if (this.selected && this.selected !== key) {
      const move = (this.bySource.get(this.selected) || []).find((m) => m.to.key === key);
      if (move) {
        this.selected = null;
        this.play(move.text);
        return;
      }
    }
    if (this.selected === key) {
      this.clearSelection();
      return;
    }
    const moves = this.bySource.get(key) || [];
    if (key[0] === "p") {
      const home = moves.filter((m) => m.to.kind === "foundation");
      if (home.length) {
        const pick = home.find((m) => m.to.up) || home[0];
        this.selected = null;
        this.play(pick.text);
        return;
      }
    }
    this.select(key);
  }

  /**
   * Select the top card of a pile or foundation and light every target it has, foundations
   * included (Shift+Enter, a long press, or a tap on a card no foundation takes); the next
   * tap or Enter on a target plays there. A card with no move is refused.
   */
  select(key) {
    if (this.pending) return;
    const moves = this.bySource.get(key) || [];
    if (!moves.length) {
      this.selected = null;
      this.mark();
      this.refuse(key);
      return;
    }
    this.selected = key;
    this.mark();
    const top = this.topCard(key)?.dataset.card;
    const targets = moves.map((m) => zoneName(m.to.key)).join(", ");
    this.announce(t("board.selected", { card: top ? card(top).name : t("board.aCard"), targets }));
  }

  /** Whether `key` is a lit target of the selected card (a tap there plays the move). */
  isTarget(key) {
    return !!this.selected && (this.bySource.get(this.selected) || []).some((m) => m.to.key === key);
  }

  announce(text) {
    announce(this.announcer, text);
  }

  refuse(key) {
    if (this.closed) {
      this.announce(this.closed); // not this card's fault: no shake
      return;
    }
    this.announce(t("board.noMove", { zone: zoneName(key) }));
    sound.play("refused");
    const el = this.zone(key);
    if (el) {
      el.classList.remove("nope");
      void el.offsetWidth; // restart the animation
      el.classList.add("nope");
    }
  }

  /** Emit a legal move; the card will glide from `fromRect` (default: where it lies now). */
  play(text, fromRect = null) {
    if (!this.legal.includes(text)) return;
    const move = parseMove(text);
    if (move.shuffle) this.announce(t("board.shuffled"));
    else {
      const top = this.topCard(move.from.key)?.dataset.card;
      this.announce(sentence(t("board.moved", { card: top ? card(top).name : t("board.aCard"), zone: zoneName(move.to.key) })));
    }
    // A dropped card flies from where it was let go, not from its pile.
    const top = move.shuffle ? null : this.topCard(move.from.key);
    this.fly = fromRect && top ? { text: top.dataset.card, to: move.to.key, rect: fromRect } : null;
    this.onMove?.(text);
  }

  topCard(key) {
    return this.zone(key)?.querySelector(".card[data-top]") || null;
  }

  onKey(e) {
    if (e.key === "Escape") {
      this.clearSelection();
      return;
    }
    if (e.key !== "Enter" && e.key !== " ") return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const zone = e.target.closest?.("[data-drop]");
    if (!zone || !this.el.contains(zone)) return;
    e.preventDefault();
    if (e.repeat) return; // a key held down plays once
    const key = zone.dataset.drop;
    // Shift selects the card instead of playing it home, except on a lit target of the
    // selection: that plays there, as without Shift (a Shift still held changes nothing).
    if (e.shiftKey && !this.isTarget(key)) this.select(key);
    else this.tap(key);
  }
}

/** A pile or foundation as it is read out: "pile 4", "♠ down K→A foundation". */
function zoneName(key) {
  return key[0] === "p" ? t("board.pileName", { n: Number(key.slice(1)) + 1 }) : t("board.foundation", { label: foundationLabel(key) });
}
