"""This process's fan-out: one store subscription per room with local connections.

Envelopes (:mod:`race.wire.envelope`) published on a room's channel (by any process) arrive
through :meth:`Store.messages`, are decoded once, and their news is handed to each local
connection of that room without waiting on any of them, so one slow client never holds up
the others: the players' text to players, the spectators' to spectators, and to every
connection but the one the envelope skips. A ``room`` snapshot's timers are also handed to
this process's scheduler (:mod:`race.live.scheduler`), so that a room's deadlines still come
when the process that set them has gone (a restart, a deploy). Control envelopes never
reach clients: ``replace`` (a seat opened on another connection) and ``removed`` (a seat
the host took away) close the seat's connections, ``resync`` (from the store: the room's
messages may have been lost) has them resync.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

import msgspec

from race.rooms.events import Timed
from race.store import Broadcast, StoreUnavailable
from race.wire.envelope import Kind, decode, texts
from race.wire.protocol import CLOSE_REMOVED, CLOSE_REPLACED

log = logging.getLogger(__name__)


class Member(Protocol):
    """A local connection as the hub sees it."""

    id: str

    @property
    def seat(self) -> str | None: ...

    @property
    def sees_boards(self) -> bool:
        """Whether it gets the spectators' text of a message (else the players')."""
        ...

    def deliver(self, message: str, room: str | None = None) -> None: ...

    def kick(self, code: int, reason: str) -> None: ...

    def resync(self) -> None: ...


class Timekeeper(Protocol):
    """This process's timers of the rooms' deadlines (:class:`race.live.scheduler.Scheduler`),
    as the hub sees them."""

    def want(self, event: Timed) -> None: ...


class Hub:
    def __init__(self, store: Broadcast, *, timers: Timekeeper | None = None) -> None:
        self.store = store
        #: Handed the timers of every ``room`` snapshot that reaches this process.
        self.timers = timers
        self.rooms: dict[str, set[Member]] = {}
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._pump(), name="hub-pump")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def join(self, room: str, member: Member) -> None:
        async with self._lock:
            members = self.rooms.get(room)
            if members is None:
                await self.store.subscribe(room)
                members = self.rooms[room] = set()
            members.add(member)

    async def leave(self, room: str, member: Member) -> None:
        async with self._lock:
            members = self.rooms.get(room)
            if members is None:
                return
            members.discard(member)
            if not members:
                del self.rooms[room]
                try:
                    await self.store.unsubscribe(room)
                except StoreUnavailable:
                    log.warning("could not unsubscribe from room %s: store unavailable", room)

    def deliver_local(self, room: str, message: str) -> None:
        """Hand ``message`` (a client's text) to this process's connections of ``room``
        only, as if it had been published there for everyone."""
        if members := self.rooms.get(room):
            self._fan(members, room, message, message, None)

    async def _pump(self) -> None:
        while True:
            try:
                async for room, message in self.store.messages():
                    self._dispatch(room, message)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the broadcast pump failed; restarting it")

    def _dispatch(self, room: str, message: str) -> None:
        if room == "*":  # the store lost messages during an outage: everyone resyncs
            for room_members in self.rooms.values():
                for m in list(room_members):
                    m.resync()
            return
        members = self.rooms.get(room)
        if not members:
            return
        try:
            envelope = decode(message)
        except msgspec.DecodeError:
            log.warning("room %s: a published message that is not an envelope: %.80r", room, message)
            return
        match envelope.kind:
            case Kind.RESYNC:  # this room's messages may have been lost
                for m in list(members):
                    m.resync()
            case Kind.REPLACE:
                for m in list(members):
                    if m.seat == envelope.seat and m.id != envelope.skip:
                        m.kick(CLOSE_REPLACED, "this seat was opened in another window")
            case Kind.REMOVED:
                for m in list(members):
                    if m.seat == envelope.seat:
                        m.kick(CLOSE_REMOVED, "the host removed you from this room")
            case Kind.NEWS | Kind.ROOM:
                if envelope.timers is not None and self.timers is not None:
                    self.timers.want(Timed(room, envelope.timers))
                players, spectators = texts(envelope)
                self._fan(members, room, players, spectators, envelope.skip)

    def _fan(self, members: set[Member], room: str, players: str, spectators: str, skip: str | None) -> None:
        for m in list(members):
            if m.id != skip:
                m.deliver(spectators if m.sees_boards else players, room)
