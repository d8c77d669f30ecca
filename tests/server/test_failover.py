"""Redis Cluster failovers with real processes: three masters with a replica each (a node
timeout of 2 s), two server processes, and rooms whose player moves on one process while a
rival and a spectator watch from the other, moving all along. A master killed (its replica
promoted), a replica killed, the old master back (as a replica) and killed again, a manual
failover, and several rooms' slots moved at once: each time live updates come back within the failover plus
:data:`SLACK` seconds, rooms elsewhere see nothing of it, no acknowledged move is lost, every
server process holds one pub/sub connection per master and none on a replica, and nothing
logs a traceback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from race.store.cluster import slot_of
from tests.support.clusters import RedisCluster, cli, poll
from tests.support.failover import (
    LiveRoom,
    health,
    lean_connections,
    no_tracebacks,
    nothing_lost,
    open_room,
    subscribers,
    traffic,
    wait_until,
)
from tests.support.processes import Server

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

NODE_TIMEOUT_MS = 2000
#: Seconds after the failover (or the fault) within which live updates must be back.
SLACK = 5.0
#: Seconds any test's moves may be refused in all.
DEADLINE = 60.0


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisCluster]:
    # Without full coverage required, the other masters go on serving while one shard fails
    # over (as docs/deployment.md advises).
    args = ("--cluster-node-timeout", str(NODE_TIMEOUT_MS), "--cluster-require-full-coverage", "no")
    c = RedisCluster(*args, "--appendonly", "no", replicas=1)
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture
async def servers(cluster: RedisCluster) -> AsyncIterator[tuple[Server, Server]]:
    """Two server processes on the whole cluster (nodes an earlier test left down are back)."""
    await asyncio.to_thread(cluster.heal)
    a = Server(cluster.url, RATE_LIMIT_PER_SECOND="5000", RATE_LIMIT_BURST="5000")
    b = Server(cluster.url, RATE_LIMIT_PER_SECOND="5000", RATE_LIMIT_BURST="5000")
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def master_of(cluster: RedisCluster, room: LiveRoom) -> int:
    return cluster.master_of(slot_of(f"room:{{{room.code}}}"))


async def rooms_on(cluster: RedisCluster, a: Server, b: Server, *, one: int, others: int) -> tuple[int, list[LiveRoom]]:
    """Open rooms until ``one`` are on one master and ``others`` on the others; that master,
    and the rooms (its rooms first)."""
    by_master: dict[int, list[LiveRoom]] = {}
    for _ in range(40):
        room = await open_room(a, b)
        by_master.setdefault(master_of(cluster, room), []).append(room)
        full = [m for m, rs in by_master.items() if len(rs) >= one]
        if full and sum(len(rs) for m, rs in by_master.items() if m != full[0]) >= others:
            rest = [r for m, rs in by_master.items() if m != full[0] for r in rs]
            return full[0], by_master[full[0]] + rest
    raise AssertionError(f"rooms never spread as asked: {by_master}")


def problems(cluster: RedisCluster, servers: tuple[Server, ...], rooms: int) -> list[str]:
    """What is wrong with the server processes' connections on the cluster: more than one
    command or pub/sub connection on a node, a subscription on a replica, a room subscribed
    more or less than once."""
    pids = [s.process.proc.pid for s in servers]
    live = cluster.live()
    roles = {port: master for port, master in cluster.roles().items() if port in live}
    out = []
    lean = lean_connections(live, pids)
    for (port, pid, kind), conns in lean.items():
        if len(conns) > 1:
            out.append(f"{len(conns)} {kind} connections of process {pid} on {port}")
        if roles.get(port) is not None:
            out.append(f"a {kind} connection of process {pid} on replica {port}")
    for port, master in roles.items():
        if master is not None and subscribers(port):
            out.append(f"subscriptions on replica {port}: {subscribers(port)}")
    for pid in pids:
        channels = sum(int(c["ssub"]) for (_, p, kind), cs in lean.items() if p == pid and kind == "sub" for c in cs)
        if channels != rooms:
            out.append(f"process {pid} holds {channels} subscriptions for {rooms} rooms")
    return out


async def tidy(cluster: RedisCluster, servers: tuple[Server, ...], rooms: list[LiveRoom]) -> None:
    """Until the connections are as they should be (for at most 10 s), then nothing logged a
    traceback."""
    try:
        await wait_until(lambda: not problems(cluster, servers, len(rooms)), "tidy connections", 10)
    except AssertionError:
        raise AssertionError("\n".join(problems(cluster, servers, len(rooms)))) from None
    no_tracebacks(*servers)


async def close(rooms: list[LiveRoom]) -> None:
    for r in rooms:
        for c in (r.ann, r.bob, r.watcher):
            await c.close()


async def test_a_master_killed_its_replica_promoted_live_updates_resume(
    cluster: RedisCluster, servers: tuple[Server, Server]
) -> None:
    a, b = servers
    victim, rooms = await rooms_on(cluster, a, b, one=2, others=2)
    hit = [r for r in rooms if master_of(cluster, r) == victim]
    spared = [r for r in rooms if r not in hit]
    loop = asyncio.get_running_loop()
    async with traffic(rooms, loop.time() + DEADLINE):
        await wait_until(lambda: all(r.resumed(0) for r in rooms), "live updates", 10)
        await asyncio.to_thread(cluster.kill, victim)
        killed = loop.time()  # (after: a move acknowledged before it may be seen after)
        status, body = await asyncio.to_thread(health, a)  # the load balancer's check: this process serves
        assert status == 200 and body["status"] == "degraded", body  # the other shards' rooms
        assert [f"127.0.0.1:{victim} " in u for u in body["unreachable"]] == [True], body
        await asyncio.to_thread(poll, lambda: victim not in cluster.roles(), "the master marked failed", 30)
        await asyncio.to_thread(poll, lambda: len(cluster.masters()) == 3, "a replica promoted", 30)
        promoted = loop.time()
        await asyncio.to_thread(poll, lambda: health(b) == (200, {"status": "ok"}), "healthy again", 10)
        await wait_until(lambda: all(r.resumed(killed) for r in spared), "live updates elsewhere", SLACK)
        await wait_until(lambda: all(r.resumed(promoted) for r in hit), "live updates back", DEADLINE)
        latest = max(r.resumed(promoted) or 0 for r in hit)
    assert latest - promoted <= SLACK, f"live updates back {latest - promoted:.1f} s after the promotion"
    assert all(r.refused for r in hit)  # (the shard really was out)
    assert all(r.resyncs >= 2 for r in hit), [r.resyncs for r in hit]  # Bob and the spectator
    assert not any(r.resyncs or r.refused for r in spared), [(r.resyncs, r.refused) for r in spared]
    await nothing_lost(rooms)
    await tidy(cluster, servers, rooms)
    await close(rooms)


async def test_a_replica_killed_stops_nothing(cluster: RedisCluster, servers: tuple[Server, Server]) -> None:
    a, b = servers
    master, rooms = await rooms_on(cluster, a, b, one=2, others=1)
    replica = cluster.replicas_of(master)[0]
    loop = asyncio.get_running_loop()
    async with traffic(rooms, loop.time() + DEADLINE):
        await wait_until(lambda: all(r.resumed(0) for r in rooms), "live updates", 10)
        await asyncio.to_thread(cluster.kill, replica)
        killed = loop.time()
        await wait_until(lambda: all(r.resumed(killed) for r in rooms), "live updates go on", SLACK)
    assert not any(r.resyncs or r.refused for r in rooms), [(r.resyncs, r.refused) for r in rooms]
    await nothing_lost(rooms)
    await tidy(cluster, servers, rooms)
    await close(rooms)


async def test_the_old_master_back_as_a_replica_holds_nothing_of_ours(
    cluster: RedisCluster, servers: tuple[Server, Server]
) -> None:
    """Killed, replaced by its replica, started again: it comes back as a replica, and no
    server process subscribes there; so killing it again stops nothing."""
    a, b = servers
    victim, rooms = await rooms_on(cluster, a, b, one=2, others=1)
    loop = asyncio.get_running_loop()
    async with traffic(rooms, loop.time() + DEADLINE):
        await wait_until(lambda: all(r.resumed(0) for r in rooms), "live updates", 10)
        await asyncio.to_thread(cluster.kill, victim)
        await asyncio.to_thread(poll, lambda: victim not in cluster.roles() and len(cluster.masters()) == 3, "", 30)
        promoted = loop.time()
        await wait_until(lambda: all(r.resumed(promoted) for r in rooms), "live updates back", DEADLINE)

        await asyncio.to_thread(cluster.start, victim)
        await asyncio.to_thread(cluster.wait_ok)
        assert cluster.roles()[victim] is not None  # a replica now
        assert not subscribers(victim)
        pids = [s.process.proc.pid for s in servers]
        assert not [k for k in lean_connections([victim], pids) if k[2] == "sub"]
        resyncs = [r.resyncs for r in rooms]
        await asyncio.to_thread(cluster.kill, victim)
        again = loop.time()
        await wait_until(lambda: all(r.resumed(again) for r in rooms), "live updates go on", SLACK)
    assert [r.resyncs for r in rooms] == resyncs
    await nothing_lost(rooms)
    await tidy(cluster, servers, rooms)
    await close(rooms)


async def test_a_manual_failover_moves_the_rooms_to_the_promoted_replica(
    cluster: RedisCluster, servers: tuple[Server, Server]
) -> None:
    """``CLUSTER FAILOVER`` on a replica: the old master is alive, a replica now. It drops its
    subscriptions and redirects writes: the processes follow, leave nothing on it, and the
    rooms' clients resync."""
    a, b = servers
    master, rooms = await rooms_on(cluster, a, b, one=2, others=1)
    hit = [r for r in rooms if master_of(cluster, r) == master]
    replica = cluster.replicas_of(master)[0]
    loop = asyncio.get_running_loop()
    async with traffic(rooms, loop.time() + DEADLINE):
        await wait_until(lambda: all(r.resumed(0) for r in rooms), "live updates", 10)
        await asyncio.to_thread(cli, replica, "cluster", "failover")
        await asyncio.to_thread(poll, lambda: cluster.roles().get(master) == replica, "the roles swapped", 30)
        swapped = loop.time()
        await wait_until(lambda: all(r.resumed(swapped) for r in rooms), "live updates go on", SLACK)
    assert all(r.resyncs >= 2 for r in hit), [r.resyncs for r in hit]
    assert not any(r.refused for r in rooms), [r.refused for r in rooms]  # held a moment, then redirected
    assert not any(r.resyncs for r in rooms if r not in hit)
    await nothing_lost(rooms)
    await tidy(cluster, servers, rooms)
    await close(rooms)


async def test_rooms_whose_slots_move_at_once_follow_on_one_connection(
    cluster: RedisCluster, servers: tuple[Server, Server]
) -> None:
    """A resharding moves several rooms' slots (with their keys) to another master while the
    rooms play: each process follows them there over one connection, the rooms' clients
    resync, and live updates and moves go on with nothing lost."""
    a, b = servers
    source, rooms = await rooms_on(cluster, a, b, one=4, others=1)
    moving = [r for r in rooms if master_of(cluster, r) == source]
    target = next(m for m in cluster.masters() if m != source)
    loop = asyncio.get_running_loop()
    async with traffic(rooms, loop.time() + DEADLINE):
        await wait_until(lambda: all(r.resumed(0) for r in rooms), "live updates", 10)
        moved = loop.time()
        slots = sorted({slot_of(f"room:{{{r.code}}}") for r in moving})
        await asyncio.to_thread(cluster.move_slots, slots, source, target)
        done = loop.time()
        await wait_until(lambda: all(r.resumed(done) for r in rooms), "live updates back", SLACK)
    assert all(master_of(cluster, r) == target for r in moving)
    assert all(r.resyncs >= 2 for r in moving), [r.resyncs for r in moving]
    assert moved < done
    await nothing_lost(rooms)
    await tidy(cluster, servers, rooms)
    await close(rooms)
