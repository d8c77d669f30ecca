"""Redis Cluster on the lean connections of :mod:`race.store.pipe`: the cluster's slot map
(:class:`SlotMap`), and commands sent to the master of their key's slot over one lean
connection per master (:class:`ClusterPipe`), following ``MOVED`` and ``ASK`` redirections
and failovers.

A room's keys share a hash tag, so each command of the move path (``HMGET``, the commit
script, ``SPUBLISH``) has one slot and goes to one master, as on a single Redis: the same
pipelined connection, plus a CRC16 of the key and a look-up in the map. The map is read with
``CLUSTER SLOTS`` at the first command, when a master redirects a command (``MOVED``), when a
master cannot be reached (a failover may have promoted one of its replicas), and whenever
:meth:`SlotMap.refresh` is asked by someone else (the sharded pub/sub checks it every few
seconds); reads are never run twice at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from redis.crc import key_slot
from redis.exceptions import AskError, MovedError, NoScriptError, RedisError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError

from .pipe import RedisPipe

log = logging.getLogger(__name__)
SLOTS = 16384
#: Nodes asked for the slot map at once (the first answer wins).
ASK_AT_ONCE = 3


def slot_of(key: str) -> int:
    """The hash slot of ``key`` (of its hash tag, when it has one).

    >>> slot_of("room:{A}") == slot_of("room:{A}:log:p:s1") == slot_of("A")
    True
    """
    return key_slot(key.encode())


def ranges(slots: list[int]) -> str:
    """Slots as ranges, for people: ``0-5460,7000``.

    >>> ranges([0, 1, 2, 7, 9, 10])
    '0-2,7,9-10'
    """
    out: list[str] = []
    for s in sorted(slots):
        if out and out[-1].rpartition("-")[2] == str(s - 1):
            out[-1] = f"{out[-1].partition('-')[0]}-{s}"
        else:
            out.append(str(s))
    return ",".join(out)


def split_address(address: str) -> tuple[str, int]:
    """``host:port`` (an IPv6 host unbracketed) as a pair."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def parse_hosts(netloc: str, default_port: int) -> tuple[str, list[str]]:
    """A URL's ``[[user]:password@]host[:port][,host[:port]...]`` as its credentials (with the
    ``@``, or "") and its ``host:port`` addresses.

    >>> parse_hosts("u:p%40ss@a:7000,b,[::1]:7001", 6379)
    ('u:p%40ss@', ['a:7000', 'b:6379', '::1:7001'])
    """
    userinfo, _, hosts = netloc.rpartition("@")
    out = []
    for item in hosts.split(","):
        if item.startswith("["):
            host, _, rest = item[1:].partition("]")
            port = rest.removeprefix(":") or str(default_port)
        elif item.count(":") == 1:
            host, _, port = item.partition(":")
        else:
            host, port = item, str(default_port)
        if not host or not port.isdigit():
            raise ValueError(f"not a host[:port]: {item!r}")
        out.append(f"{host}:{int(port)}")
    return (f"{userinfo}@" if userinfo else ""), out


class SlotMap:
    """Which master serves each hash slot, as the cluster's nodes say (``CLUSTER SLOTS``).

    ``ask(address, command...)`` sends a command to a node and returns its reply. The map is
    read from the current masters first, then the seed addresses, then every other node known
    (replicas included), a few at once; the first answer is taken. Whoever wants to know when
    the map changed registers with :meth:`watch`."""

    def __init__(self, seeds: list[str], ask: Callable[..., Any], *, timeout: float) -> None:
        self.seeds = seeds
        self._ask = ask
        self.timeout = timeout
        self.owners: list[str] = []  # slot -> master address ("" when no master serves it)
        self.masters: dict[str, list[int]] = {}  # master address -> its slots
        self.nodes: list[str] = list(seeds)  # every node known, masters first
        self.version = 0  # grows whenever the map changes
        self.reads = 0  # times it was read
        self._reading: asyncio.Task[None] | None = None
        self._watchers: list[Callable[[], None]] = []

    def watch(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever the map changes."""
        self._watchers.append(callback)

    def owner(self, slot: int) -> str:
        """The master that serves ``slot`` as far as is known ("" when none, or not read yet)."""
        return self.owners[slot] if self.owners else ""

    async def locate(self, slot: int) -> str:
        """The master of ``slot``, reading the map first if it has not been read yet."""
        if not self.owners:
            await self.refresh()
        if not self.owners[slot]:
            raise ConnectionError(f"no master of the cluster serves slot {slot}")
        return self.owners[slot]

    def moved(self, slot: int, host: str, port: int) -> None:
        """A master said ``slot`` is served by ``host:port`` now (``MOVED``): note it, and read
        the whole map again soon (other slots may have moved with it)."""
        address = f"{host}:{port}"
        if self.owners and self.owners[slot] != address:
            self.owners[slot] = address
            self._changed()
        self.refresh_soon()

    def refresh_soon(self) -> None:
        """Read the map again in the background (unless a read is under way)."""
        if self._reading is None or self._reading.done():
            self._reading = asyncio.create_task(self._read(), name="cluster-slots")
            self._reading.add_done_callback(_quiet)

    async def refresh(self) -> bool:
        """Read the map again, or wait for the read under way; True if it changed. Raises
        :class:`ConnectionError` when no node answers."""
        before = self.version
        if self._reading is None or self._reading.done():
            self._reading = asyncio.create_task(self._read(), name="cluster-slots")
            self._reading.add_done_callback(_quiet)
        await asyncio.shield(self._reading)
        return self.version != before

    async def _read(self) -> None:
        candidates = list(dict.fromkeys([*self.masters, *self.seeds, *self.nodes]))
        errors: list[str] = []
        for k in range(0, len(candidates), ASK_AT_ONCE):
            batch = candidates[k : k + ASK_AT_ONCE]
            tasks = [asyncio.create_task(self._slots(address)) for address in batch]
            try:
                for done in asyncio.as_completed(tasks):
                    try:
                        address, reply = await done
                    except (OSError, RedisError) as exc:
                        errors.append(str(exc))
                        continue
                    self._apply(address, reply)
                    return
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        raise ConnectionError(f"no node of the cluster answers: {'; '.join(errors[-3:])}")

    async def _slots(self, address: str) -> tuple[str, Any]:
        try:
            async with asyncio.timeout(self.timeout):
                return address, await self._ask(address, "CLUSTER", "SLOTS")
        except TimeoutError:
            raise TimeoutError(f"{address} did not answer CLUSTER SLOTS within {self.timeout:g} s") from None

    def _apply(self, asked: str, reply: list[Any]) -> None:
        owners = [""] * SLOTS
        masters: dict[str, list[int]] = {}
        replicas: list[str] = []
        asked_host = split_address(asked)[0]
        for start, end, master, *others in reply:
            address = _endpoint(master, asked_host)
            owners[start : end + 1] = [address] * (end - start + 1)
            masters.setdefault(address, []).extend(range(start, end + 1))
            replicas += [_endpoint(node, asked_host) for node in others]
        self.reads += 1
        self.nodes = list(dict.fromkeys([*masters, *replicas, *self.nodes]))
        changed = owners != self.owners or masters.keys() != self.masters.keys()
        if changed and self.owners:
            log.info(
                "the cluster's slot map changed: masters %s",
                ", ".join(f"{a} ({ranges(s)})" for a, s in sorted(masters.items())),
            )
        self.owners, self.masters = owners, masters
        if changed:
            self._changed()

    def _changed(self) -> None:
        self.version += 1
        for callback in self._watchers:
            callback()

    async def close(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            await asyncio.gather(self._reading, return_exceptions=True)


def _endpoint(node: list[Any], asked_host: str) -> str:
    """A node's address in a ``CLUSTER SLOTS`` reply: an empty host is the one asked."""
    host = node[0] if node[0] not in ("", "?") else asked_host
    return f"{host}:{node[1]}"


def _quiet(task: asyncio.Task[Any]) -> None:
    """Retrieve a background read's failure (whoever needed it has awaited it)."""
    if not task.cancelled():
        task.exception()


class ClusterPipe:
    """Commands to a ``redis+cluster://[[user]:password@]host:port[,host:port...]`` cluster,
    each sent to the master of its key's slot over a lean connection (:class:`RedisPipe`) of
    its own per master, opened on first use. The key is the command's first argument, or for
    ``EVAL``/``EVALSHA`` the script's first key.

    - ``MOVED``: the slot has a new master; the command goes there, and the map is read again.
    - ``ASK``: the slot is being migrated and the key is on its new master already; the command
      goes there, right behind an ``ASKING``.
    - ``TRYAGAIN`` (a migration under way): tried again after a moment.
    - A master that cannot be reached (after :class:`RedisPipe`'s own quick retries): the map is
      read again, and when it names another master for the slot (a replica promoted), the
      command goes there; otherwise the error is raised (the store reports it as unavailable).
      Every write is safe to send again: a commit checks versions.
    """

    REDIRECTS = 5

    def __init__(
        self, url: str, *, timeout: float = 5.0, connect_timeout: float = 5.0, name: str | None = None
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "redis+cluster"):
            raise ValueError(f"a cluster URL is redis+cluster://host:port, not {parts.scheme}://")
        self._userinfo, seeds = parse_hosts(parts.netloc, 6379)
        user, _, password = self._userinfo.removesuffix("@").partition(":")
        self.username = unquote(user) or None
        self.password = unquote(password) if ":" in self._userinfo else None
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.name = name
        self.pipes: dict[str, RedisPipe] = {}
        self.slots = SlotMap(seeds, self._ask, timeout=connect_timeout)
        self.slots.watch(self._prune)

    def _prune(self) -> None:
        """Close the connections to nodes that are no master any more (a failover demoted them),
        once their replies are in: none stays open on a replica."""
        if not self.slots.masters:
            return
        for address, pipe in list(self.pipes.items()):
            if address not in self.slots.masters and not pipe.connecting:
                del self.pipes[address]
                pipe.retire()

    def node_url(self, address: str) -> str:
        """The ``redis://`` URL of the node at ``address`` (with the cluster URL's credentials)."""
        host, port = split_address(address)
        host = f"[{host}]" if ":" in host else quote(host)
        return f"redis://{self._userinfo}{host}:{port}/0"

    def pipe(self, address: str) -> RedisPipe:
        """The lean connection to the node at ``address``."""
        pipe = self.pipes.get(address)
        if pipe is None:
            pipe = self.pipes[address] = RedisPipe(
                self.node_url(address), timeout=self.timeout, connect_timeout=self.connect_timeout, name=self.name
            )
        return pipe

    async def _ask(self, address: str, *args: Any) -> Any:
        """A command to one node: over its connection if it has one, else a connection for it alone
        (a replica, a seed: not kept open)."""
        if address in self.pipes:
            return await self.pipes[address].execute(*args)
        pipe = RedisPipe(self.node_url(address), timeout=self.timeout, connect_timeout=self.connect_timeout)
        try:
            return await pipe.execute(*args)
        finally:
            await pipe.close()

    async def execute(self, *args: Any, wait: tuple[int, int] | None = None) -> Any:
        """Send one command to the master of its key's slot and return its reply (with
        ``wait``, once that many of its replicas have it, as :meth:`RedisPipe.execute`)."""
        key = args[3] if args[0] in ("EVALSHA", "EVAL") else args[1]
        slot = key_slot(key.encode())
        delay = 0.02
        for _ in range(self.REDIRECTS):
            address = self.slots.owner(slot) or await self.slots.locate(slot)
            pipe = self.pipes.get(address) or self.pipe(address)
            try:
                return await pipe.execute(*args, wait=wait)
            except MovedError as exc:
                self.slots.moved(slot, exc.host, exc.port)
            except AskError as exc:
                return await self.pipe(f"{exc.host}:{exc.port}").execute_asking(*args, wait=wait)
            except TryAgainError:
                await asyncio.sleep(delay)
                delay *= 2
            except (OSError, RedisConnectionError):
                # The master is gone, or hangs: has a failover given the slot another one?
                with contextlib.suppress(OSError):
                    await self.slots.refresh()
                if self.slots.owner(slot) in ("", address):
                    raise
        raise ConnectionError(f"slot {slot} kept moving: gave up after {self.REDIRECTS} redirections")

    async def evalsha(
        self, sha: str, script: str, keys: list[str], args: list[Any], wait: tuple[int, int] | None = None
    ) -> Any:
        """Run a Lua script by its SHA1, sending its text once to a master that does not know it."""
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args, wait=wait)
        except NoScriptError:
            return await self.execute("EVAL", script, len(keys), *keys, *args, wait=wait)

    async def survey(self) -> tuple[dict[str, bool], list[int]]:
        """Whether each master answers a ``PING`` now, and the slots that no master serves;
        after reading the map again when any master did not answer."""
        if not self.slots.owners:
            await self.slots.refresh()
        answers = await self._pings()
        if not all(answers.values()):
            with contextlib.suppress(OSError):
                await self.slots.refresh()
            answers = await self._pings()
        return answers, [s for s, a in enumerate(self.slots.owners) if not a]

    async def _pings(self) -> dict[str, bool]:
        masters = list(self.slots.masters)

        async def answers(address: str) -> bool:
            try:
                async with asyncio.timeout(self.connect_timeout):
                    await self.pipe(address).execute("PING")
            except (OSError, RedisError):
                return False
            return True

        return dict(zip(masters, await asyncio.gather(*(answers(a) for a in masters)), strict=True))

    async def close(self) -> None:
        await self.slots.close()
        for pipe in self.pipes.values():
            await pipe.close()
        self.pipes.clear()
