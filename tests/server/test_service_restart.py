"""The server's parts started again on the SQLite store's file: the races left in progress
get their deadlines back (:meth:`RaceService.rearm`, at the start of :func:`race.app.running`),
with an injectable clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from race.app import Parts, running
from race.live.scheduler import Deadline
from race.service import Session
from race.service.recording import room_listing
from race.store.sqlite import SqliteStore
from race.wire import protocol as p
from tests.support.services import wired


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


async def started(parts: Parts, **create: Any) -> str:
    """A race between Ann (host) and Bob, started now; its code."""
    ann, bob = Session("c1"), Session("c2")
    (joined,) = await parts.service.handle(ann, p.Create(name="Ann", difficulty="easy", deal=5, **create))
    await parts.service.handle(bob, p.Join(room=joined["room"]["code"], name="Bob"))
    await parts.service.handle(ann, p.Start())
    return str(joined["room"]["code"])


async def test_a_restart_ends_the_races_whose_time_ran_out_and_arms_the_others(tmp_path: Path) -> None:
    clock, t0 = Clock(), Clock().now
    store = SqliteStore(tmp_path / "race.db", ttl=3600)
    await store.connect()
    before = wired(store, clock, countdown_seconds=3)
    limited = await started(before, time_limit=60)  # ends at t0 + 63 s
    ran_out = await started(before, time_limit=30)  # ends at t0 + 33 s
    untimed = await started(before)
    (lobby,) = await before.service.handle(Session("c3"), p.Create(name="Cy"))
    clock.now = t0 + 39_000
    counting = await started(before)  # its countdown ends at t0 + 42 s
    await store.close()

    clock.now = t0 + 40_000  # the process died and started again: nothing armed survived it
    store = SqliteStore(tmp_path / "race.db", ttl=3600)
    await store.connect()
    after = wired(store, clock, countdown_seconds=3)
    try:
        async with running(after):
            armed = set(after.scheduler._timers)
            idle = 123_000  # (each race wakes when its players may first turn idle: 120 s in)
            assert armed == {
                (limited, t0 + 63_000, Deadline.END),
                (counting, t0 + 42_000, Deadline.START),
                (limited, t0 + idle, Deadline.IDLE),
                (untimed, t0 + idle, Deadline.IDLE),
                (counting, t0 + 39_000 + idle, Deadline.IDLE),
            }
            (watching,) = await after.service.handle(Session("c9"), p.Watch(room=ran_out))
            assert watching["room"]["phase"] == "over" and watching["room"]["ended_at"] == clock.now
            assert len(await store.record_list(room_listing(ran_out), 0, 10)) == 2  # both games on the record
            assert await after.service.rearm(untimed)  # in progress, with no deadline to come
            assert not await after.service.rearm(ran_out) and not await after.service.rearm(lobby["room"]["code"])
    finally:
        await store.close()
