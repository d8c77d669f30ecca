// The page's preview of a move (the board drawn while the server confirms it) against the
// engine: tests/data/previews.json holds boards, moves of every kind, and what the engine
// changed (made by tests/support/previews.py).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { preview } from "../../web/model/cards.js";

const vectors = JSON.parse(readFileSync(new URL("../data/previews.json", import.meta.url)));

/** ``board`` with the engine's ``changes`` applied. */
function changed(board, changes) {
  return {
    piles: board.piles.map((p, i) => changes.piles?.[String(i)] ?? p),
    foundations: Object.fromEntries(
      Object.entries(board.foundations).map(([k, f]) => [k, changes.foundations?.[k] ?? f]),
    ),
    shuffles_left: changes.shuffles_left ?? board.shuffles_left,
  };
}

test("the vectors hold every kind of move", () => {
  const kinds = new Set(vectors.map((v) => v.kind));
  assert.deepEqual([...kinds].sort(), ["back from a foundation", "back to the base", "onto a pile", "shuffle", "up to a foundation"]);
});

for (const [i, v] of vectors.entries()) {
  test(`preview ${i}: ${v.kind} (${v.move}) is the engine's board`, () => {
    const before = structuredClone(v.board);
    assert.deepEqual(preview(v.board, v.move), changed(v.board, v.changes));
    assert.deepEqual(v.board, before); // the board shown before is left as it was
  });
}
