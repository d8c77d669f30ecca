"""This process's timers of the rooms' deadlines: the start of a race (announced to everyone)
and the end of its time limit, each run once per room and time.

The service asks for them (:meth:`Scheduler.schedule`) whenever it sees a room with one to
come, whichever process made the room; it drops them (:meth:`Scheduler.unschedule`) when the
room's race is over or a new round waits in its lobby. A deadline that falls while the store
is unavailable is tried again a second later, or the race would end unannounced.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from race.store import StoreUnavailable

log = logging.getLogger(__name__)
#: What runs at a deadline: a coroutine of the room's code.
Action = Callable[[str], Coroutine[Any, Any, object]]


def _now_ms() -> int:
    return int(time.time() * 1000)


class Scheduler:
    def __init__(self, *, clock: Callable[[], int] = _now_ms) -> None:
        self.clock = clock  # server milliseconds, the clock the scheduled times are on
        self._timers: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._running: set[asyncio.Task[object]] = set()  # timed actions under way

    async def stop(self) -> None:
        """Drop the timers to come, and let the timed actions under way finish (each is a
        few store calls): stopping midway would leave their connections to the store for
        the garbage collector."""
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        await asyncio.gather(*self._running, return_exceptions=True)

    def schedule(self, room: str, at: int, action: Action, *, retry_s: float = 0) -> None:
        """Run ``action(room)`` at server time ``at`` (ms; or ``retry_s`` seconds from now,
        when later), once per room and time."""
        key = (room, at)
        if key in self._timers:
            return
        loop = asyncio.get_running_loop()

        def fire() -> None:
            early = at - self.clock()
            if early > 0:  # the loop's timers count from its cached time, and may fire early
                self._timers[key] = loop.call_later(early / 1000, fire)
                return
            self._timers.pop(key, None)
            task = asyncio.create_task(action(room))
            self._running.add(task)
            task.add_done_callback(done)

        def done(task: asyncio.Task[object]) -> None:
            self._running.discard(task)
            if not task.cancelled() and isinstance(task.exception(), StoreUnavailable):
                # Redis is away at the deadline: try again, or the race would end unannounced.
                log.warning("room %s: store unavailable at a deadline; trying again in a second", room)
                self.schedule(room, at, action, retry_s=1.0)
            elif not task.cancelled() and task.exception() is not None:
                log.error("scheduled room task failed: %s", task.exception())

        self._timers[key] = loop.call_later(max((at - self.clock()) / 1000, retry_s, 0), fire)

    def unschedule(self, room: str) -> None:
        """Drop the timers of ``room`` (its race is over, or a new round waits in its lobby:
        none of them is due any more). Else each would be kept until its time."""
        for key in [key for key in self._timers if key[0] == room]:
            self._timers.pop(key).cancel()
