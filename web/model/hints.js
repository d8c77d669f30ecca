// Hints in words (pure: no DOM): the room's rule, the Hint button, the server's answer, and
// the hints beside a result. The server decides all of it; this only says it.

import { describeMove } from "./cards.js";

/** A penalty in ms as "+15 s" (or "+1.5 s", "+1 min 30 s"). */
export function penaltyText(ms) {
  const s = ms / 1000;
  if (s < 60) return `+${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  const min = Math.floor(s / 60);
  const rest = Math.round(s - min * 60);
  return `+${min} min${rest ? ` ${rest} s` : ""}`;
}

/** The Hint button of ``room``: absent (``off``), its label and its title. */
export function hintButton(room) {
  if (!room || room.kind === "tutorial") return { off: false, label: "Hint", title: "Hint (H)" };
  if (room.hints === "off") return { off: true, label: "Hint", title: "Hints are off in this race" };
  if (room.kind === "daily") return { off: false, label: "Hint (unranked)", title: "Hint (H): a win with a hint is shown apart from the ranked results" };
  if (room.hints === "free" || !room.hint_penalty_ms) return { off: false, label: "Hint", title: "Hint (H): free in this race" };
  const cost = penaltyText(room.hint_penalty_ms);
  return { off: false, label: `Hint ${cost}`, title: `Hint (H): each hint adds ${cost.slice(1)} to your finish time` };
}

/** The room's hint rule in a sentence, for its lobby (null for a tutorial's). */
export function hintRule(room) {
  if (!room || room.kind === "tutorial" || room.hints === undefined) return null;
  if (room.hints === "off") return "Hints are off in this race.";
  if (room.kind === "daily") return "A win with a hint is shown apart from the ranked results.";
  if (room.hints === "free" || !room.hint_penalty_ms) return "Hints are free in this race (each one is counted).";
  return `Each hint adds ${penaltyText(room.hint_penalty_ms).slice(1)} to the finish time the ranking uses.`;
}

/** The room's hints for its header line: " · hints +15 s", " · no hints", " · free hints". */
export function hintSummary(room) {
  if (!room || room.kind !== "race" || room.hints === undefined) return "";
  if (room.hints === "off") return " · no hints";
  if (room.hints === "free" || !room.hint_penalty_ms) return " · free hints";
  return ` · hints ${penaltyText(room.hint_penalty_ms)}`;
}

/** The server's ``hint`` answer in words, on ``board`` (the player's). */
export function hintText(hint, board) {
  if (!hint) return "";
  if (hint.move && hint.progress !== false) return `Hint: ${describeMove(board, hint.move)}`;
  if (hint.progress === null || hint.progress === undefined) return "No legal move is left.";
  if (hint.way_out === "shuffle") return "No card move leads anywhere new: shuffle.";
  if (hint.way_out === "undo") return "No move leads anywhere new: undo your last move.";
  return "No move leads anywhere new from here, and nothing is left to undo.";
}

/** A result's hints, beside its time: "+30 s, 2 hints", "1 hint", or "" for none. */
export function hintsNote(row) {
  if (!row?.hints) return "";
  const hints = `${row.hints} ${row.hints === 1 ? "hint" : "hints"}`;
  return row.penalty_ms ? `${penaltyText(row.penalty_ms)}, ${hints}` : hints;
}
