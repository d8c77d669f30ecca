"""The analyses' service on a real store: a game's analysis is computed once however often it
is asked for, a daily deal's game waits for its day to be over, and a server with no budget
computes none."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from race.rooms.record import Record, Result, encode, new_id
from race.service.analyses import Analyses
from race.solver.coach import Limits
from race.store.memory import MemoryStore
from tests.support.winning_lines import winning_line

LIMITS = Limits(game=200_000, win=100_000, proof=20_000)


def won(**fields: object) -> Record:
    line = tuple(winning_line(5, "medium"))
    result = Result(home=104, moves=len(line), finished_ms=len(line))
    base = {"id": new_id(), "deal": 5, "difficulty": "medium", "name": "Ann", "started": 0}
    return Record(**{**base, "acts": line, "gaps": (1,) * len(line), "result": result, **fields})  # type: ignore[arg-type]


async def test_a_games_analysis_is_computed_once_however_often_it_is_asked_for() -> None:
    store = MemoryStore(ttl=600)
    record = won()
    await store.record_put(record.id, encode(record).decode(), ttl=600)
    calls: list[tuple[str, bool]] = []
    with ThreadPoolExecutor(1) as pool:
        analyses = Analyses(store, limits=LIMITS, today=lambda: "2026-12-07", executor=pool)
        original = store.analysis_put

        async def counted(rid: str, data: str, *, fresh: bool = False, ttl: int | None = None) -> bool:
            written = await original(rid, data, fresh=fresh, ttl=ttl)
            calls.append((data[:22], written))
            return written

        store.analysis_put = counted  # type: ignore[method-assign]
        for _ in range(3):
            assert (await analyses.read(record.id, record))["status"] == "computing"
            analyses.look_at(record)
        await analyses.idle()
        done = await analyses.read(record.id, record)
        assert done["status"] == "done" and done["won"] and done["slip"] is None
        assert {s["v"] for s in done["steps"]} == {"win"}
        # Another process's service (a fresh cache) reads it from the store, and computes nothing.
        other = Analyses(store, limits=LIMITS, today=lambda: "2026-12-07", executor=pool)
        assert await other.read(record.id, record) == done
        other.look_at(record)
        await other.idle()
    # One claim taken, one result written; every later ask's claim was refused.
    assert calls[:2] == [('{"status":"computing"}', True), ('{"status":"done","won"', True)]
    assert all(not written for _, written in calls[2:])


async def test_a_daily_game_waits_for_its_day_and_a_server_without_a_budget_computes_none() -> None:
    store = MemoryStore(ttl=600)
    daily = won(kind="daily", daily_date="2026-12-07", deal="daily:2026-12-07:medium")
    await store.record_put(daily.id, encode(daily).decode(), ttl=600)
    analyses = Analyses(store, limits=LIMITS, today=lambda: "2026-12-07")
    assert await analyses.read(daily.id, daily) == {"status": "waiting"}
    analyses.look_at(daily)
    assert await store.analysis_get(daily.id) is None
    off = Analyses(store, limits=Limits(game=0), today=lambda: "2026-12-08")
    record = won()
    await store.record_put(record.id, encode(record).decode(), ttl=600)
    assert await off.read(record.id, record) == {"status": "off"}
    off.look_at(record)
    assert await store.analysis_get(record.id) is None
