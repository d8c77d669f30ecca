"""``python -m race bench-store``: what a move's commit and read cost each embedded store.

**Commits.** A move commits its seat's document (``--seat-bytes``, about a game's size) with a log entry
and a broadcast, expecting the versions of the room's meta and of that seat; a player coming
back reads both. This runs ``--commits`` such commits over ``--rooms`` rooms of two seats, then
as many reads, in one process, on the memory store and on the SQLite store in each of its
sync modes (``off`` is measured only to show what ``normal`` costs beside it: a power loss
may corrupt a file written so). Reported per operation: the process's CPU time (every thread:
the checkpointer's syncs count), and the wall time on the event loop, median, 99th
percentile and the longest, the loop's longest stall; and each store's CPU per commit as a
multiple of the memory store's, measured in the same run.

**Moves.** Then ``--moves`` real moves through the room service in this process, without
websockets: ``--players`` players in rooms of two, each playing as the server benchmark's
players do (a random legal move, a restart after 300). Reported: the CPU per move, and the
part of it spent in the store's calls.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from race.bench.load import choose
from race.store import Store
from race.store.memory import MemoryStore
from race.store.sqlite import SqliteStore
from race.wire import protocol as p

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
    p.add_argument("--moves", type=int, default=20_000, help="moves through the service per store (default 20000)")
    p.add_argument("--players", type=int, default=40, help="players of those moves, two a room (default 40)")
    p.set_defaults(func=run)


class Result:
    def __init__(self, name: str) -> None:
        self.name = name
        self.commit_cpu_us = self.read_cpu_us = self.move_cpu_us = self.move_store_us = 0.0
        self.walls_us: list[float] = []


def timed(store: Store) -> list[float]:
    """Add up the CPU time of ``store``'s calls (every thread's: the checkpointer's too), in
    the list returned."""
    spent = [0.0]
    for name in ("read", "read_all", "commit", "log_since", "presence", "spend", "record_put", "list_add"):
        method = getattr(store, name)

        async def call(*args: Any, _method: Any = method, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return await _method(*args, **kwargs)
            finally:
                spent[0] += time.process_time() - start

        setattr(store, name, call)
    return spent


async def play(result: Result, store: Store, moves: int, players: int) -> None:
    """``moves`` moves through the room service, played as the server benchmark's players play."""
    from race.app import wire
    from race.service import Session
    from race.settings import Settings

    spent = timed(store)
    settings = Settings(countdown_seconds=0, solver_node_limit=0, spectator_delay=0, rooms_per_minute_per_ip=1e9)
    service = wire(settings, store).service
    seats: list[tuple[Session, dict[str, Any], random.Random, list[int]]] = []
    for r in range(max(1, players // 2)):
        host, guest = Session(f"h{r}"), Session(f"g{r}")
        (joined,) = await service.handle(host, p.Create(name="Host", difficulty="medium", deal=r + 1))
        await service.handle(guest, p.Join(room=joined["room"]["code"], name="Guest"))
        await service.handle(host, p.Start())
        for session in (host, guest):
            state = (await service.handle(session, p.Sync()))[-1]
            seats.append((session, state, random.Random(r), [0]))
    spent[0], cpu = 0.0, time.process_time()
    for i in range(moves):
        session, state, rng, played = seats[i % len(seats)]
        msg = choose(state, rng, restart=played[0] >= 300)
        played[0] = 0 if msg["type"] == "restart" else played[0] + 1
        kind = {"move": p.Play, "undo": p.Undo, "restart": p.Restart}[msg.pop("type")]
        reply = (await service.handle(session, kind(**msg)))[-1]
        seats[i % len(seats)] = (session, reply, rng, played)
    result.move_cpu_us = (time.process_time() - cpu) / moves * 1e6
    result.move_store_us = spent[0] / moves * 1e6


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
                result = await measure(name, store, commits, args.rooms, args.seat_bytes)
                if args.moves > 0 and name in ("memory", "sqlite-normal"):
                    await play(result, store, args.moves, args.players)
                results.append(result)
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
    played = [r for r in results if r.move_cpu_us]
    if played:
        print(f"\n{args.moves:,} moves through the room service, {args.players} players, no websockets:")
        head = f"{'store':<14} {'CPU us/move':>11} {'x memory':>8} {'in the store':>12}"
        print(head)
        print("-" * len(head))
        base = next((r.move_cpu_us for r in played if r.name == "memory"), None)
        for r in played:
            times = f"{r.move_cpu_us / base:.2f}x" if base else "-"
            print(f"{r.name:<14} {r.move_cpu_us:>11.1f} {times:>8} {r.move_store_us:>12.1f}")
    return 0
