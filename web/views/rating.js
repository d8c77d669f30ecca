// /me's rating: the rating with its history as a small chart (inline SVG), and the friends'
// board (everyone this device has raced: their rating, the races together, the wins each way,
// the last race).

import { h } from "../dom.js";
import { chartOf } from "../model/chart.js";
import { relativeText, t } from "../i18n.js";
import { changeChip, ratingChip, ratingText } from "../ratings.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 120;
const LEFT = 36; // the gridlines' labels


function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** The rating section of /me (``rating``: /api/me's). */
export function ratingPanel(rating) {
  const head = h("div", { class: "rating-head" }, h("h2", {}, t("me.rating.title")), ratingChip(rating), h("a", { href: "#friends", class: "small", "data-testid": "friends-link" }, t("me.friends.title")));
  if (!rating.history.length) return h("section", { class: "card-panel me-rating", "data-testid": "me-rating" }, head, h("p", { class: "muted" }, t("me.rating.unrated"), " ", t("me.rating.scale")));
  const last = rating.history.at(-1);
  return h(
    "section",
    { class: "card-panel me-rating", "data-testid": "me-rating", "data-rating": rating.rating },
    head,
    h("p", { class: "muted small" }, t("me.rating.last"), " ", changeChip(last), rating.provisional ? ` · ${t("me.rating.provisional")}` : null),
    chart(rating),
  );
}

function chart(rating) {
  const c = chartOf(rating.history, { width: WIDTH, height: HEIGHT, left: LEFT });
  const label = t("me.rating.chart", { n: rating.history.length, first: 1500, last: ratingText(rating) });
  const grid = c.grid.map((g) => [svg("line", { x1: LEFT - 4, x2: WIDTH, y1: g.y, y2: g.y, class: "grid" }), svg("text", { x: LEFT - 8, y: g.y + 3, "text-anchor": "end", class: "grid-label" }, String(g.rating))]);
  const line = svg("polyline", { points: c.points.map((p) => p.join(",")).join(" "), class: "line" });
  const dots = c.points.slice(1).map(([x, y], i) => svg("circle", { cx: x, cy: y, r: 3, class: rating.history[i].change >= 0 ? "dot up" : "dot down" }, svg("title", {}, `${rating.history[i].rating} (${rating.history[i].change >= 0 ? "+" : ""}${rating.history[i].change})`)));
  return svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "rating-chart", role: "img", "aria-label": label, "data-testid": "rating-chart", "data-points": c.points.length }, ...grid.flat(), line, ...dots);
}

/** The friends' board (``board``: /api/me/friends), this device among its friends. */
export function friendsPanel(board) {
  const section = { class: "card-panel me-friends", id: "friends", "data-testid": "friends-board" };
  if (!board.friends.length) return h("section", section, h("h2", {}, t("me.friends.title")), h("p", { class: "muted", "data-testid": "friends-empty" }, t("me.friends.empty")));
  const rows = [...board.friends.map((f) => ({ ...f, me: false })), { ...board.me, me: true, name: board.me.name || t("me.friends.you") }].sort((a, b) => b.rating - a.rating || Number(a.me) - Number(b.me));
  const row = (f, i) =>
    h(
      "tr",
      { "data-testid": f.me ? "friends-me" : "friend", class: f.me ? "me" : null },
      h("td", { class: "place" }, `${i + 1}.`),
      h("td", { class: "name" }, h("span", { dir: "auto" }, f.name), f.me ? h("span", { class: "tag" }, t("me.friends.you")) : null, h("span", { class: "rating-line" }, ratingChip(f))),
      h("td", {}, f.me ? "" : String(f.together)),
      h("td", { class: "nowrap", title: t("me.friends.recordTitle") }, f.me ? "" : [h("span", { "data-testid": "friend-wins" }, String(f.wins)), "–", h("span", { "data-testid": "friend-losses" }, String(f.losses))]),
      h("td", { class: "last", "data-testid": "friend-last", "data-last": f.me ? null : f.last }, f.me ? "" : relativeText(f.last)),
    );
  const heads = ["#", `${t("me.friends.player")} · ${t("rating.column")}`, t("me.friends.races"), t("me.friends.record"), t("me.friends.last")];
  const head = h("tr", {}, heads.map((text) => h("th", {}, text)));
  return h("section", section, h("h2", {}, t("me.friends.title")), h("div", { class: "table-scroll" }, h("table", { class: "ranking friends" }, h("thead", {}, head), h("tbody", {}, rows.map(row)))));
}
