"""A lean Redis connection for the move path: one connection shared by every caller.

Each command is written as soon as it is issued (the commands issued in one turn of the
event loop go out in one write) and the replies are matched to them in order (RESP2), so
any number of concurrent moves share one connection and one system call per batch, with
none of a general client's per-command pool, retry and parser layers. The store uses it for
its two hot commands (``HMGET`` and the commit script); everything else goes through
redis-py.

Failures look like redis-py's to the store: a refused or lost connection raises
:class:`ConnectionError` (an ``OSError``), a reply that takes longer than ``timeout``
raises :class:`TimeoutError` and drops the connection (a late reply could not be matched any
more). A command that finds its connection gone is retried twice on a new one, quickly, as
the store's redis-py client does after a Redis restart.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.exceptions import NoScriptError, ResponseError

_INCOMPLETE = object()


def encode(args: tuple[Any, ...]) -> bytes:
    """A command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, str):
            data = arg.encode()
        else:
            data = str(arg).encode()
        out.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(out)


def parse(buf: bytearray, pos: int) -> tuple[Any, int]:
    """One RESP2 reply at ``buf[pos:]`` and the position after it, or ``(_INCOMPLETE, pos)``.
    Bulk strings are decoded as UTF-8; an error reply is returned as a ResponseError."""
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return _INCOMPLETE, pos
    kind = buf[pos]
    if kind == 36:  # $ bulk string
        n = int(buf[pos + 1 : end])
        if n < 0:
            return None, end + 2
        start = end + 2
        if len(buf) < start + n + 2:
            return _INCOMPLETE, pos
        return buf[start : start + n].decode(), start + n + 2
    if kind == 58:  # : integer
        return int(buf[pos + 1 : end]), end + 2
    if kind == 42:  # * array
        n = int(buf[pos + 1 : end])
        if n < 0:
            return None, end + 2
        items = []
        at = end + 2
        for _ in range(n):
            item, after = parse(buf, at)
            if item is _INCOMPLETE:
                return _INCOMPLETE, pos
            items.append(item)
            at = after
        return items, at
    if kind == 43:  # + simple string
        return buf[pos + 1 : end].decode(), end + 2
    if kind == 45:  # - error
        text = buf[pos + 1 : end].decode()
        return (NoScriptError if text.startswith("NOSCRIPT") else ResponseError)(text), end + 2
    raise ConnectionError(f"unexpected reply from Redis: {bytes(buf[pos : pos + 20])!r}")


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.transport: Any = None  # asyncio's or uvloop's TCP transport
        self.pending: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.out: list[bytes] = []
        self.buf = bytearray()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def call(self, args: tuple[Any, ...]) -> asyncio.Future[Any]:
        if self.closed:
            raise ConnectionError("the connection to Redis is closed")
        fut = self.loop.create_future()
        self.pending.append(fut)
        self.out.append(encode(args))
        if len(self.out) == 1:
            self.loop.call_soon(self._flush)
        return fut

    def _flush(self) -> None:
        data = b"".join(self.out)
        self.out.clear()
        if not self.closed and self.transport is not None:
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        pos = 0
        try:
            while pos < len(buf):
                value, after = parse(buf, pos)
                if value is _INCOMPLETE:
                    break
                pos = after
                fut = self.pending.popleft()
                if not fut.done():
                    if isinstance(value, ResponseError):
                        fut.set_exception(value)
                    else:
                        fut.set_result(value)
        except (ConnectionError, IndexError, ValueError) as exc:
            self.abort(ConnectionError(f"bad reply stream from Redis: {exc}"))
            return
        del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(ConnectionError(f"lost the connection to Redis: {exc or 'closed'}"))

    def abort(self, exc: Exception) -> None:
        if self.transport is not None:
            self.transport.abort()
        self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        self.closed = True
        while self.pending:
            fut = self.pending.popleft()
            if not fut.done():
                fut.set_exception(exc)


class RedisPipe:
    """One shared connection to the Redis of a ``redis://[[user]:password@]host[:port][/db]``
    URL, opened on first use and again after it is lost."""

    RETRIES = 2

    def __init__(self, url: str, *, timeout: float = 5.0, connect_timeout: float = 5.0) -> None:
        parts = urlsplit(url)
        if parts.scheme != "redis":
            raise ValueError(f"the lean connection needs a redis:// URL, not {parts.scheme}://")
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 6379
        self.db = int(parts.path.strip("/") or 0)
        self.username = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self._proto: _Protocol | None = None
        self._lock = asyncio.Lock()

    async def _connection(self) -> _Protocol:
        proto = self._proto
        if proto is not None and not proto.closed:
            return proto
        async with self._lock:
            if self._proto is None or self._proto.closed:
                loop = asyncio.get_running_loop()
                async with asyncio.timeout(self.connect_timeout):
                    _, proto = await loop.create_connection(_Protocol, self.host, self.port)
                    if self.password is not None:
                        auth = (self.username, self.password) if self.username else (self.password,)
                        await proto.call(("AUTH", *auth))
                    if self.db:
                        await proto.call(("SELECT", self.db))
                self._proto = proto
            return self._proto

    async def execute(self, *args: Any) -> Any:
        """Send one command and return its reply (a str, int, list or None)."""
        for attempt in range(self.RETRIES + 1):
            proto = await self._connection()
            try:
                fut = proto.call(args)
            except ConnectionError:
                if attempt == self.RETRIES:
                    raise
                continue
            try:
                async with asyncio.timeout(self.timeout):
                    return await fut
            except TimeoutError:
                proto.abort(TimeoutError("Redis did not answer in time"))
                raise TimeoutError(f"Redis did not answer within {self.timeout:g} s") from None
            except ConnectionError:
                if attempt == self.RETRIES:
                    raise
                await asyncio.sleep(0.01 * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    async def evalsha(self, sha: str, script: str, keys: list[str], args: list[Any]) -> Any:
        """Run a Lua script by its SHA1, sending its text once when Redis does not know it."""
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self.execute("EVAL", script, len(keys), *keys, *args)

    async def close(self) -> None:
        proto, self._proto = self._proto, None
        if proto is not None and proto.transport is not None:
            proto.transport.close()
