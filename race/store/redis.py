"""The Redis store: rooms in Redis hashes, broadcasts over Redis pub/sub.

Every key of a room shares the hash tag ``{CODE}`` (``room:{CODE}`` holds the documents,
``room:{CODE}:aside`` those kept aside, ``room:{CODE}:log:NAME`` a document's log), so one
Lua script can touch them atomically and the design runs unchanged on Redis Cluster. The
room's channel is ``room:{CODE}``; on a cluster the store uses sharded pub/sub (``SPUBLISH``
/ ``SSUBSCRIBE``, in :mod:`race.store.pubsub`). The documents' reads and commits and the room
broadcasts go over the lean connections of :mod:`race.store.pipe` (plain ``redis://``), the
rest through redis-py.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from .base import ASIDE, COUNTED, LOG_LENGTH, Doc, LogEntry, Roll, Store, StoreUnavailable
from .pipe import RedisPipe, RedisSubscriber
from .pubsub import DOWN, CountingPubSub, ShardedPubSub

log = logging.getLogger(__name__)
T = TypeVar("T")

# Which hash holds a document: the room's (the first key), or for names kept aside its
# aside hash (the last key).
_HASH = """
local function hash(name)
  if string.sub(name, 1, #'ASIDE') == 'ASIDE' then return KEYS[#KEYS] end
  return KEYS[1]
end
""".replace("ASIDE", ASIDE)

# KEYS: the room hash, the log list (or the hash again when there is no log), the aside hash.
# ARGV: ttl, n_expect, (name, version)*, n_write, (name, data)*, log_name, log_data,
#       channel, message, publish command.
COMMIT = (
    _HASH
    + """
local ttl = tonumber(ARGV[1])
local i = 2
local n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  local cur = tonumber(redis.call('HGET', hash(ARGV[i]), 'v:' .. ARGV[i]) or '0')
  if cur ~= tonumber(ARGV[i + 1]) then return 0 end
  i = i + 2
end
n = tonumber(ARGV[i]); i = i + 1
local versions = {}
for _ = 1, n do
  local key = hash(ARGV[i])
  if ARGV[i + 1] == '' then
    redis.call('HDEL', key, 'v:' .. ARGV[i], 'd:' .. ARGV[i])
  else
    versions[ARGV[i]] = redis.call('HINCRBY', key, 'v:' .. ARGV[i], 1)
    redis.call('HSET', key, 'd:' .. ARGV[i], ARGV[i + 1])
  end
  i = i + 2
end
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
if ARGV[i] ~= '' then
  redis.call('RPUSH', KEYS[2], versions[ARGV[i]] .. '|' .. ARGV[i + 1])
  redis.call('LTRIM', KEYS[2], -LOG_LENGTH, -1)
  redis.call('EXPIRE', KEYS[2], ttl)
end
i = i + 2
if ARGV[i] ~= '' then redis.call(ARGV[i + 2], ARGV[i], ARGV[i + 1]) end
return 1
""".replace("LOG_LENGTH", str(LOG_LENGTH))
)

# KEYS: the room hash, the aside hash. ARGV: names. Returns each name's version and data.
READ = (
    _HASH
    + """
local out = {}
for _, name in ipairs(ARGV) do
  local got = redis.call('HMGET', hash(name), 'v:' .. name, 'd:' .. name)
  out[#out + 1] = got[1]
  out[#out + 1] = got[2]
end
return out
"""
)


# KEYS: the board's sorted set, its hash (m:PLAYER -> member, d:PLAYER -> data).
# ARGV: player, sort key, data, ttl.
BOARD_ADD = """
if redis.call('HSETNX', KEYS[2], 'm:' .. ARGV[1], ARGV[2] .. '|' .. ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'd:' .. ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], 0, ARGV[2] .. '|' .. ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
"""


# KEYS: the room's presence: listed members (a sorted set: member -> until), counted members
# (likewise), the version, when each seat's last listed member went (a hash: seat -> time).
# ARGV: now, until, ttl, n_here, here*, gone*.
# Returns the version, the changed flag, the listed members, how many are counted, whether a
# listed member was added, and the seats gone with their times (flat).
PRESENCE = """
local function key(member)
  if string.sub(member, 1, #'COUNTED') == 'COUNTED' then return KEYS[2] end
  return KEYS[1]
end
local function seats()
  local out = {}
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do out[string.match(m, '^(%S+)')] = true end
  return out
end
local before = seats()
local n = tonumber(ARGV[4])
local changed, added = 0, 0
for i = 5, 4 + n do
  if redis.call('ZADD', key(ARGV[i]), ARGV[2], ARGV[i]) == 1 then
    changed = 1
    if key(ARGV[i]) == KEYS[1] then added = 1 end
  end
end
for i = 5 + n, #ARGV do
  if redis.call('ZREM', key(ARGV[i]), ARGV[i]) == 1 then changed = 1 end
end
for k = 1, 2 do
  if redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', ARGV[1]) > 0 then changed = 1 end
end
local after = seats()
for seat in pairs(before) do
  if not after[seat] then redis.call('HSET', KEYS[4], seat, ARGV[1]) end
end
for seat in pairs(after) do redis.call('HDEL', KEYS[4], seat) end
local version = tonumber(redis.call('GET', KEYS[3]) or '0')
if changed == 1 and version == 0 then  -- from the clock, so it grows even after a lost record
  local t = redis.call('TIME')
  version = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('SET', KEYS[3], string.format('%.0f', version))
elseif changed == 1 then
  version = redis.call('INCR', KEYS[3])
end
for k = 1, 4 do redis.call('EXPIRE', KEYS[k], ARGV[3]) end
return {string.format('%.0f', version), changed, redis.call('ZRANGE', KEYS[1], 0, -1), redis.call('ZCARD', KEYS[2]),
        added, redis.call('HGETALL', KEYS[4])}
""".replace("COUNTED", COUNTED)


# KEYS: the allowance (a hash: tokens, at). ARGV: rate a second, burst, now.
# Returns 1 if a token was taken. The key expires once the allowance is full again.
SPEND = """
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(held[1]) or burst, tonumber(held[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local spent = 0
if tokens >= 1 then
  tokens = tokens - 1
  spent = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', string.format('%.6f', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1)
return spent
"""


def board_keys(group: str) -> tuple[str, str]:
    return f"board:{{{group}}}", f"board:{{{group}}}:entries"


def room_key(room: str) -> str:
    return f"room:{{{room}}}"


def aside_key(room: str) -> str:
    return f"room:{{{room}}}:aside"


class RedisStore(Store):
    def __init__(self, url: str, *, ttl: int, cluster: bool = False) -> None:
        super().__init__(ttl=ttl)
        self.url = url
        self.cluster = cluster
        self._redis: Any = None
        self._pubsub: Any = None
        self._commit: Any = None
        self._rooms: set[str] = set()
        self._pipe: RedisPipe | None = None  # the move path's lean connection (plain redis:// only)
        self._sub: RedisSubscriber | None = None  # and its lean pub/sub connection

    async def connect(self) -> None:
        if self.cluster:
            self._redis = aioredis.RedisCluster.from_url(self.url, decode_responses=True)
        else:
            # A pooled connection left over from before a Redis restart fails once: retry
            # connection errors quickly on a fresh connection (a retried commit is safe: it
            # checks versions), and report an outage within a fraction of a second.
            self._redis = aioredis.Redis.from_url(
                self.url,
                decode_responses=True,
                socket_timeout=5,
                socket_connect_timeout=5,
                retry=Retry(ExponentialBackoff(cap=0.1, base=0.01), 2),
                retry_on_error=[RedisConnectionError],
            )
        self._commit = self._redis.register_script(COMMIT)
        self._read = self._redis.register_script(READ)
        self._board_add = self._redis.register_script(BOARD_ADD)
        self._presence = self._redis.register_script(PRESENCE)
        self._spend = self._redis.register_script(SPEND)
        self._pubsub = ShardedPubSub(self._redis) if self.cluster else CountingPubSub(self._redis.connection_pool)
        if not self.cluster and self.url.startswith("redis://"):
            self._pipe = RedisPipe(self.url, timeout=5, connect_timeout=5)
            self._sub = RedisSubscriber(self.url, connect_timeout=5)

    async def close(self) -> None:
        if self._pipe is not None:
            await self._pipe.close()
        if self._sub is not None:
            await self._sub.close()
        if self._pubsub is not None:
            await self._pubsub.aclose()
        if self._redis is not None:
            await self._redis.aclose()

    async def _call(self, fn: Callable[[], Awaitable[T]]) -> T:
        try:
            return await fn()
        except DOWN as exc:
            raise StoreUnavailable(f"Redis is unavailable: {exc}") from None

    async def _script(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a registered Lua script: over the lean connection when there is one."""
        if self._pipe is not None:
            pipe = self._pipe
            return await self._call(lambda: pipe.evalsha(script.sha, script.script, keys, args))
        return await self._call(lambda: script(keys=keys, args=args))

    async def ping(self) -> None:
        await self._call(self._redis.ping)

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
        result = await self._script(self._commit, keys, args)
        return bool(result)

    async def log_since(self, room: str, name: str, version: int) -> list[LogEntry] | None:
        raw = await self._call(lambda: self._redis.lrange(f"{room_key(room)}:log:{name}", 0, -1))
        entries = []
        for item in raw:
            v, _, data = item.partition("|")
            if int(v) > version:
                entries.append(LogEntry(int(v), data))
        if entries and entries[0].version != version + 1:
            return None
        return entries

    @property
    def _publish_cmd(self) -> str:
        return "SPUBLISH" if self.cluster else "PUBLISH"

    async def publish(self, room: str, message: str) -> None:
        key = room_key(room)
        if self.cluster:
            await self._call(lambda: self._redis.execute_command("SPUBLISH", key, message))
        else:
            await self._call(lambda: self._redis.publish(key, message))

    async def subscribe(self, room: str) -> None:
        self._rooms.add(room)
        try:
            if self._sub is not None:
                sub = self._sub
                await self._call(lambda: sub.subscribe(room_key(room)))
            elif self.cluster:
                await self._call(lambda: self._pubsub.ssubscribe(room_key(room)))
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
            return
        if self.cluster:
            await self._call(lambda: self._pubsub.sunsubscribe(room_key(room)))
        else:
            await self._call(lambda: self._pubsub.unsubscribe(room_key(room)))

    async def messages(self) -> AsyncIterator[tuple[str, str]]:
        """Yields room messages; after an outage it yields ``("*", "reconnected")`` once
        Redis is back, since messages published meanwhile are lost and clients need resync."""
        if self._sub is not None:
            async for channel, message in self._sub.messages():
                yield channel if channel == "*" else channel[channel.index("{") + 1 : channel.rindex("}")], message
            return
        if self.cluster:
            while True:
                channel, message = await self._pubsub.queue.get()
                yield channel if channel == "*" else channel[channel.index("{") + 1 : channel.rindex("}")], message
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
            if msg is None or msg.get("type") not in ("message", "smessage"):
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
