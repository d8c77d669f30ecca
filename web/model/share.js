// What a page shares: links other devices can open, and a result in a line of text. Pure.

import { count, formatMs, ordinal } from "./words.js";

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
  const how = me.finished_ms != null ? formatMs(me.finished_ms).replace(/\.\d$/, "") : `${me.cards}/104 cards`;
  const moves = count(me.moves, "move");
  if (daily) return `Crescent Race daily ${daily.date}, ${daily.difficulty}: ${how}, ${moves}`;
  const ranked = place && of > 1 ? `${ordinal(place)} of ${of} ` : "";
  const time = me.finished_ms != null ? `in ${how}` : `with ${how}`;
  return `Crescent Race, ${room.difficulty} deal ${room.deal}: ${ranked}${time}, ${moves}`;
}

