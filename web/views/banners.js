// The banners over the board: the player's own (won, resigned, stuck, a note) first, the
// race's end last. The area is live: a banner goes in only when it says something new.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { endedByTime, place } from "../model/select.js";
import { count, endedText, finished, formatMs, ordinal } from "../model/words.js";

/** A race's banners for state ``s``: {own, over}, each null or {testid, kind, strong,
 * text, tail} (the tail is changed in place, unheard). */
export function raceBanners(s) {
  const mine = s.mine;
  const over = s.room?.phase === "over";
  const at = place(s);
  let own = null;
  // Once a race of several is over its one panel tells the result: no banner of it here too.
  const told = over && (s.room.ranking?.length ?? 0) > 1;
  if (mine && finished(mine) && !told) {
    own = { testid: "won-banner", kind: "won", strong: t("banner.cleared"), text: t("banner.clearedText", { time: formatMs(mine.finished_ms), moves: count(mine.moves, "count.moves") }) };
  } else if (mine?.resigned) {
    own = { testid: "resigned-banner", kind: "lost", text: t("banner.resigned") };
  } else if (mine?.stuck) {
    own = { testid: "stuck-banner", kind: "stuck", strong: t("banner.stuck"), text: t("banner.stuckText") };
  }
  // (a race of one won: the player's own banner has said it all)
  const end = over && own?.kind !== "won" && {
    testid: "over-banner",
    kind: "over",
    strong: endedByTime(s.room) ? t("banner.timeUp") : endedText(s.room),
    text: at ? ` ${t(mine && !finished(mine) && !mine.resigned ? "end.placedUnfinished" : "end.placed", { place: ordinal(at), n: s.room.ranking.length })}` : "",
  };
  return { own, over: end || null };
}

/** Draws {own, over} into ``area``. */
export function bannerArea(area) {
  const shown = { own: null, over: null }; // {key, el, tail}
  const put = (slot, spec, first) => {
    const old = shown[slot];
    const key = spec && JSON.stringify({ ...spec, tail: null });
    if (key !== (old?.key ?? null)) {
      const tail = h("span", { "aria-hidden": "true" });
      const el = spec && h("div", { class: `banner ${spec.kind}`, "data-testid": spec.testid }, spec.strong ? h("strong", {}, spec.strong) : null, spec.text, tail);
      if (old && el) old.el.replaceWith(el);
      else if (old) old.el.remove();
      else if (el) area[first ? "prepend" : "append"](el);
      shown[slot] = el && { key, el, tail };
    }
    const tail = spec?.tail ?? "";
    if (shown[slot] && shown[slot].tail.textContent !== tail) shown[slot].tail.textContent = tail;
  };
  return ({ own, over }) => {
    put("own", own, true);
    put("over", over, false);
  };
}
