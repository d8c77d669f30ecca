"""Redis pub/sub for the store: redis-py's pub/sub that reports its reconnections
(:class:`CountingPubSub`), and sharded pub/sub on Redis Cluster that follows each room's
channel to the master that owns its slot (:class:`ShardedPubSub`)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.exceptions import (
    ClusterDownError,
    MovedError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .base import RESYNC

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


class _NodePubSub(CountingPubSub):
    """A pub/sub connection to one cluster master. On a reconnect redis-py would subscribe
    again to all its shard channels in one SSUBSCRIBE, which the cluster refuses (CROSSSLOT)
    when they are in different slots; this subscribes again one channel at a time."""

    async def _resubscribe_shard_channels(self) -> None:
        for channel in list(self.shard_channels):
            await self.ssubscribe(channel)


class ShardedPubSub:
    """Sharded pub/sub on Redis Cluster: each channel is SSUBSCRIBEd on the master that owns
    its hash slot, over one pub/sub connection per master, and a task per connection reads
    it into one queue. A connection that drops is reconnected and resubscribed by redis-py;
    when it is back, ``("*", "reconnected")`` is queued (messages may have been lost).

    A slot that moves to another master (a resharding) takes its channels along: the old
    master drops their subscriptions (an ``sunsubscribe`` nobody asked for) or refuses them
    (``MOVED``), and each such channel is subscribed again on the slot's new master, found
    by reading the cluster's slot map afresh; then ``(channel, RESYNC)`` is queued."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._owner: dict[str, str] = {}  # channel -> node name, for every channel wanted
        self._leaving: dict[str, int] = {}  # channel -> our SUNSUBSCRIBEs not yet confirmed
        self._nodes: dict[str, _NodePubSub] = {}
        self._readers: dict[str, asyncio.Task[None]] = {}
        self._moving: dict[str, asyncio.Task[None]] = {}  # channel -> its move to a new master

    async def ssubscribe(self, channel: str) -> None:
        await self.cluster.initialize()
        node = self.cluster.get_node_from_key(channel)
        pubsub = self._nodes.get(node.name)
        if pubsub is None:
            client = aioredis.Redis(
                host=node.host, port=node.port, decode_responses=True, socket_timeout=5, socket_connect_timeout=5
            )
            pubsub = self._nodes[node.name] = _NodePubSub(client.connection_pool)
        await pubsub.ssubscribe(channel)
        self._owner[channel] = node.name
        if node.name not in self._readers:
            self._readers[node.name] = asyncio.create_task(self._read(node.name, pubsub), name=f"ssub-{node.name}")

    async def sunsubscribe(self, channel: str) -> None:
        name = self._owner.pop(channel, None)
        if name is not None:
            self._leaving[channel] = self._leaving.get(channel, 0) + 1
            await self._nodes[name].sunsubscribe(channel)

    async def _read(self, name: str, pubsub: _NodePubSub) -> None:
        delay, broken, seen = 0.1, False, pubsub.reconnects
        while True:
            try:
                msg = await pubsub.get_message(timeout=1.0)
            except DOWN as exc:
                if not broken:
                    log.warning("lost the sharded pub/sub connection to %s: %s", name, exc)
                broken = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            except MovedError as exc:  # a subscription sent to a master that no longer has the slot
                log.info("sharded pub/sub on %s: slot %d is on %s:%d now", name, exc.slot_id, *exc.node_addr)
                for channel, owner in list(self._owner.items()):
                    if owner == name and self.cluster.keyslot(channel) == exc.slot_id:
                        self._move(channel)
                continue
            except RedisError as exc:
                log.warning("sharded pub/sub on %s: %s", name, exc)
                await asyncio.sleep(delay)
                continue
            if broken or pubsub.reconnects != seen:
                broken, delay, seen = False, 0.1, pubsub.reconnects
                log.info("sharded pub/sub connection to %s is back", name)
                self.queue.put_nowait(("*", "reconnected"))
            if msg is None:
                continue
            if msg["type"] == "smessage":
                self.queue.put_nowait((msg["channel"], msg["data"]))
            elif msg["type"] == "sunsubscribe":
                self._unsubscribed(name, msg["channel"])

    def _unsubscribed(self, name: str, channel: str) -> None:
        """Master ``name`` ended a subscription to ``channel``: ours, or its slot moved."""
        if self._leaving.get(channel):
            self._leaving[channel] -= 1
            if not self._leaving[channel]:
                del self._leaving[channel]
        elif self._owner.get(channel) == name:
            self._move(channel)

    def _move(self, channel: str) -> None:
        old = self._owner[channel]
        self._nodes[old].shard_channels.pop(channel, None)  # not to be resubscribed there
        if channel not in self._moving:
            task = asyncio.create_task(self._follow(channel, old), name=f"ssub-move-{channel}")
            self._moving[channel] = task
            task.add_done_callback(lambda _: self._moving.pop(channel, None))

    async def _follow(self, channel: str, old: str) -> None:
        """Subscribe to ``channel`` on the master that owns its slot now: re-read the slot map
        until it names another master than ``old`` (for up to about 5 s, then trust it), and
        keep trying, backing off, for as long as the channel is wanted."""
        delay, attempt = 0.1, 0
        while self._owner.get(channel) == old:  # else unsubscribed (or subscribed elsewhere) meanwhile
            attempt += 1
            try:
                await self.cluster.nodes_manager.initialize()
                if self.cluster.get_node_from_key(channel).name == old and attempt <= 50:
                    await asyncio.sleep(0.1)
                    continue
                await self.ssubscribe(channel)
            except (RedisError, OSError) as exc:
                log.warning("following %s to its new master: %s", channel, exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            log.info("room channel %s moved from %s to %s", channel, old, self._owner[channel])
            self.queue.put_nowait((channel, RESYNC))
            return

    async def aclose(self) -> None:
        tasks = [*self._readers.values(), *self._moving.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for pubsub in self._nodes.values():
            await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]  # untyped before redis-py 8
            await pubsub.connection_pool.disconnect()
        self._readers.clear()
        self._nodes.clear()
