"""Entering a room (:class:`Entry`): creating it, joining it, taking one's seat again,
watching it, or starting a tutorial; and what the daily challenge's attempts share with
them: a new room opened, the allowance of rooms an address may start, the ``joined`` reply."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from race.engine import Game
from race.rooms import practice
from race.rooms import tutorial as lessons
from race.rooms.errors import Refused
from race.rooms.events import Listed, Timed
from race.rooms.ghosts import Ghost, GhostError, encode_ghosts, ghosts_of
from race.rooms.model import (
    MAX_PLAYERS,
    META,
    SEAT,
    Kind,
    Meta,
    Seat,
    Status,
    device_id,
    is_done,
    last_seat,
    new_code,
    new_token,
    normalise_code,
    phase,
    random_deal,
    seat_key,
    token_key,
)
from race.rooms.record import daily_day, kept_back, utc_date
from race.rooms.record import decode as decode_record
from race.rooms.series import Format, Series
from race.rooms.views import SECRET, room_message, room_view, seats_of, state_view, timers
from race.service.players import PlayerStore, ranked_on
from race.service.repo import Change, Room, Rooms, dump
from race.service.session import Role, Session
from race.store import Allowances, Doc, Records
from race.wire import protocol as p
from race.wire.envelope import replace

log = logging.getLogger("race.service")


def series_of(msg: p.Create) -> Series:
    """The series a ``create`` asks for: an open one, a match or an arena (not both, nor
    with ghosts, who score no points)."""
    if msg.match is not None and msg.arena is not None:
        raise Refused("bad_series", "a room is a match or an arena, not both")
    if (msg.match is not None or msg.arena is not None) and msg.ghosts:
        raise Refused("bad_series", "a match or an arena is raced by players, without ghosts")
    if msg.match is not None:
        return Series(format=Format.MATCH, target=msg.match)
    if msg.arena is not None:
        return Series(format=Format.ARENA, rounds=msg.arena)
    return Series()


class EntryStore(PlayerStore, Allowances, Records, Protocol):
    """What entering a room works with besides the rooms: the allowances of new rooms, the
    record (a ghost race's games), the daily boards (a player ranked on a day may race its
    games), a seat's log of moves (what a player coming back missed)."""


class Entry:
    """Entering a room: as its first player, a new player, a player back, or a spectator."""

    def __init__(
        self,
        rooms: Rooms,
        store: EntryStore,
        *,
        clock: Callable[[], int],
        rooms_per_minute: float | None = None,
        spectator_delay: int = 0,
        spectator_second_ms: float = 1000.0,
        hint_penalty_ms: int = 15_000,
    ) -> None:
        self.rooms, self.store, self.clock = rooms, store, clock
        if rooms_per_minute is not None and rooms_per_minute <= 0:
            raise ValueError(f"ROOMS_PER_MINUTE_PER_IP must be positive, got {rooms_per_minute:g}")
        #: Rooms (races, tutorials and daily attempts) one address may start a minute (None:
        #: no bound).
        self.rooms_per_minute = rooms_per_minute
        #: The spectator delay (seconds) of a room made without one, and how long its second is.
        self.spectator_delay, self.spectator_second_ms = spectator_delay, spectator_second_ms
        #: What a hint costs (ms) in the rooms made here whose hints cost (a daily attempt's too).
        self.hint_penalty_ms = hint_penalty_ms

    async def create(self, session: Session, msg: p.Create) -> list[dict[str, Any]]:
        session.not_seated()
        name = p.clean_name(msg.name)
        if msg.from_ is not None:
            return await self._practice(session, msg, msg.from_, name)
        series = series_of(msg)
        await self.admit_new_room(session)
        deal: int | str = msg.deal if msg.deal is not None else random_deal()
        difficulty: str = msg.difficulty
        extra: dict[str, str] = {}
        if msg.ghosts:  # past games raced again: their deal and difficulty are the room's
            deal, difficulty, ghosts = await self._ghosts(msg)
            extra["ghosts"] = encode_ghosts(ghosts)
        now = self.clock()
        token = new_token()

        def meta_for(code: str) -> Meta:
            return Meta(
                code=code,
                difficulty=difficulty,
                deal=deal,
                host="s1",
                created=now,
                listed=msg.listed,
                time_limit=msg.time_limit,
                seats=["s1"],
                known_deal=msg.deal is not None or bool(msg.ghosts),
                spectator_delay=self.spectator_delay if msg.spectator_delay is None else msg.spectator_delay,
                hints=msg.hints,
                hint_penalty_ms=self.hint_penalty_ms,
                series=series,
            )

        meta, docs = await self.open_room(session, meta_for, name, token, extra, device=device_id(msg.device))
        log.info("room %s created (%s, deal %s, %d ghosts)", meta.code, difficulty, deal, len(msg.ghosts))
        return [await self.joined(docs, "s1", token)]

    async def _practice(self, session: Session, msg: p.Create, at: p.PlayOnFrom, name: str) -> list[dict[str, Any]]:
        """A one-seat room of kind ``practice`` at step ``at.step`` of the game ``at.replay``
        on the record (:mod:`race.rooms.practice`): the position is the engine's, replayed
        here from the record; begun at once (its clock starts at the first move), never
        listed, hints free."""
        if msg.ghosts or msg.match is not None or msg.arena is not None or msg.deal is not None:
            raise Refused("bad_practice", "a practice room plays on from its game alone: no deal, ghosts or series")
        data = await self.store.record_get(at.replay)
        if data is None:
            raise Refused("unknown_replay", f"there is no game {at.replay} on the record (it may have expired)")
        record = decode_record(data)
        start = practice.start_of(record, at.step, today=utc_date(self.clock()))
        meta, docs, token = await self.solo_room(
            session,
            name,
            msg.device,
            start.game(),
            kind=Kind.PRACTICE,
            difficulty=record.difficulty,
            deal=record.deal,
            time_limit=msg.time_limit,
            known_deal=record.known_deal,
            practice=start,
        )
        log.info("room %s: practice from step %d of %s", meta.code, at.step, at.replay)
        return [await self.joined(docs, "s1", token)]

    async def _ghosts(self, msg: p.Create) -> tuple[int | str, str, list[Ghost]]:
        """The games ``msg`` names, as ghosts, with their deal and difficulty."""
        records = []
        today = utc_date(self.clock())
        for rid in dict.fromkeys(msg.ghosts):
            data = await self.store.record_get(rid)
            if data is None:
                raise Refused("unknown_replay", f"there is no game {rid} on the record (it may have expired)")
            record = decode_record(data)
            if record.start is not None:
                raise Refused("bad_ghosts", f"game {rid} is practice, not a race: it cannot be raced again")
            if kept_back(record, today) and not await ranked_on(
                self.store, msg.token, daily_day(record) or today, record.difficulty
            ):
                raise Refused(
                    "kept_back",
                    "a daily challenge game of today can be raced once the day is over, "
                    "or by a player with a result on that day's board",
                )
            records.append(record)
        try:
            deal, difficulty, ghosts = ghosts_of(records)
        except GhostError as exc:
            raise Refused("bad_ghosts", str(exc)) from None
        if msg.deal is not None and msg.deal != deal:
            raise Refused("bad_ghosts", "a ghost race is on its ghosts' deal: leave the deal out")
        return deal, difficulty, ghosts

    async def open_room(
        self,
        session: Session,
        meta_for: Callable[[str], Meta],
        name: str,
        token: str,
        extra: dict[str, str] | None = None,
        *,
        device: str = "",
        game: Game | None = None,
    ) -> tuple[Meta, dict[str, Doc]]:
        """Commit a new room, under a fresh code, whose first seat ``s1`` is ``name``'s and is
        found by ``token`` (and played from ``device``, see :func:`race.rooms.model.device_id`),
        with the documents ``extra`` (its ghosts), playing ``game`` (by default the deal of
        the room's meta); seat ``session``
        there, and list the room. Returns its meta and the documents just written: once the
        room is committed nothing may fail, or the client would be seated without ever
        getting its token."""

        def make() -> tuple[Meta, dict[str, str]]:
            meta = meta_for(new_code())
            first = game if game is not None else Game.deal(meta.deal, meta.difficulty)
            seat = Seat(seat="s1", name=name, game=first.to_dict(), device=device)
            return meta, {"meta": dump(meta), seat_key("s1"): dump(seat), token_key(token): "s1", **(extra or {})}

        meta, write = await self.rooms.create(make)
        session.room, session.seat, session.role = meta.code, "s1", Role.PLAYER
        await self.rooms.emit(Listed(meta.code, meta))
        return meta, {key: Doc(1, data) for key, data in write.items()}

    async def join(self, session: Session, msg: p.Join) -> list[dict[str, Any]]:
        session.not_seated()
        code = normalise_code(msg.room)
        name = p.clean_name(msg.name)
        token = new_token()

        def action(room: Room) -> Change[tuple[str, dict[str, Doc]]]:
            meta, docs = room.meta, room.docs
            if meta.kind is Kind.PRACTICE:
                raise Refused("practice_room", "this is one player's practice room; you can watch it")
            if phase(meta, self.clock()) != "lobby":
                raise Refused("already_started", "this race has already started; you can watch it")
            if len(meta.seats) >= MAX_PLAYERS:
                raise Refused("room_full", f"this room already has {MAX_PLAYERS} players")
            seats = seats_of(docs, meta)
            taken = next((s.name for s, _ in seats if p.name_key(s.name) == p.name_key(name)), None)
            if taken is not None:
                same = "" if taken == name else f" ({name!r} reads the same)"
                raise Refused("name_taken", f"someone in this room is already called {taken!r}{same}")
            # A fresh seat id, never one given up (a retried remove must not find a newcomer there).
            meta.last_seat = last_seat(meta) + 1
            sid = f"s{meta.last_seat}"
            meta.seats.append(sid)
            if not meta.host:  # everyone had left
                meta.host = sid
            game = Game.deal(meta.deal, meta.difficulty).to_dict()
            seat = Seat(seat=sid, name=name, game=game, device=device_id(msg.device))
            after = {**docs, "meta": Doc(room.version + 1, dump(meta)), seat_key(sid): Doc(1, dump(seat))}
            return Change(
                expect={"meta": room.version, seat_key(sid): 0},
                write={"meta": dump(meta), seat_key(sid): dump(seat), token_key(token): sid},
                publish=room_message(after, self.clock()),
                value=(sid, after),
            )

        joined = await self.rooms.transact(code, action)
        assert joined is not None
        sid, docs_after = joined
        session.room, session.seat, session.role = code, sid, Role.PLAYER
        log.info("room %s: %s joined", code, sid)
        return [await self.joined(docs_after, sid, token)]  # as committed: no read that could fail now

    async def resume(self, session: Session, msg: p.Resume) -> list[dict[str, Any]]:
        session.not_seated()
        code = normalise_code(msg.room)
        docs = await self.rooms.read(code)
        tok = docs.get(token_key(msg.token))
        if tok is None or tok.data not in META.decode(docs["meta"].data).seats:  # "": a seat given up
            raise Refused("bad_token", "that token does not belong to a seat in this room")
        sid = tok.data
        reply = await self.joined(docs, sid, None)
        own = docs[seat_key(sid)]
        if msg.version is not None and msg.version <= own.version:
            missed = await self.store.log_since(code, seat_key(sid), msg.version)
            # Only a complete account: a rematch deals every seat anew without a log entry.
            if missed is not None and [e.version for e in missed] == list(range(msg.version + 1, own.version + 1)):
                reply["missed"] = [msgspec.json.decode(e.data) for e in missed]
        # Seated before the others are told to let go: of two connections resuming one seat
        # at once, each is seated when the other's replace arrives (one or both are closed,
        # and a closed page offers to take the seat back), never both left open.
        session.room, session.seat, session.role = code, sid, Role.PLAYER
        try:
            await self.rooms.publish(code, replace(sid, session.conn_id))
            # A remove that committed since the read above found this connection not yet
            # seated, so its close missed it: look again now that it is.
            (meta_doc,) = await self.store.read(code, ["meta"])
            if meta_doc is None or sid not in META.decode(meta_doc.data).seats:
                raise Refused("bad_token", "that token does not belong to a seat in this room")
        except BaseException:
            session.room = session.seat = session.role = None
            raise
        return [reply]

    async def watch(self, session: Session, msg: p.Watch) -> list[dict[str, Any]]:
        session.not_seated()
        code = normalise_code(msg.room)
        docs = await self.rooms.read(code)
        meta = META.decode(docs["meta"].data)
        device = device_id(msg.device)
        session.room, session.role = code, Role.SPECTATOR
        # A device racing in this room sees no boards until its own game is done.
        racing = [seat.seat for seat, _ in seats_of(docs, meta) if seat.device == device and not is_done(seat)]
        session.blind = bool(device) and bool(racing) and phase(meta, self.clock()) != "over"
        session.delay_ms = round(meta.spectator_delay * self.spectator_second_ms)
        await self.rooms.emit(Timed(code, timers(meta, self.clock())))
        view = room_view(docs, self.clock(), spectator=session.sees_boards)
        watching: dict[str, Any] = {"type": "watching", "room": view}
        if session.blind:
            watching["blind"] = racing[0]  # (the page says why; it watches again once that game is done)
        return [watching]

    async def tutorial(self, session: Session, msg: p.Tutorial) -> list[dict[str, Any]]:
        """A one-seat room of kind ``tutorial`` at :mod:`race.rooms.tutorial`'s position,
        begun at once (its clock starts at the first move, like a daily attempt's), never
        listed and never put on the record. It is played like any room; the lessons narrow
        what it offers (see :func:`race.rooms.views.state_view`)."""
        session.not_seated()
        name = p.clean_name(msg.name)
        meta, docs, token = await self.solo_room(
            session,
            name,
            msg.device,
            lessons.start(),
            kind=Kind.TUTORIAL,
            difficulty=lessons.DIFFICULTY,
            deal=lessons.SEED,
        )
        log.info("room %s: a tutorial", meta.code)
        return [await self.joined(docs, "s1", token)]

    async def solo_room(
        self, session: Session, name: str, device: str | None, game: Game, **fields: Any
    ) -> tuple[Meta, dict[str, Doc], str]:
        """A one-seat room begun at once at ``game`` (a practice room, a tutorial): never
        listed, its hints free (a practice's are its own; the lessons' moves never count).
        ``fields``: the rest of its :class:`Meta`. Its meta, its documents and the seat's token."""
        await self.admit_new_room(session)
        now = self.clock()

        def meta_for(code: str) -> Meta:
            return Meta(
                code=code,
                host="s1",
                created=now,
                listed=False,
                status=Status.STARTED,
                seats=["s1"],
                hints="free",
                **fields,
            )

        token = new_token()
        meta, docs = await self.open_room(session, meta_for, name, token, device=device_id(device), game=game)
        return meta, docs, token

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

    async def joined(self, docs: dict[str, Doc], sid: str, token: str | None) -> dict[str, Any]:
        """The ``joined`` reply of seat ``sid`` in the room of ``docs`` (with its ``token``
        when it is new); the room's timers asked for, in this process too."""
        seat = SEAT.decode(docs[seat_key(sid)].data)
        game = Game.from_trusted_dict(seat.game)
        msg: dict[str, Any] = {"type": "joined", "seat": sid}
        if token is not None:
            msg["token"] = token
        now = self.clock()
        msg["room"] = room_view(docs, now)
        meta = META.decode(docs["meta"].data)
        hidden = phase(meta, now) in SECRET
        msg["state"] = state_view(seat, game, docs[seat_key(sid)].version, hidden=hidden)
        await self.rooms.emit(Timed(meta.code, timers(meta, now)))
        return msg
