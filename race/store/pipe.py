"""Lean Redis connections for the move path: commands on one connection shared by every
caller (:class:`RedisPipe`); and what every lean connection shares (:class:`Connection`),
which the lean pub/sub connections of :mod:`race.store.pubsub` and :mod:`race.store.sharded`
build on.

Each command is written as soon as it is issued (the commands issued in one turn of the
event loop go out in one write) and the replies are matched to them in order (RESP2), so
any number of concurrent moves share one connection and one system call per batch, with
none of a general client's per-command pool, retry and parser layers. The store uses it for
the move path's commands (``HMGET``, the commit script, the broadcasts); everything else
goes through redis-py.

Failures look like redis-py's to the store: a refused or lost connection raises
:class:`ConnectionError` (an ``OSError``), a reply that takes longer than ``timeout``
raises :class:`TimeoutError` and drops the connection (a late reply could not be matched any
more). A command that finds its connection gone is retried twice on a new one, quickly, as
the store's redis-py client does after a Redis restart; so is one that a primary demoted to a
replica refuses (``READONLY``), on a new connection to wherever the address leads now.

A connection's address is the URL's, or asked afresh before each connection of a ``locate``
function (the primary that Redis Sentinel names, or a Redis Cluster node's). Each connection
names itself (``CLIENT SETNAME``) when given a name, so that ``CLIENT LIST`` shows whose it is.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar
from urllib.parse import unquote, urlsplit

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ReadOnlyError, RedisError

from race.store.resp import encode, take_replies

log = logging.getLogger(__name__)


class Wire(asyncio.Protocol):
    """What :class:`Connection` needs of a connection's protocol."""

    transport: Any
    closed: bool


class _Protocol(Wire):
    """Commands in, replies matched to them in order. With ``timeout``, one watchdog timer
    per connection (not one per command) drops the connection when its oldest command has
    waited that long, failing every pending command with :class:`TimeoutError`."""

    def __init__(self, timeout: float | None = None) -> None:
        self.loop = asyncio.get_running_loop()
        self.timeout = timeout
        self.transport: Any = None  # asyncio's or uvloop's TCP transport
        self.pending: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.sent_at: collections.deque[float] = collections.deque()  # loop time of each pending command
        self.watchdog: asyncio.TimerHandle | None = None
        self.out: list[bytes] = []
        self.buf = bytearray()
        self.closed = False
        self.retiring = False  # to be closed once every reply is in
        self.wait: tuple[Any, ...] = ()  # the WAIT to send behind the commands of this batch
        self.waited: asyncio.Future[Any] | None = None  # and its reply

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def call(self, args: tuple[Any, ...]) -> asyncio.Future[Any]:
        if self.closed:
            raise ConnectionError("the connection to Redis is closed")
        fut = self.loop.create_future()
        self._queue(args, fut)
        return fut

    def replicated(self, replicas: int, ms: int) -> asyncio.Future[Any]:
        """The reply of one ``WAIT replicas ms`` sent behind every command of this batch (those
        called in this turn of the event loop): how many replicas have them all."""
        if self.waited is None:
            self.waited, self.wait = self.loop.create_future(), ("WAIT", replicas, ms)
        return self.waited

    def _queue(self, args: tuple[Any, ...], fut: asyncio.Future[Any]) -> None:
        now = self.loop.time()
        self.pending.append(fut)
        self.sent_at.append(now)
        if self.watchdog is None and self.timeout is not None:
            self.watchdog = self.loop.call_at(now + self.timeout, self._watch)
        self.out.append(encode(args))
        if len(self.out) == 1:
            self.loop.call_soon(self._flush)

    def _watch(self) -> None:
        self.watchdog = None
        if self.closed or not self.sent_at or self.timeout is None:
            return
        due = self.sent_at[0] + self.timeout
        if self.loop.time() >= due:
            self.abort(TimeoutError(f"Redis did not answer within {self.timeout:g} s"))
        else:
            self.watchdog = self.loop.call_at(due, self._watch)

    def _flush(self) -> None:
        if self.waited is not None and not self.closed:
            fut, self.waited = self.waited, None
            self._queue(self.wait, fut)
        data = b"".join(self.out)
        self.out.clear()
        if not self.closed and self.transport is not None:
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        try:
            replies = take_replies(self.buf)
        except (ConnectionError, IndexError, ValueError) as exc:
            self.abort(ConnectionError(f"bad reply stream from Redis: {exc}"))
            return
        for value in replies:
            if not self.pending:
                self.abort(ConnectionError("a reply from Redis that nothing asked for"))
                return
            fut = self.pending.popleft()
            self.sent_at.popleft()
            if not fut.done():
                if isinstance(value, Exception):
                    fut.set_exception(value)
                else:
                    fut.set_result(value)
        if self.retiring and not self.pending:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(ConnectionError(f"lost the connection to Redis: {exc or 'closed'}"))

    def abort(self, exc: Exception) -> None:
        if self.transport is not None:
            self.transport.abort()
        self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        self.closed = True
        if self.waited is not None:
            self.pending.append(self.waited)  # (not sent: failed with the rest)
            self.waited = None
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None
        self.sent_at.clear()
        while self.pending:
            fut = self.pending.popleft()
            if not fut.done():
                fut.set_exception(exc)


_P = TypeVar("_P", bound=Wire)


#: Where a connection goes: asked again before each new connection.
Locate = Callable[[], Awaitable[tuple[str, int]]]


class Connection(Generic[_P]):
    """What the command and the pub/sub connections share: the ``redis://`` URL's address
    (or ``locate``'s) and credentials, and one connection opened on first use and again after
    it is lost, whose connecting and :meth:`_handshake` (e.g. ``AUTH``) together must finish
    within ``connect_timeout``. Callers that waited while an attempt to connect failed share
    its error rather than each trying again (each could take ``connect_timeout``)."""

    def __init__(
        self, url: str, connect_timeout: float, *, locate: Locate | None = None, name: str | None = None
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme != "redis":
            raise ValueError(f"the lean connection needs a redis:// URL, not {parts.scheme}://")
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 6379
        self.db = int(parts.path.strip("/") or 0)
        self.username = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        self.connect_timeout = connect_timeout
        self.locate = locate
        self.name = name
        self._proto: _P | None = None
        self._lock = asyncio.Lock()
        self._attempts = 0
        self._failure: BaseException | None = None  # how the latest attempt to connect failed

    def _protocol(self) -> _P:
        """A protocol instance for a new connection."""
        raise NotImplementedError

    async def _handshake(self, proto: _P) -> None:
        """Prepare a new connection before anything else uses it."""
        raise NotImplementedError

    def _hello(self) -> list[tuple[Any, ...]]:
        """The commands that open a connection: ``AUTH`` with the URL's credentials, if it has
        any, and ``CLIENT SETNAME`` with the name, if there is one."""
        out: list[tuple[Any, ...]] = []
        if self.password is not None:
            out.append(("AUTH", self.username, self.password) if self.username else ("AUTH", self.password))
        if self.name:
            out.append(("CLIENT", "SETNAME", self.name))
        return out

    async def _connection(self) -> _P:
        proto = self._proto
        if proto is not None and not proto.closed:
            return proto
        seen = self._attempts
        async with self._lock:
            if self._proto is not None and not self._proto.closed:
                return self._proto
            if self._attempts != seen and self._failure is not None:
                raise self._failure  # the attempt waited on has just failed: not again at once
            self._attempts += 1
            try:
                proto = await self._connect()
            except BaseException as exc:
                self._failure = exc if isinstance(exc, Exception) else None
                raise
            self._failure = None
            self._proto = proto
            return proto

    async def _connect(self) -> _P:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self.connect_timeout):
            host, port = await self.locate() if self.locate is not None else (self.host, self.port)
            _, proto = await loop.create_connection(self._protocol, host, port)
            try:
                await self._handshake(proto)
            except BaseException:  # refused (e.g. a wrong password) or timed out: not kept
                if proto.transport is not None:
                    proto.transport.close()
                raise
        return proto

    @property
    def connecting(self) -> bool:
        return self._lock.locked()

    def drop(self) -> None:
        """Close the connection now (it is opened again on next use)."""
        proto, self._proto = self._proto, None
        if proto is not None and proto.transport is not None:
            proto.transport.close()

    async def close(self) -> None:
        self.drop()


class RedisPipe(Connection[_Protocol]):
    """One shared connection to the Redis of a ``redis://[[user]:password@]host[:port][/db]``
    URL, opened on first use and again after it is lost."""

    RETRIES = 2

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 5.0,
        connect_timeout: float = 5.0,
        locate: Locate | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(url, connect_timeout, locate=locate, name=name)
        self.timeout = timeout
        self._warned = -1e9  # when replicas that did not keep up were last logged

    def _protocol(self) -> _Protocol:
        return _Protocol(self.timeout)

    def retire(self) -> None:
        """Close the connection once the replies to the commands sent are in (a node that is
        no master any more: the pipe is not used again)."""
        proto = self._proto
        if proto is None or proto.closed or not proto.pending:
            self.drop()
        else:
            proto.retiring = True

    async def _handshake(self, proto: _Protocol) -> None:
        hello = [proto.call(command) for command in self._hello()]
        if self.db:
            hello.append(proto.call(("SELECT", self.db)))
        for fut in hello:
            await fut

    async def execute(self, *args: Any, wait: tuple[int, int] | None = None) -> Any:
        """Send one command and return its reply (a str, int, list or None). With ``wait``
        (replicas, ms), return once that many replicas have it too, or the ms have passed
        (``WAIT``, one for all the commands sent together)."""
        return await self._execute(args, None, wait)

    async def execute_asking(self, *args: Any, wait: tuple[int, int] | None = None) -> Any:
        """Send one command right behind an ``ASKING`` (a Redis Cluster slot being migrated
        here) and return its reply."""
        return await self._execute(args, ("ASKING",), wait)

    async def _execute(self, args: tuple[Any, ...], before: tuple[Any, ...] | None, wait: Any) -> Any:
        for attempt in range(self.RETRIES + 1):
            proto = await self._connection()
            try:
                first = proto.call(before) if before is not None else None
                fut = proto.call(args)  # right behind it: nothing else is sent in between
            except ConnectionError:
                if attempt == self.RETRIES:
                    raise
                continue
            acked = proto.replicated(*wait) if wait is not None else None
            try:
                if first is not None:
                    await first
                reply = await fut  # the connection's watchdog fails it after ``timeout``
                if acked is not None:
                    await self._replicated(acked, wait)
                return reply
            except (ConnectionError, RedisConnectionError):  # lost, or Redis still loading
                if attempt == self.RETRIES:
                    raise
                await asyncio.sleep(0.01 * 2**attempt)
            except ReadOnlyError:
                # A primary demoted to a replica (a failover): the next connection goes to
                # wherever the address (or Sentinel) leads now. Nothing was written: retry.
                if not proto.closed:
                    proto.abort(ConnectionError("the primary was demoted to a replica"))
                if attempt == self.RETRIES:
                    raise
                await asyncio.sleep(0.01 * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _replicated(self, acked: asyncio.Future[Any], wait: tuple[int, int]) -> None:
        """Wait for a ``WAIT``'s reply. Fewer replicas than asked (none answered in time, or
        the connection was lost after the command's reply) is logged, not raised: the command
        is done, and sending it again would not undo it."""
        replicas: int | str
        try:
            replicas = int(await acked)
        except (ConnectionError, RedisError) as exc:
            replicas = f"unknown ({exc})"
        if not isinstance(replicas, int) or replicas < wait[0]:
            now = asyncio.get_running_loop().time()
            if now - self._warned > 10:
                self._warned = now
                log.warning("a write reached %s of %d replicas within %d ms", replicas, *wait)

    async def evalsha(
        self, sha: str, script: str, keys: list[str], args: list[Any], wait: tuple[int, int] | None = None
    ) -> Any:
        """Run a Lua script by its SHA1, sending its text once when Redis does not know it."""
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args, wait=wait)
        except NoScriptError:
            return await self.execute("EVAL", script, len(keys), *keys, *args, wait=wait)
