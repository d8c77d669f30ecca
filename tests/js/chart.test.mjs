// The rating chart's geometry (web/model/chart.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { chartOf, gridStep } from "../../web/model/chart.js";

test("the line starts at the starting rating and spans the box, higher ratings higher up", () => {
  const c = chartOf([{ rating: 1626 }, { rating: 1580 }, { rating: 1700 }], { width: 100, height: 50, pad: 0 });
  assert.equal(c.points.length, 4);
  assert.deepEqual(c.points.map(([x]) => x), [0, 33.3, 66.7, 100]);
  assert.ok(c.lo <= 1500 && c.hi >= 1700);
  const ys = c.points.map(([, y]) => y);
  assert.ok(ys[3] < ys[1] && ys[1] < ys[2] && ys[2] < ys[0]); // 1700 on top, 1500 lowest
  assert.ok(ys.every((y) => y >= 0 && y <= 50));
  assert.deepEqual(c.grid.map((g) => g.rating), [1500, 1550, 1600, 1650, 1700]);
  assert.equal(c.grid[0].y, 50);
  assert.equal(c.grid.at(-1).y, 0);
});

test("a flat or empty history still draws inside the box", () => {
  for (const history of [[], [{ rating: 1500 }]]) {
    const c = chartOf(history, { width: 100, height: 50, pad: 5 });
    assert.ok(c.hi > c.lo);
    assert.ok(c.points.every(([x, y]) => x >= 5 && x <= 95 && y >= 5 && y <= 45));
  }
});

test("a left margin keeps the line clear of the labels", () => {
  const c = chartOf([{ rating: 1600 }], { width: 100, height: 50, pad: 5, left: 30 });
  assert.deepEqual(c.points.map(([x]) => x), [30, 95]);
});

test("gridlines come two to five across", () => {
  assert.equal(gridStep(0), 10);
  assert.equal(gridStep(126), 50);
  assert.equal(gridStep(900), 250);
});
