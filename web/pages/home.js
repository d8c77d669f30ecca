// The home page: create a room, join one by code, today's daily challenge, live rooms.

import { BoardView } from "../board/board.js";
import { deviceKey } from "../device.js";
import { fill, h, NAME_KEY, nameInput, store, tokenKey, toast } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { count, difficultyText } from "../model/words.js";
import { Link, RETRY_MS } from "../net.js";
import { WELCOMED_KEY } from "./howto.js";
import { ROOM_CODE_TEXT } from "../wire.js";

const MAX_PLAYERS = 8; // seats in a room (the server's race.rooms.MAX_PLAYERS): a full lobby offers no Join
// What a live room is doing, in a person's words (the server's phases: lobby, countdown, racing).
const PHASE_WORDS = { lobby: "live.lobby", countdown: "live.countdown", racing: "live.racing" };

/** A live room's line: "hard · 2 players · race in progress · 1 watching". */
function roomLine(r) {
  const doing = r.kind === "daily" ? t("live.daily") : PHASE_WORDS[r.phase] ? t(PHASE_WORDS[r.phase]) : r.phase;
  const parts = [difficultyText(r.difficulty), count(r.players, "count.players"), doing];
  if (r.watching) parts.push(t("live.watching", { n: r.watching }));
  return ` ${parts.join(" · ")}`;
}

export function homeView(root, { navigate }) {
  root.dataset.view = "home";
  const savedName = store.get(NAME_KEY) || "";
  let link = null;
  let refresh = null;
  let pollMs = RETRY_MS; // as often as the server says (poll_ms)
  let destroyed = false;

  // -- create ----------------------------------------------------------------------
  const createName = nameInput({ id: "create-name", name: "name", placeholder: t("home.nicknamePlaceholder"), value: savedName, "data-testid": "create-name" });
  const difficulty = h(
    "select",
    { id: "difficulty", name: "difficulty", "data-testid": "create-difficulty" },
    h("option", { value: "easy" }, t("home.easy")),
    h("option", { value: "medium", selected: true }, t("home.medium")),
    h("option", { value: "hard" }, t("home.hard")),
  );
  const deal = h("input", {
    id: "deal",
    name: "deal",
    inputmode: "numeric",
    pattern: "[0-9]*",
    placeholder: t("home.dealPlaceholder"),
    "data-testid": "create-deal",
  });
  const limit = h(
    "select",
    { id: "time-limit", name: "time_limit", "data-testid": "create-time-limit" },
    h("option", { value: "" }, t("home.noLimit")),
    [5, 10, 15, 30].map((m) => h("option", { value: String(m * 60) }, t("home.minutes", { n: m }))),
  );
  // A player could follow a rival's board on a second device: spectators run behind the race.
  const delay = h(
    "select",
    { id: "spectator-delay", name: "spectator_delay", "data-testid": "create-spectator-delay" },
    h("option", { value: "" }, t("home.behind", { n: 15 })),
    h("option", { value: "60" }, t("home.behind", { n: 60 })),
    h("option", { value: "0" }, t("home.live")),
  );
  // A hint costs time by default (the server's penalty, told in the lobby); free for a casual race.
  const hints = h(
    "select",
    { id: "hints", name: "hints", "data-testid": "create-hints" },
    h("option", { value: "penalty" }, t("home.hintsCost")),
    h("option", { value: "free" }, t("home.hintsFree")),
    h("option", { value: "off" }, t("home.hintsOff")),
  );
  // Several rounds: race after race, a match (first to N wins) or an arena night (K rounds).
  const format = h(
    "select",
    { id: "format", name: "format", "data-testid": "create-format" },
    h("option", { value: "" }, t("home.formatOpen")),
    [1, 2, 3, 4].map((n) => h("option", { value: `match:${n}` }, t("home.formatMatch", { n }))),
    [3, 4, 5, 6, 7, 8, 9, 10].map((n) => h("option", { value: `arena:${n}` }, t("home.formatArena", { n }))),
  );
  const listed = h("input", { id: "listed", type: "checkbox", checked: true, "data-testid": "create-listed" });
  const createBtn = h("button", { type: "submit", class: "primary", "data-testid": "create-submit" }, t("home.create"));
  const createForm = h(
    "form",
    { class: "card-panel create", "data-testid": "create-form", onsubmit: onCreate },
    h("h2", {}, t("home.start")),
    h("label", { for: "create-name" }, t("home.nickname")),
    createName,
    createBtn,
    // The settings, behind "More options": a returning player (the name remembered) starts
    // a race in one click, on a medium random deal.
    h(
      "details",
      { class: "more-options", "data-testid": "create-more" },
      h("summary", { "data-testid": "create-more-toggle" }, t("home.moreOptions")),
    h("label", { for: "difficulty" }, t("home.difficulty")),
    difficulty,
    h("label", { for: "deal" }, t("home.deal"), " ", h("small", {}, t("home.dealHint"))),
    deal,
    h("label", { for: "time-limit" }, t("home.limit")),
    limit,
    h("label", { for: "format" }, t("home.format")),
    format,
    h("label", { for: "spectator-delay" }, t("home.spectators")),
    delay,
    h("label", { for: "hints" }, t("home.hints")),
    hints,
    h("label", { class: "check" }, listed, ` ${t("home.listed")}`),
    ),
  );

  // -- join ------------------------------------------------------------------------
  const code = h("input", {
    id: "join-code",
    name: "code",
    required: true,
    maxlength: "16",
    autocapitalize: "characters",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: t("home.codePlaceholder"),
    "data-testid": "join-code",
  });
  const joinForm = h(
    "form",
    { class: "card-panel", "data-testid": "join-form", onsubmit: onJoin },
    h("h2", {}, t("home.join")),
    h("label", { for: "join-code" }, t("home.code")),
    code,
    h("button", { type: "submit", "data-testid": "join-submit" }, t("home.joinButton")),
  );

  // -- daily and live rooms ------------------------------------------------------------
  const daily = h(
    "section",
    { class: "card-panel daily" },
    h("h2", {}, t("home.daily")),
    h("p", {}, t("home.dailyText")),
    h("a", { href: "/daily", class: "button", "data-testid": "daily-link" }, t("home.dailyPlay")),
  );
  const roomsList = h("ul", { class: "rooms", "data-testid": "live-rooms" });
  const live = h(
    "section",
    { class: "card-panel live" },
    h("h2", {}, t("home.liveRaces")),
    roomsList,
  );

  fill(
    root,
    h(
      "section",
      { class: "home", "data-testid": "home" },
      // The page's title for screen readers and the outline: the brand above says it on screen.
      h("h1", { class: "sr-only" }, "Crescent Race"),
      h("p", { class: "tagline" }, t("home.tagline"), " ", h("a", { href: "/how", "data-testid": "howto-link" }, t("howto.link")), " · ", h("a", { href: "/learn", "data-testid": "tutorial-link" }, t("home.tutorial")), " · ", h("a", { href: "/me", "data-testid": "me-link" }, t("home.me"))),
      welcome(),
      h("div", { class: "home-grid" }, createForm, daily, joinForm, picture(), live),
    ),
  );

  /** A picture of the game: a crescent as a deal lays it out (the board's own drawing). */
  function picture() {
    const board = new BoardView({ compact: true });
    board.el.removeAttribute("data-testid");
    board.update(exampleBoard());
    return h("figure", { class: "card-panel home-picture", "data-testid": "home-picture" }, board.el, h("figcaption", { class: "muted small" }, t("home.picture")));
  }

  /** A newcomer's offer, until it is taken or waved away. */
  function welcome() {
    if (store.get(WELCOMED_KEY)) return null;
    const panel = h(
      "aside",
      { class: "card-panel welcome", "data-testid": "welcome", "aria-label": t("home.welcomeLabel") },
      h("p", {}, h("strong", {}, t("home.welcomeLabel")), " ", t("home.welcome")),
      h("a", { href: "/learn", class: "button primary", "data-testid": "welcome-tutorial" }, t("home.playTutorial")),
      h("a", { href: "/how", class: "button", "data-testid": "welcome-howto" }, t("howto.link")),
      h("button", { type: "button", class: "small", "data-testid": "welcome-dismiss", onclick: () => { store.set(WELCOMED_KEY, "1"); panel.remove(); } }, t("home.noThanks")),
    );
    return panel;
  }

  let lastShown = null;
  loadRooms();

  async function loadRooms() {
    let data = null;
    try {
      const res = await fetch("/api/rooms", { cache: "no-store" });
      if (res.ok) data = await res.json();
    } catch {
      data = null; // offline
    }
    if (destroyed) return;
    pollMs = data?.poll_ms ?? pollMs;
    refresh = setTimeout(loadRooms, pollMs);
    if (!data) {
      lastShown = null;
      fill(roomsList, h("li", { class: "muted" }, t("home.liveFailed")));
      return;
    }
    const rooms = data.rooms || [];
    // Redraw only what changed, and keep the keyboard's place: a focused link stays focused.
    const shown = JSON.stringify(rooms);
    if (shown === lastShown) return;
    lastShown = shown;
    const focused = roomsList.contains(document.activeElement) ? document.activeElement.getAttribute("href") : null;
    if (!rooms.length) {
      fill(roomsList, h("li", { class: "muted", "data-testid": "no-rooms" }, t("home.noRooms")));
      return;
    }
    fill(
      roomsList,
      rooms.map((r) => {
        const room = `/r/${encodeURIComponent(r.code)}`;
        // A seat of this browser's (its token is kept, as the room page keeps it): back to it.
        const mine = r.kind !== "daily" && !!store.get(tokenKey(r.code));
        return h(
          "li",
          { "data-testid": "live-room", "data-room": r.code },
          h("span", { class: "code" }, r.code),
          r.names?.length ? h("span", { class: "names", "data-testid": "live-room-players" }, r.names.join(", ")) : null,
          h("span", { class: "muted", "data-testid": "live-room-status" }, roomLine(r)),
          mine ? h("a", { href: room, class: "button small primary", "data-testid": "back-to-seat" }, t("home.back")) : null,
          h("a", { href: `/watch/${encodeURIComponent(r.code)}`, class: "button small", "data-testid": "watch-link" }, t("home.watch")),
          !mine && r.phase === "lobby" && r.players < MAX_PLAYERS ? h("a", { href: room, class: "button small", "data-testid": "join-link" }, t("home.joinButton")) : null,
        );
      }),
    );
    if (focused) roomsList.querySelector(`a[href="${CSS.escape(focused)}"]`)?.focus();
  }

  function onJoin(e) {
    e.preventDefault();
    // Codes are letters and digits; people paste them with spaces or dashes ("ABC-1234").
    const c = code.value.replace(/[\s-]/g, "").toUpperCase();
    if (!c) return;
    if (!new RegExp(`^${ROOM_CODE_TEXT}$`).test(c)) {
      toast(t("home.badCode"), "error");
      return;
    }
    navigate(`/r/${c}`);
  }

  function onCreate(e) {
    e.preventDefault();
    const name = createName.value.trim();
    if (!name) return;
    const msg = { type: "create", name, difficulty: difficulty.value, listed: listed.checked, device: deviceKey() };
    const dealText = deal.value.trim();
    if (dealText) {
      // A page's numbers are exact only up to 2^53: a bigger deal would silently become another.
      if (!/^\d{1,16}$/.test(dealText) || !Number.isSafeInteger(Number(dealText))) {
        toast(t("home.badDeal", { max: Number.MAX_SAFE_INTEGER }), "error");
        return;
      }
      msg.deal = Number(dealText);
    }
    if (limit.value) msg.time_limit = Number(limit.value);
    if (delay.value) msg.spectator_delay = Number(delay.value);
    if (hints.value !== "penalty") msg.hints = hints.value;
    if (format.value) {
      const [kind, n] = format.value.split(":");
      msg[kind] = Number(n);
    }
    store.set(NAME_KEY, name);
    createBtn.disabled = true;
    link?.close();
    link = new Link({
      onOpen: () => link.send(msg),
      onMessage: (m) => {
        if (m.type === "joined") {
          store.set(tokenKey(m.room.code), m.token);
          const handoff = { link, joined: m };
          link = null;
          navigate(`/r/${m.room.code}`, handoff);
        } else if (m.type === "error") {
          toast(errorText(m), "error");
          createBtn.disabled = false;
          link?.close();
          link = null;
        }
      },
    });
    link.connect();
  }

  return {
    destroy() {
      destroyed = true;
      clearTimeout(refresh);
      link?.close();
    },
  };
}

/** A deal's layout for the home page's picture: the aces and kings on their foundations, the
 * other 96 cards in 16 piles of six, in a fixed order (any order: a picture, not a game). */
function exampleBoard() {
  const suits = "SHDC";
  const cards = [];
  for (let copy = 0; copy < 2; copy++) for (const s of suits) for (const r of "23456789TJQ") cards.push(r + s);
  for (const s of suits) cards.push("A" + s, "K" + s); // (the second deck's ace and king)
  let seed = 7;
  for (let i = cards.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  const piles = Array.from({ length: 16 }, (_, i) => cards.slice(i * 6, i * 6 + 6));
  const foundations = {};
  for (const s of suits) {
    foundations["u" + s] = { top: "A" + s, count: 1 };
    foundations["d" + s] = { top: "K" + s, count: 1 };
  }
  return { piles, foundations };
}
