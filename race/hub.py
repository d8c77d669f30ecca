"""This process's fan-out: one store subscription per room with local connections.

Messages published on a room's channel (by any process) arrive through
:meth:`Store.messages` and are handed to each local connection of that room without
waiting on any of them, so one slow client never holds up the others. Messages whose type
starts with ``_`` are control messages, between processes (``_replace``: a seat opened on
another connection; ``_removed``: a seat the host took away) or from the store
(``_resync``: the room's messages may have been lost), and never reach clients. A message
wrapped (:mod:`race.envelope`) reaches every local connection of the room but one, or gives
the players one text and the spectators another.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Protocol

from race.envelope import split_not_to, split_roles
from race.store import Broadcast, StoreUnavailable

log = logging.getLogger(__name__)
REPLACED = 4001  # the close code of a window whose seat was opened in another


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


class Hub:
    def __init__(self, store: Broadcast, *, on_room: Callable[[str, str], None] | None = None) -> None:
        self.store = store
        #: Called with every ``room`` snapshot that reaches this process (the service follows
        #: the room's deadlines with it).
        self.on_room = on_room
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
        """Hand ``message`` to this process's connections of ``room`` only, as if it had
        been published there."""
        self._dispatch(room, message)

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
        skip, message = split_not_to(message)
        message, boards = split_roles(message)
        if message.startswith('{"type":"_'):
            control = json.loads(message)
            if control.get("type") == "_resync":  # this room's messages may have been lost
                for m in list(members):
                    m.resync()
            elif control.get("type") == "_replace":
                for m in list(members):
                    if m.seat == control["seat"] and m.id != control["conn"]:
                        m.kick(REPLACED, "this seat was opened in another window")
            elif control.get("type") == "_removed":
                for m in list(members):
                    if m.seat == control["seat"]:
                        m.kick(4002, "the host removed you from this room")
            return
        if self.on_room is not None and message.startswith('{"type":"room"'):
            self.on_room(room, message)
        for m in list(members):
            if m.id != skip:
                m.deliver(boards if m.sees_boards else message, room)
