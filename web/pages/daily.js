// The daily challenge page (/daily): one deal a day per difficulty, the same for everyone.
//
// Two websockets: one follows the leaderboards (today's, live, and yesterday's), one plays
// the current attempt: a one-seat room, played by the room page in the attempt's words.
//
// localStorage: the player token (crescent.daily.token, which is also the attempt's seat
// token), the public player id, the display name, the difficulty and the current attempt.

import { askAttempt, roomRacing } from "../attempts.js";
import { newestGame, raceGhosts } from "../ghostrace.js";
import { fill, h, store, toast, tokenKey } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { attemptOnBoard, dayBefore, untilMidnight, utcDate } from "../model/daily.js";
import { phase } from "../model/select.js";
import { difficultyText, isOut } from "../model/words.js";
import { Link } from "../net.js";
import { attemptWords, dailyLayout, dateLabel, DIFFICULTIES, drawBoard, drawPlay, drawStanding, intro } from "../views/daily.js";
import { roomPage } from "./room.js";

const KEY = {
  token: "crescent.daily.token",
  player: "crescent.daily.player",
  name: "crescent.daily.name",
  difficulty: "crescent.daily.difficulty",
  attempt: "crescent.daily.attempt",
};
const TOP = 20;

function loadJson(key) {
  try {
    return JSON.parse(store.get(key) || "null");
  } catch {
    return null;
  }
}

class DailyPage {
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
    document.title = t("daily.title");
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

  build() {
    const onPlay = (e) => this.onPlay(e);
    const onDifficulty = (value) => this.setDifficulty(value);
    Object.assign(this, dailyLayout(this.root, { name: store.get(KEY.name), difficulty: this.difficulty, onPlay, onDifficulty }));
  }

  renderIntro(note = null) {
    fill(this.main, intro(note));
  }

  tick() {
    const now = this.boardLink.serverNow();
    const { hours, minutes } = untilMidnight(now);
    this.nextEl.textContent = t("daily.next", { h: hours, min: String(minutes).padStart(2, "0") });
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
      if (m.code !== "rate_limited") toast(errorText(m), "error");
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
    this.dateEl.textContent = this.today ? dateLabel(this.today) : t("daily.today");
    this.pageEl.dataset.date = this.today || "";
    const level = difficultyText(this.difficulty);
    const me = this.player;
    // Today's games only once I am on today's board (the server shows them to no one else).
    const todays = { label: t("daily.todayLabel", { level }), empty: t("daily.emptyToday"), me, replays: !!this.mine };
    drawBoard(this.todayEl, this.todayTitle, this.boards.today, todays);
    drawBoard(this.yesterdayEl, this.yesterdayTitle, this.boards.yesterday, { label: t("daily.yesterdayLabel", { level }), empty: t("daily.emptyYesterday"), me, replays: true });
  }

  renderStanding() {
    const leader = this.boards.today?.entries[0] ?? null;
    drawStanding(this.standing, this.streak ?? 0, this.mine, { leader, race: (room) => this.raceGhost(room) });
  }

  /** Race again the game of today's attempt in ``room`` (allowed: I am on today's board). */
  async raceGhost(room) {
    const id = await newestGame(room, this.token).catch(() => null);
    if (!id) return toast(t("daily.notOnRecord"), "error");
    this.ghostLink?.close();
    this.ghostLink = raceGhosts({ name: store.get(KEY.name) || t("daily.player"), ids: [id], token: this.token, navigate: this.navigate });
  }

  // -- attempts --------------------------------------------------------------------------

  attemptActive() {
    const s = this.attempt?.state;
    return !!s?.mine && !isOut(s.mine) && phase(s) !== "over";
  }

  renderPlayButton() {
    drawPlay(this, { starting: !!this.starting, confirming: this.confirming, active: this.attemptActive(), attempt: !!this.attempt });
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
    this.starting = askAttempt({
      name,
      difficulty,
      token: this.token,
      joined: (link, m) => {
        this.starting = null;
        this.onJoined(link, m);
      },
      refused: (m) => {
        this.starting = null;
        toast(errorText(m), "error");
        this.renderPlayButton();
      },
      forgotten: () => {
        this.forgetPlayer();
        toast(t("daily.newPlayer"));
      },
    });
    this.renderPlayButton();
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
    this.attempt = null;
    const holder = h("div", { class: "daily-room" });
    fill(this.main, holder);
    this.attemptInfo = info;
    const words = attemptWords(() => ({ info, today: this.today }));
    // (what it says while being made is caught up with below)
    let attempt = null;
    attempt = this.attempt = roomPage(holder, {
      code: info.code,
      navigate: this.navigate,
      handoff,
      words,
      head: words.head,
      waiting: t("daily.opening"),
      title: t("daily.title"),
      className: "daily-attempt",
      onChange: (s, before) => {
        if (!attempt) return;
        if (s.mine?.won && !before.mine?.won) this.attemptWon(attempt, info);
        this.renderPlayButton();
      },
      onError: (m) => {
        if (m.code !== "bad_token" && m.code !== "unknown_room") return false;
        // (the server's words, in the page's: a sentence's middle starts in lower case)
        const why = m.code === "unknown_room" ? t("room.gone", { code: info.code }) : errorText(m);
        if (attempt) this.attemptGone(attempt, why[0].toLocaleLowerCase() + why.slice(1));
        return true;
      },
    });
    this.renderPlayButton();
  }

  attemptWon(attempt, info) {
    if (attempt !== this.attempt && this.attempt) return;
    // The server posted the result before it answered the winning move: my rank and streak.
    if (info.difficulty === this.difficulty) this.refreshMine();
    if (this.token && (info.difficulty !== this.difficulty || info.date !== this.today)) {
      // Another board than the one shown: whether this finish is the ranked one (checkRanked).
      this.boardLink.send({ type: "leaderboard", difficulty: info.difficulty, date: info.date, top: TOP, token: this.token });
    }
    this.renderPlayButton();
  }

  attemptGone(attempt, message) {
    if (attempt !== this.attempt) return;
    store.remove(KEY.attempt);
    this.attempt = null;
    this.attemptInfo = null;
    // Not from inside the attempt's own message handler: let it return first.
    setTimeout(() => attempt.destroy(), 0);
    this.renderIntro(t("daily.gone", { why: message.replace(/\.$/, "") }));
    this.renderPlayButton();
  }

  /** Open a saved attempt of another day if its room still runs; forget it if it is over. */
  async reopenIfRunning(attempt) {
    this.unchecked = null;
    const running = await roomRacing(attempt.code); // null (not asked): asked again when the server is back
    if (this.destroyed || this.attempt || this.starting || loadJson(KEY.attempt)?.code !== attempt.code) return;
    if (running) this.openAttempt(attempt, null);
    else if (running === false) store.remove(KEY.attempt);
    else this.unchecked = attempt;
  }

  /** A board of the attempt's day with my result: whether the attempt is ranked, and an
   * unverified result's reason (model/daily.js). */
  checkRanked(m) {
    const info = this.attemptInfo;
    const news = this.attempt && info ? attemptOnBoard(m, info, this.player) : null;
    if (!news) return;
    Object.assign(info, news);
    if (loadJson(KEY.attempt)?.code === info.code) store.set(KEY.attempt, JSON.stringify(info));
    this.attempt.render();
  }
}

export function dailyView(root, options) {
  return new DailyPage(root, options);
}
