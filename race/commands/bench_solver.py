"""``python -m race bench-solver``: the solver's nodes per second, compiled and pure, and their ratio.

It solves a fixed set of deals, each with a node limit and no time limit, so the work is the
same on every run and in every build: the nodes searched and the results must match, and the
command says whether they do. With a compiled build it runs the same deals again in the pure
build (a child process with ``RACE_PURE=1``) and prints both rates and the ratio.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any

from race.commands.builds import build_note, compiled, in_pure_build
from race.engine import DIFFICULTIES

DEFAULT_DEALS = "7,12,14,26,52"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench-solver", help="measure the solver's nodes per second, compiled and pure", description=__doc__
    )
    p.add_argument("--deals", default=DEFAULT_DEALS, help=f"deal numbers, comma-separated (default {DEFAULT_DEALS})")
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default="hard")
    p.add_argument("--node-limit", type=int, default=200_000, metavar="N", help="nodes per deal (default 200,000)")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # this build's figures, for the other
    p.set_defaults(func=run)


def measure(deals: list[int], difficulty: str, node_limit: int) -> dict[str, Any]:
    """Solve each deal within ``node_limit`` nodes: the total nodes and seconds, and each result."""
    from race.engine import Game
    from race.solver import solve

    nodes, seconds, results = 0, 0.0, []
    for deal in deals:
        game = Game.deal(deal, difficulty)
        start = time.perf_counter()
        solution = solve(game, time_limit=None, node_limit=node_limit)
        seconds += time.perf_counter() - start
        nodes += solution.nodes
        results.append([deal, solution.status, solution.nodes, len(solution.moves)])
    return {"nodes": nodes, "seconds": seconds, "results": results}


def run(args: argparse.Namespace) -> int:
    try:
        deals = [int(d) for d in args.deals.split(",")]
    except ValueError:
        print("error: --deals takes deal numbers separated by commas")
        return 2
    if args.node_limit < 1:
        print("error: --node-limit must be at least 1")
        return 2
    mine = measure(deals, args.difficulty, args.node_limit)
    if args.json:
        print(json.dumps(mine))
        return 0
    print(
        f"Solver benchmark: {args.difficulty} deals {', '.join(map(str, deals))}, at most {args.node_limit:,} nodes "
        f"each, no time limit; Python {platform.python_version()}"
    )
    print(f"  {build_note()}")
    rate = mine["nodes"] / mine["seconds"]
    print(f"  {'compiled' if compiled() else 'pure':<9}{rate:>12,.0f} nodes/s   {mine['seconds']:6.2f} s")
    for deal, status, nodes, moves in mine["results"]:
        print(f"    deal {deal}: {status}, {nodes:,} nodes" + (f", a {moves}-move line" if status == "won" else ""))
    if compiled():
        pure = in_pure_build(
            [
                "bench-solver",
                "--deals",
                args.deals,
                "--difficulty",
                args.difficulty,
                "--node-limit",
                str(args.node_limit),
            ]
        )
        pure_rate = pure["nodes"] / pure["seconds"]
        print(f"  {'pure':<9}{pure_rate:>12,.0f} nodes/s   {pure['seconds']:6.2f} s")
        print(f"  compiled / pure: {rate / pure_rate:.2f}x")
        same = pure["results"] == mine["results"]
        print(f"  the same nodes and results in both builds: {'yes' if same else 'NO'}")
        if not same:
            return 1
    return 0
