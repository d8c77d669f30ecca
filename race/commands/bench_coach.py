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
from concurrent.futures import ProcessPoolExecutor

from race.bench.load import choose
from race.engine import Game
from race.solver import solve
from race.solver.coach import LOST, UNKNOWN, Limits, analyse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("bench-coach", help="the coach's analysis of games: decided, time", description=__doc__)
    parser.add_argument("--medium", type=int, default=200, help="random players' medium games (200)")
    parser.add_argument("--hard", type=int, default=200, help="random players' hard games (200)")
    parser.add_argument("--mistakes", type=int, default=50, help="solver-line medium games with mistakes (50)")
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="games analysed at once, a process each (1)")
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


Result = tuple[int, int, int, int, int, bool, bool, float]


def one_game(kind: str, difficulty: str, deal: int, seed: int, moves: int) -> Result:
    """Plays and analyses one game (in a worker when ``--jobs`` > 1): its steps, those decided,
    those proven lost, those up to the slip and how many of them were decided, whether it has a
    slip and whether that slip is proven, and the analysis's CPU seconds."""
    rng = random.Random(seed)
    if kind == "mistakes":
        acts = mistaken(rng, deal, moves)
    else:
        acts = random_game(rng, Game.deal(deal, difficulty), moves, [])
    started = time.process_time()
    analysis = analyse(Game.deal(deal, difficulty), acts)
    cpu = time.process_time() - started
    upto = analysis.steps if analysis.slip is None else analysis.steps[: analysis.slip + 1]
    return (
        len(analysis.steps),
        analysis.decided,
        sum(s.verdict == LOST for s in analysis.steps),
        len(upto),
        sum(s.verdict != UNKNOWN for s in upto),
        analysis.slip is not None,
        analysis.slip_proven,
        cpu,
    )


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    kinds = [("medium, random player", "random", "medium", args.medium)]
    kinds.append(("hard, random player", "random", "hard", args.hard))
    kinds.append(("medium, solver's line with mistakes", "mistakes", "medium", args.mistakes))
    print(f"Coach: games of {args.moves} actions, seed {args.seed}, {args.jobs} process(es), budget {Limits()}")
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, kind, difficulty, count in kinds:
            if count <= 0:
                continue
            deals = [(rng.randrange(1, 1_000_000), rng.randrange(2**32)) for _ in range(count)]
            games = [(kind, difficulty, deal, seed, args.moves) for deal, seed in deals]
            results = list(pool.map(one_game, *zip(*games, strict=True)))
            steps, decided, lost = (sum(r[i] for r in results) for i in range(3))
            kept = sum(r[4] >= 0.95 * r[3] for r in results)  # games decided at 95% up to the slip
            slips, proven = sum(r[5] for r in results), sum(r[6] for r in results)
            times = sorted(r[7] for r in results)
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
            print(
                f"{name}: {count} games, steps decided {decided}/{steps} ({100 * decided / steps:.1f}%), "
                f"games with 95% of the steps up to the slip decided {kept}/{count}, "
                f"steps proven lost {lost}, slips {slips} ({proven} proven); CPU s per game: median "
                f"{statistics.median(times):.2f}, p95 {p95:.2f}, largest {times[-1]:.2f}",
                flush=True,
            )
    return 0
