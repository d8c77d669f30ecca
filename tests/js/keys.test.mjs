// The board's keys (web/model/keys.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { parseMove } from "../../web/model/cards.js";
import { digitOfFoundation, foundationOfDigit, keyAction, keyOfPile, pileOfKey, typedMove } from "../../web/model/keys.js";

test("each pile has a key where it lies: the number row on top, the bottom row below", () => {
  assert.equal(pileOfKey("1"), "p0");
  assert.equal(pileOfKey("8"), "p7");
  assert.equal(pileOfKey("z"), "p15");
  assert.equal(pileOfKey("Z"), "p15");
  assert.equal(pileOfKey(","), "p8");
  assert.equal(pileOfKey("s"), null); // (shuffle)
  assert.equal(pileOfKey("h"), null); // (hint)
  assert.equal(pileOfKey("u"), null); // (undo)
  for (let i = 0; i < 16; i++) assert.equal(pileOfKey(keyOfPile(`p${i}`)), `p${i}`);
  for (let n = 1; n <= 8; n++) assert.equal(digitOfFoundation(foundationOfDigit(String(n))), String(n));
  assert.equal(foundationOfDigit("1"), "uS");
  assert.equal(foundationOfDigit("8"), "dC");
  assert.equal(foundationOfDigit("9"), null);
});

test("a move in two keys: the pile to take from, then where it goes", () => {
  const moves = ["p3>p12", "p3>uH", "p3>dH"].map(parseMove);
  assert.deepEqual(keyAction("4", null, []), { select: "p3" });
  assert.deepEqual(keyAction("v", "p3", moves), { play: "p3>p12" }); // v: p12
  assert.deepEqual(keyAction("Enter", "p3", moves), { play: "p3>uH" });
  assert.deepEqual(keyAction("ArrowDown", "p3", moves), { play: "p3>dH" });
  assert.deepEqual(keyAction("ArrowUp", "p3", moves), { play: "p3>uH" });
  assert.deepEqual(keyAction("4", "p3", moves), { clear: true });
  assert.deepEqual(keyAction("1", "p3", moves), { select: "p0" }); // not a target: pick that one up
  assert.deepEqual(keyAction("Enter", "p0", []), { refuse: true });
  assert.equal(keyAction("q", "p3", moves), null);
});

test("a move typed in the engine's notation", () => {
  assert.equal(typedMove("p3>uH"), "p3>uH");
  assert.equal(typedMove(" P3 > uh "), "p3>uH");
  assert.equal(typedMove("p03-p12"), "p3>p12");
  assert.equal(typedMove("dh>p5"), "dH>p5");
  assert.equal(typedMove("Shuffle"), "shuffle");
  assert.equal(typedMove("p3"), null);
  assert.equal(typedMove("x>y"), null);
});
