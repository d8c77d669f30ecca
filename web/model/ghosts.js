// Ghosts: past games raced again. The server sends each ghost's timeline once, in the room
// snapshot (each action's time from the start, and the cards home and moves after it); a ghost's
// progress is read off it at the server's time, as a live rival's would arrive.

/** How long the race has run for its ghosts at server time ``now``: from the start, the
 * whole of their games once the race is over, nothing before it starts. */
export function ghostTime(room, phase, now) {
  if (phase === "over") return Infinity;
  if (phase !== "racing" || !room?.start_at) return 0;
  return Math.max(0, now - room.start_at);
}

/** Ghost ``g`` ``elapsed`` ms after the start, as the pages show a player. */
export function ghostAt(g, elapsed) {
  let lo = 0;
  let hi = g.at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (g.at[mid] <= elapsed) lo = mid + 1;
    else hi = mid;
  }
  const done = lo === g.at.length && elapsed >= (g.at.at(-1) ?? 0);
  const won = g.finished_ms !== null && g.finished_ms !== undefined && elapsed >= g.finished_ms;
  return {
    seat: g.seat,
    name: g.name,
    cards: lo ? g.home[lo - 1] : g.start_home,
    moves: lo ? (g.moves?.[lo - 1] ?? lo) : 0, // (undo and restart are no moves, as the ranking counts)
    won,
    finished_ms: won ? g.finished_ms : null,
    resigned: done && !won && !!g.resigned,
    stuck: false,
    ghost: true,
    hints: g.hints ?? 0, // (its game's, all told)
  };
}

/** Every ghost of ``room`` at ``elapsed`` ms (none for a room without). */
export function ghostsAt(room, elapsed) {
  return (room?.ghosts ?? []).map((g) => ghostAt(g, elapsed));
}

/** A short key of what the ghosts show, to draw them again only when it changes. */
export function ghostKey(ghosts) {
  return ghosts.map((g) => `${g.seat}:${g.cards}:${g.moves}:${g.finished_ms}:${g.resigned}`).join(" ");
}

/** Ghost ``g``'s pace against the player's row ``me`` (cards home, finished_ms): null for a
 * spectator; once both have finished, by seconds ({unit: "seconds", n, ahead}); else by cards
 * home ({unit: "cards", n, ahead}, ``ahead`` null when level). */
export function ghostPace(g, me) {
  if (!g || !me) return null;
  const done = (p) => p.finished_ms !== null && p.finished_ms !== undefined;
  if (done(g) && done(me)) {
    const n = Math.round(Math.abs(me.finished_ms - g.finished_ms) / 1000);
    return { unit: "seconds", n, ahead: n === 0 ? null : g.finished_ms < me.finished_ms };
  }
  const diff = g.cards - me.cards;
  return { unit: "cards", n: Math.abs(diff), ahead: diff === 0 ? null : diff > 0 };
}

/** The i18n key of a pace (ghostPace), to say with {n}. */
export function paceKey(pace) {
  if (pace.ahead === null) return "pace.level";
  return `pace.${pace.ahead ? "ahead" : "behind"}${pace.unit === "seconds" ? "Seconds" : "Cards"}`;
}
