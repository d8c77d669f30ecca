// Words, news and card notation: what the pages write, without a browser.
import assert from "node:assert/strict";
import { test } from "node:test";

import { card, describeMove, parseMove, preview } from "../../web/model/cards.js";
import { news, overNews, presenceNews, raceNews } from "../../web/model/news.js";
import { initial, reduce } from "../../web/model/room.js";
import { count, dealText, endedText, formatMs, inviteText, ordinal, podiumTitle, roomSummary, sentence, statusText, tellApart, voteText } from "../../web/model/words.js";

test("places read as ordinals", () => {
  const places = { 1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 10: "10th", 11: "11th", 12: "12th", 13: "13th" };
  Object.assign(places, { 14: "14th", 21: "21st", 22: "22nd", 23: "23rd", 101: "101st", 111: "111th", 112: "112th" });
  assert.deepEqual(Object.keys(places).map(Number).map(ordinal), Object.values(places));
});

test("times, counts, statuses and rooms in words", () => {
  assert.deepEqual([formatMs(0), formatMs(34_456), formatMs(3_723_400), formatMs(-1500), formatMs(null)], ["0:00.0", "0:34.4", "1:02:03.4", "-0:01.5", "–"]);
  assert.deepEqual([count(1, "move"), count(3, "move"), count(1, "shuffle left", "shuffles left")], ["1 move", "3 moves", "1 shuffle left"]);
  assert.equal(statusText({ finished_ms: 34_400 }), "finished 0:34.4");
  assert.equal(statusText({ finished_ms: null, resigned: true }), "resigned");
  assert.equal(sentence("the race is over"), "The race is over");
  assert.equal(roomSummary({ difficulty: "hard", deal: 42, time_limit: 90, round: 2 }), "hard · deal 42 · 1 min 30 s limit · round 2");
  // A daily deal's seed is not shown as it is: its day is.
  assert.equal(roomSummary({ difficulty: "easy", deal: "daily:2026-12-01:easy:0", time_limit: null, round: 1 }), "easy · the daily deal of 2026-12-01");
});

const p = (seat, name, extra = {}) => ({ seat, name, finished_ms: null, resigned: false, stuck: false, moves: 10, ...extra });

test("the race's news: finishes with their place, resignations, getting stuck; never mine", () => {
  const before = [p("s1", "Ann"), p("s2", "Bob"), p("s3", "Cy"), p("s4", "Dee")];
  const after = [p("s1", "Ann", { resigned: true }), p("s2", "Bob", { finished_ms: 34_400 }), p("s3", "Cy", { stuck: true }), p("s4", "Dee")];
  assert.equal(raceNews(before, after), "Ann resigned. Bob finished in 0:34.4 (1st). Cy is stuck.");
  assert.equal(raceNews(before, after, "s2"), "Ann resigned. Cy is stuck.");
  const room = { phase: "over", time_limit: null, ranking: [{ place: 1, name: "Bob" }, { place: 2, name: "Ann" }] };
  assert.equal(overNews("racing", room), "Race over: Bob placed 1st of 2.");
  assert.equal(overNews("over", room), "");
  const early = { ...room, ranking: [{ place: 1, name: "Bob", finished: false }, { place: 2, name: "Ann", finished: false }] };
  assert.equal(overNews("racing", early), "Race over: Bob placed 1st of 2, not finished.");
});

test("who went away and who is back (a newcomer is not back)", () => {
  const players = [p("s1", "Ann"), p("s2", "Bob"), p("s3", "Cy")];
  const before = { here: ["s1", "s2"] };
  assert.equal(presenceNews(before, { here: ["s1", "s3"] }, players, "s1", new Set(["s1", "s2"])), "Bob went away.");
  assert.equal(presenceNews({ here: ["s1"] }, { here: ["s1", "s2"] }, players, "s1", new Set(["s1", "s2"])), "Bob is back.");
  assert.equal(presenceNews(null, before, players), "");
});

test("news between two states: a spectator hears the end, a player does not", () => {
  const room = { code: "ABC", round: 1, phase: "racing", time_limit: null, players: [p("s1", "Ann"), p("s2", "Bob")], ranking: [] };
  const watching = reduce(initial("ABC"), { type: "watching", room });
  const over = { ...room, phase: "over", players: [p("s1", "Ann", { finished_ms: 1000 }), p("s2", "Bob")], ranking: [{ place: 1, name: "Ann" }, { place: 2, name: "Bob" }] };
  const after = reduce(watching, { type: "room", room: over });
  assert.equal(news(watching, after, { spectator: true }), "Ann finished in 0:01.0 (1st). Race over: Ann placed 1st of 2.");
  assert.equal(news(watching, after), ""); // no seat, and not a spectator's page
  assert.equal(news(watching, reduce(watching, { type: "room", room: { ...over, round: 2 } }), { spectator: true }), "");
});

test("moves in words, and the board shown while the server confirms one", () => {
  const board = { piles: [["KH", "7H"], ["8H"]], foundations: { uH: { top: "6H", count: 6 } }, shuffles_left: 2 };
  assert.equal(describeMove(board, "p0>p1"), "7♥ onto 8♥");
  assert.equal(describeMove(board, "p0>uH"), "7♥ to ♥ up");
  assert.equal(describeMove(board, "shuffle"), "Shuffle");
  assert.deepEqual(parseMove("p3>dS").to, { kind: "foundation", key: "dS", up: false, suit: "S" });
  const moved = preview(board, "p0>uH");
  assert.deepEqual([moved.piles[0], moved.foundations.uH], [["KH"], { top: "7H", count: 7 }]);
  assert.deepEqual(board.piles[0], ["KH", "7H"]); // the board itself is left as it was
  assert.deepEqual(preview(board, "shuffle").piles[0], ["7H", "KH"]);
});

test("a nickname's length is counted in characters as a reader sees them", async () => {
  const { NAME_MAX, nameLength } = await import("../../web/model/words.js");
  const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
  assert.equal(nameLength(`${family} Famille Dupont`), 16);
  assert.equal(nameLength(`  Zoe\u0301   the  Great `), 13); // an accent is part of its letter; spaces folded
  assert.equal(nameLength("\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"), 1); // England's flag
  assert.equal(nameLength(family.repeat(NAME_MAX + 1)), NAME_MAX + 1);
});

test("shared links and results", async () => {
  const { resultText, roomLink, shareOrigin } = await import("../../web/model/share.js");
  const at = (url) => new URL(url);
  assert.equal(shareOrigin(at("http://127.0.0.1:8000/r/AB"), "http://192.168.1.5:8000"), "http://192.168.1.5:8000");
  assert.equal(shareOrigin(at("http://localhost:8000/"), null), "http://localhost:8000");
  assert.equal(shareOrigin(at("https://race.example/r/AB"), "http://192.168.1.5:8000"), "https://race.example");
  assert.equal(roomLink("https://race.example", "K7M2QXA"), "https://race.example/r/K7M2QXA");
  const daily = { date: "2026-12-01", difficulty: "medium" };
  assert.equal(resultText({}, { finished_ms: 252_400, moves: 131 }, { daily }), "Crescent Race daily 2026-12-01, medium: 4:12, 131 moves");
  const room = { difficulty: "hard", deal: 42 };
  assert.equal(resultText(room, { finished_ms: 61_000, moves: 1 }, { place: 2, of: 3 }), "Crescent Race, hard deal 42: 2nd of 3 in 1:01, 1 move");
  assert.equal(resultText(room, { finished_ms: null, cards: 90, moves: 80 }, { place: 1, of: 1 }), "Crescent Race, hard deal 42: with 90/104 cards, 80 moves");
});

test("picture cards carry an emblem of their own; the others their suit", () => {
  assert.deepEqual(["JS", "QH", "KD"].map((t) => [card(t).face, card(t).emblem]), [[true, "♞"], [true, "♛"], [true, "♚"]]);
  assert.deepEqual([card("TC").face, card("TC").emblem, card("AH").emblem], [false, "♣", "♥"]);
});

test("a deal in words: its number, or a daily deal's day", () => {
  assert.equal(dealText(7), "deal 7");
  assert.equal(dealText("daily:2026-12-03:hard:12"), "the daily deal of 2026-12-03");
  assert.equal(dealText("weird"), "deal weird");
  assert.equal(dealText(null), "a random deal"); // (its number is told at the end)
  assert.equal(roomSummary({ difficulty: "easy", deal: 9, known_deal: true, time_limit: null, round: 1, spectator_delay: 15 }), "easy · known deal 9 · spectators 15 s behind");
  assert.equal(roomSummary({ difficulty: "easy", deal: null, daily_date: "2026-12-03", time_limit: null, round: 1 }), "easy · the daily deal of 2026-12-03");
});

test("an invitation says who invites, to what, and who waits", () => {
  const info = { kind: "race", difficulty: "easy", deal: null, known_deal: false, time_limit: 600, round: 2, phase: "lobby", names: ["Ann", "Bob"], host_name: "Ann" };
  assert.equal(inviteText(info), "Ann invites you to race: easy · a random deal · 10 min limit · round 2. Waiting: Ann, Bob.");
  assert.equal(inviteText({ ...info, phase: "racing", host_name: null }), "A race: easy · a random deal · 10 min limit · round 2. Racing: Ann, Bob.");
  assert.equal(inviteText({ ...info, names: [] }), "");
  assert.equal(inviteText({ ...info, kind: "daily" }), "");
});

test("two players of one name on a leaderboard are told apart by their public ids", () => {
  const rows = [
    { seat: "a41f9c02be11", name: "Ann" },
    { seat: "9c03aa11b2c4", name: "Bob" },
    { seat: "5d21e0f3aa90", name: "ann" },
    { seat: "77e1", name: "Ａｎｎ" }, // full-width: the same name to a reader
  ];
  assert.deepEqual(tellApart(rows).map((r) => r.alias ?? null), ["#a41f", null, "#5d21", "#77e1"]);
  assert.equal(tellApart([{ seat: "x", name: "Cy" }])[0].alias, undefined);
});

test("a race ended with nobody finished names no winner; how it ended, and the vote, in words", () => {
  const row = (place, seat, finished_ms, extra = {}) => ({ place, seat, name: seat.toUpperCase(), finished_ms, cards: 20, ...extra });
  assert.equal(podiumTitle([row(1, "s1", 90_000), row(2, "s2", null)], "s2"), "S1 wins!");
  assert.equal(podiumTitle([row(1, "s1", 90_000), row(2, "s2", null)], "s1"), "You win!");
  assert.equal(podiumTitle([row(1, "s1", null, { finished: false }), row(2, "s2", null)], "s2"), "Nobody finished");
  assert.equal(podiumTitle([]), "Race over");
  assert.equal(endedText({ ended_by: "vote" }), "Race ended by vote.");
  assert.equal(endedText({ ended_by: "end" }), "Race ended early: no rival was left racing here.");
  assert.equal(endedText({ ended_by: "done" }), "Race over.");
  assert.match(voteText({ may: true, mine: false, others: ["Bob"] }), /^Bob asks to end the race/);
  assert.match(voteText({ may: true, mine: true, others: [] }), /^You asked to end the race/);
  assert.equal(voteText({ may: true, mine: false, others: [] }), "");
});

test("hints in words: the room's rule, the button, the answer, a result's hints", async () => {
  const { hintButton, hintRule, hintText, hintsNote, rankedAs } = await import("../../web/model/hints.js");
  const { penaltyText } = await import("../../web/model/words.js");
  const race = (hints, ms = 15000) => ({ kind: "race", hints, hint_penalty_ms: hints === "penalty" ? ms : 0 });
  assert.deepEqual([penaltyText(15000), penaltyText(1500), penaltyText(90000), penaltyText(60000)], ["+15 s", "+1.5 s", "+1 min 30 s", "+1 min"]);
  assert.deepEqual([hintButton(race("penalty")).label, hintButton(race("free")).label, hintButton(race("off")).off], ["Hint +15 s", "Hint", true]);
  assert.equal(hintButton({ kind: "daily", hints: "penalty", hint_penalty_ms: 15000 }).label, "Hint (unranked)");
  assert.equal(hintButton({ kind: "tutorial", hints: "free" }).label, "Hint");
  assert.equal(hintRule(race("penalty", 20000)), "Each hint adds 20 s to the finish time the ranking uses.");
  assert.equal(hintRule(race("off")), "Hints are off in this race.");
  const summary = (extra) => roomSummary({ difficulty: "easy", deal: 5, known_deal: true, round: 1, ...extra });
  assert.deepEqual(
    [summary(race("penalty")), summary(race("off")), summary(race("free")), summary({ kind: "daily", hints: "penalty" })],
    ["easy · known deal 5 · hints +15\u00a0s", "easy · known deal 5 · no hints", "easy · known deal 5 · free hints", "easy · known deal 5"],
  );
  const board = { piles: [["AS", "KC"], ["AC"]], foundations: {} };
  assert.match(hintText({ move: "p0>p1", progress: true, way_out: null }, board), /^Hint: /);
  assert.equal(hintText({ move: "shuffle", progress: false, way_out: "shuffle" }, board), "No card move leads anywhere new: shuffle.");
  assert.equal(hintText({ move: null, progress: false, way_out: "undo" }, board), "No move leads anywhere new: undo your last move.");
  assert.equal(hintText({ move: null, progress: false, way_out: "undo" }, board, []), "No legal move is left: undo your last move.");
  assert.equal(hintText({ move: null, progress: false, way_out: null }, board), "No move leads anywhere new from here, and nothing is left to undo.");
  assert.equal(hintText(null, board), "");
  assert.deepEqual([hintsNote({ hints: 2, penalty_ms: 30000 }), hintsNote({ hints: 1, penalty_ms: 0 }), hintsNote({ hints: 0 })], ["+30 s, 2 hints", "1 hint", ""]);
  assert.equal(rankedAs({ hints: 2, penalty_ms: 30000, finished_ms: 70200, time_ms: 100200 }), "ranked as 1:40.2");
});

test("a finisher's place counts the hints' penalty, as the server's ranking does", async () => {
  const { finishPlace } = await import("../../web/model/news.js");
  const ann = { seat: "s1", finished_ms: 60_000, moves: 100, hints: 2 };
  const bob = { seat: "s2", finished_ms: 80_000, moves: 100, hints: 0 };
  assert.deepEqual([finishPlace([ann, bob], bob), finishPlace([ann, bob], bob, 15_000)], [2, 1]);
});

test("why a daily result is not ranked: said by its code, in English and Spanish", async () => {
  const { paceText } = await import("../../web/model/words.js");
  const { setLang } = await import("../../web/i18n.js");
  const median = { code: "median", ms: 90, min_ms: 250 };
  const run = { code: "run", ms: 1494, min_ms: 1500, run: 10 };
  const floor = { code: "floor", ms: 39_999, min_ms: 40_000, difficulty: "easy" };
  const says = () => [median, run, floor].map((pace) => paceText("(the server's English)", pace));
  try {
    assert.deepEqual(says(), [
      "a median of 90 ms between moves (people take 250 ms or more)",
      "10 moves in 1,494 ms (people take 1,500 ms or more)",
      "won in 39.9 s (people take 40 s or more on easy)", // cut to tenths: never "40.0", the floor
    ]);
    setLang("es");
    assert.deepEqual(says(), [
      "una mediana de 90 ms entre movimientos (una persona tarda 250 ms o más)",
      "10 movimientos en 1494 ms (una persona tarda 1500 ms o más)",
      "ganado en 39,9 s (una persona tarda 40 s o más en fácil)",
    ]);
    assert.equal(paceText(null, { ...floor, ms: 45_250, min_ms: 47_500 }), "ganado en 45,2 s (una persona tarda 47,5 s o más en fácil)");
    // A result kept before the reason had a code: its English line, read back.
    assert.equal(paceText("a median of 50 ms between moves (people take 250 ms or more)"), "una mediana de 50 ms entre movimientos (una persona tarda 250 ms o más)");
    assert.equal(paceText("won in 35.1 s (people take 40 s or more on hard)"), "ganado en 35,1 s (una persona tarda 40 s o más en difícil)");
    assert.equal(paceText("some reason of a newer server"), "some reason of a newer server");
    assert.equal(paceText(null), "");
  } finally {
    setLang("en");
  }
});
