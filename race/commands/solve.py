"""``python -m race solve 42 --difficulty hard``: solve a deal and print the result and the line."""

from __future__ import annotations

import argparse
from typing import Any

from race.commands.deal import seed_arg
from race.engine import DIFFICULTIES


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def register(sub: Any) -> None:
    p = sub.add_parser("solve", help="solve a deal: won (with the line), unsolvable or unknown", description=__doc__)
    p.add_argument("seed", type=seed_arg, help="deal number (digits) or text seed")
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default="medium")
    p.add_argument("--time-limit", type=positive_float, default=10.0, metavar="S", help="seconds (default 10)")
    p.add_argument("--node-limit", type=int, default=None, metavar="N", help="positions (default: no limit)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from race.engine import Game
    from race.solver import solve

    try:
        game = Game.deal(args.seed, args.difficulty)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    solution = solve(game, time_limit=args.time_limit, node_limit=args.node_limit)
    print(f"deal {args.seed!r} ({args.difficulty}): {solution.status}")
    print(f"nodes: {solution.nodes}  time: {solution.seconds:.2f} s  ({solution.nodes_per_second:,.0f} nodes/s)")
    if solution.status == "won":
        print(f"line ({len(solution.moves)} moves):")
        print(" ".join(solution.moves))
    return 0
