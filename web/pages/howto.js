// How to play (/how): the rules in our own words, with small pictures drawn with the
// board's own cards. It states the rules; it decides nothing (the server's engine does).

import { cardElement } from "../board/board.js";
import { fill, h, store } from "../dom.js";
import { t } from "../i18n.js";

export const WELCOMED_KEY = "crescent-race.welcomed"; // the home page's offer was seen through
export const TUTORIAL_KEY = "crescent-race.tutorial"; // the tutorial was offered in a game, or opened

/** A small picture: groups of cards (a pile is bottom to top), with words between. */
function picture(label, ...parts) {
  return h(
    "figure",
    { class: "howto-pic" },
    h(
      "div",
      { class: "howto-row", role: "img", "aria-label": label },
      parts.map((p) => (typeof p === "string" ? h("span", { class: "howto-arrow", "aria-hidden": "true" }, p) : h("div", { class: "howto-pile" }, p.map((c) => cardElement(c))))),
    ),
    h("figcaption", {}, label),
  );
}

/** The words of ``key`` with ``strong`` (in bold) where its {strong} is. */
function withStrong(key, strong) {
  const [before, after = ""] = t(key).split("{strong}");
  return [before, h("strong", {}, strong), after];
}

function part(title, ...body) {
  return h("section", { class: "card-panel howto-part" }, h("h2", {}, title), ...body);
}

export function howtoView(root) {
  root.dataset.view = "howto";
  document.title = t("howto.title");
  store.set(WELCOMED_KEY, "1");
  fill(
    root,
    h(
      "article",
      { class: "howto", "data-testid": "howto" },
      h("h1", {}, t("howto.h1")),
      h("p", { class: "tagline" }, t("howto.tagline")),
      h("p", { class: "howto-learn" }, t("howto.learn"), " ", h("a", { href: "/learn", class: "button primary", "data-testid": "howto-tutorial" }, t("home.playTutorial")), " ", t("howto.learnTail")),
      part(t("howto.aim"), h("p", {}, withStrong("howto.aimText", t("howto.aimStrong")))),
      part(
        t("howto.foundations"),
        h("p", {}, t("howto.foundationsText")),
        picture(t("howto.picUp"), ["AH", "2H", "3H"], "←", ["4H"]),
        picture(t("howto.picDown"), ["KS", "QS"], "←", ["JS"]),
        h("p", {}, t("howto.twins")),
      ),
      part(
        t("howto.piles"),
        h("p", {}, t("howto.pilesText")),
        picture(t("howto.picPile"), ["8C"], "→", ["4D", "9C"], "←", ["TC"]),
        h("p", {}, withStrong("howto.wrap", t("howto.wrapStrong"))),
        picture(t("howto.picWrap"), ["AH"], "→", ["7S", "KH"]),
      ),
      part(
        t("howto.giveBacks"),
        h("p", {}, t("howto.giveBacksText")),
        picture(t("howto.picGiveBack"), ["AD", "4D", "5D"], "→", ["JC", "6D"]),
      ),
      part(
        t("howto.shuffle"),
        h("p", {}, t("howto.shuffleText")),
        picture(t("howto.picShuffle"), ["QH", "3D", "7S"], "⟳", ["3D", "7S", "QH"]),
      ),
      part(t("howto.stuck"), h("p", {}, t("howto.stuckText")), h("p", { "data-testid": "howto-hints" }, t("hints.howto")), h("p", {}, t("howto.ranking"))),
      part(t("end.howtoTitle"), h("p", { "data-testid": "howto-ending" }, t("end.howto")), h("p", {}, t("end.howtoVote"))),
      part(t("series.howtoTitle"), h("p", { "data-testid": "howto-series" }, t("series.howto")), h("p", {}, t("series.howtoRematch"))),
      part(t("howto.moving"), h("ul", {}, h("li", {}, t("howto.tap")), h("li", {}, t("howto.drag")), h("li", {}, t("howto.pick")), h("li", {}, t("howto.keys")))),
      h("p", { class: "actions howto-go" }, h("a", { href: "/", class: "button primary", "data-testid": "howto-home" }, t("tutorial.race")), h("a", { href: "/learn", class: "button" }, t("home.playTutorial")), h("a", { href: "/daily", class: "button" }, t("tutorial.daily"))),
    ),
  );
  return { destroy() {} };
}
