"""What only the SQLite store promises: all it keeps survives closing, a ``kill -9`` and a
reopening; one process per file; the sweep of what expired; the syncs; a failing disk."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import shutil
import sqlite3
import sys
import textwrap
import time
from pathlib import Path

import pytest

from race.store import KeptAnalysis, KeptBoard, KeptListing, KeptRecord, KeptRoom, StoreUnavailable, sqlite_file
from race.store.base import ASIDE, LogEntry
from race.store.sqlite import SqliteStore
from race.store.sqlite_file import StoreInUse, parse_url
from tests.support.processes import ROOT, Process


async def opened(path: Path, **kwargs: object) -> SqliteStore:
    store = SqliteStore(path, ttl=3600, **kwargs)  # type: ignore[arg-type]
    await store.connect()
    return store


def count(path: Path, table: str) -> int:
    with contextlib.closing(sqlite3.connect(path)) as db:
        (n,) = db.execute(f"SELECT count(*) FROM {table}").fetchone()
    return int(n)


async def test_everything_kept_survives_closing_and_opening_again(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    s = await opened(path)
    await s.commit("R1", expect={}, write={"meta": "m", "p:s1": "a", ASIDE + "s1:0": "h"}, log=("p:s1", "e1"))
    await s.commit("R1", expect={"p:s1": 1}, write={"p:s1": "b"}, log=("p:s1", "e2"))
    await s.board_add("day", "ann", "0100", "ann's", ttl=600)
    await s.board_add("day", "bob", "0050", "bob's", ttl=600)
    await s.record_put("g1", "game 1", ttl=600, lists=["room-R1", "device-x"])
    await s.record_put("g2", "game 2", ttl=600, lists=["room-R1"])
    await s.list_add("rooms", "R1", time.time() + 600)
    t = time.time()
    assert [await s.spend("rooms:1.2.3.4", 1 / 60, 2, t) for _ in range(3)] == [True, True, False]
    await s.close()

    s = await opened(path)
    try:
        docs = await s.read("R1", ["meta", "p:s1", ASIDE + "s1:0"])
        assert [(d.version, d.data) if d else None for d in docs] == [(1, "m"), (2, "b"), (1, "h")]
        assert await s.board_range("day", 0, 10) == [("bob", "bob's"), ("ann", "ann's")]
        assert await s.board_rank("day", "ann") == (1, "ann's")
        assert not await s.board_add("day", "ann", "0001", "again", ttl=600)
        assert await s.record_get("g1") == "game 1"
        assert await s.record_list("room-R1", 0, 10) == ["g2", "g1"]
        assert await s.record_list("device-x", 0, 10) == ["g1"]
        assert await s.list_members("rooms", time.time(), 10) == ["R1"]
        assert not await s.spend("rooms:1.2.3.4", 1 / 60, 2, t)  # the allowance was kept spent
        # The versions go on; the log of what came before the reopening is not kept.
        assert not await s.commit("R1", expect={"p:s1": 1}, write={"p:s1": "stale"})
        assert await s.commit("R1", expect={"p:s1": 2}, write={"p:s1": "c"}, log=("p:s1", "e3"))
        assert await s.log_since("R1", "p:s1", 2) == [LogEntry(3, "e3")]
        assert await s.log_since("R1", "p:s1", 1) is None
        assert await s.log_since("R1", "p:s1", 3) == []
    finally:
        await s.close()


_WRITER = """
import asyncio, sys
from race.store.sqlite import SqliteStore

async def main() -> None:
    s = SqliteStore(sys.argv[1], ttl=3600, sync=sys.argv[2])
    await s.connect()
    version = 0
    while True:
        assert await s.commit("R1", expect={"p:s1": version}, write={"p:s1": f"move {version + 1}"})
        version += 1
        await s.board_add("day", f"p{version}", f"{version:06d}", "x", ttl=600)
        print("committed", version, flush=True)

asyncio.run(main())
"""


@pytest.mark.parametrize("sync", ["normal", "full"])
def test_a_process_killed_mid_write_loses_nothing_it_was_told_was_committed(tmp_path: Path, sync: str) -> None:
    path = tmp_path / "race.db"
    writer = Process([sys.executable, "-c", textwrap.dedent(_WRITER), f"{path}", sync], cwd=ROOT)
    try:
        writer.wait_for("committed 100" if sync == "full" else "committed 300", timeout=60)  # full: a sync each
    finally:
        writer.kill()  # SIGKILL, mid-write: it never stops between commits
    # (Killed mid-print, its last line may be cut short: the whole ones say what it was told.)
    told = max(int(m[1]) for line in writer.lines if (m := re.fullmatch(r"committed (\d+)", line)))
    with contextlib.closing(sqlite3.connect(path)) as db:
        (version,) = db.execute("SELECT version FROM docs WHERE room = 'R1' AND name = 'p:s1'").fetchone()
        (entries,) = db.execute("SELECT count(*) FROM board_entries WHERE grp = 'day'").fetchone()
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert told <= version <= told + 1 and entries in (version - 1, version)


async def test_a_second_store_on_the_same_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    first = await opened(path)
    second = SqliteStore(path, ttl=3600)
    with pytest.raises(StoreInUse, match=r"race.db is in use by another server process \(pid \d+\)"):
        await second.connect()
    await first.commit("R1", expect={}, write={"meta": "m"})  # the first goes on
    await first.close()
    await second.connect()  # the file is free again
    try:
        assert (await second.read("R1", ["meta"]))[0] is not None
    finally:
        await second.close()


async def test_the_checkpointer_folds_commits_into_the_file_within_its_interval(tmp_path: Path) -> None:
    """Power loss: what reached the file itself (synced) is safe; the checkpointer puts every
    commit there within about ``sync_seconds``, without the loop waiting for the disk."""
    path = tmp_path / "race.db"
    s = await opened(path, sync_seconds=0.05)
    try:
        await s.commit("R1", expect={}, write={"meta": "folded in"})
        deadline = time.monotonic() + 10
        for n in itertools.count():
            copy = tmp_path / f"copy-{n}.db"  # the file alone, without its write-ahead log
            shutil.copyfile(path, copy)
            with contextlib.closing(sqlite3.connect(copy)) as db:
                try:
                    rows = db.execute("SELECT data FROM docs WHERE room = 'R1'").fetchall()
                except sqlite3.OperationalError:  # not even the tables yet
                    rows = []
            if rows or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.02)
        assert rows == [("folded in",)]
    finally:
        await s.close()


async def test_under_a_steady_stream_of_commits_the_log_starts_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A passive checkpoint never catches up with commits that never stop: the checkpointer
    then starts the log again, or it would grow for as long as the stream lasts."""
    monkeypatch.setattr(sqlite_file, "WAL_PAGES", 64)
    path = tmp_path / "race.db"
    s = await opened(path, sync_seconds=0.02)
    try:
        deadline, version = time.monotonic() + 20, 0
        while s.file.restarts < 2 and time.monotonic() < deadline:
            assert await s.commit("R1", expect={"p:s1": version}, write={"p:s1": "x" * 3000})
            version += 1
        assert s.file.restarts >= 2
        with contextlib.closing(sqlite3.connect(path)) as db:
            _, frames, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        assert frames < version / 2  # the log holds the commits since it started again, not all of them
    finally:
        await s.close()


async def test_a_reader_holding_an_old_snapshot_keeps_the_log_from_starting_again_not_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export beside the server reads one snapshot for as long as it takes: meanwhile the
    log cannot start again, and the checkpointer gives up at once rather than hold commits
    off while it waits for the reader."""
    monkeypatch.setattr(sqlite_file, "WAL_PAGES", 64)
    path = tmp_path / "race.db"
    s = await opened(path, sync_seconds=0.02)
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        assert await s.commit("R1", expect={}, write={"p:s1": "x"})
        reader.execute("BEGIN")
        assert reader.execute("SELECT data FROM docs").fetchall() == [("x",)]  # the snapshot, held
        restarts, version, tried = s.file.restarts, 1, s.file.commits
        while s.file.commits < tried + 2000:
            assert await s.commit("R1", expect={"p:s1": version}, write={"p:s1": "x" * 3000})
            version += 1
        assert s.file.restarts == restarts
        assert reader.execute("SELECT data FROM docs").fetchall() == [("x",)]  # still its snapshot
        reader.execute("COMMIT")
    finally:
        reader.close()
        await s.close()


async def test_the_sweep_deletes_what_expired_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    s = await opened(path)
    try:
        for kept, ttl in (("kept", 600), ("gone", 0)):
            await s.commit(f"R-{kept}", expect={}, write={"meta": "m", ASIDE + "s1:0": "h"}, ttl=ttl)
            await s.board_add(f"day-{kept}", "p1", "1", "x", ttl=ttl)
            await s.record_put(f"g-{kept}", "game", ttl=ttl, lists=[f"list-{kept}"])
            await s.list_add("rooms", f"R-{kept}", time.time() + ttl)
        await s.spend("rooms:full-again", 1e9, 1, time.time())  # full again at once
        await s.spend("rooms:spent", 1 / 60, 1, time.time())
        assert await s.sweep() == 6  # a room, a board, a record, a listing, an allowance, a member
        for table, left in [
            ("rooms", 1),
            ("docs", 2),
            ("boards", 1),
            ("board_entries", 1),
            ("records", 1),
            ("record_lists", 1),
            ("record_ids", 1),
            ("listings", 1),
            ("allowances", 1),
        ]:
            assert count(path, table) == left, table
        assert await s.read("R-kept", ["meta"]) != [None]
        assert await s.sweep() == 0
    finally:
        await s.close()


async def test_a_room_expiry_is_written_again_once_it_moved_on_by_a_minute(tmp_path: Path) -> None:
    """A move does not write its room's expiry: only a commit a minute later does (or one
    that asks for a shorter time)."""
    path = tmp_path / "race.db"
    s = await opened(path)
    try:
        await s.commit("R1", expect={}, write={"meta": "m"})
        with contextlib.closing(sqlite3.connect(path)) as db:
            (first,) = db.execute("SELECT expires FROM rooms").fetchone()
        await s.commit("R1", expect={"meta": 1}, write={"meta": "m2"})
        with contextlib.closing(sqlite3.connect(path)) as db:
            assert db.execute("SELECT expires FROM rooms").fetchone() == (first,)
        await s.commit("R1", expect={"meta": 2}, write={"meta": "m3"}, ttl=60)
        with contextlib.closing(sqlite3.connect(path)) as db:
            (shorter,) = db.execute("SELECT expires FROM rooms").fetchone()
        assert shorter < first - 3000
    finally:
        await s.close()


async def test_a_reader_beside_the_writer_exports_a_consistent_copy(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    s = await opened(path)
    reader = SqliteStore(path, ttl=3600, readonly=True)
    try:
        await s.commit("R1", expect={}, write={"meta": "m", ASIDE + "s1:0": "h"})
        await s.board_add("day", "ann", "0100", "ann's", ttl=600)
        await s.record_put("g1", "one", ttl=600, lists=["a", "b"])
        await s.record_put("g2", "two", ttl=600, lists=["a"])
        await s.analysis_put("g1", "g1's analysis")
        await s.list_add("rooms", "R1", time.time() + 600)
        await reader.connect()  # no lock: the writer holds it
        kept = [item async for item in reader.dump()]
        await s.commit("R2", expect={}, write={"meta": "after"})
    finally:
        await reader.close()
        await s.close()
    rooms = [k for k in kept if isinstance(k, KeptRoom)]
    assert [(r.room, r.docs) for r in rooms] == [("R1", [("h:s1:0", 1, "h"), ("meta", 1, "m")])]
    assert [(b.group, b.entries) for b in kept if isinstance(b, KeptBoard)] == [("day", [("ann", "0100", "ann's")])]
    records = [(r.rid, r.data, r.lists) for r in kept if isinstance(r, KeptRecord)]
    assert records == [("g1", "one", ["a", "b"]), ("g2", "two", ["a"])]  # in the order they were put
    assert [(a.rid, a.data) for a in kept if isinstance(a, KeptAnalysis)] == [("g1", "g1's analysis")]
    kinds = [type(k).__name__.removeprefix("Kept") for k in kept]
    assert kinds == ["Room", "Board", "Record", "Record", "Analysis", "Listing"]  # an analysis after its record
    assert [(m.key, [x for x, _ in m.members]) for m in kept if isinstance(m, KeptListing)] == [("rooms", ["R1"])]


async def test_a_full_disk_makes_the_store_unavailable_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    s = await opened(path)
    try:
        await s.commit("R1", expect={}, write={"meta": "m"})
        db = s.file.db
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count = {pages}")  # as if the disk were full
        with pytest.raises(StoreUnavailable, match="full"):
            await s.commit("R1", expect={"meta": 1}, write={"meta": "x" * 100_000, "p:s1": "y" * 100_000})
        assert [(d.version, d.data) if d else None for d in await s.read("R1", ["meta", "p:s1"])] == [(1, "m"), None]
        db.execute("PRAGMA max_page_count = 1073741823")
        assert not await s.commit("R1", expect={"meta": 2}, write={"meta": "m2"})
        assert await s.commit("R1", expect={"meta": 1}, write={"meta": "m2"})
    finally:
        await s.close()


def test_a_store_url_names_a_file_and_may_ask_for_a_sync_at_every_commit() -> None:
    assert parse_url("sqlite://data/race.db") == (Path("data/race.db"), "normal")
    assert parse_url("sqlite:///srv/race.db?sync=FULL") == (Path("/srv/race.db"), "full")
    for bad in ("sqlite://", "sqlite:///x.db?sync=off", "sqlite:///x.db?mode=ro"):
        with pytest.raises(ValueError, match=r"sqlite:///path/to/race\.db"):
            parse_url(bad)
