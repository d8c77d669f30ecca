"""This process's timers of the rooms' deadlines: the start of a race (announced to everyone),
the end of its time limit, and when a player still racing may turn idle (the room is told its
presence), each run once per room, time and kind.

A room's timers come with every change of it that this process makes or sees: the events of
the service's changes (:class:`race.rooms.events.Timed`, routed here by the bootstrap) and
the ``room`` snapshots that any process publishes (the hub hands their timers on), whichever
process made the room; a room whose race is over, or whose new round waits in its lobby,
has its timers dropped. The scheduler knows no rooms' rules: while it runs (:meth:`run`), it
runs the action it is given for each kind of deadline as one falls due. A deadline that
falls while the store is unavailable is tried again a second later, or the race would end
unannounced.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from enum import StrEnum
from typing import Any

from race.rooms.events import Timed
from race.store import StoreUnavailable

log = logging.getLogger(__name__)
#: What runs at a deadline: a coroutine of the room's code.
Action = Callable[[str], Coroutine[Any, Any, object]]


class Deadline(StrEnum):
    """What falls due: the start of a race (the end of its countdown), the end of its time
    limit, or a player still racing may have turned idle."""

    START = "start"
    END = "end"
    IDLE = "idle"


def _now_ms() -> int:
    return int(time.time() * 1000)


class Scheduler:
    def __init__(self, *, clock: Callable[[], int] = _now_ms) -> None:
        self.clock = clock  # server milliseconds, the clock the scheduled times are on
        self._timers: dict[tuple[str, int, Deadline], asyncio.TimerHandle] = {}
        self._due: asyncio.Queue[tuple[str, int, Deadline] | None] = asyncio.Queue()
        self._running: set[asyncio.Task[object]] = set()  # timed actions under way

    def want(self, event: Timed) -> None:
        """Keep the room's timers as ``event`` has them: the start, the end and the next idle
        player to come, or none any more."""
        timers = event.timers
        if timers.moot:
            self.unschedule(event.room)
        if timers.start is not None:
            self.schedule(event.room, timers.start, Deadline.START)
        if timers.end is not None:
            self.schedule(event.room, timers.end, Deadline.END)
        if timers.idle is not None:
            self.schedule(event.room, timers.idle, Deadline.IDLE)

    def schedule(self, room: str, at: int, kind: Deadline, *, retry_s: float = 0) -> None:
        """Have ``kind`` fall due for ``room`` at server time ``at`` (ms; or ``retry_s``
        seconds from now, when later), once per room, time and kind."""
        key = (room, at, kind)
        if key in self._timers:
            return
        loop = asyncio.get_running_loop()

        def fire() -> None:
            early = at - self.clock()
            if early > 0:  # the loop's timers count from its cached time, and may fire early
                self._timers[key] = loop.call_later(early / 1000, fire)
                return
            self._timers.pop(key, None)
            self._due.put_nowait((room, at, kind))

        self._timers[key] = loop.call_later(max((at - self.clock()) / 1000, retry_s, 0), fire)

    def unschedule(self, room: str) -> None:
        """Drop the timers of ``room`` (its race is over, or a new round waits in its lobby:
        none of them is due any more). Else each would be kept until its time."""
        for key in [key for key in self._timers if key[0] == room]:
            self._timers.pop(key).cancel()

    async def run(self, actions: Mapping[Deadline, Action]) -> None:
        """Run, for each deadline as it falls due, its kind's action on its room, until
        :meth:`stop`; each in a task of its own, so that one slow room holds up no other."""
        while (due := await self._due.get()) is not None:
            room, at, kind = due
            task = asyncio.create_task(actions[kind](room))
            self._running.add(task)
            task.add_done_callback(functools.partial(self._done, room=room, at=at, kind=kind))

    def _done(self, task: asyncio.Task[object], *, room: str, at: int, kind: Deadline) -> None:
        self._running.discard(task)
        if task.cancelled():
            return
        if isinstance(task.exception(), StoreUnavailable):
            # Redis is away at the deadline: try again, or the race would end unannounced.
            log.warning("room %s: store unavailable at a deadline; trying again in a second", room)
            self.schedule(room, at, kind, retry_s=1.0)
        elif task.exception() is not None:
            log.error("scheduled room task failed: %s", task.exception())

    async def stop(self) -> None:
        """Drop the timers to come, end :meth:`run`, and let the timed actions under way
        finish (each is a few store calls): stopping midway would leave their connections
        to the store for the garbage collector."""
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        self._due.put_nowait(None)
        await asyncio.gather(*self._running, return_exceptions=True)
