"""The store interface: versioned documents per room, an event log, and room broadcasts.

A room is a set of named documents (``meta``, one per seat, token look-ups), each a JSON
text with a version that starts at 1 and grows by one per write. :meth:`Store.commit` is the
only way to write: it checks the expected versions of some documents, writes some, appends
an entry to a document's log and publishes a message on the room's channel, all at once or
not at all. Documents whose names start with :data:`ASIDE` are kept aside: read by name and
written like any other, but left out of :meth:`Store.read_all`. Three backends keep exactly
these semantics: :mod:`race.store.sqlite` (one process, on disk: the server's default),
:mod:`race.store.memory` (one process, until it stops) and :mod:`race.store.redis` (any
number of processes on one Redis or Redis Cluster). The ratings among friends are such
documents too, under the one name ``ratings`` (:mod:`race.service.ratings`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import msgspec

from race.wire import envelope

LOG_LENGTH = 200
#: Names of the documents kept aside (the rooms' undo histories, see :mod:`race.rooms.model`): bulky
#: documents a room's views never need, so that reading a room costs the same however long
#: its games have run.
ASIDE = "h:"
#: What :meth:`Store.messages` yields for a room some of whose messages may have been lost
#: (e.g. its channel moved to another Redis Cluster master): its clients must resync. It is
#: the ``resync`` envelope (:mod:`race.wire.envelope`) that the hub reads.
RESYNC = envelope.RESYNC


#: The ids a record listing keeps (its newest), see :meth:`Records.record_put`.
LISTED = 1000

#: Presence members named with this prefix are counted, not listed (see :meth:`Store.presence`).
COUNTED = "~ "


class Roll(NamedTuple):
    """A room's presence: its version, which grows with every change, so that of two lists
    the later is known whichever arrives first (it starts from the clock in milliseconds,
    so it goes on growing even if the store lost the record, as long as there were fewer
    changes than milliseconds); the members listed (sorted);
    how many counted; whether the call that returned it changed it; whether that call added
    a member listed (one not there before: a player arrived or came back); and, for each
    seat whose last listed member went (its first word: ``"s1 CONN"`` is seat ``s1``), when
    that was noticed (the ``now`` of that call), while the seat has none."""

    version: int
    listed: list[str]
    counted: int
    changed: bool
    added: bool = False
    gone_at: tuple[tuple[str, float], ...] = ()


class Kept(msgspec.Struct, frozen=True, tag_field="kind"):
    """One thing a store keeps, as :meth:`Store.dump` hands it out (and ``python -m race
    export`` writes it, a JSON object a line): expiries are Unix times."""


class KeptRoom(Kept, frozen=True, tag="room"):
    """A room's documents: ``[name, version, data]`` each, those kept aside among them."""

    room: str
    expires_at: float
    docs: list[tuple[str, int, str]]


class KeptBoard(Kept, frozen=True, tag="board"):
    """A leaderboard's entries in rank order: ``[player, sort_key, data]`` each."""

    group: str
    expires_at: float
    entries: list[tuple[str, str, str]]


class KeptRecord(Kept, frozen=True, tag="record"):
    """A game on the record, and the listings it is in (a store hands records out in the
    order they were put, so that putting them again in that order lists them as before)."""

    rid: str
    expires_at: float
    data: str
    lists: list[str]


class KeptAnalysis(Kept, frozen=True, tag="analysis"):
    """A record's analysis (:meth:`Records.analysis_put`), handed out after the records (an
    analysis is kept only with its record)."""

    rid: str
    expires_at: float
    data: str


class KeptListing(Kept, frozen=True, tag="listing"):
    """A listing's members, each with the time it is listed until."""

    key: str
    members: list[tuple[str, float]]


class StoreUnavailable(Exception):
    """The backing store cannot be reached; the operation did nothing (or is unknown)."""


@dataclass(frozen=True, slots=True)
class Doc:
    """A document's JSON text and its version (1 after the first write)."""

    version: int
    data: str


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One entry of a document's log: the document version it produced, and the event."""

    version: int
    data: str


class Documents(Protocol):
    """A room's versioned documents and their logs: read, and written only by :meth:`commit`."""

    ttl: int  #: seconds a room is kept after its last commit

    async def read(self, room: str, names: Sequence[str]) -> list[Doc | None]:
        """The named documents of ``room`` (``None`` where one does not exist)."""

    async def read_all(self, room: str) -> dict[str, Doc]:
        """Every document of ``room`` but those kept aside (named :data:`ASIDE`...); empty
        when the room does not exist (or expired)."""

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
        """Atomically: if every ``expect`` document has that version (0: does not exist),
        write each ``write`` document (bumping its version; writing ``""`` deletes it, and
        its version is 0 again), append ``log[1]`` to the log of
        document ``log[0]`` (tagged with its new version; the log keeps the last
        :data:`LOG_LENGTH` entries), publish ``publish`` on the room's channel, and refresh
        the room's expiry (``ttl`` seconds, the store's default when ``None``). Return
        False, changing nothing, when a version differs."""

    async def log_since(self, room: str, name: str, version: int) -> list[LogEntry] | None:
        """Log entries of document ``name`` after ``version``, oldest first; ``None`` when
        some of them are no longer kept (the caller should send a full state instead)."""

    async def rooms(self, having: str) -> list[str]:
        """The rooms kept that hold a document ``having`` (at start-up, to find the rooms
        whose deadlines are to come); empty from a store that cannot list its rooms."""


class Broadcast(Protocol):
    """The rooms' channels, across every process."""

    async def publish(self, room: str, message: str) -> None:
        """Send ``message`` to every subscriber of ``room``, in any process."""

    async def subscribe(self, room: str) -> None:
        """Start receiving ``room``'s messages through :meth:`messages`."""

    async def unsubscribe(self, room: str) -> None:
        """Stop receiving ``room``'s messages."""

    def messages(self) -> AsyncIterator[tuple[str, str]]:
        """``(room, message)`` for every message on a subscribed room, in order, forever;
        ``(room, RESYNC)`` when some of a room's messages may have been lost, and
        ``("*", "reconnected")`` when any room's may have been (after an outage)."""


class Listings(Protocol):
    """Members listed until a time (the live rooms)."""

    async def list_add(self, key: str, member: str, expires_at: float) -> bool:
        """Put ``member`` in the listing ``key`` until ``expires_at`` (a Unix time); True if
        it was not in it."""

    async def list_remove(self, key: str, member: str) -> bool:
        """Take ``member`` out of the listing ``key``; True if it was in it."""

    async def list_members(self, key: str, now: float, limit: int) -> list[str]:
        """Members of listing ``key`` not expired at ``now``, latest expiry first."""


class Presences(Protocol):
    """Who is connected to each room."""

    async def presence(
        self, room: str, now: float, *, here: Sequence[str] = (), gone: Sequence[str] = (), until: float = 0
    ) -> Roll:
        """Who is connected to ``room``: mark the members ``here`` present until ``until``
        (a Unix time), take the members ``gone`` out, and drop those whose time ran out by
        ``now``, all at once. Members whose names start with :data:`COUNTED` (spectators,
        who may be thousands) are counted rather than listed. The record expires with the
        room."""


class Allowances(Protocol):
    """Token buckets shared by every process."""

    async def spend(self, key: str, rate: float, burst: int, now: float) -> bool:
        """Take one from the allowance ``key`` (a token bucket: it starts with ``burst``
        and refills at ``rate`` a second, up to ``burst``) at ``now`` (a Unix time): True if
        there was one, False (taking nothing) if not. Every process on the store shares it;
        an allowance that has refilled is forgotten."""


class Leaderboards(Protocol):
    """The daily challenge's boards."""

    async def board_add(self, group: str, player: str, sort_key: str, data: str, ttl: int) -> bool:
        """Put ``player`` on the leaderboard of ``group`` unless already there (then change
        nothing and return False). Entries order by ``sort_key`` (compared as text), then by
        player; the board expires ``ttl`` seconds after its latest entry."""

    async def board_range(self, group: str, start: int, count: int) -> list[tuple[str, str]]:
        """``(player, data)`` for the entries ranked ``start`` (0 is first) onwards."""

    async def board_rank(self, group: str, player: str) -> tuple[int, str] | None:
        """``(rank, data)`` of ``player`` (rank 0 is first), or ``None`` if not on the board."""


class Records(Protocol):
    """Games on the record (:mod:`race.rooms.record`), each kept by its id for a time and listed
    under keys (a room's rounds, a player's games, a day's best)."""

    async def record_put(self, rid: str, data: str, ttl: int, lists: Sequence[str] = ()) -> None:
        """Keep ``data`` as record ``rid`` for ``ttl`` seconds, and put ``rid`` first in each
        listing named in ``lists``; a listing keeps its newest :data:`LISTED` ids and
        expires ``ttl`` seconds after its latest. Not atomic across listings: a record may
        be kept and not yet listed, never listed and not kept."""

    async def record_get(self, rid: str) -> str | None:
        """Record ``rid``'s data, or ``None`` (never kept, or expired)."""

    async def record_list(self, key: str, start: int, count: int) -> list[str]:
        """Ids in listing ``key``, newest first, from ``start`` (0 is the newest); some may
        name records that have since expired."""

    async def analysis_put(self, rid: str, data: str, *, fresh: bool = False, ttl: int | None = None) -> bool:
        """Keep ``data`` as record ``rid``'s analysis (:mod:`race.service.analyses`) as long as
        the record is kept, or ``ttl`` seconds if that is sooner; with ``fresh``, only if it has
        none. Whether it was written: never for a record not kept."""

    async def analysis_get(self, rid: str) -> str | None:
        """Record ``rid``'s analysis, or ``None`` (none kept, or expired)."""


class Store(ABC):
    """Every concern at once: what a backend implements (each consumer names only the
    protocols above that it uses). Every method may raise :class:`StoreUnavailable`."""

    def __init__(self, *, ttl: int) -> None:
        self.ttl = ttl

    async def connect(self) -> None:  # noqa: B027 - optional hook
        """Open connections; called once at start-up."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections; called once at shut-down."""

    @abstractmethod
    async def ping(self) -> None:
        """Return when the store answers, raise :class:`StoreUnavailable` otherwise."""

    async def health(self) -> dict[str, object]:
        """What a health check answers: ``{"status": "ok"}``; or ``{"status": "degraded",
        ...}``, saying what, when part of the store cannot be reached (a Redis Cluster shard:
        its rooms are unavailable, the others are not); raises :class:`StoreUnavailable` when
        none of it can be."""
        await self.ping()
        return {"status": "ok"}

    @abstractmethod
    async def read(self, room: str, names: Sequence[str]) -> list[Doc | None]: ...

    @abstractmethod
    async def read_all(self, room: str) -> dict[str, Doc]: ...

    @abstractmethod
    async def commit(
        self,
        room: str,
        *,
        expect: Mapping[str, int],
        write: Mapping[str, str],
        log: tuple[str, str] | None = None,
        publish: str | None = None,
        ttl: int | None = None,
    ) -> bool: ...

    @abstractmethod
    async def log_since(self, room: str, name: str, version: int) -> list[LogEntry] | None: ...

    async def rooms(self, having: str) -> list[str]:
        return []  # Redis: its rooms are not listed (their deadlines are followed as players come back)

    def dump(self) -> AsyncIterator[Kept]:
        """Everything kept that outlives a process (rooms, leaderboards, the record and its
        analyses, listings; not presence, nor allowances, nor logs), for ``python -m race
        export``."""
        raise NotImplementedError(f"{type(self).__name__} cannot be exported")

    async def restore_room(self, kept: KeptRoom) -> None:
        """Put a room back as :meth:`dump` gave it, its documents with their versions
        (replacing a room of that code), for ``python -m race import``; its logs start empty."""
        raise NotImplementedError(f"{type(self).__name__} cannot import rooms")

    @abstractmethod
    async def publish(self, room: str, message: str) -> None: ...

    @abstractmethod
    async def subscribe(self, room: str) -> None: ...

    @abstractmethod
    async def unsubscribe(self, room: str) -> None: ...

    @abstractmethod
    def messages(self) -> AsyncIterator[tuple[str, str]]: ...

    @abstractmethod
    async def list_add(self, key: str, member: str, expires_at: float) -> bool: ...

    @abstractmethod
    async def list_remove(self, key: str, member: str) -> bool: ...

    @abstractmethod
    async def list_members(self, key: str, now: float, limit: int) -> list[str]: ...

    @abstractmethod
    async def presence(
        self, room: str, now: float, *, here: Sequence[str] = (), gone: Sequence[str] = (), until: float = 0
    ) -> Roll: ...

    @abstractmethod
    async def spend(self, key: str, rate: float, burst: int, now: float) -> bool: ...

    @abstractmethod
    async def board_add(self, group: str, player: str, sort_key: str, data: str, ttl: int) -> bool: ...

    @abstractmethod
    async def board_range(self, group: str, start: int, count: int) -> list[tuple[str, str]]: ...

    @abstractmethod
    async def board_rank(self, group: str, player: str) -> tuple[int, str] | None: ...

    @abstractmethod
    async def record_put(self, rid: str, data: str, ttl: int, lists: Sequence[str] = ()) -> None: ...

    @abstractmethod
    async def record_get(self, rid: str) -> str | None: ...

    @abstractmethod
    async def record_list(self, key: str, start: int, count: int) -> list[str]: ...

    @abstractmethod
    async def analysis_put(self, rid: str, data: str, *, fresh: bool = False, ttl: int | None = None) -> bool: ...

    @abstractmethod
    async def analysis_get(self, rid: str) -> str | None: ...


class RoomStore(Documents, Broadcast, Presences, Listings, Allowances, Records, Leaderboards, Protocol):
    """What the room service works with (the daily boards only to look a player up on one)."""


class PresenceStore(Presences, Broadcast, Protocol):
    """What :mod:`race.live.presence` works with."""


class DailyStore(Documents, Broadcast, Leaderboards, Allowances, Protocol):
    """What the daily challenge works with."""
