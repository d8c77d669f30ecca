"""The rooms as the actions see them (:class:`Rooms`): read, changed in the one optimistic
transaction every action is written in, created; and the events of what was done, handed on.

An action is a function of a loaded :class:`Room` (its documents, its meta decoded) and the
server's time that returns a :class:`Change`: the documents to write, the versions they must
still have, what to publish and log, the events it sets off (:mod:`race.rooms.events`), and
the value to hand back; or raises :class:`race.rooms.errors.Refused`. :meth:`Rooms.transact`
loads the room, runs the action, commits its change and hands its events to the router.
When another writer got there first it does it all again, on a fresh read, up to
:data:`RETRIES` times. The action decides every refusal on that fresh read, never on what an
earlier attempt saw.

>>> Change(write={"meta": "{}"}, expect={"meta": 3}).commits
True
>>> Change(value=False).commits
False

A player's move is the one action on the hot path, so it has its own transaction,
:meth:`Rooms.transact_seat`, on one seat (:class:`SeatRoom`: the meta and that seat, not the
whole room). A connection remembers what its last move committed (:class:`Memo`), and its
next move starts from that instead of a read: the commit checks the versions, and whatever
the action would refuse, or not commit, on a remembered room is decided again on a fresh read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from race.engine import Game
from race.rooms.errors import Refused
from race.rooms.events import Event, Events
from race.rooms.model import META, SEAT, Meta, Seat, history_keys, history_of, seat_key
from race.rooms.views import presence_view
from race.store import Broadcast, Doc, Documents, Presences
from race.wire.envelope import Envelope, encode

RETRIES = 20
T = TypeVar("T")
_enc = msgspec.json.Encoder()


def dump(obj: Any) -> str:
    """A document's text: ``obj`` as JSON."""
    return _enc.encode(obj).decode()


def conflict() -> Refused:
    return Refused("busy", "the room is changing too fast to apply this; try again")


def unknown_room(code: str) -> Refused:
    return Refused("unknown_room", f"there is no room {code} (it may have expired)", room=code)


def gone() -> Refused:
    return Refused("not_in_room", "you are no longer in this room (your seat was given up)")


@dataclass(frozen=True)
class Room:
    """A room as one read found it: every document but those kept aside, and its meta."""

    code: str
    docs: dict[str, Doc]
    meta: Meta

    @property
    def version(self) -> int:
        """The meta document's version."""
        return self.docs["meta"].version

    def seat(self, sid: str) -> Seat:
        return SEAT.decode(self.docs[seat_key(sid)].data)

    def doc(self, name: str) -> Doc | None:
        return self.docs.get(name)


@dataclass(frozen=True)
class Change(Generic[T]):
    """What an action does to a room: ``write`` (``""`` deletes a document) if every
    ``expect`` document still has that version (0: does not exist), with ``publish`` to the
    room and ``log`` appended, and its ``events`` handed on; then :meth:`Rooms.transact`
    returns ``value``. No ``write``: nothing is committed, and ``value`` is returned as it
    is."""

    write: dict[str, str] = field(default_factory=dict)
    expect: dict[str, int] = field(default_factory=dict)
    publish: Envelope | None = None
    log: tuple[str, str] | None = None
    value: T | None = None
    #: A seat action's game after the change: remembered for the connection's next move.
    game: Game | None = None
    #: What it sets off, handed to the router once it is committed (or found needing no
    #: commit: a retry of what was committed before sets off the same again).
    events: tuple[Event, ...] = ()

    @property
    def commits(self) -> bool:
        return bool(self.write)


@dataclass(slots=True)
class SeatRoom:
    """One seat of a room as a read found it, or as the connection's last move left it:
    the meta and seat documents decoded, and the seat's game (with its whole history once
    the action asked for it by raising :class:`NeedHistory`)."""

    code: str
    sid: str
    meta_doc: Doc
    seat_doc: Doc
    meta: Meta
    seat: Seat
    game: Game
    remembered: bool = False

    @property
    def key(self) -> str:
        return seat_key(self.sid)

    @property
    def version(self) -> int:
        """The seat document's version: the player's state version."""
        return self.seat_doc.version


class NeedHistory(Exception):
    """Raised by a seat action, before it has changed anything, for the seat's game with its
    whole history (to undo, or to save the history document of a move)."""


class Memo:
    """What a connection's last move committed, for its next move to start from (used once)."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: SeatRoom | None = None

    def forget(self) -> None:
        self.last = None


#: The seats with a connection open, and since when (server ms) each seat that went is away.
Here = tuple[set[str], dict[str, int]]


class RoomsStore(Documents, Broadcast, Presences, Protocol):
    """What :class:`Rooms` works with."""


class Rooms:
    """The rooms in ``store``, read and changed for the actions; the events of their
    changes handed to ``events``."""

    def __init__(self, store: RoomsStore, events: Events) -> None:
        self.store, self.events = store, events

    async def load(self, code: str, names: Sequence[str] | None = None) -> Room | None:
        """Room ``code`` as it is now, or None when there is none (or it expired); with
        ``names``, only those documents (and ``meta``), where they exist."""
        if names is None:
            docs = await self.store.read_all(code)
        else:
            wanted = ["meta", *(n for n in names if n != "meta")]
            read = await self.store.read(code, wanted)
            docs = {n: d for n, d in zip(wanted, read, strict=True) if d is not None}
        if "meta" not in docs:
            return None
        return Room(code, docs, META.decode(docs["meta"].data))

    async def read(self, code: str) -> dict[str, Doc]:
        """Every document of room ``code`` but those kept aside; ``unknown_room`` if there
        is none."""
        docs = await self.store.read_all(code)
        if "meta" not in docs:
            raise unknown_room(code)
        return docs

    async def transact(
        self,
        code: str,
        action: Callable[[Room], Change[T]],
        *,
        names: Sequence[str] | None = None,
        missing_ok: bool = False,
    ) -> T | None:
        """Run ``action`` on room ``code`` and commit its change, again on a fresh read each
        time another writer came first; hand on its events; return its value. ``names``:
        read only those documents (see :meth:`load`), not the whole room. A room that does
        not exist: None with ``missing_ok``, else an ``unknown_room`` refusal. Refused as
        ``busy`` after :data:`RETRIES` lost races."""
        for _ in range(RETRIES):
            room = await self.load(code, names)
            if room is None:
                if not missing_ok:
                    raise unknown_room(code)
                return None
            change = action(room)
            if change.commits:
                publish = encode(change.publish) if change.publish is not None else None
                write, log = change.write, change.log
                if not await self.store.commit(code, expect=change.expect, write=write, log=log, publish=publish):
                    continue
            await self.events.emit(*change.events)
            return change.value
        raise conflict()

    async def create(self, make: Callable[[], tuple[Meta, dict[str, str]]]) -> tuple[Meta, dict[str, str]]:
        """Commit a new room: ``make`` gives its meta, under a fresh code, and the documents
        to write (``meta`` among them); on a code already taken, again with another. The
        meta and the documents written."""
        for _ in range(RETRIES):
            meta, write = make()
            if await self.store.commit(meta.code, expect={"meta": 0}, write=write):
                return meta, write
        raise conflict()

    async def load_seat(self, code: str, sid: str) -> SeatRoom:
        """Seat ``sid`` of room ``code`` as it is now; ``unknown_room`` or ``not_in_room``
        when there is no such room, or no such seat in it."""
        meta_doc, seat_doc = await self.store.read(code, ["meta", seat_key(sid)])
        if meta_doc is None:
            raise unknown_room(code)
        meta = META.decode(meta_doc.data)
        if seat_doc is None or sid not in meta.seats:
            raise gone()
        seat = SEAT.decode(seat_doc.data)
        return SeatRoom(code, sid, meta_doc, seat_doc, meta, seat, Game.from_trusted_dict(seat.game))

    async def transact_seat(self, code: str, sid: str, action: Callable[[SeatRoom], Change[T]], memo: Memo) -> T | None:
        """Run ``action`` on seat ``sid`` of room ``code`` and commit its change, as
        :meth:`transact` does; starting from what ``memo`` remembers of the connection's
        last move when it is of this seat, and remembering what this change commits."""
        room, memo.last = memo.last, None
        for _ in range(RETRIES):
            if room is None or room.code != code or room.sid != sid:
                room = await self.load_seat(code, sid)
            try:
                try:
                    change = action(room)
                except NeedHistory:
                    room.game = await self._with_history(room)
                    change = action(room)
            except Refused:
                if room.remembered:
                    room = None  # refusals are decided on a fresh read, never on a memory
                    continue
                raise
            if not change.commits:
                if room.remembered:
                    room = None
                    continue
                if change.events:
                    await self.events.emit(*change.events)
                return change.value
            publish = encode(change.publish) if change.publish is not None else None
            if await self.store.commit(code, expect=change.expect, write=change.write, log=change.log, publish=publish):
                meta = change.write.get("meta")
                meta_doc = room.meta_doc if meta is None else Doc(room.meta_doc.version + 1, meta)
                seat_doc = Doc(room.version + 1, change.write[room.key])
                game = change.game if change.game is not None else room.game
                memo.last = SeatRoom(code, sid, meta_doc, seat_doc, room.meta, room.seat, game, remembered=True)
                if change.events:
                    await self.events.emit(*change.events)
                return change.value
            room = None
        raise conflict()

    async def publish(self, code: str, envelope: Envelope) -> None:
        """Publish ``envelope`` to room ``code``'s connections, in every process."""
        await self.store.publish(code, encode(envelope))

    async def emit(self, *events: Event) -> None:
        """Hand on ``events`` of what an action did without a change to commit (a room
        looked at, its timers asked for again)."""
        await self.events.emit(*events)

    async def here(self, code: str, now: int) -> Here | None:
        """Who of ``code``'s players has a connection open at server time ``now``, and since
        when each one that went is away, as the pages are told; ``None`` while nobody's
        presence is known."""
        roll = await self.store.presence(code, now / 1000)
        if not roll.version:
            return None
        view = presence_view(roll.version, roll.listed, roll.counted, roll.gone_at)
        return set(view["here"]), view["away_since"]

    async def _with_history(self, room: SeatRoom) -> Game:
        """The room's game with its whole history. Read after the seat: if the history has
        moved on since, so has the seat, and the commit's version check refuses the move."""
        docs = await self.store.read(room.code, history_keys(room.seat))
        history = history_of(room.seat, [doc.data if doc is not None else None for doc in docs])
        return Game.from_trusted_dict({**room.seat.game, "history": history})
