"""The move path's lean Redis connection: RESP encoding and parsing, replies matched to
concurrent commands in order, script fallback, and failures that look like redis-py's."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import MasterDownError, NoScriptError, ReadOnlyError, ResponseError

from race.store import open_store
from race.store.pipe import RedisPipe
from race.store.pubsub import RedisSubscriber
from race.store.resp import INCOMPLETE, encode, parse
from race.store.scripts import COMMIT
from tests.support.processes import RedisServer


def test_encode_writes_bulk_strings() -> None:
    expected = b"*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n12\r\n$2\r\n\x00x\r\n$2\r\n\xc3\xa9\r\n"
    assert encode(("SET", "k", 12, b"\x00x", "é")) == expected


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        (b"+OK\r\n", "OK"),
        (b":-42\r\n", -42),
        (b"$5\r\nh\xc3\xa9l\r\r\n", "hél\r"),
        (b"$-1\r\n", None),
        (b"*-1\r\n", None),
        (b"*0\r\n", []),
        (b"*3\r\n$1\r\na\r\n$-1\r\n*2\r\n:1\r\n+x\r\n", ["a", None, [1, "x"]]),
    ],
)
def test_parse_reads_each_reply_kind_and_waits_for_the_rest(raw: bytes, value: object) -> None:
    buf = bytearray(raw + b":7\r\n")
    got, pos = parse(buf, 0)
    assert got == value and parse(buf, pos) == (7, len(buf))
    for cut in range(len(raw)):  # every prefix is incomplete, never a wrong value
        assert parse(bytearray(raw[:cut]), 0) == (INCOMPLETE, 0)


def test_parse_returns_error_replies_as_exceptions() -> None:
    err, _ = parse(bytearray(b"-ERR wrong\r\n"), 0)
    assert isinstance(err, ResponseError) and str(err) == "ERR wrong"
    loading, _ = parse(bytearray(b"-LOADING Redis is loading the dataset in memory\r\n"), 0)
    assert isinstance(loading, RedisConnectionError)  # the store reports it as unavailable
    noscript, _ = parse(bytearray(b"-NOSCRIPT No matching script\r\n"), 0)
    assert isinstance(noscript, NoScriptError)
    readonly, _ = parse(bytearray(b"-READONLY You can't write against a read only replica.\r\n"), 0)
    assert isinstance(readonly, ReadOnlyError)  # a failover: the store reports it as unavailable
    masterdown, _ = parse(bytearray(b"-MASTERDOWN Link with MASTER is down\r\n"), 0)
    assert isinstance(masterdown, MasterDownError)
    assert type(parse(bytearray(b"-READONLYISH no\r\n"), 0)[0]) is ResponseError  # the whole first word


async def test_concurrent_commands_get_their_own_replies(redis_url: str) -> None:
    pipe = RedisPipe(redis_url)
    try:
        keys = [f"pipe-test:{i}" for i in range(300)]
        await asyncio.gather(*(pipe.execute("SET", k, f"v{i}" * (i % 50)) for i, k in enumerate(keys)))
        got = await asyncio.gather(*(pipe.execute("GET", k) for k in keys))
        assert got == [f"v{i}" * (i % 50) for i in range(300)]
        assert await pipe.execute("HMGET", "pipe-test:nohash", "a", "b") == [None, None]
        with pytest.raises(ResponseError):
            await pipe.execute("HGET", keys[1])  # wrong arity: an error reply, the connection stays
        assert await pipe.execute("GET", keys[2]) == "v2v2"
        await pipe.execute("DEL", *keys)
    finally:
        await pipe.close()


async def test_scripts_run_by_sha_after_a_script_flush(redis_url: str) -> None:
    pipe = RedisPipe(redis_url)
    try:
        sha = hashlib.sha1(COMMIT.encode()).hexdigest()
        await pipe.execute("SCRIPT", "FLUSH")
        args = [60, 1, "meta", 0, 1, "meta", "{}", "", "", "", "", ""]
        assert await pipe.evalsha(sha, COMMIT, ["room:{PIPE}", "room:{PIPE}", "room:{PIPE}:aside"], args) == 1
        assert (
            await pipe.evalsha(sha, COMMIT, ["room:{PIPE}", "room:{PIPE}", "room:{PIPE}:aside"], args) == 0
        )  # version moved on
        await pipe.execute("DEL", "room:{PIPE}")
    finally:
        await pipe.close()


async def test_a_restarted_redis_is_unavailable_then_used_again() -> None:
    server = RedisServer()
    pipe = RedisPipe(server.url)
    try:
        assert await pipe.execute("SET", "k", "1") == "OK"
        server.stop()
        with pytest.raises(OSError):  # ConnectionError: the store reports it as unavailable
            await pipe.execute("GET", "k")
        server = RedisServer(port=server.port)
        assert await pipe.execute("GET", "k") is None  # a fresh Redis, reached without a restart here
    finally:
        await pipe.close()
        server.stop()


async def test_a_silent_server_times_out_and_the_connection_is_replaced() -> None:
    accepted: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)  # a port of its own, at once
    port = server.sockets[0].getsockname()[1]
    pipe = RedisPipe(f"redis://127.0.0.1:{port}/0", timeout=0.2)
    try:
        with pytest.raises(TimeoutError):
            await pipe.execute("PING")
        with pytest.raises(TimeoutError):
            await pipe.execute("PING")
        assert len(accepted) == 2  # the first connection was dropped: a late reply can't be mismatched
    finally:
        await pipe.close()
        for w in accepted:
            w.close()
        server.close()
        await server.wait_closed()


async def test_a_subscribe_redis_never_confirms_drops_its_connection() -> None:
    """The SUBSCRIBE went out: were the connection kept, Redis could still act on it later,
    subscribed to a channel nobody here follows. A new connection has only the wanted ones."""
    accepted: list[asyncio.StreamWriter] = []
    closed = asyncio.Event()

    async def stalling(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)
        assert b"PING" in await reader.readuntil(b"PING\r\n")  # the connection's own check
        writer.write(b"*2\r\n$4\r\npong\r\n$0\r\n\r\n")
        await reader.read()  # then nothing more, until the subscriber drops the connection
        closed.set()

    server = await asyncio.start_server(stalling, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sub = RedisSubscriber(f"redis://127.0.0.1:{port}/0", connect_timeout=0.2)
    try:
        with pytest.raises(TimeoutError):
            await sub.subscribe("room:{A}")
        async with asyncio.timeout(10):
            await closed.wait()
        assert not sub.channels
    finally:
        await sub.close()
        for w in accepted:
            w.close()
        server.close()
        await server.wait_closed()


async def test_a_refused_login_closes_its_connection() -> None:
    closed = asyncio.Event()

    async def refusing(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1024)  # the AUTH command
        writer.write(b"-WRONGPASS invalid username-password pair\r\n")
        await writer.drain()
        if await reader.read(1024) == b"":  # the client hung up instead of keeping the socket
            closed.set()
        writer.close()

    server = await asyncio.start_server(refusing, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    pipe = RedisPipe(f"redis://:wrong@127.0.0.1:{port}/0", timeout=5.0)
    try:
        with pytest.raises(ResponseError, match="WRONGPASS"):
            await pipe.execute("PING")
        async with asyncio.timeout(5):
            await closed.wait()
    finally:
        await pipe.close()
        server.close()
        await server.wait_closed()


async def next_message(messages: Any, timeout: float = 10.0) -> tuple[str, str]:
    async with asyncio.timeout(timeout):
        return await anext(messages)


async def test_subscriber_receives_in_order_and_stops_after_unsubscribe(redis_url: str) -> None:
    sub, pipe = RedisSubscriber(redis_url), RedisPipe(redis_url)
    messages = sub.messages()
    try:
        await sub.subscribe("room:{SUB1}")
        await sub.subscribe("room:{SUB2}")  # returns once Redis has subscribed
        for i in range(50):
            await pipe.execute("PUBLISH", f"room:{{SUB{1 + i % 2}}}", f"m{i}")
        got = [await next_message(messages) for _ in range(50)]
        assert got == [(f"room:{{SUB{1 + i % 2}}}", f"m{i}") for i in range(50)]
        await sub.unsubscribe("room:{SUB1}")
        while (await pipe.execute("PUBSUB", "NUMSUB", "room:{SUB1}"))[1]:  # until Redis has unsubscribed
            await asyncio.sleep(0.01)
        await pipe.execute("PUBLISH", "room:{SUB1}", "gone")
        await pipe.execute("PUBLISH", "room:{SUB2}", "here")
        assert await next_message(messages) == ("room:{SUB2}", "here")
    finally:
        await messages.aclose()
        await sub.close()
        await pipe.close()


async def test_subscriber_reports_a_redis_restart_and_subscribes_again() -> None:
    server = RedisServer()
    sub, pipe = RedisSubscriber(server.url), RedisPipe(server.url)
    messages = sub.messages()
    try:
        await sub.subscribe("room:{R}")
        await pipe.execute("PUBLISH", "room:{R}", "before")
        assert await next_message(messages) == ("room:{R}", "before")
        server.stop()
        server = RedisServer(port=server.port)
        assert await next_message(messages) == ("*", "reconnected")  # after subscribing again
        await pipe.execute("PUBLISH", "room:{R}", "after")
        assert await next_message(messages) == ("room:{R}", "after")
    finally:
        await messages.aclose()
        await sub.close()
        await pipe.close()
        server.stop()


async def test_writes_that_wait_for_a_replica_have_reached_it(caplog: pytest.LogCaptureFixture) -> None:
    """``wait``: a command returns once a replica has it, with one WAIT for the commands sent
    together; when no replica answers in time the command is still done (and it is logged)."""
    primary = RedisServer()
    replica = RedisServer("--appendonly", "no", "--replicaof", "127.0.0.1", str(primary.port))
    pipe, reader = RedisPipe(primary.url), RedisPipe(replica.url)
    try:
        async with asyncio.timeout(10):
            while "master_link_status:up" not in await reader.execute("INFO", "replication"):
                await asyncio.sleep(0.02)
        await pipe.execute("CONFIG", "RESETSTAT")
        keys = [f"waited:{i}" for i in range(40)]
        assert await asyncio.gather(*(pipe.execute("SET", k, "v", wait=(1, 5000)) for k in keys)) == ["OK"] * 40
        assert await asyncio.gather(*(reader.execute("GET", k) for k in keys)) == ["v"] * 40  # on the replica
        stats = await pipe.execute("INFO", "commandstats")
        waits = int(stats.split("cmdstat_wait:calls=")[1].split(",")[0])
        assert 1 <= waits <= 5  # one per batch, not one per command

        replica.stop()
        assert await pipe.execute("SET", "alone", "v", wait=(1, 100)) == "OK"
        assert "a write reached 0 of 1 replicas within 100 ms" in caplog.text
        assert await pipe.execute("GET", "alone") == "v"
    finally:
        await pipe.close()
        await reader.close()
        replica.stop()
        primary.stop()


async def test_a_store_url_asks_commits_to_wait_for_replicas() -> None:
    primary = RedisServer()
    replica = RedisServer("--appendonly", "no", "--replicaof", "127.0.0.1", str(primary.port))
    store = open_store(primary.url + "?wait_replicas=1&wait_timeout_ms=5000", ttl=60)
    reader = RedisPipe(replica.url)
    await store.connect()
    try:
        async with asyncio.timeout(10):
            while "master_link_status:up" not in await reader.execute("INFO", "replication"):
                await asyncio.sleep(0.02)
        for version in range(5):
            assert await store.commit("W", expect={"meta": version}, write={"meta": str(version)})
            assert await reader.execute("HGET", "room:{W}", "v:meta") == str(version + 1)  # already there
    finally:
        await store.close()
        await reader.close()
        replica.stop()
        primary.stop()
