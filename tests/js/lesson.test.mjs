// The tutorial page's lesson panel, read off the server's state.
import assert from "node:assert/strict";
import { test } from "node:test";

import { finishedLesson, lessonView } from "../../web/model/lesson.js";

const TITLES = ["Play a card home", "Move a card onto a pile", "The A-K wrap", "Give a card back", "Shuffle", "Win the game"];

function mine(step, { won = false, cards = 94, move = "p1>uH" } = {}) {
  return { cards, lesson: { step, steps: TITLES.length, titles: TITLES, title: won ? "You won!" : TITLES[step - 1], text: "…", move, won } };
}

test("no lesson: no panel", () => {
  assert.equal(lessonView(null), null);
  assert.equal(lessonView({ cards: 8 }), null);
});

test("the lessons before the current one are done, the later ones to do", () => {
  const view = lessonView(mine(3, { move: "p13>p12" }));
  assert.deepEqual(
    view.items.map((i) => i.status),
    ["done", "done", "current", "todo", "todo", "todo"],
  );
  assert.equal(view.progress, "Step 3 of 6");
  assert.equal(view.done, "Move a card onto a pile");
  assert.equal(view.left, null);
});

test("the first lesson has none done; the last, free one counts the cards to go", () => {
  assert.equal(lessonView(mine(1)).done, null);
  assert.equal(lessonView(mine(6, { move: null, cards: 99 })).left, "5 cards to go");
  assert.equal(lessonView(mine(6, { move: null, cards: 103 })).left, "1 card to go");
});

test("won: every lesson done", () => {
  const view = lessonView(mine(6, { won: true, cards: 104, move: null }));
  assert.ok(view.items.every((i) => i.status === "done"));
  assert.equal(view.progress, "All 6 steps done");
  assert.equal(view.done, null);
  assert.equal(view.left, null);
});

test("a lesson is finished when the server's state moves on from it", () => {
  assert.equal(finishedLesson(mine(1), mine(2, { move: "p3>p4" })), "Play a card home");
  assert.equal(finishedLesson(mine(2), mine(2)), null);
  assert.equal(finishedLesson(mine(3), mine(2)), null); // an undo
  assert.equal(finishedLesson(mine(6, { move: null }), mine(6, { won: true, move: null })), "Win the game");
  assert.equal(finishedLesson(null, mine(1)), null);
});
