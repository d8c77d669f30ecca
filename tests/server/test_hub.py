"""The hub's fan-out of what the store yields, and the deadlines of rooms wired as the app
wires the hub, the scheduler and the service."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from race.live.hub import Hub
from race.live.scheduler import Scheduler
from race.service import RaceService, Session, now_ms
from race.store import RESYNC, Store, open_store
from race.store.memory import MemoryStore
from race.wire import protocol as p
from tests.support.services import wired


class Member:
    def __init__(self, id: str) -> None:
        self.id, self.seat = id, None
        self.sees_boards = True
        self.got: list[str] = []

    def deliver(self, message: str, room: str | None = None) -> None:
        self.got.append(message)

    def kick(self, code: int, reason: str) -> None:
        self.got.append(f"kick {code}")

    def resync(self) -> None:
        self.got.append("resync")


class Spectator(Member):
    """A member that notes when it hears the race is over."""

    def __init__(self, id: str) -> None:
        super().__init__(id)
        self.over = asyncio.Event()

    def deliver(self, message: str, room: str | None = None) -> None:
        super().deliver(message, room)
        if '"phase":"over"' in message:
            self.over.set()


RUNNING: set[asyncio.Task[None]] = set()  # the schedulers at work (each ends when stopped)


async def started(store: Store, clock: Callable[[], int] = now_ms) -> tuple[Hub, RaceService, Scheduler]:
    """A hub, a scheduler and a service wired as the app wires them, the hub and the
    scheduler at work."""
    parts = wired(store, clock, countdown_seconds=0)
    await parts.hub.start()
    ticking = asyncio.create_task(parts.scheduler.run(parts.deadlines))
    RUNNING.add(ticking)
    ticking.add_done_callback(RUNNING.discard)
    return parts.hub, parts.service, parts.scheduler


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


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


async def test_a_time_limit_ends_the_race_when_the_process_that_started_it_is_gone(redis_url: str) -> None:
    """Two processes on one Redis, wired as the app wires them. A starts a race with a time
    limit and goes away (its timers with it); B, which only has Bob, saw the start's
    snapshot and ends the race at the deadline, so Bob hears that it is over. B's clock is
    30 s ahead of A's: whenever B reads the start's snapshot (before A is gone or after), the
    deadline has come by B's clock, and its timer is due at once."""
    clocks = Clock(), Clock()
    clocks[1].now += 30_000
    processes = []
    for clock in clocks:
        store = open_store(redis_url, ttl=3600)
        await store.connect()
        processes.append((store, *await started(store, clock)))
    (_, hub_a, a, timers_a), (_, hub_b, b, _) = processes
    try:
        ann, bob = Session("c1"), Session("c2")
        (joined,) = await a.handle(ann, p.Create(name="Ann", deal=5, time_limit=30))
        code = joined["room"]["code"]
        bobs = Spectator("c2")
        await hub_b.join(code, bobs)
        await b.handle(bob, p.Join(room=code, name="Bob"))
        await a.handle(ann, p.Start())
        await hub_a.stop()  # A is gone, and the deadline A set with it (30 s away by A's clock)
        await timers_a.stop()
        async with asyncio.timeout(10):
            await bobs.over.wait()
        assert len([m for m in bobs.got if '"phase":"over"' in m]) == 1
    finally:  # closed whatever happened: a connection left open fails the next test
        for store, hub, _, timers in processes:
            await hub.stop()
            await timers.stop()
            await store.close()


async def test_a_race_over_before_its_time_limit_leaves_no_timer_behind() -> None:
    """Wired as the app wires them: the race's time-limit timer goes with the race, instead
    of being kept (with its room) until the time limit would have passed."""
    hub, service, scheduler = await started(MemoryStore(ttl=60))
    ann = Session("c1")
    (joined,) = await service.handle(ann, p.Create(name="Ann", deal=5, time_limit=600))
    code = joined["room"]["code"]
    watcher = Spectator("w")
    await hub.join(code, watcher)
    await service.handle(ann, p.Start())
    assert [room for room, *_ in scheduler._timers] == [code]  # the time limit's
    await service.handle(ann, p.End())  # the host ends it early
    async with asyncio.timeout(10):
        await watcher.over.wait()
    assert not scheduler._timers
    await hub.stop()
    await scheduler.stop()
