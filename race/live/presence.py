"""Who is connected to each room, across every server process, so that a player who closed
the tab (or whose server died) shows as away instead of looking like a slow player.

Each open seat or spectator connection is a member of its room's presence record in the
store (``"SEAT CONN"`` for a player, ``"~ CONN"`` for a spectator), marked present for
``ttl`` seconds at a time. A process adds its connections when they take a seat or start
watching, takes them out when they go, and every ``ttl / 3`` seconds marks its connections
present again; that same call drops the members of a process that died without saying so
(their time runs out), so a crashed server's players show as away within ``ttl`` seconds
of its last refresh, and the next refresh of any process with members in the room tells it.

Whoever arrives gets the room's ``presence`` message (:func:`race.rooms.views.presence_view`,
with its ``end_from``, read from the room: :func:`race.rooms.views.with_end_from`) as a
reply; the rest of the room gets it at once for a player's arrival or departure, and at most
once every ``watchers_every`` seconds for the spectators' (a room with many spectators
would otherwise send each of them a message per arrival). Each refresh also gives this
process's own connections of each room its presence, so a message lost to a store outage or
a deploy is made good within ``ttl / 3``, one message per connection whatever the number
of processes. A refresh that finds the room gone (it expired, unused for the store's ttl)
tells this process's connections of it so (``unknown_room``, as a message to the room would
have) and stops refreshing it. Presence is best effort: no failure of it reaches a client or
holds up anything else.
Every process's clock is taken to be right (the race's timing already relies on it).
"""

from __future__ import annotations

import asyncio
import logging
import time
import zlib
from collections.abc import Callable, Coroutine, Sequence
from enum import StrEnum
from typing import Any, Protocol

from race.rooms.events import Events, PlayerBack
from race.rooms.views import presence_view, with_end_from
from race.store import COUNTED, Documents, PresenceStore, StoreUnavailable
from race.wire import protocol as p
from race.wire.envelope import encode, news, not_to

log = logging.getLogger(__name__)
_LOCKS = 64  # rooms share this many locks: one room's presence calls never overlap


def expired(room: str) -> str:
    """What a room's connections are told when it has expired (with its code)."""
    return p.encode(
        {
            "type": "error",
            "code": "unknown_room",
            "message": f"room {room} has expired: nothing happened in it for too long",
            "room": room,
        }
    )


def member_id(conn_id: str, seat: str | None) -> str:
    """The presence member of a connection: its seat's, or a spectator's."""
    return f"{seat} {conn_id}" if seat is not None else f"{COUNTED}{conn_id}"


class Tell(StrEnum):
    """When a change of a room's presence is told to the room: at once (a player's), in a
    moment with every other change until then (a spectator's), or even if nothing changed."""

    NOW = "now"
    SOON = "soon"
    ALWAYS = "always"


class RoomPresenceStore(PresenceStore, Documents, Protocol):
    """What presence works with: the rooms' presence records, and the rooms themselves (a
    race's ``end_from``, a room that expired)."""


class Presence:
    """This process's side of the rooms' presence: its connections' arrivals and departures,
    and the refresh that keeps them present."""

    def __init__(
        self,
        store: RoomPresenceStore,
        *,
        ttl: float = 30.0,
        watchers_every: float = 1.0,
        clock: Callable[[], float] = time.time,
        local_deliver: Callable[[str, str], None] | None = None,
        events: Events | None = None,
        host_away_ms: int | None = None,
        idle_ms: int = 120_000,
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"the presence ttl must be positive, got {ttl}")
        self.store = store
        #: Hands a message to this process's own connections of a room (the hub's fan-out):
        #: a refresh that changed nothing tells only them, each process its own.
        self.local_deliver = local_deliver
        #: Told (in the background) of a :class:`PlayerBack` whenever a player's connection is
        #: added to a room's presence (an arrival, or a refresh after an outage outlasted the
        #: ttl): the room is live again.
        self.events = events
        #: How long a player must have been away before the others may end a race without
        #: them (the ``end_from`` each ``presence`` message of a race carries, read from the
        #: room); None: the rooms are not read (no ``end_from``, and no room expires).
        self.host_away_ms = host_away_ms
        #: How long a player still racing may go without acting before they count as away
        #: for the ending rules (:func:`race.rooms.away.idle_seats`).
        self.idle_ms = idle_ms
        self.ttl = ttl
        self.watchers_every = watchers_every
        self.clock = clock  # Unix seconds, the clock the members' times are on
        self.local: dict[str, set[str]] = {}  # room -> this process's members in it
        self._locks = [asyncio.Lock() for _ in range(_LOCKS)]
        self._task: asyncio.Task[None] | None = None
        self._soon: dict[str, asyncio.TimerHandle] = {}  # rooms with a change to tell soon
        self._telling: set[asyncio.Task[None]] = set()  # tells and PlayerBack events under way

    async def start(self) -> None:
        self._task = asyncio.create_task(self._refresher(), name="presence-refresh")

    async def stop(self) -> None:
        """Stop refreshing; tell now what was to be told soon (the spectators who left as
        this process shut down), so no room keeps counting them."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        pending = list(self._soon)
        for handle in self._soon.values():
            handle.cancel()
        self._soon.clear()
        await asyncio.gather(*self._telling, *(self._tell(room) for room in pending), return_exceptions=True)

    async def arrive(self, room: str, member: str, conn_id: str) -> dict[str, Any] | None:
        """``member`` (of connection ``conn_id``) is in ``room`` from now on. Returns the
        room's ``presence`` message for it (``None`` if the store failed)."""
        self.local.setdefault(room, set()).add(member)
        return await self._change(room, here=[member], tell=_when(member), skip=conn_id)

    async def depart(self, room: str, member: str, *, replaced: bool = False) -> None:
        """``member`` has left ``room``. ``replaced``: its seat was opened in another
        window, whose arrival tells the room; told soon all the same, in case that window
        is gone too."""
        members = self.local.get(room)
        if members is not None:
            members.discard(member)
            if not members:
                del self.local[room]
        await self._change(room, gone=[member], tell=Tell.SOON if replaced else _when(member))

    async def refresh(self) -> None:
        """Mark every member of this process present for another ``ttl`` and tell its
        connections of each room who is here (the whole room, if that changed). A pass
        stops when the store is unavailable (the next retries)."""
        for room in list(self.local):
            try:
                await self._change(room, tell=Tell.NOW, refresh=True)
            except StoreUnavailable:
                log.warning("presence not refreshed: the store is unavailable (retrying in %.0f s)", self.ttl / 3)
                return

    async def _refresher(self) -> None:
        while True:  # a pass every ttl / 3 from the start of the last, however long it took
            started = time.monotonic()
            await self.refresh()
            await asyncio.sleep(max(0.0, self.ttl / 3 - (time.monotonic() - started)))

    async def _change(
        self,
        room: str,
        *,
        here: Sequence[str] = (),
        gone: Sequence[str] = (),
        tell: Tell,
        skip: str | None = None,
        refresh: bool = False,
    ) -> dict[str, Any] | None:
        """Change the room's presence and tell the room if that changed it (``now`` or
        ``soon``; ``always``: changed or not). ``refresh``: mark this process's members
        present (a store outage is raised then, to end the pass). Returns the room's
        ``presence`` message (``None`` if the store failed)."""
        try:
            async with self._locks[zlib.crc32(room.encode()) % _LOCKS]:  # calls in order
                if refresh:
                    here = sorted(self.local.get(room, ()))
                now = self.clock()
                roll = await self.store.presence(room, now, here=here, gone=gone, until=now + self.ttl)
            view = presence_view(roll.version, roll.listed, roll.counted, roll.gone_at)
            if self.host_away_ms is not None:
                docs = await self.store.read_all(room)
                now_ms = int(self.clock() * 1000)
                if not with_end_from(view, docs, now_ms, self.host_away_ms, self.idle_ms) and refresh:
                    self._expired(room)
                    return None
            if tell is Tell.ALWAYS or (roll.changed and tell is Tell.NOW):
                told = news(p.encode(view))
                await self.store.publish(room, encode(told if skip is None else not_to(skip, told)))
            elif roll.changed and tell is Tell.SOON:
                self._tell_soon(room)
            elif refresh and self.local_deliver is not None:
                self.local_deliver(room, p.encode(view))  # what a lost message would have said
            if roll.added and self.events is not None:
                self._background(self.events.emit(PlayerBack(room)))
            return view
        except StoreUnavailable:
            if refresh:
                raise
            log.warning("room %s: presence not updated or not told: the store is unavailable", room)
        except Exception:
            log.exception("room %s: presence failed", room)
        return None

    def _expired(self, room: str) -> None:
        """``room`` is gone: tell this process's connections of it, and refresh it no more
        (they depart as they close)."""
        log.info("room %s: expired with %d connection(s) of this process in it", room, len(self.local.get(room, ())))
        self.local.pop(room, None)
        if self.local_deliver is not None:
            self.local_deliver(room, expired(room))

    def _tell_soon(self, room: str) -> None:
        """Tell the room its presence in ``watchers_every`` seconds (once for every change
        until then)."""
        if room in self._soon:
            return

        def fire() -> None:
            del self._soon[room]
            self._background(self._tell(room))

        self._soon[room] = asyncio.get_running_loop().call_later(self.watchers_every, fire)

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def _tell(self, room: str) -> None:
        await self._change(room, tell=Tell.ALWAYS)


def _when(member: str) -> Tell:
    """When to tell the room about ``member``: a player at once, a spectator soon."""
    return Tell.SOON if member.startswith(COUNTED) else Tell.NOW
