"""Redis Sentinel failovers with real processes: a primary with two replicas under three real
Sentinels (a primary silent for 3 s is down), two server processes on a ``redis+sentinel://``
URL, and rooms whose player moves on one process while a rival and a spectator watch from
the other, moving all along. The primary killed (a replica promoted), a replica killed, and
the old primary back (Sentinel makes it a replica) and killed again: each time live updates
come back within the failover plus :data:`SLACK` seconds, no acknowledged move is lost, each
server process holds one connection of each kind on the primary and none on a replica, and
nothing logs a traceback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from tests.support.clusters import RedisSentinels, poll
from tests.support.failover import (
    LiveRoom,
    lean_connections,
    no_tracebacks,
    nothing_lost,
    open_room,
    ours,
    subscribers,
    traffic,
    wait_until,
)
from tests.support.processes import Server

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

#: Seconds after the failover (or the fault) within which live updates must be back.
SLACK = 5.0
#: Seconds any test's moves may be refused in all.
DEADLINE = 60.0


@pytest.fixture(scope="module")
def sentinels() -> Iterator[RedisSentinels]:
    s = RedisSentinels(replicas=2, sentinels=3, down_after_ms=3000)
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
async def servers(sentinels: RedisSentinels) -> AsyncIterator[tuple[Server, Server]]:
    """Two server processes on the Sentinels' URL (servers an earlier test left down are back)."""
    await asyncio.to_thread(sentinels.heal)
    a = Server(sentinels.url, RATE_LIMIT_PER_SECOND="5000", RATE_LIMIT_BURST="5000")
    b = Server(sentinels.url, RATE_LIMIT_PER_SECOND="5000", RATE_LIMIT_BURST="5000")
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def problems(sentinels: RedisSentinels, servers: tuple[Server, ...], rooms: int) -> list[str]:
    """What is wrong with the server processes' connections: any on a replica, more than one
    lean connection of a kind on the primary, a room subscribed more or less than once."""
    pids = [s.process.proc.pid for s in servers]
    primary = sentinels.primary()
    live = [p for p in sentinels.servers if p not in sentinels.down]
    out = []
    for port in live:
        if port != primary and (ours(port, pids) or subscribers(port)):
            out.append(f"connections on replica {port}: {ours(port, pids) + subscribers(port)}")
    lean = lean_connections([primary], pids)
    for (_, pid, kind), conns in lean.items():
        if len(conns) > 1:
            out.append(f"{len(conns)} {kind} connections of process {pid} on the primary")
    for pid in pids:
        channels = sum(int(c["sub"]) for (_, p, kind), cs in lean.items() if p == pid and kind == "sub" for c in cs)
        if channels != rooms:
            out.append(f"process {pid} holds {channels} subscriptions for {rooms} rooms")
    return out


async def tidy(sentinels: RedisSentinels, servers: tuple[Server, ...], rooms: list[LiveRoom]) -> None:
    try:
        await wait_until(lambda: not problems(sentinels, servers, len(rooms)), "tidy connections", 10)
    except AssertionError:
        raise AssertionError("\n".join(problems(sentinels, servers, len(rooms)))) from None
    no_tracebacks(*servers)
    for r in rooms:
        for c in (r.ann, r.bob, r.watcher):
            await c.close()


async def promoted(sentinels: RedisSentinels, old: int) -> None:
    """Until the Sentinels name another primary, and it says it is one."""

    def done() -> bool:
        now = sentinels.primary()
        return now != old and sentinels.role(now) == "master"

    await asyncio.to_thread(poll, done, "a replica promoted", 30)


async def test_the_primary_killed_a_replica_promoted_live_updates_resume(
    sentinels: RedisSentinels, servers: tuple[Server, Server]
) -> None:
    a, b = servers
    rooms = [await open_room(a, b) for _ in range(3)]
    primary = sentinels.primary()
    loop = asyncio.get_running_loop()
    async with traffic(rooms, loop.time() + DEADLINE):
        await wait_until(lambda: all(r.resumed(0) for r in rooms), "live updates", 10)
        await asyncio.to_thread(sentinels.kill, primary)
        await promoted(sentinels, primary)
        at = loop.time()
        await wait_until(lambda: all(r.resumed(at) for r in rooms), "live updates back", DEADLINE)
        latest = max(r.resumed(at) or 0 for r in rooms)
    assert latest - at <= SLACK, f"live updates back {latest - at:.1f} s after the promotion\n{sentinels.events()}"
    assert all(r.refused for r in rooms)  # (the primary really was gone)
    assert all(r.resyncs >= 2 for r in rooms), [r.resyncs for r in rooms]  # Bob and the spectator
    await nothing_lost(rooms)
    await tidy(sentinels, servers, rooms)


async def test_a_replica_killed_stops_nothing(sentinels: RedisSentinels, servers: tuple[Server, Server]) -> None:
    a, b = servers
    rooms = [await open_room(a, b) for _ in range(2)]
    replica = next(p for p in sentinels.servers if p != sentinels.primary())
    loop = asyncio.get_running_loop()
    async with traffic(rooms, loop.time() + DEADLINE):
        await wait_until(lambda: all(r.resumed(0) for r in rooms), "live updates", 10)
        await asyncio.to_thread(sentinels.kill, replica)
        killed = loop.time()  # (after: a move acknowledged before it may be seen after)
        await wait_until(lambda: all(r.resumed(killed) for r in rooms), "live updates go on", SLACK)
    assert not any(r.resyncs or r.refused for r in rooms), [(r.resyncs, r.refused) for r in rooms]
    await nothing_lost(rooms)
    await tidy(sentinels, servers, rooms)


async def test_the_old_primary_back_as_a_replica_holds_nothing_of_ours(
    sentinels: RedisSentinels, servers: tuple[Server, Server]
) -> None:
    """Killed, replaced, started again as it was (a primary, with what it had): Sentinel makes
    it a replica of the new primary; no server process uses it meanwhile or after, so killing
    it again stops nothing."""
    a, b = servers
    rooms = [await open_room(a, b) for _ in range(2)]
    old = sentinels.primary()
    pids = [s.process.proc.pid for s in servers]
    loop = asyncio.get_running_loop()
    async with traffic(rooms, loop.time() + DEADLINE):
        await wait_until(lambda: all(r.resumed(0) for r in rooms), "live updates", 10)
        await asyncio.to_thread(sentinels.kill, old)
        await promoted(sentinels, old)
        at = loop.time()
        await wait_until(lambda: all(r.resumed(at) for r in rooms), "live updates back", DEADLINE)

        await asyncio.to_thread(sentinels.start, old)
        await asyncio.to_thread(poll, lambda: sentinels.role(old) == "slave", "the old primary demoted", 30)
        assert not ours(old, pids) and not subscribers(old)
        resyncs = [r.resyncs for r in rooms]
        await asyncio.to_thread(sentinels.kill, old)
        again = loop.time()
        await wait_until(lambda: all(r.resumed(again) for r in rooms), "live updates go on", SLACK)
    assert [r.resyncs for r in rooms] == resyncs
    await nothing_lost(rooms)
    await tidy(sentinels, servers, rooms)
