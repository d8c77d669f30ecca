// The board's motion, as chessground does it: the difference between the board drawn and
// the board drawn next. Before a draw, where every visible card is (`snapshot`); after it,
// each card that was on the screen flies from there to where it is now (`play`). So a tap,
// a drop, a hint, an undo, a give-back and a shuffle all animate the same way, with no code
// of their own. The cards are where they belong in the page from the first frame (only a
// transform moves), so input is never held up, and the next draw starts from where the
// cards are in flight. Nothing moves under prefers-reduced-motion.

export const FLY = "fly"; // the id of every animation here (tests wait on them, and count them)
const MOVE_MS = 190;
const SHUFFLE_MS = 420;
const DEAL_MS = 260;
const DEAL_STAGGER_MS = 6; // 104 cards: the last one lands about 0.9 s after "Go!"

export function still() {
  return !!window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
}

/** Where each visible card of ``board`` (a BoardView) is: zone key -> [{text, rect}]. */
export function snapshot(board) {
  const shot = new Map();
  for (const [key, el] of zones(board)) {
    shot.set(
      key,
      [...el.querySelectorAll(".card")].map((c) => ({ text: c.dataset.card, rect: c.getBoundingClientRect() })),
    );
  }
  return shot;
}

function zones(board) {
  return [...board.piles.map((el, i) => [`p${i}`, el]), ...Object.entries(board.foundations)];
}

/**
 * Fly every card from where ``before`` had it to where it is now. ``override``: {text, to,
 * rect}, the card a drop put down (it comes from the ghost's place, not its pile's). A card
 * going from the bottom of its pile to the top (a shuffle), or back (its undo), goes round
 * the side. Returns how many cards fly.
 */
export function play(board, before, { override = null } = {}) {
  if (!before || still()) return 0;
  const unused = new Map(); // card text -> [{key, index, rect}] not yet matched
  for (const [key, cards] of before) {
    cards.forEach((c, index) => {
      const list = unused.get(c.text) || [];
      list.push({ key, index, last: index === cards.length - 1, rect: c.rect, used: false });
      unused.set(c.text, list);
    });
  }
  const now = [];
  for (const [key, el] of zones(board)) {
    [...el.querySelectorAll(".card")].forEach((c, index) => now.push({ key, index, el: c, text: c.dataset.card, zone: el }));
  }
  // First the cards still in the same place of the same zone, then the cards that moved
  // within their zone, then each other card from the nearest place its text had (the deck
  // is doubled: two of each card).
  const from = new Map();
  const match = (test) => {
    for (const n of now) {
      if (from.has(n)) continue;
      const old = (unused.get(n.text) || []).find((o) => !o.used && test(o, n));
      if (old) {
        old.used = true;
        from.set(n, old);
      }
    }
  };
  match((o, n) => o.key === n.key && o.index === n.index);
  match((o, n) => o.key === n.key);
  let flying = 0;
  const box = board.el.getBoundingClientRect();
  const middle = box.left + box.width / 2;
  for (const n of now) {
    let old = from.get(n);
    const rect = n.el.getBoundingClientRect();
    if (override && !old && n.text === override.text && n.key === override.to && n.el.dataset.top) {
      old = { key: null, rect: override.rect };
      const was = (unused.get(n.text) || []).find((o) => !o.used);
      if (was) was.used = true;
    }
    if (!old) {
      const free = (unused.get(n.text) || []).filter((o) => !o.used);
      old = free.sort((a, b) => far(a.rect, rect) - far(b.rect, rect))[0];
      if (old) old.used = true;
    }
    if (!old) continue; // a card that was not on the screen (under a foundation's top)
    const dx = old.rect.left - rect.left;
    const dy = old.rect.top - rect.top;
    if (Math.abs(dx) + Math.abs(dy) < 1.5) continue;
    const round = old.key === n.key && old.index !== n.index && (n.el.dataset.top ? old.index === 0 : n.index === 0 && old.last);
    // (round the side towards the board's middle: never out past the screen's edge)
    const inward = rect.left + rect.width / 2 > middle ? -1 : 1;
    fly(n.el, n.zone, dx, dy, round ? SHUFFLE_MS : old.key === n.key ? MOVE_MS : MOVE_MS + 30, round ? inward * rect.width * 0.9 : 0);
    flying += 1;
  }
  return flying;
}

function far(a, b) {
  return Math.hypot(a.left - b.left, a.top - b.top);
}

/** Fly ``el`` from (dx, dy) off its place to its place, above the other zones; ``aside``:
 * how far out to the side it goes on the way (a shuffle's card going round its pile). */
function fly(el, zone, dx, dy, ms, aside = 0, delay = 0) {
  const frames = aside
    ? [
        { transform: `translate(${dx}px, ${dy}px)` },
        { transform: `translate(${dx / 2 + aside}px, ${dy / 2}px) rotate(8deg)`, offset: 0.5 },
        { transform: "none" },
      ]
    : [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }];
  lift(zone, el.animate(frames, { duration: ms, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards", id: FLY }));
}

/** Keep ``zone`` above its neighbours while ``animation`` runs. */
function lift(zone, animation) {
  zone.dataset.flying = String(Number(zone.dataset.flying || 0) + 1);
  const done = () => {
    const left = Number(zone.dataset.flying || 1) - 1;
    if (left > 0) zone.dataset.flying = String(left);
    else delete zone.dataset.flying;
  };
  animation.addEventListener("finish", done);
  animation.addEventListener("cancel", done);
}

/** The deal: every card flies out from the foundations in the middle to its pile, pile by
 * pile round the crescent. */
export function deal(board) {
  if (still()) return 0;
  // (the foundations, or while they are not laid out yet the board: never the page's corner)
  const middle = [board.el.querySelector(".foundations"), board.el]
    .map((el) => el?.getBoundingClientRect())
    .find((r) => r && r.width > 0 && r.height > 0);
  if (!middle) return 0;
  const cx = middle.left + middle.width / 2;
  const cy = middle.top + middle.height / 2;
  let n = 0;
  const depth = Math.max(...board.piles.map((p) => p.children.length));
  for (let j = 0; j < depth; j += 1) {
    board.piles.forEach((pile) => {
      const c = pile.querySelectorAll(".card")[j];
      if (!c) return;
      const r = c.getBoundingClientRect();
      fly(c, pile, cx - r.left - r.width / 2, cy - r.top - r.height / 2, DEAL_MS, 0, n * DEAL_STAGGER_MS);
      n += 1;
    });
  }
  return n;
}
