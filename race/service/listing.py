"""The home page's live list of rooms (:class:`Listings`), and what a visitor may know of a
room before taking a seat. The rooms' events put a room on the list or take it off (see
:mod:`race.rooms.events`); ``GET /api/rooms`` reads it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from race.rooms.events import Event, Listed
from race.rooms.model import MAX_PLAYERS, META, SEAT, Kind, Meta, phase, seat_key
from race.rooms.views import presence_view, shown_deal
from race.store import Documents, Presences, StoreUnavailable
from race.store import Listings as StoreListings

log = logging.getLogger("race.service")
LISTING = "rooms"
DAILY_LISTED_S = 1800  # a daily attempt is one player's few minutes: an abandoned one leaves the list


class ListingStore(Documents, Presences, StoreListings, Protocol):
    """What the live list works with."""


class Listings:
    """The live list of rooms (listed rooms in play with someone here) and room look-ups."""

    def __init__(self, store: ListingStore, *, clock: Callable[[], int]) -> None:
        self.store, self.clock = store, clock
        # live_rooms' last reading (when it began, the list's generation then, its limit,
        # the rooms) and the reading under way: a change of the list by this process bumps
        # the generation, and an answer from an older one is not used again.
        self._listing_gen = 0
        self._live: tuple[float, int, int, list[dict[str, Any]]] | None = None
        self._scan: tuple[int, int, float, asyncio.Task[list[dict[str, Any]]]] | None = None

    async def live_rooms(self, limit: int = 50, *, max_age: float = 0) -> list[dict[str, Any]]:
        """Listed rooms in the lobby, the countdown or racing with a player connected, for
        spectators to pick from. A listed room whose players have all gone is taken off the
        list (the first of them to come back puts it on again, see :meth:`relist`).

        ``max_age``: every home page polls this, so an answer up to this many seconds old
        will do, unless this process changed the list since; callers at the same time
        share one reading."""
        if not max_age:
            return await self._scan_live(limit)
        if (live := self._live) is not None:
            at, gen, for_limit, rooms = live
            if gen == self._listing_gen and for_limit == limit and time.monotonic() - at <= max_age:
                return rooms
        scan = self._scan
        if scan is None or scan[0] != self._listing_gen or scan[1] != limit or scan[3].done():
            reading = asyncio.create_task(self._scan_live(limit))
            reading.add_done_callback(lambda t: t.cancelled() or t.exception())  # seen, if all waiters left
            scan = self._scan = (self._listing_gen, limit, time.monotonic(), reading)
        gen, _, started, task = scan
        rooms = await asyncio.shield(task)  # one caller gone does not stop the others' reading
        if gen == self._listing_gen:
            self._live = (started, gen, limit, rooms)
        return rooms

    async def _scan_live(self, limit: int) -> list[dict[str, Any]]:
        # The rooms at once: their reads share round trips (on Redis, one pipelined write).
        codes = await self.store.list_members(LISTING, self.clock() / 1000, limit)
        return [room for room in await asyncio.gather(*map(self._live_room, codes)) if room is not None]

    async def room_info(self, code: str) -> dict[str, Any] | None:
        """What a visitor may know of a room before taking a seat (its code is the key to
        it): kind, deal, phase and how many seats are taken; ``None`` if there is none."""
        (doc,) = await self.store.read(code, ["meta"])
        if doc is None:
            return None
        meta = META.decode(doc.data)
        names = await self._names(meta)
        return {
            "code": code,
            "kind": meta.kind,
            "difficulty": meta.difficulty,
            "deal": shown_deal(meta, phase(meta, self.clock())),
            "known_deal": meta.known_deal,
            "time_limit": meta.time_limit,
            "phase": phase(meta, self.clock()),
            "round": meta.round,
            "players": len(meta.seats),
            "max_players": MAX_PLAYERS,
            "names": list(names.values()),
            "host_name": names.get(meta.host),
        }

    async def _names(self, meta: Meta) -> dict[str, str]:
        """The room's players' names by seat, in seat order."""
        docs = await self.store.read(meta.code, [seat_key(sid) for sid in meta.seats])
        return {sid: SEAT.decode(d.data).name for sid, d in zip(meta.seats, docs, strict=True) if d is not None}

    async def _live_room(self, code: str) -> dict[str, Any] | None:
        """A listed room's entry in the live list, or ``None`` (then off the list, if it
        expired, is over, or everyone has gone)."""
        (doc,) = await self.store.read(code, ["meta"])
        meta = META.decode(doc.data) if doc is not None else None
        if meta is None or not meta.listed or phase(meta, self.clock()) == "over":
            await self._unlist(code, reading=True)  # expired, or over by its time limit
            return None
        roll = await self.store.presence(code, self.clock() / 1000)
        if not roll.listed:
            if roll.version:  # not a room whose creator is still on the way in
                await self._unlist(code, reading=True)
                if (await self.store.presence(code, self.clock() / 1000)).listed:
                    await self._list(meta)  # a player came in meanwhile (and relisted first)
            return None
        return {
            "code": code,
            "kind": meta.kind,
            "difficulty": meta.difficulty,
            "deal": shown_deal(meta, phase(meta, self.clock())),
            "phase": phase(meta, self.clock()),
            "players": len(meta.seats),
            "names": list((await self._names(meta)).values()),
            "here": len(presence_view(roll.version, roll.listed, roll.counted)["here"]),
            "watching": roll.counted,
        }

    async def list(self, event: Listed) -> None:
        """A room made or dealt again: on the live list, if it is a listed one."""
        await self._list(event.meta)

    async def unlist(self, event: Event) -> None:
        """Take the event's room off the live list (nobody is left to race, or its race is
        over)."""
        await self._unlist(event.room)

    async def _unlist(self, code: str, *, reading: bool = False) -> None:
        """Take a room off the live list (``reading``: by the reading of it, which leaves it
        out of its answer, so that answer stays good)."""
        if await self.store.list_remove(LISTING, code) and not reading:
            self._listing_gen += 1

    async def relist(self, event: Event) -> None:
        """Put a room back on the live list when a player arrives in it (it is taken off
        when everyone has gone): best effort, like all listing."""
        code = event.room
        try:
            (doc,) = await self.store.read(code, ["meta"])
            if doc is not None:
                meta = META.decode(doc.data)
                if phase(meta, self.clock()) != "over":
                    await self._list(meta)
        except StoreUnavailable:
            log.warning("room %s: store unavailable; not listed again", code)
        except Exception:  # best effort: a failover's read-only replica must not close anyone
            log.exception("room %s: could not list the room again", code)

    async def _list(self, meta: Meta) -> None:
        """Show a listed room on the home page's live list: a convenience, so a store that
        fails here fails nothing else (the room just stays off the list)."""
        if meta.listed:
            listed_for = min(self.store.ttl, DAILY_LISTED_S) if meta.kind is Kind.DAILY else self.store.ttl
            try:
                if await self.store.list_add(LISTING, meta.code, self.clock() / 1000 + listed_for):
                    self._listing_gen += 1
            except StoreUnavailable:
                log.warning("room %s: store unavailable; not listed", meta.code)
