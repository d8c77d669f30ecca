// The race's moments: what the page plays a sound for, toasts and celebrates.
import assert from "node:assert/strict";
import { test } from "node:test";

import { moments, moveCue, podium } from "../../web/model/moments.js";

const player = (seat, extra = {}) => ({ seat, name: seat.toUpperCase(), version: 1, cards: 8, moves: 3, won: false, stuck: false, resigned: false, finished_ms: null, ...extra });
const room = (players, extra = {}) => ({ round: 1, phase: "racing", players, ranking: [], ...extra });
const at = (players, extra = {}) => ({ seat: "s1", room: room(players, extra), mine: { version: 4 }, pending: null });

test("a move sounds as it is sent: a shuffle, a card home, a card placed", () => {
  assert.equal(moveCue("shuffle"), "shuffle");
  assert.equal(moveCue("p3>uH"), "home");
  assert.equal(moveCue("p3>dS"), "home");
  assert.equal(moveCue("p3>p12"), "place");
  assert.equal(moveCue("uH>p2"), "place");
  const s = at([player("s1")]);
  assert.deepEqual(moments(s, s, { type: "sent", move: "p1>uC" }), [{ kind: "move", cue: "home" }]);
});

test("an undo sounds when answered, a refused move says so, a hint is silent", () => {
  const asked = { ...at([player("s1")]), pending: { id: "x", move: null } };
  const answered = { ...at([player("s1")]), mine: { version: 5 } };
  assert.deepEqual(moments(asked, answered, { type: "state" }), [{ kind: "move", cue: "place" }]);
  const moved = { ...asked, pending: { id: "y", move: "p1>p2" } };
  assert.deepEqual(moments(moved, answered, { type: "state" }), []); // (it sounded when sent)
  assert.deepEqual(moments(moved, at([player("s1")]), { type: "error" }), [{ kind: "refused" }]);
  assert.deepEqual(moments(at([player("s1")]), at([player("s1")]), { type: "hint" }), []);
});

test("rivals finishing with their time and place, then this player's finish, then the podium", () => {
  const before = at([player("s1"), player("s2"), player("s3")]);
  const bob = at([player("s1"), player("s2", { finished_ms: 61000, won: true }), player("s3")]);
  assert.deepEqual(moments(before, bob), [{ kind: "rival", name: "S2", ms: 61000, place: 1 }]);
  const me = at([player("s1", { finished_ms: 70000, won: true }), player("s2", { finished_ms: 61000, won: true }), player("s3")]);
  assert.deepEqual(moments(bob, me), [{ kind: "finished", ms: 70000, place: 2 }]);
  const ranking = [
    { place: 1, seat: "s2", name: "S2" },
    { place: 2, seat: "s1", name: "S1" },
    { place: 3, seat: "s3", name: "S3" },
    { place: 4, seat: "s4", name: "S4" },
  ];
  const over = at(me.room.players, { phase: "over", ranking });
  assert.deepEqual(moments(me, over), [{ kind: "over", podium: ranking.slice(0, 3) }]);
  assert.deepEqual(podium({ ranking: ranking.slice(0, 1) }), ranking.slice(0, 1));
});

test("a rematch or a first snapshot is no moment", () => {
  const done = at([player("s2", { finished_ms: 5000, won: true })]);
  assert.deepEqual(moments({ ...done, room: null }, done), []);
  const next = { ...done, room: { ...done.room, round: 2, phase: "over" } };
  assert.deepEqual(moments(at([player("s2")]), next), []);
});
