// The tutorial (/learn): a small position played on the real board against the server's
// engine, one lesson at a time, to a first win. The server holds the game, says which
// lesson it is at and offers only the move that lesson teaches; this page draws that and
// says the lesson's words. It is a one-seat room, played by the room page.
//
// localStorage: the tutorial being played (its room code; the seat's token is kept per
// room, as for any room), and that the tutorial was opened (no first game offers it then).

import { announce, announcer, fill, h, NAME_KEY, store, toast, tokenKey } from "../dom.js";
import { deviceKey } from "../device.js";
import { errorText, t } from "../i18n.js";
import { finishedLesson, lessonView } from "../model/lesson.js";
import { canAct, phase } from "../model/select.js";
import { Link } from "../net.js";
import { TUTORIAL_KEY, WELCOMED_KEY } from "./howto.js";
import { roomPage } from "./room.js";

const ROOM_KEY = "crescent-race.tutorial.room";

/** The lesson panel for state ``s``; ``again()`` starts a new tutorial. */
function lessonPanel(s, again) {
  const view = lessonView(s.mine);
  if (!view) return [h("h1", {}, t("tutorial.h1")), h("p", { class: "muted" }, t("tutorial.dealing"))];
  const steps = h(
    "ol",
    { class: "lesson-steps", "data-testid": "lesson-steps" },
    view.items.map((item, i) =>
      h("li", { class: `lesson-step ${item.status}`, "data-status": item.status, "aria-current": item.status === "current" ? "step" : null }, h("span", { class: "lesson-mark", "aria-hidden": "true" }, item.status === "done" ? "✓" : String(i + 1)), h("span", { class: "lesson-name" }, item.title)),
    ),
  );
  const over = phase(s) === "over";
  const ends = view.won
    ? h("p", { class: "actions lesson-next" }, h("a", { href: "/", class: "button primary", "data-testid": "lesson-race" }, t("tutorial.race")), h("a", { href: "/daily", class: "button" }, t("tutorial.daily")), h("button", { type: "button", class: "small", "data-testid": "lesson-again", onclick: again }, t("tutorial.again")))
    : over
      ? h("p", { class: "actions lesson-next" }, h("button", { type: "button", class: "primary", "data-testid": "lesson-again", onclick: again }, t("tutorial.startAgain")))
      : null;
  return [
    h("div", { class: "lesson-top" }, h("h1", {}, t("tutorial.h1")), h("span", { class: "muted small", "data-testid": "lesson-progress" }, view.progress), steps),
    h(
      "section",
      { class: `lesson${view.won ? " won" : ""}`, "data-testid": "lesson", "data-step": String(view.step), "data-won": String(view.won) },
      view.done ? h("p", { class: "lesson-done", "data-testid": "lesson-done" }, `✓ ${t("tutorial.done", { title: view.done })}`) : null,
      h("h2", { "data-testid": "lesson-title" }, view.title),
      h("p", { "data-testid": "lesson-text" }, view.text),
      view.left ? h("p", { class: "muted small", "data-testid": "lesson-left" }, view.left) : null,
      ends,
      view.won ? null : h("p", { class: "muted small" }, t("tutorial.rules"), " ", h("a", { href: "/how", target: "_blank", rel: "noopener" }, t("howto.link"), h("span", { class: "sr-only" }, ` ${t("common.newTab")}`))),
    ),
  ];
}

/** The tutorial's words for the room page: no clock to beat, no ranking, no rivals. */
const WORDS = {
  side: false,
  get resign() {
    return { label: t("tutorial.giveUp"), sure: t("tutorial.giveUpSure"), title: t("tutorial.giveUpTitle") };
  },
  result: () => null,
  banners(s) {
    const mine = s.mine;
    let own = null;
    if (mine?.won) own = { testid: "won-banner", kind: "won", strong: t("tutorial.won"), text: ` ${t("tutorial.wonText")}` };
    else if (mine?.resigned) own = { testid: "resigned-banner", kind: "lost", text: t("tutorial.gaveUp") };
    else if (mine?.stuck) own = { testid: "stuck-banner", kind: "stuck", strong: t("tutorial.stuck"), text: ` ${t("tutorial.stuckText")}` };
    return { own, over: null };
  },
};

class TutorialPage {
  constructor(root, { navigate }) {
    this.root = root;
    this.navigate = navigate;
    this.room = null;
    this.starting = null;
    store.set(TUTORIAL_KEY, "1");
    store.set(WELCOMED_KEY, "1");
    root.dataset.view = "tutorial";
    document.title = t("tutorial.title");
    this.holder = h("div", { class: "tutorial-room" });
    this.news = announcer("lesson-announce"); // a lesson done, and the next one, for screen readers
    fill(root, h("section", { class: "tutorial", "data-testid": "tutorial" }, this.news, this.holder));
    const code = store.get(ROOM_KEY);
    if (code && store.get(tokenKey(code))) this.open(code, null);
    else this.start();
  }

  destroy() {
    this.destroyed = true;
    this.room?.destroy();
    this.starting?.close();
  }

  /** A new tutorial: the server deals its position in a room of its own. */
  start() {
    this.room?.destroy();
    this.room = null;
    store.remove(ROOM_KEY);
    fill(this.holder, h("p", { class: "muted" }, t("tutorial.dealing")));
    this.starting?.close();
    let sent = false;
    const link = (this.starting = new Link({
      onOpen: () => {
        if (sent) return;
        sent = true;
        const msg = { type: "tutorial", device: deviceKey() };
        const name = store.get(NAME_KEY);
        if (name) msg.name = name;
        link.send(msg);
      },
      onMessage: (m) => {
        if (m.type === "joined") {
          this.starting = null;
          store.set(ROOM_KEY, m.room.code);
          this.open(m.room.code, { link, joined: m });
        } else if (m.type === "error") {
          this.starting = null;
          link.close();
          toast(errorText(m), "error");
          fill(this.holder, h("p", { class: "error" }, t("tutorial.failed"), " ", errorText(m)), h("button", { type: "button", onclick: () => this.start() }, t("common.tryAgain")));
        }
      },
    }));
    link.connect();
  }

  open(code, handoff) {
    const again = () => this.start();
    this.guided = null; // the version whose lesson move was lit
    let page = null;
    page = this.room = roomPage(this.holder, {
      code,
      navigate: this.navigate,
      handoff,
      words: WORDS,
      head: (s) => lessonPanel(s, again),
      waiting: t("tutorial.opening"),
      title: t("tutorial.title"),
      className: "tutorial-game",
      onChange: (s, before) => {
        if (page) this.guide(page);
        const done = finishedLesson(before.mine, s.mine);
        if (s.mine?.won) store.remove(ROOM_KEY); // done: the next visit deals a new one
        if (done) announce(this.news, s.mine.lesson.won ? t("tutorial.won") : t("tutorial.next", { done, title: lessonView(s.mine).title }));
      },
      onError: (m) => {
        // The tutorial kept here is gone (expired, another server): deal a new one.
        if (m.code !== "bad_token" && m.code !== "unknown_room") return false;
        if (page && page === this.room) setTimeout(() => this.start(), 0); // (not from inside its own handler)
        return true;
      },
    });
    this.guide(page);
  }

  /** Light the lesson's move on the board: the server's hint, asked once a state. */
  guide(page) {
    const s = page.state;
    if (!s.mine?.lesson?.move || !canAct(s) || s.hint || this.guided === s.mine.version) return;
    this.guided = s.mine.version;
    page.seat.hint();
  }
}

export function tutorialView(root, options) {
  return new TutorialPage(root, options);
}
