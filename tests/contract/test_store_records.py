"""Games on the record, kept and listed the same way by every backend."""

from __future__ import annotations

import secrets

import redis.asyncio as aioredis

from race.store import Store, open_store
from race.store.base import LISTED
from race.store.memory import MemoryStore


def rid() -> str:
    return secrets.token_urlsafe(9)


async def test_a_record_is_kept_by_id_and_listed_newest_first(store: Store) -> None:
    room, player = "room-" + rid(), "player-" + rid()
    first, second = rid(), rid()
    await store.record_put(first, '{"n":1}', ttl=600, lists=[room, player])
    await store.record_put(second, '{"n":2}', ttl=600, lists=[room])
    assert await store.record_get(first) == '{"n":1}'
    assert await store.record_get(second) == '{"n":2}'
    assert await store.record_get(rid()) is None
    assert await store.record_list(room, 0, 10) == [second, first]
    assert await store.record_list(room, 1, 10) == [first]
    assert await store.record_list(player, 0, 10) == [first]
    assert await store.record_list("room-" + rid(), 0, 10) == []


async def test_a_listing_keeps_only_its_newest_ids(store: Store) -> None:
    key = "many-" + rid()
    ids = [f"{key}-{n}" for n in range(LISTED + 5)]
    for i in ids:
        await store.record_put(i, "x", ttl=600, lists=[key])
    listed = await store.record_list(key, 0, LISTED + 10)
    assert listed == ids[::-1][:LISTED]


async def test_records_and_listings_expire() -> None:
    s = MemoryStore(ttl=3600, sweep_seconds=0)
    gone, kept = rid(), rid()
    await s.record_put(gone, "old", ttl=0, lists=["l-" + gone])
    assert await s.record_get(gone) is None
    assert await s.record_list("l-" + gone, 0, 10) == []
    await s.record_put(kept, "new", ttl=600, lists=["l-" + kept])
    assert set(s._records) == {kept}  # swept, not only hidden
    assert set(s._record_lists) == {"l-" + kept}


async def test_redis_record_keys_carry_the_ttl(redis_url: str) -> None:
    s = open_store(redis_url, ttl=120)
    await s.connect()
    r, key = rid(), "l-" + rid()
    await s.record_put(r, "data", ttl=86400, lists=[key])
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        for k in (f"record:{r}", f"records:{{{key}}}"):
            assert 120 < await raw.ttl(k) <= 86400, k
    finally:
        await raw.aclose()
        await s.close()


async def test_a_records_analysis_is_kept_with_it_and_a_claim_is_taken_once(store: Store) -> None:
    game, other = rid(), rid()
    assert not await store.analysis_put(game, '{"status":"computing"}', fresh=True, ttl=60)  # no record yet
    await store.record_put(game, "game", ttl=600)
    assert await store.analysis_get(game) is None
    assert await store.analysis_put(game, '{"status":"computing"}', fresh=True, ttl=60)
    assert not await store.analysis_put(game, '{"status":"computing","again":1}', fresh=True, ttl=60)
    assert await store.analysis_get(game) == '{"status":"computing"}'
    assert await store.analysis_put(game, '{"status":"done"}')
    assert await store.analysis_get(game) == '{"status":"done"}'
    assert await store.analysis_get(other) is None


async def test_an_analysis_expires_no_later_than_its_record_and_a_lapsed_claim_can_be_taken_again() -> None:
    s = MemoryStore(ttl=3600, sweep_seconds=0)
    game, gone = rid(), rid()
    await s.record_put(game, "game", ttl=600)
    assert await s.analysis_put(game, "claim", fresh=True, ttl=0)
    assert await s.analysis_get(game) is None
    assert await s.analysis_put(game, "claim again", fresh=True, ttl=60)
    await s.record_put(gone, "old", ttl=0)
    assert not await s.analysis_put(gone, "done")
    await s.record_put(rid(), "sweep", ttl=600)
    assert gone not in s._analyses
