"""One websocket client, top to bottom: each frame it sends passes the rate limit
(:mod:`race.edge.limits`), is carried out by the handler (:mod:`race.edge.handler`), and what that did
is done: the rooms followed or no longer, the replies sent through the client's outbox
(:mod:`race.edge.outbox`), and the room's presence (:mod:`race.live.presence`) told of the client's
arrival or departure (the client that arrived gets the room's ``presence`` as a reply).
The room's broadcasts reach the client through the hub (:mod:`race.live.hub`), which sees the
connection as a :class:`race.live.hub.Member`.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from typing import Any

import msgspec
from starlette.websockets import WebSocket

from race.edge.handler import Handler, Outcome
from race.edge.limits import MessageLimit, Verdict
from race.edge.outbox import Outbox
from race.live.hub import Hub
from race.live.presence import Presence, member_id
from race.service import Session
from race.settings import Settings
from race.store import StoreUnavailable
from race.wire import protocol as p

log = logging.getLogger(__name__)
_RESYNC = p.encode({"type": "resync", "message": "some updates were lost; resume to resync"})
_SLOW_DOWN = p.error("rate_limited", "too many messages; slow down (this one was ignored)")


class _Phase(msgspec.Struct):
    phase: str = ""


class _Snapshot(msgspec.Struct):
    type: str = ""
    room: _Phase | str | None = None


_snapshot = msgspec.json.Decoder(_Snapshot)


def _starts_race(message: str) -> bool:
    """Whether ``message`` is a room snapshot past its lobby (its race has begun)."""
    if '"phase"' not in message:
        return False
    try:
        m = _snapshot.decode(message)
    except msgspec.DecodeError:
        return False
    return m.type == "room" and isinstance(m.room, _Phase) and m.room.phase not in ("", "lobby")


class Connection:
    def __init__(
        self,
        ws: WebSocket,
        hub: Hub,
        handler: Handler,
        presence: Presence,
        limit: MessageLimit,
        settings: Settings,
        address: str,
    ) -> None:
        self.hub, self.handler, self.presence, self.limit = hub, handler, presence, limit
        self.id = secrets.token_hex(8)
        self.session = Session(self.id, address=address)
        self.outbox = Outbox(ws, self.id, size=settings.send_queue, write_timeout=settings.write_timeout)
        self.following: dict[str, None] = {}  # the rooms and leaderboards it follows
        # A lobby's spectator: the spectator delay (ms) that begins when its race does.
        self._delay_at_start: int | None = None

    async def run(self, greeting: dict[str, Any]) -> None:
        self.outbox.start()
        self.outbox.send(p.encode(greeting))
        try:
            while (raw := await self.outbox.receive()) is not None:
                await self._on_message(raw)
        finally:  # each step of the clean-up happens whatever the others did
            if (member := self._member()) is not None:  # never raises: presence is best effort
                await self.presence.depart(*member, replaced=self.outbox.close_code == p.CLOSE_REPLACED)
            for channel in list(self.following):
                try:
                    await self.unfollow(channel)
                except Exception:
                    log.exception("could not leave %s", channel)
            await self.outbox.finish()

    async def _on_message(self, raw: str | bytes) -> None:
        verdict = self.limit.take()
        if verdict is Verdict.CUT_OFF:
            self.kick(1008, "too many messages")
        if verdict is not Verdict.TAKEN:
            if verdict is Verdict.REFUSED:
                self.outbox.send(p.encode(_SLOW_DOWN))
            return
        before = self._member()
        self.outbox.hold()  # the room's news waits until this message's replies are out
        try:
            outcome = await self.handler.handle(self.session, raw, self)
            if not await self._carry_out(outcome):
                return
            if outcome.arrived and self.session.room is not None and self.session.seat is not None:
                self.limit.seated(self.session.room, self.session.seat)
            await self._present(before, self._member(), outcome.arrived)
        finally:  # (not the news of a room the message took the client out of)
            self.outbox.release(lambda room: room is None or room in self.following)

    async def _carry_out(self, outcome: Outcome) -> bool:
        """Do what a message did; False if the connection is closed for it."""
        for channel in outcome.follow:
            try:
                await self.follow(channel)
            except StoreUnavailable:
                # The room is made and the seat taken: the reply (its token) must still go
                # out. This connection cannot follow the room, so it is closed, and the
                # client comes back with ``resume``.
                log.warning("room %s: created, but could not follow it; closing the connection", channel)
                await self._reply(outcome.replies)
                self.kick(1013, "the service is temporarily unavailable; reconnect to resume")
                return False
        for channel in outcome.unfollow:
            await self.unfollow(channel)
        await self._reply(outcome.at_once)
        if outcome.delay_ms is not None:
            self.outbox.delay(outcome.delay_ms)
            self._delay_at_start = outcome.delay_at_start_ms
        await self._reply(outcome.replies)
        return True

    async def _reply(self, replies: Iterable[dict[str, Any]]) -> None:
        for reply in replies:
            await self.outbox.reply(p.encode(reply))

    # -- the rooms it follows (the handler's Channels) -----------------------------

    async def follow(self, channel: str) -> None:
        await self.hub.join(channel, self)
        self.following[channel] = None

    async def unfollow(self, channel: str) -> None:
        self.following.pop(channel, None)
        await self.hub.leave(channel, self)

    # -- presence ------------------------------------------------------------------

    def _member(self) -> tuple[str, str] | None:
        """This connection's room and presence member, if it is in a room."""
        s = self.session
        if s.room is None or s.role is None:
            return None
        return s.room, member_id(self.id, s.seat)

    async def _present(self, before: tuple[str, str] | None, after: tuple[str, str] | None, arrived: bool) -> None:
        """Tell the room's presence what changed: gone from one room or seat, arrived in
        another (or resumed in the same). Whoever arrives is told who is here."""
        if before is not None and before != after:
            await self.presence.depart(*before)
        if after is not None and (after != before or arrived) and self.outbox.open:
            view = await self.presence.arrive(*after, self.id)
            if view is not None:
                await self.outbox.reply(p.encode(view))

    # -- the hub's side (a Member) -------------------------------------------------

    @property
    def seat(self) -> str | None:
        return self.session.seat

    @property
    def sees_boards(self) -> bool:
        return self.session.sees_boards

    def deliver(self, message: str, room: str | None = None) -> None:
        if self._delay_at_start is not None and room == self.session.room and _starts_race(message):
            # The race begins: the spectator is told at once, and sees it that much later.
            ms, self._delay_at_start = self._delay_at_start, None
            self.outbox.send(p.encode({"type": "delayed", "ms": ms, "started": True}))
            self.outbox.delay(ms)
        self.outbox.deliver(message, room)

    def kick(self, code: int, reason: str) -> None:
        self.outbox.kick(code, reason)

    def resync(self) -> None:
        if self.session.room is not None:
            self.outbox.deliver(_RESYNC)
