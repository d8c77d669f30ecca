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

test("the race's drama: the lead changing hands, a rival's last cards, a suit complete", () => {
  const racing = (players, mine = { version: 4 }) => ({ seat: "s1", room: room(players), mine, pending: null });
  // Early (under 20 cards home) a lead is no news; then Bob takes it, then I do.
  const a = racing([player("s1", { cards: 18 }), player("s2", { name: "BOB", cards: 19 })]);
  const b = racing([player("s1", { cards: 18 }), player("s2", { name: "BOB", cards: 21 })]);
  assert.deepEqual(moments(a, b).filter((m) => m.kind === "lead"), [{ kind: "lead", name: "BOB", me: false, cards: 21 }]);
  const c = racing([player("s1", { cards: 22 }), player("s2", { name: "BOB", cards: 21 })]);
  assert.deepEqual(moments(b, c).filter((m) => m.kind === "lead"), [{ kind: "lead", name: "S1", me: true, cards: 22 }]);
  // A tie takes the lead from no one, and holding it is no news.
  const tie = racing([player("s1", { cards: 22 }), player("s2", { name: "BOB", cards: 22 })]);
  assert.deepEqual(moments(c, tie).filter((m) => m.kind === "lead"), []);
  assert.deepEqual(moments(c, c).filter((m) => m.kind === "lead"), []);
  // Bob down to 10 cards to go, then to 5 (each once), never my own.
  const d = racing([player("s1", { cards: 95 }), player("s2", { name: "BOB", cards: 93 })]);
  const e = racing([player("s1", { cards: 99 }), player("s2", { name: "BOB", cards: 94 })]);
  const f = racing([player("s1", { cards: 99 }), player("s2", { name: "BOB", cards: 100 })]);
  assert.deepEqual(moments(d, e).filter((m) => m.kind === "last"), [{ kind: "last", name: "BOB", left: 10 }]);
  assert.deepEqual(moments(e, f).filter((m) => m.kind === "last"), [{ kind: "last", name: "BOB", left: 4 }]);
  assert.deepEqual(moments(f, f).filter((m) => m.kind === "last"), []);
  // One of my foundations complete.
  const board = (n) => ({ piles: [], foundations: { uH: { top: "QH", count: n }, dS: { top: "2S", count: 12 } } });
  const g = racing([player("s1"), player("s2")], { version: 5, board: board(12) });
  const h = racing([player("s1"), player("s2")], { version: 6, board: board(13) });
  assert.deepEqual(moments(g, h).filter((m) => m.kind === "suit"), [{ kind: "suit", key: "uH" }]);
});
