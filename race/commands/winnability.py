"""``python -m race winnability --deals 1000 --difficulty hard --time-limit 10``: solve many deals.

Solves deals ``start`` .. ``start + deals - 1`` (one process per job), shows a progress bar on
stderr, then prints won / unsolvable / unknown counts, the win rate with 95% Wilson intervals,
the nodes per second and the median and 95th-percentile time per deal.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from race.commands.solve import positive_float
from race.engine import DIFFICULTIES

Result = tuple[int, str, int, float]


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def register(sub: Any) -> None:
    p = sub.add_parser("winnability", help="solve deals start..start+N-1 and report the win rate", description=__doc__)
    p.add_argument("--deals", type=positive_int, default=100, metavar="N", help="how many deals (default 100)")
    p.add_argument("--start", type=int, default=1, metavar="K", help="first deal number (default 1)")
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default="medium")
    p.add_argument("--time-limit", type=positive_float, default=10.0, metavar="S", help="seconds per deal")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="J", help="worker processes (default 1)")
    p.add_argument("--list", action="store_true", help="also print one line per deal")
    p.set_defaults(func=run)


def solve_deal(task: tuple[int, str, float]) -> Result:
    """Solve one deal: ``(seed, status, nodes, seconds)``. Top level so that workers can pickle it."""
    from race.engine import Game
    from race.solver import solve

    seed, difficulty, time_limit = task
    solution = solve(Game.deal(seed, difficulty), time_limit=time_limit)
    return seed, solution.status, solution.nodes, solution.seconds


def progress(done: int, total: int, counts: dict[str, int], started: float) -> None:
    width = 30
    filled = width * done // total
    bar = "#" * filled + "-" * (width - filled)
    elapsed = time.monotonic() - started
    sys.stderr.write(
        f"\r[{bar}] {done}/{total}  won {counts['won']}  unsolvable {counts['unsolvable']}  "
        f"unknown {counts['unknown']}  {elapsed:.0f}s"
    )
    sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    from race.solver.stats import percentile, wilson

    tasks = [(seed, args.difficulty, args.time_limit) for seed in range(args.start, args.start + args.deals)]
    counts = {"won": 0, "unsolvable": 0, "unknown": 0}
    results: list[Result] = []
    started = time.monotonic()
    progress(0, len(tasks), counts, started)
    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.Pool(args.jobs) as pool:
            for result in pool.imap_unordered(solve_deal, tasks):
                results.append(result)
                counts[result[1]] += 1
                progress(len(results), len(tasks), counts, started)
    else:
        for task in tasks:
            result = solve_deal(task)
            results.append(result)
            counts[result[1]] += 1
            progress(len(results), len(tasks), counts, started)
    sys.stderr.write("\n")
    wall = time.monotonic() - started
    results.sort()
    if args.list:
        for seed, status, nodes, seconds in results:
            print(f"deal {seed}: {status}  {nodes} nodes  {seconds:.2f} s")
    n = len(results)
    won, lost, unknown = counts["won"], counts["unsolvable"], counts["unknown"]
    decided = won + lost
    times = [r[3] for r in results]
    nodes = sum(r[2] for r in results)
    low_all, _ = wilson(won, n)
    _, high_all = wilson(won + unknown, n)
    print(
        f"{args.difficulty}: deals {args.start}-{args.start + n - 1} ({n}), time limit {args.time_limit:g} s, "
        f"jobs {args.jobs}"
    )
    print(f"won {won}  unsolvable {lost}  unknown {unknown}  (decided {decided}/{n} = {decided / n:.1%})")
    if decided:
        lo, hi = wilson(won, decided)
        print(f"win rate of decided deals: {won / decided:.1%} (95% Wilson CI {lo:.1%}-{hi:.1%})")
    else:
        print("win rate of decided deals: n/a (no deal decided)")
    print(
        f"win rate of all deals: {won / n:.1%} to {(won + unknown) / n:.1%} "
        f"(unknown counted as lost / as won; 95% Wilson bounds {low_all:.1%}-{high_all:.1%})"
    )
    print(
        f"nodes/s: {nodes / max(sum(times), 1e-9):,.0f} per process  "
        f"time per deal: median {percentile(times, 50):.2f} s, p95 {percentile(times, 95):.2f} s  "
        f"wall {wall:.0f} s"
    )
    return 0
