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
 * {kind: "finished", ms, place} (this player cleared the deal), {kind: "over", podium}.
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
  if (was.phase !== "over" && room.phase === "over") out.push({ kind: "over", podium: podium(room) });
  return out;
}

/** The first three of a race that is over: [{place, name, seat, finished_ms, cards, ...}]. */
export function podium(room) {
  return (room?.ranking || []).filter((r) => r.place <= 3).slice(0, 3);
}
