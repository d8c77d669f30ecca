"""``python -m race bench-engine``: measure the rules engine's speed on seeded random games.

The games are recorded first (deal numbers and moves come from a seeded generator, so every
run measures the same work), then replayed while timing:

- ``legal_moves()`` once at every position of every game;
- ``play()`` of every recorded move, from the deal to the game's end;
- ``play()`` + ``undo()`` of every legal move at every position (what a search does);
- ``push()`` + ``undo()`` likewise (the unchecked play for search code).

A machine shared with other work runs at a varying speed, so the same run also times a plain
Python loop of ``list.append()`` + ``list.pop()`` pairs and prints each rate as a multiple of
that baseline too: the multiples stay comparable between runs and machines. Every figure is
the best of ``--repeat`` rounds (the baseline's rounds run before and after the engine's).

With a compiled build it runs the same games again in the pure build (a child process with
``RACE_PURE=1``) and prints the pure rate and the ratio beside each figure.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from dataclasses import dataclass
from typing import Any

from race.commands.builds import build_note, compiled, in_pure_build
from race.engine import DIFFICULTIES, Game, Move

PLAY_UNDO_TARGET = 100_000
LEGAL_MOVES_TARGET = 30_000
BASELINE_PAIRS = 2_000_000


@dataclass
class Recorded:
    """One random game: its deal and moves, and the legal moves at each position before a move."""

    seed: int
    moves: list[Move]
    legal: list[list[Move]]


def register(sub: Any) -> None:
    p = sub.add_parser("bench-engine", help="measure the rules engine's speed", description=__doc__)
    p.add_argument("--games", type=int, default=200, help="random games to play (default 200)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random games (default 1)")
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default="medium")
    p.add_argument("--max-moves", type=int, default=500, help="moves per game at most (default 500)")
    p.add_argument("--repeat", type=int, default=3, help="rounds; the best is reported (default 3)")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # this build's figures, for the other
    p.set_defaults(func=run)


def record_games(games: int, seed: int, difficulty: str, max_moves: int) -> list[Recorded]:
    """Random games: each move is chosen uniformly among the legal ones, until none is left."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        deal = rng.randrange(2**64)
        game = Game.deal(deal, difficulty)
        record = Recorded(deal, [], [])
        for _ in range(max_moves):
            legal = game.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
            record.legal.append(legal)
            record.moves.append(move)
            game.play(move)
        out.append(record)
    return out


def time_legal_moves(records: list[Recorded], difficulty: str) -> tuple[int, float]:
    calls, elapsed, clock = 0, 0.0, time.perf_counter
    for record in records:
        game = Game.deal(record.seed, difficulty)
        legal_moves, push = game.legal_moves, game.push
        for move in record.moves:
            start = clock()
            legal_moves()
            elapsed += clock() - start
            push(move)
        calls += len(record.moves)
    return calls, elapsed


def time_play(records: list[Recorded], difficulty: str) -> tuple[int, float]:
    calls, elapsed, clock = 0, 0.0, time.perf_counter
    for record in records:
        game = Game.deal(record.seed, difficulty)
        play, moves = game.play, record.moves
        start = clock()
        for move in moves:
            play(move)
        elapsed += clock() - start
        calls += len(moves)
    return calls, elapsed


def time_pairs(records: list[Recorded], difficulty: str, checked: bool) -> tuple[int, float]:
    pairs, elapsed, clock = 0, 0.0, time.perf_counter
    for record in records:
        game = Game.deal(record.seed, difficulty)
        play = game.play if checked else game.push
        undo, push = game.undo, game.push
        for move, legal in zip(record.moves, record.legal, strict=True):
            start = clock()
            for candidate in legal:
                play(candidate)
                undo()
            elapsed += clock() - start
            pairs += len(legal)
            push(move)
    return pairs, elapsed


def time_baseline(pairs: int) -> tuple[int, float]:
    """``list.append()`` + ``list.pop()`` pairs in a plain loop: the machine's current pace."""
    items: list[int] = [0, 1, 2, 3, 4, 5]
    append, pop = items.append, items.pop
    start = time.perf_counter()
    for i in range(pairs):
        append(i)
        pop()
    return pairs, time.perf_counter() - start


def best_rate(measure: Any, repeat: int) -> float:
    best = 0.0
    for _ in range(repeat):
        count, elapsed = measure()
        best = max(best, count / elapsed if elapsed > 0 else float("inf"))
    return best


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.repeat < 1 or args.max_moves < 1:
        print("error: --games, --repeat and --max-moves must be at least 1")
        return 2
    records = record_games(args.games, args.seed, args.difficulty, args.max_moves)
    positions = sum(len(r.moves) for r in records)
    difficulty, repeat = args.difficulty, args.repeat
    baseline_before = best_rate(lambda: time_baseline(BASELINE_PAIRS), repeat)
    rates = {
        "legal_moves()": best_rate(lambda: time_legal_moves(records, difficulty), repeat),
        "play()": best_rate(lambda: time_play(records, difficulty), repeat),
        "play() + undo()": best_rate(lambda: time_pairs(records, difficulty, checked=True), repeat),
        "push() + undo()": best_rate(lambda: time_pairs(records, difficulty, checked=False), repeat),
    }
    baseline = max(baseline_before, best_rate(lambda: time_baseline(BASELINE_PAIRS), repeat))
    if args.json:
        print(json.dumps({"rates": rates, "baseline": baseline}))
        return 0
    pure: dict[str, float] = {}
    if compiled():
        argv = ["bench-engine", "--games", str(args.games), "--seed", str(args.seed), "--difficulty", difficulty]
        pure = in_pure_build([*argv, "--max-moves", str(args.max_moves), "--repeat", str(repeat)])["rates"]
    units = {"legal_moves()": "calls/s", "play()": "calls/s"}
    targets = {"legal_moves()": LEGAL_MOVES_TARGET, "play() + undo()": PLAY_UNDO_TARGET}

    print(
        f"Engine benchmark: {args.games} random games (seed {args.seed}, {difficulty}), "
        f"{positions:,} positions; Python {platform.python_version()}, best of {repeat}"
    )
    print(f"  {build_note()}")
    for name, rate in rates.items():
        unit = units.get(name, "pairs/s")
        line = f"  {name:<16}{rate:>12,.0f} {unit:<8}  {rate / baseline:7.4f} x baseline"
        if name in targets:
            verdict = "met" if rate >= targets[name] else "NOT met"
            line += f"   (target {targets[name]:,}/s: {verdict})"
        print(line)
        if name in pure:
            print(f"  {'':<16}{pure[name]:>12,.0f} {unit:<8}  pure build; compiled / pure {rate / pure[name]:.2f}x")
    print(f"  baseline: list append() + pop() {baseline:,.0f} pairs/s")
    return 0
