// Pieces shared by the pages: the players' progress, "away" tags, the ranking.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { replayPath } from "../model/replay.js";
import { ghostPace, paceKey } from "../model/ghosts.js";
import { isAway, isIdle } from "../model/select.js";
import { hintsNote, rankedAs } from "../model/hints.js";
import { count, finished, formatMs, isOut, statusKey, statusText, TOTAL } from "../model/words.js";
import { changeChip, ratingChip } from "../ratings.js";
import { analysisNote } from "../replays.js";

/** The "away" tag of a player with no open connection (closed tab, lost network); else the
 * "idle" tag of one the server says has not played for a while. */
export function awayTag(presence, seat, me = null) {
  if (isAway(presence, seat, me)) return h("span", { class: "tag away", "data-testid": "away", title: t("tag.awayTitle") }, t("tag.away"));
  return isIdle(presence, seat, me) ? h("span", { class: "tag away", "data-testid": "idle", title: t("tag.idleTitle") }, t("tag.idle")) : null;
}

/** "3 watching", or nothing while nobody watches. */
export function watchingLine(presence) {
  if (!presence || !presence.watching) return null;
  return h("p", { class: "muted watching", "data-testid": "watching" }, t("live.watching", { n: presence.watching }));
}

/** One row per player: name (as text), a bar of cards home out of 104, moves, status;
 * "away" beside a player with no open connection (from ``presence``); with ``votes``,
 * "asks to end" beside a player racing who asked to end the race; a ghost, a rival like any
 * other, with its pace against the player ``me`` (ahead or behind by cards, or seconds). */
export function progressList(players, { me = null, host = null, presence = null, votes = false } = {}) {
  const tag = (text) => h("span", { class: "tag" }, text);
  const mine = players.find((p) => p.seat === me && !p.ghost) ?? null;
  const row = (p) => {
    const status = statusKey(p);
    const bar = {
      class: "bar",
      role: "progressbar",
      "aria-valuemin": "0",
      "aria-valuemax": String(TOTAL),
      "aria-valuenow": String(p.cards),
      "aria-label": t("progress.label", { name: p.name, cards: p.cards, total: TOTAL }),
    };
    return h(
      "li",
      { class: `progress-row${p.seat === me ? " me" : ""}`, "data-testid": `progress-${p.seat}`, "data-seat": p.seat, "data-cards": p.cards, "data-moves": p.moves, "data-status": status },
      h("div", { class: "who" }, h("span", { class: "name", dir: "auto", "data-testid": "player-name" }, p.name), p.seat === me && tag(t("tag.you")), p.seat === host && tag(t("tag.host")), p.ghost && tag(t("tag.ghost")), votes && p.end_vote && !isOut(p) && h("span", { class: "tag vote", "data-testid": "asks-to-end" }, t("end.asksTag")), p.left ? tag(t("tag.left")) : p.ghost ? null : awayTag(presence, p.seat, me)),
      h("div", bar, h("div", { class: "fill", style: { width: `${Math.round((100 * p.cards) / TOTAL)}%` } })),
      h(
        "div",
        { class: "stats" },
        h("span", { "data-testid": "cards" }, `${p.cards}/${TOTAL}`),
        h("span", { "data-testid": "moves" }, count(p.moves, "count.moves")),
        p.hints ? h("span", { class: "hints", "data-testid": "hints" }, count(p.hints, "count.hints")) : null,
        h("span", { class: `status status-${status}`, "data-testid": "status" }, statusText(p)),
      ),
      p.ghost ? paceLine(p, mine) : null,
    );
  };
  return h("ol", { class: "progress-list", "data-testid": "progress-list" }, players.map(row));
}

/** A ghost's pace against the player (``mine``: the player's row), or nothing for a spectator. */
export function paceLine(g, mine) {
  const pace = ghostPace(g, mine);
  if (!pace) return null;
  const ahead = pace.ahead === null ? "level" : String(pace.ahead);
  return h("p", { class: `pace pace-${ahead}`, "data-testid": "pace", "data-ahead": ahead, "data-n": pace.n, "data-unit": pace.unit }, t(paceKey(pace), { n: pace.n }));
}

/** The ranking table: place, name, finish time (or cards home), moves; ``resultHref(row)``:
 * where a row's result links to (its replay), or null; ``ratings``: seat -> rating and its
 * change in this race (ratings.js), under each name (a side panel has no room for a column);
 * ``left``: the seats that have left the room, tagged so. */
export function rankingTable(ranking, { me = null, resultHref = null, ratings = null, left = null } = {}) {
  const linked = (r, content) => {
    const href = resultHref?.(r);
    return href ? h("a", { href, "data-testid": "result-replay", title: t("ranking.watch", { name: r.name }) }, content) : content;
  };
  const head = h("tr", {}, h("th", {}, "#"), h("th", {}, t("ranking.player")), h("th", {}, t("ranking.result")), h("th", {}, t("ranking.moves")));
  const rating = (r) => {
    const found = ratings?.get(r.seat);
    return found ? h("span", { class: "rating-line", "data-testid": "ranking-rating" }, ratingChip(found), " ", changeChip(found)) : null;
  };
  const row = (r) =>
    h(
      "tr",
      { "data-testid": "ranking-row", "data-place": r.place, "data-seat": r.seat, "data-finished": finished(r) ? "true" : "false", class: r.seat === me ? "me" : null },
      h("td", { class: "place" }, `${r.place}.`),
      h("td", { class: "name" }, r.name, r.alias ? h("span", { class: "alias muted small", "data-testid": "alias", title: t("ranking.alias") }, ` ${r.alias}`) : null, r.seat === me ? h("span", { class: "tag" }, t("tag.you")) : null, r.ghost ? h("span", { class: "tag" }, t("tag.ghost")) : null, left?.has(r.seat) ? h("span", { class: "tag" }, t("tag.left")) : null, rating(r)),
      h("td", { "data-testid": "result" }, linked(r, finished(r) ? formatMs(r.finished_ms) : [h("span", { class: "nowrap" }, t("ranking.cards", { cards: r.cards, total: TOTAL })), h("span", { class: "why", "data-testid": "unfinished" }, ` (${r.resigned ? statusText({ resigned: true }) : t("end.notFinished")})`)]), hintsCell(r)),
      h("td", {}, String(r.moves)),
    );
  return h("table", { class: "ranking", "data-testid": "ranking" }, h("thead", {}, head), h("tbody", {}, ranking.map(row)));
}

/** Beside a result, its hints: "+30 s, 2 hints" (ranked as the time with them), or nothing. */
function hintsCell(r) {
  const note = hintsNote(r);
  if (!note) return null;
  return h("span", { class: "hints-note", "data-testid": "result-hints", title: rankedAs(r) }, ` ${note}`);
}

/** Under the ranking, once the server has kept them (``replays``: seat -> record id): each
 * player's game to watch again, in ranking order, and the whole race on one timeline. */
export function replayLinks(ranking, replays, { me = null } = {}) {
  if (!replays?.size) return null;
  const links = ranking
    .filter((r) => replays.has(r.seat))
    .map((r) => {
      const label = r.seat === me ? t("replays.yours") : h("span", { class: "name", dir: "auto" }, r.name);
      const id = replays.get(r.seat);
      // The solver's view of the game, in a sentence, once the server has it.
      const note = r.ghost ? null : analysisNote(id, r.moves ?? 0);
      return h("li", {}, h("a", { href: replayPath([id]), "data-testid": "replay-link", "data-seat": r.seat }, "▶ ", label), note ? [" ", note] : null);
    });
  const all = replays.size > 1 ? h("a", { href: replayPath(ranking.filter((r) => replays.has(r.seat)).map((r) => replays.get(r.seat))), class: "button small", "data-testid": "race-replay" }, t("replays.race")) : null;
  return h("div", { class: "replay-list", "data-testid": "replay-list" }, h("h3", {}, t("replays.title")), h("ul", {}, links), all);
}
