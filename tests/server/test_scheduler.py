"""The scheduler's deadline timers: one per room and time, a deadline that falls while the
store is away is retried, and none runs before its time by the server clock."""

from __future__ import annotations

import asyncio

from race.live.scheduler import Deadline, Scheduler
from race.store import StoreUnavailable


async def test_a_deadline_during_a_store_outage_is_tried_again() -> None:
    scheduler = Scheduler()
    calls: list[str] = []
    ended = asyncio.Event()

    async def end(room: str) -> bool:
        calls.append(room)
        if len(calls) == 1:
            raise StoreUnavailable("Redis is unavailable: test")
        ended.set()
        return True

    running = asyncio.create_task(scheduler.run({Deadline.END: end}))
    scheduler.schedule("ROOM1", 123, Deadline.END)
    scheduler.schedule("ROOM1", 123, Deadline.END)  # the same deadline twice: one timer
    async with asyncio.timeout(10):
        await ended.wait()
    assert calls == ["ROOM1", "ROOM1"]
    await scheduler.stop()
    await running


async def test_a_timer_that_fires_before_its_time_by_the_server_clock_waits_for_it() -> None:
    """An event loop's timers count from its cached time, so one may fire a few milliseconds
    before the server clock reaches the deadline; the action would then see the room still
    in its countdown (and never announce the race) or not yet over: it waits instead."""
    readings = iter([1000, 997, 999, 1000])  # scheduling; the first firing (3 ms early); ...
    seen: list[int] = []

    def clock() -> int:
        seen.append(next(readings, 1000))
        return seen[-1]

    scheduler = Scheduler(clock=clock)
    ran = asyncio.Event()
    at_run: list[int] = []

    async def announce(room: str) -> None:
        at_run.append(seen[-1])
        ran.set()

    running = asyncio.create_task(scheduler.run({Deadline.START: announce}))
    scheduler.schedule("ROOM1", 1000, Deadline.START)
    async with asyncio.timeout(10):
        await ran.wait()
    assert seen[:4] == [1000, 997, 999, 1000] and at_run == [1000]
    await scheduler.stop()
    await running
