"""``python -m race export`` and ``import`` through the stores: what the SQLite store dumps is
put into another store (in memory, another SQLite file, a real Redis), the coach's finished
analyses with the time they had left; a claim on one under way is not carried."""

from __future__ import annotations

import io
import secrets
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import msgspec
import pytest
import redis.asyncio as aioredis

from race.commands.transfer import FORMAT, Heading, export, load, read_kept
from race.store import KeptAnalysis, KeptRecord, Store, open_store
from race.store.memory import MemoryStore
from race.store.redis import RedisStore
from race.store.sqlite import SqliteStore

DONE, FAILED, CLAIM = '{"status":"done","won":true}', '{"status":"failed"}', '{"status":"computing"}'


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """An empty store to import into."""
    urls: dict[str, Callable[[], str]] = {
        "memory": lambda: "memory://",
        "sqlite": lambda: f"sqlite://{tmp_path}/target.db",
    }
    urls["redis"] = lambda: request.getfixturevalue("redis_url")
    s = open_store(urls[request.param](), ttl=3600)
    await s.connect()
    try:
        yield s
    finally:
        await s.close()


async def time_left(store: Store, rid: str) -> float:
    """Seconds until ``rid``'s analysis expires in ``store``, read from the backend itself."""
    if isinstance(store, MemoryStore) and not isinstance(store, SqliteStore):
        return store._analyses[rid][0] - time.monotonic()
    if isinstance(store, SqliteStore):
        (expires,) = store.file.rows("SELECT expires FROM analyses WHERE rid = ?", (rid,))[0]
        return float(expires) - time.time()
    assert isinstance(store, RedisStore)
    raw = aioredis.Redis.from_url(store.url)
    try:
        return float(await raw.pttl(f"analysis:{rid}")) / 1000
    finally:
        await raw.aclose()


async def test_the_finished_analyses_move_with_their_time_left_and_a_claim_does_not(
    tmp_path: Path, target: Store
) -> None:
    done, failed, claimed = (secrets.token_urlsafe(9) for _ in range(3))
    source = SqliteStore(tmp_path / "source.db", ttl=3600)
    await source.connect()
    try:
        for rid in (done, failed, claimed):
            await source.record_put(rid, f"game {rid}", ttl=600)
        assert await source.analysis_put(done, DONE, ttl=300)  # sooner than its record
        assert await source.analysis_put(failed, FAILED)  # with its record
        assert await source.analysis_put(claimed, CLAIM, fresh=True, ttl=1800)  # a process at work on it
        dumped = {k.rid: k for k in [item async for item in source.dump()] if isinstance(k, KeptAnalysis)}
        assert {rid: k.data for rid, k in dumped.items()} == {done: DONE, failed: FAILED, claimed: CLAIM}
        assert 295 < dumped[done].expires_at - time.time() <= 300
        out = io.BytesIO()
        assert await export(source, out) == {"record": 3, "analysis": 2}
    finally:
        await source.close()
    assert b"computing" not in out.getvalue()

    out.seek(0)
    assert await load(target, read_kept(out)) == {"record": 3, "analysis": 2}
    assert await target.analysis_get(done) == DONE
    assert await target.analysis_get(failed) == FAILED
    assert 290 < await time_left(target, done) <= 300
    assert 590 < await time_left(target, failed) <= 600
    assert await target.analysis_get(claimed) is None
    assert await target.record_get(claimed) == f"game {claimed}"
    assert await target.analysis_put(claimed, CLAIM, fresh=True, ttl=60)  # the target computes it itself


async def test_a_claim_in_a_file_is_not_put_and_an_analysis_whose_record_is_gone_is_counted_expired() -> None:
    target = MemoryStore(ttl=3600)
    kept, gone = secrets.token_urlsafe(9), secrets.token_urlsafe(9)
    later = time.time() + 600

    async def items() -> AsyncIterator[KeptRecord | KeptAnalysis]:
        yield KeptRecord(kept, later, "game", [])
        yield KeptAnalysis(kept, later, CLAIM)
        yield KeptAnalysis(gone, later, DONE)

    assert await load(target, items()) == {"record": 1, "expired": 1}
    assert await target.analysis_get(kept) is None
    assert await target.analysis_get(gone) is None


async def test_a_file_from_before_the_analyses_still_imports() -> None:
    rid = secrets.token_urlsafe(9)
    record = KeptRecord(rid, time.time() + 600, "game", ["room-R1"])
    lines = io.BytesIO(msgspec.json.encode(Heading(FORMAT, 1, time.time())) + b"\n" + msgspec.json.encode(record))
    target = MemoryStore(ttl=3600)
    assert await load(target, read_kept(lines)) == {"record": 1}
    assert await target.record_list("room-R1", 0, 10) == [rid]
    assert await target.analysis_get(rid) is None
