"""``python -m race bench``: load the race server over real websockets and measure it.

With no ``--url`` the benchmark starts the server itself (``python -m race serve`` on a free
loopback port), once with the embedded store and once with Redis (``--redis-url`` or
``REDIS_URL``, else a throwaway ``redis-server`` on a free port). For each server it runs:

1. **race**: ``--players`` simulated players in ``--rooms`` rooms create or join their room,
   the hosts start the races, and each player plays real legal moves for ``--seconds``: a
   random move of its ``state.legal_moves`` that is not ``shuffle`` when there is one, else the
   shuffle, else ``undo`` (stuck), else ``restart``. Each player waits for the ``state`` reply
   of a move before it sends the next (a closed loop), so the load is the number of players.
   Reported: validated moves per second (every move, undo or restart the server applied), the
   move round trip (send a move, receive its ``state``) p50 / p99, and the CPU time the server
   process and this client used per move.
2. **echo**: the same number of clients, with the same client code, send messages of the
   size of a ``state`` reply to a bare websocket echo route of the same server process (same
   uvicorn, same settings; the route exists only when ``BENCH_ECHO=1``): the cost of the
   transport alone, at the same load.
3. **fan-out**: the same, but the echo route also sends a copy of each message to every
   other client of its group (``?group=``, grouped like the rooms): the race's pattern of
   frames (a reply to the mover, a broadcast to the rest of the room) without the game and
   the store.

   The race and the echoes take turns in ``--rounds`` slices of each phase, so all see the
   same conditions on a machine whose load varies.
4. **spectators**: ``--spectators`` idle connections that each ``watch`` a room; the server
   process's memory growth (``VmRSS`` in ``/proc/PID/status``) divided by their number.

The spawned servers run with a 0 s countdown, and with the per-connection rate limit and the
per-address connection limit lifted (every simulated client comes from 127.0.0.1, and each
player sends far more than a person would). Everything stays on the loopback interface, every
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
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parent.parent.parent
_decode = msgspec.json.decode  # the client's share of the machine's CPU is part of every figure


def _encode(message: dict[str, Any]) -> str:
    return msgspec.json.encode(message).decode()


ECHO_PATH = "/bench/echo"
CONNECT_TIMEOUT = 20.0
REPLY_TIMEOUT = 10.0


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
    p.add_argument("--moves", type=int, default=0, help="stop a phase after this many moves (default: no cap)")
    p.add_argument(
        "--rounds", type=int, default=5, help="slices each phase is measured in, race and echo in turn (default 5)"
    )
    p.add_argument("--spectators", type=int, default=1000, help="idle spectator connections (default 1000)")
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="medium")
    p.add_argument("--seed", type=int, default=1, help="seed of the players' move choices (default 1)")
    p.add_argument(
        "--stores",
        default="memory,redis",
        help="comma-separated stores to run the server on: memory, redis (default both)",
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


# -- measuring ------------------------------------------------------------------------


@dataclass
class Phase:
    """One measured phase: round-trip samples (ms) and counts."""

    name: str
    rtts: list[float] = field(default_factory=list)
    done: int = 0
    errors: int = 0
    seconds: float = 0.0
    reply_bytes: int = 0
    measuring: bool = False
    server_cpu: float | None = None  # CPU seconds the server process used while measuring
    client_cpu: float = 0.0  # and this process

    def per_op_us(self, cpu: float | None) -> float | None:
        return None if cpu is None or not self.done else cpu / self.done * 1e6

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        if not self.rtts:
            return float("nan")
        ordered = sorted(self.rtts)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    def record(self, started: float, size: int) -> None:
        if self.measuring:
            self.rtts.append((time.perf_counter() - started) * 1000)
            self.done += 1
            self.reply_bytes += size


class Progress:
    """A one-line progress display on a terminal (a line a second otherwise), on stderr."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()

    def show(self, text: str) -> None:
        if self.tty:
            sys.stderr.write("\r\x1b[2K" + text)
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        if self.tty:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()

    def note(self, text: str) -> None:
        self.done()
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


async def measure(
    phase: Phase,
    workers: list[Callable[[asyncio.Event], Any]],
    warmup: float,
    seconds: float,
    cap: int,
    progress: Progress,
    pid: int | None = None,
) -> None:
    """Run every worker until ``warmup + seconds`` passed (or ``cap`` measured operations),
    measuring only after the warm-up; show progress once a second. With ``pid``, also the
    CPU time that process used meanwhile."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(w(stop)) for w in workers]
    try:
        t0 = time.perf_counter()
        await asyncio.sleep(warmup)
        phase.measuring = True
        start = time.perf_counter()
        cpu0, server0 = time.process_time(), cpu_seconds(pid)
        base = phase.seconds  # a phase may be measured in several slices: they add up
        while True:
            await asyncio.sleep(min(1.0, max(0.0, seconds - (time.perf_counter() - start))))
            elapsed = time.perf_counter() - start
            phase.seconds = base + elapsed
            progress.show(
                f"  {phase.name}: {elapsed:4.1f}/{seconds:g} s  {phase.done:,} done  "
                f"{phase.rate:,.0f}/s  p50 {phase.pct(0.5):.2f} ms"
            )
            if elapsed >= seconds or (cap and phase.done >= cap) or all(t.done() for t in tasks):
                break
            if time.perf_counter() - t0 > warmup + seconds + 60:  # pragma: no cover - safety net
                break
        phase.measuring = False
        phase.seconds = base + time.perf_counter() - start
        phase.client_cpu += time.process_time() - cpu0
        server1 = cpu_seconds(pid)
        if server0 is not None and server1 is not None:
            phase.server_cpu = (phase.server_cpu or 0.0) + server1 - server0
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        progress.done()
    for t in tasks:
        if not t.cancelled() and t.exception() is not None:
            progress.note(f"  a {phase.name} client failed: {t.exception()!r}")


# -- the clients ----------------------------------------------------------------------


class Conn:
    """A websocket client that reads JSON messages, skipping broadcasts it does not wait for."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, url: str, compression: str | None) -> Conn:
        from websockets.asyncio.client import connect

        ws = await connect(
            url, max_size=2**22, compression=compression, ping_interval=None, open_timeout=CONNECT_TIMEOUT
        )
        return cls(ws)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(_encode(message))

    async def expect(self, *types: str) -> dict[str, Any]:
        """The next message of one of ``types`` (or an error); others are skipped."""
        async with asyncio.timeout(REPLY_TIMEOUT):
            while True:
                raw = await self.ws.recv()
                msg = _decode(raw)
                if msg.get("type") in types or msg.get("type") == "error":
                    return msg

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()


@dataclass
class Player:
    conn: Conn
    name: str
    state: dict[str, Any]
    rng: random.Random
    host: bool


def choose(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The next message of a player: a random non-shuffle legal move, else the shuffle, else
    undo when stuck, else restart."""
    legal = state["legal_moves"]
    version = state["version"]
    cards = [m for m in legal if m != "shuffle"]
    if cards:
        return {"type": "move", "move": rng.choice(cards), "version": version}
    if legal:
        return {"type": "move", "move": legal[0], "version": version}
    if state["can_undo"]:
        return {"type": "undo", "version": version}
    return {"type": "restart", "version": version}


async def seat_players(
    url: str, players: int, rooms: int, difficulty: str, seed: int, compression: str | None
) -> tuple[list[Player], list[str]]:
    """Open every player's connection, create the rooms and join them; return the players
    (hosts first in each room) and the room codes."""
    rng = random.Random(seed)
    per_room = [players // rooms + (1 if r < players % rooms else 0) for r in range(rooms)]
    out: list[Player] = []
    codes: list[str] = []
    sem = asyncio.Semaphore(50)

    async def seat(room: int, count: int) -> tuple[str, list[Player]]:
        async with sem:
            conn = await Conn.open(url, compression)
            await conn.expect("hello")
            await conn.send({"type": "create", "name": f"r{room}p1", "difficulty": difficulty, "deal": room + 1})
            joined = await conn.expect("joined")
            if joined["type"] == "error":
                raise RuntimeError(f"create failed: {joined}")
            code = joined["room"]["code"]
            members = [Player(conn, f"r{room}p1", joined["state"], random.Random(rng.random()), True)]
            for k in range(2, count + 1):
                c = await Conn.open(url, compression)
                await c.expect("hello")
                await c.send({"type": "join", "room": code, "name": f"r{room}p{k}"})
                j = await c.expect("joined")
                if j["type"] == "error":
                    raise RuntimeError(f"join failed: {j}")
                members.append(Player(c, f"r{room}p{k}", j["state"], random.Random(rng.random()), False))
            return code, members

    results = await asyncio.gather(*(seat(r, n) for r, n in enumerate(per_room) if n))
    for code, members in results:
        codes.append(code)
        out += members
    return out, codes


async def start_races(players: list[Player]) -> None:
    """Hosts start their rooms; wait until every room's race is on (by the server's clock)."""
    waits = []
    for pl in players:
        if pl.host:
            await pl.conn.send({"type": "start"})
    for pl in players:
        if pl.host:
            while True:
                msg = await pl.conn.expect("room")
                if msg["type"] == "error":
                    raise RuntimeError(f"start failed: {msg}")
                room = msg["room"]
                if room["phase"] in ("countdown", "racing"):
                    waits.append(max(0, room["start_at"] - room["server_time"]) / 1000)
                    break
    await asyncio.sleep(max(waits, default=0) + 0.05)


def race_worker(pl: Player, phase: Phase) -> Callable[[asyncio.Event], Any]:
    async def work(stop: asyncio.Event) -> None:
        ws = pl.conn.ws
        while not stop.is_set():
            msg = choose(pl.state, pl.rng)
            started = time.perf_counter()
            await ws.send(_encode(msg))
            async with asyncio.timeout(REPLY_TIMEOUT):
                while True:
                    raw = await ws.recv()
                    # Broadcasts (``player``) to this player are skipped without decoding.
                    head = raw[:24]
                    if '"type":"state"' in head or '"type":"error"' in head:
                        break
            reply = _decode(raw)
            if reply["type"] == "state":
                phase.record(started, len(raw))
                pl.state = reply
                continue
            phase.errors += 1
            if reply.get("code") == "stale":
                pl.state = reply["state"]
            elif reply.get("code") in ("finished", "resigned", "race_over"):
                return  # this player is out: it won (rare) or the race ended
            elif reply.get("code") in ("rate_limited", "busy", "unavailable"):
                await asyncio.sleep(0.05)  # a server with its limits on (--url): counted, then on
            else:
                raise RuntimeError(f"server refused {msg}: {reply}")

    return work


def echo_worker(conn: Conn, phase: Phase, size: int) -> Callable[[asyncio.Event], Any]:
    """Send ``size``-byte messages and wait for each one's echo; copies fanned out to the
    group (type ``fan``) are skipped like a player skips broadcasts."""

    async def work(stop: asyncio.Event) -> None:
        ws = conn.ws
        n = 0
        pad = "x" * max(0, size - 40)
        while not stop.is_set():
            n += 1
            text = _encode({"type": "echo", "n": n, "pad": pad})
            started = time.perf_counter()
            await ws.send(text)
            async with asyncio.timeout(REPLY_TIMEOUT):
                while True:
                    reply = await ws.recv()
                    if not reply.startswith('{"type":"fan"'):
                        break
            _decode(reply)
            phase.record(started, len(reply))

    return work


# -- the server processes -------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = CONNECT_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited:\n{log.read_text(errors='replace')[-2000:]}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} after {timeout:g} s")


@contextlib.contextmanager
def child(args: list[str], port: int, env: dict[str, str] | None, workdir: Path) -> Iterator[subprocess.Popen[bytes]]:
    log = workdir / f"{Path(args[0]).name}-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    try:
        wait_port(port, proc, log)
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@contextlib.contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("redis-server is not installed: give --redis-url, or run with --stores memory")
    port = free_port()
    args = [exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir), "--save", ""]
    args += ["--appendonly", "no"]
    with child(args, port, None, workdir):
        yield f"redis://127.0.0.1:{port}/0"


@contextlib.contextmanager
def race_server(store_url: str, spectators: int, workdir: Path) -> Iterator[tuple[str, int]]:
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": store_url,
        "COUNTDOWN_SECONDS": "0",
        "RATE_LIMIT_PER_SECOND": "1000000",
        "RATE_LIMIT_BURST": "1000000",
        "MAX_CONNECTIONS_PER_IP": str(10 * spectators + 10_000),
        "ROOM_TTL_SECONDS": "900",
        "LOG_LEVEL": "WARNING",
        "BENCH_ECHO": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    args = [sys.executable, "-m", "race", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with child(args, port, env, workdir) as proc:
        yield f"ws://127.0.0.1:{port}", proc.pid


def server_compression() -> str:
    """The ``WS_COMPRESSION`` the servers this command starts will run with."""
    from race.settings import Settings

    return Settings.from_env().ws_compression


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process so far (``/proc/PID/stat``), or None."""
    if pid is None:
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def raise_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


# -- one server's run -----------------------------------------------------------------


@dataclass
class ServerResult:
    label: str
    race: Phase
    echo: Phase | None = None
    fanout: Phase | None = None
    spectators: int = 0
    kib_per_connection: float | None = None


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
            race_workers = [race_worker(pl, result.race) for pl in players]
            await measure(result.race, race_workers, warmup, slice_s, args.moves, progress, pid)
            if result.echo is not None and result.fanout is not None:
                size = result.race.reply_bytes // max(1, result.race.done) or 2000
                echo_workers = [echo_worker(c, result.echo, size) for c in conns[: len(players)]]
                await measure(result.echo, echo_workers, warmup, slice_s, args.moves, progress, pid)
                fan_workers = [echo_worker(c, result.fanout, size) for c in fans]
                await measure(result.fanout, fan_workers, warmup, slice_s, args.moves, progress, pid)
    finally:
        await asyncio.gather(*(pl.conn.close() for pl in players), *(c.close() for c in conns))
    if pid is not None and args.spectators > 0:
        result.spectators = args.spectators
        result.kib_per_connection = await hold_spectators(ws_url, codes, pid, args.spectators, compression, progress)
    return result


async def hold_spectators(
    url: str, codes: list[str], pid: int, count: int, compression: str | None, progress: Progress
) -> float:
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
        await asyncio.sleep(1.0)
        after = rss_kib(pid)
    finally:
        progress.done()
        for k in range(0, len(conns), 200):
            await asyncio.gather(*(c.close() for c in conns[k : k + 200]))
    return (after - before) / count


# -- the report -----------------------------------------------------------------------


def table(results: list[ServerResult]) -> str:
    """The results: "ops/s" is validated moves (race) or echoed messages per second; the
    ratios compare round trips with the echo's and the fan-out echo's; "CPU us/op" is the CPU
    time per operation of the server process and of this client; "ops/s/core" is what the
    server process would do with one core to itself (1 s / its CPU time per operation)."""

    def ratio(a: Phase, b: Phase | None, q: float) -> str:
        return f"{a.pct(q) / b.pct(q):.2f}x" if b is not None and b.rtts and a.rtts else "-"

    def num(value: float | None) -> str:
        return "-" if value is None else f"{value:,.0f}"

    head = (
        f"{'phase':<16} {'ops/s':>6} {'p50 ms':>7} {'p99 ms':>7} {'p50/echo':>8} {'p99/echo':>8} "
        f"{'p50/fan':>7} {'p99/fan':>7} {'srv CPU us/op':>13} {'cli CPU us/op':>13} {'ops/s/core':>10} {'err':>4}"
    )
    lines = [head, "-" * len(head)]
    for r in results:
        for ph in (r.race, r.echo, r.fanout):
            if ph is None:
                continue
            race = ph is r.race
            srv = ph.per_op_us(ph.server_cpu)
            lines.append(
                f"{ph.name:<16} {ph.rate:>6,.0f} {ph.pct(0.5):>7.2f} {ph.pct(0.99):>7.2f} "
                f"{ratio(ph, r.echo, 0.5) if race else '-':>8} {ratio(ph, r.echo, 0.99) if race else '-':>8} "
                f"{ratio(ph, r.fanout, 0.5) if race else '-':>7} {ratio(ph, r.fanout, 0.99) if race else '-':>7} "
                f"{num(srv):>13} {num(ph.per_op_us(ph.client_cpu)):>13} {num(1e6 / srv if srv else None):>10} "
                f"{ph.errors:>4}"
            )
    mems = [r for r in results if r.kib_per_connection is not None]
    if mems:
        lines.append("")
        for r in mems:
            lines.append(
                f"connections held ({r.label}): {r.spectators:,} idle spectators, "
                f"{r.kib_per_connection:.1f} KiB of server RSS each"
            )
    return "\n".join(lines)


def goals(results: list[ServerResult]) -> list[str]:
    out = []
    for r in results:
        if r.echo is not None and r.echo.rtts and r.race.rtts:
            ok = r.race.pct(0.5) <= 2 * r.echo.pct(0.5) and r.race.pct(0.99) <= 2 * r.echo.pct(0.99)
            out.append(f"goal: {r.label} move round trip <= 2x echo (p50 and p99): {'met' if ok else 'NOT met'}")
        if r.label == "redis":
            ok = r.race.rate >= 3000
            srv = r.race.per_op_us(r.race.server_cpu)
            core = f"; {1e6 / srv:,.0f}/s with a core to itself" if srv else ""
            out.append(
                f"goal: >= 3,000 validated moves/s with Redis: {'met' if ok else 'NOT met'} ({r.race.rate:,.0f}{core})"
            )
    return out


def as_json(results: list[ServerResult], args: argparse.Namespace) -> dict[str, Any]:
    def ph(p: Phase | None) -> dict[str, Any] | None:
        if p is None:
            return None
        return {
            "rate": p.rate,
            "done": p.done,
            "errors": p.errors,
            "seconds": p.seconds,
            "p50_ms": p.pct(0.5),
            "p99_ms": p.pct(0.99),
        }

    return {
        "players": args.players,
        "rooms": args.rooms,
        "seconds": args.seconds,
        "compression": args.compression,
        "results": [
            {
                "label": r.label,
                "race": ph(r.race),
                "echo": ph(r.echo),
                "fanout": ph(r.fanout),
                "spectators": r.spectators,
                "kib_per_connection": r.kib_per_connection,
            }
            for r in results
        ],
    }


# -- the command ----------------------------------------------------------------------


async def run_all(args: argparse.Namespace, progress: Progress) -> list[ServerResult]:
    results: list[ServerResult] = []
    if args.url:
        results.append(await bench_server("server", args.url, args.echo_url, args.server_pid, args, progress))
        return results
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    for s in stores:
        if s not in ("memory", "redis"):
            raise SystemExit(f"unknown store {s!r}: use memory and/or redis")
    with tempfile.TemporaryDirectory(prefix="race-bench-") as tmp:
        workdir = Path(tmp)
        for store in stores:
            with contextlib.ExitStack() as stack:
                if store == "memory":
                    url = "memory://"
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
    if args.players > 8 * args.rooms:
        print("error: a room holds at most 8 players")
        return 2
    raise_fd_limit(2 * (args.players + args.spectators) + 256)
    progress = Progress()
    print(
        f"Race server benchmark: {args.players} players in {args.rooms} rooms, {args.warmup:g} s warm-up + "
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
    for line in goals(results):
        print(line)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(as_json(results, args), indent=2) + "\n")
    return 0
