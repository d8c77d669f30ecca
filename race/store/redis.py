"""The Redis store: rooms in Redis hashes, broadcasts over Redis pub/sub.

Every key of a room shares the hash tag ``{CODE}`` (``room:{CODE}`` holds the documents,
``room:{CODE}:aside`` those kept aside, ``room:{CODE}:log:NAME`` a document's log), so one
Lua script can touch them atomically and the design runs unchanged on Redis Cluster. The
room's channel is ``room:{CODE}``; on a cluster the store uses sharded pub/sub (``SPUBLISH``
/ ``SSUBSCRIBE``). The documents' reads and commits and the room broadcasts go over the lean
connections of :mod:`race.store.pipe`: to the one Redis of a ``redis://`` URL, to the
primary that Sentinel names (``redis+sentinel://``, :mod:`race.store.sentinel`), or to the
master of the room's slot (``redis+cluster://``, :mod:`race.store.cluster`, with the sharded
pub/sub of :mod:`race.store.sharded`); the rest goes through redis-py, and everything through
redis-py for ``unix://`` and ``rediss://``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from .base import ASIDE, LISTED, Doc, KeptRoom, LogEntry, Roll, Store, StoreUnavailable
from .cluster import ClusterPipe, ranges, split_address
from .pipe import RedisPipe
from .pubsub import DOWN, CountingPubSub, RedisSubscriber
from .scripts import BOARD_ADD, COMMIT, PRESENCE, READ, SPEND
from .sentinel import SentinelURL
from .sharded import ClusterSubscriber

log = logging.getLogger(__name__)
T = TypeVar("T")
#: Seconds that connecting to Redis, and any reply, may take before Redis counts as unreachable.
TIMEOUT = 5.0
#: Seconds between the sharded pub/sub's checks of the cluster's slot map and connections.
CLUSTER_CHECK = 5.0


def board_keys(group: str) -> tuple[str, str]:
    return f"board:{{{group}}}", f"board:{{{group}}}:entries"


def room_key(room: str) -> str:
    return f"room:{{{room}}}"


def aside_key(room: str) -> str:
    return f"room:{{{room}}}:aside"


class RedisStore(Store):
    """The store on Redis: ``redis://``, ``rediss://`` and ``unix://`` URLs (redis-py's),
    ``redis+cluster://[[user]:password@]host:port[,host:port...]`` for Redis Cluster, and
    ``redis+sentinel://...`` for a primary that Redis Sentinel names (:mod:`race.store.sentinel`)."""

    def __init__(self, url: str, *, ttl: int) -> None:
        super().__init__(ttl=ttl)
        parts = urlsplit(url)
        query = parse_qs(parts.query, keep_blank_values=True)
        #: ``?wait_replicas=N``: a commit returns once N replicas have it (or ``wait_timeout_ms`` passed).
        self.wait: tuple[int, int] | None = None
        if "wait_replicas" in query or "wait_timeout_ms" in query:  # the store's, not redis-py's
            replicas = int(query.pop("wait_replicas", ["0"])[-1])
            timeout = int(query.pop("wait_timeout_ms", ["100"])[-1])
            self.wait = (replicas, timeout) if replicas > 0 else None
            url = urlunsplit(parts._replace(query=urlencode(query, doseq=True)))
        self.url = url
        self.cluster = url.startswith("redis+cluster://")
        self.sentinel = url.startswith("redis+sentinel://")
        self._redis: Any = None
        self._pubsub: Any = None
        self._sentinels: Any = None
        self._commit: Any = None
        self._rooms: set[str] = set()
        #: The lean connections: the move path's commands, and the room broadcasts.
        self._pipe: RedisPipe | ClusterPipe | None = None
        self._sub: RedisSubscriber | ClusterSubscriber | None = None

    async def connect(self) -> None:
        name = f"race-{os.getpid()}"  # in CLIENT LIST: which process a connection is of
        # A pooled connection left over from before a Redis restart fails once: retry
        # connection errors quickly on a fresh connection (a retried commit is safe: it
        # checks versions), and report an outage within a fraction of a second.
        settings: dict[str, Any] = {
            "decode_responses": True,
            "socket_timeout": TIMEOUT,
            "socket_connect_timeout": TIMEOUT,
            "retry": Retry(ExponentialBackoff(cap=0.1, base=0.01), 2),
            "retry_on_error": [RedisConnectionError],
            "client_name": name,
        }
        if self.cluster:
            pipe = ClusterPipe(self.url, timeout=TIMEOUT, connect_timeout=TIMEOUT, name=f"{name}-cmd")
            seeds = [ClusterNode(*split_address(a)) for a in pipe.slots.seeds]
            self._redis = aioredis.RedisCluster(
                startup_nodes=seeds, username=pipe.username, password=pipe.password, **settings
            )
            self._pipe = pipe
            self._sub = ClusterSubscriber(
                pipe.slots, pipe.node_url, timeout=TIMEOUT, check=CLUSTER_CHECK, name=f"{name}-sub"
            )
        elif self.sentinel:
            url = SentinelURL.parse(self.url)
            self._sentinels = url.client(socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
            self._redis = self._sentinels.master_for(
                url.service, db=url.db, username=url.username, password=url.password, **settings
            )
            locate = partial(self._sentinels.discover_master, url.service)
            self._pipe = RedisPipe(
                url.primary_url, timeout=TIMEOUT, connect_timeout=TIMEOUT, locate=locate, name=f"{name}-cmd"
            )
            self._sub = RedisSubscriber(url.primary_url, connect_timeout=TIMEOUT, locate=locate, name=f"{name}-sub")
        else:
            self._redis = aioredis.Redis.from_url(self.url, **settings)
            if self.url.startswith("redis://"):
                self._pipe = RedisPipe(self.url, timeout=TIMEOUT, connect_timeout=TIMEOUT, name=f"{name}-cmd")
                self._sub = RedisSubscriber(self.url, connect_timeout=TIMEOUT, name=f"{name}-sub")
            else:
                self._pubsub = CountingPubSub(self._redis.connection_pool)
                if self.wait is not None:
                    raise ValueError("wait_replicas needs a lean connection: a redis:// URL (or Sentinel, or Cluster)")
        self._commit = self._redis.register_script(COMMIT)
        self._read = self._redis.register_script(READ)
        self._board_add = self._redis.register_script(BOARD_ADD)
        self._presence = self._redis.register_script(PRESENCE)
        self._spend = self._redis.register_script(SPEND)

    async def close(self) -> None:
        if self._sub is not None:
            await self._sub.close()
        if self._pipe is not None:
            await self._pipe.close()
        if self._pubsub is not None:
            await self._pubsub.aclose()
        if self._redis is not None:
            await self._redis.aclose()
        if self._sentinels is not None:
            for client in self._sentinels.sentinels:
                await client.aclose()

    async def _call(self, fn: Callable[[], Awaitable[T]]) -> T:
        try:
            return await fn()
        except DOWN as exc:
            raise StoreUnavailable(f"Redis is unavailable: {exc}") from None

    async def _script(self, script: Any, keys: list[str], args: list[Any], wait: Any = None) -> Any:
        """Run a registered Lua script: over the lean connection when there is one."""
        if self._pipe is not None:
            pipe = self._pipe
            return await self._call(lambda: pipe.evalsha(script.sha, script.script, keys, args, wait))
        return await self._call(lambda: script(keys=keys, args=args))

    async def ping(self) -> None:
        if isinstance(self._pipe, ClusterPipe):
            await self.health()
        else:
            await self._call(self._redis.ping)

    async def health(self) -> dict[str, object]:
        """On a cluster, every master is PINGed: when some do not answer (after the slot map
        is read again), the answer is ``degraded`` and names them with their slots, whose rooms
        are unavailable; when none does, Redis is unavailable."""
        if not isinstance(self._pipe, ClusterPipe):
            return await super().health()
        pipe = self._pipe
        answers, orphans = await self._call(pipe.survey)
        if not any(answers.values()):
            raise StoreUnavailable("Redis Cluster is unavailable: no master answers")
        down = [f"{a} (slots {ranges(pipe.slots.masters.get(a, []))})" for a, ok in answers.items() if not ok]
        if orphans:
            down.append(f"slots {ranges(orphans)} (no master)")
        if down:
            return {"status": "degraded", "detail": "part of Redis Cluster cannot be reached", "unreachable": down}
        return {"status": "ok"}

    async def read(self, room: str, names: Sequence[str]) -> list[Doc | None]:
        values: list[str | None]
        if any(n.startswith(ASIDE) for n in names):  # in two hashes: read with a script
            values = await self._script(self._read, [room_key(room), aside_key(room)], list(names))
        else:
            fields = [f"{p}:{n}" for n in names for p in ("v", "d")]
            if self._pipe is not None:
                pipe = self._pipe
                values = await self._call(lambda: pipe.execute("HMGET", room_key(room), *fields))
            else:
                values = await self._call(lambda: self._redis.hmget(room_key(room), fields))
        out: list[Doc | None] = []
        for k in range(0, len(values), 2):
            v, d = values[k], values[k + 1]
            out.append(Doc(int(v), d) if v is not None and d is not None else None)
        return out

    async def read_all(self, room: str) -> dict[str, Doc]:
        h: dict[str, str]
        if self._pipe is not None:
            pipe = self._pipe
            flat = await self._call(lambda: pipe.execute("HGETALL", room_key(room)))
            h = dict(zip(flat[::2], flat[1::2], strict=True))
        else:
            h = await self._call(lambda: self._redis.hgetall(room_key(room)))
        return {k[2:]: Doc(int(v), h["d:" + k[2:]]) for k, v in h.items() if k[:2] == "v:" and "d:" + k[2:] in h}

    async def commit(
        self,
        room: str,
        *,
        expect: Mapping[str, int],
        write: Mapping[str, str],
        log: tuple[str, str] | None = None,
        publish: str | None = None,
        ttl: int | None = None,
    ) -> bool:
        key = room_key(room)
        args: list[Any] = [self.ttl if ttl is None else ttl, len(expect)]
        for name, version in expect.items():
            args += [name, version]
        args.append(len(write))
        for name, data in write.items():
            args += [name, data]
        args += [log[0], log[1]] if log else ["", ""]
        args += [key, publish, self._publish_cmd] if publish is not None else ["", "", ""]
        keys = [key, f"{key}:log:{log[0]}" if log else key, aside_key(room)]
        result = await self._script(self._commit, keys, args, self.wait)
        return bool(result)

    async def log_since(self, room: str, name: str, version: int) -> list[LogEntry] | None:
        key = f"{room_key(room)}:log:{name}"
        raw: list[str]
        if self._pipe is not None:
            pipe = self._pipe
            raw = await self._call(lambda: pipe.execute("LRANGE", key, 0, -1))
        else:
            raw = await self._call(lambda: self._redis.lrange(key, 0, -1))
        entries = []
        for item in raw:
            v, _, data = item.partition("|")
            if int(v) > version:
                entries.append(LogEntry(int(v), data))
        if entries and entries[0].version != version + 1:
            return None
        return entries

    async def restore_room(self, kept: KeptRoom) -> None:
        key, aside = room_key(kept.room), aside_key(kept.room)
        fields: dict[str, dict[str, str | int]] = {key: {}, aside: {}}
        for name, version, data in kept.docs:
            fields[aside if name.startswith(ASIDE) else key].update({f"v:{name}": version, f"d:{name}": data})
        pipe = self._redis.pipeline(transaction=True)  # one slot: the keys share the room's hash tag
        pipe.delete(key, aside)
        for k, mapping in fields.items():
            if mapping:
                pipe.hset(k, mapping=mapping).pexpireat(k, int(kept.expires_at * 1000))
        await self._call(pipe.execute)

    @property
    def _publish_cmd(self) -> str:
        return "SPUBLISH" if self.cluster else "PUBLISH"

    async def publish(self, room: str, message: str) -> None:
        key = room_key(room)
        if self._pipe is not None:
            pipe = self._pipe
            await self._call(lambda: pipe.execute(self._publish_cmd, key, message))
        else:
            await self._call(lambda: self._redis.publish(key, message))

    async def subscribe(self, room: str) -> None:
        self._rooms.add(room)
        try:
            if self._sub is not None:
                sub = self._sub
                await self._call(lambda: sub.subscribe(room_key(room)))
            else:
                await self._call(lambda: self._pubsub.subscribe(room_key(room)))
        except BaseException:
            self._rooms.discard(room)  # not subscribed: the caller is told so
            raise

    async def unsubscribe(self, room: str) -> None:
        self._rooms.discard(room)
        if self._sub is not None:
            sub = self._sub
            await self._call(lambda: sub.unsubscribe(room_key(room)))
        else:
            await self._call(lambda: self._pubsub.unsubscribe(room_key(room)))

    async def messages(self) -> AsyncIterator[tuple[str, str]]:
        """Yields room messages; after an outage it yields ``("*", "reconnected")`` once
        Redis is back, since messages published meanwhile are lost and clients need resync
        (on a cluster, ``(room, RESYNC)`` for each room whose master was lost or changed)."""
        if self._sub is not None:
            async for channel, message in self._sub.messages():
                yield channel if channel == "*" else channel[channel.index("{") + 1 : channel.rindex("}")], message
            return
        delay = 0.1
        broken, seen = False, self._pubsub.reconnects
        while True:
            if not self._pubsub.subscribed:
                await asyncio.sleep(0.05)  # nothing subscribed yet: nothing to read
                continue
            try:
                msg = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except DOWN as exc:
                if not broken:
                    log.warning("lost the Redis pub/sub connection: %s", exc)
                broken = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            if broken or self._pubsub.reconnects != seen:
                broken, delay, seen = False, 0.1, self._pubsub.reconnects
                log.info("Redis pub/sub connection is back")
                yield "*", "reconnected"
            if msg is None or msg.get("type") != "message":
                continue
            channel = msg["channel"]
            yield channel[channel.index("{") + 1 : channel.rindex("}")], msg["data"]

    async def list_add(self, key: str, member: str, expires_at: float) -> bool:
        return bool(await self._call(lambda: self._redis.zadd(f"list:{key}", {member: expires_at})))

    async def list_remove(self, key: str, member: str) -> bool:
        return bool(await self._call(lambda: self._redis.zrem(f"list:{key}", member)))

    async def list_members(self, key: str, now: float, limit: int) -> list[str]:
        k = f"list:{key}"
        await self._call(lambda: self._redis.zremrangebyscore(k, "-inf", now))
        return await self._call(lambda: self._redis.zrevrange(k, 0, limit - 1))

    async def presence(
        self, room: str, now: float, *, here: Sequence[str] = (), gone: Sequence[str] = (), until: float = 0
    ) -> Roll:
        key = f"{room_key(room)}:here"
        keys = [key, f"{room_key(room)}:watch", f"{key}:v", f"{key}:left"]
        args = [repr(now), repr(until), self.ttl, len(here), *here, *gone]
        version, changed, listed, counted, added, left = await self._script(self._presence, keys, args)
        gone_at = tuple(sorted((left[i], float(left[i + 1])) for i in range(0, len(left), 2)))
        return Roll(int(version), sorted(listed), int(counted), bool(changed), bool(added), gone_at)

    async def spend(self, key: str, rate: float, burst: int, now: float) -> bool:
        return bool(await self._script(self._spend, [f"allowance:{key}"], [rate, burst, now]))

    async def board_add(self, group: str, player: str, sort_key: str, data: str, ttl: int) -> bool:
        keys = list(board_keys(group))
        return bool(await self._call(lambda: self._board_add(keys=keys, args=[player, sort_key, data, ttl])))

    async def board_range(self, group: str, start: int, count: int) -> list[tuple[str, str]]:
        zkey, hkey = board_keys(group)
        members = await self._call(lambda: self._redis.zrange(zkey, start, start + count - 1))
        if not members:
            return []
        players = [m.rpartition("|")[2] for m in members]
        data = await self._call(lambda: self._redis.hmget(hkey, [f"d:{p}" for p in players]))
        return [(p, d) for p, d in zip(players, data, strict=True) if d is not None]

    async def board_rank(self, group: str, player: str) -> tuple[int, str] | None:
        zkey, hkey = board_keys(group)
        member, data = await self._call(lambda: self._redis.hmget(hkey, [f"m:{player}", f"d:{player}"]))
        if member is None or data is None:
            return None
        rank = await self._call(lambda: self._redis.zrank(zkey, member))
        return None if rank is None else (int(rank), data)

    async def record_put(self, rid: str, data: str, ttl: int, lists: Sequence[str] = ()) -> None:
        # Each key on its own slot of a cluster: the record first, then its listings.
        await self._call(lambda: self._redis.set(f"record:{rid}", data, ex=ttl))
        for key in lists:
            k = f"records:{{{key}}}"
            pipe = self._redis.pipeline(transaction=True)
            pipe.lpush(k, rid).ltrim(k, 0, LISTED - 1).expire(k, ttl)
            await self._call(pipe.execute)

    async def record_get(self, rid: str) -> str | None:
        data: str | None = await self._call(lambda: self._redis.get(f"record:{rid}"))
        return data

    async def analysis_put(self, rid: str, data: str, *, fresh: bool = False, ttl: int | None = None) -> bool:
        # Its own key (and slot), expiring when the record does (PEXPIRETIME: Redis 7), or sooner.
        at: int = await self._call(lambda: self._redis.execute_command("PEXPIRETIME", f"record:{rid}"))
        if at <= 0:
            return False
        if ttl is not None:
            now_s, now_us = await self._call(self._redis.time)
            at = min(at, now_s * 1000 + now_us // 1000 + ttl * 1000)
        done = await self._call(lambda: self._redis.set(f"analysis:{rid}", data, pxat=at, nx=fresh))
        return bool(done)

    async def analysis_get(self, rid: str) -> str | None:
        data: str | None = await self._call(lambda: self._redis.get(f"analysis:{rid}"))
        return data

    async def record_list(self, key: str, start: int, count: int) -> list[str]:
        ids: list[str] = await self._call(lambda: self._redis.lrange(f"records:{{{key}}}", start, start + count - 1))
        return ids
