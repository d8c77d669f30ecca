"""The hub's deadline timers (a deadline that falls while the store is away is retried) and
its fan-out of what the store yields."""

from __future__ import annotations

import asyncio

from race.hub import Hub
from race.store import RESYNC, StoreUnavailable
from race.store.memory import MemoryStore


async def test_a_deadline_during_a_store_outage_is_tried_again() -> None:
    hub = Hub(MemoryStore(ttl=60))
    calls: list[str] = []
    ended = asyncio.Event()

    async def end(room: str) -> bool:
        calls.append(room)
        if len(calls) == 1:
            raise StoreUnavailable("Redis is unavailable: test")
        ended.set()
        return True

    hub.schedule("ROOM1", 123, end)
    hub.schedule("ROOM1", 123, end)  # the same deadline twice: one timer
    async with asyncio.timeout(10):
        await ended.wait()
    assert calls == ["ROOM1", "ROOM1"]
    await hub.stop()


async def test_a_timer_that_fires_before_its_time_by_the_server_clock_waits_for_it() -> None:
    """An event loop's timers count from its cached time, so one may fire a few milliseconds
    before the server clock reaches the deadline; the action would then see the room still
    in its countdown (and never announce the race) or not yet over: it waits instead."""
    readings = iter([1000, 997, 999, 1000])  # scheduling; the first firing (3 ms early); ...
    seen: list[int] = []

    def clock() -> int:
        seen.append(next(readings, 1000))
        return seen[-1]

    hub = Hub(MemoryStore(ttl=60), clock=clock)
    ran = asyncio.Event()
    at_run: list[int] = []

    async def announce(room: str) -> None:
        at_run.append(seen[-1])
        ran.set()

    hub.schedule("ROOM1", 1000, announce)
    async with asyncio.timeout(10):
        await ran.wait()
    assert seen[:4] == [1000, 997, 999, 1000] and at_run == [1000]
    await hub.stop()


class Member:
    def __init__(self, id: str) -> None:
        self.id, self.seat = id, None
        self.got: list[str] = []

    def deliver(self, message: str) -> None:
        self.got.append(message)

    def kick(self, code: int, reason: str) -> None:
        self.got.append(f"kick {code}")

    def resync(self) -> None:
        self.got.append("resync")


async def test_a_room_whose_messages_may_be_lost_resyncs_and_only_that_room() -> None:
    hub = Hub(MemoryStore(ttl=60))
    a1, a2, b1 = Member("a1"), Member("a2"), Member("b1")
    for room, member in (("ROOMA", a1), ("ROOMA", a2), ("ROOMB", b1)):
        await hub.join(room, member)
    hub._dispatch("ROOMA", RESYNC)
    hub._dispatch("ROOMB", '{"type":"player"}')
    assert a1.got == a2.got == ["resync"]
    assert b1.got == ['{"type":"player"}']
    hub._dispatch("*", "reconnected")  # after an outage: everyone
    assert a1.got[-1] == a2.got[-1] == b1.got[-1] == "resync"
