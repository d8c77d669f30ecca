// The room's news in words, for screen readers: never each move, only a player's finish,
// resignation or getting stuck, who went away or is back, and (for a spectator) the end.

import { t } from "../i18n.js";
import { endedByTime } from "./select.js";
import { finished, formatMs, ordinal } from "./words.js";

/** The news of the change from state ``before`` to ``after``; ``spectator``: the watch page
 * (a player's page says the end in its banner). */
export function news(before, after, { spectator = false } = {}) {
  const was = before.room;
  const room = after.room;
  const lines = [];
  if (was && room && was.round === room.round && (after.seat || spectator)) {
    lines.push(raceNews(was.players, room.players, after.seat, room.hint_penalty_ms ?? 0));
    if (spectator) lines.push(overNews(was.phase, room));
  }
  if (before.presence !== after.presence) {
    lines.push(presenceNews(before.presence, after.presence, room?.players || [], after.seat, new Set(before.seen)));
  }
  return lines.filter(Boolean).join(" ");
}

/** A finisher's place among ``players``: finishers rank by time (with ``penaltyMs`` for
 * each hint they took, as the server's ranking counts it), then by fewer moves. */
export function finishPlace(players, p, penaltyMs = 0) {
  const time = (q) => q.finished_ms + (q.hints ?? 0) * penaltyMs;
  const ahead = players.filter((q) => q.seat !== p.seat && finished(q) && (time(q) < time(p) || (time(q) === time(p) && q.moves < p.moves)));
  return ahead.length + 1;
}

/** "Bob finished in 0:34.4 (1st).", "Cleo resigned.", "Dan is stuck.", of players but ``me``. */
export function raceNews(before, after, me = null, penaltyMs = 0) {
  const was = new Map(before.map((p) => [p.seat, p]));
  const lines = [];
  for (const p of after) {
    const old = was.get(p.seat);
    if (p.seat === me || !old) continue; // a newcomer is no news of the race
    if (finished(p) && !finished(old)) lines.push(t("news.finished", { name: p.name, time: formatMs(p.finished_ms), place: ordinal(finishPlace(after, p, penaltyMs)) }));
    else if (p.resigned && !old.resigned) lines.push(t("news.resigned", { name: p.name }));
    else if (p.stuck && !old.stuck && !finished(p) && !p.resigned) lines.push(t("news.stuck", { name: p.name }));
  }
  return lines.join(" ");
}

/** "Race over: Bob placed 1st of 4.", when ``room`` is over and was not (``was``: phase). */
export function overNews(was, room) {
  if (room.phase !== "over" || (was !== "racing" && was !== "countdown")) return "";
  const ranking = room.ranking || [];
  const head = t(endedByTime(room) ? "news.timeUp" : "news.over");
  const first = ranking.find((r) => r.place === 1);
  if (!first) return t("news.ended", { head });
  // (a race ended early names no winner: its first may not have finished)
  return t(first.finished === false ? "news.firstUnfinished" : "news.winner", { head, name: first.name, n: ranking.length });
}

/** "Bob went away.", "Bob is back." (``seen``: seats ever here: a newcomer is not back). */
export function presenceNews(before, after, players, me = null, seen = new Set()) {
  if (!before || !after) return "";
  const lines = [];
  for (const p of players) {
    if (p.seat === me) continue;
    const was = before.here.includes(p.seat);
    const is = after.here.includes(p.seat);
    if (was && !is) lines.push(t("news.away", { name: p.name }));
    else if (!was && is && seen.has(p.seat)) lines.push(t("news.back", { name: p.name }));
  }
  return lines.join(" ");
}
