"""What every part of the room service shares: the connection's :class:`Session`, the
service's store, clock and timed events (:class:`ServiceBase`), and the helpers the actions
build on: reading a room, changing its meta, ending a race, the listings of live rooms."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import msgspec

from race.engine import Game
from race.rooms.errors import Refused
from race.rooms.model import META, SEAT, Kind, Meta, Seat, Status, is_done, phase, seat_key
from race.rooms.views import SECRET, presence_view, room_message, room_view, seats_of, state_view
from race.service.listing import DAILY_LISTED_S as DAILY_LISTED_S
from race.service.listing import LISTING as LISTING
from race.service.listing import Listings
from race.service.recording import keep_records
from race.service.repo import Change, Room, dump, gone, transact
from race.service.session import Session
from race.service.solver_lines import SolverLines
from race.store import Doc, RoomStore

log = logging.getLogger("race.service")  # one logger for the whole package
#: How long a player must have been away before the others may act without them, unless the
#: service is told otherwise (``host_away_ms``): as host when it is the host, or to end a race
#: it is still in. A page being reloaded, or a phone that dropped its connection for a moment,
#: is not gone.
HOST_AWAY_MS = 15_000
#: The seats with a connection open, and since when (server ms) each seat that went is away.
Here = tuple[set[str], dict[str, int]]
ANNOUNCED = "announced"  # a room's document: the start_at whose start has been announced
_enc = msgspec.json.Encoder()


def now_ms() -> int:
    return int(time.time() * 1000)


class ServiceBase(Listings):
    """The store, clock and timed events every action works with, and what the actions share."""

    def __init__(
        self,
        store: RoomStore,
        *,
        clock: Callable[[], int] = now_ms,
        countdown_ms: int = 3000,
        max_game_moves: int = 10_000,
        rooms_per_minute: float | None = None,
        host_away_ms: int = HOST_AWAY_MS,
        on_deadline: Callable[[str, int, Callable[[str], Coroutine[Any, Any, object]]], None] | None = None,
        on_moot: Callable[[str], None] | None = None,
        on_daily_finish: Callable[[Meta, Seat], Awaitable[None]] | None = None,
        record_ttl: int = 30 * 86400,
        daily_record_ttl: int = 31 * 86400,
        solver_lines: SolverLines | None = None,
        spectator_delay: int = 0,
        spectator_second_ms: float = 1000.0,
    ) -> None:
        self.store = store
        #: The spectator delay (seconds) of a room made without one, and how long its second is.
        self.spectator_delay, self.spectator_second_ms = spectator_delay, spectator_second_ms
        #: Seconds a race's (and a daily attempt's) games are kept on the record (see
        #: :func:`race.service.recording.keep_records`).
        self.record_ttl, self.daily_record_ttl = record_ttl, daily_record_ttl
        #: Where a finished race's deal is handed for the solver's line (off the request path).
        self.solver_lines = solver_lines
        self.clock = clock
        self.countdown_ms = countdown_ms
        #: The most moves a game's history may hold: the room stores the whole history (for
        #: undo), so without a bound a client that plays on for hours grows it without end.
        self.max_game_moves = max_game_moves
        if rooms_per_minute is not None and rooms_per_minute <= 0:
            raise ValueError(f"ROOMS_PER_MINUTE_PER_IP must be positive, got {rooms_per_minute:g}")
        #: Rooms (races and daily attempts) one address may start a minute (None: no bound).
        self.rooms_per_minute = rooms_per_minute
        self.on_deadline = on_deadline
        self.host_away_ms = host_away_ms
        #: Called with a room whose timed events are all moot (its race is over, or a new
        #: round waits in its lobby).
        self.on_moot = on_moot
        #: Called with a daily attempt's meta and seat when it is won (the daily challenge
        #: posts it to its leaderboard).
        self.on_daily_finish = on_daily_finish
        self._listing_gen = 0
        self._live = self._scan = None

    async def admit_new_room(self, session: Session) -> None:
        """Spend one of the rooms ``session``'s address may start, or refuse with
        ``too_many_rooms``. A room is kept a day, so without a bound one address could fill
        the store (leave, create, repeat). The allowance is a token bucket in the store,
        shared by every process; it is spent only once a ``create`` or ``daily`` is
        otherwise valid, so a refused one costs nothing."""
        per = self.rooms_per_minute
        if per is None:
            return
        if not await self.store.spend(f"rooms:{session.address}", per / 60, max(1, int(per)), time.time()):
            raise Refused("too_many_rooms", f"your address has started {per:g} rooms in a minute; wait a little")

    # -- the end of a race ---------------------------------------------------------

    async def end_if_done(self, code: str, *, now: bool = False) -> bool:
        """End a started race when every player is done or its time is up (or at once, with
        ``now``: the host ends it); True if it ended now. Safe to call from any process at
        any time: only one commit can end a race."""

        def action(room: Room) -> Change[tuple[Meta, list[tuple[Seat, Game]]]]:
            meta = room.meta
            if meta.status is not Status.STARTED:
                return Change()
            seats = seats_of(room.docs, meta)
            if not (now or phase(meta, self.clock()) == "over" or all(is_done(s) for s, _ in seats)):
                return Change()
            meta.status, meta.ended_at = Status.OVER, self.clock()
            expect = {name: doc.version for name, doc in room.docs.items() if name == "meta" or name.startswith("p:")}
            after = {**room.docs, "meta": Doc(room.version + 1, dump(meta))}
            return Change(
                expect=expect,
                write={"meta": after["meta"].data},
                publish=room_message(after, self.clock()),
                value=(meta, seats),
            )

        ended = await transact(self.store, code, action, missing_ok=True)
        if ended is None:
            return False
        meta, seats = ended
        log.info("room %s: race over", code)
        await self._unlist(code)
        if meta.kind is Kind.TUTORIAL:
            return True  # a lesson, not a game: never on the record
        ttl = self.daily_record_ttl if meta.kind is Kind.DAILY else self.record_ttl
        await keep_records(self.store, code, meta, seats, ttl)
        if self.solver_lines is not None and meta.kind is Kind.RACE:
            self.solver_lines.look_for(meta.deal, meta.difficulty)
        return True

    # -- helpers -------------------------------------------------------------------

    async def _here(self, code: str) -> Here | None:
        """Who of ``code``'s players has a connection open, and since when each one that
        went is away, as the pages are told; ``None`` while nobody's presence is known."""
        roll = await self.store.presence(code, self.clock() / 1000)
        if not roll.version:
            return None
        view = presence_view(roll.version, roll.listed, roll.counted, roll.gone_at)
        return set(view["here"]), view["away_since"]

    async def _room(self, code: str) -> dict[str, Doc]:
        docs = await self.store.read_all(code)
        if "meta" not in docs:
            raise Refused("unknown_room", f"there is no room {code} (it may have expired)")
        return docs

    async def _change_meta(
        self,
        session: Session,
        change: Callable[[Meta, int], None],
        reset: Callable[[Meta, Seat], None] | None = None,
        ghosts: str = "",
    ) -> Meta:
        """Apply ``change`` to the room's meta at one server instant (and ``reset`` to every
        seat, for a new round: its ghosts document is ``ghosts``, none when empty) and
        commit, publishing the snapshot at that same instant; retried on concurrent changes."""
        assert session.room is not None

        def action(room: Room) -> Change[dict[str, Doc]]:
            meta, docs = room.meta, room.docs
            if session.seat is not None and session.seat not in meta.seats:
                raise gone()
            now = self.clock()
            change(meta, now)
            write: dict[str, str] = {}
            expect = {"meta": room.version}
            after = dict(docs)
            if reset is not None:
                for sid in list(meta.seats):
                    key = seat_key(sid)
                    seat = SEAT.decode(docs[key].data)
                    if seat.left:  # left after the last race: no seat in this round
                        meta.last_seat = max(meta.last_seat, *(int(s[1:]) for s in meta.seats))
                        meta.seats.remove(sid)
                        write[key], expect[key] = "", docs[key].version
                        del after[key]
                        continue
                    reset(meta, seat)
                    write[key] = dump(seat)
                    expect[key] = docs[key].version
                    after[key] = Doc(docs[key].version + 1, write[key])
                if "ghosts" in docs or ghosts:
                    write["ghosts"] = ghosts  # ("" deletes it)
                    expect["ghosts"] = docs["ghosts"].version if "ghosts" in docs else 0
                    if ghosts:
                        after["ghosts"] = Doc(expect["ghosts"] + 1, ghosts)
                    else:
                        del after["ghosts"]
            write["meta"] = dump(meta)
            after["meta"] = Doc(room.version + 1, write["meta"])
            publish = room_message(after, now)
            return Change(expect=expect, write=write, publish=publish, value=after)

        after = await transact(self.store, session.room, action)
        assert after is not None
        self._schedule(after)
        return META.decode(after["meta"].data)

    def _schedule(self, docs: dict[str, Doc]) -> None:
        """Ask for the room's timed events: the start of the race (announced to everyone)
        and the end of its time limit."""
        if "meta" in docs:
            meta = META.decode(docs["meta"].data)
            self._deadlines(meta.code, phase(meta, self.clock()), meta.start_at, meta.time_limit)

    def follow(self, code: str, message: str) -> None:
        """A ``room`` snapshot that any process published: ask for the room's timed events
        in this process too, so that they still happen when the process that asked first
        has gone (a restart, a deploy). Each event happens once, whoever fires it."""
        room = msgspec.json.decode(message).get("room") or {}
        self._deadlines(code, room.get("phase"), room.get("start_at"), room.get("time_limit"))

    def _deadlines(self, code: str, ph: str | None, start_at: int | None, time_limit: int | None) -> None:
        if ph in ("over", "lobby") and self.on_moot is not None:
            self.on_moot(code)
        if self.on_deadline is None or start_at is None or ph not in ("countdown", "racing"):
            return
        if ph == "countdown":
            self.on_deadline(code, start_at, self.announce)
        if time_limit is not None:
            self.on_deadline(code, start_at + time_limit * 1000, self.end_if_done)

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

        await transact(self.store, code, action, missing_ok=True)

    def joined(self, docs: dict[str, Doc], sid: str, token: str | None) -> dict[str, Any]:
        seat = SEAT.decode(docs[seat_key(sid)].data)
        game = Game.from_trusted_dict(seat.game)
        msg: dict[str, Any] = {"type": "joined", "seat": sid}
        if token is not None:
            msg["token"] = token
        now = self.clock()
        msg["room"] = room_view(docs, now)
        hidden = phase(META.decode(docs["meta"].data), now) in SECRET
        msg["state"] = state_view(seat, game, docs[seat_key(sid)].version, hidden=hidden)
        self._schedule(docs)
        return msg
