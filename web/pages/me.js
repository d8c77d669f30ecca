// The player's own page (/me): every game played from this device (races and daily
// attempts, with place, time, moves and the replay), the best finish per difficulty, the
// daily streak, the rating with its history, the friends' board, and the record against
// each rival. No account: the games are listed under this browser's device key (device.js),
// which a link can hand to another device.

import { adoptDeviceKey, deviceKey } from "../device.js";
import { fill, h, store } from "../dom.js";
import { dayAgo, dayText, t } from "../i18n.js";
import { hintsNote } from "../model/hints.js";
import { replayPath } from "../model/replay.js";
import { count, dealText, difficultyText, finished, formatMs, ordinal, TOTAL } from "../model/words.js";
import { friendsPanel, ratingPanel } from "../views/rating.js";
import { meSeries } from "../views/series.js";
import { shareButton } from "../views/share.js";
import { analysisNote } from "../replays.js";

const NOTED = 20; // the newest games that get the solver's view in a sentence

const DAILY_TOKEN = "crescent.daily.token"; // the daily page's player token (pages/daily.js)
const DIFFICULTIES = ["easy", "medium", "hard"];

export function meView(root) {
  return new MeView(root);
}

class MeView {
  constructor(root) {
    this.abort = new AbortController();
    root.dataset.view = "me";
    document.title = t("me.title");
    this.page = h("section", { class: "me", "data-testid": "me", "aria-busy": "true" });
    fill(root, this.page);
    const offered = new URLSearchParams(location.hash.slice(1)).get("key");
    if (offered && offered !== deviceKey()) this.offer(offered);
    else this.load();
  }

  destroy() {
    this.abort.abort();
  }

  /** A link from another device: take its key here (this device's own games stay under its own). */
  offer(key) {
    const use = () => {
      history.replaceState(history.state, "", "/me");
      if (!adoptDeviceKey(key)) return fill(this.page, h("p", { "data-testid": "me-bad-key" }, t("me.badKey")));
      this.load();
    };
    const keep = () => {
      history.replaceState(history.state, "", "/me");
      this.load();
    };
    fill(
      this.page,
      h(
        "div",
        { class: "card-panel narrow", "data-testid": "me-offer" },
        h("h1", {}, t("me.offerTitle")),
        h("p", {}, t("me.offer")),
        h("p", { class: "actions" }, h("button", { type: "button", class: "primary", "data-testid": "me-adopt", onclick: use }, t("me.adopt")), h("button", { type: "button", onclick: keep }, t("me.notNow"))),
      ),
    );
  }

  async load() {
    const headers = { "X-Device-Key": deviceKey() };
    let mine;
    try {
      const response = await fetch("/api/me", { headers, signal: this.abort.signal });
      if (!response.ok) throw Object.assign(new Error(t("me.loadFailed", { status: response.status })), { told: true });
      mine = await response.json();
    } catch (err) {
      if (err.name === "AbortError") return;
      this.page.removeAttribute("aria-busy");
      fill(this.page, h("p", { "data-testid": "me-error" }, err.told ? err.message : t("me.unreachable")));
      return;
    }
    const [streak, board] = await Promise.all([this.streak(), this.friends()]);
    this.page.removeAttribute("aria-busy");
    this.page.dataset.games = mine.games.length;
    const friends = board ? friendsPanel(board) : null;
    fill(this.page, h("div", { class: "room-head" }, h("h1", {}, t("me.h1"))), this.summary(mine, streak), ratingPanel(mine.rating), this.games(mine.games), meSeries(mine.series), friends, this.rivals(mine.rivals), this.move());
    if (location.hash === "#friends") friends?.scrollIntoView();
  }

  /** The friends' board (``GET /api/me/friends``), or null when it cannot be had. */
  async friends() {
    try {
      const response = await fetch("/api/me/friends", { headers: { "X-Device-Key": deviceKey() }, signal: this.abort.signal });
      return response.ok ? await response.json() : null;
    } catch {
      return null;
    }
  }

  /** The daily streak, from the daily page's player (none when this browser has none). */
  async streak() {
    const token = store.get(DAILY_TOKEN);
    if (!token) return null;
    try {
      const response = await fetch("/api/daily?difficulty=easy&top=1", { headers: { "X-Player-Token": token }, signal: this.abort.signal });
      return response.ok ? (await response.json()).streak : null;
    } catch {
      return null;
    }
  }

  summary(mine, streak) {
    const chip = (label, text, testid) => h("span", { class: "stat-chip", "data-testid": testid }, h("span", { class: "label" }, label), ` ${text}`);
    const best = DIFFICULTIES.filter((d) => mine.best[d]).map((d) => {
      const b = mine.best[d];
      return h("a", { href: replayPath([b.id]), class: "stat-chip", "data-testid": "me-best", "data-difficulty": d }, h("span", { class: "label" }, t("me.best", { difficulty: difficultyText(d) })), ` ${formatMs(b.finished_ms)} · ${count(b.moves, "count.moves")}`);
    });
    const parts = [chip(t("me.games"), String(mine.games.length), "me-count"), ...best];
    if (streak !== null && streak !== undefined) parts.push(chip(t("me.streak"), count(streak, "count.days"), "me-streak"));
    return h("div", { class: "me-summary" }, parts);
  }

  games(games) {
    if (!games.length) {
      return h("div", { class: "card-panel", "data-testid": "me-empty" }, h("p", {}, t("me.empty")), h("a", { href: "/", class: "button primary" }, t("me.playRace")));
    }
    const head = h("tr", {}, ["me.date", "me.game", "me.place", "me.result", "me.moves"].map((k) => h("th", {}, t(k))), h("th", {}));
    const noted = new Set(games.filter((g) => !g.kept_back).slice(0, NOTED).map((g) => g.id));
    const row = (g) => {
      const what = `${t(g.kind === "daily" ? "me.daily" : g.kind === "practice" ? "me.practice" : "me.race")} · ${difficultyText(g.difficulty)} · ${dealText(g.deal)}`;
      const place = g.field > 1 ? t("me.placeOf", { place: ordinal(g.place), n: g.field }) : t("me.solo");
      const r = g.result;
      const hints = hintsNote(r);
      const result = `${finished(r) ? formatMs(r.finished_ms) : `${t("me.cards", { home: r.home, total: TOTAL })}${r.resigned ? t("ranking.resigned") : ""}`}${hints ? ` (${hints})` : ""}`;
      const note = noted.has(g.id) ? h("div", {}, analysisNote(g.id, r.moves)) : null;
      const watch = g.kept_back ? h("span", { class: "muted small", title: t("me.keptBackTitle") }, t("me.afterToday")) : h("a", { href: replayPath([g.id]), "data-testid": "me-replay" }, t("me.replay"));
      return h("tr", { "data-testid": "me-game", "data-id": g.id, "data-room": g.room }, h("td", { class: "nowrap", title: dayText(g.date, "full") }, dayAgo(g.date)), h("td", {}, what, note), h("td", {}, place), h("td", {}, result), h("td", {}, String(r.moves)), h("td", {}, watch));
    };
    return h("section", { class: "card-panel me-games" }, h("h2", {}, t("me.games")), h("div", { class: "table-scroll" }, h("table", { class: "ranking", "data-testid": "me-games" }, h("thead", {}, head), h("tbody", {}, games.map(row)))));
  }

  rivals(rivals) {
    if (!rivals.length) return null;
    const row = (f) => h("li", { "data-testid": "me-rival" }, h("span", { class: "name", dir: "auto" }, f.name), t("me.rival", { wins: f.wins, losses: f.losses }));
    return h("section", { class: "card-panel" }, h("h2", {}, t("me.rivals")), h("ul", { class: "me-rivals" }, rivals.map(row)));
  }

  /** The link that opens these games on another device. */
  move() {
    const url = `${location.origin}/me#key=${deviceKey()}`;
    const share = shareButton({ testid: "me-move", label: t("me.shareLink"), copyLabel: t("me.copyLink"), data: () => ({ title: t("me.shareTitle"), url }) });
    const qr = h("img", { class: "qr", alt: t("me.qr"), "data-testid": "me-qr", width: "160", height: "160", hidden: true });
    fetch("/api/me/qr.svg", { headers: { "X-Device-Key": deviceKey() }, signal: this.abort.signal })
      .then((r) => (r.ok ? r.blob() : null))
      .then((blob) => {
        if (!blob) return;
        qr.src = URL.createObjectURL(blob);
        qr.hidden = false;
      })
      .catch(() => {});
    return h(
      "section",
      { class: "card-panel me-move" },
      h("h2", {}, t("me.move")),
      h("p", { class: "muted" }, t("me.moveText")),
      h("div", { class: "me-move-row" }, share, qr),
    );
  }
}
