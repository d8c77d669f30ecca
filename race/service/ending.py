"""How a race ends (:class:`Ending`): when every player is out of it (finished or resigned),
when its time is up, when a player ends it while every other player still racing is away
or idle (no move for a while: :func:`race.rooms.away.idle_seats`), or when every player
still racing who is here and not idle asks to end it (a vote). Nobody, the host no more than
anyone, ends a race while a rival plays."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from race.engine import Game
from race.rooms.away import end_from, idle_seats, next_idle, still_here, vote_carries
from race.rooms.errors import Refused
from race.rooms.events import RaceOver, Timed
from race.rooms.ghosts import GHOSTS, ghost_results
from race.rooms.model import META, SEAT, Ended, Seat, Status, is_done, not_out, phase, seat_key
from race.rooms.standing import board, progress
from race.rooms.views import player_message, presence_view, room_message, seats_of, state_view, with_end_from
from race.service.repo import Change, Room, Rooms, dump, gone, unknown_room
from race.service.session import Session
from race.store import Doc
from race.wire import protocol as p
from race.wire.envelope import Timers, news, not_to

log = logging.getLogger("race.service")

VOTE, UNVOTE = "vote_end", "vote_end off"  # a vote's action, as the seat's log and `player` say


class Ending:
    """The end of a race, whoever and whatever brings it."""

    def __init__(self, rooms: Rooms, *, clock: Callable[[], int], host_away_ms: int, idle_ms: int) -> None:
        self.rooms, self.clock = rooms, clock
        #: How long a player must have been away before the others may end the race
        #: without them (see :func:`race.rooms.away.end_from`).
        self.host_away_ms = host_away_ms
        #: How long a player still racing may go without acting before they count as away
        #: too, their page open or not (see :func:`race.rooms.away.idle_seats`).
        self.idle_ms = idle_ms

    async def end_if_done(self, code: str, *, by: Ended | None = None) -> bool:
        """End a started race when every player is done or its time is up (or at once,
        ``by`` a player's ``end``); True if it ended now. Safe to call from any process at
        any time: only one commit can end a race."""

        def action(room: Room) -> Change[bool]:
            meta = room.meta
            if meta.status is not Status.STARTED:
                return Change()
            seats = seats_of(room.docs, meta)
            how = (
                Ended.TIME
                if phase(meta, self.clock()) == "over"
                else Ended.DONE
                if all(is_done(s) for s, _ in seats)
                else by
            )
            if how is None:
                return Change()
            return self._over(room, seats, how)

        ended = await self.rooms.transact(code, action, missing_ok=True)
        if ended:
            log.info("room %s: race over", code)
            await self._tell(code, await self.rooms.store.read_all(code))  # nobody idle now
        return bool(ended)

    def _over(
        self, room: Room, seats: list[tuple[Seat, Game]], how: Ended, write: dict[str, str] | None = None
    ) -> Change[bool]:
        """The change that ends the race of ``room`` (whose ``seats`` are as they will be
        written: with ``write``, the documents written with it), ``how``."""
        meta = room.meta
        meta.status, meta.ended_at, meta.ended_by = Status.OVER, self.clock(), how
        expect = _all_seats(room)
        write = {**(write or {}), "meta": dump(meta)}
        after = {**room.docs, **{name: Doc(room.docs[name].version + 1, data) for name, data in write.items()}}
        ghosts = tuple(ghost_results(GHOSTS.decode(room.docs["ghosts"].data))) if "ghosts" in room.docs else ()
        return Change(
            expect=expect,
            write=write,
            publish=room_message(after, self.clock()),
            value=True,
            events=(RaceOver(room.code, meta, seats, ghosts),),
        )

    async def end(self, session: Session, msg: p.End) -> list[dict[str, Any]]:
        """End the race now, for players who went away without resigning: everyone gets the
        final ``room``, the unfinished ranked by their cards home. Any player may, once
        every other player still racing is away (no connection open for ``host_away_ms``) or
        idle (no action for ``idle_ms``); the host no more than anyone. So nobody who
        vanished, or sits on an open page, can keep the race from ending, and nobody ends it
        while a rival plays (they may vote instead: :meth:`vote`)."""
        code, sid = session.room, session.seat
        assert code is not None and sid is not None
        docs = await self.rooms.read(code)
        meta = META.decode(docs["meta"].data)
        if phase(meta, self.clock()) not in ("racing", "countdown"):
            raise Refused("not_racing", "the race is not running")
        seats = seats_of(docs, meta)
        if sid not in meta.seats:
            raise gone()
        racing = [s.seat for s, _ in seats if not is_done(s)]
        here, since = await self.rooms.here(code, self.clock()) or (set(meta.seats), {})
        now = self.clock()
        idle = idle_seats([s for s, _ in seats], meta.start_at, self.idle_ms, now)
        at = end_from(sid, racing, here, since, self.host_away_ms, idle)
        if at is None:
            rivals = [s for s, _ in seats if s.seat in racing and s.seat != sid and s.seat in here]
            names = ", ".join(s.name for s in rivals if s.seat not in idle)
            raise Refused(
                "rival_racing",
                f"{names} still racing here: the race ends early only when every player still in it asks "
                "(vote_end), or once they have gone",
            )
        if at > now:
            soon = f"try again in {(at - now + 999) // 1000} s"
            raise Refused("rival_racing", f"a player still racing has only just gone and may be back: {soon}")
        if await self.end_if_done(code, by=Ended.END):
            log.info("room %s: ended by %s", code, sid)
        return []

    async def vote(self, session: Session, msg: p.VoteEnd) -> list[dict[str, Any]]:
        """A player still racing asks to end the race (or, ``vote`` false, no longer asks):
        their seat says so (``end_vote``) to everyone, and the race ends once every player
        still racing who counts as here (see :func:`race.rooms.away.still_here`: an idle
        player does not, but the one who votes does) asks. A
        vote lasts until its player moves, undoes or restarts (they play on), goes out of
        the race, or withdraws it. Reply: the player's ``state``; the others get ``player``
        (or the ``room`` of the race over)."""
        code, sid = session.room, session.seat
        assert code is not None and sid is not None
        key = seat_key(sid)
        known = await self.rooms.here(code, self.clock())
        session.memo.forget()  # the seat's version moves on

        def action(room: Room) -> Change[dict[str, Any]]:
            meta, now = room.meta, self.clock()
            seat_doc = room.doc(key)
            if seat_doc is None or sid not in meta.seats:
                raise gone()
            ph = phase(meta, now)
            if ph not in ("racing", "countdown"):
                raise Refused("not_racing", "a vote to end the race is only while it runs")
            seat = SEAT.decode(seat_doc.data)
            not_out(seat)
            game = Game.from_trusted_dict(seat.game)
            if seat.end_vote == msg.vote:  # (a retry): nothing to change
                return Change(value=state_view(seat, game, seat_doc.version))
            seat.end_vote = msg.vote
            version = seat_doc.version + 1
            reply = state_view(seat, game, version)
            seats = [(seat, game) if s.seat == sid else (s, g) for s, g in seats_of(room.docs, meta)]
            racing = [s.seat for s, _ in seats if not is_done(s)]
            here, since = known or (set(racing), {})
            action = VOTE if msg.vote else UNVOTE
            noted = (key, dump({"version": version, "action": action}))
            idle = idle_seats([s for s, _ in seats], meta.start_at, self.idle_ms, now)
            idle.pop(sid, None)  # asking is no move, but whoever asks is here
            present = still_here(racing, here, since, self.host_away_ms, now, idle)
            if msg.vote and vote_carries([s for s, _ in seats], present):
                carried.append(True)
                over = self._over(room, seats, Ended.VOTE, {key: dump(seat)})
                return Change(over.write, over.expect, over.publish, noted, reply, events=over.events)
            told = player_message(meta, seat, game, version, action, (progress(seat, game), board(game)), ph)
            return Change(
                expect=_all_seats(room),  # two last votes at once must not each miss the other
                write={key: dump(seat)},
                log=noted,
                publish=not_to(session.conn_id, told),
                value=reply,
            )

        carried: list[bool] = []  # (the vote carried: the race is over)
        state = await self.rooms.transact(code, action, missing_ok=True)
        if state is None:
            raise unknown_room(code)
        if carried:
            await self._tell(code, await self.rooms.store.read_all(code))  # nobody idle now
        return [state]

    async def out(self, code: str) -> None:
        """A player went out of the race: end it if everyone is out, else tell the room its
        presence again, since its ``end_from`` may have changed."""
        if await self.end_if_done(code):
            return
        await self._tell(code, await self.rooms.store.read_all(code))

    async def idle(self, code: str, *, back: bool = False) -> None:
        """A player still racing may have turned idle (the room's timers wake the server
        then), or one who was idle acted (``back``): tell the room its presence, whose
        ``end_from`` and ``idle`` say so, and have the timers wake it when the next player
        may turn idle."""
        docs = await self.rooms.store.read_all(code)
        if "meta" not in docs:
            return
        meta, now = META.decode(docs["meta"].data), self.clock()
        if phase(meta, now) not in ("racing", "countdown") or len(meta.seats) < 2:
            return
        seats = [s for s, _ in seats_of(docs, meta)]
        if back or idle_seats(seats, meta.start_at, self.idle_ms, now):
            await self._tell(code, docs)
        if (at := next_idle(seats, meta.start_at, self.idle_ms, now)) is not None:
            await self.rooms.emit(Timed(code, Timers(idle=at)))

    async def _tell(self, code: str, docs: dict[str, Doc]) -> None:
        """Tell the room its presence, with its ``end_from`` (``docs``: the room as read)."""
        roll = await self.rooms.store.presence(code, self.clock() / 1000)
        if roll.version:
            view = presence_view(roll.version, roll.listed, roll.counted, roll.gone_at)
            with_end_from(view, docs, self.clock(), self.host_away_ms, self.idle_ms)
            await self.rooms.publish(code, news(dump(view)))


def _all_seats(room: Room) -> dict[str, int]:
    """The versions of the room's meta and every seat, as read: what a change that decides
    on all of them expects."""
    return {name: doc.version for name, doc in room.docs.items() if name == "meta" or name.startswith("p:")}
