"""``python -m race bench-coach``: the coach's analysis (:mod:`race.solver.coach`) on games.

Three kinds of game, each of ``--moves`` actions (150): played by the server benchmark's random
player (:func:`race.bench.load.choose`) on medium and on hard deals, and solver-line games with
deliberate mistakes (the solver's line from the deal followed for a random 50-97% of its length,
then the random player's moves). Each is analysed at the default budget
(:class:`race.solver.coach.Limits`) and the figures printed per kind: the share of steps decided,
the CPU time per game (median, p95, largest), the positions proven lost, the slips found. Every
``win`` verdict's line replays through the engine to a win (the analysis checks each one).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from race.bench.load import choose
from race.engine import Game
from race.solver import solve
from race.solver.coach import LOST, Limits, analyse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("bench-coach", help="the coach's analysis of games: decided, time", description=__doc__)
    parser.add_argument("--medium", type=int, default=200, help="random players' medium games (200)")
    parser.add_argument("--hard", type=int, default=200, help="random players' hard games (200)")
    parser.add_argument("--mistakes", type=int, default=50, help="solver-line medium games with mistakes (50)")
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(func=run)


def random_game(rng: random.Random, game: Game, moves: int, acts: list[str]) -> list[str]:
    """``acts`` and the random player's actions from ``game`` (advanced) up to ``moves`` in all."""
    while len(acts) < moves:
        state = {"legal_moves": [str(m) for m in game.legal_moves()], "version": 0, "can_undo": bool(game.move_stack)}
        msg = choose(state, rng)
        if msg["type"] == "undo":
            game.undo()
            acts.append("undo")
        elif msg["type"] == "restart":
            game.restart()
            acts.append("restart")
        else:
            acts.append(str(game.play(msg["move"])))
        if game.is_won:
            break
    return acts


def mistaken(rng: random.Random, deal: int, moves: int) -> list[str]:
    game = Game.deal(deal, "medium")
    line = solve(game, time_limit=None, node_limit=2_000_000).moves
    acts = line[: int(len(line) * rng.uniform(0.5, 0.97))]
    for move in acts:
        game.play(move)
    return random_game(rng, game, moves, list(acts))


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    kinds = [("medium, random player", "medium", args.medium), ("hard, random player", "hard", args.hard)]
    kinds.append(("medium, solver's line with mistakes", "medium", args.mistakes))
    print(f"Coach: games of {args.moves} actions, seed {args.seed}, budget {Limits()}")
    for name, difficulty, count in kinds:
        if count <= 0:
            continue
        steps = decided = lost = slips = proven = 0
        times: list[float] = []
        for _ in range(count):
            deal = rng.randrange(1, 1_000_000)
            if "mistakes" in name:
                acts = mistaken(rng, deal, args.moves)
            else:
                acts = random_game(rng, Game.deal(deal, difficulty), args.moves, [])
            started = time.process_time()
            analysis = analyse(Game.deal(deal, difficulty), acts)
            times.append(time.process_time() - started)
            steps += len(analysis.steps)
            decided += analysis.decided
            lost += sum(s.verdict == LOST for s in analysis.steps)
            slips += analysis.slip is not None
            proven += analysis.slip_proven
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(
            f"{name}: {count} games, steps decided {decided}/{steps} ({100 * decided / steps:.1f}%), "
            f"steps proven lost {lost}, slips {slips} ({proven} proven); CPU s per game: median "
            f"{statistics.median(times):.2f}, p95 {p95:.2f}, largest {times[-1]:.2f}",
            flush=True,
        )
    return 0
