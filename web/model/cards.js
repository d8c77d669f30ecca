// Cards and moves as the server writes them: cards "TC" (rank A23456789TJQK + suit SHDC),
// locations "p0".."p15" and "uS uH uD uC" (up from the Ace) / "dS dH dD dC" (down from the King),
// moves "p3>uH", "p3>p12", "dH>p5", "shuffle". Nothing here knows the rules. The notation is
// the same in every language; a card's name and a move in words are the page's language's.

import { t } from "../i18n.js";

export const SUITS = {
  S: { symbol: "♠", name: "spades", red: false },
  H: { symbol: "♥", name: "hearts", red: true },
  D: { symbol: "♦", name: "diamonds", red: true },
  C: { symbol: "♣", name: "clubs", red: false },
};
export const SUIT_ORDER = ["S", "H", "D", "C"];
const RANK_TEXT = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const RANK_NAME = { A: "rank.A", J: "rank.J", Q: "rank.Q", K: "rank.K" }; // (keys of words)
// A picture card's emblem (a chess piece in the suit's colour): told apart at a glance.
const FACE_EMBLEM = { J: "♞", Q: "♛", K: "♚" };
export const RANKS = "A23456789TJQK";

export const HIDDEN = "??"; // a card face down: no board is shown before the race starts

/** Whether ``board`` is the server's board before the start (its cards face down). */
export function isHidden(board) {
  return !!board && board.piles.some((pile) => pile[0] === HIDDEN);
}

export function card(text) {
  if (text === HIDDEN) return { text, hidden: true, rank: "", suit: "", symbol: "", red: false, label: "", face: false, emblem: "", name: t("card.faceDown") };
  const rank = text[0];
  const suit = SUITS[text[1]];
  const rankText = RANK_TEXT[rank] || rank;
  return {
    text,
    rank,
    suit: text[1],
    symbol: suit.symbol,
    red: suit.red,
    label: rankText + suit.symbol,
    face: rank in FACE_EMBLEM,
    emblem: FACE_EMBLEM[rank] || suit.symbol, // what the middle of the card shows
    name: t("card.name", { rank: RANK_NAME[rank] ? t(RANK_NAME[rank]) : rankText, suit: t(`suit.${text[1]}`) }),
  };
}

/** A location: {kind: "pile", index, key: "p3"} or {kind: "foundation", key: "uH", up, suit}. */
export function location(key) {
  if (key[0] === "p") return { kind: "pile", index: Number(key.slice(1)), key };
  return { kind: "foundation", key, up: key[0] === "u", suit: key[1] };
}

export function parseMove(text) {
  if (text === "shuffle") return { text, shuffle: true };
  const [from, to] = text.split(">");
  return { text, shuffle: false, from: location(from), to: location(to) };
}

export function foundationLabel(key) {
  const suit = SUITS[key[1]];
  return t(key[0] === "u" ? "foundation.up" : "foundation.down", { suit: suit.symbol });
}

/** The card that moves in `move` on `board`, or null. */
export function movingCard(board, move) {
  if (move.shuffle) return null;
  if (move.from.kind === "pile") {
    const pile = board.piles[move.from.index];
    return pile && pile.length ? pile[pile.length - 1] : null;
  }
  return board.foundations[move.from.key]?.top ?? null;
}

/** A move in words for people: "7♥ to ♥ up", "7♥ onto 8♥", "Shuffle". */
export function describeMove(board, text) {
  const move = parseMove(text);
  if (move.shuffle) return t("move.shuffle");
  const moving = movingCard(board, move);
  const what = moving ? card(moving).label : move.from.key;
  if (move.to.kind === "foundation") return t(move.to.up ? "move.home" : "move.homeDown", { card: what, suit: SUITS[move.to.suit].symbol });
  const pile = board.piles[move.to.index];
  const onto = pile && pile.length ? card(pile[pile.length - 1]).label : t("move.pile", { n: move.to.index + 1 });
  return t("move.onto", { card: what, target: onto });
}

/**
 * The board after `move`, for showing a move at once while the server confirms it. This only
 * moves the card the player chose (or rotates the piles for a shuffle); the server alone
 * decides legality, and its reply replaces this preview.
 */
export function preview(board, text) {
  const next = {
    piles: board.piles.map((p) => p.slice()),
    foundations: Object.fromEntries(Object.entries(board.foundations).map(([k, f]) => [k, { ...f }])),
    shuffles_left: board.shuffles_left,
  };
  const move = parseMove(text);
  if (move.shuffle) {
    next.piles = board.piles.map((p) => (p.length > 1 ? [...p.slice(1), p[0]] : p.slice()));
    next.shuffles_left = Math.max(0, board.shuffles_left - 1);
    return next;
  }
  let moving;
  if (move.from.kind === "pile") {
    moving = next.piles[move.from.index].pop();
  } else {
    const f = next.foundations[move.from.key];
    moving = f.top;
    const r = RANKS.indexOf(f.top[0]) + (move.from.up ? -1 : 1);
    f.top = RANKS[r] + f.top[1];
    f.count -= 1;
  }
  if (moving === undefined) return board;
  if (move.to.kind === "pile") next.piles[move.to.index].push(moving);
  else {
    next.foundations[move.to.key].top = moving;
    next.foundations[move.to.key].count += 1;
  }
  return next;
}
