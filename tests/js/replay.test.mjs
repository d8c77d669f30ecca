// The replay page's model: boards built from the server's step changes, time to step, the
// shared timeline of several games, the playback clock and the page's address.
import assert from "node:assert/strict";
import { test } from "node:test";

import { apply, nextTime, Playback, prevTime, replayIds, roundReplays, sharedDuration, Timeline } from "../../web/model/replay.js";

const fnd = (top, count) => ({ top, count });
const start = { piles: [["AS", "2S"], ["3S"], []], foundations: { uS: fnd("AS", 1), dS: fnd("KS", 1) }, shuffles_left: 3, home: 2 };
const view = (steps, finished_ms = null) => ({ board: start, steps, result: { finished_ms, home: steps.at(-1)?.home ?? 2 } });
const steps = [
  { at: 900, act: "p0>p2", home: 2, piles: { 0: ["AS"], 2: ["2S"] } },
  { at: 1500, act: "shuffle", home: 2, piles: { 0: ["3S"], 1: ["AS"] }, shuffles_left: 2 },
  { at: 4000, act: "p1>uS", home: 3, piles: { 1: [] }, foundations: { uS: fnd("2S", 2) } },
];

test("a step changes only what it names, and leaves the board before it as it was", () => {
  const after = apply(start, steps[0]);
  assert.deepEqual(after.piles, [["AS"], ["3S"], ["2S"]]);
  assert.equal(after.foundations, start.foundations); // untouched: the same object
  assert.equal(after.shuffles_left, 3);
  assert.deepEqual(start.piles, [["AS", "2S"], ["3S"], []]);
  const third = apply(apply(after, steps[1]), steps[2]);
  assert.deepEqual(third.foundations, { uS: fnd("2S", 2), dS: fnd("KS", 1) });
  assert.equal(third.shuffles_left, 2);
  assert.equal(third.home, 3);
});

test("the board at a time is the board after every action up to it", () => {
  const t = new Timeline(view(steps));
  assert.equal(t.duration, 4000);
  assert.deepEqual([0, 899, 900, 1499, 1500, 3999, 4000, 9999].map((ms) => t.indexAt(ms)), [0, 0, 1, 1, 2, 2, 3, 3]);
  assert.deepEqual(t.boardAt(0), start);
  assert.deepEqual(t.boardAt(3).piles, [["3S"], [], ["2S"]]);
  assert.deepEqual(t.boardAt(99), t.boardAt(3));
  assert.deepEqual([0, 1, 2, 3].map((i) => t.timeOf(i)), [0, 900, 1500, 4000]);
  assert.deepEqual(t.shuffles(), [{ at: 1500, place: 0.375 }]);
  assert.deepEqual(t.shuffles(6000), [{ at: 1500, place: 0.25 }]);
});

test("actions that share a millisecond can each be shown, when asked for by number", () => {
  const quick = [steps[0], { ...steps[1], at: 900 }, { ...steps[2], at: 900 }];
  const t = new Timeline(view(quick));
  assert.equal(t.stepAt(900), 3); // by time, the last of the three
  assert.deepEqual([1, 2, 3].map((step) => t.stepAt(900, { step })), [1, 2, 3]);
  assert.equal(t.stepAt(899, { step: 2 }), 0); // the clock moved on: time again
  assert.equal(t.stepAt(900, { step: 7 }), 3); // no such step
  assert.deepEqual(t.boardAt(t.stepAt(900, { step: 2 })), apply(apply(start, quick[0]), quick[1]));
});

test("a game with no action is the deal all along", () => {
  const t = new Timeline(view([]));
  assert.equal(t.duration, 0);
  assert.equal(t.indexAt(5000), 0);
  assert.deepEqual(t.boardAt(1), start);
});

test("several games share one timeline: stepping goes to the next action of any of them", () => {
  const a = new Timeline(view(steps, 4000));
  const b = new Timeline(view([{ at: 1200, act: "p0>p2", home: 2 }, { at: 6000, act: "undo", home: 2 }]));
  assert.equal(sharedDuration([a, b]), 6000);
  assert.equal(a.wonBy(3999), false);
  assert.equal(a.wonBy(4000), true);
  assert.equal(b.wonBy(1e9), false);
  const forward = [];
  for (let ms = 0; ms !== null; ms = nextTime([a, b], ms)) forward.push(ms);
  assert.deepEqual(forward, [0, 900, 1200, 1500, 4000, 6000]);
  const back = [];
  for (let ms = 6000; ms > 0; ms = prevTime([a, b], ms)) back.push(ms);
  assert.deepEqual(back, [6000, 4000, 1500, 1200, 900]);
  assert.equal(prevTime([a, b], 1300), 1200);
});

test("the playback runs at its speed, stops at the end and plays again from the start", () => {
  const p = new Playback(10_000);
  p.tick(1000);
  assert.equal(p.ms, 0); // paused
  p.play();
  p.setSpeed(4);
  p.setSpeed(3); // not a speed on offer
  assert.equal(p.speed, 4);
  p.tick(1000);
  assert.equal(p.ms, 4000);
  p.tick(5000);
  assert.equal(p.ms, 10_000);
  assert.equal(p.playing, false);
  p.play();
  assert.equal(p.ms, 0);
  p.seek(-5);
  assert.equal(p.ms, 0);
  p.seek(12_345);
  assert.equal(p.ms, 10_000);
  const empty = new Playback(0);
  empty.play();
  assert.equal(empty.playing, false);
});

test("the address names one game or several, each a record id", () => {
  const id = "kP3xAb_-9zQw";
  assert.deepEqual(replayIds(`/replay/${id}`), [id]);
  assert.deepEqual(replayIds(`/replay/${id},${"b".repeat(12)}/`), [id, "b".repeat(12)]);
  assert.deepEqual(replayIds(`/replay/${id},${id}`), [id]);
  for (const bad of ["/replay/", "/replay/short", `/replay/${id},`, `/replay/${id}/x`, `/replays/${id}`]) assert.equal(replayIds(bad), null, bad);
  assert.equal(replayIds(`/replay/${Array(9).fill(0).map((_, i) => String(i).repeat(12)).join(",")}`), null);
});

test("a round's games by seat, from a room's replay list", () => {
  const listing = { replays: [
    { id: "n".repeat(12), seat: "s1", round: 2 },
    { id: "a".repeat(12), seat: "s1", round: 1 },
    { id: "b".repeat(12), seat: "s2", round: 1 },
  ] };
  assert.deepEqual([...roundReplays(listing, 1)], [["s1", "a".repeat(12)], ["s2", "b".repeat(12)]]);
  assert.equal(roundReplays(null, 1).size, 0);
});

