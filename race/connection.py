"""One websocket client: receive, limit, decode, hand to the service, send replies.

What others send a client (the room's broadcasts) goes through a bounded queue drained by
a sender task, so a client that stops reading only fills its own queue; when that overflows
the client is disconnected (it can reconnect and resync) instead of slowing anyone else
down. The replies to a client's own message are written at once by the task that read it
when nothing is queued for the client (behind what is, otherwise): a mover's reply then
leaves before the broadcasts of the same move to the rest of the room, without a hop
through the sender task. Broadcasts that arrive while a client's message is being handled
wait until its replies are out, so a client always reads the answer to what it sent
(``joined``, ``state``) before the room's news that the same action caused, whatever the
store's timing. A spectator of a room with a spectator delay gets everything (its own
replies too, from the snapshot on) that much later, in order: it watches the race as it was
(see :class:`DelayLine`). Every write holds one lock, so messages leave in order. When a message
seats the client or makes it a spectator, or when the client goes, the connection tells
:mod:`race.presence`, and the client that arrived gets the room's ``presence`` as a reply.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from race import protocol as p
from race.daily import DailyChallenge
from race.hub import REPLACED, Hub
from race.limits import SeatBuckets, TokenBucket
from race.players import board_group
from race.presence import Presence, member_id
from race.protocol import ProtocolError
from race.rooms import normalise_code
from race.service import RaceService, Session
from race.settings import Settings
from race.store import StoreUnavailable

log = logging.getLogger(__name__)
_CLOSE = object()
MAX_FOLLOWED = 8  # leaderboards one connection follows at once (the oldest is dropped)


class DelayLine:
    """Messages handed on ``delay`` seconds after they came, in the order they came."""

    def __init__(self, delay: float, out: Callable[[str], None], most: int) -> None:
        self.delay, self.out, self.most = delay, out, most
        self.line: deque[tuple[float, str]] = deque()
        self.timer: asyncio.TimerHandle | None = None

    def put(self, message: str) -> bool:
        """Take ``message``; False when the line already holds ``most`` (the client is cut off)."""
        if len(self.line) >= self.most:
            return False
        loop = asyncio.get_running_loop()
        self.line.append((loop.time() + self.delay, message))
        if self.timer is None:
            self.timer = loop.call_at(self.line[0][0], self._due)
        return True

    def _due(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        while self.line and self.line[0][0] <= now:
            self.out(self.line.popleft()[1])
        self.timer = loop.call_at(self.line[0][0], self._due) if self.line else None

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.line.clear()


async def watch_for_stalls(connections: set[Connection], write_timeout: float) -> None:
    """Drop, every so often, the connections whose clients have stopped taking what they
    are sent (see :meth:`Connection.stalled`). Runs until cancelled."""
    while True:
        await asyncio.sleep(max(write_timeout / 4, 0.1))
        now = time.monotonic()
        for connection in list(connections):
            connection.stalled(now)


class Connection:
    def __init__(
        self,
        ws: WebSocket,
        hub: Hub,
        service: RaceService,
        daily: DailyChallenge | None,
        settings: Settings,
        presence: Presence,
        seat_buckets: SeatBuckets,
        address: str,
    ) -> None:
        self.ws, self.hub, self.service, self.daily, self.settings = ws, hub, service, daily, settings
        self.presence, self.seat_buckets = presence, seat_buckets
        self.id = secrets.token_hex(8)
        self.session = Session(self.id, address=address)
        self.queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=settings.send_queue)
        self.writing = asyncio.Lock()  # held by every write to the socket, so writes keep order
        self.bucket = TokenBucket(settings.rate_per_second, settings.rate_burst)
        self.refused = 0
        self.closing = False
        self.groups: dict[str, None] = {}  # leaderboards this connection follows, oldest first
        #: Broadcasts that arrived while a message is handled, with the room each came from.
        self.held: list[tuple[str | None, str]] | None = None
        self.arrived = False  # the message handled seated this connection, or resumed or resynced it
        self.kicked: int | None = None  # the close code, when the server closes this connection
        self.kicked_at = 0.0
        # What the stall watchdog looks at (see stalled()): the write under way (since when,
        # and which task), and the task that reads the socket, while it waits for a message.
        self.writing_since: float | None = None
        self.writer: asyncio.Task[Any] | None = None
        self.reader: asyncio.Task[Any] | None = None
        self.receiving = False
        self.abandoned = False
        self.delayed: DelayLine | None = None  # a spectator's, in a room with a spectator delay

    @property
    def seat(self) -> str | None:
        return self.session.seat

    @property
    def sees_boards(self) -> bool:
        return self.session.sees_boards

    # -- the hub's side ------------------------------------------------------------

    def deliver(self, message: str, room: str | None = None) -> None:
        """A broadcast for this client (of ``room``, a room or leaderboard it follows):
        queued, or held while one of its messages is handled."""
        if self.held is None:
            self._admit(message)
        elif not self.closing:
            self.held.append((room, message))
            if len(self.held) + self.queue.qsize() > self.settings.send_queue:
                self._overflow()

    def kick(self, code: int, reason: str) -> None:
        if self.closing:
            return
        self.closing, self.kicked, self.kicked_at = True, code, time.monotonic()
        if self.held is not None:
            self.held.clear()
        if self.delayed is not None:
            self.delayed.close()
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait((_CLOSE, code, reason))

    def resync(self) -> None:
        if self.session.room is not None:
            self.deliver(p.encode({"type": "resync", "message": "some updates were lost; resume to resync"}))

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message of this client's own (behind what is queued, ahead of what is held)."""
        self._admit(p.encode(message))

    def _admit(self, message: str) -> None:
        """Queue ``message`` now, or after the spectator delay."""
        if self.delayed is None:
            self._enqueue(message)
        elif not self.closing and not self.delayed.put(message):
            self._overflow()

    def _enqueue(self, message: str) -> None:
        if self.closing:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self._overflow()

    def _overflow(self) -> None:
        log.info("connection %s is not reading; disconnecting it", self.id)
        self.kick(1013, "too many unread messages; reconnect to resync")

    async def reply(self, message: dict[str, Any]) -> None:
        """Send a reply to this client's own message: written now when nothing is queued
        for the client (a message the sender task holds is ahead of it in the lock's line),
        queued behind what is otherwise."""
        if self.closing or not self.queue.empty() or self.delayed is not None:
            self.send(message)
            return
        try:
            async with self.writing:
                await self._write(p.encode(message))
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closing = True

    async def _write(self, text: str) -> None:
        """Write a frame (holding ``writing``), in sight of the stall watchdog."""
        self.writing_since, self.writer = time.monotonic(), asyncio.current_task()
        try:
            await self.ws.send_text(text)
        finally:
            self.writing_since = self.writer = None

    def stalled(self, now: float) -> bool:
        """Drop this connection if its client has stopped taking what it is sent: a write
        that has waited ``write_timeout`` (the client's socket is full and it does not
        read), or a kick whose close the client has not answered in that time. Neither the
        socket nor the web server would ever end it: its address's slot, its presence and
        its subscriptions would be held for good. True if it was dropped now."""
        limit = self.settings.write_timeout
        writing = self.writing_since is not None and now - self.writing_since > limit
        if self.abandoned or not (writing or (self.kicked is not None and now - self.kicked_at > limit)):
            return False
        log.info("connection %s takes nothing it is sent; dropping it", self.id)
        self.abandoned = self.closing = True
        for task in (self.writer, self.reader if self.receiving else None):
            if task is not None:
                task.cancel()
        return True

    # -- the socket's side ---------------------------------------------------------

    async def run(self, greeting: dict[str, Any]) -> None:
        sender = asyncio.create_task(self._sender())
        self.reader = asyncio.current_task()
        self.send(greeting)
        try:
            while not self.closing:
                self.receiving = True
                message = await self.ws.receive()
                self.receiving = False
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                await self._on_message(raw)
        except WebSocketDisconnect:
            pass
        except asyncio.CancelledError:
            if not self.abandoned or self.reader is None:
                raise
            self.reader.uncancel()  # the watchdog's: the client is gone, clean up as for a close
        finally:
            if (member := self._member()) is not None:  # never raises: presence is best effort
                await self.presence.depart(*member, replaced=self.kicked == REPLACED)
            for room in [*([self.session.room] if self.session.room is not None else []), *self.groups]:
                try:
                    await self.hub.leave(room, self)
                except Exception:  # each step of the clean-up happens whatever the others did
                    log.exception("could not leave %s", room)
            if self.delayed is not None:
                self.delayed.close()
            if self.kicked is None or self.abandoned:  # (a kick's close frame is the sender's to write)
                sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)

    async def _sender(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                async with self.writing:
                    if isinstance(item, tuple) and item and item[0] is _CLOSE:
                        self.writing_since, self.writer = time.monotonic(), asyncio.current_task()
                        await self.ws.close(code=item[1], reason=item[2])
                        return
                    await self._write(item)
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closing = True

    async def _on_message(self, raw: str | bytes) -> None:
        if not self.bucket.take():
            self.refused += 1
            if self.refused > 4 * self.settings.rate_burst:
                self.kick(1008, "too many messages")
            else:
                self.send(p.error("rate_limited", "too many messages; slow down (this one was ignored)"))
            return
        self.refused = 0
        self.held = []
        before, self.arrived = self._member(), False
        try:
            await self._handle(raw)
            if self.arrived and self.session.room is not None and self.session.seat is not None:
                self.bucket = self.seat_buckets.take_over(self.session.room, self.session.seat, self.bucket)
            await self._present(before, self._member())
        finally:
            held, self.held = self.held, None
            for room, message in held:
                # Not the news of a room this message took the client out of (a leave).
                if room is None or room == self.session.room or room in self.groups:
                    self._admit(message)

    async def _handle(self, raw: str | bytes) -> None:
        try:
            msg = p.decode(raw)
            await self._dispatch(msg)
        except ProtocolError as exc:
            await self.reply(p.error(exc.code, exc.message, **exc.extra))
        except StoreUnavailable as exc:
            log.warning("store unavailable while handling a message: %s", exc)
            unavailable = "the service is temporarily unavailable; try again (retrying is safe)"
            await self.reply(p.error("unavailable", unavailable))
        except Exception:
            log.exception("error while handling a %s message", type(msg).__name__ if "msg" in locals() else "?")
            await self.reply(p.error("internal", "internal error while handling your message"))

    async def _dispatch(self, msg: p.ClientMessage) -> None:
        following: str | None = None  # a leaderboard this message starts to follow
        if isinstance(msg, p.Leaderboard) and self.daily is not None:
            # Follow the board's updates from before it is read, so none falls between.
            group = board_group(msg.date or self.daily.today(), msg.difficulty)
            if group in self.groups:
                self.groups[group] = self.groups.pop(group)  # the most recently asked for: kept longest
            else:
                await self.hub.join(group, self)
                self.groups[group] = None
                following = group
        left = self.session.room  # the room a leave takes this connection out of
        joining: str | None = None  # the room this message may seat or show this connection in
        if isinstance(msg, p.Join | p.Resume | p.Watch) and self.session.role is None:
            # Subscribe first, so no broadcast falls between the snapshot and the stream.
            joining = normalise_code(msg.room)
            await self.hub.join(joining, self)
        try:
            if isinstance(msg, p.Daily | p.Leaderboard) and self.daily is not None:
                replies = await self.daily.handle(self.session, msg)
            else:
                replies = await self.service.handle(self.session, msg)
        except BaseException:
            if joining is not None and self.session.room is None:
                await self.hub.leave(joining, self)
            if following is not None:  # a refused request (a day to come) follows nothing
                del self.groups[following]
                await self.hub.leave(following, self)
            raise
        if len(self.groups) > MAX_FOLLOWED:
            oldest = next(iter(self.groups))
            del self.groups[oldest]
            await self.hub.leave(oldest, self)
        if isinstance(msg, p.Create | p.Daily | p.Tutorial):
            assert self.session.room is not None
            try:
                await self.hub.join(self.session.room, self)
            except StoreUnavailable:
                # The room is made and the seat taken: the reply (its token) must still go
                # out. This connection cannot follow the room, so it is closed, and the
                # client comes back with ``resume``.
                log.warning("room %s: created, but could not follow it; closing the connection", self.session.room)
                for reply in replies:
                    await self.reply(reply)
                self.kick(1013, "the service is temporarily unavailable; reconnect to resume")
                return
        if isinstance(msg, p.Leave) and left is not None and self.session.room is None:
            await self.hub.leave(left, self)
            if self.delayed is not None:  # (what the line holds is of the room left)
                self.delayed.close()
                self.delayed = None
        if isinstance(msg, p.Watch) and self.session.delay_ms and self.delayed is None:
            await self.reply({"type": "delayed", "ms": self.session.delay_ms})  # (at once: the page says so)
            most = 64 * self.settings.send_queue
            self.delayed = DelayLine(self.session.delay_ms / 1000, self._enqueue, most)
        for reply in replies:
            await self.reply(reply)
        self.arrived = isinstance(msg, p.Create | p.Daily | p.Tutorial | p.Join | p.Resume | p.Watch | p.Sync)

    # -- presence ------------------------------------------------------------------

    def _member(self) -> tuple[str, str] | None:
        """This connection's room and presence member, if it is in a room."""
        s = self.session
        if s.room is None or s.role is None:
            return None
        return s.room, member_id(self.id, s.seat)

    async def _present(self, before: tuple[str, str] | None, after: tuple[str, str] | None) -> None:
        """Tell the room's presence what changed: gone from one room or seat, arrived in
        another (or resumed in the same). Whoever arrives is told who is here."""
        if before is not None and before != after:
            await self.presence.depart(*before)
        if after is not None and (after != before or self.arrived) and not self.closing:
            view = await self.presence.arrive(*after, self.id)
            if view is not None:
                await self.reply(view)
