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

    hub.schedule("ROOM1", 0, 123, end)
    hub.schedule("ROOM1", 0, 123, end)  # the same deadline twice: one timer
    async with asyncio.timeout(10):
        await ended.wait()
    assert calls == ["ROOM1", "ROOM1"]
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
