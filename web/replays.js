// The games on the record, fetched: one replay for the replay page, and a round's replays
// for the race-over view's links. (The server puts a race's games on the record just after
// it says the race is over, so a round's list may take a moment to fill.)

import { h, store } from "./dom.js";
import { t } from "./i18n.js";
import { summaryText } from "./model/coach.js";
import { roundReplays } from "./model/replay.js";

const DAILY_TOKEN = "crescent.daily.token"; // the daily page's player token (pages/daily.js)

/** What the record's reads are sent with: this browser's daily token, when it has one, so a
 * player already on today's board sees today's daily games (no one else does before the
 * day is over). A header, never the address: addresses end up in logs. */
export function recordHeaders() {
  const token = store.get(DAILY_TOKEN);
  return token ? { "X-Player-Token": token } : {};
}

const LIST_TRIES = 6; // 0.4 + 0.8 + … ≈ 25 s of asking before giving up on a missing game
const FIRST_WAIT_MS = 400;

/** A replay view (``GET /api/replays/ID``); throws an Error whose message is for the page. */
export async function fetchReplay(id, { signal } = {}) {
  let response;
  try {
    response = await fetch(`/api/replays/${encodeURIComponent(id)}`, { signal, headers: recordHeaders() });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new Error(t("replay.unreachable"));
  }
  if (response.status === 404) throw new Error(t("replay.notKept"));
  if (response.status === 403) throw new Error(t("replay.keptBack"));
  if (!response.ok) throw new Error(t("replay.failed", { status: response.status }));
  return response.json();
}

/** A room's replay list (``GET /api/rooms/CODE/replays``), or null when it cannot be had. */
export async function roomListing(code, { signal } = {}) {
  try {
    const response = await fetch(`/api/rooms/${encodeURIComponent(code)}/replays`, { signal, headers: recordHeaders() });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** Follows a room's replay list for one round until every seat asked for has its game:
 * ``onFound(Map seat -> id, listing)`` each time more are found. */
export class ReplayLinks {
  constructor(onFound) {
    this.onFound = onFound;
    this.key = null;
    this.found = new Map();
    this.timer = null;
    this.abort = null;
  }

  /** Look for round ``round`` of room ``code`` and its ``seats`` (again only when these change). */
  follow(code, round, seats) {
    const key = `${code} ${round} ${[...seats].sort().join(",")}`;
    if (key === this.key) return;
    this.stop();
    this.key = key;
    this.found = new Map();
    this.ask(code, round, new Set(seats), 0);
  }

  async ask(code, round, seats, tries) {
    const key = this.key;
    this.abort = new AbortController();
    try {
      const response = await fetch(`/api/rooms/${encodeURIComponent(code)}/replays`, { signal: this.abort.signal, headers: recordHeaders() });
      if (response.ok) {
        const listing = await response.json();
        const found = roundReplays(listing, round);
        if (key !== this.key) return;
        if (found.size > this.found.size) {
          this.found = found;
          this.onFound(found, listing);
        }
        if ([...seats].every((seat) => found.has(seat))) return;
      }
    } catch (err) {
      if (err.name === "AbortError") return;
    }
    if (key !== this.key || tries + 1 >= LIST_TRIES) return;
    this.timer = setTimeout(() => this.ask(code, round, seats, tries + 1), FIRST_WAIT_MS * 2 ** tries);
  }

  stop() {
    clearTimeout(this.timer);
    this.abort?.abort();
    this.key = null;
  }
}

const ANALYSES = new Map(); // record id -> the promise of its analysis (done, or given up on)
const ANALYSIS_WAITS_MS = [500, 1000, 2000, 3000, 5000, 5000, 8000, 8000, 13000];

/** A game's analysis (``GET /api/replays/ID/analysis``), asked again while the server says it
 * is computing (about a minute in all); null when there is none to have. Asked once per page. */
export function fetchAnalysis(id) {
  if (!ANALYSES.has(id)) {
    ANALYSES.set(
      id,
      (async () => {
        for (const wait of [0, ...ANALYSIS_WAITS_MS]) {
          if (wait) await new Promise((done) => setTimeout(done, wait));
          try {
            const response = await fetch(`/api/replays/${encodeURIComponent(id)}/analysis`, { headers: recordHeaders() });
            if (!response.ok) return null;
            const view = await response.json();
            if (view.status !== "computing") return view;
          } catch {
            return null;
          }
        }
        return null;
      })(),
    );
  }
  return ANALYSES.get(id);
}

/** An element that fills with the game's analysis in a sentence once the server has it. */
export function analysisNote(id, moves, attrs = {}) {
  const el = h("span", { class: "coach-note muted small", "data-testid": "coach-note", "data-id": id, ...attrs });
  fetchAnalysis(id).then((view) => {
    const text = summaryText(view, moves);
    if (text) el.textContent = text;
  });
  return el;
}
