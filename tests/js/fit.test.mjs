// The board's size in a space (web/model/fit.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { boardSize, fitBoard, fitGrid, MAX_CW } from "../../web/model/fit.js";

const inside = (fit, width, height) => fit.size.width <= width + 0.01 && fit.size.height <= height + 0.01;

test("a board's size grows with its cards, and the wide shape is wider than tall", () => {
  const tall = boardSize(50, "tall");
  const wide = boardSize(50, "wide");
  assert.ok(tall.height > tall.width);
  assert.ok(wide.width > 1.6 * wide.height);
  assert.ok(boardSize(60, "tall").width > tall.width);
});

test("an upright phone gets the crescent, as wide as the screen", () => {
  const fit = fitBoard({ width: 378, height: 600 });
  assert.equal(fit.shape, "tall");
  assert.ok(inside(fit, 378, 600));
  assert.ok(fit.size.width > 0.97 * 378, fit.size.width);
});

test("a phone on its side gets the wide board: cards of at least 34 px, 75% of the width", () => {
  const fit = fitBoard({ width: 650, height: 350 });
  assert.equal(fit.shape, "wide");
  assert.ok(fit.cw >= 34, fit.cw);
  assert.ok(fit.size.width >= 0.75 * 844, fit.size.width);
  assert.ok(inside(fit, 650, 350));
});

test("a laptop's race gets the wide board, most of the width", () => {
  const fit = fitBoard({ width: 1030, height: 640 });
  assert.equal(fit.shape, "wide");
  assert.ok(fit.size.width >= 0.6 * 1366 && inside(fit, 1030, 640), JSON.stringify(fit));
  assert.ok(fit.cw > 65, fit.cw);
});

test("cards never grow past their largest, however big the space", () => {
  assert.equal(fitBoard({ width: 5000, height: 5000 }).cw, MAX_CW);
});

test("n boards in a grid: every cell inside the space, the columns that give the largest cards", () => {
  for (const [w, h] of [[1000, 650], [1900, 950], [378, 700], [820, 330]]) {
    for (const n of [1, 2, 3, 8]) {
      const g = fitGrid({ width: w, height: h, n, chromeX: 20, chromeY: 30, gap: 10 });
      const rows = Math.ceil(n / g.cols);
      const cellW = (w - (g.cols - 1) * 10) / g.cols - 20;
      const cellH = (h - (rows - 1) * 10) / rows - 30;
      assert.ok(g.size.width <= cellW + 0.01 && g.size.height <= cellH + 0.01, `${w}x${h} n=${n}: ${JSON.stringify(g)}`);
      assert.ok(g.cols <= n);
    }
  }
  // No other number of columns gives larger cards.
  const best = fitGrid({ width: 1000, height: 650, n: 3, chromeX: 20, chromeY: 30, gap: 10 });
  for (const cols of [1, 2, 3]) {
    const rows = Math.ceil(3 / cols);
    const one = fitBoard({ width: (1000 - (cols - 1) * 10) / cols - 20, height: (650 - (rows - 1) * 10) / rows - 30 });
    assert.ok(one.cw <= best.cw, `${cols} columns: ${one.cw} > ${best.cw}`);
  }
});

test("a tiny board drops its foundations' words, and counts none of their height", () => {
  const g = fitGrid({ width: 378, height: 700, n: 8, chromeX: 8, chromeY: 24, gap: 6 });
  assert.ok(g.tiny);
  assert.ok(boardSize(20, "tall").height < boardSize(30, "tall").height * (20 / 30) + 1);
});
