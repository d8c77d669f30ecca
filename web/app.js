// The single-page app: one router over the server's pages, and the connection's state in
// the top bar.
//   /            home        /r/CODE      a player's room (join, lobby, race)
//   /watch/CODE  spectate    /daily       today's daily challenge
//   /how         how to play         /replay/ID   a game on the record (ID,ID2,…: side by side)
//   /learn       the tutorial
//   /me          my games (this device's)

import { h, store } from "./dom.js";
import { linkStatus } from "./net.js";
import { dailyView } from "./pages/daily.js";
import { homeView } from "./pages/home.js";
import { howtoView } from "./pages/howto.js";
import { roomPage } from "./pages/room.js";
import { tutorialView } from "./pages/tutorial.js";
import { watchView } from "./pages/watch.js";
import { replayIds } from "./model/replay.js";
import { sound } from "./sound.js";

const root = document.getElementById("app");
const connection = document.querySelector("[data-testid=connection]");
const STATUS_WORDS = { connecting: "connecting…", offline: "reconnecting…" };
let current = null;

linkStatus.addEventListener("status", ({ detail }) => {
  connection.dataset.state = detail;
  connection.textContent = STATUS_WORDS[detail] ?? "";
});

// The server lost: said loudly over the page, whose input is refused (inert) until a link is
// back; the clocks are marked as waiting (style.css). It clears by itself on reconnect.
const LOST_WORDS = {
  title: "Connection to the server lost",
  body: "Reconnecting… Your board is kept; moves wait until the server is back.",
  clock: "waiting",
};
const lostNotice = h(
  "div",
  { class: "lost-notice", role: "alert", "data-testid": "connection-lost", hidden: true },
  h("strong", {}, LOST_WORDS.title),
  h("span", {}, LOST_WORDS.body),
);
document.body.append(lostNotice);
document.documentElement.style.setProperty("--clock-waiting", JSON.stringify(LOST_WORDS.clock));
linkStatus.addEventListener("lost", ({ detail: lost }) => {
  lostNotice.hidden = !lost;
  document.documentElement.classList.toggle("link-lost", lost);
  root.inert = lost;
});

// The top bar's preferences, remembered: sounds muted, and a four-colour deck.
const mute = document.querySelector("[data-testid=mute]");
const showMute = (muted) => {
  mute.setAttribute("aria-pressed", String(muted));
  mute.querySelector(".mute-word").textContent = muted ? "off" : "on";
  mute.title = muted ? "Sounds off" : "Sounds on";
};
sound.listeners.add(showMute);
showMute(sound.muted);
mute.addEventListener("click", () => sound.setMuted(!sound.muted));

const FOUR = "crescent.fourColour";
const four = document.querySelector("[data-testid=four-colour]");
const setFour = (on) => {
  document.documentElement.classList.toggle("four-colour", on);
  four.setAttribute("aria-pressed", String(on));
};
setFour(store.get(FOUR) === "1");
four.addEventListener("click", () => {
  const on = !document.documentElement.classList.contains("four-colour");
  store.set(FOUR, on ? "1" : "0");
  setFour(on);
});

function route(handoff = null) {
  current?.destroy();
  current = null;
  const path = decodeURIComponent(location.pathname);
  let m;
  if ((m = path.match(/^\/r\/([A-Za-z0-9]{1,16})\/?$/))) {
    current = roomPage(root, { code: m[1].toUpperCase(), navigate, handoff });
  } else if ((m = path.match(/^\/watch\/([A-Za-z0-9]{1,16})\/?$/))) {
    current = watchView(root, { code: m[1].toUpperCase() });
  } else if ((m = replayIds(path))) {
    const ids = m;
    lazily(import("./pages/replay.js"), (page) => page.replayView(root, { ids, navigate }));
  } else if ((m = path.match(/^\/replay\/room\/([A-Za-z0-9]{1,16})\/?$/))) {
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
    document.title = "Crescent Race";
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

window.addEventListener("popstate", () => route());
route();
