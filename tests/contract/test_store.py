"""One contract, two backends: the embedded store and Redis (a real redis-server)."""

from __future__ import annotations

import asyncio
import secrets
import time

import redis.asyncio as aioredis

from race.store import KeptRoom, Roll, Store, open_store
from race.store.base import ASIDE, LOG_LENGTH, LogEntry
from race.store.memory import MemoryStore


def room() -> str:
    return "T" + secrets.token_hex(4).upper()


async def keys_with_ttl(raw: aioredis.Redis, r: str, ttl: int) -> list[str]:
    """The Redis keys of room ``r``, each checked to expire within ``ttl`` seconds."""
    keys = sorted([k async for k in raw.scan_iter(match=f"*{r}*")])
    for k in keys:
        assert 0 < await raw.ttl(k) <= ttl, k
    return keys


async def next_message(s: Store) -> tuple[str, str]:
    async with asyncio.timeout(5):
        async for item in s.messages():
            return item
    raise AssertionError("unreachable")


async def test_commit_with_version_zero_creates_only_once(store: Store) -> None:
    r = room()
    assert await store.commit(r, expect={"meta": 0}, write={"meta": "a"})
    assert not await store.commit(r, expect={"meta": 0}, write={"meta": "b"})
    (doc,) = await store.read(r, ["meta"])
    assert doc is not None and (doc.version, doc.data) == (1, "a")


async def test_each_write_bumps_the_version_and_stale_writes_change_nothing(store: Store) -> None:
    r = room()
    await store.commit(r, expect={}, write={"meta": "a"})
    assert await store.commit(r, expect={"meta": 1}, write={"meta": "b"})
    assert not await store.commit(r, expect={"meta": 1}, write={"meta": "c"})
    assert [d.data if d else None for d in await store.read(r, ["meta", "nope"])] == ["b", None]
    assert (await store.read_all(r))["meta"].version == 2


async def test_writing_nothing_deletes_a_document_and_its_version(store: Store) -> None:
    r = room()
    await store.commit(r, expect={}, write={"meta": "m", "t:x": "s2", ASIDE + "h": "kept aside"})
    assert await store.commit(r, expect={"t:x": 1}, write={"t:x": "", ASIDE + "h": ""})
    assert await store.read(r, ["t:x", ASIDE + "h"]) == [None, None]
    assert set(await store.read_all(r)) == {"meta"}
    assert not await store.commit(r, expect={"t:x": 1}, write={"t:x": "again"})
    assert await store.commit(r, expect={"t:x": 0}, write={"t:x": "again"})  # as if new
    assert (await store.read_all(r))["t:x"].version == 1


async def test_a_commit_is_all_or_nothing_across_documents(store: Store) -> None:
    r = room()
    await store.commit(r, expect={}, write={"meta": "m", "p:s1": "x"})
    ok = await store.commit(r, expect={"meta": 1, "p:s1": 7}, write={"meta": "m2", "p:s2": "y"}, log=("meta", "e"))
    assert not ok
    docs = await store.read_all(r)
    assert {k: (d.version, d.data) for k, d in docs.items()} == {"meta": (1, "m"), "p:s1": (1, "x")}
    assert await store.log_since(r, "meta", 0) == []


async def test_documents_kept_aside_are_read_by_name_but_left_out_of_read_all(store: Store) -> None:
    r, aside = room(), ASIDE + "s1:0"
    assert await store.commit(r, expect={}, write={"meta": "m", aside: "h1"})
    assert await store.commit(r, expect={"meta": 1, aside: 1}, write={aside: "h2"}, log=(aside, "e"))
    assert not await store.commit(r, expect={aside: 1}, write={"meta": "x"})  # versions count as usual
    assert {k: (d.version, d.data) for k, d in (await store.read_all(r)).items()} == {"meta": (1, "m")}
    docs = await store.read(r, [aside, "meta", ASIDE + "s2:0"])
    assert [(d.version, d.data) if d else None for d in docs] == [(2, "h2"), (1, "m"), None]
    assert await store.log_since(r, aside, 1) == [LogEntry(2, "e")]


async def test_log_returns_what_came_after_a_version_or_none_when_trimmed(store: Store) -> None:
    r = room()
    for i in range(1, LOG_LENGTH + 6):
        assert await store.commit(r, expect={"p:s1": i - 1}, write={"p:s1": str(i)}, log=("p:s1", f"e{i}"))
    last = LOG_LENGTH + 5
    entries = await store.log_since(r, "p:s1", last - 3)
    assert entries is not None
    assert [(e.version, e.data) for e in entries] == [(v, f"e{v}") for v in (last - 2, last - 1, last)]
    assert await store.log_since(r, "p:s1", last) == []
    assert await store.log_since(r, "p:s1", 1) is None  # the early entries are gone: full state needed


async def test_a_room_put_back_has_its_documents_and_versions_and_no_log(store: Store) -> None:
    """What ``python -m race import`` does with each room: the documents as they were, with
    their versions, whatever the room held before; a client behind them gets a full state."""
    r = room()
    await store.commit(r, expect={}, write={"meta": "old", "t:x": "gone"}, log=("meta", "old"))
    docs = [("meta", 7, "m"), ("p:s1", 3, "s"), (ASIDE + "s1:0", 2, "h")]
    await store.restore_room(KeptRoom(r, time.time() + 600, docs))
    assert {k: (d.version, d.data) for k, d in (await store.read_all(r)).items()} == {
        "meta": (7, "m"),
        "p:s1": (3, "s"),
    }
    assert [(d.version, d.data) if d else None for d in await store.read(r, [ASIDE + "s1:0", "t:x"])] == [
        (2, "h"),
        None,
    ]
    assert not await store.commit(r, expect={"meta": 1}, write={"meta": "stale"})
    assert await store.commit(r, expect={"meta": 7}, write={"meta": "m2"}, log=("meta", "e"))
    assert await store.log_since(r, "meta", 7) == [LogEntry(8, "e")]
    assert await store.log_since(r, "meta", 5) is None


async def test_the_embedded_stores_name_their_rooms_that_hold_a_document(embedded_url: str) -> None:
    """At start-up the server looks for the rooms whose deadlines are to come."""
    s = open_store(embedded_url, ttl=3600)
    await s.connect()
    try:
        a, b, gone = room(), room(), room()
        await s.commit(a, expect={}, write={"meta": "m"})
        await s.commit(b, expect={}, write={"profile": "p"})
        await s.commit(gone, expect={}, write={"meta": "m"}, ttl=0)
        assert await s.rooms("meta") == [a]
        assert await s.rooms("profile") == [b]
    finally:
        await s.close()


async def test_published_messages_reach_subscribers_of_that_room_only(store: Store) -> None:
    a, b = room(), room()
    await store.subscribe(a)
    await store.publish(b, "not for a")
    await store.commit(a, expect={}, write={"meta": "m"}, publish="hello a")
    assert await next_message(store) == (a, "hello a")
    await store.unsubscribe(a)


async def test_a_failed_commit_publishes_nothing(store: Store) -> None:
    a = room()
    await store.subscribe(a)
    await store.commit(a, expect={}, write={"meta": "m"})
    assert not await store.commit(a, expect={"meta": 5}, write={"meta": "x"}, publish="lost")
    await store.publish(a, "after")
    assert await next_message(store) == (a, "after")
    await store.unsubscribe(a)


async def test_listings_drop_expired_and_removed_members(store: Store) -> None:
    key = "list-" + room()
    await store.list_add(key, "old", 100.0)
    await store.list_add(key, "a", 2000.0)
    await store.list_add(key, "b", 3000.0)
    await store.list_add(key, "c", 2500.0)
    assert await store.list_remove(key, "c") and not await store.list_remove(key, "c")
    assert not await store.list_add(key, "a", 2000.0) and await store.list_add(key, "d", 100.0)  # old or new
    assert await store.list_members(key, now=1000.0, limit=10) == ["b", "a"]
    assert await store.list_members(key, now=1000.0, limit=1) == ["b"]


async def test_presence_counts_changes_and_drops_members_whose_time_ran_out(store: Store) -> None:
    r = room()
    assert await store.presence(r, 1000.0) == Roll(0, [], 0, False)
    first = await store.presence(r, 1000.0, here=["s2 b", "s1 a", "~ w"], until=1030.0)
    assert (first.listed, first.counted, first.changed, first.added) == (["s1 a", "s2 b"], 1, True, True)
    assert first.version > 1_700_000_000_000  # from the clock, in milliseconds
    # Being there again only moves the time on: no change, the same version.
    assert await store.presence(r, 1010.0, here=["s1 a", "~ w"], until=1040.0) == first._replace(
        changed=False, added=False
    )
    # A seat whose last connection went is away since then.
    s1_gone = (("s1", 1010.0),)
    assert await store.presence(r, 1010.0, gone=["s1 a", "nobody"]) == Roll(
        first.version + 1, ["s2 b"], 1, True, gone_at=s1_gone
    )
    assert await store.presence(r, 1010.0, gone=["s1 a"]) == Roll(
        first.version + 1, ["s2 b"], 1, False, gone_at=s1_gone
    )
    # s2 b was last seen until 1030, ~ w until 1040: by 1031 s2 b's time ran out, whoever asks.
    both_gone = (*s1_gone, ("s2", 1031.0))
    assert await store.presence(r, 1031.0, here=["~ x"], until=1060.0) == Roll(
        first.version + 2, [], 2, True, gone_at=both_gone
    )
    back = await store.presence(r, 1035.0, here=["s2 b"], until=1060.0)  # a spectator is never "added"
    assert (back.listed, back.changed, back.added, back.gone_at) == (["s2 b"], True, True, s1_gone)
    await store.presence(r, 1036.0, gone=["s2 b"])
    assert await store.presence(r, 1041.0) == Roll(first.version + 5, [], 1, True, gone_at=(*s1_gone, ("s2", 1036.0)))
    assert await store.presence(room(), 1031.0) == Roll(0, [], 0, False)  # rooms apart


async def test_redis_presence_lives_beside_the_room_and_expires_with_it(redis_url: str) -> None:
    s = open_store(redis_url, ttl=120)
    await s.connect()
    r = room()
    await s.presence(r, 1000.0, here=["s1 a", "~ b"], until=1030.0)
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = await keys_with_ttl(raw, r, 120)
        assert keys == [f"room:{{{r}}}:here", f"room:{{{r}}}:here:v", f"room:{{{r}}}:watch"]
        # The record lost (Redis restarted without persistence): versions still grow.
        before = (await s.presence(r, 1000.0)).version
        await raw.delete(*keys)
        while (lambda t: t[0] * 1000 + t[1] // 1000)(await raw.time()) <= before:
            pass  # the version came from Redis's clock: let it pass that millisecond
        assert (await s.presence(r, 1000.0, here=["s1 a"], until=1030.0)).version > before
    finally:
        await raw.aclose()
        await s.close()


async def test_rooms_expire_after_their_ttl(embedded_url: str) -> None:
    s = open_store(embedded_url, ttl=0)
    await s.connect()
    try:
        r = room()
        await s.commit(r, expect={}, write={"meta": "m", ASIDE + "s1:0": "h"})
        assert await s.read_all(r) == {}
        assert await s.read(r, [ASIDE + "s1:0"]) == [None]
        assert await s.commit(r, expect={"meta": 0}, write={"meta": "again"})
        assert await s.rooms("meta") == []  # expired as soon as written
    finally:
        await s.close()


async def test_the_embedded_store_frees_what_expired_without_a_read() -> None:
    """Like Redis, the embedded store does not keep abandoned rooms (their logs too) and
    leaderboards until someone reads them again: a later write sweeps them out."""
    s = MemoryStore(ttl=3600, sweep_seconds=0)
    gone, kept = room(), room()
    await s.commit(gone, expect={}, write={"meta": "m"}, log=("meta", "e"), ttl=0)
    await s.board_add("board-" + gone, "p1", "1", "x", ttl=0)
    s.ttl = 0
    await s.presence(gone, 1000.0, here=["s1 a"], until=2000.0)
    s.ttl = 3600
    await s.commit(kept, expect={}, write={"meta": "m"}, log=("meta", "e"))
    assert set(s._rooms) == set(s._logs) == {kept}  # what the process holds
    assert s._boards == {}
    assert s._presence == {}
    assert await s.read(kept, ["meta"]) != [None]


async def test_redis_keys_share_one_hash_tag_and_carry_the_ttl(redis_url: str) -> None:
    s = open_store(redis_url, ttl=120)
    await s.connect()
    r = room()
    await s.commit(r, expect={}, write={"meta": "m", ASIDE + "s1:0": "h"}, log=("meta", "created"))
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = await keys_with_ttl(raw, r, 120)
        assert keys == [f"room:{{{r}}}", f"room:{{{r}}}:aside", f"room:{{{r}}}:log:meta"]
        # Any commit to the room refreshes the expiry of what is kept aside, written or not.
        await s.commit(r, expect={}, write={"meta": "m2"}, ttl=1000)
        assert 120 < await raw.ttl(f"room:{{{r}}}:aside") <= 1000
    finally:
        await raw.aclose()
        await s.close()


async def test_a_leaderboard_keeps_each_players_first_entry_in_sort_key_order(store: Store) -> None:
    group = "board-" + room()
    assert await store.board_add(group, "p2", "000300", "bob", ttl=600)
    assert await store.board_add(group, "p1", "000100", "ann", ttl=600)
    assert await store.board_add(group, "p3", "000300", "cy", ttl=600)
    assert not await store.board_add(group, "p1", "000001", "ann again", ttl=600)
    assert await store.board_range(group, 0, 10) == [("p1", "ann"), ("p2", "bob"), ("p3", "cy")]
    assert await store.board_range(group, 1, 1) == [("p2", "bob")]
    assert await store.board_range(group, 5, 10) == []
    assert await store.board_rank(group, "p3") == (2, "cy")
    assert await store.board_rank(group, "nobody") is None
    assert await store.board_range("board-" + room(), 0, 10) == []


async def test_leaderboards_expire(embedded_url: str) -> None:
    s = open_store(embedded_url, ttl=3600)
    await s.connect()
    try:
        group = "board-" + room()
        await s.board_add(group, "p1", "1", "x", ttl=0)
        assert await s.board_range(group, 0, 10) == []
        assert await s.board_rank(group, "p1") is None
        assert await s.board_add(group, "p1", "1", "x", ttl=600)
    finally:
        await s.close()


async def test_redis_leaderboard_keys_carry_the_ttl(redis_url: str) -> None:
    s = open_store(redis_url, ttl=120)
    await s.connect()
    group = "board-" + room()
    await s.board_add(group, "p1", "1", "x", ttl=86400)
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = sorted([k async for k in raw.scan_iter(match=f"*{group}*")])
        assert keys == [f"board:{{{group}}}", f"board:{{{group}}}:entries"]
        for k in keys:
            assert 0 < await raw.ttl(k) <= 86400
    finally:
        await raw.aclose()
        await s.close()


async def test_an_allowance_gives_its_burst_then_refills_at_its_rate(store: Store) -> None:
    key, other, t = "rooms:" + room(), "rooms:" + room(), 1_800_000_000.0
    assert [await store.spend(key, 0.5, 3, t) for _ in range(4)] == [True, True, True, False]
    assert await store.spend(other, 0.5, 3, t)  # another key has its own
    assert not await store.spend(key, 0.5, 3, t + 1.9)  # not yet a whole one back
    assert await store.spend(key, 0.5, 3, t + 2.1)
    assert not await store.spend(key, 0.5, 3, t + 2.2)  # a refusal takes nothing
    assert await store.spend(key, 0.5, 3, t + 4.2)
    # Refilled for long enough, it holds its burst, never more.
    assert [await store.spend(key, 0.5, 3, t + 1000) for _ in range(4)] == [True, True, True, False]


async def test_redis_allowances_are_forgotten_once_full_again(redis_url: str) -> None:
    s = open_store(redis_url, ttl=120)
    await s.connect()
    key = "rooms:" + room()
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        await s.spend(key, 10 / 60, 10, 1_800_000_000.0)
        assert 0 < await raw.pttl(f"allowance:{key}") <= 6_001  # one room back in 6 s: full again
        for _ in range(9):
            await s.spend(key, 10 / 60, 10, 1_800_000_000.0)
        assert 54_000 < await raw.pttl(f"allowance:{key}") <= 60_001
    finally:
        await raw.aclose()
        await s.close()


async def test_the_embedded_store_forgets_allowances_once_full_again() -> None:
    s = MemoryStore(ttl=3600, sweep_seconds=0)
    now = time.time()
    await s.spend("rooms:a", 1e300, 1, now)  # full again at once
    await s.spend("rooms:b", 1 / 60, 2, now)
    await s.spend("rooms:c", 1 / 60, 2, now)  # a write sweeps
    assert set(s._allowances) == {"rooms:b", "rooms:c"}
