// A player's room page (/r/CODE): join, lobby, countdown, the race, the result, rematch.
//
// The seat's secret token is kept in localStorage per room, so a refresh (or a dropped
// connection) resumes the same seat and board. The page draws what the server sends and
// offers only the server's legal moves.

import { BoardView } from "./board/board.js";
import { describeMove, parseMove, preview } from "./model/cards.js";
import { announce, announcer, fill, formatMs, h, NAME_KEY, refill, sentence, store, toast, tokenKey } from "./dom.js";
import { joinForm, lobbyPanel, showJoinNote } from "./lobby.js";
import { Link } from "./net.js";
import {
  applyPlayer,
  awayIn,
  count,
  endedByTime,
  finished,
  isAway,
  newerPresence,
  ordinal,
  playerFromState,
  presenceNews,
  progressList,
  raceNews,
  rankingTable,
  statusText,
  watchingLine,
} from "./panels.js";

const PENDING_TIMEOUT_MS = 5000;
const NOT_YET = "The race has not started yet.";
const LOOK_AGAIN_MS = 3000; // how often a page with no seat in a closed room looks it up again
const LOOK_UP_MS = 5000; // a look-up with no answer by then counts as none
const GO_MS = 1000; // how long "Go!" shows over the board once the race starts
// Where style.css puts the side panel (and its ranking) beside the board, not under it.
const SIDE_BESIDE = "(min-width: 960px) and (min-height: 501px)";

function clientId() {
  return Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
}

/** The phase now, by the server's clock (the server does not announce the start itself). */
export function phaseAt(room, now) {
  if (!room) return "loading";
  if (room.phase === "countdown" || room.phase === "racing") {
    if (room.start_at && now < room.start_at) return "countdown";
    return "racing";
  }
  return room.phase;
}

/** Keep the newer of each player's versions when a snapshot arrives. */
export function mergeSnapshot(old, room) {
  if (!old || old.round !== room.round) return room;
  const held = new Map(old.players.map((p) => [p.seat, p]));
  room.players = room.players.map((p) => {
    const mine = held.get(p.seat);
    return mine && (mine.version ?? 0) > (p.version ?? 0) ? { ...p, ...mine, ready: p.ready } : p;
  });
  return room;
}

export class RoomView {
  constructor(root, { code, navigate, handoff = null }) {
    this.root = root;
    this.code = code;
    this.navigate = navigate;
    this.room = null;
    this.presence = null; // the room's last `presence` message: who has a connection open
    this.seenHere = new Set(); // every seat ever here: one that comes again is "back"
    this.seat = null;
    this.state = null;
    this.pending = null;
    this.hint = null;
    this.hintAsked = null; // when this page last asked for a hint still unanswered (performance.now())
    this.joinName = null;
    this.lastResync = 0;
    this.confirming = null;
    this.kicked = false;
    this.gone = null; // why the room is no longer there: the page then stops for good
    this.countedDown = null; // the start_at of the countdown this page showed
    this.joinNote = null; // why this room may not take a seat, known before joining ({code, message, closed})
    this.joinShown = null; // what the join panel shows ("form", "closed CODE", ...): redrawn only when that changes
    this.lookTimer = null; // the next look-up of a room that takes no seat now
    this.lookWhenShown = false; // a look-up skipped while the page was hidden
    this.joinFocused = false; // the keyboard's focus was in the join form when it was sent
    this.phase = "loading";
    this.token = store.get(tokenKey(code));
    root.dataset.view = "room";
    document.title = `Room ${code} · Crescent Race`;
    this.build();
    this.link = handoff?.link || new Link({});
    this.link.handlers = {
      onOpen: () => this.onOpen(),
      onMessage: (m) => this.onMessage(m),
      onKicked: (reason) => this.onKicked(reason),
      onRemoved: (reason) => this.dropSeat(`Removed: ${reason}.`),
    };
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
    // The keys' list opens over the board: a press anywhere else closes it.
    this.outsideHandler = (e) => {
      if (this.keysHelp.open && !this.keysHelp.contains(e.target)) this.keysHelp.open = false;
    };
    document.addEventListener("pointerdown", this.outsideHandler);
    this.shownHandler = () => {
      if (document.hidden || !this.lookWhenShown) return;
      this.lookWhenShown = false;
      this.followRoom();
    };
    document.addEventListener("visibilitychange", this.shownHandler);
    this.ticker = setInterval(() => this.tick(), 100);
    if (handoff?.joined) {
      this.onMessage(handoff.joined);
    } else if (this.token) {
      this.link.connect();
    } else {
      this.render();
      this.lookUp();
    }
  }

  /** Before offering a seat, look the room up: a room that is not there ends the page at
   * once, and one that cannot take a seat says why above the form (the server still has
   * the last word when the form is sent). What it said before is old news. */
  lookUp() {
    this.joinNote = null;
    return this.followRoom();
  }

  /** Look the room up (`GET /api/rooms/CODE`) and show what it says. While it takes no seat
   * (its race runs, or is over) it is looked up again every few seconds, not while the page
   * is hidden: the panel follows it, and when a rematch brings it back to its lobby the
   * join form comes back, saying that a new round waits. ``refusal``: the server's error
   * that refused this page's join because the race has started; the look-up tells whether
   * it is over (the server's words, if it does not answer). */
  async followRoom(refusal = null) {
    clearTimeout(this.lookTimer);
    const asked = (this.lookSeq = (this.lookSeq ?? 0) + 1); // only the latest look-up's answer counts
    let res = null;
    let info = {};
    try {
      res = await fetch(`/api/rooms/${encodeURIComponent(this.code)}`, { signal: AbortSignal.timeout(LOOK_UP_MS) });
      info = await res.json().catch(() => ({}));
    } catch {
      res = null; // offline, or no answer in time
    }
    // The page moved on meanwhile, or a later look-up was sent (an earlier one's answer,
    // come late, would undo what a later one said: a race's lobby, after the refusal).
    if (asked !== this.lookSeq || this.destroyed || this.seat || this.gone !== null || this.joinName) return;
    if (res?.status === 404) {
      this.link.close();
      this.showGone(info.error || "There is no such room.");
      return;
    }
    const was = this.joinNote;
    let note = res?.ok ? joinNoteFor(info, !!was?.closed || !!refusal) : was; // no answer: as it was
    if (refusal && !res?.ok) note = { code: refusal.code, message: refusal.message, closed: true };
    this.joinNote = note;
    this.lookLater();
    if (refusal) this.joinShown = null; // the form sent is drawn afresh (its button was turned off)
    if (refusal || note?.closed || was?.closed) this.render(); // the panel changes (drawn again only if it does)
    else if (note) showJoinNote(this.joinEl, note); // into the form: a name being typed stays
  }

  /** While the room takes no seat (a daily attempt never will), look it up again in a while. */
  lookLater() {
    clearTimeout(this.lookTimer);
    if (!this.joinNote?.closed || this.joinNote.code === "daily") return;
    this.lookTimer = setTimeout(() => {
      if (document.hidden) this.lookWhenShown = true;
      else this.followRoom();
    }, LOOK_AGAIN_MS);
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.ticker);
    clearTimeout(this.pendingTimer);
    clearTimeout(this.hostTimer);
    clearTimeout(this.endTimer);
    clearTimeout(this.lookTimer);
    document.removeEventListener("keydown", this.keyHandler);
    document.removeEventListener("pointerdown", this.outsideHandler);
    document.removeEventListener("visibilitychange", this.shownHandler);
    this.sideBeside.removeEventListener("change", this.besideHandler);
    this.link.close();
  }

  // -- the page skeleton ---------------------------------------------------------------

  build() {
    this.board = new BoardView({
      interactive: true,
      onMove: (text) => this.play(text),
    });
    const button = (testid, label, onclick, title) =>
      h("button", { type: "button", "data-testid": testid, class: "tool", onclick, title }, label);
    this.timerEl = h("span", { class: "timer", "data-testid": "timer", role: "timer", "aria-label": "race time" }, "0:00.0");
    this.movesEl = h("span", { class: "stat", "data-testid": "move-count" }, "0");
    this.cardsEl = h("span", { class: "stat", "data-testid": "card-count" }, "8");
    this.leftEl = h("span", { class: "timer", "data-testid": "time-left", role: "timer", "aria-label": "time left" });
    this.leftBox = h("div", { class: "stats", hidden: true }, h("span", { class: "label" }, "Left"), this.leftEl);
    this.shuffleBtn = button("shuffle", "Shuffle", () => this.shuffle(), "Shuffle (S): every pile's bottom card goes to its top");
    this.hintBtn = button("hint", "Hint", () => this.askHint(), "Hint (H)");
    this.undoBtn = button("undo", "Undo", () => this.undo(), "Undo (U)");
    this.restartBtn = button("restart", "Restart", () => this.restart(), "Restart this deal (the clock keeps running)");
    this.resignBtn = button("resign", "Resign", () => this.resign(), "Resign from this race");
    this.hintText = h("p", { class: "hint-text", "data-testid": "hint-text", "aria-live": "polite" });
    // The banners (won, resigned, stuck; the race's end) are live: a screen reader hears
    // each as it comes.
    this.banner = h("div", { class: "banner-area", "aria-live": "polite", "data-testid": "banners" });
    // Once the race is over, where the ranking is under the board (a phone), the way to it
    // and its Rematch: after the live banners, not in them, so that "Race over" is read
    // without it.
    this.toRanking = h(
      "p",
      { class: "to-ranking-row", hidden: true },
      h("button", { type: "button", class: "small to-ranking", "data-testid": "to-ranking", onclick: () => this.showRanking() }, "See the ranking"),
    );
    this.sideBeside = window.matchMedia(SIDE_BESIDE);
    this.besideHandler = () => this.showToRanking();
    this.sideBeside.addEventListener("change", this.besideHandler);
    // Always in the page, empty when there is nothing to count: a live region speaks what
    // changes in it, and one that appeared with its first number might not be heard.
    this.countdownEl = h("div", { class: "countdown", "data-testid": "countdown", "aria-live": "assertive" });
    this.toolbar = h(
      "div",
      { class: "toolbar", "data-testid": "toolbar" },
      h("div", { class: "stats" }, h("span", { class: "label" }, "Time"), this.timerEl),
      h(
        "div",
        { class: "stats", title: "Every move made, undone or not (a restart keeps the count): between equal results, fewer is better" },
        h("span", { class: "label" }, "Moves"),
        this.movesEl,
      ),
      h("div", { class: "stats" }, h("span", { class: "label" }, "Home"), this.cardsEl),
      this.leftBox,
      this.hintText,
      h("div", { class: "tools" }, this.shuffleBtn, this.hintBtn, this.undoBtn, this.restartBtn, this.resignBtn),
    );
    // On a phone the side panel sits below the board: a one-line summary of the others
    // stays in view above it.
    this.rivals = h("ul", { class: "rivals", "data-testid": "rivals", "aria-hidden": "true" });
    this.side = h("aside", { class: "side", "data-testid": "race-side" });
    // The keys, at the head of the race (where the header line has room): shown with it.
    this.keysHelp = keysHelp();
    this.raceEl = h(
      "section",
      { class: "race", "data-testid": "race" },
      this.keysHelp,
      h("div", { class: "play" }, this.toolbar, this.rivals, this.banner, this.toRanking, h("div", { class: "board-wrap" }, this.board.el, this.countdownEl)),
      this.side,
    );
    this.header = h("div", { class: "room-head", "data-testid": "room-head" });
    this.notice = h("div", { class: "banner-area notice", "aria-live": "polite" });
    // The room's news for screen readers (the tags, the side panel and the banners show it):
    // who went away or came back, who finished, resigned or is stuck, the end of the race.
    this.news = announcer("presence-announce");
    this.lobbyEl = h("section", { class: "lobby", "data-testid": "lobby" });
    this.joinEl = h("section", { class: "join", "data-testid": "join" });
    this.pageEl = h("section", { class: "room", "data-testid": "room", "data-code": this.code }, this.header, this.notice, this.news, this.joinEl, this.lobbyEl, this.raceEl);
    fill(this.root, this.pageEl);
  }

  // -- the connection -------------------------------------------------------------------

  onOpen() {
    if (this.token) {
      const msg = { type: "resume", room: this.code, token: this.token };
      if (this.state) msg.version = this.state.version;
      this.link.send(msg);
    } else if (this.joinName) {
      this.link.send({ type: "join", room: this.code, name: this.joinName });
    }
  }

  onKicked(reason) {
    this.kicked = true;
    this.pending = null;
    this.presence = null; // no longer live here: show no one as away
    fill(
      this.notice,
      h(
        "div",
        { class: "banner warn", "data-testid": "kicked-banner" },
        h("span", {}, `Disconnected: ${reason}.`),
        h("button", { type: "button", onclick: () => this.useHere() }, "Play here"),
      ),
    );
    this.render();
  }

  useHere() {
    this.kicked = false;
    fill(this.notice);
    this.link.connect();
  }

  resync() {
    const now = Date.now();
    if (now - this.lastResync < 1500 || this.kicked) return;
    this.lastResync = now;
    // Ask for the room and this seat's state again; reconnect when that cannot be sent.
    if (!(this.seat && this.link.send({ type: "sync" }))) this.link.reconnect();
  }

  onMessage(m) {
    switch (m.type) {
      case "joined": {
        const before = this.room;
        this.seat = m.seat;
        this.joinFocused = false;
        this.presence = null; // a new connection: the room's presence follows this reply
        this.hintAsked = null; // nor a hint asked on the old one
        if (m.token) {
          this.token = m.token;
          store.set(tokenKey(this.code), m.token);
        }
        this.room = mergeSnapshot(this.room, m.room);
        this.setState(m.state);
        this.clearPending();
        this.render();
        this.tellRoomNews(before); // back after a lost connection: what happened meanwhile
        break;
      }
      case "room": {
        const before = this.room;
        const round = this.room?.round;
        this.room = mergeSnapshot(this.room, m.room);
        if (round !== undefined && round !== m.room.round) {
          // A rematch dealt new games: fetch this seat's fresh state.
          this.clearHint();
          this.resync();
          // Whoever started it hosts it: the others are told (the old host most of all).
          const host = m.room.players.find((p) => p.seat === m.room.host);
          if (host && host.seat !== this.seat && this.seat) {
            const handed = before?.host === this.seat ? `; ${host.name} hosts it now` : "";
            toast(`${host.name} started a rematch on a new deal${handed}.`);
          }
        }
        this.checkOwnVersion();
        this.render();
        this.tellRoomNews(before);
        break;
      }
      case "player": {
        const before = this.room?.players.slice(); // applyPlayer replaces the entry it updates
        if (this.room && applyPlayer(this.room.players, m.player)) {
          announce(this.news, raceNews(before, this.room.players, this.seat));
          this.renderSide();
          this.checkOwnVersion();
        }
        break;
      }
      case "presence": {
        const before = this.presence;
        this.presence = newerPresence(before, m);
        if (this.presence === before) break; // old news, or the same again
        const news = presenceNews(before, this.presence, this.room?.players || [], this.seat, this.seenHere);
        announce(this.news, news);
        for (const seat of this.presence.here) this.seenHere.add(seat);
        if (this.phase === "lobby") this.renderLobby();
        else this.renderSide();
        break;
      }
      case "left": {
        store.remove(tokenKey(this.code));
        this.token = null;
        this.navigate("/");
        break;
      }
      case "state": {
        this.clearPending();
        this.setState(m);
        this.render();
        break;
      }
      case "hint": {
        this.hintAsked = null;
        if (this.state && m.version === this.state.version && this.inRace()) {
          if (m.move) {
            this.hint = parseMove(m.move);
            this.hintText.textContent = `Hint: ${describeMove(this.state.board, m.move)}`;
          } else {
            this.hint = null;
            this.hintText.textContent = "No legal move is left.";
          }
          this.hintText.dataset.move = m.move || "";
          this.renderBoard();
          this.renderTools(); // a shuffle hinted lights up the Shuffle button
        }
        break;
      }
      case "resync":
        this.resync();
        break;
      case "error":
        this.onError(m);
        break;
      default:
        break;
    }
  }

  /** Tell a screen reader what a new snapshot of the room changed since ``before`` (the room
   * as it was): the other players' finishes, resignations and getting stuck. (The end of
   * the race, with this player's place, is the over banner's, which is live.) */
  tellRoomNews(before) {
    const room = this.room;
    if (!before || !room || before.round !== room.round || !this.seat) return;
    announce(this.news, raceNews(before.players, room.players, this.seat));
  }

  onError(m) {
    const wasPending = this.pending;
    this.clearPending();
    this.hintAsked = null; // replies come in order: a hint asked is answered by now
    if (m.state) {
      this.setState(m.state);
      this.render();
      return;
    }
    if (wasPending) this.render(); // drop the preview: back to the server's board
    switch (m.code) {
      case "bad_token":
        this.dropSeat("That seat is no longer yours; join again.");
        return;
      case "unknown_room":
        store.remove(tokenKey(this.code));
        this.token = null;
        this.link.close();
        this.showGone(m.message);
        return;
      case "not_over":
        if (this.phase === "lobby") return; // two pressed Rematch at once: the other one's started it
        break;
      case "already_started":
        if (!this.seat) {
          // No seat, and no form: first what became of the race (over, or a new round).
          this.joinName = null;
          this.followRoom(m);
          return;
        }
        break;
      case "room_full":
      case "name_taken":
      case "bad_name":
        if (!this.seat) {
          this.joinName = null;
          this.render(m);
          return;
        }
        break;
      default:
        break;
    }
    toast(m.message, "error");
  }

  /** This page no longer has a seat here (the host removed it, or its token stopped
   * working): back to the join form, with ``message``. */
  dropSeat(message) {
    store.remove(tokenKey(this.code));
    this.token = null;
    this.seat = null;
    this.state = null;
    this.joinNote = null; // (a full room, say, when this page joined: old news)
    this.link.close();
    this.render();
    toast(message, "error");
    this.lookUp(); // a race that has started takes no new seat: the form gives way to watching
  }

  /** The room no longer exists (it expired, or its server lost it): no seat, no board and
   * no clock any more, only the way home. The caller has closed the link. */
  showGone(message) {
    this.gone = message;
    this.room = null;
    this.seat = null;
    this.state = null;
    this.confirming = null;
    this.clearPending();
    clearInterval(this.ticker);
    clearTimeout(this.hostTimer);
    clearTimeout(this.confirmTimer);
    clearTimeout(this.lookTimer);
    this.render();
  }

  setState(state) {
    if (this.state && state.version !== this.state.version) this.clearHint();
    this.state = state;
    // My own entry in the side panel: no `player` broadcast comes back for my own moves.
    if (this.room && state.seat) applyPlayer(this.room.players, playerFromState(state));
  }

  /** Take the hint off the page: its text and its outlines on the board (drawn next). */
  clearHint() {
    this.hint = null;
    if (this.hintText.textContent) this.hintText.textContent = "";
    this.hintText.dataset.move = "";
  }

  clearPending() {
    this.pending = null;
    clearTimeout(this.pendingTimer);
  }

  /** My seat moved on without me hearing about it (another tab, a lost reply): resync. */
  checkOwnVersion() {
    if (!this.room || !this.state || this.pending) return;
    const mine = this.room.players.find((p) => p.seat === this.seat);
    if (mine && (mine.version ?? 0) > this.state.version) this.resync();
  }

  // -- actions -------------------------------------------------------------------------

  canAct() {
    return this.phase === "racing" && this.state && !this.pending && !this.kicked && this.gone === null;
  }

  /** Whether this player is in a race that runs: racing, and neither finished nor out. */
  inRace() {
    return this.phase === "racing" && !!this.state && !this.isDone();
  }

  send(msg, previewMove = null) {
    if (!this.canAct()) return false;
    const id = clientId();
    const full = { ...msg, version: this.state.version, id };
    if (!this.link.send(full)) {
      toast("Not connected; reconnecting…", "error");
      return false;
    }
    this.pending = { id, move: previewMove };
    this.pendingTimer = setTimeout(() => {
      if (this.pending?.id === id) {
        // No reply: back to the server's board as last heard (no preview, input open again)
        // while a resync asks what became of the move.
        this.pending = null;
        this.renderBoard();
        this.renderTools();
        this.resync();
      }
    }, PENDING_TIMEOUT_MS);
    this.renderBoard();
    this.renderTools();
    return true;
  }

  play(text) {
    if (!this.state?.legal_moves.includes(text)) return;
    this.send({ type: "move", move: text }, text);
  }

  shuffle() {
    if (this.state?.legal_moves.includes("shuffle")) this.play("shuffle");
  }

  undo() {
    if (this.state?.can_undo) this.send({ type: "undo" });
  }

  /** Ask for a hint, one at a time: not again while one is awaited (for at most as long as
   * a move's reply is). */
  askHint() {
    if (!this.canAct() || this.isDone()) return;
    if (this.hintAsked !== null && performance.now() - this.hintAsked < PENDING_TIMEOUT_MS) return;
    if (this.link.send({ type: "hint" })) this.hintAsked = performance.now();
  }

  confirm(which, action) {
    if (this.confirming === which) {
      this.confirming = null;
      clearTimeout(this.confirmTimer);
      action();
    } else {
      this.confirming = which;
      clearTimeout(this.confirmTimer);
      this.confirmTimer = setTimeout(() => {
        this.confirming = null;
        this.renderTools();
        this.renderSide();
      }, 3000);
    }
    this.renderTools();
    this.renderSide();
  }

  restart() {
    if (this.canAct() && this.state.moves + (this.state.can_undo ? 1 : 0) > 0) {
      this.confirm("restart", () => this.send({ type: "restart" }));
    }
  }

  resign() {
    if (this.canAct() && !this.isDone()) this.confirm("resign", () => this.link.send({ type: "resign" }));
  }

  isDone() {
    const s = this.state;
    return !!s && (finished(s) || s.resigned || s.won);
  }

  onKey(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = e.target?.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    const key = e.key.toLowerCase();
    // A key held down repeats: U then undoes move after move (each waits for the last one's
    // reply), but a shuffle, a hint or the keys' list is one press each; and so is U in the
    // countdown (told once that the race has not started, not at each repeat).
    if (e.repeat && (key === "s" || key === "h" || key === "?" || (key === "u" && this.phase === "countdown"))) {
      e.preventDefault();
      return;
    }
    if (this.phase === "countdown" && (key === "u" || key === "s" || key === "h")) this.board.announce(NOT_YET);
    else if (key === "u") this.undo();
    else if (key === "s") this.shuffle();
    else if (key === "h") this.askHint();
    else if (key === "?" && !this.raceEl.hidden) this.keysHelp.open = !this.keysHelp.open;
    else if (key === "escape") {
      this.keysHelp.open = false;
      this.board.clearSelection();
    } else return;
    e.preventDefault();
  }

  // -- drawing -------------------------------------------------------------------------

  tick() {
    if (!this.room) return;
    const phase = phaseAt(this.room, this.link.serverNow());
    if (phase !== this.phase) {
      this.render();
      return;
    }
    this.renderClock();
  }

  renderClock() {
    const room = this.room;
    if (!room) return;
    const now = this.link.serverNow();
    if (this.phase === "countdown") {
      this.countedDown = room.start_at; // this page counted down to that start: "Go!" follows
      this.showCountdown(String(Math.max(1, Math.ceil((room.start_at - now) / 1000))));
      this.timerEl.textContent = formatMs(0);
      this.leftBox.hidden = !room.time_limit;
      if (room.time_limit) this.leftEl.textContent = formatMs(room.time_limit * 1000);
      return;
    }
    // "Go!" over the live board for a moment after the countdown (it takes no clicks); not
    // for a daily attempt, whose clock starts at its first move, nor on a page opened late.
    const go = this.phase === "racing" && room.start_at === this.countedDown && now - room.start_at < GO_MS;
    this.showCountdown(go ? "Go!" : null);
    let elapsed = null;
    const s = this.state;
    if (s && finished(s)) elapsed = s.finished_ms;
    else if (room.start_at && this.phase === "over") elapsed = (room.ended_at ?? now) - room.start_at;
    else if (room.start_at && this.phase === "racing") elapsed = now - room.start_at;
    this.timerEl.textContent = elapsed === null ? formatMs(0) : formatMs(Math.max(0, elapsed));
    this.leftBox.hidden = !room.time_limit;
    if (room.time_limit && room.start_at) {
      const end = room.start_at + room.time_limit * 1000;
      // Over: what was left when the race ended (0 only if the time ran out).
      const left = this.phase === "racing" ? end - now : this.phase === "over" ? end - (room.ended_at ?? end) : room.time_limit * 1000;
      this.leftEl.textContent = formatMs(Math.min(room.time_limit * 1000, Math.max(0, left))); // ended in the countdown: all of it
    }
  }

  /** What the countdown shows (null: nothing); a screen reader hears each change once. */
  showCountdown(text) {
    if (this.countdownEl.textContent !== (text ?? "")) this.countdownEl.textContent = text ?? "";
  }

  render(joinError = null) {
    // The part of the page that has the keyboard focus may be hidden now (the lobby when the
    // race starts): the focus then goes on to what took its place, never lost to the body.
    const focused = [this.joinEl, this.lobbyEl, this.raceEl].find((el) => el.contains(document.activeElement));
    this.renderPage(joinError);
    if (focused?.hidden) this.focusTarget()?.focus();
  }

  /** Where the keyboard goes when the part of the page it was in is hidden. */
  focusTarget() {
    if (!this.joinEl.hidden) return this.joinEl.querySelector("input, button, a");
    if (!this.lobbyEl.hidden) return this.lobbyEl.querySelector("[data-testid=ready]");
    if (!this.raceEl.hidden) return this.board.zone("p0"); // the first pile: Tab goes on around the board
    return null;
  }

  renderPage(joinError) {
    if (this.gone !== null) {
      this.phase = "gone";
      this.pageEl.dataset.phase = "gone";
      delete this.pageEl.dataset.seat;
      this.renderHeader();
      this.lobbyEl.hidden = true;
      this.raceEl.hidden = true;
      this.joinEl.hidden = false;
      fill(this.joinEl, gonePanel(this.gone));
      this.joinShown = "gone";
      return;
    }
    const room = this.room;
    const lobby = !this.lobbyEl.hidden && this.phase === "lobby"; // the lobby was on the page
    this.phase = phaseAt(room, this.link.serverNow());
    this.pageEl.dataset.phase = this.seat ? this.phase : "join";
    if (this.seat) this.pageEl.dataset.seat = this.seat;
    this.renderHeader();
    this.joinEl.hidden = !!this.seat;
    this.lobbyEl.hidden = !this.seat || this.phase !== "lobby";
    this.raceEl.hidden = !this.seat || this.phase === "lobby" || this.phase === "loading";
    // The race takes the lobby's place (which may have been scrolled down to its buttons, on
    // a short screen): from the top of the page, the board's top in view.
    if (lobby && !this.raceEl.hidden) window.scrollTo({ top: 0, left: 0, behavior: "instant" });
    if (!this.seat) {
      if (this.token) {
        fill(this.joinEl, h("p", { class: "muted" }, "Reconnecting to your seat…"));
        this.joinShown = "reconnecting";
      } else {
        this.renderJoin(joinError);
      }
      return;
    }
    this.joinShown = null; // (the form is drawn afresh if this page is ever without its seat again)
    // A hint is for a race being played: not once it is over, or this player is out of it.
    if (!this.inRace()) this.clearHint();
    if (this.phase === "lobby") this.renderLobby();
    else {
      this.renderBoard();
      this.renderTools();
      this.renderSide();
      this.renderBanner();
      this.renderClock();
    }
  }

  renderHeader() {
    const room = this.room;
    fill(
      this.header,
      h("h1", {}, "Room ", h("span", { class: "code", "data-testid": "room-code" }, this.code)),
      room ? h("p", { class: "muted" }, roomSummary(room)) : null,
    );
  }

  /** The join form, or (``joinNote.closed``) the panel of a room that takes no seat now;
   * ``error``: the server's answer to a join, said in the form. Drawn again only when what
   * it shows changes (a name being typed stays). When it changes under the keyboard's
   * focus, the focus goes on into it: to the closed panel's heading, or the name field. */
  renderJoin(error) {
    const join = (name, { focused = false } = {}) => {
      this.joinName = name;
      this.joinFocused = focused; // (the form turns its button off: the focus is then lost)
      if (this.link.ready) this.onOpen();
      else this.link.connect();
    };
    const note = this.joinNote;
    const shown = note?.closed ? `closed ${note.code}${note.over ? " over" : ""}` : "form";
    if (!error && shown === this.joinShown) return;
    const active = document.activeElement;
    const had = this.joinEl.contains(active) || (this.joinFocused && (!active || active === document.body));
    this.joinFocused = false;
    const reopened = this.joinShown?.startsWith("closed") && !note?.closed;
    this.joinShown = shown;
    if (note?.closed) {
      fill(this.joinEl, closedPanel(this.code, note));
      if (had) this.joinEl.querySelector("h2").focus();
      return;
    }
    fill(this.joinEl, joinForm({ code: this.code, error: error || note, join }));
    if (had) this.joinEl.querySelector("input").focus(); // (the note is the field's description)
    else if (reopened && note) announce(this.news, note.message);
  }

  renderLobby() {
    const send = (msg) => this.sendNow(msg);
    const now = this.link.serverNow();
    refill(this.lobbyEl, lobbyPanel({ room: this.room, seat: this.seat, code: this.code, send, disabled: this.kicked, presence: this.presence, now }));
    // A host who just went away may be reloading: the others may act as host a little later.
    const wait = awayIn(this.presence, this.room.host, this.seat, now);
    clearTimeout(this.hostTimer);
    if (wait) this.hostTimer = setTimeout(() => this.phase === "lobby" && this.renderLobby(), wait + 50);
  }

  /** Send a lobby or room message now, or say why it cannot go. */
  sendNow(msg) {
    if (this.gone !== null) return;
    if (this.kicked) toast("This seat is now played in another window; press “Play here” to play here", "error");
    else if (!this.link.send(msg)) toast("Not connected; reconnecting…", "error");
  }

  legalNow() {
    if (this.phase !== "racing" || !this.state || this.pending || this.kicked) return [];
    return this.state.legal_moves;
  }

  renderBoard() {
    const s = this.state;
    if (!s) return;
    const board = this.pending?.move ? preview(s.board, this.pending.move) : s.board;
    this.board.update(board, {
      legal: this.legalNow(),
      hint: this.hint,
      version: s.version,
      pending: !!this.pending,
      closed: this.phase === "countdown" ? NOT_YET : this.phase === "over" ? "The race is over." : null,
    });
    this.board.el.classList.toggle("waiting", this.phase === "countdown");
    this.movesEl.textContent = String(s.moves);
    this.cardsEl.textContent = `${s.cards}/104`;
  }

  renderTools() {
    const s = this.state;
    const legal = this.legalNow();
    const active = this.canAct();
    const shufflesLeft = s?.board.shuffles_left ?? 0;
    this.shuffleBtn.textContent = `Shuffle (${shufflesLeft})`;
    this.shuffleBtn.dataset.shufflesLeft = shufflesLeft;
    this.shuffleBtn.disabled = !legal.includes("shuffle");
    this.shuffleBtn.classList.toggle("hint", Boolean(this.hint?.shuffle) && legal.includes("shuffle"));
    this.hintBtn.disabled = !active || this.isDone();
    this.undoBtn.disabled = !active || !s?.can_undo;
    this.restartBtn.disabled = !active || this.isDone() || !s?.can_undo;
    this.restartBtn.textContent = this.confirming === "restart" ? "Really restart?" : "Restart";
    this.restartBtn.classList.toggle("confirm", this.confirming === "restart");
    this.resignBtn.disabled = !active || this.isDone();
    this.resignBtn.textContent = this.confirming === "resign" ? "Really resign?" : "Resign";
    this.resignBtn.classList.toggle("confirm", this.confirming === "resign");
  }

  renderSide() {
    if (!this.room || this.phase === "lobby") return;
    const room = this.room;
    const host = room.host === this.seat;
    const parts = [h("h2", {}, "Race"), progressList(room.players, { me: this.seat, host: room.host, presence: this.presence }), watchingLine(this.presence)];
    if (this.phase === "over") {
      // (focusable, for the over banner's way to it on a phone)
      parts.push(h("h2", { tabindex: "-1", "data-testid": "ranking-title" }, "Ranking"), rankingTable(room.ranking, { me: this.seat }));
      // Anyone may start it (the host may have gone), and hosts it.
      parts.push(
        h("button", { type: "button", class: host ? "primary" : null, "data-testid": "rematch", onclick: () => this.sendNow({ type: "rematch" }) }, "Rematch (new deal)"),
      );
    }
    // (asked only of a race that runs: a player who went away may be counted still, and the
    // panel is then drawn again when they stop counting)
    const running = this.phase === "racing" || this.phase === "countdown";
    if (!running) clearTimeout(this.endTimer);
    if (running && this.mayEnd()) {
      // For a player who went away without resigning: everyone still racing is ranked by cards.
      const sure = this.confirming === "end";
      parts.push(
        h(
          "button",
          { type: "button", class: sure ? "confirm" : null, "data-testid": "end-race", onclick: () => this.confirm("end", () => this.sendNow({ type: "end" })) },
          sure ? "Really end it for everyone?" : "End the race",
        ),
      );
    }
    // In a new tab: here, this page would leave the seat (its rival would see it go away).
    parts.push(
      h(
        "p",
        { class: "muted small" },
        h(
          "a",
          { href: `/watch/${this.code}`, target: "_blank", rel: "noopener", "data-testid": "spectator-link" },
          "Spectator view",
          h("span", { class: "sr-only" }, " (opens in a new tab)"),
        ),
      ),
    );
    refill(this.side, parts);
    fill(
      this.rivals,
      room.players
        .filter((p) => p.seat !== this.seat)
        // (dir: a right-to-left name cut short loses its end, not its beginning)
        .map((p) => h("li", {}, h("span", { class: "name", dir: "auto" }, p.name), ` ${p.cards}/104`, statusText(p) ? ` · ${statusText(p)}` : "", isAway(this.presence, p.seat) ? " · away" : "")),
    );
    this.side.dataset.phase = this.phase;
  }

  /** Whether this player may end the race (one that runs) for everyone (the server's rule):
   * the host, with someone else in it; or a player who is out of it when at most one of
   * those still racing counts, one who has been away for HOST_AWAY_MS not counting. While
   * someone who went away still counts, the panel is drawn again when they stop counting. */
  mayEnd() {
    const room = this.room;
    clearTimeout(this.endTimer);
    if (room.host === this.seat) return room.players.length > 1;
    const out = (p) => finished(p) || p.resigned || p.won;
    if (!room.players.some((p) => p.seat === this.seat && out(p))) return false;
    const now = this.link.serverNow();
    const waits = room.players.filter((p) => !out(p)).map((p) => awayIn(this.presence, p.seat, this.seat, now));
    const counted = waits.filter((w) => w !== 0); // here (null), or gone only just (ms to wait)
    if (counted.length <= 1) return true;
    const soonest = Math.min(...counted.filter((w) => w !== null));
    if (Number.isFinite(soonest)) this.endTimer = setTimeout(() => this.renderSide(), soonest + 50);
    return false;
  }

  /** The way to the ranking, once the race is over, where the ranking is under the board. */
  showToRanking() {
    // No side panel (a daily attempt's page has its own), no ranking to go to.
    this.toRanking.hidden = this.phase !== "over" || this.sideBeside.matches || this.side.hidden;
  }

  /** Take the player to the ranking (below the board on a phone): scrolled into view, and
   * the keyboard's focus on its heading. */
  showRanking() {
    const title = this.side.querySelector("[data-testid=ranking-title]");
    if (!title) return;
    title.focus({ preventScroll: true });
    const still = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    title.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  }

  renderBanner() {
    const s = this.state;
    const room = this.room;
    const place = room?.ranking?.find((r) => r.seat === this.seat)?.place;
    const over = this.phase === "over";
    const done = s && finished(s);
    // The banners are live: a banner is put in (or swapped) only when it says something
    // new, so that a screen reader hears it once, not again at every redraw. The place,
    // known at the end, is added to the won banner.
    const own = done ? `won ${s.finished_ms} ${s.moves}` : s?.resigned ? "resigned" : s?.stuck ? "stuck" : "";
    if (own !== this.ownKey) {
      this.ownKey = own;
      this.placeEl = h("span", { "aria-hidden": "true" }); // the over banner says the place to a screen reader
      let banner = null;
      if (done) {
        banner = h(
          "div",
          { class: "banner won", "data-testid": "won-banner" },
          h("strong", {}, "You cleared the deal!"),
          ` Time ${formatMs(s.finished_ms)} in ${count(s.moves, "move")}`,
          this.placeEl,
        );
      } else if (s?.resigned) {
        banner = h("div", { class: "banner lost", "data-testid": "resigned-banner" }, "You resigned from this race.");
      } else if (s?.stuck) {
        banner = h(
          "div",
          { class: "banner stuck", "data-testid": "stuck-banner" },
          h("strong", {}, "Stuck:"),
          " no legal move and no shuffle left. Undo, restart or resign.",
        );
      }
      this.ownBanner = swapBanner(this.banner, this.ownBanner, banner, true);
    }
    const placeText = over && place ? ` · ${ordinal(place)} place` : "";
    if (this.placeEl.textContent !== placeText) this.placeEl.textContent = placeText;
    const timedOut = over && endedByTime(room);
    const end = over ? `${timedOut} ${place} ${room.ranking.length}` : "";
    if (end !== this.overKey) {
      this.overKey = end;
      const banner = over
        ? h(
            "div",
            { class: "banner over", "data-testid": "over-banner" },
            h("strong", {}, timedOut ? "Time is up: race over." : "Race over."),
            place ? ` You placed ${ordinal(place)} of ${room.ranking.length}.` : "",
          )
        : null;
      this.overBanner = swapBanner(this.banner, this.overBanner, banner, false);
    }
    this.showToRanking();
  }
}

/** Put ``banner`` in ``area`` in place of ``old`` (either may be null), first or last,
 * touching nothing else there (a live region speaks what is added); return ``banner``. */
function swapBanner(area, old, banner, first) {
  if (old && banner) old.replaceWith(banner);
  else if (old) old.remove();
  else if (banner) area[first ? "prepend" : "append"](banner);
  return banner;
}

export function roomView(root, options) {
  return new RoomView(root, options);
}

/** The keys, for a keyboard player: a small "Keys" disclosure (the ? key opens and closes
 * it too). */
function keysHelp() {
  const row = (keys, what) => [h("dt", {}, keys.map((k, i) => [i ? " or " : "", h("kbd", {}, k)])), h("dd", {}, what)];
  return h(
    "details",
    { class: "keys", "data-testid": "keys-help" },
    h("summary", { title: "Keys (?)" }, "Keys"),
    h(
      "dl",
      { class: "keys-panel" },
      row(["Tab"], "go from pile to pile, and to the foundations"),
      row(["Enter", "Space"], "play a pile’s card home, or pick it up if no foundation takes it"),
      row(["Shift+Enter"], "pick up a pile’s card to choose where it goes: then Enter there"),
      row(["Escape"], "put the card down"),
      row(["S"], "shuffle"),
      row(["H"], "hint"),
      row(["U"], "undo"),
      row(["?"], "show or hide these keys"),
    ),
  );
}

/** Why a room takes no seat now, or what to know before taking one, from its look-up
 * (``info``, the answer of `GET /api/rooms/CODE`); null when nothing. ``wasClosed``: it took
 * none when last looked up (a lobby is then a rematch's new round). */
function joinNoteFor(info, wasClosed) {
  if (info.kind === "daily") {
    return { code: "daily", message: "This is someone’s daily challenge attempt: one player only. You can watch it.", closed: true };
  }
  if (info.phase === "over") return { code: "already_started", message: "This race is over; you can watch its results.", closed: true, over: true };
  if (info.phase !== "lobby") return { code: "already_started", message: "This race has already started; you can watch it.", closed: true };
  if (info.players >= info.max_players) return { code: "room_full", message: `This room is full (${info.max_players} players); you can watch the race.` };
  return wasClosed ? { code: "new_round", message: "A new round is waiting: you can join it." } : null;
}

/** Instead of the join form, for a race that takes no new player (it has started, it is
 * over, it is a daily attempt): why, and the way to watch it. */
function closedPanel(code, note) {
  const title = note.code === "daily" ? "A daily challenge attempt" : note.over ? "This race is over" : "This race has started";
  return h(
    "div",
    { class: "card-panel narrow", "data-testid": "join-closed", "data-code": note.code },
    h("h2", { tabindex: "-1" }, title), // (the focus goes here when this panel takes the form's place)
    h("p", { id: "join-closed-why", "data-testid": "join-error" }, sentence(note.message)),
    h(
      "p",
      { class: "actions" },
      h(
        "a",
        { href: `/watch/${encodeURIComponent(code)}`, class: "button primary", "data-testid": "watch-instead", "aria-describedby": "join-closed-why" },
        note.over ? "See the results" : "Watch the race",
      ),
      h("a", { href: "/", class: "button" }, "Back home"),
    ),
  );
}

/** The panel of a room that no longer exists, with the way home. */
export function gonePanel(message) {
  return h(
    "div",
    { class: "card-panel narrow", "data-testid": "room-gone" },
    h("h2", {}, "No such race"),
    h("p", {}, sentence(message)),
    h("a", { href: "/", class: "button" }, "Back home"),
  );
}

/** What a room is, for its page's header: "hard · deal 42 · 10 min limit · round 2". */
export function roomSummary(room) {
  const limit = room.time_limit ? ` · ${limitText(room.time_limit)} limit` : "";
  return `${room.difficulty} · deal ${room.deal}${limit}${room.round > 1 ? ` · round ${room.round}` : ""}`;
}

/** A time limit in words: "10 min", "30 s", "1 min 30 s". */
function limitText(seconds) {
  const min = Math.floor(seconds / 60);
  const sec = seconds % 60;
  return [min ? `${min} min` : "", sec ? `${sec} s` : ""].filter(Boolean).join(" ");
}
