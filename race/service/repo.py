"""Reading a room and changing it: the one optimistic transaction every action is written in.

An action is a function of a loaded :class:`Room` (its documents, its meta decoded) and the
server's time that returns a :class:`Change`, the documents to write, the versions they must
still have, what to publish and log, and the value to hand back, or raises a
``ProtocolError``. :func:`transact` loads the room, runs the action and commits its change.
When another writer got there first it does it all again, on a fresh read, up to
:data:`RETRIES` times. The action decides every refusal on that fresh read, never on what an
earlier attempt saw.

>>> Change(write={"meta": "{}"}, expect={"meta": 3}).commits
True
>>> Change(value=False).commits
False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from race.envelope import Envelope, encode
from race.protocol import ProtocolError
from race.rooms import Meta, Seat, seat_key
from race.store import Doc, Documents
from race.views import META, SEAT

RETRIES = 20
T = TypeVar("T")


def conflict() -> ProtocolError:
    return ProtocolError("busy", "the room is changing too fast to apply this; try again")


def unknown_room(code: str) -> ProtocolError:
    return ProtocolError("unknown_room", f"there is no room {code} (it may have expired)")


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
    room and ``log`` appended; then :func:`transact` returns ``value``. No ``write``: nothing
    is committed, and ``value`` is returned as it is."""

    write: dict[str, str] = field(default_factory=dict)
    expect: dict[str, int] = field(default_factory=dict)
    publish: Envelope | None = None
    log: tuple[str, str] | None = None
    value: T | None = None

    @property
    def commits(self) -> bool:
        return bool(self.write)


async def load(store: Documents, code: str, names: Sequence[str] | None = None) -> Room | None:
    """Room ``code`` as it is now, or None when there is none (or it expired); with
    ``names``, only those documents (and ``meta``), where they exist."""
    if names is None:
        docs = await store.read_all(code)
    else:
        wanted = ["meta", *(n for n in names if n != "meta")]
        docs = {n: d for n, d in zip(wanted, await store.read(code, wanted), strict=True) if d is not None}
    if "meta" not in docs:
        return None
    return Room(code, docs, META.decode(docs["meta"].data))


async def transact(
    store: Documents,
    code: str,
    action: Callable[[Room], Change[T]],
    *,
    names: Sequence[str] | None = None,
    missing_ok: bool = False,
) -> T | None:
    """Run ``action`` on room ``code`` and commit its change, again on a fresh read each time
    another writer came first; the change's value. ``names``: read only those documents
    (see :func:`load`), not the whole room. A room that does not exist: None with
    ``missing_ok``, else an ``unknown_room`` error. Raises ``busy`` after :data:`RETRIES`
    lost races."""
    for _ in range(RETRIES):
        room = await load(store, code, names)
        if room is None:
            if not missing_ok:
                raise unknown_room(code)
            return None
        change = action(room)
        if not change.commits:
            return change.value
        publish = encode(change.publish) if change.publish is not None else None
        if await store.commit(code, expect=change.expect, write=change.write, log=change.log, publish=publish):
            return change.value
    raise conflict()
