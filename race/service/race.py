"""The race (:class:`Race`): a player's moves (play, undo, restart), sync and resigning
(hints: :mod:`race.service.hints`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from race.engine import Game, IllegalMove, InvalidMove
from race.rooms import hints, tutorial
from race.rooms.away import idle_at
from race.rooms.errors import Refused
from race.rooms.events import DailyWon, Event
from race.rooms.model import (
    FINISHED,
    META,
    SEAT,
    Kind,
    Meta,
    Seat,
    Status,
    is_done,
    not_out,
    phase,
    seat_key,
    take_move,
)
from race.rooms.record import RESTART, UNDO
from race.rooms.standing import board, progress
from race.rooms.views import SECRET, player_message, room_message, room_view, seats_of, state_view
from race.service.ending import Ending
from race.service.hints import Hints
from race.service.repo import Change, NeedHistory, Room, Rooms, SeatRoom, dump, gone, unknown_room
from race.service.session import Session
from race.wire import protocol as p
from race.wire.envelope import not_to

log = logging.getLogger("race.service")


class Race:
    """The race: a player's moves, and what they may ask while it runs."""

    def __init__(
        self, rooms: Rooms, ending: Ending, hints: Hints, *, clock: Callable[[], int], max_game_moves: int
    ) -> None:
        self.rooms, self.ending, self.hints, self.clock = rooms, ending, hints, clock
        #: The most moves a game's history may hold: the room stores the whole history (for
        #: undo), so without a bound a client that plays on for hours grows it without end.
        self.max_game_moves = max_game_moves

    async def act(self, session: Session, msg: p.Play | p.Undo | p.Restart) -> list[dict[str, Any]]:
        """A move, an undo or a restart, committed on the player's seat; then what it set off."""
        code, sid = session.room, session.seat
        assert code is not None and sid is not None
        moved = await self.rooms.transact_seat(
            code, sid, lambda room: self._move(room, msg, session.conn_id), session.memo
        )
        assert moved is not None
        if moved.clock_started:  # a daily attempt's first move: its clock starts now
            docs = await self.rooms.read(code)
            await self.rooms.publish(code, room_message(docs, self.clock()))
        if moved.won:
            log.info("room %s: %s finished in %d ms", code, sid, moved.seat.finished_ms)
        if moved.finish:  # the daily result is posted by then: it is one of the change's events
            await self.ending.out(code)
        if moved.end:
            await self.ending.end_if_done(code)
        if moved.back:  # the room was told this player is idle: now it learns they are not
            await self.ending.idle(code, back=True)
        if moved.refusal is not None:
            raise moved.refusal
        assert moved.reply is not None
        return [moved.reply]

    def _move(self, room: SeatRoom, msg: p.Play | p.Undo | p.Restart, conn_id: str) -> Change[Moved]:
        """The action of a move on a loaded seat: the change to commit, or, for a retried
        move, one whose race is over or a seat that has won, nothing to commit but what to
        do about it."""
        meta, seat, game, now = room.meta, room.seat, room.game, self.clock()
        ph = phase(meta, now)
        duplicate = msg.id is not None and msg.id == seat.last_id
        if duplicate:  # a retry (the reply was lost): the same answer, and what a win set off
            reply = state_view(seat, game, room.version, duplicate=True)
            won = seat.finished_ms is not None
            return Change(value=Moved(meta, seat, reply=reply, finish=won), events=_won(meta, seat))
        if ph in ("lobby", "countdown"):
            raise Refused("not_started", "the race has not started yet")
        if ph == "over":
            return Change(value=Moved(meta, seat, end=True, refusal=Refused("race_over", "the race is over")))
        if seat.finished_ms is not None:  # a page's own retry (a new id): finish what a win set off
            refusal = Refused("finished", FINISHED)
            return Change(value=Moved(meta, seat, finish=True, refusal=refusal), events=_won(meta, seat))
        not_out(seat)
        if not hints.not_stale(seat, msg.version, room.version):
            raise Refused(
                "stale",
                f"your state is version {msg.version}, the server's is {room.version}; the current state is attached",
                state=state_view(seat, game, room.version),
            )
        if isinstance(msg, p.Play) and seat.history >= self.max_game_moves:
            raise Refused(
                "too_many_moves",
                f"this game holds {seat.history} moves, the most a game may; undo or restart to go on",
            )
        if seat.history and not game.move_stack and not isinstance(msg, p.Restart):
            raise NeedHistory  # a restart drops it anyway
        game, text = self._apply_in(meta, seat, game, msg)
        action = text if isinstance(msg, p.Play) else UNDO if isinstance(msg, p.Undo) else RESTART
        played = isinstance(msg, p.Play)
        back = (
            meta.start_at is not None
            and len(meta.seats) > 1
            and idle_at(seat, meta.start_at, self.ending.idle_ms) <= now
        )
        docs, clock_starts = take_move(meta, seat, game, action, now, played=played, move_id=msg.id)
        write = {"meta": dump(meta)} if clock_starts else {}  # a daily attempt: the clock starts now
        write.update(docs)
        write[room.key] = dump(seat)
        version = room.version + 1
        shown = progress(seat, game), board(game, seat.game["piles"])  # the piles just saved
        won = seat.finished_ms is not None
        reply = state_view(seat, game, version, shown=shown)
        return Change(
            expect={"meta": room.meta_doc.version, room.key: room.version},
            write=write,
            log=(room.key, dump({"version": version, "action": text})),
            publish=not_to(conn_id, player_message(meta, seat, game, version, text, shown)),  # the mover has its reply
            game=game,
            value=Moved(meta, seat, reply=reply, won=won, finish=won, clock_started=clock_starts, back=back),
            events=_won(meta, seat),
        )

    def _apply_in(self, meta: Meta, seat: Seat, game: Game, msg: p.Play | p.Undo | p.Restart) -> tuple[Game, str]:
        """Apply ``msg`` to ``seat``'s game in ``meta``'s room: the game after it (a new one
        for a tutorial's or a practice's restart) and the action's text. A tutorial refuses
        the moves its lesson does not teach, and restarts at its own position; a practice
        restarts where it began."""
        if meta.practice is not None and isinstance(msg, p.Restart):
            return meta.practice.game(), "restart"  # back to where the practice began
        if meta.kind is Kind.TUTORIAL:
            if isinstance(msg, p.Restart):
                return tutorial.start(), "restart"
            if isinstance(msg, p.Play) and (why := tutorial.refusal(game, seat.history, msg.move)) is not None:
                raise Refused("not_in_lesson", why)
        return game, self._apply(game, msg)

    @staticmethod
    def _apply(game: Game, msg: p.Play | p.Undo | p.Restart) -> str:
        try:
            if isinstance(msg, p.Play):
                return str(game.play(msg.move))
            if isinstance(msg, p.Undo):
                return f"undo {game.undo()}"
            game.restart()
            return "restart"
        except InvalidMove as exc:
            raise Refused("invalid_move", str(exc)) from None
        except IllegalMove as exc:
            raise Refused("illegal_move", str(exc)) from None

    async def sync(self, session: Session, msg: p.Sync) -> list[dict[str, Any]]:
        """The room as it is now, and for a player also their own state (e.g. after a
        rematch, which deals every seat a new game, or after a ``resync``)."""
        assert session.room is not None
        docs = await self.rooms.read(session.room)
        meta = META.decode(docs["meta"].data)
        mine_doc = docs.get(seat_key(session.seat)) if session.seat is not None else None
        mine = SEAT.decode(mine_doc.data) if mine_doc is not None else None
        if mine is not None and mine.finished_ms is not None:
            # A win whose aftermath the store cut short (the page never retries it): finish it.
            await self.rooms.emit(*_won(meta, mine))
            await self.ending.out(session.room)
            docs = await self.rooms.read(session.room)
        elif meta.status is Status.STARTED and (
            phase(meta, self.clock()) == "over" or all(is_done(s) for s, _ in seats_of(docs, meta))
        ):  # its end went unannounced (the store failed just then): end it now
            await self.ending.end_if_done(session.room)
            docs = await self.rooms.read(session.room)
        now = self.clock()
        replies = [{"type": "room", "room": room_view(docs, now, spectator=session.sees_boards)}]
        if session.seat is not None:
            key = seat_key(session.seat)
            if key not in docs:
                raise gone()
            seat = SEAT.decode(docs[key].data)
            hidden = phase(meta, now) in SECRET
            replies.append(state_view(seat, Game.from_trusted_dict(seat.game), docs[key].version, hidden=hidden))
        return replies

    async def hint(self, session: Session, msg: p.Hint) -> list[dict[str, Any]]:
        return await self.hints.ask(session, msg)

    async def resign(self, session: Session, msg: p.Resign) -> list[dict[str, Any]]:
        code, sid = session.room, session.seat
        assert code is not None and sid is not None
        key = seat_key(sid)

        def action(room: Room) -> Change[dict[str, Any]]:
            seat_doc = room.doc(key)
            if seat_doc is None or sid not in room.meta.seats:
                raise gone()
            if phase(room.meta, self.clock()) not in ("racing", "countdown"):
                raise Refused("not_racing", "you can resign only while the race runs")
            seat = SEAT.decode(seat_doc.data)
            not_out(seat)
            seat.resigned = True
            game = Game.from_trusted_dict(seat.game)
            seat.end_vote = False
            version = seat_doc.version + 1
            ph = phase(room.meta, self.clock())
            told = player_message(room.meta, seat, game, version, "resign", (progress(seat, game), board(game)), ph)
            return Change(
                expect={"meta": room.version, key: seat_doc.version},
                write={key: dump(seat)},
                log=(key, dump({"version": version, "action": "resign"})),
                publish=not_to(session.conn_id, told),
                value=state_view(seat, game, version, hidden=ph in SECRET),
            )

        state = await self.rooms.transact(code, action, names=[key], missing_ok=True)
        if state is None:
            raise unknown_room(code)
        await self.ending.out(code)
        return [state]


@dataclass(frozen=True, slots=True)
class Moved:
    """What a move did, for :meth:`Race.act` to follow up once it is committed (or found
    needing no commit): the reply; whether the seat won with it; whether it has won, so
    that the race may end (``finish``), or the race is over (``end``) and its end is to be
    made sure of; a refusal to raise after those; whether the move started a daily
    attempt's clock; and whether the player was idle until it (``back``)."""

    meta: Meta
    seat: Seat
    reply: dict[str, Any] | None = None
    won: bool = False
    finish: bool = False
    end: bool = False
    refusal: Refused | None = None
    clock_started: bool = False
    back: bool = False


def _won(meta: Meta, seat: Seat) -> tuple[Event, ...]:
    """What a win sets off besides the race's end: a daily attempt's result, for its day's
    board (its first round's one player). Safe to repeat, and the winner's next message (a
    retry of the winning move, any other move, a ``sync``) does repeat it: if the store
    failed just after the win, the client got ``unavailable``, and that next message
    finishes the job."""
    if seat.finished_ms is not None and meta.kind is Kind.DAILY and meta.round == 1 and seat.seat == "s1":
        return (DailyWon(meta.code, meta, seat),)
    return ()
