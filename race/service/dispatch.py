"""The service's one door (:class:`RaceService`): each decoded client message handed, by one
table, to the action that carries it out, once its connection may send it; and the
server's clock (:func:`now_ms`)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Any, Protocol

from race.rooms.errors import Refused
from race.rooms.events import Timed
from race.rooms.model import Status
from race.rooms.views import timers
from race.service.ending import Ending
from race.service.entry import Entry
from race.service.lobby import Lobby
from race.service.race import Race
from race.service.repo import Rooms
from race.service.rounds import Rounds
from race.service.session import Role, Session
from race.wire import protocol as p

#: An action: what one client message does for its connection; the replies to send it.
Action = Callable[[Session, Any], Awaitable[list[dict[str, Any]]]]


def now_ms() -> int:
    """The server's clock: Unix time in milliseconds."""
    return int(time.time() * 1000)


class May(Enum):
    """Who may send a message: any connection, one in a room, or a player in a room."""

    ANYONE = "anyone"
    IN_ROOM = "in_room"
    PLAYER = "player"


class Daily(Protocol):
    """The daily challenge's actions (:class:`race.daily.DailyChallenge`)."""

    async def start(self, session: Session, msg: p.Daily) -> list[dict[str, Any]]: ...

    async def board(self, session: Session, msg: p.Leaderboard) -> list[dict[str, Any]]: ...


class RaceService:
    """Every client message, carried out by the action its type names in :attr:`table`."""

    def __init__(
        self,
        rooms: Rooms,
        entry: Entry,
        lobby: Lobby,
        race: Race,
        ending: Ending,
        rounds: Rounds,
        daily: Daily | None = None,
        *,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.rooms, self.entry, self.lobby, self.race, self.ending = rooms, entry, lobby, race, ending
        self.rounds = rounds
        self.clock = clock
        start, board = (daily.start, daily.board) if daily is not None else (_no_daily, _no_daily)
        #: Each message's type: who may send it, and its action.
        self.table: dict[type[p.ClientMessage], tuple[May, Action]] = {
            p.Ping: (May.ANYONE, self.ping),
            p.Create: (May.ANYONE, entry.create),
            p.Join: (May.ANYONE, entry.join),
            p.Resume: (May.ANYONE, entry.resume),
            p.Watch: (May.ANYONE, entry.watch),
            p.Tutorial: (May.ANYONE, entry.tutorial),
            p.Daily: (May.ANYONE, start),
            p.Leaderboard: (May.ANYONE, board),
            p.Sync: (May.IN_ROOM, race.sync),
            p.Ready: (May.PLAYER, lobby.ready),
            p.Start: (May.PLAYER, lobby.start),
            p.Leave: (May.PLAYER, lobby.leave),
            p.Remove: (May.PLAYER, lobby.remove),
            p.Rematch: (May.PLAYER, rounds.rematch),
            p.Answer: (May.PLAYER, rounds.answer),
            p.Play: (May.PLAYER, race.act),
            p.Undo: (May.PLAYER, race.act),
            p.Restart: (May.PLAYER, race.act),
            p.Hint: (May.PLAYER, race.hint),
            p.Resign: (May.PLAYER, race.resign),
            p.End: (May.PLAYER, ending.end),
            p.VoteEnd: (May.PLAYER, ending.vote),
        }

    async def handle(self, session: Session, msg: p.ClientMessage) -> list[dict[str, Any]]:
        """Carry out one decoded client message; return the replies for its sender."""
        may, action = self.table[type(msg)]
        if may is not May.ANYONE and session.role is None:
            raise Refused("not_in_room", f"join or watch a room before sending {msg.__struct_config__.tag!r}")
        if may is May.PLAYER and session.role is not Role.PLAYER:
            raise Refused("spectator", "spectators cannot act in the race")
        return await action(session, msg)

    async def ping(self, session: Session, msg: p.Ping) -> list[dict[str, Any]]:
        return [{"type": "pong", "server_time": self.clock()}]

    async def rearm(self, code: str) -> bool:
        """Ask this process's scheduler again for room ``code``'s timers, as its stored state
        has them: for a process that starts while rooms are in progress, whose timers went
        with the process that stopped. A race that should have ended while no process ran
        (its time is up, or every player is done) ends now. Whether its race was in progress."""
        room = await self.rooms.load(code, ["meta"])
        if room is None or room.meta.status is not Status.STARTED:
            return False
        if not await self.ending.end_if_done(code):
            await self.rooms.emit(Timed(code, timers(room.meta, self.clock(), self.ending.idle_ms)))
        return True


async def _no_daily(session: Session, msg: p.ClientMessage) -> list[dict[str, Any]]:
    raise Refused("unavailable", "the daily challenge is not available on this server")
