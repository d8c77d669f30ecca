// The race's moments as the player meets them: a sound for each (sound.js), a toast when a
// rival finishes, a buzz for a finish, and the podium at race over.

import { h } from "../dom.js";
import { foundationLabel } from "../model/cards.js";
import { t } from "../i18n.js";
import { hintsNote } from "../model/hints.js";
import { moments } from "../model/moments.js";
import { finished, formatMs, ordinal, TOTAL } from "../model/words.js";
import { sound } from "../sound.js";

const TOAST_MS = 3500;

/** A toast at the top of the screen, one at a time (the newest replaces the one before: a
 * pile of them would cover the cards). Unheard (aria-hidden): the page's announcer already
 * says the same news to a screen reader. */
export function momentToast(text) {
  let area = document.querySelector(".moment-toasts");
  if (!area) {
    area = h("div", { class: "moment-toasts", "aria-hidden": "true", "data-testid": "moment-toasts" });
    document.body.append(area);
  }
  const item = h("div", { class: "moment-toast", "data-testid": "moment-toast" }, text);
  area.replaceChildren(item);
  setTimeout(() => item.remove(), TOAST_MS);
}

/** Sound, toast and buzz the moments of a change of state (see model/moments.js). */
export function celebrate(before, after, message, { toast = momentToast } = {}) {
  for (const m of moments(before, after, message)) {
    if (m.kind === "move") sound.play(m.cue);
    else if (m.kind === "refused") sound.play("refused");
    else if (m.kind === "rival") {
      sound.play("rival");
      toast(t("moment.rival", { name: m.name, time: formatMs(m.ms), place: ordinal(m.place) }));
    } else if (m.kind === "finished") {
      sound.play("finished");
      sound.buzz([90, 60, 200]);
    } else if (m.kind === "over") sound.play("over");
    else if (m.kind === "lead") toast(m.me ? t("moment.leadMe") : t("moment.lead", { name: m.name, cards: m.cards }));
    else if (m.kind === "last") toast(t("moment.last", { name: m.name, n: m.left }));
    else if (m.kind === "suit") toast(t("moment.suit", { suit: foundationLabel(m.key) }));
  }
}

/** The first three on their steps: 2nd, 1st, 3rd, each with name and result (``result(r)``:
 * its words, when not a race's time or cards). */
export function podiumView(podium, { me = null, result = null } = {}) {
  const step = (r) =>
    h(
      "li",
      { class: `step place-${r.place}${r.seat === me ? " me" : ""}`, "data-testid": "podium-step", "data-place": r.place, "data-seat": r.seat },
      h("span", { class: "who", dir: "auto", title: r.name }, r.name),
      // (a finish with hints that cost: the time it was ranked by, the hints in its title)
      h("span", { class: "result", title: hintsNote(r) || null }, result ? result(r) : finished(r) ? formatMs(r.time_ms ?? r.finished_ms) : `${r.cards}/${TOTAL}`),
      h("span", { class: "block", "aria-hidden": "true" }, ordinal(r.place)),
    );
  const order = [2, 1, 3].map((n) => podium.find((r) => r.place === n)).filter(Boolean);
  return h("ol", { class: "podium", "data-testid": "podium", "aria-label": t("podium.label") }, order.map(step));
}
