// The daily challenge's days, and what a leaderboard says of an attempt.
import assert from "node:assert/strict";
import { test } from "node:test";

import { attemptOnBoard, dayBefore, untilMidnight, utcDate } from "../../web/model/daily.js";

test("a day is the UTC date, and the day before crosses months and years", () => {
  assert.equal(utcDate(Date.UTC(2026, 11, 1, 23, 59, 59, 999)), "2026-12-01");
  assert.equal(utcDate(Date.UTC(2026, 11, 2)), "2026-12-02");
  assert.equal(dayBefore("2026-12-01"), "2026-11-30");
  assert.equal(dayBefore("2027-01-01"), "2026-12-31");
  assert.equal(dayBefore("2028-03-01"), "2028-02-29");
});

test("the time to the next deal counts down to midnight UTC, in whole minutes", () => {
  assert.deepEqual(untilMidnight(Date.UTC(2026, 11, 1)), { hours: 24, minutes: 0 });
  assert.deepEqual(untilMidnight(Date.UTC(2026, 11, 1, 21, 14, 30)), { hours: 2, minutes: 45 });
  assert.deepEqual(untilMidnight(Date.UTC(2026, 11, 31, 23, 59, 59)), { hours: 0, minutes: 0 });
});

const info = { code: "ABC", date: "2026-12-01", difficulty: "easy", ranked: true };
const board = (entries, extra = {}) => ({ date: "2026-12-01", difficulty: "easy", entries, me: null, ...extra });

test("an attempt is ranked exactly when my result on its day's board is its own", () => {
  const other = board([{ player: "p1", room: "XYZ" }]);
  assert.deepEqual(attemptOnBoard(other, info, "p1"), { ranked: false, unverified: null, pace: null });
  assert.equal(attemptOnBoard(board([{ player: "p1", room: "ABC" }]), info, "p1"), null); // nothing new
  const me = board([], { me: { player: "p1", room: "XYZ" } }); // (below the top: the board's me)
  assert.deepEqual(attemptOnBoard(me, info, "p1"), { ranked: false, unverified: null, pace: null });
  assert.deepEqual(attemptOnBoard(board([{ player: "p1", room: "ABC" }]), { ...info, ranked: false }, "p1"), { ranked: true, unverified: null, pace: null });
});

test("a board with no result of mine, or of another day or difficulty, says nothing", () => {
  const mine = [{ player: "p1", room: "XYZ" }];
  assert.equal(attemptOnBoard(board([{ player: "p2", room: "XYZ" }]), info, "p1"), null);
  assert.equal(attemptOnBoard(board(mine), info, null), null);
  assert.equal(attemptOnBoard(board(mine, { date: "2026-11-30" }), info, "p1"), null);
  assert.equal(attemptOnBoard(board(mine, { difficulty: "hard" }), info, "p1"), null);
});

test("an unverified result's reason and its pace are new until they are known", () => {
  const why = "median time between actions 180 ms";
  const pace = { code: "median", ms: 180, min_ms: 250 };
  const flagged = board([{ player: "p1", room: "ABC", unverified: why, pace }]);
  assert.deepEqual(attemptOnBoard(flagged, info, "p1"), { ranked: true, unverified: why, pace });
  assert.equal(attemptOnBoard(flagged, { ...info, unverified: why, pace: { ...pace } }, "p1"), null);
  const faster = board([{ player: "p1", room: "ABC", unverified: why, pace: { ...pace, ms: 150 } }]);
  assert.deepEqual(attemptOnBoard(faster, { ...info, unverified: why, pace }, "p1"), { ranked: true, unverified: why, pace: { ...pace, ms: 150 } });
  // Another attempt's result: neither its reason nor its pace is this attempt's.
  const another = board([{ player: "p1", room: "XYZ", unverified: why, pace }]);
  assert.deepEqual(attemptOnBoard(another, info, "p1"), { ranked: false, unverified: null, pace: null });
});
