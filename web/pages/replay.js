// The replay page (/replay/ID, or /replay/ID,ID2,… for games of one deal side by side on one
// timeline): the board as it was, play and pause, 1x to 8x, a step back or forward, and a
// scrubber over the game's time with its shuffles marked. It draws what the server computed
// (web/model/replay.js applies the steps); it knows no rules.
//
// Keys: Space plays or pauses; ← and → step back and forward one action; Home and End go
// to the start and the end.

import { BoardView } from "../board/board.js";
import { fitMany, fitOne } from "../board/fitting.js";
import { fill, h, NAME_KEY, nameInput, store } from "../dom.js";
import { t } from "../i18n.js";
import { playOn, raceGhosts } from "../ghostrace.js";
import { hintsNote } from "../model/hints.js";
import { nextTime, Playback, prevTime, replayPath, roundReplays, sharedDuration, SPEEDS, Timeline } from "../model/replay.js";
import { count, dealText, difficultyText, formatMs, TOTAL } from "../model/words.js";
import { fetchReplay, recordHeaders } from "../replays.js";
import { coachPanel } from "../views/coach.js";

const MAX_FRAME_MS = 250; // a hidden tab's long pause does not jump the replay ahead

/** The ids of the games of room ``code``'s newest round on the record. */
async function newestRound(code, signal) {
  const response = await fetch(`/api/rooms/${encodeURIComponent(code)}/replays`, { signal, headers: recordHeaders() });
  if (!response.ok) throw new Error(t("replay.roomFailed", { status: response.status }));
  const listing = await response.json();
  const round = Math.max(0, ...listing.replays.map((g) => g.round));
  const ids = [...roundReplays(listing, round).values()];
  if (!ids.length) throw new Error(t("replay.noneYet", { code }));
  return ids;
}

/** ``ids``: the games to play; or ``room``: the games of that room's newest round (a daily
 * leaderboard links an attempt's room). */
export function replayView(root, { ids = null, room = null, navigate }) {
  return new ReplayView(root, ids, room, navigate);
}

class ReplayView {
  constructor(root, ids, room, navigate) {
    this.ids = ids;
    this.room = room;
    this.navigate = navigate;
    this.link = null; // the connection creating a ghost race
    this.alive = true;
    this.frame = null;
    this.pin = null; // a step asked for by number: { step } (see seekStep)
    this.abort = new AbortController();
    root.dataset.view = "replay";
    document.title = t("replay.title");
    this.page = h("section", { class: "replay", "data-testid": "replay", "aria-busy": "true" }, h("p", { class: "muted" }, "Loading the replay…"));
    fill(root, this.page);
    this.keys = (e) => this.onKey(e);
    this.load();
  }

  destroy() {
    this.alive = false;
    this.coach?.destroy();
    this.link?.close();
    this.abort.abort();
    cancelAnimationFrame(this.frame);
    this.fit?.stop();
    document.removeEventListener("keydown", this.keys);
  }

  async load() {
    let views;
    try {
      if (this.room) {
        this.ids = await newestRound(this.room, this.abort.signal);
        if (this.alive) history.replaceState(history.state, "", replayPath(this.ids));
      }
      views = await Promise.all(this.ids.map((id) => fetchReplay(id, { signal: this.abort.signal })));
    } catch (err) {
      if (this.alive && err.name !== "AbortError") this.fail(err.message);
      return;
    }
    if (!this.alive) return;
    const [first] = views;
    if (views.some((v) => v.deal !== first.deal || v.difficulty !== first.difficulty)) {
      this.fail(t("replay.notSameDeal"));
      return;
    }
    this.build(views);
  }

  fail(message) {
    this.page.removeAttribute("aria-busy");
    const panel = h("div", { class: "card-panel narrow", "data-testid": "replay-missing" }, h("h1", {}, t("replay.missing")), h("p", {}, message), h("a", { href: "/", class: "button" }, t("common.home")));
    fill(this.page, panel);
  }

  build(views) {
    this.timelines = views.map((v) => new Timeline(v));
    this.playback = new Playback(sharedDuration(this.timelines));
    const many = views.length > 1;
    const [first] = views;
    document.title = t("replay.pageTitle", { what: many ? t("replay.raceAgain") : t("replay.gameOf", { name: first.name }) });
    const where = first.practice
      ? t("replay.practiceOf", { n: first.practice.step, name: first.practice.name })
      : first.kind === "daily"
        ? t("replay.daily", { date: first.daily_date ?? "" })
        : first.room
          ? t("replay.room", { room: first.room, round: first.round })
          : "";
    const [before, after = ""] = t("replay.gameOf").split("{name}");
    const title = many ? t("replay.raceAgain") : h("span", {}, before, h("span", { class: "name", dir: "auto" }, first.name), after);
    const solver = first.solver_moves ? h("span", { "data-testid": "solver-moves", title: t("daily.solverTitle") }, t("daily.solver", { n: first.solver_moves })) : null;
    const deal = first.known_deal ? t("deal.known", { deal: dealText(first.deal) }) : dealText(first.deal);
    const head = h("div", { class: "room-head" }, h("h1", {}, t("replay.h1"), title), h("p", { class: "muted" }, `${difficultyText(first.difficulty)} · ${deal}${where ? " · " + where : ""}`, solver));
    this.games = this.timelines.map((tl) => this.game(tl, many));
    this.clockEl = h("span", { class: "replay-clock", "data-testid": "replay-clock" });
    this.countEl = h("span", { class: "replay-count", "data-testid": "replay-count" });
    const grid = h("div", { class: many ? "watch-grid replay-grid" : "replay-one" }, this.games.map((g) => g.el));
    this.page.removeAttribute("aria-busy");
    const controls = this.controls();
    // One game: the solver's view of it, its bar over the timeline (see views/coach.js).
    this.coach = many ? null : coachPanel(this, this.timelines[0], this.track);
    fill(this.page, head, controls, this.coach?.el, h("p", { class: "replay-now" }, this.clockEl, this.countEl), grid, this.ghostForm(many), this.links(first, many));
    document.addEventListener("keydown", this.keys);
    // The boards as big as the screen allows: one, or all of them side by side.
    this.fit = many
      ? fitMany(grid, { cells: () => this.games.map((g) => g.el), boardOf: (cell) => cell.querySelector(".board") })
      : fitOne(this.games[0].board.el, grid);
    this.render();
    if (!many && first.room) this.offerRace(first);
  }

  game(timeline, many) {
    const v = timeline.view;
    const board = new BoardView({ compact: many });
    const line = h("span", { class: "muted", "data-testid": "replay-line" });
    const name = h("h2", { class: "replay-who" }, h("span", { class: "name", dir: "auto" }, v.name), line);
    const el = h("article", { class: many ? "watch-player" : "replay-board", "data-testid": "replay-game", "data-id": v.id }, name, board.el);
    return { timeline, board, line, el, shown: -1 };
  }

  controls() {
    const button = (testid, label, text, onclick) => h("button", { type: "button", class: "small", "data-testid": testid, "aria-label": label, title: label, onclick }, text);
    this.playEl = button("replay-play", t("replay.play"), t("replay.playButton"), () => this.toggle());
    const back = button("replay-back", t("replay.stepBack"), t("replay.back"), () => this.step(-1));
    const forward = button("replay-forward", t("replay.stepForward"), t("replay.next"), () => this.step(1));
    this.speedEls = SPEEDS.map((x) =>
      h("button", { type: "button", class: "small", "data-testid": "replay-speed", "data-speed": x, "aria-pressed": String(x === 1), onclick: () => this.setSpeed(x) }, `${x}x`),
    );
    const length = this.playback.duration;
    this.scrub = h("input", {
      type: "range",
      min: "0",
      max: String(length),
      step: "1",
      value: "0",
      "aria-label": t("replay.scrubber"),
      "data-testid": "replay-scrubber",
      oninput: () => this.seek(Number(this.scrub.value)),
    });
    // The shuffles on the timeline: each game's, in its own colour when several share it.
    const marks = this.timelines.flatMap((tl, n) =>
      tl.shuffles(length).map((s) => h("span", { class: `replay-mark game-${n}`, "data-testid": "replay-shuffle", style: { left: `${(100 * s.place).toFixed(2)}%` }, title: t("replay.shuffleAt", { name: tl.view.name, time: formatMs(s.at) }) })),
    );
    const track = h("div", { class: "replay-track" }, this.scrub, h("div", { class: "replay-marks", "aria-hidden": "true" }, marks));
    this.track = track;
    const speeds = h("div", { class: "replay-speeds", role: "group", "aria-label": t("replay.speed") }, this.speedEls);
    return h("div", { class: "replay-controls", role: "group", "aria-label": t("replay.playback"), "data-testid": "replay-controls" }, back, this.playEl, forward, speeds, track);
  }

  /** "Race this ghost": a solo race on this deal, the games shown running beside it; and for
   * one game, "Play on from here": a practice room at the step shown, under the same name. */
  ghostForm(many) {
    const name = nameInput({ id: "ghost-name", name: "name", placeholder: t("home.nicknamePlaceholder"), value: store.get(NAME_KEY) || "", "data-testid": "ghost-name" });
    this.raceButton = h("button", { type: "submit", class: "primary small", "data-testid": "race-ghost" }, t(many ? "replay.raceGhosts" : "replay.raceGhost"));
    const submit = (e) => {
      e.preventDefault();
      const text = name.value.trim();
      if (!text) return name.focus();
      store.set(NAME_KEY, text);
      this.raceGhosts(text);
    };
    this.playOnButton = many
      ? null
      : h("button", { type: "button", class: "small", "data-testid": "play-on", onclick: () => this.playOn(name) }, t("replay.playOn"));
    const practice = this.timelines.some((tl) => tl.view.practice); // (no ghost: a practice is no race)
    return h("form", { class: "replay-ghost", "data-testid": "ghost-form", onsubmit: practice ? (e) => (e.preventDefault(), this.playOn(name)) : submit }, h("label", { for: "ghost-name", class: "sr-only" }, t("home.nickname")), name, practice ? null : this.raceButton, this.playOnButton);
  }

  playOn(input) {
    const name = input.value.trim();
    if (!name) return input.focus();
    store.set(NAME_KEY, name);
    this.playback.pause();
    this.playOnButton.disabled = true;
    this.link?.close();
    const navigate = (path, handoff) => {
      this.link = null; // handed to the practice room's page: leaving this one must not close it
      this.navigate(path, handoff);
    };
    const step = this.games[0].shown;
    this.link = playOn({ name, id: this.ids[0], step, navigate, done: () => (this.playOnButton.disabled = false) });
  }

  raceGhosts(name) {
    this.raceButton.disabled = true;
    this.link?.close();
    const navigate = (path, handoff) => {
      this.link = null; // handed to the race's page: leaving this one must not close it
      this.navigate(path, handoff);
    };
    this.link = raceGhosts({ name, ids: this.ids, navigate, done: () => (this.raceButton.disabled = false) });
  }

  links(first, many) {
    this.raceLink = h("span", {});
    const parts = [this.raceLink];
    if (first.room) parts.push(h("a", { href: `/r/${first.room}`, class: "button small" }, t("replay.toRoom")));
    parts.push(h("a", { href: "/me", class: "button small", "data-testid": "me-link" }, t("home.me")));
    parts.push(h("a", { href: "/", class: "button small" }, t("replay.home")));
    return h("p", { class: "actions replay-links", "data-testid": "replay-links" }, many ? parts.slice(1) : parts);
  }

  /** A single game of a race: offer the whole race on one timeline, when the others kept theirs. */
  async offerRace(first) {
    try {
      const response = await fetch(`/api/rooms/${encodeURIComponent(first.room)}/replays`, { signal: this.abort.signal, headers: recordHeaders() });
      if (!response.ok) return;
      const round = roundReplays(await response.json(), first.round);
      if (!this.alive || round.size < 2) return;
      fill(this.raceLink, h("a", { href: replayPath(round.values()), class: "button small", "data-testid": "replay-race" }, t("replay.wholeRace")));
    } catch {
      // the single game is enough
    }
  }

  // -- playing ------------------------------------------------------------------------

  toggle() {
    if (this.playback.playing) this.playback.pause();
    else this.playback.play();
    this.render();
    if (this.playback.playing) this.run();
  }

  run() {
    let last = performance.now();
    const frame = (now) => {
      if (!this.alive) return;
      this.playback.tick(Math.min(now - last, MAX_FRAME_MS));
      last = now;
      this.render();
      this.frame = this.playback.playing ? requestAnimationFrame(frame) : null;
    };
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(frame);
  }

  step(direction) {
    this.playback.pause();
    const one = this.games[0];
    if (this.games.length === 1 && (direction < 0 || one.shown < one.timeline.steps.length)) {
      this.seekStep(one.shown + direction);
      return;
    }
    const ms = this.playback.ms;
    const to = direction > 0 ? nextTime(this.timelines, ms) : prevTime(this.timelines, ms);
    this.seek(to ?? this.playback.duration);
  }

  /** To the ``i``th action of a single game, even when others share its millisecond (a fast
   * hand, or a bot, plays several in one): time alone could not tell them apart. */
  seekStep(i) {
    const tl = this.games[0].timeline;
    const k = Math.max(0, Math.min(i, tl.steps.length));
    this.playback.pause();
    this.playback.seek(tl.timeOf(k));
    this.pin = { step: k };
    this.render();
  }

  seek(ms) {
    this.pin = null;
    this.playback.seek(ms);
    this.render();
  }

  setSpeed(x) {
    this.playback.setSpeed(x);
    for (const el of this.speedEls) el.setAttribute("aria-pressed", String(Number(el.dataset.speed) === this.playback.speed));
  }

  onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target?.tagName;
    if ((tag === "INPUT" && e.target !== this.scrub) || tag === "TEXTAREA" || tag === "SELECT") return;
    if (e.key === " " && tag !== "BUTTON") this.toggle();
    else if (e.key === "ArrowLeft") this.step(-1);
    else if (e.key === "ArrowRight") this.step(1);
    else if (e.key === "Home") this.seek(0);
    else if (e.key === "End") this.seek(this.playback.duration);
    else return;
    e.preventDefault();
  }

  render() {
    const { ms, duration, playing } = this.playback;
    this.page.dataset.ms = ms;
    this.page.dataset.playing = String(playing);
    this.playEl.textContent = t(playing ? "replay.pauseButton" : "replay.playButton");
    this.playEl.setAttribute("aria-label", t(playing ? "replay.pause" : "replay.play"));
    this.playEl.title = t(playing ? "replay.pause" : "replay.play");
    if (Number(this.scrub.value) !== ms) this.scrub.value = String(ms);
    this.scrub.setAttribute("aria-valuetext", t("replay.of", { ms: formatMs(ms), duration: formatMs(duration) }));
    this.clockEl.textContent = `${formatMs(ms)} / ${formatMs(duration)}`;
    for (const g of this.games) this.renderGame(g, ms);
    const one = this.games[0];
    this.coach?.render(one.shown);
    this.page.dataset.step = one.shown;
    const total = one.timeline.steps.length;
    this.countEl.textContent = this.games.length > 1 ? "" : t("replay.move", { n: one.shown, total });
    if (this.playOnButton) this.playOnButton.title = t("replay.playOnTitle", { n: one.shown });
  }

  renderGame(g, ms) {
    const tl = g.timeline;
    const i = tl.stepAt(ms, this.games.length === 1 ? this.pin : null);
    const board = tl.boardAt(i);
    const won = tl.wonBy(ms);
    const result = tl.view.result;
    const end = i === tl.steps.length && ms >= tl.duration;
    let status = won ? t("replay.won", { time: formatMs(result.finished_ms) }) : "";
    if (!won && end && result.resigned) status = t("status.resigned");
    const hints = hintsNote(result); // (the game's, all told: when each was asked is not kept)
    g.line.textContent = ` ${board.home}/${TOTAL} · ${count(i, "count.moves")} · ${count(board.shuffles_left, "count.shufflesLeft")}${status ? " · " + status : ""}${hints ? ` · ${hints}` : ""}`;
    g.el.dataset.step = i;
    g.el.dataset.won = String(won);
    if (i === g.shown && !g.redraw) return;
    g.shown = i;
    g.redraw = false;
    g.board.update(board, { version: i });
  }
}
