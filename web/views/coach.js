// The solver's view of one game on the replay page: a bar under the timeline coloured by what
// the server's analysis says of each step (it can be won, it is lost, or the solver does not
// know), the move where the win slipped away marked, a summary in words, and the solver's
// winning line from any step, drawn on the board as a ghost, move by move. It draws what
// /api/replays/ID/analysis and /line/STEP say; it knows no rules.

import { fill, h } from "../dom.js";
import { t } from "../i18n.js";
import { describeMove } from "../model/cards.js";
import { apply } from "../model/replay.js";
import { recordHeaders } from "../replays.js";

const POLL_MS = [500, 1000, 2000, 3000, 5000]; // while the server says "computing"

export function coachPanel(replay, timeline, track) {
  return new CoachPanel(replay, timeline, track);
}

class CoachPanel {
  constructor(replay, timeline, track) {
    this.replay = replay;
    this.timeline = timeline;
    this.id = timeline.view.id;
    this.abort = new AbortController();
    this.analysis = null;
    this.line = null; // the line shown: {step, moves, boards, at}
    this.bar = h("div", { class: "coach-bar", "data-testid": "coach-bar", "aria-hidden": "true" });
    track.append(this.bar);
    this.summary = h("p", { class: "coach-summary", "data-testid": "coach-summary", "aria-live": "polite" }, t("coach.computing"));
    this.lineButton = h("button", { type: "button", class: "small", "data-testid": "coach-show-line", hidden: true, onclick: () => this.showLine() }, t("coach.showLine"));
    this.slipButton = h("button", { type: "button", class: "small", "data-testid": "coach-goto-slip", hidden: true, onclick: () => this.gotoSlip() }, t("coach.gotoSlip"));
    this.lineEl = h("div", { class: "coach-line", "data-testid": "coach-line", hidden: true });
    this.el = h("section", { class: "coach", "data-testid": "coach", "aria-label": t("coach.title") }, this.summary, h("p", { class: "actions coach-actions" }, this.slipButton, this.lineButton), this.lineEl);
    this.load(0);
  }

  destroy() {
    this.abort.abort();
    clearTimeout(this.timer);
  }

  async get(path) {
    const response = await fetch(`/api/replays/${encodeURIComponent(this.id)}/${path}`, { signal: this.abort.signal, headers: recordHeaders() });
    return response.ok || response.status === 409 ? response.json() : null;
  }

  async load(tries) {
    let view;
    try {
      view = await this.get("analysis");
    } catch (err) {
      if (err.name !== "AbortError") this.summary.textContent = t("coach.unavailable");
      return;
    }
    if (view?.status === "computing") {
      this.timer = setTimeout(() => this.load(tries + 1), POLL_MS[Math.min(tries, POLL_MS.length - 1)]);
      return;
    }
    if (view?.status !== "done") {
      this.summary.textContent = t(view?.status === "waiting" ? "coach.waiting" : "coach.unavailable");
      return;
    }
    this.analysis = view;
    this.el.dataset.ready = "true";
    this.drawBar();
    this.render(this.replay.games[0].shown);
    await this.summarise();
  }

  /** Where step ``k`` starts on the timeline, 0 to 1 (the time of its action). */
  place(k) {
    const total = this.timeline.duration;
    if (!total) return k / Math.max(1, this.analysis.steps.length - 1);
    return k >= this.analysis.steps.length ? 1 : this.timeline.timeOf(k) / total;
  }

  drawBar() {
    const steps = this.analysis.steps;
    const runs = [];
    for (let k = 0; k < steps.length; k++) {
      const last = runs[runs.length - 1];
      if (last && last.v === steps[k].v) last.to = k;
      else runs.push({ v: steps[k].v, from: k, to: k });
    }
    const spans = runs.map((r) => {
      const left = this.place(r.from);
      const right = r.to + 1 < steps.length ? this.place(r.to + 1) : 1;
      const width = Math.max(right - left, 0.004);
      const title = t(`coach.run.${r.v}`, { from: r.from, to: r.to });
      return h("span", { class: `coach-run coach-${r.v}`, "data-verdict": r.v, style: { left: pct(left), width: pct(width) }, title });
    });
    const slip = this.analysis.slip;
    if (slip) spans.push(h("span", { class: "coach-slip", "data-testid": "coach-slip", "data-step": slip.step, style: { left: pct(this.place(slip.step + 1)) }, title: t("coach.slipMark", { n: slip.step + 1 }) }));
    fill(this.bar, spans);
  }

  async summarise() {
    const a = this.analysis;
    const result = this.timeline.view.result;
    if (a.won) {
      this.summary.textContent = a.solver_moves ? t("coach.won", { moves: result.moves, solver: a.solver_moves }) : t("coach.wonAt", { moves: result.moves });
      return;
    }
    if (!a.slip) {
      this.summary.textContent = t(a.steps[0]?.v === "lost" ? "coach.neverWinnable" : "coach.noWinFound");
      return;
    }
    const board = this.timeline.boardAt(a.slip.step);
    const played = describeMove(board, a.slip.act);
    let better = null;
    try {
      const line = await this.get(`line/${a.slip.step}`);
      if (line?.moves?.length) better = describeMove(board, line.moves[0]);
    } catch {
      // the move played is enough
    }
    const key = a.slip.proven ? "coach.slip" : "coach.slipUnproven";
    this.summary.textContent = t(better ? key : `${key}Alone`, { n: a.slip.step + 1, played, better });
    this.slipButton.hidden = false;
  }

  gotoSlip() {
    this.closeLine();
    this.replay.seekStep(this.analysis.slip.step);
  }

  /** The replay moved to step ``step``: what can be done from there. */
  render(step) {
    if (!this.analysis) return;
    if (this.line && step !== this.line.step) this.closeLine();
    const verdict = this.analysis.steps[Math.min(step, this.analysis.steps.length - 1)]?.v;
    this.el.dataset.verdict = verdict || "";
    this.lineButton.hidden = verdict !== "win" || !!this.line || step >= this.analysis.steps.length - 1;
  }

  async showLine() {
    const step = this.replay.games[0].shown;
    this.replay.playback.pause();
    this.replay.render();
    let line;
    try {
      line = await this.get(`line/${step}`);
    } catch {
      line = null;
    }
    if (!line?.moves) {
      fill(this.lineEl, h("p", {}, t("coach.noLine")));
      this.lineEl.hidden = false;
      return;
    }
    const boards = [this.timeline.boardAt(step)];
    for (const change of line.changes) boards.push(apply(boards[boards.length - 1], change));
    this.line = { step, moves: line.moves, boards, at: 0 };
    this.lineButton.hidden = true;
    this.replay.games[0].el.classList.add("coach-ghost");
    this.drawLine();
  }

  moveLine(by) {
    const line = this.line;
    line.at = Math.max(0, Math.min(line.moves.length, line.at + by));
    this.drawLine();
  }

  drawLine() {
    const { step, moves, boards, at } = this.line;
    const game = this.replay.games[0];
    game.board.update(boards[at], { version: `line-${step}-${at}` });
    const button = (testid, text, label, onclick, disabled = false) => h("button", { type: "button", class: "small", "data-testid": testid, "aria-label": label, title: label, disabled, onclick }, text);
    const next = at < moves.length ? t("coach.nextMove", { move: describeMove(boards[at], moves[at]) }) : t("coach.lineWon");
    fill(
      this.lineEl,
      h("p", { class: "coach-line-head" }, h("strong", {}, t("coach.lineHead", { step, n: moves.length })), " · ", h("span", { "data-testid": "coach-line-at" }, t("coach.lineAt", { at, n: moves.length }))),
      h("p", { class: "muted", "data-testid": "coach-line-next" }, next),
      h(
        "p",
        { class: "actions" },
        button("coach-line-back", "‹", t("coach.lineBack"), () => this.moveLine(-1), at === 0),
        button("coach-line-forward", "›", t("coach.lineForward"), () => this.moveLine(1), at === moves.length),
        button("coach-line-end", "»", t("coach.lineEnd"), () => this.moveLine(moves.length), at === moves.length),
        button("coach-line-close", t("coach.hideLine"), t("coach.hideLine"), () => this.closeLine()),
      ),
    );
    this.lineEl.hidden = false;
    this.el.dataset.lineStep = String(step);
    this.el.dataset.lineAt = String(at);
  }

  closeLine() {
    if (!this.line) return;
    this.line = null;
    this.lineEl.hidden = true;
    delete this.el.dataset.lineStep;
    delete this.el.dataset.lineAt;
    const game = this.replay.games[0];
    game.el.classList.remove("coach-ghost");
    game.redraw = true;
    this.replay.render();
  }
}

function pct(x) {
  return `${(100 * x).toFixed(2)}%`;
}
