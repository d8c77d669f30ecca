// Ghosts read off their timelines at the server's time.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ghostAt, ghostKey, ghostsAt, ghostTime } from "../../web/model/ghosts.js";

const ann = { seat: "g1", name: "Ann", record: "r".repeat(12), at: [900, 1300, 5000], home: [9, 8, 104], start_home: 8, finished_ms: 5000, resigned: false };
const bob = { seat: "g2", name: "Bob", record: "b".repeat(12), at: [700], home: [9], start_home: 8, finished_ms: null, resigned: true };

test("a ghost shows the cards home and moves of its last action by then", () => {
  assert.deepEqual([0, 899, 900, 1299, 1300, 4999].map((t) => [ghostAt(ann, t).cards, ghostAt(ann, t).moves]), [[8, 0], [8, 0], [9, 1], [9, 1], [8, 2], [8, 2]]);
  const early = ghostAt(ann, 4999);
  assert.equal(early.won, false);
  assert.equal(early.finished_ms, null);
  const done = ghostAt(ann, 5000);
  assert.deepEqual([done.cards, done.moves, done.won, done.finished_ms, done.ghost], [104, 3, true, 5000, true]);
});

test("a ghost's moves are the ranking's: an undo is no move", () => {
  const undid = { ...ann, moves: [1, 1, 2] }; // its second action was an undo
  assert.deepEqual([0, 900, 1300, 5000].map((t) => ghostAt(undid, t).moves), [0, 1, 1, 2]);
});

test("a ghost that resigned shows it only once its game has run out", () => {
  assert.equal(ghostAt(bob, 699).resigned, false);
  assert.equal(ghostAt(bob, 700).resigned, true);
  assert.equal(ghostAt(bob, Infinity).finished_ms, null);
});

test("the ghosts' time is the race's: nothing before the start, all of it at the end", () => {
  const room = { start_at: 10_000, ghosts: [ann, bob] };
  assert.equal(ghostTime(room, "countdown", 20_000), 0);
  assert.equal(ghostTime({ ...room, start_at: null }, "racing", 20_000), 0); // the clock waits for the first move
  assert.equal(ghostTime(room, "racing", 11_000), 1000);
  assert.equal(ghostTime(room, "over", 11_000), Infinity);
  assert.deepEqual(ghostsAt(room, 1000).map((g) => g.cards), [9, 9]);
  assert.deepEqual(ghostsAt({}, 1000), []);
  assert.notEqual(ghostKey(ghostsAt(room, 899)), ghostKey(ghostsAt(room, 900)));
  assert.equal(ghostKey(ghostsAt(room, 901)), ghostKey(ghostsAt(room, 1299)));
});

test("a ghost's pace: by cards while either races, by seconds once both have finished, none for a spectator", async () => {
  const { ghostPace, paceKey } = await import("../../web/model/ghosts.js");
  const me = { cards: 30, finished_ms: null };
  assert.equal(ghostPace({ cards: 40, finished_ms: null }, null), null);
  const ahead = ghostPace({ cards: 40, finished_ms: null }, me);
  assert.deepEqual(ahead, { unit: "cards", n: 10, ahead: true });
  assert.equal(paceKey(ahead), "pace.aheadCards");
  assert.equal(paceKey(ghostPace({ cards: 29, finished_ms: null }, me)), "pace.behindCards");
  assert.equal(paceKey(ghostPace({ cards: 30, finished_ms: null }, me)), "pace.level");
  assert.deepEqual(ghostPace({ cards: 104, finished_ms: 90_000 }, me), { unit: "cards", n: 74, ahead: true });
  const slower = ghostPace({ cards: 104, finished_ms: 95_400 }, { cards: 104, finished_ms: 90_000 });
  assert.deepEqual(slower, { unit: "seconds", n: 5, ahead: false });
  assert.equal(paceKey(slower), "pace.behindSeconds");
});
