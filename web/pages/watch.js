// The spectate page (/watch/CODE): every player's board, live, with progress and ranking.

import { BoardView } from "../board/board.js";
import { fitMany } from "../board/fitting.js";
import { deviceKey } from "../device.js";
import { announce, announcer, fill, h } from "../dom.js";
import { t } from "../i18n.js";
import { ghostKey, ghostsAt, ghostTime } from "../model/ghosts.js";
import { news } from "../model/news.js";
import { initial, reduce } from "../model/room.js";
import { clock, endedByTime, isAway, phase } from "../model/select.js";
import { createStore } from "../model/store.js";
import { count, endedText, formatMs, podiumTitle, roomSummary, statusText } from "../model/words.js";
import { Link } from "../net.js";
import { gonePanel } from "../views/lobby.js";
import { podium } from "../model/moments.js";
import { podiumView } from "../views/moments.js";
import { RoomRatings } from "../ratings.js";
import { ReplayLinks } from "../replays.js";
import { progressList, rankingTable, replayLinks, watchingLine } from "../views/ranking.js";
import { practiceNote } from "../views/practice.js";
import { seriesPanel } from "../views/series.js";

export function watchView(root, { code }) {
  return new WatchView(root, code);
}

class WatchView {
  constructor(root, code) {
    this.code = code;
    this.boards = new Map(); // seat -> {board, title, el}
    this.store = createStore(reduce, initial(code));
    // At race over, each player's game on the record (seat -> id), once the server kept it.
    this.replays = new Map();
    this.replayLinks = new ReplayLinks((found) => {
      this.replays = found;
      this.render(this.store.get(), this.store.get());
    });
    // At race over, each player's rating and its change, once the race is rated.
    this.ratings = new Map();
    this.roomRatings = new RoomRatings((found) => {
      this.ratings = found;
      this.render(this.store.get(), this.store.get());
    });
    root.dataset.view = "watch";
    document.title = t("watch.title", { code });
    this.head = h("div", { class: "room-head" });
    this.status = h("div", { class: "watch-status", "data-testid": "watch-status" });
    this.why = h("p", { class: "muted", "data-testid": "no-boards", hidden: true }); // why no boards show
    this.delay = null; // {ms, until}: the race reaches this page ms late, the first of it at until
    this.delayNote = h("p", { class: "delay-note", "data-testid": "delayed", role: "status", hidden: true });
    this.news = announcer("presence-announce");
    // At race over, the winner and the podium at the top, on every size.
    this.podium = h("section", { class: "watch-podium", "data-testid": "watch-podium", hidden: true });
    this.grid = h("div", { class: "watch-grid", "data-testid": "watch-boards" });
    this.side = h("aside", { class: "side", "data-testid": "watch-side" });
    // The outline: h1 room, h2 boards and h3 each player, h2 players, h2 ranking.
    const boards = h("section", { class: "watch-boards" }, h("h2", { class: "sr-only" }, t("watch.boards")), this.grid);
    this.layout = h("div", { class: "watch-layout" }, boards, this.side);
    this.page = h("section", { class: "watch", "data-testid": "watch", "data-code": code }, this.head, this.delayNote, this.status, this.why, this.podium, this.news, this.layout);
    fill(root, this.page);
    // Every board on the screen, as big as they can be side by side.
    this.fit = fitMany(this.grid, { cells: () => [...this.grid.children], boardOf: (cell) => cell.querySelector(".board") });
    this.renderHead();
    // Drawn once a frame: a burst of news (a rival's quick moves, a resync) is drawn as where
    // it ends, not move by move, each of which would lay every board out again.
    this.frame = null;
    this.before = null;
    this.store.subscribe((_, before) => {
      if (this.frame !== null) return;
      this.before = before;
      this.frame = requestAnimationFrame(() => this.flush());
    });
    this.link = new Link({
      onOpen: (hello) => {
        this.store.dispatch(hello);
        this.link.send({ type: "watch", room: code, device: deviceKey() });
      },
      onMessage: (m) => this.onMessage(m),
    });
    this.link.connect();
    this.ticker = setInterval(() => {
      const s = this.store.get();
      this.renderStatus(s);
      this.renderDelay();
      // A ghost moves on the server's clock alone: its line is drawn again when it changes.
      if (s.room?.ghosts && ghostKey(this.ghosts(s)) !== this.ghostsShown) this.render(s, s);
    }, 200);
  }

  /** Draws what changed since the first news of this frame. */
  flush() {
    this.frame = null;
    const s = this.store.get();
    announce(this.news, news(this.before, s, { spectator: true }));
    this.render(s, this.before);
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.fit.stop();
    clearInterval(this.ticker);
    this.replayLinks.stop();
    this.roomRatings.stop();
    this.link.close();
  }

  onMessage(m) {
    // This device races here: no boards until its game is done (then it watches again).
    if (m.type === "watching") this.blind = m.blind ?? null;
    if (m.type === "delayed") {
      // The spectators see the race this late: until it reaches them, a countdown says so.
      this.delay = { ms: m.ms, until: Date.now() + m.ms };
      this.renderDelay();
      return;
    }
    if (m.type === "room" || m.type === "watching") {
      const p = m.room?.phase;
      if (this.delay && p && (p !== "lobby" || m.type === "watching") && Date.now() >= this.delay.until - 250) this.delay = null;
      this.renderDelay();
    }
    if (m.type === "resync") this.link.reconnect();
    else if (m.type === "error" && m.code === "unknown_room") {
      this.link.close();
      clearInterval(this.ticker);
      this.store.dispatch({ type: "gone", message: t("room.gone", { code: this.code }) });
    } else if (m.type !== "error") this.store.dispatch(m);
  }

  /** The spectators' delay, counted down to the race reaching this page. */
  renderDelay() {
    const d = this.delay;
    const left = d ? Math.max(0, Math.ceil((d.until - Date.now()) / 1000)) : 0;
    this.delayNote.hidden = !d || left <= 0;
    if (this.delayNote.hidden) return;
    const text = t("watch.delay", { late: Math.round(d.ms / 1000), left });
    if (this.delayNote.textContent !== text) this.delayNote.textContent = text;
    this.delayNote.dataset.left = left;
  }

  render(s, before) {
    this.page.dataset.phase = phase(s);
    this.renderHead();
    this.renderStatus(s);
    if (s.gone !== null) {
      // The room no longer exists: no boards nor clock, only the way home.
      this.boards.clear();
      fill(this.grid);
      fill(this.side);
      this.layout.hidden = true;
      fill(this.status, gonePanel(s.gone));
      return;
    }
    if (!s.room) return;
    const seats = new Set(s.room.players.map((p) => p.seat));
    for (const [seat, entry] of this.boards) {
      if (!seats.has(seat)) {
        entry.el.remove();
        this.boards.delete(seat);
      }
    }
    // Only the players whose entry changed, unless the phase or who is here did.
    const all = phase(s) !== phase(before) || s.presence !== before.presence;
    const was = new Map((before.room?.players || []).map((p) => [p.seat, p]));
    for (const p of s.room.players) if (all || was.get(p.seat) !== p) this.renderPlayer(s, p);
    const ghosts = this.ghosts(s);
    this.ghostsShown = ghostKey(ghosts);
    const parts = [h("h2", {}, t("watch.players")), progressList([...s.room.players, ...ghosts], { host: s.room.kind === "daily" ? null : s.room.host, presence: s.presence, votes: phase(s) !== "over" }), watchingLine(s.presence)];
    if (phase(s) === "over") {
      this.replayLinks.follow(this.code, s.room.round, s.room.ranking.map((r) => r.seat));
      if (s.room.kind === "race") this.roomRatings.follow(this.code, `${s.room.round} ${s.room.start_at}`, { rated: true });
      parts.push(h("h2", {}, t("side.ranking")), rankingTable(s.room.ranking, { ratings: this.ratings }), seriesPanel(s.room), replayLinks(s.room.ranking, this.replays));
    }
    fill(this.side, parts);
    this.renderPodium(s, before);
    const mine = this.blind && s.room.players.find((p) => p.seat === this.blind);
    if (this.blind && (!mine || mine.won || mine.resigned || mine.finished_ms !== null || phase(s) === "over")) {
      this.blind = null;
      this.link.reconnect(); // my game is done: the boards may be shown now
    }
  }

  /** The room's ghosts as they stand at the server's time now. */
  ghosts(s) {
    return ghostsAt(s.room, ghostTime(s.room, phase(s), this.link.serverNow()));
  }

  renderPodium(s, before) {
    const over = phase(s) === "over" && s.room.ranking?.length;
    this.podium.hidden = !over;
    if (!over || (phase(before) === "over" && before.room?.ranking === s.room.ranking)) return;
    const top = podium(s.room);
    fill(this.podium, h("h2", { class: "podium-title", "data-testid": "winner" }, podiumTitle(s.room.ranking)), top.length > 1 ? podiumView(top) : null);
  }

  renderHead() {
    const room = this.store.get().room;
    fill(this.head, h("h1", {}, t("watch.h1"), h("span", { class: "code", "data-testid": "room-code" }, this.code)), room ? h("p", { class: "muted" }, roomSummary(room)) : null, room?.practice ? practiceNote(room.practice) : null);
  }

  renderStatus(s) {
    const room = s.room;
    if (!room) return;
    const p = phase(s);
    const c = clock(s, this.link.serverNow());
    let text = "";
    if (p === "lobby") text = t("watch.lobby");
    else if (p === "countdown") text = t("watch.countdown", { count: c.count === "Go!" ? t("race.go") : c.count });
    else if (p === "racing" && room.start_at === null) text = t("watch.noClock");
    else if (p === "racing") text = t("watch.racing", { time: formatMs(c.elapsed) }) + (c.left === null ? "" : t("watch.left", { time: formatMs(c.left) }));
    else if (p === "over") {
      text = endedByTime(room) ? t("watch.timeUp") : endedText(room).replace(/\.$/, "");
    }
    const why = this.blind
      ? t("watch.blind")
      : p === "racing" && room.kind === "daily"
        ? t("watch.daily")
        : p === "racing" && room.kind === "tutorial"
          ? t("watch.tutorial")
          : null;
    fill(this.status, h("p", { class: "phase", "data-phase": p }, text));
    this.why.hidden = !why;
    this.why.textContent = why || "";
  }

  renderPlayer(s, p) {
    let entry = this.boards.get(p.seat);
    if (!entry) {
      const board = new BoardView({ compact: true });
      const title = h("h3", {});
      const el = h("article", { class: "watch-player", "data-testid": "watch-player", "data-seat": p.seat }, title, board.el);
      entry = { board, title, el };
      this.boards.set(p.seat, entry);
      this.grid.append(el);
    }
    entry.el.dataset.cards = p.cards;
    entry.el.dataset.moves = p.moves;
    entry.el.dataset.version = p.version ?? 0;
    const status = statusText(p);
    const line = ` ${p.cards}/104 · ${count(p.moves, "count.moves")} · ${count(p.shuffles_left, "count.shufflesLeft")}`;
    fill(entry.title, h("span", { class: "name" }, p.name), h("span", { class: "muted" }, `${line}${status ? " · " + status : ""}${isAway(s.presence, p.seat) ? ` · ${t("side.away")}` : ""}`));
    const p0 = phase(s);
    entry.board.el.classList.toggle("waiting", p0 === "lobby" || p0 === "countdown");
    // (During a race a player's own device and a daily attempt's spectators get no boards.)
    entry.board.el.hidden = !p.board;
    if (p.board) entry.board.update(p.board, { version: p.version ?? 0 });
  }
}
