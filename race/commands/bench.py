"""``python -m race bench``: load the race server over real websockets and measure it.

With no ``--url`` the benchmark starts the server itself (``python -m race serve`` on a free
loopback port), once on each store of ``--stores``: the memory store, the durable SQLite
store (a file in a throwaway folder) and Redis (``--redis-url`` or ``REDIS_URL``, else a
throwaway ``redis-server`` on a free port) by default; with ``cluster``, also on a throwaway
Redis Cluster of three masters. For each server it runs:

1. **race**: ``--players`` simulated players in ``--rooms`` rooms create or join their room,
   the hosts start the races, and each player plays real legal moves for ``--seconds``: a
   random move of its ``state.legal_moves`` that is not ``shuffle`` when there is one, else the
   shuffle, else ``undo`` (stuck), else ``restart``; and it restarts its game after
   ``--game-length`` moves (300), as a real game ends (random moves to and fro would otherwise
   make one game last the whole run). Each player waits for the ``state`` reply
   of a move before it sends the next (a closed loop), so the load is the number of players
   and the server runs at its limit. With ``--rate`` the players instead offer that many
   moves a second in all, evenly spread (each still waits for its reply): the round trip at a
   load the server can carry, as a player feels it, rather than the queueing at the limit.
   Reported: validated moves per second (every move, undo or restart the server applied), the
   move round trip (send a move, receive its ``state``) p50 / p99, and the CPU time the server
   process and this client used per move.
2. **echo**: the same number of clients, with the same client code, send the ``state``
   replies their players received in the race (typed ``echo``: the same sizes, and the same
   content for permessage-deflate to compress) to a bare websocket echo route of the same
   server process (same uvicorn, same settings; the route exists only when ``BENCH_ECHO=1``):
   the cost of the transport alone, at the same load (the same ``--rate``, when given).
3. **fan-out**: the same, but the echo route also sends a copy of each message to every
   other client of its group (``?group=``, grouped like the rooms): the race's pattern of
   frames (a reply to the mover, a broadcast to the rest of the room) without the game and
   the store.

   The race and the echoes take turns in ``--rounds`` slices of each phase, so all see the
   same conditions on a machine whose load varies.
4. **spectators**: ``--spectators`` idle connections that each ``watch`` a room; the server
   process's memory growth (``VmRSS`` in ``/proc/PID/status``) divided by their number.
5. **crowd**: ``--crowd`` spectators watch one room whose one player makes ``--crowd-moves``
   moves, one a second; then as many listeners of one fan-out echo group are sent the
   spectators' messages at the same pace. Reported: the server's CPU per recipient of a
   message, and the time from a move (or a message) to the last recipient's frame.

The spawned servers run with a 0 s countdown, with the per-connection rate limit and the
per-address connection limit lifted (every simulated client comes from 127.0.0.1, and each
player sends far more than a person would), and without the daily warm-up (its solver would
spend a core while the bench measures). Everything stays on the loopback interface, every
loop is bounded in time, and the servers it started are stopped at the end.

With ``--url`` it benchmarks a running server instead (its own limits apply; no echo
comparison unless ``--echo-url`` names an echo route, no CPU or memory figures unless
``--server-pid`` is given).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from race.bench.crowd import crowd_phases
from race.bench.load import (
    Conn,
    Phase,
    Progress,
    echo_worker,
    measure,
    pacers,
    race_worker,
    seat_players,
    start_races,
)
from race.bench.processes import (
    DEFLATE_IDLE,
    race_server,
    raise_fd_limit,
    redis_cluster,
    redis_server,
    rss_kib,
    server_compression,
)
from race.bench.report import ServerResult, as_json, goals, table

ECHO_PATH = "/bench/echo"
STORES = ("memory", "sqlite", "redis", "cluster")
GAME_LENGTH = 300  # the solver wins medium deals in 116-194 moves; a person takes more


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="load the race server over websockets and measure it",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--players", type=int, default=40, help="simulated players (default 40)")
    p.add_argument("--rooms", type=int, default=20, help="rooms the players are spread over (default 20)")
    p.add_argument("--seconds", type=float, default=10.0, help="measured length of each phase (default 10)")
    p.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each phase (default 1)")
    p.add_argument(
        "--rate",
        type=float,
        default=0,
        help="moves (and echoes) offered per second in all, instead of as fast as the clients can (default)",
    )
    p.add_argument("--moves", type=int, default=0, help="stop a phase after this many moves (default: no cap)")
    p.add_argument(
        "--rounds", type=int, default=5, help="slices each phase is measured in, race and echo in turn (default 5)"
    )
    p.add_argument(
        "--game-length",
        type=int,
        default=GAME_LENGTH,
        help=f"moves after which a player restarts its game, as a real game ends (default {GAME_LENGTH}; 0: never)",
    )
    p.add_argument("--spectators", type=int, default=1000, help="idle spectator connections (default 1000)")
    p.add_argument(
        "--crowd", type=int, default=1000, help="spectators of one room in the crowd phase (default 1000; 0: none)"
    )
    p.add_argument(
        "--crowd-moves", type=int, default=10, help="moves measured in the crowd phase, one a second (default 10)"
    )
    p.add_argument("--crowd-rate", type=float, default=1.0, help="moves a second in the crowd phase (default 1)")
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="medium")
    p.add_argument("--seed", type=int, default=1, help="seed of the players' move choices (default 1)")
    p.add_argument(
        "--stores",
        default="memory,sqlite,redis",
        help=f"comma-separated stores to run the server on: {', '.join(STORES)} (cluster: a Redis Cluster of "
        "three masters it starts; default memory,sqlite,redis)",
    )
    env_redis = os.environ.get("REDIS_URL", "")
    p.add_argument(
        "--redis-url",
        default=env_redis if env_redis.startswith("redis") else None,
        help="Redis to use (default: REDIS_URL when it is a Redis URL, else start one)",
    )
    p.add_argument(
        "--compression",
        choices=["deflate", "none"],
        default="deflate",
        help="offer permessage-deflate like a browser does (default), or not",
    )
    p.add_argument("--url", help="benchmark the running server at this ws:// URL instead of starting one")
    p.add_argument("--echo-url", help="with --url: a ws:// echo route to compare against")
    p.add_argument("--server-pid", type=int, help="with --url: the server's process id, for the CPU and memory figures")
    p.add_argument("--json", dest="json_out", help="also write the results to this file as JSON")
    p.set_defaults(func=run)


# -- one server's run -----------------------------------------------------------------


async def bench_server(
    label: str, ws_url: str, echo_url: str | None, pid: int | None, args: argparse.Namespace, progress: Progress
) -> ServerResult:
    compression = None if args.compression == "none" else "deflate"
    result = ServerResult(label, Phase(f"race ({label})"))
    progress.note(f"{label}: seating {args.players} players in {args.rooms} rooms")
    players, codes = await seat_players(ws_url, args.players, args.rooms, args.difficulty, args.seed, compression)
    conns: list[Conn] = []  # the echo clients, then the fan-out echo clients
    try:
        await start_races(players)
        fans: list[Conn] = []
        if echo_url is not None:
            result.echo = Phase(f"echo ({label})")
            result.fanout = Phase(f"fan-out ({label})")
            conns += await asyncio.gather(*(Conn.open(echo_url, compression) for _ in range(args.players)))
            # The fan-out echo groups its clients like the players' rooms.
            groups = [f"{label}-{pl.name[: pl.name.index('p')]}" for pl in players]
            fans = list(await asyncio.gather(*(Conn.open(f"{echo_url}?group={g}", compression) for g in groups)))
            conns += fans
        # The race and the echoes take turns in short slices, so that all see the same
        # conditions on a machine whose load changes from second to second.
        rounds = max(1, args.rounds)
        slice_s = args.seconds / rounds
        for i in range(rounds):
            warmup = args.warmup if i == 0 else min(args.warmup, 0.3)
            paced = pacers(len(players), args.rate)
            race_workers = [
                race_worker(pl, result.race, pc, args.game_length) for pl, pc in zip(players, paced, strict=True)
            ]
            await measure(result.race, race_workers, warmup, slice_s, args.moves, progress, pid)
            if result.echo is not None and result.fanout is not None:
                # Echo client i sends what player i received: the same messages, the same sizes.
                echoes = conns[: len(players)]
                echo_pacers, fan_pacers = pacers(len(echoes), args.rate), pacers(len(fans), args.rate)
                echo_workers = [
                    echo_worker(c, result.echo, pl.replies, pc)
                    for c, pl, pc in zip(echoes, players, echo_pacers, strict=True)
                ]
                await measure(result.echo, echo_workers, warmup, slice_s, args.moves, progress, pid)
                fan_workers = [
                    echo_worker(c, result.fanout, pl.replies, pc)
                    for c, pl, pc in zip(fans, players, fan_pacers, strict=True)
                ]
                await measure(result.fanout, fan_workers, warmup, slice_s, args.moves, progress, pid)
    finally:
        await asyncio.gather(*(pl.conn.close() for pl in players), *(c.close() for c in conns))
    if pid is not None and args.spectators > 0:
        result.spectators = args.spectators
        result.kib_per_connection = await hold_spectators(
            ws_url, codes, pid, args.spectators, compression, progress, 1.0 if args.url else 2 * DEFLATE_IDLE + 1
        )
    if args.crowd > 0:
        progress.note(
            f"{label}: {args.crowd:,} spectators of one room, {args.crowd_moves} moves at {args.crowd_rate:g}/s"
        )
        result.crowd, result.crowd_echo = await crowd_phases(
            label, ws_url, echo_url, pid, args.crowd, args.crowd_moves, 1 / args.crowd_rate, args.seed, compression
        )
    return result


async def hold_spectators(
    url: str, codes: list[str], pid: int, count: int, compression: str | None, progress: Progress, settle: float
) -> float:
    """Each idle spectator's share of the server's memory, measured ``settle`` seconds after
    the last began to watch."""
    await asyncio.sleep(0.5)
    before = rss_kib(pid)
    conns: list[Conn] = []
    watching = [0]
    sem = asyncio.Semaphore(100)

    async def one(i: int) -> None:
        async with sem:
            c = await Conn.open(url, compression)
            conns.append(c)
            await c.expect("hello")
            await c.send({"type": "watch", "room": codes[i % len(codes)]})
            reply = await c.expect("watching")
            if reply["type"] == "error":
                raise RuntimeError(f"watch failed: {reply}")
            watching[0] += 1
            if watching[0] % 100 == 0:
                progress.show(f"  spectators: {watching[0]:,}/{count:,} watching")

    try:
        await asyncio.gather(*(one(i) for i in range(count)))
        # Idle: the last presence news has gone out (a second after the last arrival), and the
        # server has dropped their compression contexts (unused for DEFLATE_IDLE, rested every half of it).
        await asyncio.sleep(settle)
        after = rss_kib(pid)
    finally:
        progress.done()
        for k in range(0, len(conns), 200):
            await asyncio.gather(*(c.close() for c in conns[k : k + 200]))
    return (after - before) / count


# -- the command ----------------------------------------------------------------------


async def run_all(args: argparse.Namespace, progress: Progress) -> list[ServerResult]:
    results: list[ServerResult] = []
    if args.url:
        results.append(await bench_server("server", args.url, args.echo_url, args.server_pid, args, progress))
        return results
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    for s in stores:
        if s not in STORES:
            raise SystemExit(f"unknown store {s!r}: use {', '.join(STORES)}")
    with tempfile.TemporaryDirectory(prefix="race-bench-") as tmp:
        workdir = Path(tmp)
        for store in stores:
            with contextlib.ExitStack() as stack:
                if store == "memory":
                    url = "memory://"
                elif store == "sqlite":
                    url = f"sqlite://{workdir / 'bench.db'}"
                elif store == "cluster":
                    url = stack.enter_context(redis_cluster(workdir))
                elif args.redis_url:
                    url = args.redis_url
                else:
                    url = stack.enter_context(redis_server(workdir))
                base, pid = stack.enter_context(race_server(url, args.spectators, workdir))
                results.append(await bench_server(store, base + "/ws", base + ECHO_PATH, pid, args, progress))
    return results


def run(args: argparse.Namespace) -> int:
    if args.players < 1 or args.rooms < 1 or args.rooms > args.players:
        print("error: need at least one player per room")
        return 2
    if args.crowd_rate <= 0:
        print("error: --crowd-rate must be more than 0")
        return 2
    if args.rate < 0:
        print("error: --rate must be 0 (as fast as possible) or more")
        return 2
    if args.players > 8 * args.rooms:
        print("error: a room holds at most 8 players")
        return 2
    raise_fd_limit(2 * (args.players + args.spectators + args.crowd) + 256)
    progress = Progress()
    load = f"{args.rate:,.0f} moves/s offered" if args.rate > 0 else "as fast as they can"
    print(
        f"Race server benchmark: {args.players} players in {args.rooms} rooms, {load}, {args.warmup:g} s warm-up + "
        f"{args.seconds:g} s per phase, {args.spectators} spectators, compression {args.compression}"
        f"{'' if args.url else ' (server: WS_COMPRESSION=' + server_compression() + ')'}; "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs",
        flush=True,
    )
    try:
        import uvloop

        runner: Callable[..., Any] = uvloop.run
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        runner = asyncio.run
    try:
        results = runner(run_all(args, progress))
    except RuntimeError as exc:
        progress.note(f"error: {exc}")
        return 1
    print(table(results))
    for line in goals(results, args.rate):
        print(line)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(as_json(results, args), indent=2) + "\n")
    return 0
