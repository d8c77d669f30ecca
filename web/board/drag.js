// The board's pointer input, a small state machine per pointer: idle -> pressed
// (pointerdown on the board) -> dragging (moved further than the threshold from the press,
// and the pressed card can move) -> idle. Releasing while still "pressed" is a tap. A drop
// on a lit target plays the move; a drop anywhere else snaps the card back and plays
// nothing. Held still for LONG_PRESS_MS, a press becomes "held": the card is selected (its
// targets lit) rather than played, and the release plays nothing; moving on from there is
// still a drag (a finger or a pen: a mouse's slow click is a click).

const THRESHOLD = { mouse: 5, pen: 6, touch: 10 };
const LONG_PRESS_MS = 500;

export class PointerInput {
  /** Input for ``board`` (a BoardView: its taps, selection and moves). */
  constructor(board) {
    this.board = board;
    this.press = null;
    this.heldAt = -Infinity; // when the last long press selected a card (for its context menu)
    this.moveHandler = (e) => this.onPointerMove(e);
    this.upHandler = (e) => this.onPointerUp(e);
    this.cancelHandler = (e) => this.onPointerCancel(e);
    const el = board.el;
    el.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    el.addEventListener("dragstart", (e) => e.preventDefault());
    // A long touch on a card is a long press here: no context menu, no text selection.
    el.addEventListener("contextmenu", (e) => {
      if (this.press || this.heldAt > performance.now() - 1000) e.preventDefault();
    });
    el.addEventListener("selectstart", (e) => this.press && e.preventDefault());
  }

  /** Whether a card is being dragged (a new board is drawn when it is put down). */
  get dragging() {
    return this.press?.state === "dragging";
  }

  onPointerDown(e) {
    if (this.press || (e.pointerType === "mouse" && e.button !== 0)) return;
    const zone = e.target.closest("[data-drop]");
    if (!zone || !this.board.el.contains(zone)) {
      this.board.clearSelection();
      return;
    }
    const key = zone.dataset.drop;
    const cardEl = e.target.closest(".card[data-top]");
    const draggable = !this.board.pending && !!cardEl && zone.contains(cardEl) && this.board.bySource.has(key);
    if (draggable) e.preventDefault(); // no text selection or native drag
    const press = {
      state: "pressed",
      key,
      cardEl: draggable ? cardEl : null,
      id: e.pointerId,
      type: e.pointerType,
      x: e.clientX,
      y: e.clientY,
      ghost: null,
      hover: null,
      timer: null,
    };
    this.press = press;
    // A finger or pen held still selects the card instead of playing it (when it has a move;
    // on a lit target the press plays there however long it lasts). Not a mouse: a slow
    // click is a click, and Shift+Enter or a drag do the same there.
    if (e.pointerType !== "mouse" && !this.board.pending && this.board.bySource.has(key) && !this.board.isTarget(key)) {
      press.timer = setTimeout(() => this.onLongPress(press), LONG_PRESS_MS);
    }
    window.addEventListener("pointermove", this.moveHandler);
    window.addEventListener("pointerup", this.upHandler);
    window.addEventListener("pointercancel", this.cancelHandler);
  }

  onPointerMove(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    const dx = e.clientX - press.x;
    const dy = e.clientY - press.y;
    if (press.state === "pressed" || press.state === "held") {
      if (Math.hypot(dx, dy) < (THRESHOLD[press.type] ?? 6)) return;
      this.stopLongPress(press); // moved: no long press any more
      if (!press.cardEl) return;
      this.startDrag(press);
    }
    e.preventDefault();
    press.ghost.style.transform = `translate(${dx}px, ${dy}px) rotate(2deg)`;
    const over = this.dropKeyAt(e.clientX, e.clientY);
    if (over !== press.hover) {
      if (press.hover) this.board.zone(press.hover)?.classList.remove("hover");
      press.hover = over;
      if (over && press.targets.has(over)) this.board.zone(over)?.classList.add("hover");
    }
  }

  /** The press was held still long enough: select its card (the release will not tap). */
  onLongPress(press) {
    press.timer = null;
    if (this.press !== press || press.state !== "pressed") return;
    press.state = "held"; // the release sends nothing
    this.heldAt = performance.now();
    // A move in flight, or a new board on which this card cannot move: nothing to choose.
    if (!this.board.pending && this.board.bySource.has(press.key)) this.board.select(press.key);
  }

  stopLongPress(press) {
    if (press.timer !== null) clearTimeout(press.timer);
    press.timer = null;
  }

  startDrag(press) {
    press.state = "dragging";
    this.board.selected = null;
    press.targets = new Map((this.board.bySource.get(press.key) || []).map((m) => [m.to.key, m.text]));
    this.board.mark();
    for (const key of press.targets.keys()) this.board.zone(key)?.classList.add("target");
    this.board.zone(press.key)?.classList.add("selected");
    const rect = press.cardEl.getBoundingClientRect();
    const ghost = press.cardEl.cloneNode(true);
    ghost.classList.add("ghost");
    ghost.removeAttribute("data-top");
    ghost.setAttribute("data-testid", "drag-ghost");
    Object.assign(ghost.style, {
      left: `${rect.left}px`,
      top: `${rect.top}px`,
      width: `${rect.width}px`,
      height: `${rect.height}px`,
      margin: "0",
    });
    this.board.el.append(ghost);
    press.ghost = ghost;
    press.cardEl.classList.add("lifted");
    this.board.el.dataset.dragging = press.key;
  }

  dropKeyAt(x, y) {
    for (const el of document.elementsFromPoint(x, y)) {
      const zone = el.closest?.("[data-drop]");
      if (zone && this.board.el.contains(zone)) return zone.dataset.drop;
    }
    return null;
  }

  onPointerUp(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    this.endPress();
    if (press.state === "pressed") {
      this.board.tap(press.key);
      return;
    }
    if (press.state === "held") return; // the long press selected the card: nothing to play
    const over = this.dropKeyAt(e.clientX, e.clientY);
    const text = over ? press.targets.get(over) : undefined;
    if (text && !this.board.pending && this.board.legal.includes(text)) {
      const rect = press.ghost.getBoundingClientRect();
      press.ghost.remove();
      this.finishDrag();
      this.board.play(text, rect);
    } else {
      this.snapBack(press);
    }
  }

  onPointerCancel(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    this.endPress();
    if (press.state === "dragging") this.snapBack(press);
  }

  endPress() {
    if (this.press) this.stopLongPress(this.press);
    this.press = null;
    window.removeEventListener("pointermove", this.moveHandler);
    window.removeEventListener("pointerup", this.upHandler);
    window.removeEventListener("pointercancel", this.cancelHandler);
  }

  /** An illegal drop: the card flies back to its pile and nothing is sent. */
  snapBack(press) {
    const ghost = press.ghost;
    this.board.el.dataset.snapback = press.key;
    const done = () => {
      ghost.remove();
      delete this.board.el.dataset.snapback;
      this.finishDrag();
    };
    ghost.classList.add("returning");
    ghost.style.transform = "translate(0px, 0px)";
    ghost.addEventListener("transitionend", done, { once: true });
    setTimeout(() => ghost.isConnected && done(), 300);
  }

  finishDrag() {
    delete this.board.el.dataset.dragging;
    this.board.el.querySelector(".lifted")?.classList.remove("lifted");
    if (this.board.dirty) this.board.draw();
    else this.board.mark();
  }
}
