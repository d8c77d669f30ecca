"""Who is connected to each room, across every server process, so that a player who closed
the tab (or whose server died) shows as away instead of looking like a slow player.

Each open seat or spectator connection is a member of its room's presence record in the
store (``"SEAT CONN"`` for a player, ``"~ CONN"`` for a spectator), marked present for
``ttl`` seconds at a time. A process adds its connections when they take a seat or start
watching, takes them out when they go, and every ``ttl / 3`` seconds marks its connections
present again; that same call drops the members of a process that died without saying so
(their time runs out), so a crashed server's players show as away within ``ttl`` seconds
unless they reconnect elsewhere first. Every change is broadcast to the room as a
``presence`` message (:func:`presence_view`), and whoever arrives gets one as a reply.
Presence is best effort: a store outage delays it, and the next refresh repairs it; nothing
else waits on it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from race import protocol as p
from race.store import Store, StoreUnavailable
from race.views import WATCHER, presence_view

log = logging.getLogger(__name__)


def member_id(conn_id: str, seat: str | None) -> str:
    """The presence member of a connection: its seat's, or a spectator's."""
    return f"{seat or WATCHER} {conn_id}"


def _when(member: str) -> str:
    """When to tell the room about ``member``: a player at once, a spectator soon."""
    return "soon" if member.startswith(WATCHER + " ") else "now"


class Presence:
    """This process's side of the rooms' presence: its connections' arrivals and departures,
    and the refresh that keeps them present. A seat's change is broadcast at once; changes of
    the spectators alone at most once every ``watchers_every`` seconds per room, since a
    room with many spectators would otherwise send every one of them a message per arrival."""

    def __init__(
        self, store: Store, *, ttl: float = 30.0, watchers_every: float = 1.0, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.ttl = ttl
        self.watchers_every = watchers_every
        self.clock = clock  # Unix seconds, the clock the members' times are on
        self.local: dict[str, set[str]] = {}  # room -> this process's members in it
        self._task: asyncio.Task[None] | None = None
        self._soon: dict[str, asyncio.TimerHandle] = {}  # rooms with a spectators' change to tell
        self._telling: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._refresher(), name="presence-refresh")

    async def stop(self) -> None:
        for handle in self._soon.values():
            handle.cancel()
        tasks = [t for t in (self._task, *self._telling) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def arrive(self, room: str, member: str) -> dict[str, Any] | None:
        """``member`` is in ``room`` from now on. Returns the room's ``presence`` message for
        the one who arrived (``None`` while the store is unavailable)."""
        self.local.setdefault(room, set()).add(member)
        return await self._change(room, here=[member], tell=_when(member))

    async def depart(self, room: str, member: str, *, announce: bool = True) -> None:
        """``member`` has left ``room``; ``announce=False`` when another member's arrival
        will say so (a seat reopened in another window)."""
        members = self.local.get(room)
        if members is not None:
            members.discard(member)
            if not members:
                del self.local[room]
        await self._change(room, gone=[member], tell=_when(member) if announce else "never")

    async def refresh(self) -> None:
        """Mark every member of this process present for another ``ttl``, and broadcast
        what changed meanwhile (members whose time ran out, or that an outage lost)."""
        for room, members in list(self.local.items()):
            await self._change(room, here=sorted(members), tell="now")

    async def _refresher(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self.refresh()
            except Exception:
                log.exception("refreshing the rooms' presence failed")

    async def _change(
        self, room: str, *, here: Sequence[str] = (), gone: Sequence[str] = (), tell: str
    ) -> dict[str, Any] | None:
        """Change the room's presence; if that changed it, tell the room ``now``, ``soon``
        or ``never``. Returns the room's ``presence`` message."""
        now = self.clock()
        try:
            version, members, changed = await self.store.presence(room, now, here=here, gone=gone, until=now + self.ttl)
            view = presence_view(version, members)
            if changed and tell == "now":
                await self.store.publish(room, p.encode(view))
            elif changed and tell == "soon":
                self._tell_soon(room)
            return view
        except StoreUnavailable:
            log.warning("room %s: presence not updated, the store is unavailable (the next refresh retries)", room)
            return None

    def _tell_soon(self, room: str) -> None:
        """Broadcast the room's presence in ``watchers_every`` seconds (once for all the
        spectators' changes until then)."""
        if room in self._soon:
            return

        def fire() -> None:
            del self._soon[room]
            task = asyncio.create_task(self._tell(room))
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)

        self._soon[room] = asyncio.get_running_loop().call_later(self.watchers_every, fire)

    async def _tell(self, room: str) -> None:
        try:
            version, members, _ = await self.store.presence(room, self.clock())
            await self.store.publish(room, p.encode(presence_view(version, members)))
        except StoreUnavailable:
            log.warning("room %s: presence not told, the store is unavailable (the next change tells it)", room)
