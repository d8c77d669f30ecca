// The daily page's parts: its head, the intro, the leaderboards, and an attempt's words.

import { fill, h, NAME_KEY, nameInput, store } from "../dom.js";
import { dayText, lang, t } from "../i18n.js";
import { resultText, shareOrigin } from "../model/share.js";
import { count, difficultyText, finished, formatMs, paceText, sentence, tellApart } from "../model/words.js";
import { rankingTable } from "./ranking.js";

export const DIFFICULTIES = [
  ["easy", "daily.easy"],
  ["medium", "daily.medium"],
  ["hard", "daily.hard"],
];

/** A YYYY-MM-DD date in words, in the page's language ("Sat, 28 Nov 2026", "sáb, 28 nov 2026"). */
export function dateLabel(date) {
  try {
    const d = new Date(`${date}T00:00:00Z`);
    return d.toLocaleDateString(lang(), { timeZone: "UTC", weekday: "short", day: "numeric", month: "short", year: "numeric" });
  } catch {
    return dayText(date);
  }
}

/** The page's elements, drawn in ``root``. */
export function dailyLayout(root, { name, difficulty, onPlay, onDifficulty }) {
  const el = {};
  el.dateEl = h("span", { class: "daily-date", "data-testid": "daily-date" }, t("daily.today"));
  el.nextEl = h("span", { class: "muted small", "data-testid": "next-deal" });
  el.nameInput = nameInput({ id: "daily-name", placeholder: t("daily.namePlaceholder"), value: name || store.get(NAME_KEY) || "", "data-testid": "daily-name" });
  el.select = h(
    "select",
    { id: "daily-difficulty", "data-testid": "daily-difficulty", onchange: () => onDifficulty(el.select.value) },
    DIFFICULTIES.map(([value, label]) => h("option", { value, selected: value === difficulty }, t(label))),
  );
  el.playBtn = h("button", { type: "submit", class: "primary", "data-testid": "daily-play" }, t("daily.play"));
  const form = h(
    "form",
    { class: "daily-form", "data-testid": "daily-form", onsubmit: onPlay },
    h("div", { class: "field" }, h("label", { for: "daily-name" }, t("daily.name")), el.nameInput),
    h("div", { class: "field difficulty" }, h("label", { for: "daily-difficulty" }, t("home.difficulty")), el.select),
    el.playBtn,
  );
  el.standing = h("p", { class: "standing", "data-testid": "standing" });
  el.statusEl = h("p", { class: "daily-status muted small", "data-testid": "daily-status", "aria-live": "polite" });
  const title = h("div", { class: "daily-title" }, h("h1", {}, t("daily.h1")), el.dateEl, el.nextEl);
  const head = h("div", { class: "card-panel daily-head" }, title, form, el.standing, el.statusEl);
  el.main = h("div", { class: "daily-main", "data-testid": "daily-main" });
  el.todayEl = h("div", { "data-testid": "today-board", "data-state": "loading" }, h("p", { class: "muted" }, t("daily.loading")));
  el.yesterdayEl = h("div", { "data-testid": "yesterday-board", "data-state": "loading" }, h("p", { class: "muted" }, t("daily.loading")));
  el.todayTitle = h("h2", {}, t("daily.todayTitle"));
  el.yesterdayTitle = h("h2", {}, t("daily.yesterdayTitle"));
  const side = h("aside", { class: "side daily-side", "data-testid": "daily-side" }, el.todayTitle, el.todayEl, el.yesterdayTitle, el.yesterdayEl);
  el.pageEl = h("section", { class: "daily-page", "data-testid": "daily" }, head, h("div", { class: "daily-layout" }, el.main, side));
  fill(root, el.pageEl);
  return el;
}

/** The Play button (of dailyLayout's ``playBtn``, ``statusEl`` and ``pageEl``): dealing an
 * attempt (``starting``), waiting for a second press (``confirming``), over an attempt still
 * running (``active``) or after one (``attempt``). */
export function drawPlay({ playBtn, statusEl, pageEl }, { starting, confirming, active, attempt }) {
  let label = t("daily.play");
  if (starting) label = t("daily.dealing");
  else if (confirming) label = t("daily.startOver");
  else if (active) label = t("daily.newAttempt");
  else if (attempt) label = t("daily.again");
  playBtn.textContent = label;
  playBtn.disabled = starting;
  statusEl.textContent = starting ? t("daily.dealingNote") : "";
  playBtn.classList.toggle("confirm", confirming);
  pageEl.classList.toggle("playing", attempt);
}

/** Before an attempt (``note``: why the last one is gone). */
export function intro(note = null) {
  return h(
    "div",
    { class: "card-panel daily-intro", "data-testid": "daily-intro" },
    note ? h("p", { class: "error" }, note) : null,
    h("h2", {}, t("daily.introTitle")),
    h("p", {}, t("daily.intro")),
    h("p", { class: "muted" }, t("daily.streakNote")),
  );
}

/** A `leaderboard` (null: loading) in ``el``; ``me``: this player's id; ``replays``: each
 * time links to its game's replay (a day that is over: today's games stay unseen). */
export function drawBoard(el, title, board, { label, empty, me, replays = false }) {
  // The solver's line for the day's deal, its length: the mark beside every time below.
  const solver = board?.solver_moves ? h("span", { class: "muted small solver", "data-testid": "solver-moves", title: t("daily.solverTitle") }, t("daily.solver", { n: board.solver_moves })) : null;
  fill(title, label, solver);
  if (!board) {
    el.dataset.state = "loading";
    fill(el, h("p", { class: "muted" }, t("daily.loading")));
    return;
  }
  el.dataset.state = "ready";
  el.dataset.date = board.date;
  el.dataset.entries = board.entries.length;
  const resultHref = replays ? (r) => (r.room ? `/replay/room/${encodeURIComponent(r.room)}` : null) : null;
  const rows = tellApart(board.entries.map((e) => ({ place: e.rank, seat: e.player, name: e.name, finished_ms: e.time_ms, moves: e.moves, cards: 104, room: e.room })));
  const ranked = rows.length ? rankingTable(rows, { me, resultHref }) : h("p", { class: "muted", "data-testid": "board-empty" }, empty);
  const unverified = apartList(board.unverified ?? [], me, resultHref, { testid: "unverified", summary: (n) => t("daily.notRanked", { results: count(n, "count.results") }), why: (e) => paceText(e.unverified, e.pace) });
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
      { class: `unverified-entry${e.player === me ? " me" : ""}`, "data-testid": `${testid}-entry`, title: t("daily.notRankedTitle", { why: why(e) }) },
      h("span", { class: "name", dir: "auto" }, e.name),
      e.alias ? h("span", { class: "alias", "data-testid": "alias" }, ` ${e.alias}`) : null,
      " ",
      href ? h("a", { href }, time) : h("span", {}, time),
      ` · ${count(e.moves, "count.moves")}`,
      h("span", { class: "why" }, why(e)),
    );
  };
  return h("details", { class: "unverified", "data-testid": testid }, h("summary", {}, summary(entries.length)), h("ul", {}, tellApart(entries, (e) => e.player).map(item)));
}

/** The streak and my rank today (``mine``: my entry); once I am on today's board, ``race(room)``
 * races again the game of the leader (``leader``: the board's first entry) or my own. */
export function drawStanding(el, streak, mine, { leader = null, race = null } = {}) {
  const ghost = (testid, room, words) => h("button", { type: "button", class: "small", "data-testid": testid, onclick: () => race(room) }, words);
  const ghosts = mine && race ? [leader && leader.player !== mine.player ? ghost("race-leader", leader.room, t("daily.raceLeader", { name: leader.name })) : null, ghost("race-best", mine.room, t("daily.raceBest"))] : [];
  fill(
    el,
    h("span", { class: "stat-chip", "data-testid": "streak", "data-streak": String(streak) }, h("span", { class: "label" }, t("daily.streak")), ` ${count(streak, "count.days")}`),
    h(
      "span",
      { class: "stat-chip", "data-testid": "my-rank", "data-rank": mine?.rank ? String(mine.rank) : "", title: mine?.unverified ? t("daily.notRankedTitle", { why: paceText(mine.unverified, mine.pace) }) : null },
      h("span", { class: "label" }, t("daily.myRank")),
      mine?.unverified
        ? t("daily.tooFast", { time: formatMs(mine.time_ms), moves: count(mine.moves, "count.moves") })
        : mine?.assisted
          ? ` ${t("daily.rankAssisted", { hints: count(mine.hints, "count.hints") })} · ${formatMs(mine.time_ms)} · ${count(mine.moves, "count.moves")}`
          : mine
            ? t("daily.rank", { rank: mine.rank, time: formatMs(mine.time_ms), moves: count(mine.moves, "count.moves") })
            : t("daily.notYet"),
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
    get resign() {
      return { label: t("daily.giveUp"), sure: t("daily.giveUpSure"), title: t("daily.giveUpTitle") };
    },
    banners(s) {
      const { info } = day();
      const mine = s.mine;
      let own = null;
      if (mine && finished(mine)) {
        const strong = ofToday() ? t("daily.cleared") : t("daily.clearedOf", { date: dateLabel(info.date) });
        const standing = info.unverified ? t("daily.unverified", { why: paceText(info.unverified, info.pace) }) : mine.hints ? ` · ${t("daily.bannerAssisted", { hints: count(mine.hints, "count.hints") })}` : t("daily.onBoard");
        const text = t("daily.clearedText", { time: formatMs(mine.finished_ms), moves: count(mine.moves, "count.moves") }) + (info.ranked ? standing : t("daily.practice"));
        own = { testid: "won-banner", kind: "won", strong, text };
      } else if (mine?.resigned) {
        own = { testid: "resigned-banner", kind: "lost", text: t("daily.gaveUp") };
      } else if (mine?.stuck) {
        own = { testid: "stuck-banner", kind: "stuck", strong: t("banner.stuck"), text: t("daily.stuckText") };
      } else if (s.room && !s.room.start_at) {
        own = { testid: "clock-note", kind: "over", text: t("daily.clockNote") };
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
            : today
              ? t("daily.rankedWon")
              : t("daily.rankedWonOf", { date: dateLabel(info.date) })
          : t("daily.noteRankedHints")
        : t(today ? "daily.practiceToday" : "daily.practiceDay");
      const path = `/watch/${info.code}`;
      const kind = info.ranked ? "ranked" : "practice";
      return [
        h("h2", {}, sentence(difficultyText(info.difficulty)), " · ", h("span", { class: "code", "data-testid": "room-code" }, info.code)),
        h("span", { class: `tag ${kind}`, "data-testid": "attempt-kind", "data-ranked": info.ranked ? "true" : "false" }, t(info.ranked ? "daily.kindRanked" : "daily.kindPractice")),
        h("p", { class: "muted small", "data-testid": "attempt-note" }, note),
        h("p", { class: "muted small watch-note" }, t("daily.watchLive"), h("a", { href: path, target: "_blank", rel: "noopener", "data-testid": "watch-link" }, `${location.host}${path}`)),
      ];
    },
  };
}
