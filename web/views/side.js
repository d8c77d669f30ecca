// The race's side panel, and the rivals' line above the board (for phones).

import { fill, h, refill } from "../dom.js";
import { t } from "../i18n.js";
import { isAway, phase, rivals } from "../model/select.js";
import { statusText, voteText } from "../model/words.js";
import { ghostPace, paceKey } from "../model/ghosts.js";
import { progressList, rankingTable, replayLinks, watchingLine } from "./ranking.js";
import { offerPanel, seriesPanel } from "./series.js";

/** The side panel of state ``s``; ``act``: end, voteEnd(vote), rematch,
 * rematchSame, rematchGhosts, answer, leave; ``share``: "Share my result"; ``replays``: the
 * round's games on the record, seat -> id; ``ghosts``: the room's ghosts as they stand now
 * (model/ghosts.js); ``vote``: the vote to end the race (endVote of model/select.js);
 * ``ratings``: seat -> rating and its change (ratings.js); ``podium``: the podium, at race over.
 * At race over the result is told once, in one panel: the podium as the ranking's head, the
 * ranking, the series and the next round's offer (the race's progress bars give way to it). */
export function drawSide(el, s, { mayEnd, vote = null, confirming, act, share = null, replays = new Map(), ghosts = [], ratings = null, podium = null }) {
  const room = s.room;
  const live = phase(s) !== "over";
  // A practice room is one player's: no race to name, no host to mark.
  const practice = !!room.practice;
  const heading = h("h2", { "data-testid": "side-title" }, t(practice ? "side.practice" : "side.race"));
  const parts = live ? [heading, progressList([...room.players, ...ghosts], { me: s.seat, host: practice ? null : room.host, presence: s.presence, votes: live })] : [];
  parts.push(watchingLine(s.presence));
  if (!live) {
    // The next round is an offer: anyone may make it, everyone still here answers it.
    const away = (seat) => isAway(s.presence, seat); // (the server says if they have gone long enough)
    // Out of the room (its results keep this round), and out of its next rounds.
    const leave = s.seat && act.leave ? h("button", { type: "button", class: "small", "data-testid": "leave-over", onclick: act.leave }, t("side.leave")) : null;
    const panel = h(
      "section",
      { class: "race-over", "data-testid": "race-over", "aria-labelledby": "ranking-title" },
      h("h2", { tabindex: "-1", id: "ranking-title", "data-testid": "ranking-title" }, t("side.ranking")),
      podium,
      rankingTable(room.ranking, { me: s.seat, ratings, left: new Set(room.players.filter((p) => p.left).map((p) => p.seat)) }),
      seriesPanel(room, { me: s.seat }),
      offerPanel(room, { me: s.seat, act, ghostsReady: replays.size > 0, away }),
      replayLinks(room.ranking, replays, { me: s.seat }),
      share,
      leave,
    );
    parts.unshift(panel);
  }
  if (mayEnd) {
    const sure = confirming === "end";
    const attrs = { type: "button", class: sure ? "confirm" : null, "data-testid": "end-race", onclick: act.end };
    parts.push(h("button", attrs, t(sure ? "end.really" : "end.end")));
  }
  if (vote && live) parts.push(voteBlock(vote, act));
  // In a new tab: here, this page would leave the seat.
  const link = { href: `/watch/${s.code}`, target: "_blank", rel: "noopener", "data-testid": "spectator-link" };
  const spectate = h("a", link, t("side.spectator"), h("span", { class: "sr-only" }, ` ${t("common.newTab")}`));
  // At race over, every game this device played (a new tab: here the page would leave the seat).
  const mine = phase(s) === "over" ? [" · ", h("a", { href: "/me", target: "_blank", rel: "noopener", "data-testid": "me-link" }, t("home.me"), h("span", { class: "sr-only" }, ` ${t("common.newTab")}`))] : null;
  parts.push(h("p", { class: "muted small" }, spectate, mine));
  refill(el, parts);
  el.dataset.phase = phase(s);
}

/** The vote to end the race: who asked, and this player's button to ask, agree or withdraw. */
function voteBlock(vote, act) {
  const said = voteText(vote);
  const line = said ? h("p", { class: "end-vote small", "data-testid": "end-vote", "aria-live": "polite" }, said) : null;
  if (!vote.may || !act.voteEnd) return line;
  const label = t(vote.mine ? "end.withdraw" : vote.others.length ? "end.agree" : "end.ask");
  const attrs = { type: "button", class: vote.mine ? "small" : null, "data-testid": "vote-end", "data-asked": vote.mine ? "true" : "false", onclick: () => act.voteEnd(!vote.mine) };
  return h("div", { class: "end-vote-block" }, line, h("button", attrs, label));
}

/** Above the board on a phone, where the side panel is below it: with ``toEnd``, a button
 * that takes the player to "End the race" there (``label``: what it says). */
export function drawToEnd(el, s, toEnd, label = t("end.jump")) {
  fill(el, toEnd && phase(s) !== "over" ? h("button", { type: "button", class: "small", "data-testid": "end-race-jump", onclick: toEnd }, label) : null);
}

/** The rivals' line above the board on a phone: each one's name, cards home and status; a
 * ghost's with its pace against the player rather than its status. */
export function drawRivals(el, s, ghosts = []) {
  const mine = s.room?.players.find((p) => p.seat === s.seat) ?? null;
  fill(
    el,
    [...rivals(s), ...ghosts].map((p) => {
      const pace = p.ghost ? ghostPace(p, mine) : null;
      const status = pace ? t(paceKey(pace), { n: pace.n }) : statusText(p);
      // (dir: a right-to-left name cut short loses its end, not its beginning)
      return h("li", { "data-ghost": p.ghost ? "true" : null }, h("span", { class: "name", dir: "auto" }, p.name), ` ${p.cards}/104`, p.ghost ? ` · ${t("side.ghost")}` : "", status ? ` · ${status}` : "", !p.ghost && isAway(s.presence, p.seat) ? ` · ${t("side.away")}` : "");
    }),
  );
}
