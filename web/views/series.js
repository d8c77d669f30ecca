// A room over several rounds, as the server tells it (room.series): the series' title, its
// standings, the rematch offer and its answers. The page decides nothing here: who won, the
// points, whether the offer opens the round are all the server's.

import { h } from "../dom.js";
import { dateTimeText, listText, t } from "../i18n.js";

/** A player's name by seat, from the room's players or the series' standings. */
function nameOf(room, seat) {
  return room.players.find((p) => p.seat === seat)?.name ?? room.series?.standings.find((r) => r.seat === seat)?.name ?? seat;
}

/** "Match, first to 2 wins · round 3", "Arena, round 2 of 5", "Series, 3 rounds". */
export function seriesTitle(series) {
  if (series.format === "match") return `${t("series.match", { n: series.target })} · ${t("series.round", { n: series.round })}`;
  if (series.format === "arena") return t("series.arena", { n: Math.min(series.round, series.rounds), of: series.rounds });
  return t("series.open", { n: series.rounds_over });
}

/** The series' winners in words, once it is complete ("Ann wins the match!"), else null. */
export function seriesWinner(room, me) {
  const series = room.series;
  if (!series?.complete || !series.winners.length || series.format === "open") return null;
  const what = series.format === "match" ? "match" : "arena";
  if (series.winners.length > 1) return t(`series.${what}Shared`, { names: listText(series.winners.map((s) => nameOf(room, s))) });
  return series.winners[0] === me ? t(`series.${what}WonYou`) : t(`series.${what}Won`, { name: nameOf(room, series.winners[0]) });
}

/** The standings: place, player, wins or points (an arena's, with the last round's), rounds. */
export function standingsTable(series, { me = null } = {}) {
  const arena = series.format === "arena";
  const last = new Map((series.last ?? []).map((r) => [r.seat, r.points]));
  const head = h("tr", {}, h("th", {}, "#"), h("th", {}, t("series.player")), h("th", {}, arena ? t("series.points") : t("series.wins")), h("th", {}, t("series.rounds")));
  const row = (r) =>
    h(
      "tr",
      { "data-testid": "standing", "data-seat": r.seat, "data-place": r.place, "data-wins": r.wins, "data-points": r.points, class: r.seat === me ? "me" : null },
      h("td", { class: "place" }, `${r.place}.`),
      h("td", { class: "name" }, h("span", { dir: "auto" }, r.name), r.seat === me ? h("span", { class: "tag" }, t("series.you")) : null),
      h("td", { class: "score" }, arena ? String(r.points) : String(r.wins), arena && last.has(r.seat) ? h("span", { class: "muted small gain" }, ` +${last.get(r.seat)}`) : null),
      h("td", {}, String(r.rounds)),
    );
  return h("table", { class: "ranking standings", "data-testid": "standings" }, h("thead", {}, head), h("tbody", {}, series.standings.map(row)));
}

/** The series block: its title, the standings once a round is over, the winner, who hosts. */
export function seriesPanel(room, { me = null } = {}) {
  const series = room.series;
  if (!series) return null;
  const open = series.format === "open";
  if (open && series.rounds_over < 1) return hostLine(room, me);
  const winner = seriesWinner(room, me);
  const points = series.format === "arena" ? h("p", { class: "muted small", "data-testid": "arena-points" }, t("series.pointsTable", { points: series.points.join(" / ") })) : null;
  return h(
    "section",
    { class: "series-panel", "data-testid": "series", "data-format": series.format, "data-rounds": series.rounds_over, "data-complete": series.complete ? "true" : "false" },
    h("h3", { "data-testid": "series-title" }, seriesTitle(series)),
    series.rounds_over ? standingsTable(series, { me }) : null,
    points,
    winner ? h("p", { class: "series-winner", "data-testid": "series-winner" }, winner) : null,
    hostLine(room, me),
  );
}

/** The series' first three, for the podium of its end. */
export function seriesPodium(series) {
  return series.standings.filter((r) => r.place <= 3);
}

/** A player's total in the series, in words: "2 wins", "22 points". */
export function seriesScore(series, r) {
  return series.format === "arena" ? t("series.pointsShort", { n: r.points }) : t("count.wins", { n: r.wins });
}

/** Who hosts the room: only leaving hands the role on. */
export function hostLine(room, me) {
  if (!room.host) return null;
  return h("p", { class: "muted small", "data-testid": "host-line" }, room.host === me ? t("series.youHost") : t("series.hosts", { name: nameOf(room, room.host) }));
}

/** What the offer's terms are, in words, from the proposer's point of view. */
function offerWhat(room, offer) {
  if (room.series.format === "arena" && !room.series.complete) return "next";
  return offer.ghosts ? "ghosts" : offer.deal !== null && offer.deal !== undefined ? "same" : "new";
}

/**
 * At race over: the offer standing (accept, decline, or withdraw one's own), who declined the
 * last one, or the buttons that offer the next round. ``act``: rematch, rematchSame(deal),
 * rematchGhosts, answer(accept); ``ghostsReady``: this round's games are on the record;
 * ``away(seat)``: whether a player has no connection open.
 */
export function offerPanel(room, { me, act, ghostsReady = false, away = () => false }) {
  const series = room.series;
  if (!series) return null;
  const offer = series.offer;
  const parts = [];
  if (offer) {
    const mine = offer.yes.includes(me);
    const waiting = room.players.filter((p) => !p.left && !offer.yes.includes(p.seat) && p.seat !== me).map((p) => p);
    const what = offerWhat(room, offer);
    parts.push(h("p", { class: "offer-text", "data-testid": "offer-text" }, offer.by === me ? t(`offer.mine.${what}`) : t(`offer.from.${what}`, { name: nameOf(room, offer.by) })));
    if (waiting.length) parts.push(h("p", { class: "muted small", "data-testid": "offer-waiting" }, t("offer.waiting", { names: listText(waiting.map((p) => p.name)) })));
    if (mine) {
      // Everyone it waited for has gone (or left the room): sent again, it opens without them.
      if (waiting.every((p) => away(p.seat))) parts.push(h("button", { type: "button", class: "primary", "data-testid": "offer-go", onclick: () => again(act, offer) }, t("offer.startNow")));
      parts.push(h("button", { type: "button", class: "small", "data-testid": "offer-withdraw", onclick: () => act.answer(false) }, offer.by === me ? t("offer.withdraw") : t("offer.changeMind")));
    } else {
      parts.push(
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: "primary", "data-testid": "offer-accept", onclick: () => act.answer(true) }, t("offer.accept")),
          h("button", { type: "button", "data-testid": "offer-decline", onclick: () => act.answer(false) }, t("offer.decline")),
        ),
      );
    }
    return h("div", { class: "offer card-inset", "data-testid": "offer", "data-by": offer.by, role: "group", "aria-label": t("offer.label") }, parts);
  }
  if (series.declined) {
    const who = series.declined === me ? t("offer.youDeclined") : t("offer.declined", { name: nameOf(room, series.declined) });
    parts.push(h("p", { class: "muted small", "data-testid": "offer-declined" }, who));
  }
  const arenaGoesOn = series.format === "arena" && !series.complete;
  if (arenaGoesOn) {
    parts.push(h("button", { type: "button", class: "primary", "data-testid": "rematch", onclick: act.rematch }, t("offer.next", { n: series.round + 1, of: series.rounds })));
    return h("div", { class: "offer-buttons" }, parts);
  }
  const label = series.complete ? t(series.format === "match" ? "offer.newMatch" : "offer.newArena") : t("offer.new");
  parts.push(h("button", { type: "button", class: room.host === me ? "primary" : null, "data-testid": "rematch", onclick: act.rematch }, label));
  if (typeof room.deal === "number" && act.rematchSame && series.format !== "arena") parts.push(h("button", { type: "button", "data-testid": "rematch-same", onclick: () => act.rematchSame(room.deal) }, t("offer.same")));
  if (ghostsReady && act.rematchGhosts && series.format === "open") parts.push(h("button", { type: "button", "data-testid": "rematch-ghosts", onclick: act.rematchGhosts }, t("offer.ghosts")));
  return h("div", { class: "offer-buttons" }, parts);
}

/** News of the offer between two states, for a toast (on a phone the offer is below the
 * board): an offer made by someone else, or withdrawn by someone's no; else null. */
export function offerNews(before, after) {
  const was = before.room?.series, now = after.room?.series;
  if (!now || !after.seat || before.room?.round !== after.room?.round) return null;
  const offer = now.offer;
  if (offer && offer.by !== after.seat && (!was?.offer || was.offer.by !== offer.by)) return t(`offer.from.${offerWhat(after.room, offer)}`, { name: nameOf(after.room, offer.by) });
  if (!offer && was?.offer && now.declined && now.declined !== after.seat) return t("offer.declined", { name: nameOf(after.room, now.declined) });
  return null;
}

/** The offer sent again on its own terms: a yes that opens it without those who went. */
function again(act, offer) {
  if (offer.ghosts) act.rematchGhosts();
  else if (offer.deal !== null && offer.deal !== undefined) act.rematchSame(offer.deal);
  else act.rematch();
}

/** On /me: the matches and arenas this device played (``/api/me``'s ``series``), newest
 * first: what it was, when, the player's place, and everyone's total. */
export function meSeries(list) {
  if (!list?.length) return null;
  const item = (r) => {
    const what = r.format === "match" ? t("series.match", { n: r.target }) : t("me.seriesArena", { n: r.rounds });
    const mine = r.standings.find((s) => s.seat === r.me);
    const place = mine ? t("me.seriesPlace", { place: t("ordinal", { n: mine.place }), n: r.standings.length }) : "";
    const score = (s) => (r.format === "arena" ? t("series.pointsShort", { n: s.points }) : t("count.wins", { n: s.wins }));
    const totals = r.standings.map((s, i) => [i ? " · " : "", h("span", { class: "name", dir: "auto" }, s.name), ` ${score(s)}`]);
    return h(
      "li",
      { "data-testid": "me-series", "data-room": r.room, "data-format": r.format },
      h("strong", {}, what),
      ` · ${dateTimeText(r.ended)}${place ? ` · ${place}` : ""}`,
      h("br"),
      h("span", { class: "muted small" }, totals),
    );
  };
  return h("section", { class: "card-panel", "data-testid": "me-series-list" }, h("h2", {}, t("me.series")), h("ul", { class: "me-rivals" }, list.map(item)));
}
