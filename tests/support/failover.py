"""Live rooms through a Redis failover: two server processes, rooms whose player moves on one
and whose rival and spectator watch from the other, moves that go on (sent again with their
``id`` while the store is unavailable), and what the tests check afterwards: when live
updates came back, that no acknowledged move was lost, and which connections each server
process holds on each Redis (``CLIENT LIST``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

from tests.support.clusters import clients
from tests.support.processes import Client, Server

#: Seconds a player waits before sending a move again that got ``unavailable``, as a page does.
RETRY = 0.1
#: Seconds between a player's moves.
PACE = 0.05


@dataclass
class LiveRoom:
    """A race: Ann plays on server ``a``; Bob (a rival) and a spectator watch from ``b``."""

    code: str
    ann: Client
    bob: Client
    watcher: Client
    state: dict[str, Any]  # Ann's latest state
    acked: list[tuple[int, float]] = field(default_factory=list)  # Ann's acknowledged versions, and when
    seen: dict[str, list[tuple[int, float]]] = field(default_factory=dict)  # observer -> Ann's versions seen live
    resyncs: int = 0  # resyncs its observers were sent
    refused: int = 0  # moves Ann was told were unavailable

    @property
    def version(self) -> int:
        return int(self.state["version"])

    def resumed(self, since: float) -> float | None:
        """When both observers had seen live a move acknowledged after ``since`` (None: not yet)."""
        after = {v for v, t in self.acked if t > since}
        times = [min((t for v, t in seen if v in after), default=None) for seen in self.seen.values()]
        return None if len(times) < 2 or None in times else max(t for t in times if t is not None)


async def open_room(a: Server, b: Server) -> LiveRoom:
    ann = await Client.connect(a.ws_url)
    joined = await ann.request({"type": "create", "name": "Ann", "difficulty": "easy", "deal": 3}, "joined")
    code = joined["room"]["code"]
    bob = await Client.connect(b.ws_url)
    assert (await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined"))["type"] == "joined"
    watcher = await Client.connect(b.ws_url)
    assert (await watcher.request({"type": "watch", "room": code}, "watching"))["type"] == "watching"
    await ann.send({"type": "start"})
    await bob.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    return LiveRoom(code, ann, bob, watcher, await ann.started())


async def move(room: LiveRoom, deadline: float) -> None:
    """Ann's next move, sent again with the same ``id`` while the store is unavailable, until
    it is acknowledged (or the loop's time passes ``deadline``)."""
    loop = asyncio.get_running_loop()
    message = {
        "type": "move",
        "move": room.state["legal_moves"][0],
        "version": room.version,
        "id": f"m{room.version}",
    }
    while True:
        reply = await room.ann.request(message, "state")
        if reply["type"] == "state":
            room.state = reply
            room.acked.append((reply["version"], loop.time()))
            return
        assert reply.get("code") == "unavailable", reply
        room.refused += 1
        assert loop.time() < deadline, f"room {room.code}: moves refused for too long"
        await asyncio.sleep(RETRY)


async def observe(room: LiveRoom, name: str, client: Client) -> None:
    """Note each of Ann's versions ``client`` sees live; answer a ``resync`` with ``sync``, as a
    page does."""
    loop = asyncio.get_running_loop()
    seen = room.seen.setdefault(name, [])
    while True:
        m = await client.expect("player", "resync", timeout=3600)
        if m["type"] == "resync":
            room.resyncs += 1
            await client.send({"type": "sync"})
        elif m["player"]["seat"] == "s1":
            seen.append((m["player"]["version"], loop.time()))


@contextlib.asynccontextmanager
async def traffic(rooms: Iterable[LiveRoom], deadline: float) -> AsyncIterator[None]:
    """Ann keeps moving in every room (every :data:`PACE` s), and the observers keep watching,
    until the block ends; then each player's move under way is acknowledged before it stops."""
    rooms = list(rooms)
    stop = asyncio.Event()

    async def keep_moving(room: LiveRoom) -> None:
        while not stop.is_set():
            await move(room, deadline)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(PACE):
                    await stop.wait()

    movers = [asyncio.create_task(keep_moving(r)) for r in rooms]
    observers = [
        asyncio.create_task(observe(r, n, c)) for r in rooms for n, c in (("bob", r.bob), ("watcher", r.watcher))
    ]
    try:
        yield
        stop.set()
        await asyncio.gather(*movers)  # (raises what a mover raised)
        failed = [t for t in observers if t.done() and not t.cancelled() and t.exception()]
        if failed:
            raise failed[0].exception()  # type: ignore[misc]
    finally:
        for t in movers + observers:
            t.cancel()
        await asyncio.gather(*movers, *observers, return_exceptions=True)


async def wait_until(condition: Any, what: str, timeout: float) -> Any:
    """Poll ``condition()`` every 50 ms until it is true, for at most ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (got := condition()):
        assert loop.time() < deadline, f"{what}: not after {timeout:g} s"
        await asyncio.sleep(0.05)
    return got


async def nothing_lost(rooms: Iterable[LiveRoom]) -> None:
    """Every move acknowledged to Ann is in the store: her state, asked again, is at the last
    acknowledged version (versions grow by one per move), and so is the room's snapshot."""
    for room in rooms:
        room.ann.inbox = [m for m in room.ann.inbox if m.get("type") not in ("state", "room")]
        state = await room.ann.request({"type": "sync"}, "state")
        assert state["version"] == room.version == room.acked[-1][0], (room.code, state["version"], room.acked[-1])
        snapshot = await room.ann.expect("room")
        ann = next(p for p in snapshot["room"]["players"] if p["seat"] == "s1")
        assert ann["version"] == room.version, (room.code, ann)


def lean_connections(ports: Iterable[int], pids: Iterable[int]) -> dict[tuple[int, int, str], list[dict[str, str]]]:
    """The lean connections of each server process on each Redis: (port, pid, "cmd" or "sub")
    -> their ``CLIENT LIST`` entries."""
    out: dict[tuple[int, int, str], list[dict[str, str]]] = {}
    names = {f"race-{pid}-{kind}": (pid, kind) for pid in pids for kind in ("cmd", "sub")}
    for port in ports:
        for c in clients(port):
            if c.get("name") in names:
                pid, kind = names[c["name"]]
                out.setdefault((port, pid, kind), []).append(c)
    return out


def subscribers(port: int) -> list[dict[str, str]]:
    """The connections subscribed to anything on the Redis on ``port`` (but Sentinel's own)."""
    return [
        c
        for c in clients(port)
        if any(int(c.get(k, "0")) for k in ("sub", "psub", "ssub")) and not c.get("name", "").startswith("sentinel-")
    ]


def ours(port: int, pids: Iterable[int]) -> list[dict[str, str]]:
    """The connections of the server processes ``pids`` on the Redis on ``port``."""
    names = tuple(f"race-{pid}" for pid in pids)
    return [c for c in clients(port) if c.get("name", "").startswith(names)]


def no_tracebacks(*servers: Server) -> None:
    for s in servers:
        bad = [line for line in s.process.lines if "Traceback" in line or " ERROR " in line]
        assert not bad, "\n".join(s.process.lines[-80:])


def health(server: Server) -> tuple[int, dict[str, Any]]:
    """``GET /healthz``: its status and body."""
    try:
        with urllib.request.urlopen(server.url + "/healthz", timeout=15) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())
