// The daily page's parts: its head, the intro, the leaderboards, and an attempt's words.

import { fill, h, NAME_KEY, nameInput, store } from "../dom.js";
import { t } from "../i18n.js";
import { resultText, shareOrigin } from "../model/share.js";
import { count, finished, formatMs, tellApart } from "../model/words.js";
import { rankingTable } from "./ranking.js";

export const DIFFICULTIES = [
  ["easy", "Easy — 9 shuffles"],
  ["medium", "Medium — 6 shuffles"],
  ["hard", "Hard — 3 shuffles"],
];

/** A YYYY-MM-DD date in words ("Sat, 28 Nov 2026"). */
export function dateLabel(date) {
  try {
    const d = new Date(`${date}T00:00:00Z`);
    return d.toLocaleDateString(undefined, { timeZone: "UTC", weekday: "short", day: "numeric", month: "short", year: "numeric" });
  } catch {
    return date;
  }
}

/** The page's elements, drawn in ``root``. */
export function dailyLayout(root, { name, difficulty, onPlay, onDifficulty }) {
  const el = {};
  el.dateEl = h("span", { class: "daily-date", "data-testid": "daily-date" }, "today");
  el.nextEl = h("span", { class: "muted small", "data-testid": "next-deal" });
  el.nameInput = nameInput({ id: "daily-name", placeholder: "Your name", value: name || store.get(NAME_KEY) || "", "data-testid": "daily-name" });
  el.select = h(
    "select",
    { id: "daily-difficulty", "data-testid": "daily-difficulty", onchange: () => onDifficulty(el.select.value) },
    DIFFICULTIES.map(([value, label]) => h("option", { value, selected: value === difficulty }, label)),
  );
  el.playBtn = h("button", { type: "submit", class: "primary", "data-testid": "daily-play" }, "Play today’s deal");
  const form = h(
    "form",
    { class: "daily-form", "data-testid": "daily-form", onsubmit: onPlay },
    h("div", { class: "field" }, h("label", { for: "daily-name" }, "Name"), el.nameInput),
    h("div", { class: "field difficulty" }, h("label", { for: "daily-difficulty" }, "Difficulty"), el.select),
    el.playBtn,
  );
  el.standing = h("p", { class: "standing", "data-testid": "standing" });
  el.statusEl = h("p", { class: "daily-status muted small", "data-testid": "daily-status", "aria-live": "polite" });
  const title = h("div", { class: "daily-title" }, h("h1", {}, "Daily challenge"), el.dateEl, el.nextEl);
  const head = h("div", { class: "card-panel daily-head" }, title, form, el.standing, el.statusEl);
  el.main = h("div", { class: "daily-main", "data-testid": "daily-main" });
  el.todayEl = h("div", { "data-testid": "today-board", "data-state": "loading" }, h("p", { class: "muted" }, "Loading…"));
  el.yesterdayEl = h("div", { "data-testid": "yesterday-board", "data-state": "loading" }, h("p", { class: "muted" }, "Loading…"));
  el.todayTitle = h("h2", {}, "Today");
  el.yesterdayTitle = h("h2", {}, "Yesterday");
  const side = h("aside", { class: "side daily-side", "data-testid": "daily-side" }, el.todayTitle, el.todayEl, el.yesterdayTitle, el.yesterdayEl);
  el.pageEl = h("section", { class: "daily-page", "data-testid": "daily" }, head, h("div", { class: "daily-layout" }, el.main, side));
  fill(root, el.pageEl);
  return el;
}

/** Before an attempt (``note``: why the last one is gone). */
export function intro(note = null) {
  return h(
    "div",
    { class: "card-panel daily-intro", "data-testid": "daily-intro" },
    note ? h("p", { class: "error" }, note) : null,
    h("h2", {}, "One deal for everyone today"),
    h(
      "p",
      {},
      "Every player in the world gets the same deal, proven winnable. The clock starts with your first move and keeps running through restarts. Your first finish of the day is ranked; later attempts are practice.",
    ),
    h("p", { class: "muted" }, "Finish on consecutive days to build a streak. A new deal comes at midnight UTC."),
  );
}

/** A `leaderboard` (null: loading) in ``el``; ``me``: this player's id; ``replays``: each
 * time links to its game's replay (a day that is over: today's games stay unseen). */
export function drawBoard(el, title, board, { label, empty, me, replays = false }) {
  // The solver's line for the day's deal, its length: the mark beside every time below.
  const solver = board?.solver_moves ? h("span", { class: "muted small solver", "data-testid": "solver-moves", title: "The solver's line for this deal" }, ` · solver: ${board.solver_moves} moves`) : null;
  fill(title, label, solver);
  if (!board) {
    el.dataset.state = "loading";
    fill(el, h("p", { class: "muted" }, "Loading…"));
    return;
  }
  el.dataset.state = "ready";
  el.dataset.date = board.date;
  el.dataset.entries = board.entries.length;
  const resultHref = replays ? (r) => (r.room ? `/replay/room/${encodeURIComponent(r.room)}` : null) : null;
  const rows = tellApart(board.entries.map((e) => ({ place: e.rank, seat: e.player, name: e.name, finished_ms: e.time_ms, moves: e.moves, cards: 104, room: e.room })));
  const ranked = rows.length ? rankingTable(rows, { me, resultHref }) : h("p", { class: "muted", "data-testid": "board-empty" }, empty);
  const unverified = apartList(board.unverified ?? [], me, resultHref, { testid: "unverified", summary: (n) => `Not ranked: ${count(n, "result")} faster than a person plays`, why: (e) => e.unverified });
  const assisted = apartList(board.assisted ?? [], me, resultHref, { testid: "assisted", summary: (n) => t("daily.assisted", { n }), why: (e) => t("daily.wonWith", { hints: count(e.hints, "count.hints") }) });
  fill(el, ranked, assisted, unverified);
}

/** Results shown apart, never ranked: the unverified, each with why the server could not
 * take it for a person's play (too fast between moves, a long run of quick moves, or faster
 * than a floor), and the assisted, won with hints. */
function apartList(entries, me, resultHref, { testid, summary, why }) {
  if (!entries.length) return null;
  const item = (e) => {
    const href = resultHref?.(e);
    const time = formatMs(e.time_ms);
    return h(
      "li",
      { class: `unverified-entry${e.player === me ? " me" : ""}`, "data-testid": `${testid}-entry`, title: `Not ranked: ${why(e)}` },
      h("span", { class: "name", dir: "auto" }, e.name),
      e.alias ? h("span", { class: "alias", "data-testid": "alias" }, ` ${e.alias}`) : null,
      " ",
      href ? h("a", { href }, time) : h("span", {}, time),
      ` · ${count(e.moves, "move")}`,
      h("span", { class: "why" }, why(e)),
    );
  };
  return h("details", { class: "unverified", "data-testid": testid }, h("summary", {}, summary(entries.length)), h("ul", {}, tellApart(entries, (e) => e.player).map(item)));
}

/** The streak and my rank today (``mine``: my entry); once I am on today's board, ``race(room)``
 * races again the game of the leader (``leader``: the board's first entry) or my own. */
export function drawStanding(el, streak, mine, { leader = null, race = null } = {}) {
  const ghost = (testid, room, words) => h("button", { type: "button", class: "small", "data-testid": testid, onclick: () => race(room) }, words);
  const ghosts = mine && race ? [leader && leader.player !== mine.player ? ghost("race-leader", leader.room, `Race ${leader.name}’s ghost`) : null, ghost("race-best", mine.room, "Race your best")] : [];
  fill(
    el,
    h("span", { class: "stat-chip", "data-testid": "streak", "data-streak": String(streak) }, h("span", { class: "label" }, "Streak"), ` ${streak} day${streak === 1 ? "" : "s"}`),
    h(
      "span",
      { class: "stat-chip", "data-testid": "my-rank", "data-rank": mine?.rank ? String(mine.rank) : "", title: mine?.unverified ? `Not ranked: ${mine.unverified}` : null },
      h("span", { class: "label" }, "My rank"),
      mine?.unverified
        ? ` not ranked (too fast for a person) · ${formatMs(mine.time_ms)} · ${count(mine.moves, "move")}`
        : mine?.assisted
          ? ` ${t("daily.rankAssisted", { hints: count(mine.hints, "count.hints") })} · ${formatMs(mine.time_ms)} · ${count(mine.moves, "move")}`
          : mine
          ? ` #${mine.rank} · ${formatMs(mine.time_ms)} · ${count(mine.moves, "move")}`
          : " not ranked today yet",
    ),
    ghosts,
  );
}

/** An attempt's words for the room page; ``day()``: {info, today} (one started before
 * midnight UTC counts for its own day, and says so). It is given up, not resigned from. */
export function attemptWords(day) {
  const ofToday = () => !day().today || day().info.date === day().today;
  return {
    side: false,
    resign: { label: "Give up", sure: "Really give up?", title: "Give up this attempt (you may play again)" },
    banners(s) {
      const { info } = day();
      const mine = s.mine;
      let own = null;
      if (mine && finished(mine)) {
        const strong = ofToday() ? "You cleared today’s deal!" : `You cleared the deal of ${dateLabel(info.date)}!`;
        const standing = info.unverified ? ` · not ranked: ${info.unverified}` : mine.hints ? ` · ${t("daily.bannerAssisted", { hints: count(mine.hints, "count.hints") })}` : " · on the leaderboard";
        const text = ` Time ${formatMs(mine.finished_ms)} in ${count(mine.moves, "move")}${info.ranked ? standing : " · practice"}`;
        own = { testid: "won-banner", kind: "won", strong, text };
      } else if (mine?.resigned) {
        own = { testid: "resigned-banner", kind: "lost", text: "You gave up this attempt. Play again when you like." };
      } else if (mine?.stuck) {
        own = { testid: "stuck-banner", kind: "stuck", strong: "Stuck:", text: " no legal move and no shuffle left. Undo, restart or give up." };
      } else if (s.room && !s.room.start_at) {
        own = { testid: "clock-note", kind: "over", text: "The clock starts with your first move." };
      }
      return { own, over: null };
    },
    result(s) {
      const { info } = day();
      if (!s.mine || !finished(s.mine)) return null;
      const text = resultText(s.room, s.mine, { daily: { date: info.date, difficulty: info.difficulty } });
      return { text, url: `${shareOrigin(location, s.shareOrigin)}/daily` };
    },
    head(s) {
      const { info } = day();
      const today = ofToday();
      const note = info.ranked
        ? s.mine?.won
          ? s.mine.hints
            ? t("daily.noteAssisted")
            : `Ranked: your time is on ${today ? "today’s leaderboard" : `the leaderboard of ${dateLabel(info.date)}`}.`
          : t("daily.noteRankedHints")
        : `Practice: you have finished ${today ? "today" : "that day’s deal"} already, so this one is not ranked.`;
      const path = `/watch/${info.code}`;
      const kind = info.ranked ? "ranked" : "practice";
      return [
        h("h2", {}, info.difficulty[0].toUpperCase() + info.difficulty.slice(1), " · ", h("span", { class: "code", "data-testid": "room-code" }, info.code)),
        h("span", { class: `tag ${kind}`, "data-testid": "attempt-kind", "data-ranked": info.ranked ? "true" : "false" }, kind),
        h("p", { class: "muted small", "data-testid": "attempt-note" }, note),
        h("p", { class: "muted small watch-note" }, "Friends can watch live: ", h("a", { href: path, target: "_blank", rel: "noopener", "data-testid": "watch-link" }, `${location.host}${path}`)),
      ];
    },
  };
}
