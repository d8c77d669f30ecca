"""The lean connections on Redis Cluster (a cluster of three masters of this module's own,
whose slots the tests move): commands follow MOVED and ASK, the slot map is read again and
shared, and the sharded pub/sub keeps one connection per master however many channels
subscribe at once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from redis.exceptions import AskError, MovedError, TryAgainError

from race.store import StoreUnavailable, open_store
from race.store.cluster import ClusterPipe, slot_of
from race.store.resp import parse
from race.store.sharded import ClusterSubscriber
from tests.support.clusters import RedisCluster, cli, clients

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisCluster]:
    c = RedisCluster()
    try:
        yield c
    finally:
        c.stop()


def test_redirections_parse_as_redis_py_s() -> None:
    moved, _ = parse(bytearray(b"-MOVED 3999 127.0.0.1:6381\r\n"), 0)
    assert isinstance(moved, MovedError) and moved.slot_id == 3999 and moved.node_addr == ("127.0.0.1", 6381)
    ask, _ = parse(bytearray(b"-ASK 3999 127.0.0.1:6381\r\n"), 0)
    assert type(ask) is AskError and ask.node_addr == ("127.0.0.1", 6381)
    again, _ = parse(bytearray(b"-TRYAGAIN Multiple keys request during rehashing of slot\r\n"), 0)
    assert isinstance(again, TryAgainError)


async def test_commands_go_to_the_slots_master_and_follow_a_moved_slot(cluster: RedisCluster) -> None:
    pipe = ClusterPipe(cluster.url, name="race-test-cmd")
    try:
        keys = [f"room:{{C{i}}}" for i in range(30)]
        await asyncio.gather(*(pipe.execute("SET", k, k) for k in keys))
        for k in keys[:5]:  # each on the master of its slot
            assert cli(cluster.master_of(slot_of(k)), "get", k) == k
        assert {(c.get("name"), c["laddr"]) for p in cluster.ports for c in clients(p)} >= {
            ("race-test-cmd", f"127.0.0.1:{p}") for p in cluster.ports
        }  # one named connection per master

        key = keys[0]
        source = cluster.master_of(slot_of(key))
        target = next(p for p in cluster.ports if p != source)
        cluster.move_slot(slot_of(key), source, target)
        reads = pipe.slots.reads
        assert await pipe.execute("GET", key) == key  # MOVED: sent again to the new master
        assert pipe.slots.owner(slot_of(key)) == f"127.0.0.1:{target}"
        async with asyncio.timeout(10):
            while pipe.slots.reads == reads:  # and the whole map read again, in the background
                await asyncio.sleep(0.01)
        assert pipe.slots.masters[f"127.0.0.1:{target}"].count(slot_of(key)) == 1
        assert await asyncio.gather(*(pipe.execute("GET", k) for k in keys)) == keys
    finally:
        await pipe.close()


async def test_a_key_already_migrated_is_asked_of_the_importing_master(cluster: RedisCluster) -> None:
    pipe = ClusterPipe(cluster.url)
    key = "room:{ASKME}"
    slot = slot_of(key)
    source = cluster.master_of(slot)
    target = next(p for p in cluster.ports if p != source)
    try:
        await pipe.execute("SET", key, "here")
        target_id, source_id = cli(target, "cluster", "myid"), cli(source, "cluster", "myid")
        cli(target, "cluster", "setslot", str(slot), "importing", source_id)
        cli(source, "cluster", "setslot", str(slot), "migrating", target_id)
        cli(source, "migrate", "127.0.0.1", str(target), key, "0", "5000")
        assert await pipe.execute("GET", key) == "here"  # ASK, then ASKING + GET on the target
        assert await pipe.execute("EVAL", "return redis.call('GET', KEYS[1])", 1, key) == "here"
        assert pipe.slots.owner(slot) == f"127.0.0.1:{source}"  # the slot is still the source's
    finally:
        for port in cluster.ports:
            cli(port, "cluster", "setslot", str(slot), "node", cli(target, "cluster", "myid"))
        await pipe.close()


async def test_channels_moving_at_once_share_one_connection_to_their_new_master(cluster: RedisCluster) -> None:
    pipe = ClusterPipe(cluster.url)
    sub = ClusterSubscriber(pipe.slots, pipe.node_url, name="race-test-sub")
    messages = sub.messages()
    try:
        source = cluster.ports[0]
        channels: list[str] = []
        for i in range(400):  # 12 channels on the first master, in different slots
            if cluster.master_of(slot_of(f"room:{{S{i}}}")) == source and len(channels) < 12:
                channels.append(f"room:{{S{i}}}")
        await asyncio.gather(*(sub.subscribe(c) for c in channels))  # all at once: one connection
        target = cluster.ports[1]
        cluster.move_slots(sorted({slot_of(c) for c in channels}), source, target)
        async with asyncio.timeout(20):
            resynced = {(await anext(messages))[0] for _ in channels}
        assert resynced == set(channels)
        for c in channels:
            await pipe.execute("SPUBLISH", c, "hello")
        async with asyncio.timeout(10):
            assert {await anext(messages) for _ in channels} == {(c, "hello") for c in channels}
        subs = [c for c in clients(target) if c.get("name") == "race-test-sub"]
        assert len(subs) == 1 and subs[0]["ssub"] == str(len(channels)), subs
        assert not [c for c in clients(source) if c.get("name") == "race-test-sub" and c["ssub"] != "0"]
    finally:
        await messages.aclose()
        await sub.close()
        await pipe.close()


async def test_health_names_a_master_that_does_not_answer_and_fails_when_none_does() -> None:
    own = RedisCluster()
    store = open_store(own.url, ttl=60)
    await store.connect()
    try:
        assert await store.health() == {"status": "ok"}
        down = own.ports[1]
        own.kill(down)
        health = await store.health()
        unreachable = health["unreachable"]
        assert health["status"] == "degraded" and isinstance(unreachable, list) and len(unreachable) == 1, health
        assert unreachable[0].startswith(f"127.0.0.1:{down} (slots "), health
        for port in own.live():
            own.kill(port)
        with pytest.raises(StoreUnavailable):
            await store.health()
        with pytest.raises(StoreUnavailable):
            await store.ping()
    finally:
        await store.close()
        own.stop()
