// A player's room page (/r/CODE): join, lobby, countdown, the race, the result, rematch.
// The daily page shows its attempt (a one-seat room) with it too, in its own words.

import { announce, announcer, fill, h, refill, store, toast } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { news } from "../model/news.js";
import { hostAway, joinNote, phase } from "../model/select.js";
import { isOut, roomSummary } from "../model/words.js";
import { RETRY_MS } from "../net.js";
import { RoomRatings } from "../ratings.js";
import { Seat } from "../seat.js";
import { closedPanel, gonePanel, joinForm, lobbyPanel, showInvite, showJoinNote } from "../views/lobby.js";
import { celebrate } from "../views/moments.js";
import { RaceView } from "../views/race.js";
import { practiceNote } from "../views/practice.js";
import { offerNews } from "../views/series.js";
import { TUTORIAL_KEY, WELCOMED_KEY } from "./howto.js";

const LOOK_UP_MS = 5000; // a look-up with no answer by then counts as none

/** The page of room ``code``; ``handoff``: a connection already open. A daily attempt
 * passes ``words`` (RaceView's), ``head(state)``, ``waiting`` (instead of the join form),
 * ``title``, ``className``, ``onChange(state, before)`` and ``onError(m)`` (true: handled). */
export function roomPage(root, { code, navigate, handoff = null, ...options }) {
  return new RoomPage(root, code, navigate, handoff, options);
}

/** A player's first game offers the tutorial, once (in a new tab: here, the seat stays). */
function tutorialOffer() {
  if (store.get(TUTORIAL_KEY) || store.get(WELCOMED_KEY)) return null;
  store.set(TUTORIAL_KEY, "1");
  const panel = h(
    "aside",
    { class: "banner tutorial-offer", "data-testid": "tutorial-offer", "aria-label": t("home.welcomeLabel") },
    h("span", {}, h("strong", {}, t("room.firstGame")), " ", t("room.firstGameText")),
    h("a", { href: "/learn", target: "_blank", rel: "noopener", class: "button small primary", "data-testid": "tutorial-offer-open" }, t("home.playTutorial"), h("span", { class: "sr-only" }, ` ${t("common.newTab")}`)),
    h("button", { type: "button", class: "small", "data-testid": "tutorial-offer-dismiss", onclick: () => panel.remove() }, t("home.noThanks")),
  );
  return panel;
}

class RoomPage {
  constructor(root, code, navigate, handoff, options) {
    this.code = code;
    this.options = options;
    this.joinNote = null; // why this room may not take a seat ({code, message, closed})
    this.joinShown = null; // what the join panel shows ("form", "closed CODE", ...)
    this.joinFocused = false; // the focus was in the join form when it was sent
    this.lookTimer = null;
    this.lookWhenShown = false; // a look-up skipped while the page was hidden
    this.lookSeq = 0; // only the latest look-up's answer counts
    this.pollMs = RETRY_MS; // the server's poll_ms
    this.shownPhase = "loading";
    root.dataset.view = "room";
    document.title = options.title ?? t("room.title", { code });
    const seat = (this.seat = new Seat(code, {
      handoff,
      on: {
        error: (m) => this.options.onError?.(m) || this.onError(m),
        kicked: (reason) => this.onKicked(reason),
        removed: (reason) => this.dropSeat(t("room.removed", { reason })),
        left: () => navigate("/"),
      },
    }));
    const act = { play: (text) => seat.play(text) };
    for (const name of ["shuffle", "hint", "undo", "restart", "resign", "end", "rematch", "leave"]) act[name] = () => seat[name]();
    act.voteEnd = (vote) => seat.voteEnd(vote);
    act.rematch = () => seat.rematch();
    act.rematchGhosts = () => seat.rematch({ ghosts: true });
    act.rematchSame = (deal) => seat.rematch({ deal });
    act.answer = (accept) => seat.answer(accept);
    this.race = new RaceView(act, () => seat.link.serverNow(), options.words);
    this.header = h("div", { class: "room-head-text" }); // (drawn again with the room)
    // In a new tab: here, this page would leave the seat. (Not on the daily page: its own.)
    const howto = options.head ? null : h("a", { href: "/how", target: "_blank", rel: "noopener", class: "small", "data-testid": "howto-link" }, t("howto.link"), h("span", { class: "sr-only" }, ` ${t("common.newTab")}`));
    const head = h("div", { class: "room-head", "data-testid": "room-head" }, this.header, howto);
    this.offer = options.head ? null : tutorialOffer();
    this.notice = h("div", { class: "banner-area notice", "aria-live": "polite" });
    // The room's news for screen readers (see model/news.js).
    this.news = announcer("presence-announce");
    this.lobbyEl = h("section", { class: "lobby", "data-testid": "lobby" });
    this.ratings = null; // the lobby's players' ratings (seat -> rating), asked for as they change
    this.lobbyRatings = new RoomRatings((found) => {
      this.ratings = found;
      if (!this.destroyed && !this.lobbyEl.hidden && this.state?.room) this.renderLobby();
    });
    this.joinEl = h("section", { class: "join", "data-testid": "join" });
    const parts = [head, this.offer, this.notice, this.news, this.joinEl, this.lobbyEl, this.race.el];
    this.pageEl = h("section", { class: `room${options.className ? " " + options.className : ""}`, "data-testid": "room", "data-code": code }, parts);
    fill(root, this.pageEl);
    // The part that held the focus last: when the page is made inert (the server lost) the
    // focus falls to the body, and what takes that part's place must still get it.
    this.focusedPart = null;
    this.pageEl.addEventListener("focusin", () => {
      this.focusedPart = [this.joinEl, this.lobbyEl, this.race.el].find((el) => el.contains(document.activeElement)) ?? null;
    });
    this.unsubscribe = seat.store.subscribe((s, before, m) => this.changed(s, before, m));
    this.keyHandler = (e) => this.race.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
    this.shownHandler = () => {
      if (document.hidden || !this.lookWhenShown) return;
      this.lookWhenShown = false;
      this.followRoom();
    };
    document.addEventListener("visibilitychange", this.shownHandler);
    this.ticker = setInterval(() => this.tick(), 100);
    this.render();
    if (handoff?.joined) seat.onMessage(handoff.joined);
    else if (seat.token) seat.link.connect();
    else this.lookUp();
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.ticker);
    clearTimeout(this.lookTimer);
    this.unsubscribe();
    document.removeEventListener("keydown", this.keyHandler);
    document.removeEventListener("visibilitychange", this.shownHandler);
    this.race.destroy();
    this.lobbyRatings.stop();
    this.seat.close();
  }

  get state() {
    return this.seat.state;
  }

  /** What leaving this page costs, asked before Back takes the player away: only while
   * the player is in a race (its countdown or its run), still racing. */
  leaving() {
    const s = this.state;
    const p = phase(s);
    const me = s.room?.players.find((q) => q.seat === s.seat);
    if (!me || (p !== "racing" && p !== "countdown") || isOut(me)) return null;
    return t("leave.race");
  }

  changed(s, before, m) {
    announce(this.news, news(before, s));
    celebrate(before, s, m);
    const offered = offerNews(before, s);
    if (offered) toast(offered);
    if (s.seat && !before.seat) this.joinFocused = false;
    if (s.gone !== null) clearInterval(this.ticker); // no clock any more
    this.render();
    this.options.onChange?.(s, before);
  }

  tick() {
    const s = this.state;
    if (!s.room) return;
    if (!this.race.el.hidden) this.race.clock();
    if (!this.lobbyEl.hidden && hostAway(s, this.seat.link.serverNow()) !== this.hostAwayShown) this.renderLobby();
  }

  // -- what the server refused, and seats lost --------------------------------------

  onError(error) {
    const s = this.state;
    const m = { ...error, message: errorText(error) }; // (in the page's words)
    switch (m.code) {
      case "bad_token":
        this.dropSeat(t("room.notYours"));
        return true;
      case "unknown_room":
        this.seat.gone(t("room.gone", { code: this.code }));
        return true;
      case "already_started":
        if (s.seat) return false;
        // No seat, and no form: first what became of the race (over, or a new round).
        this.seat.joinName = null;
        this.followRoom({ ...m, message: t("join.started") });
        return true;
      case "room_full":
      case "name_taken":
      case "bad_name":
        if (s.seat) return false;
        this.seat.joinName = null;
        this.render(m);
        return true;
      default:
        return false;
    }
  }

  onKicked(reason) {
    const again = h("button", { type: "button", onclick: () => this.useHere() }, t("room.playHere"));
    fill(this.notice, h("div", { class: "banner warn", "data-testid": "kicked-banner" }, h("span", {}, t("room.disconnected", { reason })), again));
  }

  useHere() {
    fill(this.notice);
    this.seat.useHere();
  }

  /** Back to the join form, the seat lost. */
  dropSeat(message) {
    this.joinNote = null; // (a full room, say, when this page joined: old news)
    this.seat.drop();
    toast(message, "error");
    this.lookUp(); // a race that has started takes no new seat: the form gives way to watching
  }

  // -- looking the room up before taking a seat -------------------------------------

  /** Look the room up afresh before offering a seat: one that is not there ends the page,
   * one that takes no seat says why (the server still has the last word on the join). */
  lookUp() {
    this.joinNote = null;
    return this.followRoom();
  }

  /** Look the room up (`GET /api/rooms/CODE`) and show what it says; while it takes no seat,
   * again every `poll_ms` the page is shown: the panel follows the race, and a rematch's
   * lobby brings the form back. ``refusal``: the error of a join refused as the race has
   * started (said if the look-up gets no answer). */
  async followRoom(refusal = null) {
    clearTimeout(this.lookTimer);
    const asked = ++this.lookSeq;
    let res = null;
    let info = {};
    try {
      res = await fetch(`/api/rooms/${encodeURIComponent(this.code)}`, { signal: AbortSignal.timeout(LOOK_UP_MS) });
      info = await res.json().catch(() => ({}));
    } catch {
      res = null; // offline, or no answer in time
    }
    // The page moved on, or a later look-up was sent (whose answer this one must not undo).
    const s = this.state;
    if (asked !== this.lookSeq || this.destroyed || s.seat || s.gone !== null || this.seat.joinName) return;
    if (res?.status === 404) {
      this.seat.gone(t("room.gone", { code: this.code }));
      return;
    }
    if (info.poll_ms) this.pollMs = info.poll_ms;
    if (res?.ok) {
      this.invite = info; // who invites, who waits, on what: said in the join form
      showInvite(this.joinEl, info);
    }
    const was = this.joinNote;
    let note = res?.ok ? joinNote(info, !!was?.closed || !!refusal) : was; // no answer: as it was
    if (refusal && !res?.ok) note = { code: refusal.code, message: refusal.message, closed: true };
    this.joinNote = note;
    this.lookLater();
    if (refusal) this.joinShown = null; // the form sent is drawn afresh (its button was turned off)
    if (refusal || note?.closed || was?.closed) this.render(); // the panel changes (drawn again only if it does)
    else if (note) showJoinNote(this.joinEl, note); // into the form: a name being typed stays
  }

  lookLater() {
    clearTimeout(this.lookTimer);
    if (!this.joinNote?.closed || this.joinNote.code === "daily" || this.joinNote.code === "tutorial" || this.joinNote.code === "practice") return;
    this.lookTimer = setTimeout(() => {
      if (document.hidden) this.lookWhenShown = true;
      else this.followRoom();
    }, this.pollMs);
  }

  // -- drawing ---------------------------------------------------------------------

  render(joinError = null) {
    // The part holding the focus may be hidden now (the lobby when the race starts): the
    // focus goes on to what took its place, never lost to the body.
    const lost = !document.activeElement || document.activeElement === document.body;
    const focused = [this.joinEl, this.lobbyEl, this.race.el].find((el) => el.contains(document.activeElement)) ?? (lost ? this.focusedPart : null);
    this.renderPage(joinError);
    if (focused?.hidden) this.focusTarget()?.focus();
  }

  focusTarget() {
    if (!this.joinEl.hidden) return this.joinEl.querySelector("input, button, a");
    if (!this.lobbyEl.hidden) return this.lobbyEl.querySelector("[data-testid=ready]");
    if (!this.race.el.hidden) return this.race.board.zone("p0"); // the first pile: Tab goes on around the board
    return null;
  }

  renderPage(joinError) {
    const s = this.state;
    const p = phase(s);
    const lobby = !this.lobbyEl.hidden && this.shownPhase === "lobby"; // the lobby was on the page
    this.shownPhase = p;
    if (this.offer && p !== "lobby" && p !== "loading") {
      this.offer.remove(); // offered before the race: it gives way to the board
      this.offer = null;
    }
    this.pageEl.dataset.phase = s.seat || p === "gone" ? p : "join";
    if (s.seat) this.pageEl.dataset.seat = s.seat;
    if (p === "gone") delete this.pageEl.dataset.seat;
    this.renderHeader();
    this.joinEl.hidden = !!s.seat;
    this.lobbyEl.hidden = !s.seat || p !== "lobby";
    this.race.el.hidden = !s.seat || p === "lobby" || p === "loading" || p === "gone";
    // The race takes the lobby's place (maybe scrolled down, on a short screen): from the top.
    if (lobby && !this.race.el.hidden) window.scrollTo({ top: 0, left: 0, behavior: "instant" });
    if (p === "gone") {
      if (this.joinShown !== "gone") fill(this.joinEl, gonePanel(s.gone));
      this.joinShown = "gone";
    } else if (!s.seat) {
      if (this.seat.token) {
        if (this.joinShown !== "reconnecting") fill(this.joinEl, h("p", { class: "muted" }, t("room.reconnecting")));
        this.joinShown = "reconnecting";
      } else this.renderJoin(joinError);
    } else {
      this.joinShown = null; // (the form is drawn afresh if this page is ever without its seat again)
      if (p === "lobby") this.renderLobby();
      else this.race.draw(s);
    }
  }

  renderHeader() {
    const s = this.state;
    const head = this.options.head?.(s) ?? [
      h("h1", {}, t("room.h1"), h("span", { class: "code", "data-testid": "room-code" }, this.code)),
      s.room ? h("p", { class: "muted" }, roomSummary(s.room)) : null,
      s.room?.practice ? practiceNote(s.room.practice) : null,
    ];
    if (head) fill(this.header, head);
  }

  /** The join form (with ``error``, the server's answer to a join), or the closed panel;
   * drawn again only when that changes (a name being typed stays), the focus going on into
   * it: the closed panel's heading, or the name field. */
  renderJoin(error) {
    if (this.options.waiting) {
      fill(this.joinEl, h("p", { class: "muted" }, this.options.waiting));
      return;
    }
    const join = (name, { focused = false } = {}) => {
      this.joinFocused = focused; // (the form turns its button off: the focus is then lost)
      this.seat.join(name);
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
    if (this.invite) showInvite(this.joinEl, this.invite);
    if (had) this.joinEl.querySelector("input").focus(); // (the note is the field's description)
    else if (reopened && note) announce(this.news, note.message);
  }

  renderLobby() {
    const s = this.state;
    const now = this.seat.link.serverNow();
    this.hostAwayShown = hostAway(s, now); // (drawn again when that changes)
    this.lobbyRatings.follow(this.code, `${s.room.round} ${s.room.players.map((p) => p.seat).join(",")}`);
    refill(this.lobbyEl, lobbyPanel(s, { send: (msg) => this.seat.sendNow(msg), now, ratings: this.ratings }));
  }
}
