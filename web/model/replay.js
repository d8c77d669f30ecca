// Games on the record as the replay page plays them. No rules here: the server sent the
// deal's board and, for each accepted action, only what it changed; a board at any step is
// those changes applied in order. Times are ms from the race's start, on the server's clock.

import { RECORD_ID_TEXT } from "../wire.js";

export const SPEEDS = [1, 2, 4, 8];
export const MAX_SIDE_BY_SIDE = 8;

/** ``board`` with ``step``'s changes applied (a new board; ``board`` is left as it was). */
export function apply(board, step) {
  const piles = step.piles ? board.piles.map((p, i) => step.piles[String(i)] ?? p) : board.piles;
  const foundations = step.foundations ? { ...board.foundations, ...step.foundations } : board.foundations;
  const shuffles = step.shuffles_left ?? board.shuffles_left;
  return { piles, foundations, shuffles_left: shuffles, home: step.home };
}

/** One game on the record, laid out in time: the board after each step, built once. */
export class Timeline {
  constructor(view) {
    this.view = view;
    this.steps = view.steps;
    this.boards = [view.board];
    for (const step of this.steps) this.boards.push(apply(this.boards[this.boards.length - 1], step));
    const last = this.steps.length ? this.steps[this.steps.length - 1].at : 0;
    this.duration = Math.max(last, view.result.finished_ms ?? 0);
  }

  /** How many actions had been taken at ``ms`` (0: the deal as dealt). */
  indexAt(ms) {
    let lo = 0;
    let hi = this.steps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.steps[mid].at <= ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The step shown at ``ms``: ``pin.step`` when a step was asked for by number and the
   * clock is still at its time (several actions can share a millisecond, and time alone
   * then shows only the last of them), else every action up to ``ms``. */
  stepAt(ms, pin = null) {
    if (pin && pin.step >= 0 && pin.step <= this.steps.length && this.timeOf(pin.step) === ms) return pin.step;
    return this.indexAt(ms);
  }

  /** The time of the ``i``th action (0 for the deal). */
  timeOf(i) {
    return i <= 0 ? 0 : this.steps[Math.min(i, this.steps.length) - 1].at;
  }

  boardAt(i) {
    return this.boards[Math.max(0, Math.min(i, this.steps.length))];
  }

  /** Whether the game was won by ``ms`` (its finish time reached). */
  wonBy(ms) {
    const f = this.view.result.finished_ms;
    return f !== null && f !== undefined && ms >= f;
  }

  /** The shuffles, as the scrubber marks them: each one's time and its place (0 to 1) on
   * a timeline ``length`` ms long. */
  shuffles(length = this.duration) {
    return this.steps.filter((s) => s.act === "shuffle").map((s) => ({ at: s.at, place: length ? s.at / length : 0 }));
  }
}

/** The length of a shared timeline: the longest game's. */
export function sharedDuration(timelines) {
  return Math.max(0, ...timelines.map((t) => t.duration));
}

/** The first action after ``ms`` in any of ``timelines``, or null at the end. */
export function nextTime(timelines, ms) {
  let best = null;
  for (const t of timelines) {
    const i = t.indexAt(ms);
    if (i < t.steps.length && (best === null || t.steps[i].at < best)) best = t.steps[i].at;
  }
  return best;
}

/** The time of the last action before ``ms`` in any of ``timelines`` (0 when none is). */
export function prevTime(timelines, ms) {
  let best = 0;
  for (const t of timelines) {
    const i = t.indexAt(ms - 1);
    if (i > 0) best = Math.max(best, t.steps[i - 1].at);
  }
  return best;
}

/** The playback: where on the timeline, playing or not, how fast. ``tick(dt)`` moves it
 * on by ``dt`` ms of real time; it stops at the end. */
export class Playback {
  constructor(duration) {
    this.duration = duration;
    this.ms = 0;
    this.playing = false;
    this.speed = 1;
  }

  play() {
    if (this.ms >= this.duration) this.ms = 0; // from the end: again from the start
    this.playing = this.duration > 0;
  }

  pause() {
    this.playing = false;
  }

  seek(ms) {
    this.ms = Math.max(0, Math.min(this.duration, Math.round(ms)));
  }

  setSpeed(speed) {
    if (SPEEDS.includes(speed)) this.speed = speed;
  }

  tick(dt) {
    if (!this.playing) return;
    this.seek(this.ms + dt * this.speed);
    if (this.ms >= this.duration) this.playing = false;
  }
}

/** The ids of a replay page's address (/replay/ID or /replay/ID,ID2,…), or null. */
export function replayIds(path) {
  const m = path.match(new RegExp(`^/replay/(${RECORD_ID_TEXT}(?:,${RECORD_ID_TEXT})*)/?$`));
  if (!m) return null;
  const ids = m[1].split(",");
  return ids.length <= MAX_SIDE_BY_SIDE ? [...new Set(ids)] : null;
}

/** The address of a replay page of one game, or of several side by side. */
export function replayPath(ids) {
  return `/replay/${[...ids].join(",")}`;
}

/** A round's games from a room's replay list (``GET /api/rooms/CODE/replays``): seat -> id. */
export function roundReplays(listing, round) {
  const out = new Map();
  for (const g of listing?.replays ?? []) if (g.round === round && g.seat && !out.has(g.seat)) out.set(g.seat, g.id);
  return out;
}
