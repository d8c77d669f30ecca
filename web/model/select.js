// What the pages read off a room's state (room.js): the phase, this seat, what the buttons
// may do now, the clock. Pure: they read what the server said (``now``: its clock).

import { t } from "../i18n.js";
import { finished, isOut } from "./words.js";

const GO_MS = 1000; // how long "Go!" shows over the board once the race starts

/** The server's phase (lobby, countdown, racing, over), or loading, or gone. */
export function phase(s) {
  if (s.gone !== null) return "gone";
  return s.room ? s.room.phase : "loading";
}

export function running(s) {
  const p = phase(s);
  return p === "countdown" || p === "racing";
}

/** This seat's entry among the players. */
export function me(s) {
  return s.room?.players.find((p) => p.seat === s.seat) ?? null;
}

export function rivals(s) {
  return s.room ? s.room.players.filter((p) => p.seat !== s.seat) : [];
}

/** Whether this seat is racing (not out). */
export function inRace(s) {
  return phase(s) === "racing" && !!s.mine && !isOut(s.mine);
}

/** Whether this page may send a race action: racing, no reply awaited, not kicked. */
export function canAct(s) {
  return phase(s) === "racing" && !!s.mine && !s.pending && !s.kicked;
}

export function legalNow(s) {
  return canAct(s) ? s.mine.legal_moves : [];
}

export function tools(s) {
  const mine = s.mine;
  const legal = legalNow(s);
  const active = canAct(s);
  const out = isOut(mine);
  return {
    shufflesLeft: mine?.board.shuffles_left ?? 0,
    shuffle: legal.includes("shuffle"),
    shuffleHinted: s.hint?.move === "shuffle" && legal.includes("shuffle"),
    hint: active && !out && s.room?.hints !== "off",
    undo: active && !!mine?.can_undo,
    undoHinted: active && !!mine?.can_undo && s.hint?.way_out === "undo",
    restart: active && !out && !!mine?.can_undo,
    resign: active && !out,
  };
}

/** Whether this seat may end the race now, alone: from the server's `end_from` for it (every
 * other player still racing is away). The host is no one special. (Alone in a race, a
 * player resigns instead.) */
export function mayEnd(s, now) {
  if (!running(s) || !s.seat || s.room.players.length < 2) return false;
  const from = s.presence?.end_from?.[s.seat];
  return from !== null && from !== undefined && now >= from;
}

/** The vote to end the race as this seat sees it: whether it may ask (still racing, with
 * a rival), whether it has asked, and who else has (their names). */
export function endVote(s, now) {
  const racing = running(s) && !!s.mine && !isOut(s.mine) && s.room.players.length > 1 && !mayEnd(s, now);
  const asked = s.room ? s.room.players.filter((p) => p.end_vote && p.seat !== s.seat && !isOut(p)).map((p) => p.name) : [];
  return { may: racing, mine: racing && !!me(s)?.end_vote, others: running(s) ? asked : [] };
}

/** Whether ``seat`` has no connection open (``mine`` is always here). */
export function isAway(presence, seat, mine = null) {
  return !!presence && seat !== mine && !presence.here.includes(seat);
}

/** Whether the server says ``seat``, still racing, has not acted for a while (its `idle`):
 * the others may race past it as if it were away (``mine`` is never shown so). */
export function isIdle(presence, seat, mine = null) {
  return !!presence && seat !== mine && (presence.idle || []).includes(seat);
}

/** Whether this player may act as the lobby's host, the host being gone: from the server's
 * `host_from` (the page does not work the rule out). */
export function hostAway(s, now) {
  const from = s.presence?.host_from;
  return !!s.seat && !!s.room && s.seat !== s.room.host && from !== null && from !== undefined && now >= from;
}

export function place(s) {
  return s.room?.ranking?.find((r) => r.seat === s.seat)?.place ?? null;
}

/** Whether the race ended with its time limit. */
export function endedByTime(room) {
  return !!(room.time_limit && room.start_at && room.ended_at >= room.start_at + room.time_limit * 1000);
}

/** The clock at ``now``: the countdown ("3".."1", then "Go!" a moment on a page that
 * counted down to ``countedDown``; null), the race time and the time left (null: no limit). */
export function clock(s, now, countedDown = null) {
  const room = s.room;
  const p = phase(s);
  const limit = room?.time_limit ? room.time_limit * 1000 : null;
  if (p === "countdown") return { count: String(Math.max(1, Math.ceil((room.start_at - now) / 1000))), elapsed: 0, left: limit };
  const start = room?.start_at;
  const go = p === "racing" && start === countedDown && now - start < GO_MS;
  let elapsed = 0;
  if (s.mine && finished(s.mine)) elapsed = s.mine.finished_ms;
  else if (start && p === "over") elapsed = (room.ended_at ?? now) - start;
  else if (start && p === "racing") elapsed = now - start;
  let left = limit;
  if (limit && start) {
    const end = start + limit;
    // Over: what was left when the race ended (0 only if the time ran out).
    const rest = p === "racing" ? end - now : p === "over" ? end - (room.ended_at ?? end) : limit;
    left = Math.min(limit, Math.max(0, rest)); // ended in the countdown: all of it
  }
  return { count: go ? "Go!" : null, elapsed: Math.max(0, elapsed), left };
}

/** What to say of a room before joining, from its look-up (``info``: `GET /api/rooms/CODE`);
 * ``wasClosed``: it took no seat at the last look-up (a lobby is then a new round). */
export function joinNote(info, wasClosed) {
  if (info.kind === "daily") {
    return { code: "daily", message: t("join.daily"), closed: true };
  }
  if (info.kind === "tutorial") return { code: "tutorial", message: t("join.tutorial"), closed: true };
  if (info.kind === "practice") return { code: "practice", message: t("join.practice"), closed: true };
  if (info.phase === "over") return { code: "already_started", message: t("join.over"), closed: true, over: true };
  if (info.phase !== "lobby") return { code: "already_started", message: t("join.started"), closed: true };
  if (info.players >= info.max_players) return { code: "room_full", message: t("join.full", { n: info.max_players }) };
  return wasClosed ? { code: "new_round", message: t("join.newRound") } : null;
}
