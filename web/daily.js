// The daily challenge page (/daily): one deal a day per difficulty, the same for everyone.
//
// Two websockets: one follows the leaderboards (today's, live, and yesterday's), one plays
// the current attempt. An attempt is a one-seat room, so it is played by RoomView itself
// (board, input, clock from the first move, hint/undo/restart/shuffle, banners, resume
// after a refresh); the page only swaps the room's header, banner and side panel for the
// daily ones.
//
// localStorage: the player token (crescent.daily.token, which is also the attempt's seat
// token), the public player id, the display name, the difficulty and the current attempt.

import { fill, formatMs, h, NAME_KEY, nameInput, store, toast, tokenKey } from "./dom.js";
import { Link } from "./net.js";
import { count, finished, rankingTable } from "./panels.js";
import { RoomView } from "./room.js";

const KEY = {
  token: "crescent.daily.token",
  player: "crescent.daily.player",
  name: "crescent.daily.name",
  difficulty: "crescent.daily.difficulty",
  attempt: "crescent.daily.attempt",
};
const DIFFICULTIES = [
  ["easy", "Easy — 9 shuffles"],
  ["medium", "Medium — 6 shuffles"],
  ["hard", "Hard — 3 shuffles"],
];
const TOP = 20;

/** The UTC date (YYYY-MM-DD) of a server time in ms. */
export function utcDate(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The day before a YYYY-MM-DD date. */
export function dayBefore(date) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

function dateLabel(date) {
  try {
    const d = new Date(`${date}T00:00:00Z`);
    return d.toLocaleDateString(undefined, { timeZone: "UTC", weekday: "short", day: "numeric", month: "short", year: "numeric" });
  } catch {
    return date;
  }
}

function loadJson(key) {
  try {
    return JSON.parse(store.get(key) || "null");
  } catch {
    return null;
  }
}

/** A daily attempt: a race room of one seat, drawn by RoomView with a daily header and banner. */
class DailyAttempt extends RoomView {
  constructor(root, { code, info, handoff = null, page }) {
    // RoomView draws (and may take the handoff's "joined") before this constructor's body
    // runs: the overrides below cope with `page` and `info` not being set yet.
    super(root, { code, navigate: page.navigate, handoff });
    this.info = info;
    this.page = page;
    document.title = "Daily challenge · Crescent Race";
    this.pageEl.classList.add("daily-attempt");
    this.render();
  }

  setState(state) {
    const won = !!this.state?.won;
    super.setState(state);
    if (state.won && !won) this.page?.attemptWon(this);
  }

  onError(m) {
    if (m.code === "bad_token" || m.code === "unknown_room") {
      this.link.close();
      this.page?.attemptGone(m.message);
      return;
    }
    super.onError(m);
  }

  /** Whether this attempt is at today's deal: one started before midnight UTC counts for
   * the day it was dealt, and says so. */
  ofToday() {
    const today = this.page?.today;
    return !today || !this.info || this.info.date === today;
  }

  renderHeader() {
    const info = this.info;
    if (!info) return;
    const done = this.state?.won;
    const today = this.ofToday();
    const note = info.ranked
      ? done
        ? `Ranked: your time is on ${today ? "today’s leaderboard" : `the leaderboard of ${dateLabel(info.date)}`}.`
        : "Ranked: your first finish of the day goes on the leaderboard."
      : `Practice: you have finished ${today ? "today" : "that day’s deal"} already, so this one is not ranked.`;
    const path = `/watch/${this.code}`;
    fill(
      this.header,
      h(
        "h2",
        {},
        info.difficulty[0].toUpperCase() + info.difficulty.slice(1),
        " · ",
        h("span", { class: "code", "data-testid": "room-code" }, this.code),
      ),
      h(
        "span",
        { class: `tag ${info.ranked ? "ranked" : "practice"}`, "data-testid": "attempt-kind", "data-ranked": info.ranked ? "true" : "false" },
        info.ranked ? "ranked" : "practice",
      ),
      h("p", { class: "muted small", "data-testid": "attempt-note" }, note),
      h(
        "p",
        { class: "muted small watch-note" },
        "Friends can watch live: ",
        h("a", { href: path, target: "_blank", rel: "noopener", "data-testid": "watch-link" }, `${location.host}${path}`),
      ),
    );
  }

  renderJoin() {
    fill(this.joinEl, h("p", { class: "muted" }, "Opening your attempt…"));
  }

  renderTools() {
    super.renderTools();
    // An attempt is given up, not resigned from (as its banners say): the same word here.
    this.resignBtn.textContent = this.confirming === "resign" ? "Really give up?" : "Give up";
    this.resignBtn.title = "Give up this attempt (you may play again)";
  }

  renderSide() {
    // The page's own side panel holds the leaderboards; a one-seat race needs no other.
    this.side.hidden = true;
    fill(this.rivals);
  }

  renderBanner() {
    const s = this.state;
    const done = s && finished(s);
    // The banner area is live: it is filled only when it has something new to say, so a
    // screen reader hears each banner once, not again at every redraw.
    const key = done
      ? `won ${s.finished_ms} ${s.moves} ${Boolean(this.info?.ranked)} ${this.ofToday()}`
      : s?.resigned ? "resigned" : s?.stuck ? "stuck" : this.room && !this.room.start_at ? "clock" : "";
    if (key !== this.bannerKey) {
      this.bannerKey = key;
      let banner = null;
      if (done) {
        banner = h(
          "div",
          { class: "banner won", "data-testid": "won-banner" },
          h("strong", {}, this.ofToday() ? "You cleared today’s deal!" : `You cleared the deal of ${dateLabel(this.info.date)}!`),
          ` Time ${formatMs(s.finished_ms)} in ${count(s.moves, "move")}`,
          this.info?.ranked ? " · on the leaderboard" : " · practice",
        );
      } else if (s?.resigned) {
        banner = h("div", { class: "banner lost", "data-testid": "resigned-banner" }, "You gave up this attempt. Play again when you like.");
      } else if (s?.stuck) {
        banner = h(
          "div",
          { class: "banner stuck", "data-testid": "stuck-banner" },
          h("strong", {}, "Stuck:"),
          " no legal move and no shuffle left. Undo, restart or give up.",
        );
      } else if (key === "clock") {
        banner = h("div", { class: "banner over", "data-testid": "clock-note" }, "The clock starts with your first move.");
      }
      fill(this.banner, banner);
    }
    this.page?.renderPlayButton();
  }
}

export class DailyPage {
  constructor(root, { navigate }) {
    this.root = root;
    this.navigate = navigate;
    this.token = store.get(KEY.token);
    this.player = store.get(KEY.player);
    const saved = store.get(KEY.difficulty);
    this.difficulty = DIFFICULTIES.some(([d]) => d === saved) ? saved : "easy";
    this.today = null;
    this.boards = { today: null, yesterday: null };
    this.mine = null;
    this.streak = null;
    this.asked = new Set();
    this.attempt = null;
    this.unchecked = null; // a saved attempt of another day the server could not be asked about
    this.starting = null;
    this.confirming = false;
    root.dataset.view = "daily";
    document.title = "Daily challenge · Crescent Race";
    this.build();

    this.boardLink = new Link({
      onOpen: () => {
        this.asked.clear();
        this.askBoards();
        if (this.unchecked) this.reopenIfRunning(this.unchecked); // the server is back
      },
      onMessage: (m) => this.onBoardMessage(m),
    });
    this.boardLink.connect();

    const attempt = loadJson(KEY.attempt);
    if (attempt?.code && this.token) {
      // A refresh: resume the attempt (its seat token is the player token).
      if (!store.get(tokenKey(attempt.code))) store.set(tokenKey(attempt.code), this.token);
      if (attempt.date === utcDate(Date.now())) {
        this.openAttempt(attempt, null);
      } else {
        // Dealt on another day by this computer's clock, which may be wrong; and an attempt
        // started before midnight UTC still runs (it counts for its own day). The server
        // says whether it is worth opening.
        this.renderIntro();
        this.reopenIfRunning(attempt);
      }
    } else {
      this.renderIntro();
    }
    this.renderStanding();
    this.renderPlayButton();
    this.tick();
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.ticker);
    clearTimeout(this.confirmTimer);
    this.attempt?.destroy();
    this.starting?.close();
    this.boardLink.close();
  }

  // -- the page ------------------------------------------------------------------------

  build() {
    this.dateEl = h("span", { class: "daily-date", "data-testid": "daily-date" }, "today");
    this.nextEl = h("span", { class: "muted small", "data-testid": "next-deal" });
    this.nameInput = nameInput({
      id: "daily-name",
      placeholder: "Your name",
      value: store.get(KEY.name) || store.get(NAME_KEY) || "",
      "data-testid": "daily-name",
    });
    this.select = h(
      "select",
      { id: "daily-difficulty", "data-testid": "daily-difficulty", onchange: () => this.setDifficulty(this.select.value) },
      DIFFICULTIES.map(([value, label]) => h("option", { value, selected: value === this.difficulty }, label)),
    );
    this.playBtn = h("button", { type: "submit", class: "primary", "data-testid": "daily-play" }, "Play today’s deal");
    this.form = h(
      "form",
      { class: "daily-form", "data-testid": "daily-form", onsubmit: (e) => this.onPlay(e) },
      h("div", { class: "field" }, h("label", { for: "daily-name" }, "Name"), this.nameInput),
      h("div", { class: "field difficulty" }, h("label", { for: "daily-difficulty" }, "Difficulty"), this.select),
      this.playBtn,
    );
    this.standing = h("p", { class: "standing", "data-testid": "standing" });
    this.statusEl = h("p", { class: "daily-status muted small", "data-testid": "daily-status", "aria-live": "polite" });
    const head = h(
      "div",
      { class: "card-panel daily-head" },
      h("div", { class: "daily-title" }, h("h1", {}, "Daily challenge"), this.dateEl, this.nextEl),
      this.form,
      this.standing,
      this.statusEl,
    );
    this.main = h("div", { class: "daily-main", "data-testid": "daily-main" });
    this.todayEl = h("div", { "data-testid": "today-board", "data-state": "loading" });
    this.yesterdayEl = h("div", { "data-testid": "yesterday-board", "data-state": "loading" });
    this.todayTitle = h("h2", {}, "Today");
    this.yesterdayTitle = h("h2", {}, "Yesterday");
    this.side = h(
      "aside",
      { class: "side daily-side", "data-testid": "daily-side" },
      this.todayTitle,
      this.todayEl,
      this.yesterdayTitle,
      this.yesterdayEl,
    );
    this.pageEl = h(
      "section",
      { class: "daily-page", "data-testid": "daily" },
      head,
      h("div", { class: "daily-layout" }, this.main, this.side),
    );
    fill(this.root, this.pageEl);
    fill(this.todayEl, h("p", { class: "muted" }, "Loading…"));
    fill(this.yesterdayEl, h("p", { class: "muted" }, "Loading…"));
  }

  renderIntro(note = null) {
    fill(
      this.main,
      h(
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
      ),
    );
  }

  tick() {
    const now = this.boardLink.serverNow();
    const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
    const left = Math.max(0, midnight - now);
    const hours = Math.floor(left / 3600000);
    const minutes = Math.floor((left % 3600000) / 60000);
    this.nextEl.textContent = `next deal in ${hours} h ${String(minutes).padStart(2, "0")} min`;
    if (this.today && this.boardLink.ready && utcDate(now) > this.today) {
      // Midnight UTC passed: today's board is a new one.
      this.today = null;
      this.asked.clear();
      this.askBoards();
    }
  }

  setDifficulty(value) {
    if (!DIFFICULTIES.some(([d]) => d === value) || value === this.difficulty) return;
    this.difficulty = value;
    store.set(KEY.difficulty, value);
    this.boards = { today: null, yesterday: null };
    this.mine = null;
    this.renderBoards();
    this.renderStanding();
    this.asked.clear(); // this difficulty's boards were dropped above: ask for them again
    this.askBoards();
    this.renderPlayButton();
  }

  // -- leaderboards ----------------------------------------------------------------------

  askBoards() {
    const base = { type: "leaderboard", difficulty: this.difficulty, top: TOP };
    if (this.token) base.token = this.token;
    const send = (date) => {
      const key = `${this.difficulty}:${date || "today"}`;
      if (this.asked.has(key)) return;
      if (this.boardLink.send(date ? { ...base, date } : base)) this.asked.add(key);
    };
    send(null);
    if (this.today) send(dayBefore(this.today));
  }

  /** Ask again for today's board with the token: my rank and streak (after a finish). */
  refreshMine() {
    this.asked.delete(`${this.difficulty}:today`);
    this.askBoards();
  }

  onBoardMessage(m) {
    if (m.type === "error") {
      if (m.code !== "rate_limited") toast(m.message, "error");
      return;
    }
    if (m.type === "resync") {
      this.boardLink.reconnect();
      return;
    }
    if (m.type !== "leaderboard") return;
    this.checkRanked(m); // the attempt's own board, whichever difficulty is shown
    if (m.difficulty !== this.difficulty) return;
    if (m.today && m.today !== this.today) {
      this.today = m.today;
      this.boards.yesterday = null;
      this.askBoards();
      this.attempt?.render(); // its words for its day ("today's deal", or its date)
    }
    if (m.date === this.today) {
      this.boards.today = m;
      const mineInTop = this.player ? m.entries.find((e) => e.player === this.player) : null;
      if (m.me) this.mine = m.me;
      else if (mineInTop) this.mine = mineInTop;
      if (m.streak !== null && m.streak !== undefined) this.streak = m.streak;
      this.renderStanding();
    } else if (this.today && m.date === dayBefore(this.today)) {
      this.boards.yesterday = m;
    } else {
      return;
    }
    this.renderBoards();
  }

  renderBoards() {
    this.dateEl.textContent = this.today ? dateLabel(this.today) : "today";
    this.pageEl.dataset.date = this.today || "";
    const show = (el, title, board, label, empty) => {
      title.textContent = label;
      if (!board) {
        el.dataset.state = "loading";
        fill(el, h("p", { class: "muted" }, "Loading…"));
        return;
      }
      el.dataset.state = "ready";
      el.dataset.date = board.date;
      el.dataset.entries = board.entries.length;
      if (!board.entries.length) {
        fill(el, h("p", { class: "muted", "data-testid": "board-empty" }, empty));
        return;
      }
      const rows = board.entries.map((e) => ({
        place: e.rank,
        seat: e.player,
        name: e.name,
        finished_ms: e.time_ms,
        moves: e.moves,
        cards: 104,
      }));
      fill(el, rankingTable(rows, { me: this.player }));
    };
    const level = this.difficulty;
    show(this.todayEl, this.todayTitle, this.boards.today, `Today · ${level}`, "No finishes yet today. Be the first!");
    show(this.yesterdayEl, this.yesterdayTitle, this.boards.yesterday, `Yesterday · ${level}`, "Nobody finished yesterday’s deal.");
  }

  renderStanding() {
    const streak = this.streak ?? 0;
    const mine = this.mine;
    fill(
      this.standing,
      h(
        "span",
        { class: "stat-chip", "data-testid": "streak", "data-streak": String(streak) },
        h("span", { class: "label" }, "Streak"),
        ` ${streak} day${streak === 1 ? "" : "s"}`,
      ),
      h(
        "span",
        { class: "stat-chip", "data-testid": "my-rank", "data-rank": mine ? String(mine.rank) : "" },
        h("span", { class: "label" }, "My rank"),
        mine ? ` #${mine.rank} · ${formatMs(mine.time_ms)} · ${count(mine.moves, "move")}` : " not ranked today yet",
      ),
    );
  }

  // -- attempts --------------------------------------------------------------------------

  attemptActive() {
    const a = this.attempt;
    return !!a && !!a.state && !a.isDone() && a.phase !== "over";
  }

  renderPlayButton() {
    if (!this.playBtn) return;
    let label = "Play today’s deal";
    if (this.starting) label = "Dealing…";
    else if (this.confirming) label = "Really start over?";
    else if (this.attemptActive()) label = "New attempt";
    else if (this.attempt) label = "Play again";
    this.playBtn.textContent = label;
    this.playBtn.disabled = !!this.starting;
    this.statusEl.textContent = this.starting
      ? "Dealing… The first player of the day waits while the server proves the deal winnable (up to a minute on hard)."
      : "";
    this.playBtn.classList.toggle("confirm", this.confirming);
    this.pageEl.classList.toggle("playing", !!this.attempt);
  }

  onPlay(e) {
    e.preventDefault();
    const name = this.nameInput.value.trim();
    if (!name) {
      this.nameInput.focus();
      return;
    }
    if (this.attemptActive() && !this.confirming) {
      // Leaving an unfinished attempt takes a second press.
      this.confirming = true;
      clearTimeout(this.confirmTimer);
      this.confirmTimer = setTimeout(() => {
        this.confirming = false;
        this.renderPlayButton();
      }, 3000);
      this.renderPlayButton();
      return;
    }
    this.confirming = false;
    clearTimeout(this.confirmTimer);
    store.set(KEY.name, name);
    this.start(name, this.difficulty);
  }

  start(name, difficulty) {
    this.starting?.close();
    let sent = false;
    const link = new Link({
      onOpen: () => {
        if (sent) return;
        sent = true;
        const msg = { type: "daily", name, difficulty };
        if (this.token) msg.token = this.token;
        link.send(msg);
      },
      onMessage: (m) => {
        if (m.type === "joined" && m.daily) {
          this.starting = null;
          this.onJoined(link, m);
        } else if (m.type === "error") {
          if (m.code === "bad_token" && this.token) {
            // The server no longer knows this player (kept too long, another server): a new one.
            this.forgetPlayer();
            link.send({ type: "daily", name, difficulty });
            toast("This server no longer knows your player, so you start as a new one (your streak starts again).");
            return;
          }
          this.starting = null;
          link.close();
          toast(m.message, "error");
          this.renderPlayButton();
        }
      },
    });
    this.starting = link;
    this.renderPlayButton();
    link.connect();
  }

  forgetPlayer() {
    this.token = null;
    this.player = null;
    this.mine = null;
    this.streak = null;
    store.remove(KEY.token);
    store.remove(KEY.player);
  }

  onJoined(link, m) {
    const info = { code: m.room.code, date: m.daily.date, difficulty: m.daily.difficulty, ranked: m.daily.ranked };
    const newPlayer = m.token !== this.token;
    this.token = m.token || this.token;
    this.player = m.daily.player;
    this.streak = m.daily.streak;
    store.set(KEY.token, this.token);
    store.set(KEY.player, this.player);
    store.set(KEY.attempt, JSON.stringify(info));
    if (m.daily.difficulty !== this.difficulty) {
      this.select.value = m.daily.difficulty;
      this.setDifficulty(m.daily.difficulty);
    }
    this.openAttempt(info, { link, joined: m });
    if (newPlayer) this.refreshMine();
    this.renderBoards(); // the new player id highlights its row
    this.renderStanding();
  }

  openAttempt(info, handoff) {
    this.attempt?.destroy();
    const holder = h("div", { class: "daily-room" });
    fill(this.main, holder);
    this.attempt = new DailyAttempt(holder, { code: info.code, info, handoff, page: this });
    this.renderPlayButton();
  }

  attemptWon(attempt) {
    if (attempt !== this.attempt && this.attempt) return;
    // The server posted the result before it answered the winning move: my rank and streak.
    const info = attempt.info;
    if (info?.difficulty === this.difficulty) this.refreshMine();
    if (info && this.token && (info.difficulty !== this.difficulty || info.date !== this.today)) {
      // Another board than the one shown: whether this finish is the ranked one (checkRanked).
      this.boardLink.send({ type: "leaderboard", difficulty: info.difficulty, date: info.date, top: TOP, token: this.token });
    }
    this.renderPlayButton();
  }

  attemptGone(message) {
    store.remove(KEY.attempt);
    const old = this.attempt;
    this.attempt = null;
    // Not from inside the attempt's own message handler: let it return first.
    setTimeout(() => old?.destroy(), 0);
    this.renderIntro(`That attempt is gone: ${message}. Start a new one.`);
    this.renderPlayButton();
  }

  /** Open a saved attempt of another day if its room still runs; forget it if it is over. */
  async reopenIfRunning(attempt) {
    this.unchecked = null;
    let running = null; // unknown while the server cannot be asked: asked again when it is back
    try {
      const res = await fetch(`/api/rooms/${encodeURIComponent(attempt.code)}`, { cache: "no-store" });
      if (res.ok) running = (await res.json()).phase === "racing";
      else if (res.status === 404) running = false;
    } catch {
      running = null;
    }
    if (this.destroyed || this.attempt || this.starting || loadJson(KEY.attempt)?.code !== attempt.code) return;
    if (running) this.openAttempt(attempt, null);
    else if (running === false) store.remove(KEY.attempt);
    else this.unchecked = attempt;
  }

  /** A board of the current attempt's day that holds this player's result: the attempt is
   * the ranked one exactly when the result is its own. (Another attempt of the same day, in
   * another tab say, may finish first: then this one is practice, whatever it was at its
   * start.) */
  checkRanked(m) {
    const info = this.attempt?.info;
    if (!info || m.date !== info.date || m.difficulty !== info.difficulty) return;
    const mine = m.me || (this.player ? m.entries.find((e) => e.player === this.player) : null);
    if (!mine || (mine.room === info.code) === info.ranked) return;
    info.ranked = mine.room === info.code;
    if (loadJson(KEY.attempt)?.code === info.code) store.set(KEY.attempt, JSON.stringify(info));
    this.attempt.render();
  }
}

export function dailyView(root, options) {
  return new DailyPage(root, options);
}
