"""Sharded pub/sub on Redis Cluster over lean connections (:class:`ClusterSubscriber`):
each room's channel ``SSUBSCRIBE``d on the master that serves its slot, one connection per
master, following the channel through failovers and reshardings."""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import AsyncGenerator, Callable
from typing import Any

from redis.exceptions import AskError, MovedError, RedisError, TryAgainError

from .base import RESYNC
from .cluster import SlotMap, slot_of
from .pipe import Connection, Wire
from .resp import encode, take_replies

log = logging.getLogger(__name__)


class _ShardProtocol(Wire):
    """One cluster node's pub/sub connection (``SSUBSCRIBE``). The replies to the commands sent
    are matched to them in order; the pushes go to the subscriber: each message of a channel
    in :attr:`live`, and each ``sunsubscribe`` nobody asked for (the node gave up the slot)."""

    def __init__(self, owner: ClusterSubscriber, address: str) -> None:
        self.owner = owner
        self.address = address
        self.transport: Any = None
        self.buf = bytearray()
        self.closed = False
        #: The channels subscribed on this connection whose messages are wanted.
        self.live: set[str] = set()
        #: The commands sent, oldest first: (command, channel, future or None).
        self.pending: collections.deque[tuple[str, str, asyncio.Future[Any] | None]] = collections.deque()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def send(self, *args: Any, reply: bool = True) -> asyncio.Future[Any] | None:
        """Send a command; its reply comes through the future returned (``reply``) or is let go."""
        if self.closed:
            raise ConnectionError(f"the pub/sub connection to {self.address} is closed")
        fut = asyncio.get_running_loop().create_future() if reply else None
        self.pending.append((str(args[0]), str(args[1]) if len(args) > 1 else "", fut))
        self.transport.write(encode(args))
        return fut

    def data_received(self, data: bytes) -> None:
        self.buf += data
        try:
            replies = take_replies(self.buf)
        except (ConnectionError, IndexError, ValueError) as exc:
            log.warning("bad pub/sub reply stream from %s: %s", self.address, exc)
            self.transport.abort()
            return
        for value in replies:
            if type(value) is list and len(value) == 3 and value[0] == "smessage":
                if value[1] in self.live:
                    self.owner.queue.put_nowait((value[1], value[2]))
                continue
            if type(value) is list and value and value[0] == "sunsubscribe":
                head = self.pending[0] if self.pending else None
                if head is None or head[0] != "SUNSUBSCRIBE" or head[1] != value[1]:
                    self.live.discard(value[1])
                    self.owner._dropped(self, value[1])  # unasked: the slot left this node
                    continue
            if not self.pending:
                log.warning("a pub/sub reply from %s that nothing asked for: %.80r", self.address, value)
                self.transport.abort()
                return
            command, channel, fut = self.pending.popleft()
            if command == "SSUBSCRIBE" and not isinstance(value, Exception):
                self.owner._confirmed(self, channel)  # now: the messages right behind it count
            if fut is not None and not fut.done():
                if isinstance(value, Exception):
                    fut.set_exception(value)
                else:
                    fut.set_result(value)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        error = ConnectionError(f"lost the pub/sub connection to {self.address}: {exc or 'closed'}")
        while self.pending:
            fut = self.pending.popleft()[2]
            if fut is not None and not fut.done():
                fut.set_exception(error)
        self.owner._lost(self)


class _ShardNode(Connection[_ShardProtocol]):
    """The one pub/sub connection to a cluster node, opened on first use (once, however many
    channels want it at the same moment) and again after it is lost."""

    def __init__(self, owner: ClusterSubscriber, address: str, url: str, connect_timeout: float, name: str | None):
        super().__init__(url, connect_timeout, name=name)
        self.owner = owner
        self.address = address

    def _protocol(self) -> _ShardProtocol:
        return _ShardProtocol(self.owner, self.address)

    async def _handshake(self, proto: _ShardProtocol) -> None:
        for fut in [proto.send(*command) for command in self._hello()]:
            assert fut is not None
            await fut

    async def connection(self) -> _ShardProtocol:
        return await self._connection()

    @property
    def proto(self) -> _ShardProtocol | None:
        return self._proto


class ClusterSubscriber:
    """Sharded pub/sub on Redis Cluster that follows each channel to its slot's master.

    Each channel is subscribed (``SSUBSCRIBE``) on the master that serves its slot, over one
    lean connection per master, and only ever on a master. A channel goes astray when its
    master's connection is lost (the master died, or a network fault), when the master drops
    its subscription unasked (it gave up the slot: a resharding, or a failover that demoted
    it), when a master refuses it (``MOVED``), or when the slot map, read again, names another
    master for its slot (then it is unsubscribed where it was). A task subscribes each stray
    channel again on the master that the freshly read slot map names, retrying (0.1 s, backing
    off to 1 s) until it can; then ``(channel, RESYNC)`` is queued, since whatever was published
    meanwhile was missed. Every ``check`` seconds the task also reads the map again and PINGs
    each connection (one that does not answer within ``timeout`` is dropped): that finds a
    master that hangs, or a failover whose old master is not heard from.

    :meth:`subscribe` returns once the channel's master has confirmed the subscription (after
    following a ``MOVED``), or raises, leaving it unsubscribed."""

    RETRY_FIRST, RETRY_MOST = 0.1, 1.0

    def __init__(
        self,
        slots: SlotMap,
        node_url: Callable[[str], str],
        *,
        timeout: float = 5.0,
        check: float = 5.0,
        name: str | None = None,
    ) -> None:
        self.slots = slots
        self.node_url = node_url
        self.timeout = timeout
        self.check = check
        self.name = name
        self.queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self.wanted: set[str] = set()
        self.at: dict[str, str] = {}  # channel -> the master it is subscribed on
        self.astray: set[str] = set()  # wanted, subscribed nowhere now: to resync once back
        self.nodes: dict[str, _ShardNode] = {}
        self._placing: dict[str, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        slots.watch(self._wake.set)

    # -- what the store calls --------------------------------------------------------------

    async def subscribe(self, channel: str) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="cluster-pubsub")
        self.wanted.add(channel)
        try:
            await asyncio.shield(self._place_soon(channel))
        except BaseException:
            self.wanted.discard(channel)  # the caller is told it failed: not subscribed
            raise

    async def unsubscribe(self, channel: str) -> None:
        self.wanted.discard(channel)
        self.astray.discard(channel)
        address = self.at.get(channel)
        if address is not None:
            self._leave(channel, address)

    async def messages(self) -> AsyncGenerator[tuple[str, str], None]:
        while True:
            yield await self.queue.get()

    async def close(self) -> None:
        self.wanted.clear()  # nothing strays from here on
        tasks = [t for t in (self._task, *self._placing.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for node in self.nodes.values():
            await node.close()
        self.nodes.clear()

    # -- what the connections report --------------------------------------------------------

    def _confirmed(self, proto: _ShardProtocol, channel: str) -> None:
        """``proto``'s node has subscribed ``channel``."""
        if channel in self.wanted and self.at.get(channel, proto.address) == proto.address:
            self.at[channel] = proto.address
            proto.live.add(channel)
            if channel in self.astray:
                self.astray.discard(channel)
                self.queue.put_nowait((channel, RESYNC))
        elif channel not in proto.live:  # unsubscribed (or subscribed elsewhere) meanwhile
            proto.send("SUNSUBSCRIBE", channel, reply=False)

    def _dropped(self, proto: _ShardProtocol, channel: str) -> None:
        """``proto``'s node ended the subscription to ``channel`` unasked."""
        if self.at.get(channel) == proto.address:
            del self.at[channel]
            self._stray(channel)  # (the node gave up its slot)

    def _lost(self, proto: _ShardProtocol) -> None:
        """``proto``'s connection is lost, with every subscription on it."""
        strays = [c for c in proto.live if self.at.get(c) == proto.address and c in self.wanted]
        proto.live.clear()
        for channel in strays:
            del self.at[channel]
            self._stray(channel)
        if strays:
            log.warning("lost the sharded pub/sub connection to %s: %d rooms to follow", proto.address, len(strays))

    def _stray(self, channel: str) -> None:
        if channel in self.wanted:
            self.astray.add(channel)
            self._wake.set()

    # -- placing channels -------------------------------------------------------------------

    def _leave(self, channel: str, address: str) -> None:
        """Unsubscribe ``channel`` on ``address`` (its messages from there are dropped from now)."""
        if self.at.get(channel) == address:
            del self.at[channel]
        node = self.nodes.get(address)
        proto = node.proto if node is not None else None
        if proto is not None and not proto.closed and channel in proto.live:
            proto.live.discard(channel)
            proto.send("SUNSUBSCRIBE", channel, reply=False)

    def _place_soon(self, channel: str) -> asyncio.Task[None]:
        """The task subscribing ``channel`` on its master: one at a time per channel."""
        task = self._placing.get(channel)
        if task is None:
            task = self._placing[channel] = asyncio.create_task(self._place(channel), name=f"ssubscribe-{channel}")

            def done(t: asyncio.Task[None]) -> None:
                if self._placing.get(channel) is t:
                    del self._placing[channel]
                if not t.cancelled():
                    t.exception()  # retrieved: the callers have it

            task.add_done_callback(done)
        return task

    async def _place(self, channel: str) -> None:
        slot = slot_of(channel)
        for attempt in range(4):
            if channel not in self.wanted:
                return
            address = self.slots.owner(slot) or await self.slots.locate(slot)
            node = self.nodes.get(address)
            if node is None:
                node = self.nodes[address] = _ShardNode(self, address, self.node_url(address), self.timeout, self.name)
            proto = await node.connection()
            if self.at.get(channel) == address and channel in proto.live:
                return
            fut = proto.send("SSUBSCRIBE", channel)
            assert fut is not None
            try:
                async with asyncio.timeout(self.timeout):
                    await fut  # (cancelled on time out: then its reply, if any, is let go)
            except MovedError as exc:  # the map is behind: the slot is elsewhere
                self.slots.moved(slot, exc.host, exc.port)
                continue
            except (AskError, TryAgainError):  # a migration under way: a moment
                await asyncio.sleep(0.05 * 2**attempt)
                continue
            except TimeoutError:
                # Redis may still act on it: start again on a new connection (its rooms resync).
                proto.transport.abort()
                raise TimeoutError(f"{address} did not confirm a subscription within {self.timeout:g} s") from None
            if self.at.get(channel) == address:
                return
            if channel in self.wanted:
                continue  # e.g. the connection was lost right after: again
            return
        raise ConnectionError(f"could not subscribe {channel}: its slot kept moving")

    async def _run(self) -> None:
        """Follow the stray channels, and check the map and the connections every ``check``."""
        delay, failing = self.RETRY_FIRST, False
        while True:
            checking = False
            if not self._wake.is_set():
                try:
                    async with asyncio.timeout(self.check):
                        await self._wake.wait()
                except TimeoutError:
                    checking = True
            self._wake.clear()
            try:
                if checking or self.astray:
                    await self.slots.refresh()
                self._follow_map()
                if checking:
                    await self._ping_all()
                if placed := await self._place_strays():
                    log.info("sharded pub/sub: %d rooms subscribed again on their masters", placed)
            except asyncio.CancelledError:
                raise
            except (OSError, RedisError) as exc:
                if not failing:
                    log.warning("sharded pub/sub: %d rooms wait for their master: %s", len(self.astray), exc)
                failing = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.RETRY_MOST)
                self._wake.set()
                continue
            except Exception:
                log.exception("sharded pub/sub: unexpected failure; going on")
                await asyncio.sleep(self.RETRY_MOST)
                self._wake.set()
                continue
            if failing:
                log.info("sharded pub/sub: every room is subscribed on its master again")
            delay, failing = self.RETRY_FIRST, False

    def _follow_map(self) -> None:
        """Unsubscribe each channel on a node that the map no longer names its slot's master (a
        failover demoted it, or the slot moved): it strays, to its master. Close the connections
        to nodes that are no master any more and have nothing subscribed."""
        if not self.slots.owners:
            return
        for channel, address in list(self.at.items()):
            owner = self.slots.owner(slot_of(channel))
            if owner and owner != address:
                self._leave(channel, address)
                self._stray(channel)
        for address, node in list(self.nodes.items()):
            proto = node.proto
            if address in self.slots.masters or node.connecting:
                continue
            if proto is None or proto.closed or not (proto.live or proto.pending):
                del self.nodes[address]
                node.drop()

    async def _ping_all(self) -> None:
        async def ping(proto: _ShardProtocol) -> None:
            fut = proto.send("PING")
            assert fut is not None
            try:
                async with asyncio.timeout(self.timeout):
                    await fut
            except TimeoutError:
                log.warning("sharded pub/sub: %s did not answer a PING in %g s", proto.address, self.timeout)
                proto.transport.abort()
            except (OSError, RedisError):
                pass  # lost: reported by the connection itself

        protos = [n.proto for n in self.nodes.values()]
        await asyncio.gather(*(ping(p) for p in protos if p is not None and not p.closed))

    async def _place_strays(self) -> int:
        """Subscribe each stray channel on its master; how many were. Raises when any fails."""
        strays = [c for c in self.astray if c in self.wanted]
        if not strays:
            return 0
        results = await asyncio.gather(*(asyncio.shield(self._place_soon(c)) for c in strays), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
        return len(strays)
