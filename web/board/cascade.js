// The win cascade, as classic solitaire ends a won game: the foundations' cards leave one
// by one, the top ones first, each bouncing across the screen (bounce.js), for a couple of
// seconds. Any press or key ends it at once (and still does what it does: nothing is
// swallowed). Web Animations on transforms only, in a layer nobody can press; nothing at
// all under prefers-reduced-motion.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { cardElement } from "./board.js";
import { bouncePath, foundationCards } from "./bounce.js";
import { still } from "./motion.js";

export const CASCADE = "cascade"; // the id of its animations (tests count them)
const SPAN_MS = 1800; // from the first card's start to the last one's (each flies 1.4 s at most)

/** Start the cascade from ``board``'s foundations (a BoardView); returns {skip, done} or
 * null (reduced motion, or no foundation on the screen). */
export function winCascade(board, { random = Math.random } = {}) {
  if (still()) return null;
  const slots = Object.entries(board.foundations)
    .map(([key, el]) => [key, el.querySelector(".card")?.getBoundingClientRect()])
    .filter(([, r]) => r && r.width > 0);
  if (!slots.length) return null;
  const cs = getComputedStyle(board.el);
  const layer = h("div", { class: "cascade", "data-testid": "cascade", "aria-hidden": "true" }, h("p", { class: "cascade-skip" }, t("cascade.skip")));
  for (const v of ["--cw", "--ch"]) layer.style.setProperty(v, cs.getPropertyValue(v));
  const flights = [];
  for (let round = 0; round < 13; round++) for (const [key, rect] of slots) flights.push({ text: foundationCards(key)[round], rect });
  const gap = SPAN_MS / flights.length;
  const anims = flights.map(({ text, rect }, i) => {
    const el = cardElement(text);
    el.classList.add("cascade-card");
    Object.assign(el.style, { left: `${rect.left}px`, top: `${rect.top}px` });
    layer.append(el);
    const side = random() < 0.5 ? -1 : 1;
    const path = bouncePath({
      x: rect.left,
      y: rect.top,
      vx: side * (0.25 + random() * 0.45),
      vy: -(random() * 0.6),
      w: rect.width,
      h: rect.height,
      width: window.innerWidth,
      height: window.innerHeight,
      maxMs: 1400,
    });
    const end = path.at(-1).t || 1;
    const frames = path.map((p) => ({ offset: p.t / end, transform: `translate(${p.x - rect.left}px, ${p.y - rect.top}px)`, visibility: "visible" }));
    return el.animate(frames, { duration: end, delay: i * gap, easing: "linear", id: CASCADE });
  });
  document.body.append(layer);
  let stop;
  const done = new Promise((resolve) => {
    stop = () => {
      for (const a of anims) a.cancel();
      layer.remove();
      document.removeEventListener("pointerdown", stop, true);
      document.removeEventListener("keydown", stop, true);
      resolve();
    };
  });
  document.addEventListener("pointerdown", stop, true);
  document.addEventListener("keydown", stop, true);
  Promise.all(anims.map((a) => a.finished)).then(stop, () => {}); // (a cancel rejects: skipped)
  return { skip: stop, done };
}
