"""``python -m race bench-store``: what a move's commit and read cost each embedded store.

A move commits its seat's document (``--seat-bytes``, about a game's size) with a log entry
and a broadcast, expecting the versions of the room's meta and of that seat; a player coming
back reads both. This runs ``--commits`` such commits over ``--rooms`` rooms of two seats, then
as many reads, in one process, on the memory store and on the SQLite store in each of its
sync modes (``off`` is measured only to show what ``normal`` costs beside it: a power loss
may corrupt a file written so). Reported per operation: the process's CPU time (every thread:
the checkpointer's syncs count), and the wall time on the event loop, median, 99th
percentile and the longest, the loop's longest stall; and each store's CPU per commit as a
multiple of the memory store's, measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from race.store import Store
from race.store.memory import MemoryStore
from race.store.sqlite import SqliteStore

STORES = ("memory", "sqlite-off", "sqlite-normal", "sqlite-full")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench-store",
        help="measure what a move's commit and read cost each embedded store",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--commits", type=int, default=20_000, help="commits per store (default 20000)")
    p.add_argument("--full-commits", type=int, default=2_000, help="commits with sync=full (default 2000)")
    p.add_argument("--rooms", type=int, default=20, help="rooms the commits go round (default 20)")
    p.add_argument("--seat-bytes", type=int, default=1500, help="size of a seat's document (default 1500)")
    p.add_argument("--stores", default=",".join(STORES), help=f"comma-separated, of {', '.join(STORES)}")
    p.set_defaults(func=run)


class Result:
    def __init__(self, name: str) -> None:
        self.name = name
        self.commit_cpu_us = self.read_cpu_us = 0.0
        self.walls_us: list[float] = []


async def measure(name: str, store: Store, commits: int, rooms: int, seat_bytes: int) -> Result:
    result = Result(name)
    seat, event = "s" * seat_bytes, "e" * 120
    codes = [f"BENCH{r}" for r in range(rooms)]
    versions: dict[tuple[str, str], int] = {}
    for code in codes:
        assert await store.commit(code, expect={}, write={"meta": "m" * 400, "p:s1": seat, "p:s2": seat})
        versions.update({(code, "p:s1"): 1, (code, "p:s2"): 1})
    walls = result.walls_us
    cpu = time.process_time()
    for i in range(commits):
        code, key = codes[i % rooms], ("p:s1", "p:s2")[(i // rooms) % 2]
        v = versions[code, key]
        start = time.perf_counter()
        ok = await store.commit(code, expect={"meta": 1, key: v}, write={key: seat}, log=(key, event), publish=event)
        walls.append((time.perf_counter() - start) * 1e6)
        assert ok
        versions[code, key] = v + 1
    result.commit_cpu_us = (time.process_time() - cpu) / commits * 1e6
    cpu = time.process_time()
    for i in range(commits):
        await store.read(codes[i % rooms], ["meta", "p:s1"])
    result.read_cpu_us = (time.process_time() - cpu) / commits * 1e6
    return result


async def run_all(args: argparse.Namespace, names: list[str]) -> list[Result]:
    results = []
    with tempfile.TemporaryDirectory(prefix="race-bench-store-") as tmp:
        for name in names:
            store: Store
            if name == "memory":
                store = MemoryStore(ttl=3600)
            else:
                store = SqliteStore(Path(tmp) / f"{name}.db", ttl=3600, sync=name.removeprefix("sqlite-"))
            await store.connect()
            try:
                commits = args.full_commits if name == "sqlite-full" else args.commits
                results.append(await measure(name, store, commits, args.rooms, args.seat_bytes))
            finally:
                await store.close()
    return results


def run(args: argparse.Namespace) -> int:
    names = [s.strip() for s in args.stores.split(",") if s.strip()]
    if unknown := [n for n in names if n not in STORES]:
        print(f"error: unknown stores {', '.join(unknown)}: use {', '.join(STORES)}")
        return 2
    print(
        f"Store benchmark: {args.commits:,} commits ({args.full_commits:,} with sync=full) of a "
        f"{args.seat_bytes:,}-byte seat with a log entry and a broadcast, over {args.rooms} rooms; "
        "then as many reads of meta and a seat",
        flush=True,
    )
    results = asyncio.run(run_all(args, names))
    memory = next((r.commit_cpu_us for r in results if r.name == "memory"), None)
    head = (
        f"{'store':<14} {'commit CPU us':>13} {'x memory':>8} {'wall p50 us':>11} {'p99 us':>8} "
        f"{'longest ms':>10} {'read CPU us':>11}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        walls = sorted(r.walls_us)
        times = f"{r.commit_cpu_us / memory:.1f}x" if memory else "-"
        print(
            f"{r.name:<14} {r.commit_cpu_us:>13.1f} {times:>8} {statistics.median(walls):>11.1f} "
            f"{walls[int(len(walls) * 0.99)]:>8.1f} {walls[-1] / 1000:>10.2f} {r.read_cpu_us:>11.1f}"
        )
    return 0
