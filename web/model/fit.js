// How big a board's cards can be in a space: pure, from sizes in CSS pixels. The board
// (board/board.js, style.css) has two shapes:
//   tall  the crescent: 8 piles above the foundations (two rows of four), 8 below;
//   wide  the 16 piles in two rows of 8, the up foundations (2x2) on their left, the down
//         ones on their right: for a space wider than tall (a laptop, a phone on its side).
// Every length of the board is a multiple of the card's width (cw) but for a few lines of
// text with a least size in pixels; so the largest cw that fits is found by bisection.

const CH = 1.4; // a card's height
const GAP = 0.14; // between piles, and the board's padding
const FAN = CH + 6 * 0.26 * CH; // a pile's height: a card and six steps of its fan
const FAN_WIDE = CH + 5 * 0.26 * CH; // ... on the wide board, five (the deal's six cards)
const SIDE = 0.3; // between the wide board's foundations and its piles
const LINE_PX = 12.5; // a foundation's label or count line at its least (10 px type)
const LINE = 0.2625; // ... and as a share of cw (0.21 cw type, 1.25 line height)

/** The least and largest card widths a board is drawn at. */
export const MAX_CW = 92;
export const MIN_CW = 8;
/** Below this width a board's foundations show no label nor count (they would not fit). */
export const TINY_CW = 26;

/** A foundation's height: its label, its card, its count (none on a tiny board). */
function foundation(cw) {
  const line = cw < TINY_CW ? 0 : Math.max(LINE_PX, LINE * cw);
  return 2 * line + CH * cw;
}

/** The board's size in pixels at card width ``cw`` in ``shape`` (tall or wide). */
export function boardSize(cw, shape) {
  const gap = GAP * cw;
  const rows = 8 * cw + 7 * gap; // a row of 8 piles
  const fans = 2 * (shape === "wide" ? FAN_WIDE : FAN) * cw;
  const foundations = 2 * foundation(cw) + 0.6 * gap; // two rows (or two of a 2x2)
  if (shape === "wide") {
    return {
      width: rows + 2 * (2 * cw + gap) + 2 * SIDE * cw,
      height: Math.max(fans + gap, foundations) + 2 * gap,
    };
  }
  return { width: rows, height: fans + foundations + 4 * gap };
}

/** The largest card width (to 0.1 px) at which ``shape`` fits in width x height. */
export function largest(width, height, shape, max = MAX_CW) {
  const fits = (cw) => {
    const s = boardSize(cw, shape);
    return s.width <= width && s.height <= height;
  };
  if (!fits(MIN_CW)) return MIN_CW;
  let lo = MIN_CW;
  let hi = max;
  if (fits(hi)) return hi;
  while (hi - lo > 0.1) {
    const mid = (lo + hi) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return Math.floor(lo * 10) / 10;
}

/**
 * The shape and card width of one board in a space of width x height: the shape whose cards
 * are larger (the crescent, ``tall``, unless ``wide`` gives cards larger by more than
 * ``prefer``, 4%). ``shapes`` may leave one out.
 */
export function fitBoard({ width, height, max = MAX_CW, shapes = ["tall", "wide"], prefer = 1.04 }) {
  let best = null;
  for (const shape of shapes) {
    const cw = largest(width, height, shape, max);
    const score = shape === "tall" ? cw * prefer : cw;
    if (!best || score > best.score) best = { shape, cw, score };
  }
  const { shape, cw } = best;
  return { shape, cw, tiny: cw < TINY_CW, size: boardSize(cw, shape) };
}

/**
 * ``n`` boards in a grid in width x height: the columns, shape and card width with the
 * largest cards (or in ``cols`` columns). Each cell adds ``chromeX`` and ``chromeY`` around its board (its padding,
 * its title), and cells are ``gap`` apart.
 */
export function fitGrid({ width, height, n, chromeX = 0, chromeY = 0, gap = 0, max = MAX_CW, cols: only = null }) {
  let best = null;
  for (let cols = only || 1; cols <= (only || Math.max(1, n)); cols++) {
    const rows = Math.ceil(n / cols);
    const cellW = (width - (cols - 1) * gap) / cols - chromeX;
    const cellH = (height - (rows - 1) * gap) / rows - chromeY;
    if (cellW <= 0 || cellH <= 0) continue;
    const fit = fitBoard({ width: cellW, height: cellH, max });
    if (!best || fit.cw > best.cw) best = { cols, ...fit };
    if (rows === 1) break; // more columns only narrow the cells
  }
  return best || { cols: 1, ...fitBoard({ width: MIN_CW * 20, height: MIN_CW * 20, max }) };
}
