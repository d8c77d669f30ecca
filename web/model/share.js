// What a page shares: links other devices can open, and a result in a line of text. Pure.

import { t } from "../i18n.js";
import { count, difficultyText, formatMs, ordinal } from "./words.js";

const LOOPBACK = /^(127(\.\d+){3}|localhost|\[::1\])$/i;

/** The origin a shared link starts with: hello's ``share_origin`` when this page was opened
 * at a loopback address (a friend's phone cannot open 127.0.0.1), else the page's own. The
 * server's QR code follows the same rule (race/share.py). */
export function shareOrigin(location, helloOrigin) {
  return helloOrigin && LOOPBACK.test(location.hostname) ? helloOrigin : location.origin;
}

/** Whether a shared link would reach no other device: the page is at a loopback address
 * and the server knows no address others can open (it listens on loopback only). */
export function unreachable(location, helloOrigin) {
  return !helloOrigin && LOOPBACK.test(location.hostname);
}

/** The room's link to share. */
export const roomLink = (origin, code) => `${origin}/r/${code}`;

/** "Crescent Race daily 2026-12-01, medium: 4:12, 131 moves" (a daily attempt), or
 * "Crescent Race, hard deal 42: 1st of 3 in 4:12, 131 moves" (a race). ``me`` is the
 * player's entry in the room (finished_ms, moves, cards); ``place`` and ``of``: the ranking. */
export function resultText(room, me, { place = null, of = null, daily = null } = {}) {
  const how = me.finished_ms != null ? formatMs(me.finished_ms).replace(/[.,]\d$/, "") : t("share.cards", { n: me.cards });
  const moves = count(me.moves, "count.moves");
  if (daily) return t("share.daily", { date: daily.date, difficulty: difficultyText(daily.difficulty), how, moves });
  const ranked = place && of > 1 ? t("share.ranked", { place: ordinal(place), n: of }) : "";
  const time = t(me.finished_ms != null ? "share.in" : "share.with", { how });
  return t("share.race", { difficulty: difficultyText(room.difficulty), deal: String(room.deal), ranked, time, moves });
}

