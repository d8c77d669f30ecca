// The race's moments, read off a change of state: what the page plays a sound for, says in
// a toast or celebrates. Pure: the state before and after a message, and the message.

import { finishPlace } from "./news.js";
import { finished } from "./words.js";

/** The cue of a move the player made: "shuffle", "home" (to a foundation) or "place". */
export function moveCue(move) {
  if (move === "shuffle") return "shuffle";
  return />[ud]/.test(move) ? "home" : "place";
}

/**
 * The moments of the change from ``before`` to ``after`` by ``message``, in order:
 * {kind: "move", cue} (a move shown as it is sent; an undo or restart as it is answered),
 * {kind: "refused"} (the server turned a move down), {kind: "rival", name, ms, place},
 * {kind: "finished", ms, place} (this player cleared the deal), {kind: "over", podium};
 * and the race's drama, from the server's facts: {kind: "lead", name, me} (the lead changed
 * hands: most cards home, once a leader has 20), {kind: "last", name, left} (a rival down to
 * 10, then 5 cards to go), {kind: "suit", key} (one of this player's foundations complete).
 */
export function moments(before, after, message = {}) {
  const out = [];
  if (message.type === "sent" && message.move) out.push({ kind: "move", cue: moveCue(message.move) });
  else if (message.type === "state" && before.pending && !before.pending.move && before.mine && after.mine?.version !== before.mine.version) {
    out.push({ kind: "move", cue: "place" }); // an undo or a restart, answered
  } else if (message.type === "error" && before.pending) out.push({ kind: "refused" });
  const was = before.room;
  const room = after.room;
  if (!was || !room || was.round !== room.round) return out;
  const old = new Map(was.players.map((p) => [p.seat, p]));
  for (const p of room.players) {
    const o = old.get(p.seat);
    if (!o || !finished(p) || finished(o)) continue;
    const at = { ms: p.finished_ms, place: finishPlace(room.players, p, room.hint_penalty_ms ?? 0) };
    out.push(p.seat === after.seat ? { kind: "finished", ...at } : { kind: "rival", name: p.name, ...at });
  }
  if (room.phase === "racing" && was.phase === "racing") out.push(...drama(before, after, old));
  if (was.phase !== "over" && room.phase === "over") out.push({ kind: "over", podium: podium(room) });
  return out;
}

const LEAD_FROM = 20; // cards home before a lead is news (the deal's opening is no race yet)
const LAST = [10, 5]; // a rival's cards to go that are news

/** Who leads: the one with most cards home (a finish first), none on a tie or early. */
export function leader(players) {
  const racing = players.filter((p) => !p.resigned);
  const score = (p) => (finished(p) ? 1000 - (p.finished_ms ?? 0) / 1e9 : p.cards);
  const sorted = [...racing].sort((a, b) => score(b) - score(a));
  if (!sorted.length || sorted[0].cards < LEAD_FROM) return null;
  if (sorted.length > 1 && score(sorted[1]) === score(sorted[0])) return null;
  return sorted[0].seat;
}

function drama(before, after, old) {
  const out = [];
  const room = after.room;
  if (room.players.length > 1) {
    const was = leader(before.room.players);
    const now = leader(room.players);
    if (now && was !== now) {
      const p = room.players.find((q) => q.seat === now);
      out.push({ kind: "lead", name: p.name, me: now === after.seat, cards: p.cards });
    }
  }
  for (const p of room.players) {
    const o = old.get(p.seat);
    if (!o || p.seat === after.seat || finished(p)) continue;
    const left = 104 - p.cards;
    const crossed = LAST.filter((n) => left <= n && 104 - o.cards > n);
    if (crossed.length) out.push({ kind: "last", name: p.name, left });
  }
  const mine = before.mine?.board?.foundations;
  const now = after.mine?.board?.foundations;
  if (mine && now) {
    for (const [key, f] of Object.entries(now)) if (f.count >= 13 && (mine[key]?.count ?? 0) < 13) out.push({ kind: "suit", key });
  }
  return out;
}

/** The first three of a race that is over: [{place, name, seat, finished_ms, cards, ...}]. */
export function podium(room) {
  return (room?.ranking || []).filter((r) => r.place <= 3).slice(0, 3);
}
