// The board's keys, pure: a key for each pile, laid out as the piles are (the number row for
// the crescent's top arc, left to right; the bottom letter row for its bottom arc), so that a
// move takes two keys: the pile to take from, then the pile or the foundation to play to.
//
//   1 2 3 4 5 6 7 8     the top arc's piles (p0 .. p7)
//   z x c v b n m ,     the bottom arc's piles, left to right (p15 .. p8)
//   Enter or Space      (a card picked up) home, to the foundation that takes it
//   ↑ / ↓               (a card picked up) to its up / its down foundation
//   F then 1-8          pick up a foundation's top card (1-4 up, 5-8 down, ♠ ♥ ♦ ♣)
//   :                   type a move in the engine's notation (p3>uH, shuffle)

const TOP = ["1", "2", "3", "4", "5", "6", "7", "8"];
const BOTTOM = ["z", "x", "c", "v", "b", "n", "m", ","];
const SUITS = ["S", "H", "D", "C"];

/** The pile ("p0".."p15") a key stands for, or null. */
export function pileOfKey(key) {
  const k = String(key).toLowerCase();
  const top = TOP.indexOf(k);
  if (top >= 0) return `p${top}`;
  const bottom = BOTTOM.indexOf(k);
  if (bottom >= 0) return `p${15 - bottom}`;
  return null;
}

/** The key of a pile ("p3" -> "4", "p15" -> "z"). */
export function keyOfPile(zone) {
  const i = Number(String(zone).slice(1));
  return i < 8 ? TOP[i] : BOTTOM[15 - i];
}

/** The foundation the digit after F stands for: 1-4 up ♠ ♥ ♦ ♣, 5-8 down. */
export function foundationOfDigit(key) {
  const n = Number(key);
  if (!Number.isInteger(n) || n < 1 || n > 8) return null;
  return (n <= 4 ? "u" : "d") + SUITS[(n - 1) % 4];
}

/** The digit of a foundation ("uS" -> "1", "dC" -> "8"). */
export function digitOfFoundation(key) {
  return String(SUITS.indexOf(key[1]) + 1 + (key[0] === "d" ? 4 : 0));
}

/**
 * What a key does with ``selected`` (the zone picked up, or null) among the ``moves`` from
 * it (parsed: {text, to: {key, kind, up}}): {play: text}, {select: zone}, {clear: true}, or
 * null (not a board key). ``home``: the foundation a tap would play to (the up one first).
 */
export function keyAction(key, selected, moves) {
  const k = String(key).toLowerCase();
  const pile = pileOfKey(k);
  if (!selected) return pile ? { select: pile } : null;
  if (pile === selected) return { clear: true };
  const to = (pred) => moves.find(pred);
  let move = null;
  if (pile) move = to((m) => m.to.key === pile);
  else if (k === "enter" || k === " ") move = to((m) => m.to.kind === "foundation" && m.to.up) || to((m) => m.to.kind === "foundation");
  else if (k === "arrowup") move = to((m) => m.to.kind === "foundation" && m.to.up);
  else if (k === "arrowdown") move = to((m) => m.to.kind === "foundation" && !m.to.up);
  else return null;
  if (move) return { play: move.text };
  return pile ? { select: pile } : { refuse: true };
}

/** A move typed in the engine's notation, tidied ("P3 > uh" -> "p3>uH"), or null. */
export function typedMove(text) {
  const t = String(text).trim().replace(/\s+/g, "");
  if (/^shuffle$/i.test(t)) return "shuffle";
  const m = t.match(/^(p\d{1,2}|[ud][shdc])(?:>|-|to)?(p\d{1,2}|[ud][shdc])$/i);
  if (!m) return null;
  const zone = (z) => (z[0].toLowerCase() === "p" ? `p${Number(z.slice(1))}` : z[0].toLowerCase() + z[1].toUpperCase());
  return `${zone(m[1])}>${zone(m[2])}`;
}
