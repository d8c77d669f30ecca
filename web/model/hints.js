// Hints in words (pure: no DOM): the room's rule, the Hint button, the server's answer, and
// the hints beside a result. The server decides all of it; this only says it.

import { t } from "../i18n.js";
import { describeMove } from "./cards.js";
import { count, formatMs, penaltyText } from "./words.js";

/** The Hint button of ``room``: absent (``off``), its label and its title. */
export function hintButton(room) {
  if (!room || room.kind === "tutorial") return { off: false, label: t("hints.button"), title: t("hints.title") };
  if (room.hints === "off") return { off: true, label: t("hints.button"), title: t("hints.titleOff") };
  if (room.kind === "daily") return { off: false, label: t("hints.buttonDaily"), title: t("hints.titleDaily") };
  if (room.hints === "free" || !room.hint_penalty_ms) return { off: false, label: t("hints.button"), title: t("hints.titleFree") };
  const cost = penaltyText(room.hint_penalty_ms);
  return { off: false, label: t("hints.buttonCost", { cost }), title: t("hints.titleCost", { time: cost.slice(1) }) };
}

/** The room's hint rule in a sentence, for its lobby (null for a tutorial's). */
export function hintRule(room) {
  if (!room || room.kind === "tutorial" || room.hints === undefined) return null;
  if (room.hints === "off") return t("hints.ruleOff");
  if (room.kind === "daily") return t("hints.ruleDaily");
  if (room.hints === "free" || !room.hint_penalty_ms) return t("hints.ruleFree");
  return t("hints.ruleCost", { time: penaltyText(room.hint_penalty_ms).slice(1) });
}

/** The server's ``hint`` answer in words, on ``board`` (the player's; ``legal``: its legal
 * moves, none when it is stuck). */
export function hintText(hint, board, legal = null) {
  if (!hint) return "";
  if (hint.move && hint.progress !== false) return t("hints.move", { move: describeMove(board, hint.move) });
  if (hint.progress === null || hint.progress === undefined) return t("hints.noMove");
  if (hint.way_out === "shuffle") return t("hints.outShuffle");
  if (hint.way_out === "undo") return t(legal && !legal.length ? "hints.stuckUndo" : "hints.outUndo");
  return t("hints.outNone");
}

/** A result's hints, beside its time: "+30 s, 2 hints", "1 hint", or "" for none. */
export function hintsNote(row) {
  if (!row?.hints) return "";
  const hints = count(row.hints, "count.hints");
  return row.penalty_ms ? t("hints.note", { cost: penaltyText(row.penalty_ms), hints }) : hints;
}

/** The title of a finish time with a penalty: "ranked as 1:40.2" (null without one). */
export function rankedAs(row) {
  if (!row?.penalty_ms || row.finished_ms === null || row.finished_ms === undefined) return null;
  return t("hints.rankedAs", { time: formatMs(row.time_ms ?? row.finished_ms + row.penalty_ms) });
}
