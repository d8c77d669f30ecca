"""A service started again on the SQLite store's file: the races left in progress get their
deadlines back (:meth:`RaceService.rearm`), with an injectable clock."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from race.service import RaceService, Session
from race.service.recording import room_listing
from race.store.sqlite import SqliteStore
from race.wire import protocol as p


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


async def started(service: RaceService, **create: Any) -> str:
    """A race between Ann (host) and Bob, started now; its code."""
    ann, bob = Session("c1"), Session("c2")
    (joined,) = await service.handle(ann, p.Create(name="Ann", difficulty="easy", deal=5, **create))
    await service.handle(bob, p.Join(room=joined["room"]["code"], name="Bob"))
    await service.handle(ann, p.Start())
    return str(joined["room"]["code"])


async def test_a_restart_ends_the_races_whose_time_ran_out_and_arms_the_others(tmp_path: Path) -> None:
    clock, t0 = Clock(), Clock().now
    store = SqliteStore(tmp_path / "race.db", ttl=3600)
    await store.connect()
    before = RaceService(store, clock=clock, countdown_ms=3000)
    limited = await started(before, time_limit=60)  # ends at t0 + 63 s
    ran_out = await started(before, time_limit=30)  # ends at t0 + 33 s
    untimed = await started(before)
    (lobby,) = await before.handle(Session("c3"), p.Create(name="Cy"))
    clock.now = t0 + 39_000
    counting = await started(before)  # its countdown ends at t0 + 42 s
    await store.close()

    clock.now = t0 + 40_000  # the process died and started again: nothing armed survived it
    store = SqliteStore(tmp_path / "race.db", ttl=3600)
    await store.connect()
    armed: list[tuple[str, int, str]] = []

    def arm(code: str, at: int, action: Callable[[str], Coroutine[Any, Any, object]]) -> None:
        armed.append((code, at, getattr(action, "__name__", "?")))

    after = RaceService(store, clock=clock, countdown_ms=3000, on_deadline=arm)
    try:
        assert await after.rearm() == 4  # the lobby is no race
        assert sorted(armed) == sorted([(limited, t0 + 63_000, "end_if_done"), (counting, t0 + 42_000, "announce")])
        assert lobby["room"]["code"] not in {code for code, _, _ in armed} | {untimed}
        (watching,) = await after.handle(Session("c9"), p.Watch(room=ran_out))
        assert watching["room"]["phase"] == "over" and watching["room"]["ended_at"] == clock.now
        assert len(await store.record_list(room_listing(ran_out), 0, 10)) == 2  # both games on the record
        armed.clear()
        assert await after.rearm() == 3  # the ended race is over
    finally:
        await store.close()
