// /me's rating: the rating with its history as a small chart (inline SVG), and the friends'
// board (everyone this device has raced: their rating, the races together, the wins each way,
// the last race).

import { h } from "../dom.js";
import { chartOf } from "../model/chart.js";
import { count } from "../model/words.js";
import { changeChip, ratingChip, ratingText } from "../ratings.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 120;
const LEFT = 36; // the gridlines' labels

const WORDS = {
  title: "Rating",
  unrated: "No rated race yet. A race against at least one friend counts; a solo race, a daily challenge or ghosts do not.",
  provisional: "The ? marks a provisional rating: your first 10 rated races settle it.",
  scale: "Everyone starts at 1500.",
  chart: (first, last, n) => `Your rating over ${count(n, "rated race")}: from ${first} to ${last}.`,
  last: "Last race",
  friendsTitle: "Friends’ board",
  friendsLink: "Friends’ board",
  noFriends: "Race a friend and they show here, with their rating and your wins against each other.",
  head: ["#", "Player", "Rating", "Races", "Won–lost", "Last"],
  record: "your wins and losses against them",
  you: "you",
};

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** The rating section of /me (``rating``: /api/me's). */
export function ratingPanel(rating) {
  const head = h("div", { class: "rating-head" }, h("h2", {}, WORDS.title), ratingChip(rating), h("a", { href: "#friends", class: "small", "data-testid": "friends-link" }, WORDS.friendsLink));
  if (!rating.history.length) return h("section", { class: "card-panel me-rating", "data-testid": "me-rating" }, head, h("p", { class: "muted" }, WORDS.unrated, " ", WORDS.scale));
  const last = rating.history.at(-1);
  return h(
    "section",
    { class: "card-panel me-rating", "data-testid": "me-rating", "data-rating": rating.rating },
    head,
    h("p", { class: "muted small" }, WORDS.last, " ", changeChip(last), rating.provisional ? ` · ${WORDS.provisional}` : null),
    chart(rating),
  );
}

function chart(rating) {
  const c = chartOf(rating.history, { width: WIDTH, height: HEIGHT, left: LEFT });
  const label = WORDS.chart(1500, ratingText(rating), rating.history.length);
  const grid = c.grid.map((g) => [svg("line", { x1: LEFT - 4, x2: WIDTH, y1: g.y, y2: g.y, class: "grid" }), svg("text", { x: LEFT - 8, y: g.y + 3, "text-anchor": "end", class: "grid-label" }, String(g.rating))]);
  const line = svg("polyline", { points: c.points.map((p) => p.join(",")).join(" "), class: "line" });
  const dots = c.points.slice(1).map(([x, y], i) => svg("circle", { cx: x, cy: y, r: 3, class: rating.history[i].change >= 0 ? "dot up" : "dot down" }, svg("title", {}, `${rating.history[i].rating} (${rating.history[i].change >= 0 ? "+" : ""}${rating.history[i].change})`)));
  return svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "rating-chart", role: "img", "aria-label": label, "data-testid": "rating-chart", "data-points": c.points.length }, ...grid.flat(), line, ...dots);
}

/** The friends' board (``board``: /api/me/friends), this device among its friends. */
export function friendsPanel(board) {
  const section = { class: "card-panel me-friends", id: "friends", "data-testid": "friends-board" };
  if (!board.friends.length) return h("section", section, h("h2", {}, WORDS.friendsTitle), h("p", { class: "muted", "data-testid": "friends-empty" }, WORDS.noFriends));
  const rows = [...board.friends.map((f) => ({ ...f, me: false })), { ...board.me, me: true, name: board.me.name || WORDS.you }].sort((a, b) => b.rating - a.rating || Number(a.me) - Number(b.me));
  const date = (ms) => (ms ? new Date(ms).toLocaleDateString(undefined, { month: "short", day: "numeric" }) : "");
  const row = (f, i) =>
    h(
      "tr",
      { "data-testid": f.me ? "friends-me" : "friend", class: f.me ? "me" : null },
      h("td", { class: "place" }, `${i + 1}.`),
      h("td", { class: "name" }, h("span", { dir: "auto" }, f.name), f.me ? h("span", { class: "tag" }, WORDS.you) : null),
      h("td", {}, ratingChip(f)),
      h("td", {}, f.me ? "" : String(f.together)),
      h("td", { class: "nowrap", title: WORDS.record }, f.me ? "" : [h("span", { "data-testid": "friend-wins" }, String(f.wins)), "–", h("span", { "data-testid": "friend-losses" }, String(f.losses))]),
      h("td", { class: "nowrap", "data-testid": "friend-last", "data-last": f.me ? null : f.last }, f.me ? "" : date(f.last)),
    );
  const head = h("tr", {}, WORDS.head.map((t) => h("th", {}, t)));
  return h("section", section, h("h2", {}, WORDS.friendsTitle), h("div", { class: "table-scroll" }, h("table", { class: "ranking friends" }, h("thead", {}, head), h("tbody", {}, rows.map(row)))));
}
