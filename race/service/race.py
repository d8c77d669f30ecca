"""The race: moves (play, undo, restart), sync, hints and resigning."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from race.engine import Game, IllegalMove, InvalidMove
from race.rooms import tutorial
from race.rooms.errors import Refused
from race.rooms.model import (
    FINISHED,
    META,
    SEAT,
    Kind,
    Meta,
    Seat,
    Status,
    board,
    end_from,
    is_done,
    not_out,
    phase,
    progress,
    seat_key,
    take_move,
)
from race.rooms.record import RESTART, UNDO
from race.rooms.views import SECRET, player_message, presence_view, room_message, room_view, seats_of, state_view
from race.service.base import ServiceBase, log
from race.service.repo import Change, NeedHistory, Room, SeatRoom, dump, gone, load_seat, transact, transact_seat
from race.service.session import Session
from race.wire import protocol as p
from race.wire.envelope import encode, news, not_to


class RaceActions(ServiceBase):
    """The race: a player's moves, and what they may ask while it runs."""

    # -- the race ------------------------------------------------------------------

    async def act(self, session: Session, msg: p.Play | p.Undo | p.Restart) -> list[dict[str, Any]]:
        """A move, an undo or a restart, committed on the player's seat; then what it set off."""
        code, sid = session.room, session.seat
        assert code is not None and sid is not None
        moved = await transact_seat(
            self.store, code, sid, lambda room: self._move(room, msg, session.conn_id), session.memo
        )
        assert moved is not None
        if moved.clock_started:  # a daily attempt's first move: its clock starts now
            docs = await self.store.read_all(code)
            await self.store.publish(code, encode(room_message(docs, self.clock())))
        if moved.won:
            log.info("room %s: %s finished in %d ms", code, sid, moved.seat.finished_ms)
        if moved.finish:
            await self._finished(code, moved.meta, moved.seat)
        if moved.end:
            await self.end_if_done(code)
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
            return Change(value=Moved(meta, seat, reply=reply, finish=True))
        if ph in ("lobby", "countdown"):
            raise Refused("not_started", "the race has not started yet")
        if ph == "over":
            return Change(value=Moved(meta, seat, end=True, refusal=Refused("race_over", "the race is over")))
        if seat.finished_ms is not None:  # a page's own retry (a new id): finish what a win set off
            return Change(value=Moved(meta, seat, finish=True, refusal=Refused("finished", FINISHED)))
        not_out(seat)
        if msg.version != room.version:
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
            value=Moved(meta, seat, reply=reply, won=won, finish=won, clock_started=clock_starts),
        )

    async def _finished(self, code: str, meta: Meta, seat: Seat) -> None:
        """What a win sets off, once it is committed: a daily result posted to its board, the
        race ended when everyone is done. Both are safe to repeat, and the winner's next
        message (a retry of the winning move, any other move, a ``sync``) does repeat them:
        if the store failed just after the win, the client got ``unavailable``, and that
        next message finishes the job."""
        if seat.finished_ms is None:
            return
        if meta.kind is Kind.DAILY and meta.round == 1 and seat.seat == "s1" and self.on_daily_finish is not None:
            await self.on_daily_finish(meta, seat)
        await self._out(code)

    async def end(self, session: Session) -> list[dict[str, Any]]:
        """End the race now, for players who went away without resigning: everyone gets the
        final ``room``, the unfinished ranked by their cards home. The host may, at any time;
        so may a player who is out of the race (finished or resigned) when at most one of
        the players still in it is here, a player who has been away (no connection open) for
        the service's ``host_away_ms`` not counting. So nobody who vanished, the host included, can
        keep the race from ending."""
        code = session.room
        assert code is not None
        docs = await self._room(code)
        meta = META.decode(docs["meta"].data)
        if phase(meta, self.clock()) not in ("racing", "countdown"):
            raise Refused("not_racing", "the race is not running")
        if meta.host != session.seat:
            seats = seats_of(docs, meta)
            me = next((s for s, _ in seats if s.seat == session.seat), None)
            if me is None or not is_done(me):
                raise Refused("not_host", "only the host can end the race, or a player who is out of it")
            racing = [s.seat for s, _ in seats if not is_done(s)]
            if len(racing) > 1:
                await self._may_end_without(code, racing)
        if await self.end_if_done(code, now=True):
            log.info("room %s: ended by %s", code, session.seat)
        return []

    async def _may_end_without(self, code: str, racing: list[str]) -> None:
        """Refuse to end the race for a player who is out of it before :func:`end_from`."""
        here, since = await self._here(code) or (set(racing), {})
        at, now = end_from(racing, here, since, self.host_away_ms), self.clock()
        if at is None:
            raise Refused("not_host", "only the host can end the race while two players still in it are here")
        if at > now:
            soon = f"try again in {(at - now + 999) // 1000} s"
            raise Refused("not_host", f"a player still racing has only just gone and may be back: {soon}")

    async def presence_end(self, code: str, view: dict[str, Any]) -> bool:
        """Add to the room's ``presence`` message its ``end_from`` (``None`` outside a race);
        whether the room still exists (it expires once unused for the store's ttl)."""
        docs = await self.store.read_all(code)
        meta = META.decode(docs["meta"].data) if "meta" in docs else None
        if meta is None or phase(meta, self.clock()) not in ("racing", "countdown"):
            view["end_from"] = None
            return meta is not None
        racing = [sid for sid in meta.seats if not is_done(SEAT.decode(docs[seat_key(sid)].data))]
        view["end_from"] = end_from(racing, set(view["here"]), view["away_since"], self.host_away_ms)
        return True

    async def _out(self, code: str) -> None:
        """A player went out of the race: end it if everyone is out, else tell the room its
        presence again, since its ``end_from`` may have changed."""
        if await self.end_if_done(code):
            return
        roll = await self.store.presence(code, self.clock() / 1000)
        if roll.version:
            view = presence_view(roll.version, roll.listed, roll.counted, roll.gone_at)
            await self.presence_end(code, view)
            await self.store.publish(code, encode(news(dump(view))))

    def _apply_in(self, meta: Meta, seat: Seat, game: Game, msg: p.Play | p.Undo | p.Restart) -> tuple[Game, str]:
        """Apply ``msg`` to ``seat``'s game in ``meta``'s room: the game after it (a new one
        for a tutorial's restart) and the action's text. A tutorial refuses the moves its
        lesson does not teach, and restarts at its own position."""
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

    async def sync(self, session: Session) -> list[dict[str, Any]]:
        """The room as it is now, and for a player also their own state (e.g. after a
        rematch, which deals every seat a new game, or after a ``resync``)."""
        assert session.room is not None
        docs = await self._room(session.room)
        meta = META.decode(docs["meta"].data)
        mine_doc = docs.get(seat_key(session.seat)) if session.seat is not None else None
        mine = SEAT.decode(mine_doc.data) if mine_doc is not None else None
        if mine is not None and mine.finished_ms is not None:
            # A win whose aftermath the store cut short (the page never retries it): finish it.
            await self._finished(session.room, meta, mine)
            docs = await self._room(session.room)
        elif meta.status is Status.STARTED and (
            phase(meta, self.clock()) == "over" or all(is_done(s) for s, _ in seats_of(docs, meta))
        ):  # its end went unannounced (the store failed just then): end it now
            await self.end_if_done(session.room)
            docs = await self._room(session.room)
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

    async def hint(self, session: Session) -> list[dict[str, Any]]:
        assert session.room is not None and session.seat is not None
        room = await load_seat(self.store, session.room, session.seat)
        if phase(room.meta, self.clock()) != "racing":
            raise Refused("not_racing", "hints are available while the race runs")
        not_out(room.seat)
        game, history = room.game, room.seat.history
        hint = tutorial.hint(game, history) if room.meta.kind is Kind.TUTORIAL else game.hint()
        return [{"type": "hint", "move": None if hint is None else str(hint), "version": room.version}]

    async def resign(self, session: Session) -> list[dict[str, Any]]:
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
            version = seat_doc.version + 1
            event = player_message(room.meta, seat, game, version, "resign", (progress(seat, game), board(game)))
            return Change(
                expect={"meta": room.version, key: seat_doc.version},
                write={key: dump(seat)},
                log=(key, dump({"version": version, "action": "resign"})),
                publish=not_to(session.conn_id, event),
                value=state_view(seat, game, version, hidden=phase(room.meta, self.clock()) in SECRET),
            )

        state = await transact(self.store, code, action, names=[key], missing_ok=True)
        if state is None:
            raise Refused("unknown_room", "this room no longer exists")
        await self._out(code)
        return [state]


@dataclass(frozen=True, slots=True)
class Moved:
    """What a move did, for :meth:`RaceActions.act` to follow up once it is committed (or
    found needing no commit): the reply; whether the seat won with it; what a win sets off
    (``finish``) or the race's end (``end``) to run; a refusal to raise after those; and
    whether the move started a daily attempt's clock."""

    meta: Meta
    seat: Seat
    reply: dict[str, Any] | None = None
    won: bool = False
    finish: bool = False
    end: bool = False
    refusal: Refused | None = None
    clock_started: bool = False
