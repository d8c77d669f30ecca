// The win cascade's flights (web/board/bounce.js): a card falls, bounces on the floor lower
// each time, and its flight ends once it is out of sight at a side.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bouncePath, foundationCards } from "../../web/board/bounce.js";

const screen = { w: 50, h: 70, width: 1000, height: 700 };

test("a card thrown sideways falls, never goes through the floor, and ends out of sight", () => {
  const path = bouncePath({ x: 500, y: 100, vx: 0.4, vy: 0, ...screen, maxMs: 20_000 });
  assert.ok(path.every((p) => p.y <= 700 - 70 + 1e-9));
  assert.ok(path.at(-1).x > 1000);
  assert.ok(path.some((p) => p.y > 600)); // it reached the floor
  for (let i = 1; i < path.length; i++) assert.ok(path[i].x > path[i - 1].x);
});

test("its bounces get lower, and a flight never outlasts its time", () => {
  const path = bouncePath({ x: 500, y: 0, vx: 0.001, vy: 0, ...screen, maxMs: 8000 });
  assert.ok(path.at(-1).t <= 8000);
  const tops = [];
  for (let i = 1; i < path.length - 1; i++) if (path[i].y < path[i - 1].y && path[i].y <= path[i + 1].y) tops.push(path[i].y);
  assert.ok(tops.length >= 2, "it bounced at least twice");
  for (let i = 1; i < tops.length; i++) assert.ok(tops[i] >= tops[i - 1], "each bounce is lower than the last");
});

test("a full foundation's cards, top first", () => {
  assert.deepEqual(foundationCards("uH").slice(0, 2), ["KH", "QH"]);
  assert.equal(foundationCards("uH").at(-1), "AH");
  assert.deepEqual(foundationCards("dS").slice(0, 2), ["AS", "2S"]);
  assert.equal(foundationCards("dS").length, 13);
});
