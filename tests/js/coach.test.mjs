import assert from "node:assert/strict";
import { test } from "node:test";

import { partsText, summaryText } from "../../web/model/coach.js";

test("a won game says its moves and the solver's", () => {
  assert.equal(summaryText({ status: "done", won: true, solver_moves: 117 }, 84), "Won at move 84; the solver would have needed 117.");
  assert.equal(summaryText({ status: "done", won: true, solver_moves: null }, 84), "Won at move 84.");
});

test("a lost game says the move that lost the win and the solver's instead", () => {
  const slip = { step: 36, act: "p3>uH", proven: true, played: { card: "9H", to: "uH" }, better: { card: "9H", to: "dH" } };
  assert.equal(summaryText({ status: "done", won: false, slip }, 90), "The win was lost at move 37: 9♥ to ♥ up instead of 9♥ to ♥ down.");
  const unproven = { ...slip, proven: false, better: undefined, played: { card: "9H", to: "p4", onto: "TH" } };
  assert.equal(summaryText({ status: "done", won: false, slip: unproven }, 90), "The last win the solver found was before move 37: 9♥ onto 10♥.");
  assert.equal(partsText({ to: "shuffle" }), "Shuffle");
});

test("nothing to say before the analysis is done; a game never won says so", () => {
  assert.equal(summaryText({ status: "computing" }, 5), null);
  assert.equal(summaryText({ status: "done", won: false, slip: null, steps: [{ v: "lost" }] }, 5), "The solver proved this deal could not be won.");
  assert.equal(summaryText({ status: "done", won: false, slip: null, steps: [{ v: "unknown" }] }, 5), "The solver found no win in this game.");
});
