// The daily challenge's days and an attempt's place on a board, pure: a day is a UTC date
// (YYYY-MM-DD), a new deal at each midnight UTC.

/** The UTC date (YYYY-MM-DD) of a server time in ms. */
export function utcDate(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The day before a YYYY-MM-DD date. */
export function dayBefore(date) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** The time from server time ``now`` (ms) to the next midnight UTC: {hours, minutes}. */
export function untilMidnight(now) {
  const day = new Date(now);
  const midnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
  const left = Math.max(0, midnight - now);
  return { hours: Math.floor(left / 3600000), minutes: Math.floor((left % 3600000) / 60000) };
}

/** What leaderboard ``m`` says of attempt ``info`` (its room code, date, difficulty, and
 * ranked, unverified and pace as last known) of the daily player ``player``: null when it
 * says nothing new (another day's or difficulty's board, no result of mine on it, or the
 * same), else {ranked, unverified, pace}. The attempt is ranked exactly when my result on
 * the board is its own (another attempt of the day, in another tab, may finish first); then
 * an unverified result's reason, and its rule and numbers (pace). */
export function attemptOnBoard(m, info, player) {
  if (m.date !== info.date || m.difficulty !== info.difficulty) return null;
  const mine = m.me || (player ? m.entries.find((e) => e.player === player) : null);
  if (!mine) return null;
  const ranked = mine.room === info.code;
  const unverified = ranked ? (mine.unverified ?? null) : null;
  const pace = ranked ? (mine.pace ?? null) : null;
  const same = unverified === (info.unverified ?? null) && JSON.stringify(pace) === JSON.stringify(info.pace ?? null);
  return ranked === info.ranked && same ? null : { ranked, unverified, pace };
}
