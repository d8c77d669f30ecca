// A room as a page knows it: one reducer of the server's messages for the player's page,
// the daily attempt and the watch page. Pure: a message that changes nothing gives back the
// same state, and a new state shares what did not change (views compare by identity).

import { isHidden } from "./cards.js";
import { inRace } from "./select.js";

export function initial(code) {
  return {
    code,
    shareOrigin: null, // hello's share_origin: where other devices reach this server
    room: null,
    presence: null,
    seen: [], // every seat ever here: one that comes again is "back"
    seat: null,
    mine: null, // this seat's own `state`
    hint: null, // the server's answer: {move, progress, way_out} (model/hints.js says it)
    pending: null, // {id, move}: sent, its reply awaited
    kicked: false, // the seat was opened in another window
    gone: null, // why the room is no longer there
  };
}

/** The state after ``m``: a server message, or the page's own (sent, unanswered, kicked,
 * here, seat_lost, gone). */
export function reduce(s, m) {
  const next = step(s, m);
  // A hint is for a race being played: not once it is over, or this player is out of it.
  return next.hint && !inRace(next) ? { ...next, hint: null } : next;
}

function step(s, m) {
  switch (m.type) {
    case "hello": {
      const shareOrigin = m.share_origin === undefined ? s.shareOrigin : m.share_origin;
      return shareOrigin === s.shareOrigin ? s : { ...s, shareOrigin };
    }
    case "joined":
      // (a new connection: its presence follows)
      return withMine({ ...s, seat: m.seat, presence: null, pending: null, room: mergeSnapshot(s.room, m.room) }, m.state);
    case "watching":
      return { ...s, presence: null, room: mergeSnapshot(s.room, m.room) };
    case "room": {
      const room = mergeSnapshot(s.room, m.room);
      // A rematch: the old deal's hint goes at once, not with the new board.
      const hint = s.room && s.room.round !== room.round ? null : s.hint;
      const next = { ...s, room, hint };
      // The start: my board face down, no move of mine yet, and the server's opening (the
      // deal as every seat starts it) is my game now. Else the page asks with `sync`.
      const entry = m.opening && isHidden(s.mine?.board) && room.players.find((p) => p.seat === s.seat);
      if (entry && entry.version === s.mine.version) {
        return withMine(next, { ...s.mine, board: m.opening.board, legal_moves: m.opening.legal_moves, can_undo: false });
      }
      return next;
    }
    case "player": {
      const players = s.room && applyPlayer(s.room.players, m.player);
      return players ? { ...s, room: { ...s.room, players } } : s;
    }
    case "presence": {
      const presence = newerPresence(s.presence, m);
      if (presence === s.presence) return s; // old news, or the same again
      return { ...s, presence, seen: [...new Set([...s.seen, ...presence.here])] };
    }
    case "state":
      return withMine({ ...s, pending: null }, m);
    case "hint":
      if (!s.mine || m.version !== s.mine.version || !inRace(s)) return s;
      return { ...s, hint: { move: m.move ?? null, progress: m.progress ?? null, way_out: m.way_out ?? null } };
    case "error":
      if (m.state) return withMine({ ...s, pending: null }, m.state);
      return s.pending ? { ...s, pending: null } : s; // back to the server's board
    case "sent":
      return { ...s, pending: { id: m.id, move: m.move ?? null } };
    case "unanswered":
      return s.pending?.id === m.id ? { ...s, pending: null } : s;
    case "kicked":
      return { ...s, kicked: true, pending: null, presence: null }; // no longer live here: no one away
    case "here":
      return { ...s, kicked: false };
    case "seat_lost":
      return { ...s, seat: null, mine: null, pending: null, hint: null };
    case "gone":
      return { ...s, gone: m.message, room: null, seat: null, mine: null, pending: null, hint: null };
    default:
      return s;
  }
}

/** ``s`` with this seat's ``mine``, also as its player entry (no `player` comes of one's own moves). */
function withMine(s, mine) {
  const hint = s.mine && mine.version !== s.mine.version ? null : s.hint;
  const players = s.room && mine.seat && applyPlayer(s.room.players, playerFromState(mine));
  return { ...s, mine, hint, room: players ? { ...s.room, players } : s.room };
}

/** A new snapshot, keeping the newer of each player's versions within a round. */
export function mergeSnapshot(old, room) {
  if (!old || old.round !== room.round) return room;
  const held = new Map(old.players.map((p) => [p.seat, p]));
  const players = room.players.map((p) => {
    const mine = held.get(p.seat);
    return mine && (mine.version ?? 0) > (p.version ?? 0) ? { ...p, ...mine, ready: p.ready } : p;
  });
  return { ...room, players };
}

/** The players with ``update`` merged in; null if it is older (updates can cross) or no one's. */
export function applyPlayer(players, update) {
  const i = players.findIndex((p) => p.seat === update.seat);
  if (i < 0 || (update.version ?? 0) < (players[i].version ?? 0)) return null;
  const next = players.slice();
  next[i] = { ...players[i], ...update };
  return next;
}

/** A player's entry as the others see it, from that player's own `state`. */
export function playerFromState(state) {
  const { seat, name, version, cards, moves, shuffles_left, won, stuck, resigned, finished_ms, hints, board } = state;
  return { seat, name, version, cards, moves, shuffles_left, won, stuck, resigned, finished_ms, hints, board, end_vote: !!state.end_vote };
}

/** The newer of the presence held and ``m`` (they can cross); of the same version (told
 * again, or with a new `end_from`) the later, or the held one when they say the same. */
export function newerPresence(current, m) {
  if (current && m.version < current.version) return current;
  const next = { version: m.version, here: m.here, watching: m.watching, away_since: m.away_since || {}, end_from: m.end_from ?? null, host_from: m.host_from ?? null, idle: m.idle || [] };
  return current && JSON.stringify(current) === JSON.stringify(next) ? current : next;
}
