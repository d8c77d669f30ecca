"""Redis Cluster (three real masters started by the test session): each room lives on one
master thanks to its hash tag, and server processes share rooms over sharded pub/sub.
The store contract itself runs against the cluster in test_store.py."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from race.store import open_store
from tests.support.clusters import RedisCluster
from tests.support.processes import Client, Server

pytestmark = pytest.mark.cluster


@pytest.fixture
async def cluster(redis_cluster_url: str) -> AsyncIterator[Any]:
    client = aioredis.RedisCluster.from_url(redis_cluster_url.replace("redis+cluster://", "redis://"))
    await client.initialize()
    yield client
    await client.aclose()


def owner(cluster: Any, code: str) -> int:
    """The port of the master that owns a room's hash slot."""
    return int(cluster.get_node_from_key(f"room:{{{code}}}").port)


@contextlib.asynccontextmanager
async def own_cluster(*args: str) -> AsyncIterator[tuple[RedisCluster, Server, Server, Any]]:
    """A cluster of this test's own (``args`` for its redis-servers), two server processes on
    it and a cluster client; all stopped afterwards."""
    cluster = RedisCluster(*args)
    servers: list[Server] = []
    client = aioredis.RedisCluster.from_url(cluster.url.replace("redis+cluster://", "redis://"))
    try:
        servers += [Server(cluster.url), Server(cluster.url)]
        await client.initialize()
        yield cluster, servers[0], servers[1], client
    finally:
        await client.aclose()
        for server in servers:
            server.stop()
        cluster.stop()


async def racing(a: Server, b: Server) -> tuple[Client, Client, Client, dict[str, Any]]:
    """A started race: Ann (who created the room) and a spectator on ``a``, Bob on ``b``;
    and Ann's ``joined``."""
    ann = await Client.connect(a.ws_url)
    joined = await ann.request({"type": "create", "name": "Ann", "difficulty": "easy", "deal": 3}, "joined")
    bob = await Client.connect(b.ws_url)
    await bob.request({"type": "join", "room": joined["room"]["code"], "name": "Bob"}, "joined")
    spectator = await Client.connect(a.ws_url)
    await spectator.request({"type": "watch", "room": joined["room"]["code"]}, "watching")
    await ann.send({"type": "start"})
    await bob.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    return ann, bob, spectator, {**joined, "state": await ann.started()}  # (the start's: no board before)


async def resync_and_race_on(ann: Client, bob: Client, spectator: Client, joined: dict[str, Any]) -> None:
    """After the room's master changed: everyone is told to resync, and Bob's first move (on
    the other process) reaches Ann and the spectator."""
    for c in (ann, bob, spectator):
        assert (await c.expect("resync"))["type"] == "resync"
    mine = await bob.request({"type": "move", "move": joined["state"]["legal_moves"][0], "version": 1}, "state")
    assert mine["type"] == "state", mine
    for c in (ann, spectator):
        seen = await c.expect("player", where=lambda m: m["player"]["seat"] == "s2")
        assert seen["player"]["version"] == mine["version"]


async def close_all(clients: list[Client], servers: list[Server]) -> None:
    for c in clients:
        await c.close()
    for s in servers:
        assert not [line for line in s.process.lines if "Traceback" in line], "\n".join(s.process.lines)


async def test_each_room_lives_on_one_master_and_rooms_spread_over_all(redis_cluster_url: str, cluster: Any) -> None:
    store = open_store(redis_cluster_url, ttl=600)
    await store.connect()
    masters: set[int] = set()
    try:
        for _ in range(24):
            code = "K" + secrets.token_hex(4).upper()
            assert await store.commit(code, expect={}, write={"meta": "m", "p:s1": "x"}, log=("p:s1", "e1"))
            keys = [f"room:{{{code}}}", f"room:{{{code}}}:log:p:s1"]
            assert len({cluster.keyslot(k) for k in keys}) == 1
            node = cluster.get_node_from_key(keys[0])
            direct = aioredis.Redis(host=node.host, port=node.port)
            try:
                assert await direct.exists(*keys) == 2  # both keys really are on that master
            finally:
                await direct.aclose()
            masters.add(owner(cluster, code))
    finally:
        await store.close()
    assert len(masters) == 3


async def test_players_on_two_processes_see_each_other_live_on_every_master(
    redis_cluster_url: str, cluster: Any
) -> None:
    a, b = Server(redis_cluster_url), Server(redis_cluster_url)
    try:
        rooms: dict[int, tuple[Client, Client, Client, dict[str, Any]]] = {}
        for _ in range(40):  # open rooms until there is one on each master
            ann = await Client.connect(a.ws_url)
            joined = await ann.request({"type": "create", "name": "Ann", "difficulty": "easy", "deal": 3}, "joined")
            code = joined["room"]["code"]
            port = owner(cluster, code)
            if port in rooms:
                await ann.close()
                continue
            bob = await Client.connect(b.ws_url)
            assert (await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined"))["type"] == "joined"
            spectator = await Client.connect(b.ws_url)
            await spectator.request({"type": "watch", "room": code}, "watching")
            rooms[port] = (ann, bob, spectator, joined)
            if len(rooms) == 3:
                break
        assert len(rooms) == 3

        for ann, bob, spectator, _ in rooms.values():
            await ann.send({"type": "start"})
            started = await bob.expect("room", where=lambda m: m["room"]["phase"] != "lobby")
            assert started["room"]["phase"] == "racing"  # started on A, seen on B
            state = await bob.started()
            mine = await bob.request({"type": "move", "move": state["legal_moves"][0], "version": 1}, "state")
            seen = await ann.expect("player", where=lambda m: m["player"]["seat"] == "s2")
            assert seen["player"]["version"] == mine["version"]  # B's move, live on A (a rival: no board)
            theirs = await ann.request({"type": "move", "move": "shuffle", "version": 1}, "state")
            for client in (bob, spectator):
                seen = await client.expect("player", where=lambda m: m["player"]["seat"] == "s1")
                assert seen["player"]["version"] == theirs["version"]  # A's move, live on B
            for client in (ann, bob, spectator):
                await client.close()
    finally:
        a.stop()
        b.stop()


async def test_a_master_restart_ends_in_a_resync_and_the_race_goes_on() -> None:
    """kill -9 of the master that owns a room (AOF on) and its restart: the processes
    resubscribe by themselves, tell the room's clients to resync, and the race goes on."""
    async with own_cluster("--appendonly", "yes", "--appendfsync", "always") as (cluster, a, b, client):
        ann, bob, spectator, joined = await racing(a, b)
        cluster.restart(cluster.ports.index(owner(client, joined["room"]["code"])))
        await resync_and_race_on(ann, bob, spectator, joined)
        await close_all([ann, bob, spectator], [a, b])


async def test_a_room_whose_slot_moves_to_another_master_goes_on_live() -> None:
    """A resharding moves a room's slot (and its keys) to another master while two processes
    serve the room: both follow its channel to the new master by themselves, tell the room's
    clients to resync, and moves and broadcasts flow again, with nothing lost."""
    async with own_cluster() as (cluster, a, b, client):
        ann, bob, spectator, joined = await racing(a, b)
        code = joined["room"]["code"]
        first = await ann.request({"type": "move", "move": joined["state"]["legal_moves"][0], "version": 1}, "state")
        assert (await bob.expect("player"))["player"]["version"] == first["version"]

        source = owner(client, code)
        target = next(port for port in cluster.ports if port != source)
        cluster.move_slot(client.keyslot(f"room:{{{code}}}"), source, target)
        await resync_and_race_on(ann, bob, spectator, joined)
        direct = aioredis.Redis(port=target)  # the room lives on the new master now ...
        try:
            assert await direct.exists(f"room:{{{code}}}") == 1
        finally:
            await direct.aclose()
        again = await ann.request(  # ... with Ann's first move: her next applies on its version
            {"type": "move", "move": first["legal_moves"][0], "version": first["version"]}, "state"
        )
        assert again["type"] == "state", again
        seen = await bob.expect("player", where=lambda m: m["player"]["seat"] == "s1")
        assert seen["player"]["version"] == again["version"]
        await close_all([ann, bob, spectator], [a, b])


async def test_a_subscription_sent_to_a_master_that_lost_the_slot_follows_it() -> None:
    """A store whose slot map is out of date subscribes to a room on the master that had its
    slot: that master answers MOVED, and the subscription is made on the new owner before
    ``subscribe`` returns, so nothing published there from then on is missed."""
    async with own_cluster() as (cluster, _a, _b, client):
        store = open_store(cluster.url, ttl=600)
        await store.connect()
        try:
            code = "M" + secrets.token_hex(4).upper()
            await store.ping()  # the store has read the slot map
            source = owner(client, code)
            target = next(port for port in cluster.ports if port != source)
            cluster.move_slot(client.keyslot(f"room:{{{code}}}"), source, target)
            await store.subscribe(code)  # sent to the old owner, which refuses it
            messages = store.messages()
            await store.publish(code, "after the move")
            async with asyncio.timeout(20):
                assert await anext(messages) == (code, "after the move")
        finally:
            await store.close()
