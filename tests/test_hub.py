"""The hub's deadline timers: a deadline that falls while the store is away is retried."""

from __future__ import annotations

import asyncio

from race.hub import Hub
from race.store import StoreUnavailable
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

    hub.schedule("ROOM1", 0, 123, end)
    hub.schedule("ROOM1", 0, 123, end)  # the same deadline twice: one timer
    async with asyncio.timeout(10):
        await ended.wait()
    assert calls == ["ROOM1", "ROOM1"]
    await hub.stop()
