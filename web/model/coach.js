// A game's analysis (GET /api/replays/ID/analysis) in a sentence, for the race-over panel and
// /me: "Won at move 84; the solver would have needed 117." or "The win was lost at move 37:
// 9♥ to ♥ up instead of 9♥ to ♥ down." Pure: the words come from the catalogue.

import { t } from "../i18n.js";
import { card, SUITS } from "./cards.js";

/** A move as the server's analysis describes it (``{card, to, onto}``) in words. */
export function partsText(parts) {
  if (!parts || parts.to === "shuffle") return t("move.shuffle");
  const what = card(parts.card).label;
  if (parts.to[0] !== "p") return t(parts.to[0] === "u" ? "move.home" : "move.homeDown", { card: what, suit: SUITS[parts.to[1]].symbol });
  return t("move.onto", { card: what, target: parts.onto ? card(parts.onto).label : parts.to });
}

/** The analysis in one sentence (``moves``: the actions the game took), or null when there is
 * nothing to say yet. */
export function summaryText(analysis, moves) {
  if (!analysis || analysis.status !== "done") return null;
  if (analysis.won) return analysis.solver_moves ? t("coach.won", { moves, solver: analysis.solver_moves }) : t("coach.wonAt", { moves });
  const slip = analysis.slip;
  if (!slip) return t(analysis.steps?.[0]?.v === "lost" ? "coach.neverWinnable" : "coach.noWinFound");
  const key = slip.proven ? "coach.slip" : "coach.slipUnproven";
  const played = partsText(slip.played || { to: slip.act === "shuffle" ? "shuffle" : slip.act });
  if (!slip.better) return t(`${key}Alone`, { n: slip.step + 1, played });
  return t(key, { n: slip.step + 1, played, better: partsText(slip.better) });
}
