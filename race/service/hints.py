"""A player's hints (:class:`Hints`): the hint that makes progress, counted on the seat.

A hint is worked out from every position the game has reached (:mod:`race.engine.hints`),
which the server has from the game's actions, kept on the seat and in its acts documents
(:func:`race.rooms.model.note_action`). The process keeps its replay of the games last
hinted (:data:`TRAILS` of them), so a hint replays only the actions taken since the last
one; a game hinted for the first time in a process (or long ago) is replayed once. The
move path does none of it.

A hint shown is counted on the seat in the same commit as the player's moves are (the
seat's version moves on, and the others are told with a ``player`` message), unless it is
the hint already shown since the player's last action (see :mod:`race.rooms.hints`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from race.engine.hints import Advice, Trail, advise, position_hash
from race.rooms import hints as rule
from race.rooms import tutorial
from race.rooms.errors import Refused
from race.rooms.model import ACTS_CHUNK, Kind, Seat, actions_of, acts_key, not_out, phase
from race.rooms.standing import board, progress
from race.rooms.views import player_message, state_view
from race.service.repo import RETRIES, Change, Rooms, SeatRoom, conflict, dump
from race.store import Documents
from race.wire import protocol as p
from race.wire.envelope import not_to

if TYPE_CHECKING:
    from race.service.session import Session

log = logging.getLogger("race.service")


TRAILS = 256  # the games (a seat's round) whose replay a process keeps for their next hint
REPLAY_STEP = 500  # actions replayed at a time (about 2 ms), the process's other work between
#: A game: its room's code and creation time (a code may be used again once its room is
#: gone), the seat, the round.
GameKey = tuple[str, int, str, int]


class _Moved(Exception):
    """The seat took an action between the read the hint was worked out on and its commit."""


class Hints:
    """Hints for the players of the rooms in ``rooms``, whose acts documents ``store`` reads."""

    def __init__(self, rooms: Rooms, store: Documents, *, clock: Callable[[], int], trails: int = TRAILS) -> None:
        self.rooms, self.store, self.clock = rooms, store, clock
        #: The replays of the games last hinted here, the least recently hinted first.
        self.trails: OrderedDict[GameKey, Trail] = OrderedDict()
        self.most_trails = trails

    async def ask(self, session: Session, msg: p.Hint) -> list[dict[str, Any]]:
        """The hint for the player's game: a ``state`` (the count moved on) and a ``hint``,
        or the ``hint`` alone when nothing was counted."""
        code, sid = session.room, session.seat
        assert code is not None and sid is not None
        for _ in range(RETRIES):
            room = await self.rooms.load_seat(code, sid)
            meta, seat = room.meta, room.seat
            if phase(meta, self.clock()) != "racing":
                raise Refused("not_racing", "hints are available while the race runs")
            not_out(seat)
            if meta.kind is Kind.TUTORIAL:  # the lessons: their own moves, never counted
                move = tutorial.hint(room.game, seat.history)
                return [rule.answer(Advice(move, move is not None), room.version, seat.hints)]
            rule.allowed(meta)
            advice = await self._advice(room)
            done = rule.actions(seat)
            if seat.hint_act == done:  # shown already since the last action: again, free
                return [rule.answer(advice, room.version, seat.hints)]
            try:
                counted = await self.rooms.transact_seat(
                    code,
                    sid,
                    functools.partial(self._count, done=done, advice=advice, conn_id=session.conn_id),
                    session.memo,
                )
            except _Moved:
                continue
            assert counted is not None
            return counted
        raise conflict()

    def _count(self, room: SeatRoom, *, done: int, advice: Advice, conn_id: str) -> Change[list[dict[str, Any]]]:
        """The commit of a hint worked out after ``done`` actions of the seat: counted, and
        told to the room."""
        meta, seat, game = room.meta, room.seat, room.game
        if rule.actions(seat) != done:
            raise _Moved
        not_out(seat)
        if not rule.charge(seat, actions=done, version=room.version):
            return Change(value=[rule.answer(advice, room.version, seat.hints)])
        version = room.version + 1
        shown = progress(seat, game), board(game)
        return Change(
            expect={"meta": room.meta_doc.version, room.key: room.version},
            write={room.key: dump(seat)},
            log=(room.key, dump({"version": version, "action": "hint"})),
            publish=not_to(conn_id, player_message(meta, seat, game, version, "hint", shown)),
            value=[state_view(seat, game, version, shown=shown), rule.answer(advice, version, seat.hints)],
        )

    async def _advice(self, room: SeatRoom) -> Advice:
        """The hint for ``room``'s game, from every position it has reached: the process's
        replay of it brought up to date (made again if it does not agree with the seat)."""
        meta, seat = room.meta, room.seat
        key = (room.code, meta.created, room.sid, meta.round)
        done = rule.actions(seat)
        for _ in range(2):
            # Taken out while it is brought up to date: another hint of the game meanwhile
            # (another tab) makes its own, and whichever is put back last stays.
            trail = self.trails.pop(key, None)
            if trail is None or trail.actions > done:
                trail = Trail(meta.deal, meta.difficulty)
            try:
                actions = await self._actions_since(room.code, seat, trail.actions)
                for i in range(0, len(actions), REPLAY_STEP):  # a long game: the others' turns between
                    if i:
                        await asyncio.sleep(0)
                    trail.extend(actions[i : i + REPLAY_STEP])
            except ValueError as exc:  # (the engine's errors, a missing document)
                log.error("room %s: %s's actions do not replay: %s", room.code, room.sid, exc)
                continue
            if position_hash(trail.game) == position_hash(room.game):
                self.trails[key] = trail
                if len(self.trails) > self.most_trails:
                    self.trails.popitem(last=False)
                return advise(trail.game, trail.seen)
        log.error("room %s: %s's game is hinted from its position alone", room.code, room.sid)
        return advise(room.game, {position_hash(room.game)})

    async def _actions_since(self, code: str, seat: Seat, start: int) -> list[str]:
        """The seat's actions from number ``start`` on (0 is the first)."""
        first = start // ACTS_CHUNK
        keys = [acts_key(seat.seat, k) for k in range(first, seat.logged // ACTS_CHUNK)]
        docs = await self.store.read(code, keys) if keys else []
        acts = actions_of(seat, [d.data if d is not None else None for d in docs])
        return [a for a, _ in acts[start - first * ACTS_CHUNK :]]
