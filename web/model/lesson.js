// The tutorial's lessons as its page shows them, read off the server's state (its `lesson`:
// which lesson the game is at, their titles and words). Pure; it knows no rules: the server
// decides which lesson a game is at, and what each one allows. The words are the page's
// catalogue's, found by the lessons' keys (the server's English ones for a lesson the
// catalogue lacks).

import { has, t } from "../i18n.js";
import { count } from "./words.js";

const ALL_CARDS = 104;

/** The lesson's words by its key: {title, text}, the server's when the catalogue has none. */
function words(lesson) {
  const key = lesson.key;
  if (!key || !has(`lesson.${key}.title`)) return { title: lesson.title, text: lesson.text };
  return { title: t(`lesson.${key}.title`), text: t(`lesson.${key}.text`) };
}

/** Every lesson's title, in order. */
function titlesOf(lesson) {
  const keys = lesson.keys;
  if (!keys || !keys.every((k) => has(`lesson.${k}.title`))) return lesson.titles;
  return keys.map((k) => t(`lesson.${k}.title`));
}

/** What the lesson panel shows for this seat's state ``mine`` (null: no lesson). */
export function lessonView(mine) {
  const lesson = mine?.lesson;
  if (!lesson) return null;
  const { step, steps, won } = lesson;
  const titles = titlesOf(lesson);
  const items = titles.map((title, i) => ({ title, status: won || i + 1 < step ? "done" : i + 1 === step ? "current" : "todo" }));
  const left = ALL_CARDS - (mine.cards ?? 0);
  return {
    step,
    steps,
    ...words(lesson),
    won,
    items,
    // The lesson just done, said above the next one.
    done: !won && step > 1 ? titles[step - 2] : null,
    progress: won ? t("lesson.allDone", { n: steps }) : t("lesson.step", { step, n: steps }),
    // The free last lesson counts down the cards still to bring home.
    left: !won && lesson.move === null ? count(left, "lesson.toGo") : null,
  };
}

/** The title of the lesson that ``after`` has just finished since ``before`` (null: none). */
export function finishedLesson(before, after) {
  const was = before?.lesson;
  const now = after?.lesson;
  if (!was || !now) return null;
  const titles = titlesOf(now);
  if (now.won && !was.won) return titles[titles.length - 1];
  return now.step > was.step ? titles[now.step - 2] : null;
}
