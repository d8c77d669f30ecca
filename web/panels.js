// Pieces shared by the race and spectate views: the players' progress and the ranking.

import { formatMs, h } from "./dom.js";

export const TOTAL = 104;

/** A place as an ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st, 111th. */
export function ordinal(n) {
  const teen = Math.floor(n / 10) % 10 === 1;
  const suffix = teen ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

/** A count and its noun, singular for one: "1 move", "3 moves", "1 shuffle left" with
 * ``many`` "shuffles left". */
export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** A player's status in words: finished time, won, stuck, resigned or racing. */
export function statusText(p) {
  if (finished(p)) return `finished ${formatMs(p.finished_ms)}`;
  if (p.won) return "won";
  if (p.resigned) return "resigned";
  if (p.stuck) return "stuck";
  return "";
}

function statusKey(p) {
  if (finished(p)) return "finished";
  if (p.resigned) return "resigned";
  if (p.stuck) return "stuck";
  return "racing";
}

/** Whether ``seat`` is known to have no open connection: ``presence`` is the room's last
 * `presence` message (null until one came); this page's own seat is always here. */
export function isAway(presence, seat, me = null) {
  return !!presence && seat !== me && !presence.here.includes(seat);
}

/** How long (ms, by the server's clock ``now``) until a player who went away has been gone
 * long enough for the others to act without them (the server's rule: a reload is not
 * away): take the host's place, or end the race without them; 0 once gone, null while
 * ``seat`` is here or nothing is known. */
export const HOST_AWAY_MS = 15000;
export function awayIn(presence, seat, me, now) {
  if (!presence || !seat || !isAway(presence, seat, me)) return null;
  const since = presence.away_since?.[seat];
  return since === undefined ? 0 : Math.max(0, since + HOST_AWAY_MS - now);
}

/** The "away" tag of a player with no open connection (closed tab, lost network). */
export function awayTag(presence, seat, me = null) {
  return isAway(presence, seat, me) ? h("span", { class: "tag away", "data-testid": "away", title: "not connected" }, "away") : null;
}

/** "3 watching", or nothing while nobody watches. */
export function watchingLine(presence) {
  if (!presence || !presence.watching) return null;
  return h("p", { class: "muted watching", "data-testid": "watching" }, `${presence.watching} watching`);
}

/** Whether ``p`` (a player entry or a state) has finished: it has a finish time. */
export function finished(p) {
  return p.finished_ms !== null && p.finished_ms !== undefined;
}

/** A finisher's place among ``players``: finishers rank by time, then by fewer moves. */
function finishPlace(players, p) {
  const ahead = players.filter((q) => q.seat !== p.seat && finished(q) && (q.finished_ms < p.finished_ms || (q.finished_ms === p.finished_ms && q.moves < p.moves)));
  return ahead.length + 1;
}

/** What changed in the race between two lists of the players' entries, in words ("Bob
 * finished in 0:34.4 (1st).", "Cleo resigned.", "Dan is stuck."), for the players other
 * than ``me`` (whose own banners say it); "" when nothing did. Never each move: only a
 * player's finish, resignation or getting stuck. ``before`` null: nothing was known. */
export function raceNews(before, after, me = null) {
  if (!before) return "";
  const was = new Map(before.map((p) => [p.seat, p]));
  const lines = [];
  for (const p of after) {
    const old = was.get(p.seat);
    if (p.seat === me || !old) continue; // a newcomer is no news of the race
    if (finished(p) && !finished(old)) lines.push(`${p.name} finished in ${formatMs(p.finished_ms)} (${ordinal(finishPlace(after, p))}).`);
    else if (p.resigned && !old.resigned) lines.push(`${p.name} resigned.`);
    else if (p.stuck && !old.stuck && !finished(p) && !p.resigned) lines.push(`${p.name} is stuck.`);
  }
  return lines.join(" ");
}

/** The end of a race in words, for a spectator, when ``room`` is over and was not before
 * (``was``: the phase the page showed): "Race over: Bob placed 1st of 4."; "" otherwise.
 * (A player's page says "Race over. You placed 2nd of 4." in its live banner.) */
export function overNews(was, room) {
  if (room?.phase !== "over" || (was !== "racing" && was !== "countdown")) return "";
  const ranking = room.ranking || [];
  const head = endedByTime(room) ? "Time is up: race over" : "Race over";
  const first = ranking.find((r) => r.place === 1);
  return first ? `${head}: ${first.name} placed 1st of ${ranking.length}.` : `${head}.`;
}

/** Whether a race that is over ended because its time limit ran out. */
export function endedByTime(room) {
  return !!(room.time_limit && room.start_at && room.ended_at >= room.start_at + room.time_limit * 1000);
}

/** What changed between two `presence` messages, in words ("Bob went away.", "Bob is
 * back."), for the players other than ``me``; "" when nothing did or nothing was known.
 * ``seen``: the seats ever here, so that a newcomer is not "back". */
export function presenceNews(before, after, players, me = null, seen = new Set()) {
  if (!before || !after || before === after) return "";
  const lines = [];
  for (const p of players) {
    if (p.seat === me) continue;
    const was = before.here.includes(p.seat);
    const is = after.here.includes(p.seat);
    if (was && !is) lines.push(`${p.name} went away.`);
    else if (!was && is && seen.has(p.seat)) lines.push(`${p.name} is back.`); // not a newcomer
  }
  return lines.join(" ");
}

/** Keep the room's newer `presence` message: they may arrive out of order across servers,
 * and the same one again (each server repeats it now and then): ``current`` is kept then. */
export function newerPresence(current, m) {
  return !current || m.version > current.version ? { version: m.version, here: m.here, watching: m.watching, away_since: m.away_since || {} } : current;
}

/** One row per player: name (as text), a bar of cards on the foundations out of 104, moves;
 * "away" beside a player with no open connection (from ``presence``). */
export function progressList(players, { me = null, host = null, presence = null } = {}) {
  return h(
    "ol",
    { class: "progress-list", "data-testid": "progress-list" },
    players.map((p) => {
      const pct = Math.round((100 * p.cards) / TOTAL);
      return h(
        "li",
        {
          class: `progress-row${p.seat === me ? " me" : ""}`,
          "data-testid": `progress-${p.seat}`,
          "data-seat": p.seat,
          "data-cards": p.cards,
          "data-moves": p.moves,
          "data-status": statusKey(p),
        },
        h(
          "div",
          { class: "who" },
          h("span", { class: "name", dir: "auto", "data-testid": "player-name" }, p.name),
          p.seat === me ? h("span", { class: "tag" }, "you") : null,
          p.seat === host ? h("span", { class: "tag" }, "host") : null,
          awayTag(presence, p.seat, me),
        ),
        h(
          "div",
          {
            class: "bar",
            role: "progressbar",
            "aria-valuemin": "0",
            "aria-valuemax": String(TOTAL),
            "aria-valuenow": String(p.cards),
            "aria-label": `${p.name}: ${p.cards} of ${TOTAL} cards home`,
          },
          h("div", { class: "fill", style: { width: `${pct}%` } }),
        ),
        h(
          "div",
          { class: "stats" },
          h("span", { "data-testid": "cards" }, `${p.cards}/${TOTAL}`),
          h("span", { "data-testid": "moves" }, count(p.moves, "move")),
          h("span", { class: `status status-${statusKey(p)}`, "data-testid": "status" }, statusText(p)),
        ),
      );
    }),
  );
}

/** The ranking table: place, name, finish time (or cards home), moves. */
export function rankingTable(ranking, { me = null } = {}) {
  return h(
    "table",
    { class: "ranking", "data-testid": "ranking" },
    h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Result"), h("th", {}, "Moves"))),
    h(
      "tbody",
      {},
      ranking.map((r) =>
        h(
          "tr",
          {
            "data-testid": "ranking-row",
            "data-place": r.place,
            "data-seat": r.seat,
            class: r.seat === me ? "me" : null,
          },
          h("td", { class: "place" }, `${r.place}.`),
          h("td", { class: "name" }, r.name, r.seat === me ? h("span", { class: "tag" }, "you") : null),
          h(
            "td",
            { "data-testid": "result" },
            finished(r)
              ? formatMs(r.finished_ms)
              : [h("span", { class: "nowrap" }, `${r.cards}/${TOTAL} cards`), r.resigned ? " (resigned)" : ""],
          ),
          h("td", {}, String(r.moves)),
        ),
      ),
    ),
  );
}

/** Merge a "player" update into a snapshot's player list, only when it is not older. */
export function applyPlayer(players, update) {
  const i = players.findIndex((p) => p.seat === update.seat);
  if (i < 0) return false;
  if ((update.version ?? 0) < (players[i].version ?? 0)) return false;
  players[i] = { ...players[i], ...update };
  return true;
}


/**
 * A player's entry as the others see it, from that player's own `state`: the server sends
 * the mover no `player` broadcast of its own move, since its `state` reply says the same.
 */
export function playerFromState(state) {
  const { seat, name, version, cards, moves, shuffles_left, won, stuck, resigned, finished_ms, board } = state;
  return { seat, name, version, cards, moves, shuffles_left, won, stuck, resigned, finished_ms, board };
}
