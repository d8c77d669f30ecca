// A seat in a room: its connection, the room's store it feeds, and what the player sends.
// It draws nothing: pages draw the store's state; ``on`` tells them the rest. The seat's
// token is kept in localStorage per room: a refresh or a dropped connection resumes it.

import { deviceKey } from "./device.js";
import { store as saved, toast, tokenKey } from "./dom.js";
import { initial, reduce } from "./model/room.js";
import { isHidden } from "./model/cards.js";
import { canAct, me, phase } from "./model/select.js";
import { createStore } from "./model/store.js";
import { isOut } from "./model/words.js";
import { errorText, t } from "./i18n.js";
import { Link } from "./net.js";

const REPLY_WAIT_MS = 5000; // a move (or a hint) unanswered this long is given up, unless hello says
const RESYNC_MS = 1500; // at most one resync so often

function clientId() {
  return Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
}

export class Seat {
  /** ``handoff``: {link, joined} already open; ``on``: error(m) (true: handled),
   * kicked(reason), removed(reason), left(). */
  constructor(code, { handoff = null, on = {} } = {}) {
    this.code = code;
    this.on = on;
    this.store = createStore(reduce, initial(code));
    this.token = saved.get(tokenKey(code));
    this.joinName = null; // a join on its way
    this.hintAsked = null; // when a hint still unanswered was asked
    this.lastResync = 0;
    this.link = handoff?.link || new Link({});
    this.link.handlers = {
      onOpen: (hello) => this.onOpen(hello),
      onMessage: (m) => this.onMessage(m),
      onKicked: (reason) => {
        this.store.dispatch({ type: "kicked" });
        this.on.kicked?.(reason);
      },
      onRemoved: (reason) => this.on.removed?.(reason),
    };
    if (this.link.hello) this.store.dispatch(this.link.hello);
  }

  get state() {
    return this.store.get();
  }

  onOpen(hello) {
    if (hello) this.store.dispatch(hello);
    const s = this.state;
    if (this.token) {
      const msg = { type: "resume", room: this.code, token: this.token };
      if (s.mine) msg.version = s.mine.version;
      this.link.send(msg);
    } else if (this.joinName) {
      this.link.send({ type: "join", room: this.code, name: this.joinName, device: deviceKey() });
    }
  }

  onMessage(m) {
    const before = this.state;
    if (m.type === "joined" || m.type === "hint" || m.type === "error") this.hintAsked = null; // (answered)
    if (m.type === "joined" && m.token) {
      this.token = m.token;
      saved.set(tokenKey(this.code), m.token);
    }
    const s = this.store.dispatch(m);
    if (m.type === "room" && before.room && before.room.round !== s.room.round) this.rematched();
    if (m.type === "room" || m.type === "player") this.checkOwnVersion();
    // The race has started: no board reaches anyone before, so fetch mine now.
    if (m.type === "room" && phase(s) === "racing" && isHidden(s.mine?.board)) this.link.send({ type: "sync" });
    if (m.type === "left") {
      this.forget();
      this.on.left?.();
    }
    if (m.type === "resync") this.resync();
    if (m.type === "error" && !m.state && !this.on.error?.(m)) {
      if ((m.code === "not_over" || m.code === "no_offer") && phase(s) === "lobby") return; // two answered at once: the round is open
      toast(errorText(m), "error");
    }
  }

  /** The next round opened (everyone in it said yes to the offer): fetch the new game. */
  rematched() {
    this.resync();
  }

  /** My seat moved on unheard (another tab, a lost reply): resync. */
  checkOwnVersion() {
    const s = this.state;
    const mine = me(s);
    if (s.mine && !s.pending && mine && (mine.version ?? 0) > s.mine.version) this.resync();
  }

  /** Ask for the room and my state again (or reconnect). */
  resync() {
    const now = Date.now();
    if (now - this.lastResync < RESYNC_MS || this.state.kicked || this.closed) return;
    this.lastResync = now;
    if (!(this.state.seat && this.link.send({ type: "sync" }))) this.link.reconnect();
  }

  join(name) {
    this.joinName = name;
    if (this.link.ready) this.onOpen();
    else this.link.connect();
  }

  /** Play here again (the seat was opened in another window). */
  useHere() {
    this.store.dispatch({ type: "here" });
    this.link.connect();
  }

  forget() {
    saved.remove(tokenKey(this.code));
    this.token = null;
  }

  /** The seat is lost (removed, or its token no longer works). */
  drop() {
    this.forget();
    this.link.close();
    this.store.dispatch({ type: "seat_lost" });
  }

  /** The room is no longer there. */
  gone(message) {
    this.forget();
    this.link.close();
    this.store.dispatch({ type: "gone", message });
  }

  close() {
    this.closed = true;
    clearTimeout(this.pendingTimer);
    this.link.close();
  }

  // -- what the player sends ---------------------------------------------------------

  /** Send a race action with the state's version; ``move`` is shown meanwhile. */
  send(msg, move = null) {
    const s = this.state;
    if (!canAct(s)) return false;
    const id = clientId();
    if (!this.link.send({ ...msg, version: s.mine.version, id })) {
      toast(t("seat.notConnected"), "error");
      return false;
    }
    this.store.dispatch({ type: "sent", id, move });
    clearTimeout(this.pendingTimer);
    this.pendingTimer = setTimeout(() => {
      // No reply: the board as last heard, input open, while a resync asks what became of it.
      if (this.state.pending?.id !== id) return;
      this.store.dispatch({ type: "unanswered", id });
      this.resync();
    }, this.replyWaitMs());
    return true;
  }

  /** Send a lobby or room message now, or say why it cannot go. */
  sendNow(msg) {
    const s = this.state;
    if (s.gone !== null) return;
    if (s.kicked) toast(t("seat.elsewhere"), "error");
    else if (!this.link.send(msg)) toast(t("seat.notConnected"), "error");
  }

  /** How long an answer may take: the server's ``reply_wait_ms`` (a setting). */
  replyWaitMs() {
    return this.link.hello?.reply_wait_ms ?? REPLY_WAIT_MS;
  }

  play(text) {
    if (this.state.mine?.legal_moves.includes(text)) this.send({ type: "move", move: text }, text);
  }

  shuffle() {
    this.play("shuffle");
  }

  undo() {
    if (this.state.mine?.can_undo) this.send({ type: "undo" });
  }

  /** Ask for a hint: not again while one is awaited (as long as a move's reply may be). */
  hint() {
    const s = this.state;
    if (!canAct(s) || isOut(s.mine) || s.room?.hints === "off") return; // (none in this room)
    if (this.hintAsked !== null && performance.now() - this.hintAsked < this.replyWaitMs()) return;
    if (this.link.send({ type: "hint" })) this.hintAsked = performance.now();
  }

  restart() {
    this.send({ type: "restart" });
  }

  resign() {
    this.link.send({ type: "resign" });
  }

  end() {
    this.sendNow({ type: "end" });
  }

  /** Ask to end the race (``vote`` false: no longer ask). */
  voteEnd(vote = true) {
    this.sendNow({ type: "vote_end", vote });
  }

  /** Leave the room (in the lobby, or once the race is over): ``left`` follows. */
  leave() {
    this.sendNow({ type: "leave" });
  }

  /** Offer a new round (or say yes to the offer on these terms): a new deal, or ``deal``;
   * with ``ghosts``, the same deal against this round's games. */
  rematch({ ghosts = false, deal = null } = {}) {
    const msg = { type: "rematch" };
    if (ghosts) msg.ghosts = true;
    if (deal !== null) msg.deal = deal;
    this.sendNow(msg);
  }

  /** Say yes or no to the rematch offered (a no withdraws it). */
  answer(accept) {
    this.sendNow({ type: "answer", accept });
  }
}
