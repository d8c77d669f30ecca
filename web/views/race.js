// The race as a player sees it: board, countdown, toolbar, banners, rivals, side panel, keys
// (keys.js). It draws a room's state and hands what the player does to ``act`` (the seat's).

import { BoardView } from "../board/board.js";
import { winCascade } from "../board/cascade.js";
import { fitOne } from "../board/fitting.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { isHidden, parseMove, preview } from "../model/cards.js";
import { ghostKey, ghostsAt, ghostTime } from "../model/ghosts.js";
import { podium } from "../model/moments.js";
import { canAct, clock, endVote, legalNow, mayEnd, phase } from "../model/select.js";
import { resultText, roomLink, shareOrigin } from "../model/share.js";
import { isOut, podiumTitle } from "../model/words.js";
import { RoomRatings } from "../ratings.js";
import { ReplayLinks } from "../replays.js";
import { sound } from "../sound.js";
import { bannerArea, raceBanners } from "./banners.js";
import { RaceKeys } from "./keys.js";
import { podiumView } from "./moments.js";
import { seriesPodium, seriesScore, seriesWinner } from "./series.js";
import { shareButton } from "./share.js";
import { drawRivals, drawSide, drawToEnd } from "./side.js";
import { keysHelp, resignWords, toolbar } from "./toolbar.js";

/** The round's games on the record (seat -> id), with the games its ghosts raced again. */
function withGhosts(replays, room) {
  if (!room.ghosts || !replays.size) return replays;
  return new Map([...replays, ...room.ghosts.map((g) => [g.seat, g.record])]);
}
const CONFIRM_MS = 3000; // how long a button waits for its second press
// Where style.css puts the side panel (and its ranking) beside the board, not under it.
const SIDE_BESIDE = "(min-width: 960px) and (min-height: 501px)";
// Where the banners go beside the board too, above the side panel (a laptop): a banner that
// comes then takes nothing from the board's height.
const NOTES_BESIDE = "(min-width: 1200px) and (min-height: 501px)";

export class RaceView {
  /** ``act``: play(move), shuffle, hint, undo, restart, resign, end, rematch, rematchGhosts; ``now()``: the
   * server's time; ``words``: banners(state), resign (the button's words), side (false: none),
   * result(state) (what "Share my result" shares: {text, url}, or null). */
  constructor(act, now, words = {}) {
    this.act = act;
    this.now = now;
    this.words = { banners: raceBanners, resign: resignWords(), side: true, result: raceResult, ...words };
    this.s = null; // the state last drawn
    this.confirming = null; // the button waiting for its second press
    this.countedDown = null; // the start_at this page counted down to
    this.endShown = false;
    // At race over, each player's game on the record (seat -> id), once the server kept it.
    this.replays = new Map();
    this.replayLinks = new ReplayLinks((found) => {
      this.replays = found;
      if (this.s) this.drawSide();
    });
    // At race over, each player's rating and its change (seat -> rating), once rated.
    this.ratings = new Map();
    this.roomRatings = new RoomRatings((found) => {
      this.ratings = found;
      if (this.s) this.drawSide();
    });
    this.board = new BoardView({ interactive: true, onMove: (text) => act.play(text) });
    this.tools = toolbar({ shuffle: act.shuffle, hint: act.hint, undo: act.undo, restart: () => this.restart(), resign: () => this.resign() }, this.words.resign);
    const banners = h("div", { class: "banner-area", "aria-live": "polite", "data-testid": "banners" });
    this.banners = bannerArea(banners);
    // The way to the ranking under the board (a phone): after the live banners, not in them.
    const to = h("button", { type: "button", class: "small to-ranking", "data-testid": "to-ranking", onclick: () => this.showRanking() }, t("race.toRanking"));
    this.toRanking = h("p", { class: "to-ranking-row", hidden: true }, to);
    this.shareRow = h("p", { class: "share-result-row", hidden: true });
    this.sharedText = null;
    // Always there, empty when there is nothing to count: a live region that appeared with
    // its first number might not be heard.
    this.countdown = h("div", { class: "countdown", "data-testid": "countdown", "aria-live": "assertive" });
    // On a phone the side panel is below the board: the rivals' line stays above it.
    this.rivals = h("ul", { class: "rivals", "data-testid": "rivals", "aria-hidden": "true" });
    this.toEndEl = h("p", { class: "to-end" });
    this.side = h("aside", { class: "side", "data-testid": "race-side", hidden: !this.words.side });
    this.keys = keysHelp();
    // At race over, the podium: the head of the race-over panel, the ranking under it (side.js).
    this.podium = null;
    const wrap = h("div", { class: "board-wrap" }, this.board.el, this.countdown);
    this.keyboard = new RaceKeys(this.board, act, { state: () => this.s, shown: () => !this.el.hidden, help: this.keys });
    this.play = h("div", { class: "play" }, this.tools.el, this.keyboard.notation, this.rivals, this.toEndEl, banners, this.toRanking, this.shareRow, wrap);
    this.wrap = wrap;
    this.notes = [banners, this.toRanking, this.shareRow];
    this.el = h("section", { class: "race", "data-testid": "race" }, this.keys, this.play, this.side);
    this.aside = h("div", { class: "race-aside" });
    this.notesBeside = window.matchMedia(NOTES_BESIDE);
    this.placeHandler = () => this.placeNotes();
    this.notesBeside.addEventListener("change", this.placeHandler);
    this.placeNotes();
    this.fit = fitOne(this.board.el, wrap); // the board as big as its space allows
    this.beside = window.matchMedia(SIDE_BESIDE);
    this.besideHandler = () => this.showToRanking();
    this.beside.addEventListener("change", this.besideHandler);
    // The keys' list opens over the board: a press anywhere else closes it.
    this.outsideHandler = (e) => {
      if (this.keys.open && !this.keys.contains(e.target)) this.keys.open = false;
    };
    document.addEventListener("pointerdown", this.outsideHandler);
  }

  /** The banners and the side panel: beside the board on a laptop, else where they were. */
  placeNotes() {
    if (this.notesBeside.matches && this.words.side) {
      this.aside.append(...this.notes, this.side);
      if (!this.aside.isConnected) this.el.append(this.aside);
    } else if (this.aside.isConnected) {
      for (const el of this.notes) this.play.insertBefore(el, this.wrap);
      this.el.append(this.side);
      this.aside.remove();
    }
  }

  destroy() {
    this.winning?.skip();
    this.notesBeside.removeEventListener("change", this.placeHandler);
    this.fit.stop();
    clearTimeout(this.confirmTimer);
    this.replayLinks.stop();
    this.roomRatings.stop();
    this.beside.removeEventListener("change", this.besideHandler);
    document.removeEventListener("pointerdown", this.outsideHandler);
  }

  /** Draw state ``s``: what changed since the last drawing, the banners, the clock. */
  draw(s) {
    const was = this.s;
    this.s = s;
    const changed = (...keys) => !was || keys.some((k) => s[k] !== was[k]);
    if (changed("mine", "pending", "hint", "kicked") || phase(s) !== phase(was)) this.drawBoard(s);
    // The race's motion: the deal flies out at the start, a won game cascades.
    if (isHidden(was?.mine?.board) && s.mine && !isHidden(s.mine.board)) this.board.deal();
    if (was?.mine && s.mine?.won && !was.mine.won) this.winning = winCascade(this.board);
    const head = this.podium;
    this.drawPodium(s, was);
    this.tools.draw(s, this.confirming);
    const shared = this.drawShare(s);
    if (shared || head !== this.podium || changed("room", "presence", "seat")) this.drawSide();
    this.banners(this.words.banners(s));
    this.showToRanking();
    this.clock();
  }

  drawBoard(s) {
    const mine = s.mine;
    if (!mine) return;
    const p = phase(s);
    this.board.update(s.pending?.move ? preview(mine.board, s.pending.move) : mine.board, {
      legal: legalNow(s),
      hint: s.hint?.move ? parseMove(s.hint.move) : null,
      version: mine.version,
      pending: !!s.pending,
      closed: p === "countdown" ? t("race.notYet") : p === "over" ? t("race.isOver") : null,
    });
    this.board.el.classList.toggle("waiting", p === "countdown");
  }

  drawSide() {
    const s = this.s;
    this.endShown = mayEnd(s, this.now());
    if (!this.words.side || !s.room) return;
    if (phase(s) === "over") {
      this.replayLinks.follow(s.code, s.room.round, s.room.ranking.filter((r) => !r.ghost).map((r) => r.seat));
      if (s.room.kind === "race") this.roomRatings.follow(s.code, `${s.room.round} ${s.room.start_at}`, { rated: true });
    } else {
      if (this.replays.size) {
        this.replayLinks.stop();
        this.replays = new Map();
      }
      if (this.ratings.size) {
        this.roomRatings.stop();
        this.ratings = new Map();
      }
    }
    const { rematch, rematchGhosts, rematchSame, answer, leave, voteEnd } = this.act;
    const act = { end: () => this.end(), voteEnd, rematch, rematchGhosts, rematchSame, answer, leave };
    const ghosts = this.ghosts();
    this.ghostsShown = ghostKey(ghosts);
    const vote = endVote(s, this.now());
    drawSide(this.side, s, { mayEnd: this.endShown, vote, confirming: this.confirming, act, share: this.shareEl, replays: withGhosts(this.replays, s.room), ghosts, ratings: this.ratings, podium: this.podium });
    drawRivals(this.rivals, s, ghosts);
    // On a phone the side panel is under the board: a way down to End, or to a rival's request to end.
    const asked = vote.may && !vote.mine && vote.others.length ? t("end.asksJump", { names: vote.others.join(", "), n: vote.others.length }) : null;
    drawToEnd(this.toEndEl, s, this.endShown || asked ? () => this.toEnd() : null, asked && !this.endShown ? asked : undefined);
  }

  /** Take the player to "End the race" (or the vote to end it) in the side panel (below the
   * board on a phone). */
  toEnd() {
    const button = this.side.querySelector("[data-testid=end-race]") ?? this.side.querySelector("[data-testid=vote-end]");
    if (!button) return;
    button.scrollIntoView({ block: "center", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
    button.focus({ preventScroll: true });
  }

  /** The podium at race over, the head of the side panel's one race-over panel (its ranking
   * under it); none for a race of one, but a match's or an arena's end always has its own. */
  drawPodium(s, was) {
    const over = phase(s) === "over" && this.words.side && ((s.room?.ranking?.length ?? 0) > 1 || !!seriesWinner(s.room, s.seat));
    if (!over) {
      this.podium = null;
      this.podiumRound = null;
      return;
    }
    if (this.podium && this.podiumRound === s.room.round && was && phase(was) === "over" && s.room.ranking === was.room?.ranking) return;
    let title = h("p", { class: "podium-title", "data-testid": "podium-title" }, podiumTitle(s.room.ranking, s.seat));
    let steps = podiumView(podium(s.room), { me: s.seat });
    // The match's or the arena's end: its winner's moment, on the series' podium.
    const champion = seriesWinner(s.room, s.seat);
    if (champion) {
      title = h("p", { class: "podium-title champion", "data-testid": "series-champion" }, champion);
      steps = podiumView(seriesPodium(s.room.series), { me: s.seat, result: (r) => seriesScore(s.room.series, r) });
      if (this.podiumRound !== s.room.round) sound.play("finished");
    }
    this.podium = h("div", { class: "podium-head", "data-testid": "podium-over" }, title, steps);
    this.podiumRound = s.room.round;
  }

  /** The clock, and what changes with the time alone (End the race). */
  clock() {
    const s = this.s;
    if (!s?.room) return;
    const now = this.now();
    if (phase(s) === "countdown") this.countedDown = s.room.start_at; // this page counted down: "Go!" follows
    const c = clock(s, now, this.countedDown);
    const count = c.count === "Go!" ? t("race.go") : c.count ?? "";
    if (this.countdown.textContent !== count) {
      this.countdown.textContent = count; // heard once each
      if (c.count) this.beat(c.count);
    }
    this.tools.time(c);
    if (mayEnd(s, now) !== this.endShown || (s.room.ghosts && ghostKey(this.ghosts()) !== this.ghostsShown)) this.drawSide();
  }

  /** The room's ghosts as they stand at the server's time now. */
  ghosts() {
    const s = this.s;
    return ghostsAt(s.room, ghostTime(s.room, phase(s), this.now()));
  }

  /** A beat of the countdown (3, 2, 1, Go!): a tick or the start's chord, a buzz, a pop. */
  beat(count) {
    const go = count === "Go!";
    sound.play(go ? "go" : "tick");
    sound.buzz(go ? 160 : 40);
    if (window.matchMedia?.("(prefers-reduced-motion: reduce)").matches || !this.countdown.animate) return;
    const frames = [{ transform: "scale(1.8)", opacity: 0 }, { transform: "scale(1)", opacity: 1, offset: 0.25 }, { transform: "scale(0.92)", opacity: go ? 0 : 0.85 }];
    this.beatAnimation?.cancel();
    this.beatAnimation = this.countdown.animate(frames, { duration: go ? 900 : 950, easing: "ease-out", fill: "forwards" });
  }

  /** "Share my result" once there is one to share: in the side panel (beside Rematch), or
   * under the banners where there is none. True when it changed. */
  drawShare(s) {
    const result = this.words.result(s);
    if ((result?.text ?? null) === this.sharedText) return false;
    this.sharedText = result?.text ?? null;
    const data = () => ({ title: t("site.name"), text: result.text, url: result.url });
    this.shareEl = result ? shareButton({ testid: "share-result", label: t("race.share"), copyLabel: t("race.copy"), data }) : null;
    this.shareRow.hidden = !result || this.words.side;
    this.shareRow.replaceChildren(...(this.shareEl && !this.words.side ? [this.shareEl] : []));
    return true;
  }

  showToRanking() {
    if (!this.s) return; // (the window resized before any race was drawn: the lobby)
    this.toRanking.hidden = phase(this.s) !== "over" || this.beside.matches || this.side.hidden;
  }

  /** Scroll to the ranking (below the board on a phone), the focus on its heading. */
  showRanking() {
    const title = this.side.querySelector("[data-testid=ranking-title]");
    if (!title) return;
    title.focus({ preventScroll: true });
    const still = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    title.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  }

  /** Ask for a second press of ``which`` (within CONFIRM_MS), then ``action``. */
  confirm(which, action) {
    clearTimeout(this.confirmTimer);
    if (this.confirming === which) {
      this.confirming = null;
      action();
    } else {
      this.confirming = which;
      this.confirmTimer = setTimeout(() => {
        this.confirming = null;
        this.redraw();
      }, CONFIRM_MS);
    }
    this.redraw();
  }

  redraw() {
    if (!this.s) return;
    this.tools.draw(this.s, this.confirming);
    this.drawSide();
  }

  restart() {
    const s = this.s;
    if (s && canAct(s) && s.mine.moves + (s.mine.can_undo ? 1 : 0) > 0) this.confirm("restart", this.act.restart);
  }

  resign() {
    if (this.s && canAct(this.s) && !isOut(this.s.mine)) this.confirm("resign", this.act.resign);
  }

  end() {
    this.confirm("end", this.act.end);
  }

  /** A key pressed on the page (the room page hands them all here). */
  onKey(e) {
    this.keyboard.onKey(e);
  }
}

/** A race's result to share, once it is over: the player's place, time or cards, moves. */
function raceResult(s) {
  const room = s.room;
  if (!room || !s.seat || phase(s) !== "over") return null;
  const me = room.players.find((p) => p.seat === s.seat);
  const place = room.ranking.find((r) => r.seat === s.seat)?.place ?? null;
  if (!me) return null;
  const text = resultText(room, me, { place, of: room.players.length });
  return { text, url: roomLink(shareOrigin(location, s.shareOrigin), s.code) };
}
