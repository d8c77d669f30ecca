// The single-page app: one router over the server's pages, and the connection's state in
// the top bar.
//   /            home        /r/CODE      a player's room (join, lobby, race)
//   /watch/CODE  spectate    /daily       today's daily challenge
//   /how         how to play         /replay/ID   a game on the record (ID,ID2,…: side by side)
//   /learn       the tutorial
//   /me          my games (this device's)

import { h, store } from "./dom.js";
import { chooseLang, lang, LANGUAGES, t } from "./i18n.js";
import { linkStatus } from "./net.js";
import { dailyView } from "./pages/daily.js";
import { homeView } from "./pages/home.js";
import { howtoView } from "./pages/howto.js";
import { roomPage } from "./pages/room.js";
import { tutorialView } from "./pages/tutorial.js";
import { watchView } from "./pages/watch.js";
import { replayIds } from "./model/replay.js";
import { sound } from "./sound.js";
import { ROOM_CODE_TEXT } from "./wire.js";

const root = document.getElementById("app");
const connection = document.querySelector("[data-testid=connection]");
const STATUS_WORDS = { connecting: "conn.connecting", offline: "conn.offline" };
let current = null;

linkStatus.addEventListener("status", ({ detail }) => {
  connection.dataset.state = detail;
  connection.textContent = STATUS_WORDS[detail] ? t(STATUS_WORDS[detail]) : "";
});

// The page's language (i18n.js chose it: the switch's choice, else the browser's), and the
// top bar's switch, remembered. Switching reloads the page in the other language: a seat
// resumes where it was, as after any reload.
document.documentElement.lang = lang();
const langSwitch = document.querySelector("[data-testid=lang]");
// Each language by its short code ("EN", "ES": the bar has no room for more on a phone),
// named in itself for screen readers and on hover.
langSwitch.replaceChildren(
  ...LANGUAGES.map(({ code, name }) => {
    const option = new Option(code.toUpperCase(), code, false, code === lang());
    Object.assign(option, { lang: code, title: name });
    option.setAttribute("aria-label", name);
    return option;
  }),
);
langSwitch.value = lang();
langSwitch.setAttribute("aria-label", t("top.language"));
langSwitch.title = t("top.language");
document.querySelector("[data-testid=lang-label] .sr-only")?.remove();
langSwitch.addEventListener("change", () => {
  chooseLang(langSwitch.value);
  location.reload();
});
document.querySelector(".fc-word").textContent = ` ${t("top.fourColour")}`;
document.querySelector("[data-testid=four-colour]").title = t("top.fourColour");
document.querySelector(".mute-label").textContent = ` ${t("top.mute")}`;

// The server lost: said loudly over the page, whose input is refused (inert) until a link is
// back; the clocks are marked as waiting (style.css). It clears by itself on reconnect.
const lostNotice = h(
  "div",
  { class: "lost-notice", role: "alert", "data-testid": "connection-lost", hidden: true },
  h("strong", {}, t("lost.title")),
  h("span", {}, t("lost.body")),
);
document.body.append(lostNotice);
document.documentElement.style.setProperty("--clock-waiting", JSON.stringify(t("lost.clock")));
linkStatus.addEventListener("lost", ({ detail: lost }) => {
  lostNotice.hidden = !lost;
  document.documentElement.classList.toggle("link-lost", lost);
  root.inert = lost;
});

// The top bar's preferences, remembered: sounds muted, and a four-colour deck.
const mute = document.querySelector("[data-testid=mute]");
const showMute = (muted) => {
  mute.setAttribute("aria-pressed", String(muted));
  mute.querySelector(".mute-word").textContent = t(muted ? "top.soundOff" : "top.soundOn");
  mute.title = t(muted ? "top.soundsOff" : "top.soundsOn");
};
sound.listeners.add(showMute);
showMute(sound.muted);
mute.addEventListener("click", () => sound.setMuted(!sound.muted));

const FOUR = "crescent.fourColour";
const four = document.querySelector("[data-testid=four-colour]");
// (on by default: in a game of same-suit moves, each suit its own colour reads faster)
const fourWord = document.createElement("span");
fourWord.className = "fc-label";
four.append(fourWord);
const setFour = (on) => {
  document.documentElement.classList.toggle("four-colour", on);
  four.setAttribute("aria-pressed", String(on));
  fourWord.textContent = t(on ? "top.fourColours" : "top.twoColours");
  four.title = t("top.deckChoice");
};
setFour(store.get(FOUR) !== "0");
four.addEventListener("click", () => {
  const on = !document.documentElement.classList.contains("four-colour");
  store.set(FOUR, on ? "1" : "0");
  setFour(on);
});

let here = location.pathname + location.search;

function route(handoff = null) {
  here = location.pathname + location.search;
  current?.destroy();
  current = null;
  const path = decodeURIComponent(location.pathname);
  let m;
  if ((m = path.match(new RegExp(`^/r/(${ROOM_CODE_TEXT})/?$`)))) {
    current = roomPage(root, { code: m[1].toUpperCase(), navigate, handoff });
  } else if ((m = path.match(new RegExp(`^/watch/(${ROOM_CODE_TEXT})/?$`)))) {
    current = watchView(root, { code: m[1].toUpperCase() });
  } else if ((m = replayIds(path))) {
    const ids = m;
    lazily(import("./pages/replay.js"), (page) => page.replayView(root, { ids, navigate }));
  } else if ((m = path.match(new RegExp(`^/replay/room/(${ROOM_CODE_TEXT})/?$`)))) {
    const room = m[1].toUpperCase();
    lazily(import("./pages/replay.js"), (page) => page.replayView(root, { room, navigate }));
  } else if (/^\/me\/?$/.test(path)) {
    lazily(import("./pages/me.js"), (page) => page.meView(root));
  } else if (/^\/how\/?$/.test(path)) {
    current = howtoView(root);
  } else if (/^\/learn\/?$/.test(path)) {
    current = tutorialView(root, { navigate });
  } else if (/^\/daily\/?$/.test(path)) {
    current = dailyView(root, { navigate });
  } else {
    document.title = t("site.name");
    current = homeView(root, { navigate });
  }
}

/** A page loaded when first visited (the replay and "my games" pages: not in the first load). */
function lazily(loading, make) {
  let page = null;
  let gone = false;
  current = {
    destroy() {
      gone = true;
      page?.destroy();
    },
  };
  loading.then((module) => {
    if (!gone) page = make(module);
  });
}

/** Go to a page of the app without reloading; `handoff` passes a live connection along. */
export function navigate(path, handoff = null) {
  history.pushState({}, "", path);
  route(handoff);
}

// Back (or Forward) from a race the player is still in asks first; kept, the address goes
// back to the race's (a page that says what leaving it costs has ``leaving()``).
window.addEventListener("popstate", () => {
  const question = current?.leaving?.();
  if (question && !window.confirm(question)) {
    history.pushState({}, "", here);
    return;
  }
  route();
});
route();
