// Boards sized to the screen: the space each has is measured, and model/fit.js says their
// shape (the crescent, or the wide board) and card width, set as the board's --cw. Sizes are
// measured again whenever the page or the window changes size, a frame later (so a change
// made here never feeds back into the same frame's observers).

import { fitBoard, fitGrid } from "../model/fit.js";

const BOTTOM = 6; // px kept free under the lowest board
const SMALL_CW = 48; // below it "13/13" is wider than a card

/** Set a board element's shape and card width. */
export function applyFit(el, fit) {
  const cw = `${fit.cw}px`;
  if (el.style.getPropertyValue("--cw") !== cw) el.style.setProperty("--cw", cw);
  el.classList.toggle("wide", fit.shape === "wide");
  el.classList.toggle("tiny", fit.tiny);
  el.classList.toggle("small", fit.cw < SMALL_CW); // the foundations' counts without "/13"
  el.dataset.shape = fit.shape;
}

/** The height from ``el``'s top (on the page, unscrolled) to the window's bottom. */
function below(el) {
  const top = el.getBoundingClientRect().top + window.scrollY;
  return Math.max(0, window.innerHeight - top - BOTTOM);
}

/** The height of ``cell`` besides its board's: its padding, its title. */
function chrome(cell, board) {
  const cs = getComputedStyle(cell);
  let height = parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom) + 2;
  for (const child of cell.children) {
    if (child === board || child.contains(board) || child.hidden) continue;
    const ms = getComputedStyle(child);
    if (ms.position === "absolute" || ms.position === "fixed") continue;
    height += child.getBoundingClientRect().height + parseFloat(ms.marginTop) + parseFloat(ms.marginBottom);
  }
  return height;
}

/** Calls ``fit()`` a frame after the page or the window changed size; ``stop()`` ends it. */
class Watcher {
  constructor(fit) {
    this.fit = fit;
    this.frame = 0;
    this.soon = () => {
      if (!this.frame) this.frame = requestAnimationFrame(() => ((this.frame = 0), this.fit()));
    };
    this.observer = new ResizeObserver(this.soon);
    this.observer.observe(document.documentElement);
    window.addEventListener("resize", this.soon);
  }

  watch(el) {
    this.observer.observe(el);
  }

  stop() {
    cancelAnimationFrame(this.frame);
    this.observer.disconnect();
    window.removeEventListener("resize", this.soon);
  }
}

/**
 * One board filling its space: as wide as ``space`` (the element it lies in) and as tall as
 * from there to the window's bottom, but never less than ``least`` of the window's height
 * (a page with much above its board lets it reach below the fold rather than shrink away).
 */
export function fitOne(board, space, { least = 0.5 } = {}) {
  const fit = () => {
    if (!space.isConnected || !space.clientWidth) return;
    const height = Math.max(below(space), least * window.innerHeight);
    applyFit(board, fitBoard({ width: space.clientWidth, height }));
  };
  const watcher = new Watcher(fit);
  watcher.watch(space);
  watcher.soon();
  return { stop: () => watcher.stop(), now: fit };
}

/**
 * The boards in ``grid`` (its cells ``cells()``, each with one board ``boardOf(cell)``),
 * laid out in as many columns as give the largest cards, all inside the window from the
 * grid's top down (never less than ``least`` of its height).
 */
export function fitMany(grid, { cells, boardOf, least = 0.5 }) {
  // The columns change a cell's width, so its title's lines, so the room for its board: at
  // one window size and count, the columns change at most twice (never back and forth).
  let settled = { key: "", changes: 0 };
  const fit = () => {
    if (!grid.isConnected || !grid.clientWidth) return;
    const shown = cells().filter((c) => !c.hidden && boardOf(c) && !boardOf(c).hidden);
    if (!shown.length) return;
    const style = getComputedStyle(grid);
    const gap = parseFloat(style.columnGap) || 0;
    // A cell's own room around its board: its padding, its title (the tallest cell's).
    const cs = getComputedStyle(shown[0]);
    const chromeX = parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 2;
    const chromeY = Math.max(...shown.map((cell) => chrome(cell, boardOf(cell))));
    const height = Math.max(below(grid), least * window.innerHeight);
    let fit = fitGrid({ width: grid.clientWidth, height, n: shown.length, chromeX, chromeY, gap });
    const key = `${window.innerWidth}x${window.innerHeight}:${shown.length}`;
    if (settled.key !== key) {
      settled = { key, changes: 0, last: null };
      grid.classList.remove("dense");
    }
    // Tiny boards: the cells' titles on one line, their padding slight (sized again then).
    if (fit.tiny && !grid.classList.contains("dense")) {
      grid.classList.add("dense");
      settled.last = null;
      watcher.soon();
      return;
    }
    if (settled.last && settled.last.cols !== fit.cols) {
      if (settled.changes >= 2) fit = fitGrid({ width: grid.clientWidth, height, n: shown.length, chromeX, chromeY, gap, cols: settled.last.cols });
      else settled.changes += 1;
    }
    settled.last = fit;
    const columns = `repeat(${fit.cols}, minmax(0, 1fr))`;
    if (grid.style.gridTemplateColumns !== columns) grid.style.gridTemplateColumns = columns;
    grid.dataset.cols = fit.cols;
    for (const c of shown) applyFit(boardOf(c), fit);
  };
  const watcher = new Watcher(fit);
  watcher.watch(grid);
  watcher.soon();
  return { stop: () => watcher.stop(), now: fit };
}
