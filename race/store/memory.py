"""The embedded store: everything in this process's memory, for a single server process."""

from __future__ import annotations

import asyncio
import bisect
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field

from .base import ASIDE, COUNTED, LISTED, LOG_LENGTH, Doc, KeptRoom, LogEntry, Roll, Store


@dataclass
class _Roll:
    """A room's presence: each member's time (listed and counted apart, each in the order
    its members were last marked, which is the order of their times: one clock, one ttl),
    and the version."""

    listed: dict[str, float] = field(default_factory=dict)
    counted: dict[str, float] = field(default_factory=dict)
    gone_at: dict[str, float] = field(default_factory=dict)  # seat -> when its last member went
    version: int = 0
    expiry: float = 0.0


class MemoryStore(Store):
    """Same semantics as the Redis store; every operation is atomic because it never awaits.

    Like Redis, it frees what has expired even if nobody reads it again: writes sweep out
    expired rooms and leaderboards, at most once every ``sweep_seconds``.
    """

    def __init__(self, *, ttl: int, sweep_seconds: float = 60.0) -> None:
        super().__init__(ttl=ttl)
        self.sweep_seconds = sweep_seconds
        self._rooms: dict[str, dict[str, Doc]] = {}
        self._expiry: dict[str, float] = {}
        self._logs: dict[str, dict[str, deque[LogEntry]]] = {}  # room -> document -> log
        self._subscribed: set[str] = set()
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._listings: dict[str, dict[str, float]] = {}
        self._presence: dict[str, _Roll] = {}
        self._allowances: dict[str, tuple[float, float, float]] = {}  # key -> tokens, at, full again (monotonic)
        self._boards: dict[str, tuple[float, list[str], dict[str, tuple[str, str]]]] = {}
        self._records: dict[str, tuple[float, str]] = {}  # id -> expiry, data
        self._record_lists: dict[str, tuple[float, deque[str]]] = {}  # key -> expiry, ids newest first
        self._analyses: dict[str, tuple[float, str]] = {}  # record id -> expiry, data
        self._swept = time.monotonic()

    def _room(self, room: str) -> dict[str, Doc]:
        if self._expiry.get(room, float("inf")) <= time.monotonic():
            self._drop(room)
        return self._rooms.get(room, {})

    def _drop(self, room: str) -> None:
        self._rooms.pop(room, None)
        self._expiry.pop(room, None)
        self._logs.pop(room, None)

    def _sweep(self) -> None:
        """Free every expired room and leaderboard (at most once every ``sweep_seconds``)."""
        now = time.monotonic()
        if now - self._swept < self.sweep_seconds:
            return
        self._swept = now
        for room in [r for r, t in self._expiry.items() if t <= now]:
            self._drop(room)
        for group in [g for g, board in self._boards.items() if board[0] <= now]:
            del self._boards[group]
        for room in [r for r, record in self._presence.items() if record.expiry <= now]:
            del self._presence[room]
        for key in [k for k, allowance in self._allowances.items() if allowance[2] <= now]:
            del self._allowances[key]
        for rid in [r for r, kept in self._records.items() if kept[0] <= now]:
            del self._records[rid]
        for rid in [r for r, kept in self._analyses.items() if kept[0] <= now]:
            del self._analyses[rid]
        for key in [k for k, listing in self._record_lists.items() if listing[0] <= now]:
            del self._record_lists[key]

    async def ping(self) -> None:
        return None

    async def read(self, room: str, names: Sequence[str]) -> list[Doc | None]:
        docs = self._room(room)
        return [docs.get(n) for n in names]

    async def read_all(self, room: str) -> dict[str, Doc]:
        return {name: doc for name, doc in self._room(room).items() if not name.startswith(ASIDE)}

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
        self._sweep()
        docs = self._room(room)
        for name, version in expect.items():
            doc = docs.get(name)
            if (doc.version if doc else 0) != version:
                return False
        docs = self._rooms.setdefault(room, docs)
        for name, data in write.items():
            old = docs.get(name)
            if data == "":
                docs.pop(name, None)
            else:
                docs[name] = Doc((old.version if old else 0) + 1, data)
        self._expiry[room] = time.monotonic() + (self.ttl if ttl is None else ttl)
        if log is not None:
            name, event = log
            entries = self._logs.setdefault(room, {}).setdefault(name, deque(maxlen=LOG_LENGTH))
            entries.append(LogEntry(docs[name].version, event))
        if publish is not None:
            await self.publish(room, publish)
        return True

    async def log_since(self, room: str, name: str, version: int) -> list[LogEntry] | None:
        self._room(room)
        entries = list(self._logs.get(room, {}).get(name, ()))
        newer = [e for e in entries if e.version > version]
        if newer and newer[0].version != version + 1:
            return None
        return newer

    async def rooms(self, having: str) -> list[str]:
        return [room for room in list(self._rooms) if having in self._room(room)]

    async def restore_room(self, kept: KeptRoom) -> None:
        self._drop(kept.room)
        self._rooms[kept.room] = {name: Doc(version, data) for name, version, data in kept.docs}
        self._expiry[kept.room] = time.monotonic() + kept.expires_at - time.time()

    async def publish(self, room: str, message: str) -> None:
        if room in self._subscribed:
            self._queue.put_nowait((room, message))

    async def subscribe(self, room: str) -> None:
        self._subscribed.add(room)

    async def unsubscribe(self, room: str) -> None:
        self._subscribed.discard(room)

    async def messages(self) -> AsyncIterator[tuple[str, str]]:
        while True:
            room, message = await self._queue.get()
            if room in self._subscribed:
                yield room, message

    async def list_add(self, key: str, member: str, expires_at: float) -> bool:
        listing = self._listings.setdefault(key, {})
        new = member not in listing
        listing[member] = expires_at
        return new

    async def list_remove(self, key: str, member: str) -> bool:
        return self._listings.get(key, {}).pop(member, None) is not None

    async def list_members(self, key: str, now: float, limit: int) -> list[str]:
        listing = self._listings.get(key, {})
        for member in [m for m, t in listing.items() if t <= now]:
            del listing[member]
        return sorted(listing, key=lambda m: -listing[m])[:limit]

    async def presence(
        self, room: str, now: float, *, here: Sequence[str] = (), gone: Sequence[str] = (), until: float = 0
    ) -> Roll:
        self._sweep()
        record = self._presence.get(room)
        if record is None or record.expiry <= time.monotonic():
            record = self._presence[room] = _Roll()
        before = {m.partition(" ")[0] for m in record.listed}
        changed = added = False
        for member in here:
            kind = record.counted if member.startswith(COUNTED) else record.listed
            new = kind.pop(member, None) is None
            changed |= new
            added |= new and kind is record.listed
            kind[member] = until  # last: each kind stays in the order of its members' times
        for member in gone:
            kind = record.counted if member.startswith(COUNTED) else record.listed
            changed |= kind.pop(member, None) is not None
        for kind in (record.listed, record.counted):
            while kind and next(iter(kind.values())) <= now:  # the earliest first: no full scan
                del kind[next(iter(kind))]
                changed = True
        after = {m.partition(" ")[0] for m in record.listed}
        record.gone_at.update((seat, now) for seat in before - after)
        for seat in after:
            record.gone_at.pop(seat, None)
        if changed:  # like Redis: from the clock the first time, one up after that
            record.version = record.version + 1 if record.version else int(time.time() * 1000)
        record.expiry = time.monotonic() + self.ttl
        gone_at = tuple(sorted(record.gone_at.items()))
        return Roll(record.version, sorted(record.listed), len(record.counted), changed, added, gone_at)

    def _board(self, group: str) -> tuple[float, list[str], dict[str, tuple[str, str]]] | None:
        board = self._boards.get(group)
        if board is not None and board[0] <= time.monotonic():
            del self._boards[group]
            return None
        return board

    async def spend(self, key: str, rate: float, burst: int, now: float) -> bool:
        self._sweep()
        tokens, at, _ = self._allowances.get(key, (burst, now, 0.0))
        tokens = min(burst, tokens + max(0.0, now - at) * rate)
        spent = tokens >= 1
        if spent:
            tokens -= 1
        self._allowances[key] = (tokens, now, time.monotonic() + (burst - tokens) / rate)
        return spent

    async def board_add(self, group: str, player: str, sort_key: str, data: str, ttl: int) -> bool:
        self._sweep()
        board = self._board(group)
        if board is not None and player in board[2]:
            return False
        _, order, entries = board or (0.0, [], {})
        member = f"{sort_key}|{player}"
        bisect.insort(order, member)
        entries[player] = (member, data)
        self._boards[group] = (time.monotonic() + ttl, order, entries)
        return True

    async def board_range(self, group: str, start: int, count: int) -> list[tuple[str, str]]:
        board = self._board(group)
        if board is None:
            return []
        _, order, entries = board
        players = [m.rpartition("|")[2] for m in order[start : start + count]]
        return [(p, entries[p][1]) for p in players]

    async def board_rank(self, group: str, player: str) -> tuple[int, str] | None:
        board = self._board(group)
        if board is None or player not in board[2]:
            return None
        member, data = board[2][player]
        return bisect.bisect_left(board[1], member), data

    async def record_put(self, rid: str, data: str, ttl: int, lists: Sequence[str] = ()) -> None:
        self._sweep()
        expiry = time.monotonic() + ttl
        self._records[rid] = (expiry, data)
        for key in lists:
            _, ids = self._live_list(key) or (0.0, deque(maxlen=LISTED))
            ids.appendleft(rid)
            self._record_lists[key] = (expiry, ids)

    async def record_get(self, rid: str) -> str | None:
        kept = self._records.get(rid)
        return kept[1] if kept is not None and kept[0] > time.monotonic() else None

    async def record_list(self, key: str, start: int, count: int) -> list[str]:
        listing = self._live_list(key)
        return [] if listing is None else list(listing[1])[start : start + count]

    async def analysis_put(self, rid: str, data: str, *, fresh: bool = False, ttl: int | None = None) -> bool:
        now = time.monotonic()
        record = self._records.get(rid)
        if record is None or record[0] <= now:
            return False
        kept = self._analyses.get(rid)
        if fresh and kept is not None and kept[0] > now:
            return False
        self._analyses[rid] = (record[0] if ttl is None else min(record[0], now + ttl), data)
        return True

    async def analysis_get(self, rid: str) -> str | None:
        kept = self._analyses.get(rid)
        return kept[1] if kept is not None and kept[0] > time.monotonic() else None

    def _live_list(self, key: str) -> tuple[float, deque[str]] | None:
        listing = self._record_lists.get(key)
        if listing is not None and listing[0] <= time.monotonic():
            del self._record_lists[key]
            return None
        return listing
