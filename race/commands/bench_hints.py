"""``python -m race bench-hints --deals 200``: a player who only follows the hint.

For deals ``start`` .. ``start + deals - 1``, follows the rule book's hint alone
(:meth:`Game.hint`) and the hint that makes progress (:func:`race.engine.hints.advise`, with
its way out: the shuffle, else undo) and prints, for each, how many games went round in
circles (a hinted move back to a position reached before), were won, came to an end with
nothing to suggest, or were still going after ``--cap`` actions. Then what a hint costs the
server, against a move measured in the same run: the first hint on a connection replays
the game's actions, the next ones only those since.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from race.commands.winnability import positive_int
from race.engine import DIFFICULTIES

OUTCOMES = ("cycled", "won", "ended", "capped")


def register(sub: Any) -> None:
    p = sub.add_parser("bench-hints", help="follow the hint alone: loops, wins, cost", description=__doc__)
    p.add_argument("--deals", type=positive_int, default=200, metavar="N", help="how many deals (default 200)")
    p.add_argument("--start", type=int, default=1, metavar="K", help="first deal number (default 1)")
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default="medium")
    p.add_argument("--cap", type=positive_int, default=2000, metavar="A", help="actions per game at most (2000)")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="J", help="worker processes (default 1)")
    p.set_defaults(func=run)


def rule_book(task: tuple[int, str, int]) -> tuple[str, int]:
    """Follow :meth:`Game.hint` alone: the outcome and the actions taken."""
    from race.engine import Game
    from race.engine.hints import position_hash

    seed, difficulty, cap = task
    game = Game.deal(seed, difficulty)
    seen = {position_hash(game)}
    for n in range(1, cap + 1):
        move = game.hint()
        if move is None:
            return "ended", n - 1
        game.play(move)
        if game.is_won:
            return "won", n
        key = position_hash(game)
        if key in seen:
            return "cycled", n
        seen.add(key)
    return "capped", cap


def progress(task: tuple[int, str, int]) -> tuple[str, int]:
    """Follow the hint that makes progress, and its way out: the outcome and the actions."""
    from race.engine import Game
    from race.engine.hints import UNDO_OUT, advise, position_hash

    seed, difficulty, cap = task
    game = Game.deal(seed, difficulty)
    seen = {position_hash(game)}
    for n in range(1, cap + 1):
        advice = advise(game, seen)
        if advice.move is not None:
            game.play(advice.move)
        elif advice.way_out == UNDO_OUT:
            game.undo()
        else:
            return "ended", n - 1
        if game.is_won:
            return "won", n
        key = position_hash(game)
        if key in seen and advice.move is not None:
            return "cycled", n
        seen.add(key)
    return "capped", cap


def cost(seed: int, difficulty: str, actions: int) -> tuple[float, float, float]:
    """Seconds of a move (the engine's work on one: the baseline), of a first hint on a
    game of ``actions`` actions (the replay of them all, and the advice), and of a next
    hint (one action to replay, and the advice; the mean of the game's last 100)."""
    from race.engine import Game
    from race.engine.hints import Trail, advise, position_hash

    game = Game.deal(seed, difficulty)
    seen = {position_hash(game)}
    acts: list[str] = []
    while len(acts) < actions:
        advice = advise(game, seen)
        if advice.move is None:
            game.undo()
            acts.append("undo")
        else:
            acts.append(str(game.play(advice.move)))
        seen.add(position_hash(game))

    def least(work: Callable[[], object], repeat: int) -> float:
        """The least seconds ``work()`` took in ``repeat`` runs."""
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            work()
            best = min(best, time.perf_counter() - started)
        return best

    def moves() -> None:
        probe = Game.deal(seed, difficulty)
        for act in acts[:200]:
            probe.undo() if act == "undo" else probe.play(act)

    def first() -> None:
        trail = Trail(seed, difficulty)
        trail.extend(acts)
        advise(trail.game, trail.seen)

    def after() -> None:
        trail = Trail(seed, difficulty)
        trail.extend(acts[:-100])
        started = time.perf_counter()
        for act in acts[-100:]:
            trail.extend([act])
            advise(trail.game, trail.seen)
        spent.append((time.perf_counter() - started) / 100)

    spent: list[float] = []
    for _ in range(3):
        after()
    return least(moves, 20) / 200, least(first, 3), min(spent)


def run(args: argparse.Namespace) -> int:
    tasks = [(seed, args.difficulty, args.cap) for seed in range(args.start, args.start + args.deals)]
    last = args.start + args.deals - 1
    print(f"Following the hint alone, {args.difficulty} deals {args.start}-{last}, at most {args.cap} actions each:")
    print(f"{'hint':<22}{'cycled':>8}{'won':>6}{'ended':>7}{'capped':>8}{'median actions':>16}")
    for name, follow in (("the rule book's", rule_book), ("making progress", progress)):
        if args.jobs > 1:
            import multiprocessing

            with multiprocessing.Pool(args.jobs) as pool:
                results = pool.map(follow, tasks)
        else:
            results = [follow(task) for task in tasks]
        counts = Counter(outcome for outcome, _ in results)
        median = statistics.median(n for _, n in results)
        row = "".join(f"{counts[o]:>{w}}" for o, w in zip(OUTCOMES, (8, 6, 7, 8), strict=True))
        print(f"{name:<22}{row}{median:>16g}")
    print("(cycled: a hinted move back to a position reached before; ended: nothing left to suggest)")
    for actions in (500, 2000, 10_000):
        move_s, first_s, next_s = cost(args.start, args.difficulty, actions)
        print(
            f"a hint on a game of {actions} actions: the first in a process {first_s * 1000:.1f} ms "
            f"({first_s / move_s:.0f}x a move), the next {next_s * 1e6:.0f} us ({next_s / move_s:.1f}x a move)"
        )
    return 0
