"""Redis pub/sub for the store on one Redis: on a lean connection of its own
(:class:`RedisSubscriber`, for ``redis://`` and Sentinel's primary), or redis-py's pub/sub
that reports its reconnections (:class:`CountingPubSub`, for ``unix://`` and ``rediss://``).
Redis Cluster's sharded pub/sub is in :mod:`race.store.sharded`."""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import AsyncGenerator
from typing import Any

from redis.asyncio.client import PubSub
from redis.exceptions import (
    ClusterDownError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .pipe import Connection, Locate, Wire
from .resp import encode, take_replies

log = logging.getLogger(__name__)
#: What a lost or refused Redis connection raises, or a write to a primary that a failover
#: has just demoted to a read-only replica: each passes once Redis (or its new primary) is back.
DOWN = (
    RedisConnectionError,
    RedisTimeoutError,
    OSError,
    ClusterDownError,
    TryAgainError,
    RedisClusterException,
    ReadOnlyError,
)


class CountingPubSub(PubSub):
    """redis-py's pub/sub, counting its reconnections. redis-py reconnects and resubscribes
    by itself, sometimes inside one call without raising anything; whatever was published
    meanwhile is lost, so every reconnection must be reported (clients resync)."""

    reconnects = 0

    async def on_connect(self, connection: Any) -> None:
        if self.subscribed:  # a first connection (nothing subscribed yet) loses nothing
            self.reconnects += 1
        await super().on_connect(connection)


_LOST = object()


class _SubProtocol(Wire):
    """A connection in subscribe mode: published messages go to a queue, then ``_LOST``."""

    def __init__(self, queue: asyncio.Queue[Any]) -> None:
        self.queue = queue
        self.transport: Any = None
        self.buf = bytearray()
        self.closed = False
        self.pongs: collections.deque[asyncio.Future[None]] = collections.deque()

    async def sync(self) -> None:
        """Return when Redis has carried out every command sent so far (a PING's answer)."""
        fut = asyncio.get_running_loop().create_future()
        self.send(("PING",))
        self.pongs.append(fut)
        await fut

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def send(self, args: tuple[Any, ...]) -> None:
        if self.closed:
            raise ConnectionError("the pub/sub connection to Redis is closed")
        self.transport.write(encode(args))

    def data_received(self, data: bytes) -> None:
        self.buf += data
        try:
            replies = take_replies(self.buf)
        except (ConnectionError, IndexError, ValueError) as exc:
            log.warning("bad pub/sub reply stream from Redis: %s", exc)
            self.transport.abort()
            return
        for value in replies:
            if type(value) is list and len(value) == 3 and value[0] == "message":
                self.queue.put_nowait((value[1], value[2]))
            elif type(value) is list and value and value[0] == "pong" and self.pongs:
                fut = self.pongs.popleft()
                if not fut.done():
                    fut.set_result(None)
            elif isinstance(value, Exception):
                # e.g. LOADING after a restart: the subscriptions may not be in place, so
                # start over (the reader connects again and reports the gap).
                log.warning("Redis refused a pub/sub command: %s", value)
                self.transport.abort()
                return

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        while self.pongs:
            fut = self.pongs.popleft()
            if not fut.done():
                fut.set_exception(ConnectionError(f"lost the pub/sub connection to Redis: {exc or 'closed'}"))
        self.queue.put_nowait(_LOST)


class RedisSubscriber(Connection[_SubProtocol]):
    """Pub/sub on a lean connection of its own (``SUBSCRIBE``; not for Redis Cluster).

    :meth:`messages` yields ``(channel, message)``; when the connection was lost while
    something was subscribed, it connects again (backing off up to 2 s), subscribes again to
    every channel, and yields ``("*", "reconnected")``: whatever was published meanwhile is
    lost, so clients must resync."""

    def __init__(
        self, url: str, *, connect_timeout: float = 5.0, locate: Locate | None = None, name: str | None = None
    ) -> None:
        super().__init__(url, connect_timeout, locate=locate, name=name)
        self.channels: set[str] = set()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()

    @property
    def subscribed(self) -> bool:
        return bool(self.channels)

    def _protocol(self) -> _SubProtocol:
        return _SubProtocol(self.queue)

    async def _handshake(self, proto: _SubProtocol) -> None:
        # No SELECT: pub/sub channels do not belong to a database.
        for command in self._hello():
            proto.send(command)
        if self.channels:
            proto.send(("SUBSCRIBE", *sorted(self.channels)))
        try:
            await proto.sync()  # subscribed for real: nothing published from now on is missed
        except BaseException:
            proto.transport.abort()
            raise

    async def subscribe(self, channel: str) -> None:
        self.channels.add(channel)
        proto: _SubProtocol | None = None
        try:
            proto = await self._connection()
            proto.send(("SUBSCRIBE", channel))
            async with asyncio.timeout(self.connect_timeout):
                await proto.sync()  # the caller reads the room next: it must not miss what follows
        except BaseException:
            self.channels.discard(channel)  # the caller is told it failed: not subscribed
            if proto is not None and not proto.closed:
                # Redis may still act on the SUBSCRIBE sent: start again on a new connection
                # with exactly the channels wanted (their rooms resync, as after any loss).
                proto.transport.abort()
            raise

    async def unsubscribe(self, channel: str) -> None:
        self.channels.discard(channel)
        proto = self._proto
        if proto is not None and not proto.closed:
            proto.send(("UNSUBSCRIBE", channel))

    async def messages(self) -> AsyncGenerator[tuple[str, str], None]:
        lost, delay = False, 0.1
        while True:
            proto = self._proto
            if proto is None or proto.closed:
                if not self.channels:
                    lost = False  # nothing was subscribed: nothing to miss
                    await asyncio.sleep(0.05)
                    continue
                try:
                    await self._connection()
                except (OSError, RedisError) as exc:  # also a connect timeout, or no primary named
                    if not lost:
                        log.warning("lost the Redis pub/sub connection: %s", exc)
                    lost = True
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 2.0)
                    continue
            if lost:
                lost, delay = False, 0.1
                log.info("Redis pub/sub connection is back")
                yield "*", "reconnected"
            item = await self.queue.get()
            if item is _LOST:
                if self.channels:
                    if not lost:
                        log.warning("lost the Redis pub/sub connection")
                    lost = True
                continue
            yield item
