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

function part(title, ...body) {
  return h("section", { class: "card-panel howto-part" }, h("h2", {}, title), ...body);
}

export function howtoView(root) {
  root.dataset.view = "howto";
  document.title = "How to play · Crescent Race";
  store.set(WELCOMED_KEY, "1");
  fill(
    root,
    h(
      "article",
      { class: "howto", "data-testid": "howto" },
      h("h1", {}, "How to play Crescent"),
      h("p", { class: "tagline" }, "Two decks, sixteen piles, eight foundations, and nothing hidden. Everyone in a race gets the same deal: the first to bring all 104 cards home wins."),
      h("p", { class: "howto-learn" }, "Rather learn by playing? ", h("a", { href: "/learn", class: "button primary", "data-testid": "howto-tutorial" }, "Play the tutorial"), " Six short steps on a small game, to your first win."),
      part(
        "The aim",
        h("p", {}, "Bring every card home to the eight foundations in the middle. An Ace and a King of each suit start there, so a game begins at ", h("strong", {}, "Home 8/104"), "."),
      ),
      part(
        "Foundations: up from the Ace, down from the King",
        h("p", {}, "Each suit has two foundations. One is built up from its Ace (A, 2, 3 … K), the other down from its King (K, Q, J … A), always in suit. They never wrap around."),
        picture("The hearts' up foundation at 3 takes the 4 of hearts", ["AH", "2H", "3H"], "←", ["4H"]),
        picture("The spades' down foundation at Q takes the J of spades", ["KS", "QS"], "←", ["JS"]),
        h("p", {}, "There are two of every card: one copy goes up, its twin goes down. Tapping a card plays it home when a foundation takes it."),
      ),
      part(
        "Piles: one card at a time, one rank up or down",
        h("p", {}, "Only the top card of a pile moves. It may go onto another pile whose top card is the same suit and one rank higher or lower; piles may zigzag up and down."),
        picture("The 8 or the 10 of clubs may go on the 9 of clubs", ["8C"], "→", ["4D", "9C"], "←", ["TC"]),
        h("p", {}, "On the piles, Ace and King are neighbours: the ", h("strong", {}, "A-K wrap"), ". An empty pile stays empty for good."),
        picture("A-K wrap: the Ace of hearts may go on the King of hearts", ["AH"], "→", ["7S", "KH"]),
      ),
      part(
        "Give-backs",
        h("p", {}, "The top card of a foundation may come back onto a pile that takes it, to free the way for its twin. The Aces and Kings the foundations start with never move."),
        picture("The 5 of diamonds goes back from its foundation onto the 6 of diamonds", ["AD", "4D", "5D"], "→", ["JC", "6D"]),
      ),
      part(
        "The shuffle",
        h("p", {}, "When you run dry, shuffle: the bottom card of every pile moves to its top, all at once. It is no gamble: you can see what each shuffle will bring up. Easy gives 9 shuffles, Medium 6, Hard 3."),
        picture("A shuffle brings the bottom card, the Queen of hearts, to the top", ["QH", "3D", "7S"], "⟳", ["3D", "7S", "QH"]),
      ),
      part(
        "Stuck, undo and hints",
        h("p", {}, "You are stuck only when no card can move anywhere and no shuffle is left. Undo is unlimited (an undone shuffle comes back); Restart goes back to the deal; Hint suggests a move. The clock keeps running through all of them."),
        h(
          "p",
          { "data-testid": "howto-hints" },
          t("hints.howto"),
        ),
        h("p", {}, "In a race the first to clear the deal wins; when nobody does, most cards home ranks first, then fewer moves."),
      ),
      part(t("end.howtoTitle"), h("p", { "data-testid": "howto-ending" }, t("end.howto")), h("p", {}, t("end.howtoVote"))),
      part(t("series.howtoTitle"), h("p", { "data-testid": "howto-series" }, t("series.howto")), h("p", {}, t("series.howtoRematch"))),
      part(
        "Moving cards",
        h(
          "ul",
          {},
          h("li", {}, "Tap a pile's top card to play it home."),
          h("li", {}, "Drag a card to a lit target, or long-press it to see all its targets and tap one."),
          h("li", {}, "Tap a foundation to pick up its top card for a give-back."),
          h("li", {}, "Keys: U undo, S shuffle, H hint, ? for the full list."),
        ),
      ),
      h("p", { class: "actions howto-go" }, h("a", { href: "/", class: "button primary", "data-testid": "howto-home" }, "Start a race"), h("a", { href: "/learn", class: "button" }, "Play the tutorial"), h("a", { href: "/daily", class: "button" }, "Try today’s deal")),
    ),
  );
  return { destroy() {} };
}
