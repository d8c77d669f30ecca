"""A room's lobby (:class:`Lobby`): getting ready, the start and its announcement once the
countdown is over, leaving or being removed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from race.rooms.away import host_from
from race.rooms.errors import Refused
from race.rooms.events import Event, Timed, Unlisted
from race.rooms.model import (
    SEAT,
    Meta,
    Status,
    last_seat,
    phase,
    seat_key,
)
from race.rooms.views import room_message, timers
from race.service.repo import Change, Here, Room, Rooms, dump, gone
from race.service.session import Session
from race.store import Doc, Records
from race.wire import protocol as p
from race.wire.envelope import removed

log = logging.getLogger("race.service")
ANNOUNCED = "announced"  # a room's document: the start_at whose start has been announced


class Lobby:
    """The lobby before a race, and after it: ready, start, leave, remove (the next round:
    :mod:`race.service.rounds`)."""

    def __init__(
        self,
        rooms: Rooms,
        records: Records,
        *,
        clock: Callable[[], int],
        countdown_ms: int,
        host_away_ms: int,
        idle_ms: int = 0,
    ) -> None:
        self.rooms, self.records, self.clock = rooms, records, clock
        #: From the start (all ready, or the host's ``start``) to the race.
        self.countdown_ms = countdown_ms
        #: How long a host must have been away before a player here may act as host.
        self.host_away_ms = host_away_ms
        #: How long a player still racing may go without acting before they count as idle:
        #: the race's timers wake the server then (see :meth:`race.service.ending.Ending.idle`).
        self.idle_ms = idle_ms

    async def ready(self, session: Session, msg: p.Ready) -> list[dict[str, Any]]:
        sid, ready = session.seat, msg.ready
        assert sid is not None

        def change(meta: Meta, now: int) -> None:
            if phase(meta, now) != "lobby":
                raise Refused("already_started", "the race has already started")
            if ready and sid not in meta.ready:
                meta.ready.append(sid)
            if not ready and sid in meta.ready:
                meta.ready.remove(sid)
            if len(meta.seats) >= 2 and set(meta.ready) >= set(meta.seats):
                self._begin(meta, now)

        await self._change_meta(session, change)
        return []

    async def start(self, session: Session, msg: p.Start) -> list[dict[str, Any]]:
        assert session.room is not None and session.seat is not None
        here = await self._seats_here(session.room, session.seat)

        def change(meta: Meta, now: int) -> None:
            _act_as_host(meta, session.seat or "", here, now, "only the host can start the race", self.host_away_ms)
            if phase(meta, now) != "lobby":
                raise Refused("already_started", "the race has already started")
            self._begin(meta, now)

        await self._change_meta(session, change)
        return []

    async def _seats_here(self, code: str, seat: str) -> Here | None:
        """For ``seat``'s host-only message: ``None`` if it is the host or if nobody's
        presence is known yet, else the seats with a connection open, and since when
        (server ms) each of those that went is away."""
        room = await self.rooms.load(code, ())
        if room is None or room.meta.host == seat:
            return None
        return await self.rooms.here(code, self.clock())

    async def leave(self, session: Session, msg: p.Leave) -> list[dict[str, Any]]:
        """Give up one's seat in the lobby, or leave once the race is over (the seat stays in
        that race's results, out of the next round); the connection is then in no room. A
        retry (the first reply was lost) finds the seat already given up, and is answered
        the same."""
        assert session.room is not None and session.seat is not None
        if await self._unseat(session.room, session.seat, host=None):
            log.info("room %s: %s left", session.room, session.seat)
        session.room = session.seat = session.role = None
        session.memo.forget()
        return [{"type": "left"}]

    async def remove(self, session: Session, msg: p.Remove) -> list[dict[str, Any]]:
        """The host takes another player's seat away in the lobby; that player's connections
        are closed (code 4002) and its token no longer opens the room. A retry closes them
        again (seat ids are never reused, so it can only reach that player)."""
        assert session.room is not None and session.seat is not None
        sid = msg.seat
        if sid == session.seat:
            raise Refused("bad_seat", "to give up your own seat, send leave")
        here = await self._seats_here(session.room, session.seat)
        if await self._unseat(session.room, sid, host=session.seat, here=here):
            log.info("room %s: %s removed by the host", session.room, sid)
        await self.rooms.publish(session.room, removed(sid))
        return []

    async def _unseat(self, code: str, sid: str, *, host: str | None, here: Here | None = None) -> bool:
        """Take seat ``sid`` out of the room's lobby (for its host, when ``host`` is given;
        ``here``: the seats connected, see :func:`_act_as_host`), deleting the seat and its
        token; the host's role passes to the next seat, and a lobby whose remaining players
        are all ready starts, as when the last of them says ready. False when the seat had
        already been given up."""

        def action(room: Room) -> Change[bool]:
            meta, docs = room.meta, room.docs
            now = self.clock()
            if host is not None:
                if host not in meta.seats:  # removed since: it may not remove anyone
                    raise gone()
                _act_as_host(meta, host, here, now, "only the host can remove a player", self.host_away_ms)
            if sid not in meta.seats:
                if int(sid[1:]) <= last_seat(meta):
                    return Change()  # given up already (this is a retry)
                raise Refused("bad_seat", f"there is no player {sid!r} in this room")
            if host is None and phase(meta, now) == "over":
                return _left_after_the_race(room, sid, now)
            if phase(meta, now) != "lobby":
                raise Refused("already_started", "seats are given up only in the lobby")
            meta.last_seat = last_seat(meta)
            meta.seats.remove(sid)
            if sid in meta.ready:
                meta.ready.remove(sid)
            if meta.host == sid:
                meta.host = meta.seats[0] if meta.seats else ""
            if len(meta.seats) >= 2 and set(meta.ready) >= set(meta.seats):
                self._begin(meta, now)
            write = {"meta": dump(meta), seat_key(sid): ""}  # "": deleted
            write.update((name, "") for name, doc in docs.items() if name.startswith("t:") and doc.data == sid)
            after = {name: doc for name, doc in docs.items() if write.get(name) != ""}
            after["meta"] = Doc(room.version + 1, write["meta"])
            publish = room_message(after, now)
            events: tuple[Event, ...] = (Timed(code, timers(meta, now, self.idle_ms)),)
            if not meta.seats:  # nobody left to race: off the live list
                events += (Unlisted(code),)
            return Change(expect={"meta": room.version}, write=write, publish=publish, value=True, events=events)

        unseated = await self.rooms.transact(code, action)
        return bool(unseated)

    def _begin(self, meta: Meta, now: int) -> None:
        meta.status = Status.STARTED
        meta.start_at = now + self.countdown_ms
        meta.ready = []

    async def announce(self, code: str) -> None:
        """Tell everyone the race has begun (its countdown is over): once, whichever of the
        processes that scheduled it gets there first, and not for a race already over."""

        def action(room: Room) -> Change[None]:
            now = self.clock()
            marker = room.doc(ANNOUNCED)
            if phase(room.meta, now) != "racing" or (marker is not None and marker.data == str(room.meta.start_at)):
                return Change()
            return Change(
                expect={"meta": room.version, ANNOUNCED: marker.version if marker else 0},
                write={ANNOUNCED: str(room.meta.start_at)},
                publish=room_message(room.docs, now),
            )

        await self.rooms.transact(code, action, missing_ok=True)

    async def _change_meta(self, session: Session, change: Callable[[Meta, int], None]) -> None:
        """Apply ``change`` to the room's meta at one server instant and commit, publishing
        the snapshot at that same instant; retried on concurrent changes."""
        assert session.room is not None
        code = session.room

        def action(room: Room) -> Change[None]:
            meta = room.meta
            if session.seat is not None and session.seat not in meta.seats:
                raise gone()
            now = self.clock()
            change(meta, now)
            write = {"meta": dump(meta)}
            after = {**room.docs, "meta": Doc(room.version + 1, write["meta"])}
            events: tuple[Event, ...] = (Timed(code, timers(meta, now, self.idle_ms)),)
            return Change(expect={"meta": room.version}, write=write, publish=room_message(after, now), events=events)

        await self.rooms.transact(code, action)


def _left_after_the_race(room: Room, sid: str, now: int) -> Change[bool]:
    """Seat ``sid`` leaves a room whose race is over: marked ``left`` (kept in the results),
    its tokens deleted, the host's role passed on to a player still here."""
    meta, docs = room.meta, room.docs
    key = seat_key(sid)
    seat = SEAT.decode(docs[key].data)
    if seat.left:
        return Change(value=False)  # left already (this is a retry)
    seat.left = True
    write = {key: dump(seat)}
    write.update((name, "") for name, doc in docs.items() if name.startswith("t:") and doc.data == sid)
    expect = {"meta": room.version, key: docs[key].version}
    if meta.host == sid:
        staying = [s for s in meta.seats if s != sid and not SEAT.decode(docs[seat_key(s)].data).left]
        meta.host = staying[0] if staying else ""
        write["meta"] = dump(meta)
    after = {name: doc for name, doc in docs.items() if write.get(name) != ""}
    after[key] = Doc(docs[key].version + 1, write[key])
    if "meta" in write:
        after["meta"] = Doc(room.version + 1, write["meta"])
    return Change(
        expect=expect,
        write=write,
        publish=room_message(after, now),
        value=True,
        events=(Timed(room.code, timers(meta, now)),),
    )


def _act_as_host(meta: Meta, seat: str, here: Here | None, now: int, refusal: str, away_ms: int) -> None:
    """Let ``seat`` do what only the host may: it is the host, or the host has been away (no
    connection open, by ``here``) for ``away_ms``, and then ``seat`` takes over as
    host, so a lobby whose host went away is not stuck; a page being reloaded is not away."""
    if meta.host == seat:
        return
    seats, since = here or (set(), {})
    at = host_from(meta.host, seats, since, away_ms)
    if here is None or at is None or seat not in seats:
        raise Refused("not_host", f"{refusal} (or any player here while the host is away)")
    wait = at - now
    if wait > 0:
        retry_s = (wait + 999) // 1000
        message = f"the host has only just gone and may be back: try again in {retry_s} s"
        raise Refused("not_host", message, reason="host_just_left", retry_s=retry_s)
    meta.host = seat
