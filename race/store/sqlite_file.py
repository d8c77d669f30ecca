"""The SQLite store's file (:mod:`race.store.sqlite`): its tables, its lock, and its syncs.

- **The tables.** Expiries are Unix times (``expires``). A room's documents expire with its
  row in ``rooms``, a board's entries with ``boards``, a listing of records with
  ``record_lists``. Rows with large values (documents, records) are in rowid tables; the
  small ones are clustered on their key (``WITHOUT ROWID``).
- **One process per file.** :func:`claim` holds ``FILE.lock`` (``flock``) for as long as the
  process lives, however it ends; a second process is refused with :class:`StoreInUse`.
- **Writes that never wait for the disk.** The file is in WAL mode: a commit appends its
  pages to the write-ahead log, a ``write`` to the system's cache. With ``synchronous=NORMAL``
  (the default) nothing is synced then; a thread of its own checkpoints the log into the file
  every ``sync_seconds``, which syncs the log first. So a process crash loses nothing
  committed, and a power loss at most the commits since the last checkpoint (about a
  second), never the file. ``sync="full"`` syncs the log at every commit instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from .base import Kept, KeptAnalysis, KeptBoard, KeptListing, KeptRecord, KeptRoom, StoreUnavailable

log = logging.getLogger(__name__)
SCHEMA_VERSION = 1
#: The write-ahead log's length (in pages, 64 MiB) past which a checkpoint starts it again.
WAL_PAGES = 16384
#: ``synchronous`` modes: ``off`` only for measurements (a power loss may corrupt the file).
SYNC_MODES = ("normal", "full", "off")

SCHEMA = [
    "CREATE TABLE IF NOT EXISTS kept (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS rooms (room TEXT PRIMARY KEY, expires REAL NOT NULL) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS rooms_expiry ON rooms (expires)",
    """CREATE TABLE IF NOT EXISTS docs (
        room TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY (room, name))""",
    "CREATE TABLE IF NOT EXISTS boards (grp TEXT PRIMARY KEY, expires REAL NOT NULL) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS boards_expiry ON boards (expires)",
    # member: "SORT_KEY|PLAYER", which orders the board (as Redis orders its sorted set)
    """CREATE TABLE IF NOT EXISTS board_entries (
        grp TEXT NOT NULL, player TEXT NOT NULL, member TEXT NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY (grp, player)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS board_order ON board_entries (grp, member)",
    # rowid: the order records were put in
    "CREATE TABLE IF NOT EXISTS records (rid TEXT NOT NULL UNIQUE, data TEXT NOT NULL, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS records_expiry ON records (expires)",
    """CREATE TABLE IF NOT EXISTS analyses (
        rid TEXT PRIMARY KEY, data TEXT NOT NULL, expires REAL NOT NULL) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS analyses_expiry ON analyses (expires)",
    # top: the seq of the listing's newest id
    """CREATE TABLE IF NOT EXISTS record_lists (
        key TEXT PRIMARY KEY, expires REAL NOT NULL, top INTEGER NOT NULL) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS record_lists_expiry ON record_lists (expires)",
    """CREATE TABLE IF NOT EXISTS record_ids (
        key TEXT NOT NULL, seq INTEGER NOT NULL, rid TEXT NOT NULL, PRIMARY KEY (key, seq)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS listings (
        key TEXT NOT NULL, member TEXT NOT NULL, expires REAL NOT NULL, PRIMARY KEY (key, member)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS listings_expiry ON listings (expires)",
    """CREATE TABLE IF NOT EXISTS allowances (
        key TEXT PRIMARY KEY, tokens REAL NOT NULL, at REAL NOT NULL, expires REAL NOT NULL) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS allowances_expiry ON allowances (expires)",
]

#: The sweep of what expired, a batch of :data:`BATCH` keys per transaction: for each kind of
#: thing that expires, the query for a batch of expired keys (``?``: now), and the deletions
#: of each key found.
BATCH = 200
SWEEPS: list[tuple[str, list[str]]] = [
    (
        f"SELECT room FROM rooms WHERE expires <= ? LIMIT {BATCH}",
        ["DELETE FROM docs WHERE room = ?", "DELETE FROM rooms WHERE room = ?"],
    ),
    (
        f"SELECT grp FROM boards WHERE expires <= ? LIMIT {BATCH}",
        ["DELETE FROM board_entries WHERE grp = ?", "DELETE FROM boards WHERE grp = ?"],
    ),
    (f"SELECT rid FROM records WHERE expires <= ? LIMIT {BATCH}", ["DELETE FROM records WHERE rid = ?"]),
    (f"SELECT rid FROM analyses WHERE expires <= ? LIMIT {BATCH}", ["DELETE FROM analyses WHERE rid = ?"]),
    (
        f"SELECT key FROM record_lists WHERE expires <= ? LIMIT {BATCH}",
        ["DELETE FROM record_ids WHERE key = ?", "DELETE FROM record_lists WHERE key = ?"],
    ),
    (f"SELECT key FROM allowances WHERE expires <= ? LIMIT {BATCH}", ["DELETE FROM allowances WHERE key = ?"]),
    (
        f"SELECT key, member FROM listings WHERE expires <= ? LIMIT {BATCH}",
        ["DELETE FROM listings WHERE key = ? AND member = ?"],
    ),
]


def parse_url(url: str) -> tuple[Path, str]:
    """The file and the sync mode of ``sqlite:///abs/path.db`` or ``sqlite://relative/path.db``,
    with ``?sync=full`` or ``?sync=normal`` (the default).

    >>> parse_url("sqlite:///srv/race/race.db?sync=full")
    (PosixPath('/srv/race/race.db'), 'full')
    """
    rest, _, query = url.removeprefix("sqlite:").partition("?")
    path = rest[2:] if rest.startswith("//") else rest
    params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    sync = params.pop("sync", "normal").lower()
    if not path or sync not in ("normal", "full") or params:
        raise ValueError(f"a sqlite store URL is sqlite:///path/to/race.db, optionally ?sync=full; got {url!r}")
    return Path(path), sync


class StoreInUse(RuntimeError):
    """The data file is held by another process: one process per file."""


def claim(path: Path) -> int:
    """Hold ``path``'s lock file (``PATH.lock``) for this process (its descriptor, to close
    when done), or raise :class:`StoreInUse` naming the process that holds it."""
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise StoreInUse(
            f"the data file {path} is in use by another server process (pid {holder}). One process per data "
            "file: stop that one, or give this one another DATA_DIR. To run several processes on the same "
            "data, use Redis (see docs/deployment.md)."
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def in_use(path: Path) -> StoreInUse | None:
    """The error a store on ``path`` would meet at start-up if another process holds it."""
    if not path.parent.is_dir():
        return None
    try:
        os.close(claim(path))
    except StoreInUse as exc:
        return exc
    return None


class DataFile:
    """The open file: one connection, used on the event loop's thread only, and the
    checkpointer's thread with a connection of its own. ``readonly``: a reader beside the
    process that writes it (an export), which takes no lock and never checkpoints."""

    def __init__(self, path: Path, *, sync: str = "normal", sync_seconds: float = 1.0, readonly: bool = False):
        if sync not in SYNC_MODES:
            raise ValueError(f"sync must be normal or full, got {sync!r}")
        self.path, self.sync, self.sync_seconds, self.readonly = path, sync, sync_seconds, readonly
        self.commits = 0  # so far: the checkpointer syncs when it grew
        self.restarts = 0  # checkpoints that started the log again
        self._db: sqlite3.Connection | None = None
        self._lock: int | None = None
        self._stopping = threading.Event()
        self._checkpointer: threading.Thread | None = None

    def open(self) -> None:
        if self.readonly:
            if not self.path.exists():
                raise FileNotFoundError(f"there is no data file {self.path}")
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = claim(self.path)
        try:
            db = self._db = sqlite3.connect(self.path, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={self.sync.upper()}")
            db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer does it, off the loop
            db.execute("PRAGMA journal_size_limit=67108864")  # the log file shrinks back to 64 MiB
            db.execute("PRAGMA cache_size=-16384")  # 16 MiB of pages
            db.execute("PRAGMA busy_timeout=10000")  # the checkpointer holds writes off for a sync or two
            with self.transaction():
                for statement in SCHEMA:
                    db.execute(statement)
                row = db.execute("SELECT value FROM kept WHERE key = 'schema'").fetchone()
                if row is None:
                    db.execute("INSERT INTO kept (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                elif int(row[0]) > SCHEMA_VERSION:
                    raise RuntimeError(f"{self.path} was written by a newer version of the server (schema {row[0]})")
        except BaseException:
            self.close()
            raise
        self._checkpointer = threading.Thread(target=self._checkpoints, name="race-store-sync", daemon=True)
        self._checkpointer.start()

    def stop_syncs(self) -> None:
        """Stop the checkpointer's thread (waiting for a checkpoint under way)."""
        self._stopping.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
            self._checkpointer = None

    def close(self) -> None:
        """Stop the checkpointer, fold the log into the file, close it and let the lock go."""
        self.stop_syncs()
        if self._db is not None:
            if not self.readonly:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.close()
            self._db = None
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _checkpoints(self) -> None:
        """The checkpointer's thread: every ``sync_seconds`` in which something was committed,
        a passive checkpoint, which syncs the log, copies its pages into the file and syncs
        that, while the loop goes on committing. Under a steady stream of commits a passive
        checkpoint never catches up with the log's end, and the log would grow for ever (it
        starts again from its beginning only once all of it is in the file); so when it holds
        more than :data:`WAL_PAGES`, a second checkpoint right after the first copies the few
        pages committed meanwhile with the writer held off: a wait of a sync or two for the
        loop's next commit."""
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute(f"PRAGMA synchronous={self.sync.upper()}")
        # No waiting: a reader beside the server (an export) holding an old snapshot would
        # otherwise keep the second checkpoint, and the writer it holds off, waiting.
        db.execute("PRAGMA busy_timeout=0")
        done = -1  # the first interval checkpoints whatever came before this thread ran
        try:
            while not self._stopping.wait(self.sync_seconds):
                if self.commits == done:
                    continue
                done = self.commits
                try:
                    _, pages, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if pages > WAL_PAGES:
                        busy, _, _ = db.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
                        self.restarts += not busy
                except sqlite3.Error as exc:
                    log.warning("could not checkpoint %s: %s", self.path, exc)
        finally:
            db.close()

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreUnavailable(f"the data file {self.path} is not open")
        return self._db

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a failure of the disk (full, gone) rolls it back and
        raises :class:`StoreUnavailable`."""
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreUnavailable(f"the data file {self.path} failed: {exc}") from exc
            raise
        self.commits += 1

    def write(self, sql: str, args: Sequence[object] = ()) -> None:
        """One statement, which is a transaction of its own."""
        try:
            self.db.execute(sql, args)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"the data file {self.path} failed: {exc}") from exc
        self.commits += 1

    def rows(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        """The rows a query finds."""
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"the data file {self.path} failed: {exc}") from exc


def everything_kept(db: sqlite3.Connection, now: float) -> Iterator[Kept]:
    """Everything in the file not expired by ``now``, as the export writes it (the analyses
    after the records they belong to); read inside a transaction the caller holds, for a
    consistent copy."""
    rooms = db.execute("SELECT room, expires FROM rooms WHERE expires > ? ORDER BY room", (now,)).fetchall()
    for room, expires in rooms:
        docs = db.execute("SELECT name, version, data FROM docs WHERE room = ? ORDER BY name", (room,))
        yield KeptRoom(room, expires, [(n, v, d) for n, v, d in docs.fetchall()])
    boards = db.execute("SELECT grp, expires FROM boards WHERE expires > ? ORDER BY grp", (now,)).fetchall()
    for group, expires in boards:
        rows = db.execute("SELECT player, member, data FROM board_entries WHERE grp = ? ORDER BY member", (group,))
        entries = [(p, m[: len(m) - len(p) - 1], d) for p, m, d in rows.fetchall()]
        yield KeptBoard(group, expires, entries)
    lists: dict[str, list[str]] = {}
    sql = (
        "SELECT i.rid, i.key FROM record_ids i JOIN record_lists l ON l.key = i.key"
        " WHERE l.expires > ? ORDER BY i.key, i.seq"
    )
    for rid, key in db.execute(sql, (now,)).fetchall():
        lists.setdefault(rid, []).append(key)
    records = db.execute("SELECT rid, expires, data FROM records WHERE expires > ? ORDER BY rowid", (now,))
    while batch := records.fetchmany(500):
        for rid, expires, data in batch:
            yield KeptRecord(rid, expires, data, lists.get(rid, []))
    analyses = db.execute("SELECT rid, expires, data FROM analyses WHERE expires > ? ORDER BY rid", (now,))
    while batch := analyses.fetchmany(500):
        for rid, expires, data in batch:
            yield KeptAnalysis(rid, expires, data)
    members: dict[str, list[tuple[str, float]]] = {}
    for key, member, expires in db.execute(
        "SELECT key, member, expires FROM listings WHERE expires > ? ORDER BY key, expires", (now,)
    ).fetchall():
        members.setdefault(key, []).append((member, expires))
    for key, kept in members.items():
        yield KeptListing(key, kept)
