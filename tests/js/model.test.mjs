// The page's room model: the reducer of the server's messages and what the pages read off it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { initial, reduce } from "../../web/model/room.js";
import { canAct, clock, endVote, hostAway, inRace, joinNote, legalNow, mayEnd, phase, rivals, tools } from "../../web/model/select.js";
import { createStore } from "../../web/model/store.js";

const board = { piles: [["AS"], ["2S", "3S"]], foundations: {}, shuffles_left: 3 };
const player = (seat, extra = {}) => ({ seat, name: seat.toUpperCase(), version: 1, cards: 8, moves: 0, won: false, stuck: false, resigned: false, finished_ms: null, ready: false, ...extra });
const snapshot = (extra = {}) => ({
  code: "ABC", round: 1, phase: "racing", host: "s1", time_limit: null, start_at: 1000, ended_at: null,
  players: [player("s1"), player("s2")], ranking: [], ...extra,
});
const state = (extra = {}) => ({ type: "state", seat: "s1", name: "S1", version: 1, cards: 8, moves: 0, shuffles_left: 3, won: false, stuck: false, resigned: false, finished_ms: null, board, legal_moves: ["p0>p1", "shuffle"], can_undo: false, ...extra });
const presence = (extra = {}) => ({ type: "presence", version: 5, here: ["s1", "s2"], watching: 0, away_since: {}, ...extra });

function seated(room = snapshot(), mine = state()) {
  let s = reduce(initial("ABC"), { type: "hello", host_away_ms: 15000 });
  s = reduce(s, { type: "joined", seat: "s1", room, state: mine });
  return reduce(s, presence());
}

test("the phase is the server's: a countdown whose start has passed is still a countdown until it says racing", () => {
  assert.equal(phase(initial("ABC")), "loading");
  const s = seated(snapshot({ phase: "countdown", start_at: 5000 }));
  assert.equal(phase(s), "countdown");
  assert.deepEqual(legalNow(s), []);
  assert.equal(phase(reduce(s, { type: "room", room: snapshot({ start_at: 5000 }) })), "racing");
  assert.equal(phase(reduce(s, { type: "gone", message: "no such room" })), "gone");
});

test("a message that changes nothing gives back the same state", () => {
  const s = seated();
  assert.equal(reduce(s, presence()), s); // the same presence again
  assert.equal(reduce(s, presence({ version: 4, here: ["s1"] })), s); // an older one
  assert.equal(reduce(s, { type: "player", player: player("s2", { version: 0, cards: 20 }) }), s); // older than held
  assert.equal(reduce(s, { type: "player", player: player("s9") }), s); // no such player
  assert.equal(reduce(s, { type: "nonsense" }), s);
});

test("the same presence version with a new end_from replaces the one held", () => {
  const s = seated();
  const next = reduce(s, presence({ end_from: 0 }));
  assert.notEqual(next, s);
  assert.equal(next.presence.end_from, 0);
});

test("my own state is my entry among the players, and a snapshot keeps the newer of each", () => {
  let s = seated();
  s = reduce(s, state({ version: 3, cards: 12, moves: 4 }));
  assert.equal(s.room.players[0].cards, 12);
  // A snapshot that was sent before my move came in: my newer entry stays, its ready flag is new.
  s = reduce(s, { type: "room", room: snapshot({ players: [player("s1", { ready: true }), player("s2", { version: 2, cards: 9 })] }) });
  assert.deepEqual([s.room.players[0].cards, s.room.players[0].ready, s.room.players[1].cards], [12, true, 9]);
  s = reduce(s, { type: "player", player: player("s2", { version: 3, cards: 10 }) });
  assert.equal(s.room.players[1].cards, 10);
  assert.deepEqual(rivals(s).map((p) => p.seat), ["s2"]);
});

test("a hint holds for the state it was asked of, while this seat races", () => {
  let s = seated();
  assert.equal(reduce(s, { type: "hint", move: "p0>p1", version: 0 }), s); // for another state
  s = reduce(s, { type: "hint", move: "p0>p1", progress: true, way_out: null, hints: 1, version: 1 });
  assert.deepEqual(s.hint, { move: "p0>p1", progress: true, way_out: null });
  assert.equal(reduce(s, state({ version: 2 })).hint, null); // the state moved on
  assert.equal(reduce(s, state({ resigned: true, legal_moves: [] })).hint, null); // out of the race
  assert.equal(reduce(s, { type: "room", room: snapshot({ phase: "over" }) }).hint, null); // over
  assert.equal(reduce(s, { type: "room", room: snapshot({ round: 2 }) }).hint, null); // a rematch
  const out = { type: "hint", move: null, progress: false, way_out: "undo", hints: 2, version: 1 };
  assert.deepEqual(reduce(s, out).hint, { move: null, progress: false, way_out: "undo" });
});

test("a move sent waits for its reply: no input meanwhile, and none in another window's seat", () => {
  let s = seated();
  assert.deepEqual(legalNow(s), ["p0>p1", "shuffle"]);
  s = reduce(s, { type: "sent", id: "a", move: "p0>p1" });
  assert.equal(canAct(s), false);
  assert.equal(reduce(s, { type: "unanswered", id: "b" }), s); // another move's time
  assert.equal(canAct(reduce(s, { type: "unanswered", id: "a" })), true);
  assert.equal(canAct(reduce(s, { type: "error", code: "illegal_move" })), true);
  assert.equal(reduce(s, { type: "error", code: "stale", state: state({ version: 4 }) }).mine.version, 4);
  s = reduce(reduce(s, state()), { type: "kicked" });
  assert.deepEqual([canAct(s), s.presence], [false, null]);
  assert.equal(canAct(reduce(s, { type: "here" })), true);
});

test("the tools say what each may do now", () => {
  const s = seated(snapshot(), state({ can_undo: true }));
  assert.deepEqual(tools(s), { shufflesLeft: 3, shuffle: true, shuffleHinted: false, hint: true, undo: true, undoHinted: false, restart: true, resign: true });
  assert.equal(tools(reduce(s, { type: "hint", move: "shuffle", version: 1 })).shuffleHinted, true);
  // No move leads anywhere new: the way out is lit.
  assert.equal(tools(reduce(s, { type: "hint", move: null, progress: false, way_out: "undo", version: 1 })).undoHinted, true);
  // A room without hints: no hint to ask for.
  assert.equal(tools(seated(snapshot({ hints: "off" }), state({ can_undo: true }))).hint, false);
  const out = reduce(s, state({ resigned: true, legal_moves: [], can_undo: false }));
  assert.deepEqual(tools(out), { shufflesLeft: 3, shuffle: false, shuffleHinted: false, hint: false, undo: false, undoHinted: false, restart: false, resign: false });
  assert.equal(inRace(out), false);
});

test("who may end the race: any player, from the server's end_from for their seat; the host is no one special", () => {
  const at = (end_from, mine = state(), room = snapshot()) => reduce(seated(room, mine), presence({ end_from }));
  assert.equal(mayEnd(seated(), 2000), false); // no end_from yet
  assert.equal(mayEnd(at({ s1: null, s2: null }), 2000), false); // the host, with a rival playing
  assert.equal(mayEnd(at({ s1: 3000, s2: null }), 2999), false);
  assert.equal(mayEnd(at({ s1: 3000, s2: null }), 3000), true); // the rival has gone
  assert.equal(mayEnd(at({ s1: 0, s2: null }, state({ resigned: true, legal_moves: [] }), snapshot({ host: "s2" })), 10), true);
  assert.equal(mayEnd(at({ s1: 0 }, state(), snapshot({ players: [player("s1")] })), 2000), false); // alone: resign instead
  assert.equal(mayEnd(reduce(at({ s1: 0, s2: null }), { type: "room", room: snapshot({ phase: "over" }) }), 9000), false);
});

test("the vote to end the race: who may ask, who has, and playing on withdraws it", () => {
  const racing = reduce(seated(), presence({ end_from: { s1: null, s2: null } }));
  assert.deepEqual(endVote(racing, 2000), { may: true, mine: false, others: [] });
  const bobAsks = reduce(racing, { type: "player", player: player("s2", { version: 2, end_vote: true }) });
  assert.deepEqual(endVote(bobAsks, 2000), { may: true, mine: false, others: ["S2"] });
  const both = reduce(bobAsks, state({ version: 2, end_vote: true }));
  assert.deepEqual(endVote(both, 2000), { may: true, mine: true, others: ["S2"] });
  assert.equal(endVote(reduce(both, state({ version: 3, end_vote: false })), 2000).mine, false);
  const out = reduce(racing, state({ version: 2, resigned: true, legal_moves: [] }));
  assert.equal(endVote(out, 2000).may, false); // out of the race: no vote
  assert.deepEqual(endVote(reduce(bobAsks, { type: "room", room: snapshot({ phase: "over", players: [player("s1"), player("s2", { end_vote: true })] }) }), 2000).others, []);
});

test("a host who went away may be stood in for from the server's host_from", () => {
  let s = seated(snapshot({ phase: "lobby", host: "s2" }));
  s = reduce(s, presence({ version: 6, here: ["s1"], away_since: { s2: 10_000 }, host_from: 25_000 }));
  assert.equal(hostAway(s, 20_000), false);
  assert.equal(hostAway(s, 25_000), true);
  const back = reduce(s, presence({ version: 7, here: ["s1", "s2"], host_from: null }));
  assert.equal(hostAway(back, 30_000), false); // the host is here again
  const host = seated(snapshot({ phase: "lobby", host: "s1" }));
  assert.equal(hostAway(reduce(host, presence({ version: 6, here: ["s1"], host_from: 0 })), 1), false); // the host is the host
});

test("the clock: the countdown, Go! on a page that counted down, the race time and what is left", () => {
  const limited = { time_limit: 60, start_at: 10_000 };
  assert.deepEqual(clock(seated(snapshot({ phase: "countdown", ...limited })), 7_500), { count: "3", elapsed: 0, left: 60_000 });
  assert.deepEqual(clock(seated(snapshot({ phase: "countdown", ...limited })), 10_200), { count: "1", elapsed: 0, left: 60_000 });
  const racing = seated(snapshot(limited));
  assert.deepEqual(clock(racing, 10_500, 10_000), { count: "Go!", elapsed: 500, left: 59_500 });
  assert.deepEqual(clock(racing, 10_500), { count: null, elapsed: 500, left: 59_500 }); // opened late: no Go!
  assert.deepEqual(clock(racing, 99_000).left, 0);
  const over = seated(snapshot({ phase: "over", ended_at: 40_000, ...limited }));
  assert.deepEqual(clock(over, 99_000), { count: null, elapsed: 30_000, left: 30_000 });
  const won = seated(snapshot(limited), state({ finished_ms: 12_345, won: true, legal_moves: [] }));
  assert.equal(clock(won, 99_000).elapsed, 12_345);
});

test("a look-up of a room says why it takes no seat, and that a new round waits once it does again", () => {
  assert.equal(joinNote({ kind: "race", phase: "lobby", players: 2, max_players: 8 }, false), null);
  assert.equal(joinNote({ kind: "race", phase: "lobby", players: 8, max_players: 8 }, false).code, "room_full");
  assert.deepEqual(joinNote({ kind: "race", phase: "racing" }, false).closed, true);
  assert.equal(joinNote({ kind: "race", phase: "over" }, false).over, true);
  assert.equal(joinNote({ kind: "daily", phase: "racing" }, false).code, "daily");
  assert.equal(joinNote({ kind: "tutorial", phase: "racing" }, false).code, "tutorial");
  const practice = joinNote({ kind: "practice", phase: "racing" }, false);
  assert.deepEqual([practice.code, practice.closed], ["practice", true]);
  assert.match(practice.message, /practice: one player only/);
  assert.equal(joinNote({ kind: "race", phase: "lobby", players: 1, max_players: 8 }, true).code, "new_round");
});

test("the store tells its subscribers of each change, with the state before it", () => {
  const store = createStore(reduce, initial("ABC"));
  const heard = [];
  const stop = store.subscribe((s, before, m) => heard.push([m.type, before.room, s.room?.code]));
  store.dispatch({ type: "watching", room: snapshot() });
  store.dispatch({ type: "nonsense" }); // no change: nobody is told
  stop();
  store.dispatch({ type: "room", room: snapshot({ round: 2 }) });
  assert.deepEqual(heard, [["watching", null, "ABC"]]);
  assert.equal(store.get().room.round, 2);
});

test("at the start, a board still face down becomes the server's opening, unless my game has moved on", () => {
  const hidden = { piles: [["??"], ["??", "??"]], foundations: {}, shuffles_left: 3 };
  const s = seated(snapshot({ phase: "countdown", start_at: 5000 }), state({ board: hidden, legal_moves: [] }));
  const opening = { board, legal_moves: ["p0>p1", "shuffle"] };
  const started = reduce(s, { type: "room", room: snapshot({ start_at: 5000 }), opening });
  assert.deepEqual(started.mine.board, board);
  assert.deepEqual(legalNow(started), ["p0>p1", "shuffle"]);
  // My seat is at a later version than I hold (a move I have not heard of): no guess, the page syncs.
  const moved = snapshot({ start_at: 5000, players: [player("s1", { version: 2 }), player("s2")] });
  assert.equal(reduce(s, { type: "room", room: moved, opening }).mine.board, hidden);
  // A board already shown is never replaced by the opening.
  assert.equal(reduce(seated(), { type: "room", room: snapshot(), opening: { board: hidden, legal_moves: [] } }).mine.board, board);
});
