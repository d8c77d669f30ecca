"""The load of ``python -m race bench``: the measured phases and the simulated clients.

A :class:`Phase` collects one phase's round trips and counts, :func:`measure` runs a phase's
workers for its time, and the workers are players (:func:`race_worker`, seated by
:func:`seat_players`) or echo clients (:func:`echo_worker`) on a :class:`Conn`.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .processes import CONNECT_TIMEOUT, cpu_seconds

_decode = msgspec.json.decode  # the client's share of the machine's CPU is part of every figure


def _encode(message: dict[str, Any]) -> str:
    return msgspec.json.encode(message).decode()


REPLY_TIMEOUT = 10.0
ECHO_SAMPLES = 300  # state replies kept per player for its echo client


# -- measuring ------------------------------------------------------------------------


@dataclass
class Phase:
    """One measured phase: round-trip samples (ms) and counts."""

    name: str
    rtts: list[float] = field(default_factory=list)
    done: int = 0
    errors: int = 0
    seconds: float = 0.0
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

    def record(self, started: float) -> None:
        if self.measuring:
            self.rtts.append((time.perf_counter() - started) * 1000)
            self.done += 1

    def refused(self) -> None:
        if self.measuring:
            self.errors += 1


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
                msg: dict[str, Any] = _decode(raw)
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
    played: int = 0  # moves (and undos) applied since this player's game was last restarted
    #: The player's first ``state`` replies, in order: what its echo client sends (see
    #: :func:`echo_message`).
    replies: list[str] = field(default_factory=list)


def choose(state: dict[str, Any], rng: random.Random, restart: bool = False) -> dict[str, Any]:
    """The next message of a player: a restart when ``restart`` says the game has run long
    enough, else a random non-shuffle legal move, else the shuffle, else undo when stuck, else
    restart."""
    legal = state["legal_moves"]
    version = state["version"]
    if restart:
        return {"type": "restart", "version": version}
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

    # No board reaches anyone before the start: each player fetches its own now.
    async def fetch(pl: Player) -> None:
        await pl.conn.send({"type": "sync"})
        state = await pl.conn.expect("state")
        if state["type"] == "error":
            raise RuntimeError(f"sync failed: {state}")
        pl.state = state

    await asyncio.gather(*map(fetch, players))


class Pacer:
    """The send schedule of one client: as fast as it can (``interval`` None: a closed loop,
    each send right after the previous reply), or one send every ``interval`` seconds from
    ``offset`` after its first :meth:`wait` on (an offered load). A client that falls behind
    sends at once, without a burst to catch up, so the phase's measured rate shows when the
    server could not keep up."""

    def __init__(self, interval: float | None, offset: float = 0.0) -> None:
        self.interval = interval
        self.offset = offset
        self.next_at: float | None = None

    async def wait(self) -> None:
        if self.interval is None:
            return
        if self.next_at is None:  # the schedule starts when the client does, spread by offset
            self.next_at = time.perf_counter() + self.offset
        delay = self.next_at - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        self.next_at = max(self.next_at + self.interval, time.perf_counter())


def pacers(clients: int, rate: float) -> list[Pacer]:
    """One :class:`Pacer` per client offering ``rate`` operations a second in all, their sends
    spread evenly; as fast as they can when ``rate`` is 0."""
    if rate <= 0:
        return [Pacer(None) for _ in range(clients)]
    interval = clients / rate
    return [Pacer(interval, interval * i / clients) for i in range(clients)]


def race_worker(pl: Player, phase: Phase, pacer: Pacer, game_length: int = 0) -> Callable[[asyncio.Event], Any]:
    """A player's moves: see :func:`choose`. With ``game_length`` the player restarts its game
    once it has applied that many moves and undos since the last restart: a random player
    would otherwise move cards to and fro for ever, one game for the whole run, so the
    figures would be of a game no person plays rather than of games of a real length."""

    async def work(stop: asyncio.Event) -> None:
        ws = pl.conn.ws
        while not stop.is_set():
            await pacer.wait()
            msg = choose(pl.state, pl.rng, restart=0 < game_length <= pl.played)
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
                phase.record(started)
                if len(pl.replies) < ECHO_SAMPLES:
                    pl.replies.append(raw)
                pl.state = reply
                pl.played = 0 if msg["type"] == "restart" else pl.played + 1
                continue
            phase.refused()
            if reply.get("code") == "stale":
                pl.state = reply["state"]
            elif reply.get("code") in ("finished", "resigned", "race_over"):
                return  # this player is out: it won (rare) or the race ended
            elif reply.get("code") == "too_many_moves":  # the history is full (MAX_GAME_MOVES):
                pl.state = {**pl.state, "legal_moves": [], "can_undo": False}  # restart next
            elif reply.get("code") in ("rate_limited", "busy", "unavailable"):
                await asyncio.sleep(0.05)  # a server with its limits on (--url): counted, then on
            else:
                raise RuntimeError(f"server refused {msg}: {reply}")

    return work


def echo_message(n: int, states: Sequence[str]) -> str:
    """An echo client's ``n``-th message (from 1): the next of a player's ``state`` replies
    (``states``, in the order received, over again when they run out), its type ``echo`` and
    numbered. Real replies rather than filler of their size, because permessage-deflate's cost
    depends on what it compresses: consecutive boards that differ by a card or two, in a real
    game. With no replies (the race made no move), 2,000 bytes of filler."""
    if not states:
        return _encode({"type": "echo", "n": n, "pad": "x" * 1970})
    state = states[(n - 1) % len(states)]
    return f'{{"type":"echo","n":{n},' + state.removeprefix('{"type":"state",')


def echo_worker(conn: Conn, phase: Phase, states: Sequence[str], pacer: Pacer) -> Callable[[asyncio.Event], Any]:
    """Send a player's ``state`` replies (:func:`echo_message`) and wait for each one's echo;
    copies fanned out to the group (type ``fan``) are skipped like a player skips broadcasts."""

    async def work(stop: asyncio.Event) -> None:
        ws = conn.ws
        n = 0
        while not stop.is_set():
            await pacer.wait()
            n += 1
            text = echo_message(n, states)
            started = time.perf_counter()
            await ws.send(text)
            async with asyncio.timeout(REPLY_TIMEOUT):
                while True:
                    reply = await ws.recv()
                    if not reply.startswith('{"type":"fan"'):
                        break
            _decode(reply)
            phase.record(started)

    return work
