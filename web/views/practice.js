// A practice room's line, on its page and its watch page: "Practice from move 30 of Ann's
// game." (the game linked to its replay), and that restart comes back there.

import { h } from "../dom.js";
import { t } from "../i18n.js";

/** A practice room's line: the game and move it plays on from (the game linked to its replay). */
export function practiceNote(practice) {
  const [before, after = ""] = t("room.practice", { n: practice.step }).split("{game}");
  const [pre, post = ""] = t("room.practiceGame").split("{name}");
  const game = h("a", { href: `/replay/${encodeURIComponent(practice.replay)}`, "data-testid": "practice-game" }, pre, h("span", { class: "name", dir: "auto" }, practice.name), post);
  return h("p", { class: "practice-note", "data-testid": "practice-note" }, h("strong", {}, before, game, after), " ", h("span", { class: "muted" }, t("room.practiceNote")));
}
