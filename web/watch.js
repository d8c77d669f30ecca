// The spectate page (/watch/CODE): every player's board, live, with progress and ranking.

import { BoardView } from "./board/board.js";
import { announce, announcer, fill, formatMs, h } from "./dom.js";
import { Link } from "./net.js";
import {
  applyPlayer,
  count,
  endedByTime,
  isAway,
  newerPresence,
  overNews,
  presenceNews,
  progressList,
  raceNews,
  rankingTable,
  statusText,
  watchingLine,
} from "./panels.js";
import { gonePanel, phaseAt, mergeSnapshot, roomSummary } from "./room.js";

export class WatchView {
  constructor(root, { code }) {
    this.root = root;
    this.code = code;
    this.room = null;
    this.presence = null; // the room's last `presence` message: who has a connection open
    this.seenHere = new Set(); // every seat ever here: one that comes again is "back"
    this.boards = new Map();
    this.phase = "loading";
    root.dataset.view = "watch";
    document.title = `Watching ${code} · Crescent Race`;
    this.head = h("div", { class: "room-head" });
    this.status = h("div", { class: "watch-status", "data-testid": "watch-status" });
    // The room's news for screen readers, as on a player's page (there for everyone).
    this.news = announcer("presence-announce");
    this.grid = h("div", { class: "watch-grid", "data-testid": "watch-boards" });
    this.side = h("aside", { class: "side", "data-testid": "watch-side" });
    // The boards under a heading of their own (one per board below it): the outline goes
    // h1 room, h2 boards and h3 each player, h2 players, h2 ranking.
    const boards = h("section", { class: "watch-boards" }, h("h2", { class: "sr-only" }, "Boards"), this.grid);
    this.layout = h("div", { class: "watch-layout" }, boards, this.side);
    this.page = h("section", { class: "watch", "data-testid": "watch", "data-code": code }, this.head, this.status, this.news, this.layout);
    fill(root, this.page);
    this.renderHead();
    this.link = new Link({
      onOpen: () => this.link.send({ type: "watch", room: code }),
      onMessage: (m) => this.onMessage(m),
    });
    this.link.connect();
    this.ticker = setInterval(() => this.tick(), 200);
  }

  destroy() {
    clearInterval(this.ticker);
    this.link.close();
  }

  onMessage(m) {
    if (m.type === "watching" || m.type === "room") {
      if (m.type === "watching") this.presence = null; // a new connection: its presence follows
      const before = this.room;
      const was = this.phase;
      this.room = mergeSnapshot(this.room, m.room);
      this.render();
      if (before && before.round === this.room.round) {
        announce(this.news, [raceNews(before.players, this.room.players), overNews(was, this.room)].filter(Boolean).join(" "));
      }
    } else if (m.type === "player") {
      const before = this.room?.players.slice(); // applyPlayer replaces the entry it updates
      if (this.room && applyPlayer(this.room.players, m.player)) {
        announce(this.news, raceNews(before, this.room.players));
        this.renderPlayer(m.player.seat);
      }
    } else if (m.type === "presence") {
      const before = this.presence;
      this.presence = newerPresence(before, m);
      if (this.presence === before) return; // old news, or the same again
      announce(this.news, presenceNews(before, this.presence, this.room?.players || [], null, this.seenHere));
      for (const seat of this.presence.here) this.seenHere.add(seat);
      if (this.room) for (const p of this.room.players) this.renderPlayer(p.seat); // headings, side
    } else if (m.type === "resync") {
      this.link.reconnect();
    } else if (m.type === "error") {
      if (m.code === "unknown_room") this.showGone(m.message);
    }
  }

  /** The room no longer exists (it expired, or its server lost it): no boards and no clock
   * any more, only the way home. */
  showGone(message) {
    this.link.close();
    clearInterval(this.ticker);
    this.room = null;
    this.phase = "gone";
    this.page.dataset.phase = "gone";
    this.boards.clear();
    fill(this.grid);
    fill(this.side);
    this.layout.hidden = true;
    this.renderHead();
    fill(this.status, gonePanel(message));
  }

  tick() {
    if (!this.room) return;
    const phase = phaseAt(this.room, this.link.serverNow());
    if (phase !== this.phase) this.render();
    else this.renderStatus();
  }

  renderHead() {
    const room = this.room;
    fill(
      this.head,
      h("h1", {}, "Watching ", h("span", { class: "code", "data-testid": "room-code" }, this.code)),
      room ? h("p", { class: "muted" }, roomSummary(room)) : null,
    );
  }

  renderStatus() {
    const room = this.room;
    const now = this.link.serverNow();
    let text = "";
    if (this.phase === "lobby") text = "Waiting for the host to start…";
    else if (this.phase === "countdown") text = `Starting in ${Math.ceil(Math.max(0, room.start_at - now) / 1000)}…`;
    else if (this.phase === "racing" && room.start_at === null) text = "Racing · the clock starts at the first move";
    else if (this.phase === "racing") {
      text = `Racing · ${formatMs(now - room.start_at)}`;
      if (room.time_limit) text += ` · ${formatMs(Math.max(0, room.start_at + room.time_limit * 1000 - now))} left`;
    } else if (this.phase === "over") {
      text = endedByTime(room) ? "Race over: time is up" : "Race over";
    }
    fill(this.status, h("p", { class: "phase", "data-phase": this.phase }, text));
  }

  render() {
    const room = this.room;
    this.phase = phaseAt(room, this.link.serverNow());
    this.page.dataset.phase = this.phase;
    this.renderHead();
    this.renderStatus();
    const seats = new Set(room.players.map((p) => p.seat));
    for (const [seat, entry] of this.boards) {
      if (!seats.has(seat)) {
        entry.el.remove();
        this.boards.delete(seat);
      }
    }
    for (const p of room.players) this.renderPlayer(p.seat);
    this.renderSide();
  }

  renderPlayer(seat) {
    const p = this.room.players.find((x) => x.seat === seat);
    if (!p) return;
    let entry = this.boards.get(seat);
    if (!entry) {
      const board = new BoardView({ compact: true });
      const title = h("h3", {});
      const el = h("article", { class: "watch-player", "data-testid": "watch-player", "data-seat": seat }, title, board.el);
      entry = { board, title, el };
      this.boards.set(seat, entry);
      this.grid.append(el);
    }
    entry.el.dataset.cards = p.cards;
    entry.el.dataset.moves = p.moves;
    entry.el.dataset.version = p.version ?? 0;
    const status = statusText(p);
    fill(
      entry.title,
      h("span", { class: "name" }, p.name),
      h(
        "span",
        { class: "muted" },
        ` ${p.cards}/104 · ${count(p.moves, "move")} · ${count(p.shuffles_left, "shuffle left", "shuffles left")}${status ? " · " + status : ""}${isAway(this.presence, p.seat) ? " · away" : ""}`,
      ),
    );
    const hidden = this.phase === "lobby";
    entry.board.el.classList.toggle("waiting", hidden || this.phase === "countdown");
    if (p.board) entry.board.update(p.board, { version: p.version ?? 0 });
    if (this.room) this.renderSide();
  }

  renderSide() {
    const room = this.room;
    const parts = [h("h2", {}, "Players"), progressList(room.players, { host: room.host, presence: this.presence }), watchingLine(this.presence)];
    if (this.phase === "over") parts.push(h("h2", {}, "Ranking"), rankingTable(room.ranking));
    fill(this.side, parts);
  }
}

export function watchView(root, options) {
  return new WatchView(root, options);
}
