"""Storage and broadcast behind one interface, chosen by URL.

``sqlite:///path/to/race.db`` is the durable embedded store (one process per file);
``memory://`` keeps everything in the process, until it stops; ``redis://host:port/db`` (or
``rediss://``) is Redis; ``redis+cluster://host:port`` is Redis Cluster;
``redis+sentinel://host:port/SERVICE`` is the primary that Redis Sentinel names. Redis is
imported only when used.
"""

from __future__ import annotations

from .base import (
    COUNTED,
    RESYNC,
    Allowances,
    Broadcast,
    DailyStore,
    Doc,
    Documents,
    Kept,
    KeptAnalysis,
    KeptBoard,
    KeptListing,
    KeptRecord,
    KeptRoom,
    Leaderboards,
    Listings,
    LogEntry,
    Presences,
    PresenceStore,
    Records,
    Roll,
    RoomStore,
    Store,
    StoreUnavailable,
)


def open_store(url: str, *, ttl: int) -> Store:
    """A store for ``url`` (not yet connected: call ``await store.connect()``)."""
    if url.startswith("sqlite:"):
        from .sqlite import SqliteStore

        return SqliteStore.from_url(url, ttl=ttl)
    if url.startswith("memory://"):
        from .memory import MemoryStore

        return MemoryStore(ttl=ttl)
    if url.startswith(("redis://", "rediss://", "unix://", "redis+cluster://", "redis+sentinel://")):
        from .redis import RedisStore

        return RedisStore(url, ttl=ttl)
    raise ValueError(
        f"unknown store URL {url!r}: use sqlite:///path, memory://, redis://..., redis+cluster://... "
        "or redis+sentinel://..."
    )


__all__ = [
    "COUNTED",
    "RESYNC",
    "Allowances",
    "Broadcast",
    "DailyStore",
    "Doc",
    "Documents",
    "Kept",
    "KeptAnalysis",
    "KeptBoard",
    "KeptListing",
    "KeptRecord",
    "KeptRoom",
    "Leaderboards",
    "Listings",
    "LogEntry",
    "PresenceStore",
    "Presences",
    "Records",
    "Roll",
    "RoomStore",
    "Store",
    "StoreUnavailable",
    "open_store",
]
