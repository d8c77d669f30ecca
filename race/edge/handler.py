"""One client message carried out: decoded (:mod:`race.wire.protocol`), handed to the service
(:class:`race.service.RaceService`, whose table names each message's action, the daily
challenge's among them), and answered with what it did, an :class:`Outcome`: the replies, the
rooms and leaderboards its connection follows from now on or no longer, and whether it
arrived in a room. The connection (:mod:`race.edge.connection`) only carries that out.

A message that reads what it will then be streamed (a ``join``, ``resume`` or ``watch``
reads its room's snapshot, a ``leaderboard`` its board) has its connection follow the
room first, through :class:`Channels`, so no broadcast falls between the read and the
stream; if the message is refused, the connection follows nothing for it. Errors become
``error`` replies here, with the code and message of the protocol's error or of the room's
rules' refusal (:class:`race.rooms.errors.Refused`), or for the store being away, or a bug.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from race.rooms.errors import Refused
from race.rooms.model import normalise_code
from race.service import Session
from race.service.players import board_group
from race.store import StoreUnavailable
from race.wire import protocol as p
from race.wire.protocol import ProtocolError

log = logging.getLogger(__name__)
MAX_FOLLOWED = 8  # leaderboards one connection follows at once (the oldest is dropped)
#: What arrives in a room (seats the connection, makes it a spectator, resumes or resyncs it).
_ARRIVES = p.Create | p.Daily | p.Tutorial | p.Join | p.Resume | p.Watch | p.Sync


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one message did, for its connection to carry out in this order."""

    #: The rooms (and leaderboards) to follow from now on: a room the message made. If
    #: that fails, the replies still go out, and the connection is closed.
    follow: Sequence[str] = ()
    #: The rooms (and leaderboards) to follow no more: a room left, the oldest board.
    unfollow: Sequence[str] = ()
    #: Replies written at once, ahead of a spectator delay the message starts.
    at_once: Sequence[dict[str, Any]] = ()
    #: Everything sent from here on runs this many ms behind (0: no longer), when not None.
    delay_ms: int | None = None
    replies: Sequence[dict[str, Any]] = ()
    #: A spectator of a lobby: the delay of this many ms begins with the race (nothing in a
    #: lobby is secret), when not None.
    delay_at_start_ms: int | None = None
    #: The message seated the connection, made it a spectator, or resumed or resynced it.
    arrived: bool = False


class Service(Protocol):
    """What carries out a decoded message (:class:`race.service.RaceService`)."""

    async def handle(self, session: Session, msg: p.ClientMessage) -> list[dict[str, Any]]: ...


class Channels(Protocol):
    """The rooms and leaderboards a connection follows."""

    async def follow(self, channel: str) -> None: ...

    async def unfollow(self, channel: str) -> None: ...


class Handler:
    """``today``: the daily challenge's day (its leaderboards are followed), None when the
    server has no daily challenge."""

    def __init__(self, service: Service, today: Callable[[], str] | None) -> None:
        self.service, self.today = service, today

    async def handle(self, session: Session, raw: str | bytes, channels: Channels) -> Outcome:
        """Carry out the client's message ``raw`` for ``session``."""
        msg: p.ClientMessage | None = None
        try:
            msg = p.decode(raw)
            board = self._board(msg)
            first = self._first(session, msg, board)
            if first is not None:
                await channels.follow(first)
            try:
                return await self._carry_out(session, msg, board)
            except BaseException:
                if first is not None and first != session.room:  # refused: it follows nothing
                    await channels.unfollow(first)
                raise
        except (ProtocolError, Refused) as exc:
            return Outcome(replies=[p.error(exc.code, exc.message, **exc.extra)])
        except StoreUnavailable as exc:
            log.warning("store unavailable while handling a message: %s", exc)
            unavailable = "the service is temporarily unavailable; try again (retrying is safe)"
            return Outcome(replies=[p.error("unavailable", unavailable)])
        except Exception:
            log.exception("error while handling a %s message", type(msg).__name__ if msg is not None else "?")
            return Outcome(replies=[p.error("internal", "internal error while handling your message")])

    def _board(self, msg: p.ClientMessage) -> str | None:
        """The daily leaderboard ``msg`` reads, if it reads one."""
        if isinstance(msg, p.Leaderboard) and self.today is not None:
            return board_group(msg.date or self.today(), msg.difficulty)
        return None

    def _first(self, session: Session, msg: p.ClientMessage, board: str | None) -> str | None:
        """The room or leaderboard to follow before ``msg`` reads it, if not followed yet."""
        if board is not None:
            if board not in session.boards:
                return board
            session.boards[board] = session.boards.pop(board)  # the most recently asked for: kept longest
        elif isinstance(msg, p.Join | p.Resume | p.Watch) and session.role is None:
            return normalise_code(msg.room)
        return None

    async def _carry_out(self, session: Session, msg: p.ClientMessage, board: str | None) -> Outcome:
        left = session.room  # the room a leave takes the connection out of
        replies = await self.service.handle(session, msg)
        arrived = isinstance(msg, _ARRIVES)
        if board is not None:
            session.boards.setdefault(board, None)
            oldest = [next(iter(session.boards))] if len(session.boards) > MAX_FOLLOWED else []
            for gone in oldest:
                del session.boards[gone]
            return Outcome(unfollow=oldest, replies=replies)
        if isinstance(msg, p.Create | p.Daily | p.Tutorial):
            assert session.room is not None
            return Outcome(follow=[session.room], replies=replies, arrived=arrived)
        if isinstance(msg, p.Leave) and left is not None and session.room is None:
            return Outcome(unfollow=[left], delay_ms=0, replies=replies)
        if isinstance(msg, p.Watch) and session.delay_ms:
            if any(r.get("type") == "watching" and r["room"].get("phase") == "lobby" for r in replies):
                return Outcome(delay_ms=0, delay_at_start_ms=session.delay_ms, replies=replies, arrived=arrived)
            told = {"type": "delayed", "ms": session.delay_ms}  # (at once: the page says so)
            return Outcome(at_once=[told], delay_ms=session.delay_ms, replies=replies, arrived=arrived)
        return Outcome(replies=replies, arrived=arrived)
