"""One client's socket: what it is sent, in order and without holding anyone else up, and
the watch for a client that has stopped taking what it is sent.

What others send a client (the room's broadcasts) is written at the event loop's next turn
when nothing is queued or being written for the client and its socket takes it without
waiting (no task switch: a room of a thousand spectators costs a thousand writes, not a
thousand task wake-ups; at the next turn rather than at once, which measured cheaper for a
two-player race).
Otherwise it goes through a bounded queue drained by a sender task (started when first
needed), so a client that stops reading only fills its own queue; when that overflows the
client is disconnected (it can reconnect and resync) instead of slowing anyone else down.
The replies to a client's own message are written at once by the task that read it when
nothing is queued for the client (behind what is, otherwise): a mover's reply then leaves
before the broadcasts of the same move to the rest of the room. Broadcasts that arrive while
a client's message is handled are held (:meth:`Outbox.hold`) until its replies are out, so a
client always reads the answer to what it sent (``joined``, ``state``) before the room's
news that the same action caused, whatever the store's timing. A spectator of a room with a
spectator delay gets everything (its own replies too, from the snapshot on) that much later,
in order: it watches the race as it was (see :class:`DelayLine`). Every write holds one
lock, so messages leave in order.

A client whose socket is full and who does not read, or who does not answer a close, would
hold its address's slot, its presence and its subscriptions for good: neither the socket nor
the web server ends it. :func:`watch_for_stalls` drops it (:meth:`Outbox.stalled`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from enum import Enum
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

log = logging.getLogger(__name__)
_CLOSE = object()


class _Suspended:
    """A write begun at once that had to wait for the socket (its buffer is full): the
    sender task finishes it, in its turn."""

    __slots__ = ("coro", "waiting")

    def __init__(self, coro: Coroutine[Any, Any, None], waiting: Any) -> None:
        if waiting is not None:  # as a task does with what a coroutine yields: it is then awaited again
            waiting._asyncio_future_blocking = False
        self.coro, self.waiting = coro, waiting


class State(Enum):
    """Where an outbox is in its life: it only moves down this list (``DROPPED`` from any)."""

    OPEN = "open"  # sending
    CLOSING = "closing"  # kicked: its close frame is queued, nothing else is taken
    GONE = "gone"  # the client went or its socket failed: nothing more is written
    DROPPED = "dropped"  # the stall watch gave up on the client: its read and write were cancelled


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


class Outbox:
    """The socket of the client ``name``: frames in (:meth:`receive`), messages out."""

    def __init__(self, ws: WebSocket, name: str, *, size: int, write_timeout: float) -> None:
        self.ws, self.name, self.size, self.write_timeout = ws, name, size, write_timeout
        self.state = State.OPEN
        self.close_code: int | None = None  # the code of the kick, when the server closes it
        self._kicked_at: float | None = None
        self._queue: asyncio.Queue[object] = asyncio.Queue(maxsize=size)
        self._writing = asyncio.Lock()  # held by every write to the socket, so writes keep order
        #: Broadcasts that arrived while a message is handled, with the room each came from.
        self._held: list[tuple[str | None, str]] | None = None
        self._delayed: DelayLine | None = None  # a spectator's, in a room with a spectator delay
        self._sender: asyncio.Task[None] | None = None
        self._soon: list[str] | None = None  # to write at the loop's next turn (see _flush)
        # What the stall watch looks at: the write under way (since when, and which task),
        # and the task that reads the socket, while it waits for a frame.
        self._writing_since: float | None = None
        self._writer: asyncio.Task[object] | None = None
        self._reader: asyncio.Task[object] | None = None

    @property
    def open(self) -> bool:
        return self.state is State.OPEN

    def start(self) -> None:
        """Nothing to do: the sender task starts with the first message that must queue."""

    async def finish(self) -> None:
        """The client has gone: stop sending (a kick's close frame is the sender's to write)."""
        if self._delayed is not None:
            self._delayed.close()
        if self._sender is not None:
            if self.close_code is None or self.state is State.DROPPED:
                self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)

    # -- in ------------------------------------------------------------------------

    async def receive(self) -> str | bytes | None:
        """The client's next frame; None once it has gone, is closing, or was dropped."""
        if not self.open:
            return None
        self._reader = asyncio.current_task()
        try:
            message = await self.ws.receive()
        except WebSocketDisconnect:
            return None
        except asyncio.CancelledError:
            if self.state is not State.DROPPED or self._reader is None:
                raise
            self._reader.uncancel()  # the stall watch's: the client is gone, clean up as for a close
            return None
        finally:
            self._reader = None
        if message["type"] == "websocket.disconnect":
            return None
        text: str | None = message.get("text")
        return text if text is not None else message.get("bytes") or b""

    # -- out -----------------------------------------------------------------------

    def deliver(self, message: str, room: str | None = None) -> None:
        """A broadcast (of ``room``): queued, or held while one of the client's messages is
        handled."""
        if self._held is None:
            self._admit(message)
        elif self.state is State.OPEN:
            self._held.append((room, message))
            if len(self._held) + self._queue.qsize() > self.size:
                self._overflow()

    def send(self, message: str) -> None:
        """Queue a message of the client's own (behind what is queued, ahead of what is held)."""
        self._admit(message)

    async def reply(self, message: str) -> None:
        """A reply to the client's own message: written now when nothing is queued for the
        client (a message the sender task holds is ahead of it in the lock's line), queued
        behind what is otherwise."""
        if self.state is not State.OPEN or not self._queue.empty() or self._delayed is not None or self._soon:
            self.send(message)
            return
        try:
            async with self._writing:
                await self._write(message)
        except (WebSocketDisconnect, RuntimeError, OSError):
            self._gone()

    def kick(self, code: int, reason: str) -> None:
        """Close the connection with ``code``: nothing queued or held is sent any more."""
        if self.state is not State.OPEN:
            return
        self.state, self.close_code, self._kicked_at = State.CLOSING, code, time.monotonic()
        if self._held is not None:
            self._held.clear()
        self._soon = None
        if self._delayed is not None:
            self._delayed.close()
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if isinstance(item, _Suspended):
                item.coro.close()
        self._put((_CLOSE, code, reason))

    def hold(self) -> None:
        """Hold the broadcasts from now on, until :meth:`release`."""
        self._held = []

    def release(self, keep: Callable[[str | None], bool]) -> None:
        """Send what was held, but for the broadcasts of a room ``keep`` says no to."""
        held, self._held = self._held or [], None
        for room, message in held:
            if keep(room):
                self._admit(message)

    def delay(self, ms: int) -> None:
        """Everything from now on is sent ``ms`` later (0: at once again, and what the
        line holds is dropped)."""
        if not ms:
            if self._delayed is not None:
                self._delayed.close()
            self._delayed = None
        elif self._delayed is None:
            self._delayed = DelayLine(ms / 1000, self._enqueue, 64 * self.size)

    def _admit(self, message: str) -> None:
        """Queue ``message`` now, or after the spectator delay."""
        if self._delayed is None:
            self._enqueue(message)
        elif self.state is State.OPEN and not self._delayed.put(message):
            self._overflow()

    def _enqueue(self, message: str) -> None:
        if self.state is not State.OPEN:
            return
        if self._soon is not None:
            self._soon.append(message)
            if len(self._soon) + self._queue.qsize() > self.size:
                self._overflow()
            return
        if self._queue.empty() and not self._writing.locked():
            self._soon = [message]
            asyncio.get_running_loop().call_soon(self._flush)
            return
        try:
            self._put(message)
        except asyncio.QueueFull:
            self._overflow()

    def _flush(self) -> None:
        """Write what came for the client since the loop's last turn, in order."""
        soon, self._soon = self._soon or [], None
        for message in soon:
            if self.state is not State.OPEN:
                return
            if self._queue.empty() and not self._writing.locked():
                self._write_now(message)
            else:
                try:
                    self._put(message)
                except asyncio.QueueFull:
                    self._overflow()

    def _put(self, item: object) -> None:
        self._queue.put_nowait(item)
        if self._sender is None:
            self._sender = asyncio.create_task(self._send_queued())

    def _write_now(self, message: str) -> None:
        """Write ``message`` without a task switch (nothing is queued or being written). The
        write runs by hand up to its first wait; the web server's send only waits when the
        socket's buffer is full, and then the sender task finishes it (queued first, so
        every later message goes behind it)."""
        coro = self.ws.send_text(message)
        try:
            waiting = coro.send(None)
        except StopIteration:
            return
        except (WebSocketDisconnect, RuntimeError, OSError):
            self._gone()
            return
        self._put(_Suspended(coro, waiting))

    def _overflow(self) -> None:
        log.info("connection %s is not reading; disconnecting it", self.name)
        self.kick(1013, "too many unread messages; reconnect to resync")

    def _gone(self) -> None:
        if self.state in (State.OPEN, State.CLOSING):
            self.state = State.GONE

    async def _write(self, text: str) -> None:
        """Write a frame (holding ``_writing``), in sight of the stall watch."""
        self._writing_since, self._writer = time.monotonic(), asyncio.current_task()
        try:
            await self.ws.send_text(text)
        finally:
            self._writing_since = self._writer = None

    async def _send_queued(self) -> None:
        try:
            while True:
                item = await self._queue.get()
                async with self._writing:
                    if isinstance(item, tuple) and item and item[0] is _CLOSE:
                        self._writing_since, self._writer = time.monotonic(), asyncio.current_task()
                        await self.ws.close(code=item[1], reason=item[2])
                        return
                    if isinstance(item, _Suspended):
                        await self._resume(item)
                    else:
                        assert isinstance(item, str)
                        await self._write(item)
        except (WebSocketDisconnect, RuntimeError, OSError):
            self._gone()

    async def _resume(self, write: _Suspended) -> None:
        """Finish a write begun by :meth:`_write_now` (holding ``_writing``), in sight of the
        stall watch."""
        self._writing_since, self._writer = time.monotonic(), asyncio.current_task()
        try:
            waiting = write.waiting
            while True:
                try:
                    await (waiting if waiting is not None else asyncio.sleep(0))
                except BaseException:
                    write.coro.close()
                    raise
                try:
                    waiting = write.coro.send(None)
                except StopIteration:
                    return
        finally:
            self._writing_since = self._writer = None

    # -- the stall watch -----------------------------------------------------------

    def stalled(self, now: float) -> bool:
        """Drop the connection if its client has stopped taking what it is sent: a write
        that has waited ``write_timeout`` (the client's socket is full and it does not
        read), or a kick whose close the client has not answered in that time. True if it
        was dropped now."""
        limit = self.write_timeout
        writing = self._writing_since is not None and now - self._writing_since > limit
        unanswered = self._kicked_at is not None and now - self._kicked_at > limit
        if self.state is State.DROPPED or not (writing or unanswered):
            return False
        log.info("connection %s takes nothing it is sent; dropping it", self.name)
        self.state = State.DROPPED
        for task in (self._writer, self._reader):
            if task is not None:
                task.cancel()
        return True


async def watch_for_stalls(outboxes: set[Outbox], write_timeout: float) -> None:
    """Drop, every so often, the connections whose clients have stopped taking what they
    are sent (see :meth:`Outbox.stalled`). Runs until cancelled."""
    while True:
        await asyncio.sleep(max(write_timeout / 4, 0.1))
        now = time.monotonic()
        for outbox in list(outboxes):
            outbox.stalled(now)
