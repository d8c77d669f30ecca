"""The whole service: :class:`RaceService` composes entering a room, the lobby and the race, and dispatches
each client message to its action."""

from __future__ import annotations

from typing import Any

from race.rooms.errors import Refused
from race.service.lobby import LobbyActions
from race.service.race import RaceActions
from race.service.session import Role, Session
from race.service.tutorial import TutorialActions
from race.wire import protocol as p


class RaceService(TutorialActions, LobbyActions, RaceActions):
    async def handle(self, session: Session, msg: p.ClientMessage) -> list[dict[str, Any]]:
        """Carry out one decoded client message; return the replies for its sender."""
        match msg:
            case p.Ping():
                return [{"type": "pong", "server_time": self.clock()}]
            case p.Create():
                return await self.create(session, msg)
            case p.Join():
                return await self.join(session, msg)
            case p.Resume():
                return await self.resume(session, msg)
            case p.Watch():
                return await self.watch(session, msg)
            case p.Tutorial():
                return await self.tutorial(session, msg)
            case p.Daily() | p.Leaderboard():  # the connection hands these to the daily challenge
                raise Refused("unavailable", "the daily challenge is not available on this server")
        if session.role is None:
            raise Refused("not_in_room", f"join or watch a room before sending {msg.__struct_config__.tag!r}")
        if isinstance(msg, p.Sync):
            return await self.sync(session)
        if session.role is not Role.PLAYER:
            raise Refused("spectator", "spectators cannot act in the race")
        match msg:
            case p.Ready():
                return await self.ready(session, msg.ready)
            case p.Start():
                return await self.start(session)
            case p.Play() | p.Undo() | p.Restart():
                return await self.act(session, msg)
            case p.Hint():
                return await self.hint(session)
            case p.Resign():
                return await self.resign(session)
            case p.Rematch():
                return await self.rematch(session, msg.deal, ghosts=msg.ghosts)
            case p.Leave():
                return await self.leave(session)
            case p.Remove():
                return await self.remove(session, msg.seat)
            case p.End():
                return await self.end(session)
        raise Refused("unknown_type", "unhandled message")  # pragma: no cover
