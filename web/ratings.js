// Ratings among friends: a room's players' ratings, fetched (``GET /api/rooms/CODE/ratings``)
// for the lobby beside each name and, once a race is rated, for its ranking with each change;
// and how they are shown. (The server rates a race just after it says the race is
// over: a round's changes may take a moment to come.) Their words are in the catalogues
// (web/i18n/), under rating.* and me.*.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** "1532", or "1532?" while provisional. */
export function ratingText(r) {
  return `${r.rating}${r.provisional ? "?" : ""}`;
}

/** "▲12", "▼8", "±0". */
export function changeText(change) {
  return change > 0 ? `▲${change}` : change < 0 ? `▼${-change}` : "±0";
}

/** A rating as a small chip beside a name (``r``: {rating, provisional}). */
export function ratingChip(r) {
  if (!r) return null;
  return h("span", { class: "rating-chip", "data-testid": "rating", "data-rating": r.rating, "data-provisional": r.provisional ? "true" : "false", title: t(r.provisional ? "rating.titleProvisional" : "rating.title", { rating: r.rating }) }, ratingText(r));
}

/** A rating's change in a race (``r``: {change}), as "▲12" or "▼8". */
export function changeChip(r) {
  if (r?.change === undefined) return null;
  const c = r.change;
  const label = c > 0 ? t("rating.up", { n: c }) : c < 0 ? t("rating.down", { n: -c }) : t("rating.same");
  return h("span", { class: `rating-change ${c > 0 ? "up" : c < 0 ? "down" : "same"}`, "data-testid": "rating-change", "data-change": c, "aria-label": label, title: label }, changeText(c));
}

const TRIES = 6; // 0.4 + 0.8 + … ≈ 25 s of asking for a race's rating before giving up
const FIRST_WAIT_MS = 400;

/** Follows a room's ratings: ``onFound(Map seat -> {rating, provisional, races, change?}, body)``. */
export class RoomRatings {
  constructor(onFound) {
    this.onFound = onFound;
    this.key = null;
    this.timer = null;
    this.abort = null;
  }

  /** Ask for room ``code``'s ratings again only when ``key`` changes (the round, its
   * players); ``rated``: the race is over, so ask until it is rated (or does not count). */
  follow(code, key, { rated = false } = {}) {
    if (key === this.key) return;
    this.stop();
    this.key = key;
    this.ask(code, rated, 0);
  }

  async ask(code, rated, tries) {
    const key = this.key;
    this.abort = new AbortController();
    try {
      const response = await fetch(`/api/rooms/${encodeURIComponent(code)}/ratings`, { signal: this.abort.signal });
      if (key !== this.key) return;
      if (response.ok) {
        const body = await response.json();
        if (key !== this.key) return;
        this.onFound(new Map(body.players.map((p) => [p.seat, p])), body);
        if (!rated || body.rated !== null) return;
      }
    } catch (err) {
      if (err.name === "AbortError") return;
    }
    if (key !== this.key || tries + 1 >= TRIES) return;
    this.timer = setTimeout(() => this.ask(code, rated, tries + 1), FIRST_WAIT_MS * 2 ** tries);
  }

  stop() {
    clearTimeout(this.timer);
    this.abort?.abort();
    this.key = null;
  }
}
