// The single-page app: one router over the server's pages, and the connection's state in
// the top bar.
//   /            home        /r/CODE      a player's room (join, lobby, race)
//   /watch/CODE  spectate    /daily       today's daily challenge

import { linkStatus } from "./net.js";
import { dailyView } from "./pages/daily.js";
import { homeView } from "./pages/home.js";
import { roomPage } from "./pages/room.js";
import { watchView } from "./pages/watch.js";

const root = document.getElementById("app");
const connection = document.querySelector("[data-testid=connection]");
const STATUS_WORDS = { connecting: "connecting…", offline: "reconnecting…" };
let current = null;

linkStatus.addEventListener("status", ({ detail }) => {
  connection.dataset.state = detail;
  connection.textContent = STATUS_WORDS[detail] ?? "";
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
  } else if (/^\/daily\/?$/.test(path)) {
    current = dailyView(root, { navigate });
  } else {
    document.title = "Crescent Race";
    current = homeView(root, { navigate });
  }
}

/** Go to a page of the app without reloading; `handoff` passes a live connection along. */
export function navigate(path, handoff = null) {
  history.pushState({}, "", path);
  route(handoff);
}

window.addEventListener("popstate", () => route());
route();
