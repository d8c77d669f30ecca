// Words and numbers as the pages write them, in the page's language (pure: no DOM; the
// catalogue and Intl through ../i18n.js).

import { decimalSeparator, has, num, t } from "../i18n.js";

export const TOTAL = 104; // cards in a deal

/** Milliseconds as m:ss.t (or h:mm:ss.t); the tenths after the language's decimal sign. */
export function formatMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  const negative = ms < 0;
  ms = Math.abs(ms);
  const tenths = Math.floor(ms / 100) % 10;
  const total = Math.floor(ms / 1000);
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hours = Math.floor(total / 3600);
  const mm = hours ? String(m).padStart(2, "0") : String(m);
  const text = `${hours ? hours + ":" : ""}${mm}:${String(s).padStart(2, "0")}${decimalSeparator()}${tenths}`;
  return negative ? "-" + text : text;
}

/** A place as an ordinal, by the language's rules: 1st, 2nd, 3rd, 11th, 21st; 1.º, 2.º. */
export function ordinal(n) {
  return t("ordinal", { n });
}

/** A count in words by the language's plural rules: ``count(3, "count.moves")`` is "3 moves"
 * ("3 movimientos"). A plain English noun for ``one`` (not a catalogue key) gives English:
 * "1 move", "3 moves", or ``many``. */
export function count(n, one, many = `${one}s`) {
  if (has(one)) return t(one, { n });
  return `${n} ${n === 1 ? one : many}`;
}

/** A difficulty in words ("easy", "fácil"). */
export function difficultyText(d) {
  return has(`difficulty.${d}`) ? t(`difficulty.${d}`) : String(d ?? "");
}

/** ``text`` with a capital first letter: the server's messages start in lower case, as
 * an API's do, and are shown as sentences. */
export function sentence(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** Whether ``p`` (a player entry or a state) has finished: it has a finish time. */
export function finished(p) {
  return p.finished_ms !== null && p.finished_ms !== undefined;
}

/** Whether ``p`` is out of the race: finished (won) or resigned. */
export function isOut(p) {
  return !!p && (finished(p) || !!p.resigned || !!p.won);
}

/** A player's status in words: finished time, won, stuck, resigned or racing (""). */
export function statusText(p) {
  if (finished(p)) return t("status.finished", { time: formatMs(p.finished_ms) });
  if (p.won) return t("status.won");
  if (p.resigned) return t("status.resigned");
  if (p.stuck) return t("status.stuck");
  return "";
}

/** The podium's title: who won, or, for a race that ended with nobody finished, that no
 * one did (the first place is then only ahead, not a winner). */
export function podiumTitle(ranking, me = null) {
  const first = (ranking || []).find((r) => r.place === 1);
  if (!first) return t("end.raceOver");
  if (!finished(first)) return t("end.nobodyFinished");
  return first.seat === me ? t("end.youWin") : t("end.wins", { name: first.name });
}

/** How a race ended, in words (the room's `ended_by`). */
export function endedText(room) {
  const by = room?.ended_by;
  return t(by === "time" ? "end.byTime" : by === "vote" ? "end.byVote" : by === "end" ? "end.byEnd" : "end.over");
}

/** The vote to end the race in words (``vote``: endVote of model/select.js), or "". */
export function voteText(vote) {
  const names = vote.others.join(", ");
  if (vote.mine) return names ? t("end.voteMineWith", { names }) : t("end.voteMine");
  return names ? t("end.voteOthers", { names, n: vote.others.length }) : "";
}

/** A player's status as a key: finished, resigned, stuck or racing. */
export function statusKey(p) {
  if (finished(p)) return "finished";
  if (p.resigned) return "resigned";
  if (p.stuck) return "stuck";
  return "racing";
}

/** A deal in words: "deal 42", or for a daily challenge's deal (its seed, such as
 * "daily:2026-12-01:easy:0") "the daily deal of 2026-12-01": no raw seed on the page. */
export function dealText(deal) {
  if (deal === null || deal === undefined) return t("deal.random"); // its number is told at the end
  const daily = typeof deal === "string" && deal.match(/^daily:(\d{4}-\d\d-\d\d):/);
  return daily ? t("deal.daily", { date: daily[1] }) : t("deal.number", { deal: String(deal) });
}

/** What a room is, for its page's header: "hard · deal 42 · 10 min limit · round 2". */
export function roomSummary(room) {
  const deal = room.daily_date ? t("deal.daily", { date: room.daily_date }) : room.known_deal ? t("deal.known", { deal: dealText(room.deal) }) : dealText(room.deal);
  const parts = [difficultyText(room.difficulty), deal];
  if (room.time_limit) parts.push(t("room.limit", { time: limitText(room.time_limit) }));
  if (room.round > 1) parts.push(t("room.round", { n: room.round }));
  if (room.spectator_delay) parts.push(t("room.delay", { n: room.spectator_delay }));
  if (room.kind === "race" && room.hints !== undefined) parts.push(hintsPart(room));
  return parts.join(" · ");
}

/** The join form's line about the room (``info``: `GET /api/rooms/CODE`): "Ann invites you
 * to race: easy · a random deal · round 2. Waiting: Ann, Bob." ("" for nothing to say). */
export function inviteText(info) {
  if (!info?.names?.length || info.kind === "daily" || info.kind === "tutorial") return "";
  const who = info.host_name ? t("invite.from", { host: info.host_name }) : t("invite.race");
  const what = roomSummary({ ...info, spectator_delay: 0 });
  const names = info.names.join(", ");
  const waiting = t(info.phase === "lobby" ? "invite.waiting" : "invite.racing", { names });
  return `${t("invite.text", { who, what })} ${waiting}`;
}

/** A time limit in words: "10 min", "30 s", "1 min 30 s". */
export function limitText(seconds) {
  const min = Math.floor(seconds / 60);
  const sec = seconds % 60;
  return [min ? t("time.min", { n: min }) : "", sec ? t("time.s", { n: sec }) : ""].filter(Boolean).join(" ");
}

/** A penalty (ms) as "+15 s", "+1.5 s", "+1 min 30 s". */
export function penaltyText(ms) {
  const s = ms / 1000;
  if (Number.isInteger(s)) return `+${limitText(s)}`;
  return `+${t("time.s", { n: Math.round(s * 10) / 10 })}`;
}

/** A race room's hints for its header: "hints +15 s", "no hints", "free hints". */
function hintsPart(room) {
  if (room.hints === "off") return t("hints.summaryOff");
  if (room.hints === "free" || !room.hint_penalty_ms) return t("hints.summaryFree");
  return t("hints.summaryCost", { cost: penaltyText(room.hint_penalty_ms).replaceAll(" ", "\u00a0") }); // (kept on one line)
}

export { NAME_MAX } from "../wire.js"; // characters in a nickname
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The length of a nickname as the server counts it: characters as a reader sees them
 * (grapheme clusters: an emoji family is one), after trimming and folding runs of spaces. */
export function nameLength(value) {
  let n = 0;
  for (const _ of graphemes.segment(value.normalize("NFC").trim().split(/\s+/).join(" "))) n++;
  return n;
}

/** The leaderboard's rows with an ``alias`` ("#a41f", from the player's public id) on each
 * row whose name another row has too, so two players of one name are two players; ``id``:
 * a row's public id. Names compare as a reader sees them (case, width and accents alike). */
export function tellApart(rows, id = (r) => r.seat) {
  const key = (r) => String(r.name).normalize("NFKC").toLocaleLowerCase();
  const seen = new Map();
  for (const r of rows) seen.set(key(r), (seen.get(key(r)) ?? 0) + 1);
  return rows.map((r) => (seen.get(key(r)) > 1 ? { ...r, alias: `#${String(id(r)).slice(0, 4)}` } : r));
}

/** Why a daily result was not taken for a person's play, in the page's language. The server
 * sends the rule broken and its numbers (``pace``: {code, ms, min_ms, run, difficulty}, from
 * race/rooms/pace.py), said here by its code. A result kept before that has only the English
 * line (``reason``): its three forms are read back, and any other is shown as it came. */
export function paceText(reason, pace = null) {
  if (pace?.code === "median") return t("pace.median", { ms: num(pace.ms), min: num(pace.min_ms) });
  if (pace?.code === "run") return t("pace.run", { run: num(pace.run), ms: num(pace.ms), min: num(pace.min_ms) });
  if (pace?.code === "floor") {
    // Cut to tenths (as a clock is), never rounded up to the floor it is under.
    const s = num(Math.floor(pace.ms / 100) / 10, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    return t("pace.floor", { s, min: num(pace.min_ms / 1000, { maximumFractionDigits: 1 }), difficulty: difficultyText(pace.difficulty) });
  }
  if (!reason) return "";
  let m = reason.match(/^a median of (\d+) ms between moves \(people take (\d+) ms or more\)$/);
  if (m) return t("pace.median", { ms: m[1], min: m[2] });
  m = reason.match(/^(\d+) moves in (\d+) ms \(people take (\d+) ms or more\)$/);
  if (m) return t("pace.run", { run: m[1], ms: m[2], min: m[3] });
  m = reason.match(/^won in ([\d.]+) s \(people take ([\d.]+) s or more on (\w+)\)$/);
  if (m) return t("pace.floor", { s: m[1].replace(".", decimalSeparator()), min: m[2].replace(".", decimalSeparator()), difficulty: difficultyText(m[3]) });
  return reason;
}
