"""The durable embedded store: everything kept in one SQLite file, for a single server process.

The same semantics as :mod:`race.store.memory` and :mod:`race.store.redis`, kept on disk
(:mod:`race.store.sqlite_file`: the tables, the lock that keeps a second process out, and
the syncs): documents with their versions, leaderboards, the record, listings and allowances
survive a restart and a ``kill -9``. What matters only while the process runs stays in its
memory, as in the memory store this builds on: the rooms' channels, presence, and the
documents' logs. After a restart :meth:`log_since` answers ``None`` for what came before, and
a resuming client gets its full state, as when its missed entries were trimmed.

The move path's cost (figures in docs/performance.md): a move's commit is one statement, a
transaction of its own, which appends the pages it changed to the write-ahead log: a write
to the system's cache, on the event loop, with no sync (the checkpointer's thread syncs
about once a second). This process is the file's only writer, so it keeps each room's
document versions in memory and checks a commit's expected versions without a read; and it
writes a room's expiry again only once it moved on by a minute (or a tenth of the ttl):
rooms expire to the minute. Expired rows are deleted by a sweep every ``sweep_seconds``, in
batches, never by a commit; until then no read sees them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .base import (
    ASIDE,
    LISTED,
    LOG_LENGTH,
    Doc,
    Kept,
    KeptRoom,
    LogEntry,
    StoreUnavailable,
)
from .memory import MemoryStore
from .sqlite_file import BATCH, SWEEPS, DataFile, everything_kept, parse_url

log = logging.getLogger(__name__)
#: A room's expiry is written again once it moved on by this much (or a tenth of the ttl).
EXPIRY_STEP = 60.0
#: Rooms untouched this long leave the in-memory index of versions (read again when needed).
IDLE_SECONDS = 600.0
_ASIDE_END = ASIDE[:-1] + chr(ord(ASIDE[-1]) + 1)  # the names kept aside are those in [ASIDE, _ASIDE_END)


@functools.cache
def _upsert(n: int) -> str:
    """The statement that writes ``n`` documents, each with its new version."""
    values = ", ".join(["(?, ?, ?, ?)"] * n)
    return (
        f"INSERT INTO docs (room, name, version, data) VALUES {values}"
        " ON CONFLICT (room, name) DO UPDATE SET version = excluded.version, data = excluded.data"
    )


@dataclass
class _Room:
    """What this process knows of a room in the file: when it expires (0: it does not exist)
    and its documents' versions, exact since every write goes through this process; and its
    documents' logs, kept in memory only, from the versions they had when it was read
    (``known``: the log of what came before is not kept)."""

    expires: float
    versions: dict[str, int]
    known: dict[str, int] = field(default_factory=dict)
    logs: dict[str, deque[LogEntry]] = field(default_factory=dict)
    used: float = 0.0  # monotonic


class SqliteStore(MemoryStore):
    """Documents, boards, records, listings and allowances in a SQLite file; this process's
    channels, presence and logs in memory (inherited from :class:`MemoryStore`)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        ttl: int,
        sync: str = "normal",
        sync_seconds: float = 1.0,
        sweep_seconds: float = 60.0,
        readonly: bool = False,
    ) -> None:
        super().__init__(ttl=ttl, sweep_seconds=sweep_seconds)
        self.path = Path(path)
        self.file = DataFile(self.path, sync=sync, sync_seconds=sync_seconds, readonly=readonly)
        self._index: dict[str, _Room] = {}
        self._sweeper: asyncio.Task[None] | None = None

    @classmethod
    def from_url(cls, url: str, *, ttl: int) -> SqliteStore:
        path, sync = parse_url(url)
        return cls(path, ttl=ttl, sync=sync)

    async def connect(self) -> None:
        self.file.open()
        if not self.file.readonly:
            self._sweeper = asyncio.create_task(self._sweeps())

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
            self._sweeper = None
        await asyncio.to_thread(self.file.stop_syncs)
        self.file.close()

    async def ping(self) -> None:
        self.file.rows("SELECT 1")

    # -- documents ---------------------------------------------------------------------

    def _entry(self, room: str, now: float) -> _Room:
        """The room's entry in the index, read from the file on first use. An expired room's
        entry is as a new room's: expiry 0, no versions (its rows not yet swept are
        overwritten by its next commit)."""
        entry = self._index.get(room)
        if entry is None:
            rows = self.file.rows("SELECT expires FROM rooms WHERE room = ?", (room,))
            expires = rows[0][0] if rows and rows[0][0] > now else 0.0
            versions: dict[str, int] = {}
            if expires:
                versions = dict(self.file.rows("SELECT name, version FROM docs WHERE room = ?", (room,)))
            entry = self._index[room] = _Room(expires, versions, dict(versions))
        elif entry.expires <= now:
            entry.expires, entry.versions, entry.known, entry.logs = 0.0, {}, {}, {}
        entry.used = time.monotonic()
        return entry

    async def read(self, room: str, names: Sequence[str]) -> list[Doc | None]:
        if not names:
            return []
        sql = (
            "SELECT d.name, d.version, d.data FROM docs d JOIN rooms r ON r.room = d.room"
            f" WHERE d.room = ? AND r.expires > ? AND d.name IN ({','.join('?' * len(names))})"
        )
        found = {name: Doc(v, data) for name, v, data in self.file.rows(sql, (room, time.time(), *names))}
        return [found.get(n) for n in names]

    async def read_all(self, room: str) -> dict[str, Doc]:
        sql = (
            "SELECT d.name, d.version, d.data FROM docs d JOIN rooms r ON r.room = d.room"
            " WHERE d.room = ? AND r.expires > ? AND NOT (d.name >= ? AND d.name < ?)"
        )
        return {name: Doc(v, data) for name, v, data in self.file.rows(sql, (room, time.time(), ASIDE, _ASIDE_END))}

    async def commit(
        self,
        room: str,
        *,
        expect: Mapping[str, int],
        write: Mapping[str, str],
        log: tuple[str, str] | None = None,
        publish: str | None = None,
        ttl: int | None = None,
    ) -> bool:
        now = time.time()
        entry = self._entry(room, now)
        for name, version in expect.items():
            if entry.versions.get(name, 0) != version:
                return False
        ttl = self.ttl if ttl is None else ttl
        expires = now + ttl
        refresh = not entry.expires <= expires <= entry.expires + min(EXPIRY_STEP, ttl / 10)
        versions = {name: entry.versions.get(name, 0) + 1 for name, data in write.items() if data}
        gone = [name for name, data in write.items() if not data]
        rows = [value for name, data in write.items() if data for value in (room, name, versions[name], data)]
        try:
            if refresh or gone:
                with self.file.transaction() as db:
                    if not entry.expires:  # new, or expired: none of its rows count
                        db.execute("DELETE FROM docs WHERE room = ?", (room,))
                    db.executemany("DELETE FROM docs WHERE room = ? AND name = ?", [(room, name) for name in gone])
                    if rows:
                        db.execute(_upsert(len(versions)), rows)
                    if refresh:
                        db.execute(
                            "INSERT INTO rooms (room, expires) VALUES (?, ?)"
                            " ON CONFLICT (room) DO UPDATE SET expires = excluded.expires",
                            (room, expires),
                        )
            elif rows:  # a move: one statement, its own transaction
                self.file.write(_upsert(len(versions)), rows)
        except StoreUnavailable:
            self._index.pop(room, None)  # read from the file again next time
            raise
        if refresh:
            entry.expires = expires
        entry.versions.update(versions)
        for name in gone:
            entry.versions.pop(name, None)
        if log is not None:
            name, event = log
            entry.logs.setdefault(name, deque(maxlen=LOG_LENGTH)).append(LogEntry(entry.versions.get(name, 0), event))
        if publish is not None:
            await self.publish(room, publish)
        return True

    async def log_since(self, room: str, name: str, version: int) -> list[LogEntry] | None:
        entry = self._entry(room, time.time())
        if version < entry.known.get(name, 0):
            return None  # entries from before this process read the room (a restart)
        newer = [e for e in entry.logs.get(name, ()) if e.version > version]
        if newer and newer[0].version != version + 1:
            return None
        return newer

    async def rooms(self, having: str) -> list[str]:
        sql = "SELECT d.room FROM docs d JOIN rooms r ON r.room = d.room WHERE d.name = ? AND r.expires > ?"
        return [room for (room,) in self.file.rows(sql, (having, time.time()))]

    # -- what else is kept -------------------------------------------------------------

    async def list_add(self, key: str, member: str, expires_at: float) -> bool:
        with self.file.transaction() as db:
            new = db.execute("SELECT 1 FROM listings WHERE key = ? AND member = ?", (key, member)).fetchone() is None
            db.execute(
                "INSERT INTO listings (key, member, expires) VALUES (?, ?, ?)"
                " ON CONFLICT (key, member) DO UPDATE SET expires = excluded.expires",
                (key, member, expires_at),
            )
        return new

    async def list_remove(self, key: str, member: str) -> bool:
        with self.file.transaction() as db:
            return db.execute("DELETE FROM listings WHERE key = ? AND member = ?", (key, member)).rowcount > 0

    async def list_members(self, key: str, now: float, limit: int) -> list[str]:
        sql = "SELECT member FROM listings WHERE key = ? AND expires > ? ORDER BY expires DESC LIMIT ?"
        return [str(row[0]) for row in self.file.rows(sql, (key, now, limit))]

    async def spend(self, key: str, rate: float, burst: int, now: float) -> bool:
        with self.file.transaction() as db:
            row = db.execute("SELECT tokens, at FROM allowances WHERE key = ? AND expires > ?", (key, time.time()))
            tokens, at = row.fetchone() or (burst, now)
            tokens = min(burst, tokens + max(0.0, now - at) * rate)
            spent = tokens >= 1
            if spent:
                tokens -= 1
            db.execute(
                "INSERT INTO allowances (key, tokens, at, expires) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE"
                " SET tokens = excluded.tokens, at = excluded.at, expires = excluded.expires",
                (key, tokens, now, time.time() + (burst - tokens) / rate),
            )
        return spent

    async def board_add(self, group: str, player: str, sort_key: str, data: str, ttl: int) -> bool:
        now = time.time()
        with self.file.transaction() as db:
            row = db.execute("SELECT expires FROM boards WHERE grp = ?", (group,)).fetchone()
            if row is not None and row[0] <= now:
                db.execute("DELETE FROM board_entries WHERE grp = ?", (group,))  # expired, not yet swept
            elif db.execute("SELECT 1 FROM board_entries WHERE grp = ? AND player = ?", (group, player)).fetchone():
                return False
            db.execute(
                "INSERT INTO board_entries (grp, player, member, data) VALUES (?, ?, ?, ?)",
                (group, player, f"{sort_key}|{player}", data),
            )
            db.execute(
                "INSERT INTO boards (grp, expires) VALUES (?, ?)"
                " ON CONFLICT (grp) DO UPDATE SET expires = excluded.expires",
                (group, now + ttl),
            )
        return True

    async def board_range(self, group: str, start: int, count: int) -> list[tuple[str, str]]:
        sql = (
            "SELECT e.player, e.data FROM board_entries e JOIN boards b ON b.grp = e.grp"
            " WHERE e.grp = ? AND b.expires > ? ORDER BY e.member LIMIT ? OFFSET ?"
        )
        return [(str(p), str(d)) for p, d in self.file.rows(sql, (group, time.time(), count, start))]

    async def board_rank(self, group: str, player: str) -> tuple[int, str] | None:
        sql = (
            "SELECT e.member, e.data FROM board_entries e JOIN boards b ON b.grp = e.grp"
            " WHERE e.grp = ? AND b.expires > ? AND e.player = ?"
        )
        rows = self.file.rows(sql, (group, time.time(), player))
        if not rows:
            return None
        member, data = rows[0]
        (ahead,) = self.file.rows("SELECT count(*) FROM board_entries WHERE grp = ? AND member < ?", (group, member))[0]
        return int(ahead), str(data)

    async def record_put(self, rid: str, data: str, ttl: int, lists: Sequence[str] = ()) -> None:
        now = time.time()
        with self.file.transaction() as db:
            # A record put again goes last in the order of puts (what an export keeps).
            db.execute("DELETE FROM records WHERE rid = ?", (rid,))
            db.execute("INSERT INTO records (rid, data, expires) VALUES (?, ?, ?)", (rid, data, now + ttl))
            for key in lists:
                row = db.execute("SELECT expires, top FROM record_lists WHERE key = ?", (key,)).fetchone()
                top = row[1] if row is not None and row[0] > now else 0
                if row is not None and not top:
                    db.execute("DELETE FROM record_ids WHERE key = ?", (key,))  # expired, not yet swept
                db.execute("INSERT INTO record_ids (key, seq, rid) VALUES (?, ?, ?)", (key, top + 1, rid))
                db.execute("DELETE FROM record_ids WHERE key = ? AND seq <= ?", (key, top + 1 - LISTED))
                db.execute(
                    "INSERT INTO record_lists (key, expires, top) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE"
                    " SET expires = excluded.expires, top = excluded.top",
                    (key, now + ttl, top + 1),
                )

    async def record_get(self, rid: str) -> str | None:
        rows = self.file.rows("SELECT data FROM records WHERE rid = ? AND expires > ?", (rid, time.time()))
        return str(rows[0][0]) if rows else None

    async def record_list(self, key: str, start: int, count: int) -> list[str]:
        sql = (
            "SELECT i.rid FROM record_ids i JOIN record_lists l ON l.key = i.key"
            " WHERE i.key = ? AND l.expires > ? ORDER BY i.seq DESC LIMIT ? OFFSET ?"
        )
        return [str(row[0]) for row in self.file.rows(sql, (key, time.time(), count, start))]

    async def analysis_put(self, rid: str, data: str, *, fresh: bool = False, ttl: int | None = None) -> bool:
        now = time.time()
        with self.file.transaction() as db:
            row = db.execute("SELECT expires FROM records WHERE rid = ? AND expires > ?", (rid, now)).fetchone()
            if row is None:
                return False
            if fresh and db.execute("SELECT 1 FROM analyses WHERE rid = ? AND expires > ?", (rid, now)).fetchone():
                return False
            expires = row[0] if ttl is None else min(row[0], now + ttl)
            db.execute(
                "INSERT INTO analyses (rid, data, expires) VALUES (?, ?, ?) ON CONFLICT (rid) DO UPDATE"
                " SET data = excluded.data, expires = excluded.expires",
                (rid, data, expires),
            )
        return True

    async def analysis_get(self, rid: str) -> str | None:
        rows = self.file.rows("SELECT data FROM analyses WHERE rid = ? AND expires > ?", (rid, time.time()))
        return str(rows[0][0]) if rows else None

    # -- the sweep ---------------------------------------------------------------------

    async def _sweeps(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                await self.sweep()
            except StoreUnavailable as exc:
                log.warning("the sweep of what expired failed: %s", exc)

    async def sweep(self) -> int:
        """Delete everything expired by now, a batch per transaction with the loop's other
        work between them, and forget the rooms idle for :data:`IDLE_SECONDS` (their versions
        are read again when needed). How many things were deleted."""
        now, idle = time.time(), time.monotonic() - IDLE_SECONDS
        for room in [r for r, e in self._index.items() if e.expires <= now or e.used < idle]:
            del self._index[room]
        deleted = 0
        for find, deletions in SWEEPS:
            while True:
                with self.file.transaction() as db:
                    keys = db.execute(find, (now,)).fetchall()
                    for key in keys:
                        for sql in deletions:
                            db.execute(sql, key)
                deleted += len(keys)
                await asyncio.sleep(0)
                if len(keys) < BATCH:
                    break
        return deleted

    # -- export and import -------------------------------------------------------------

    async def dump(self) -> AsyncIterator[Kept]:
        """Everything kept, read in one transaction: a consistent copy, even from a reader
        beside the server that goes on writing (``readonly``). Nothing may be written
        through this store while it is read."""
        db = self.file.db
        db.execute("BEGIN")
        try:
            for kept in everything_kept(db, time.time()):
                yield kept
        finally:
            db.execute("COMMIT")

    async def restore_room(self, kept: KeptRoom) -> None:
        with self.file.transaction() as db:
            db.execute("DELETE FROM docs WHERE room = ?", (kept.room,))
            db.executemany(
                "INSERT INTO docs (room, name, version, data) VALUES (?, ?, ?, ?)",
                [(kept.room, name, version, data) for name, version, data in kept.docs],
            )
            db.execute(
                "INSERT INTO rooms (room, expires) VALUES (?, ?)"
                " ON CONFLICT (room) DO UPDATE SET expires = excluded.expires",
                (kept.room, kept.expires_at),
            )
        self._index.pop(kept.room, None)
