// The tutorial's lessons as its page shows them, read off the server's state (its `lesson`:
// which lesson the game is at, their titles and words). Pure; it knows no rules: the server
// decides which lesson a game is at, and what each one allows.

const ALL_CARDS = 104;

/** What the lesson panel shows for this seat's state ``mine`` (null: no lesson). */
export function lessonView(mine) {
  const lesson = mine?.lesson;
  if (!lesson) return null;
  const { step, steps, titles, won } = lesson;
  const items = titles.map((title, i) => ({ title, status: won || i + 1 < step ? "done" : i + 1 === step ? "current" : "todo" }));
  const left = ALL_CARDS - (mine.cards ?? 0);
  return {
    step,
    steps,
    title: lesson.title,
    text: lesson.text,
    won,
    items,
    // The lesson just done, said above the next one.
    done: !won && step > 1 ? titles[step - 2] : null,
    progress: won ? `All ${steps} steps done` : `Step ${step} of ${steps}`,
    // The free last lesson counts down the cards still to bring home.
    left: !won && lesson.move === null ? `${left} card${left === 1 ? "" : "s"} to go` : null,
  };
}

/** The title of the lesson that ``after`` has just finished since ``before`` (null: none). */
export function finishedLesson(before, after) {
  const was = before?.lesson;
  const now = after?.lesson;
  if (!was || !now) return null;
  if (now.won && !was.won) return now.titles[now.titles.length - 1];
  return now.step > was.step ? now.titles[now.step - 2] : null;
}
