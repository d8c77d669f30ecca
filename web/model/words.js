// Words and numbers as the pages write them (pure: no DOM).

export const TOTAL = 104; // cards in a deal

/** Milliseconds as m:ss.t (or h:mm:ss.t). */
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
  const text = `${hours ? hours + ":" : ""}${mm}:${String(s).padStart(2, "0")}.${tenths}`;
  return negative ? "-" + text : text;
}

/** A place as an ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st, 111th. */
export function ordinal(n) {
  const teen = Math.floor(n / 10) % 10 === 1;
  const suffix = teen ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

/** A count and its noun, singular for one: "1 move", "3 moves", "1 shuffle left" with
 * ``many`` "shuffles left". */
export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
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
  if (finished(p)) return `finished ${formatMs(p.finished_ms)}`;
  if (p.won) return "won";
  if (p.resigned) return "resigned";
  if (p.stuck) return "stuck";
  return "";
}

/** The podium's title: who won, or, for a race that ended with nobody finished, that no
 * one did (the first place is then only ahead, not a winner). */
export function podiumTitle(ranking, me = null) {
  const first = (ranking || []).find((r) => r.place === 1);
  if (!first) return "Race over";
  if (!finished(first)) return "Nobody finished";
  return first.seat === me ? "You win!" : `${first.name} wins!`;
}

/** How a race ended, in words (the room's `ended_by`). */
export function endedText(room) {
  const by = room?.ended_by;
  if (by === "time") return "Time is up: race over.";
  if (by === "vote") return "Race ended by vote.";
  if (by === "end") return "Race ended: the players still racing had gone.";
  return "Race over.";
}

/** The vote to end the race in words (``vote``: endVote of model/select.js), or "". */
export function voteText(vote) {
  const others = vote.others.join(", ");
  if (vote.mine) return others ? `You and ${others} asked to end the race: it ends when every player still racing here asks.` : "You asked to end the race: it ends when every player still racing here asks too. Playing on withdraws it.";
  if (others) return `${others} ${vote.others.length > 1 ? "ask" : "asks"} to end the race now, ranked as things stand.`;
  return "";
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
  if (deal === null || deal === undefined) return "a random deal"; // its number is told at the end
  const daily = typeof deal === "string" && deal.match(/^daily:(\d{4}-\d\d-\d\d):/);
  return daily ? `the daily deal of ${daily[1]}` : `deal ${deal}`;
}

/** What a room is, for its page's header: "hard · deal 42 · 10 min limit · round 2". */
export function roomSummary(room) {
  const limit = room.time_limit ? ` · ${limitText(room.time_limit)} limit` : "";
  const deal = room.daily_date ? `the daily deal of ${room.daily_date}` : room.known_deal ? `known ${dealText(room.deal)}` : dealText(room.deal);
  const delay = room.spectator_delay ? ` · spectators ${room.spectator_delay} s behind` : "";
  return `${room.difficulty} · ${deal}${limit}${room.round > 1 ? ` · round ${room.round}` : ""}${delay}`;
}

/** The join form's line about the room (``info``: `GET /api/rooms/CODE`): "Ann invites you
 * to race: easy · a random deal · round 2. Waiting: Ann, Bob." ("" for nothing to say). */
export function inviteText(info) {
  if (!info?.names?.length || info.kind === "daily" || info.kind === "tutorial") return "";
  const who = info.host_name ? `${info.host_name} invites you to race` : "A race";
  const what = roomSummary({ ...info, spectator_delay: 0 });
  const waiting = info.phase === "lobby" ? ` Waiting: ${info.names.join(", ")}.` : ` Racing: ${info.names.join(", ")}.`;
  return `${who}: ${what}.${waiting}`;
}

/** A time limit in words: "10 min", "30 s", "1 min 30 s". */
export function limitText(seconds) {
  const min = Math.floor(seconds / 60);
  const sec = seconds % 60;
  return [min ? `${min} min` : "", sec ? `${sec} s` : ""].filter(Boolean).join(" ");
}

export const NAME_MAX = 20; // characters in a nickname (the server's race.protocol.NAME_MAX)
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
