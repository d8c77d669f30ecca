"""Games put on the record when their race is over (see :mod:`race.record`)."""

from __future__ import annotations

import logging
from typing import Protocol

from race.engine import Game
from race.record import RecordError, check, encode, new_id
from race.rooms import Meta, Seat, acts_keys, record_of
from race.store import Documents, Records

log = logging.getLogger("race.service")


class RecordStore(Documents, Records, Protocol):
    """What putting games on the record works with."""


def room_listing(code: str) -> str:
    """The record listing of a room's games (every round, newest first)."""
    return f"room:{code}"


async def keep_records(store: RecordStore, code: str, meta: Meta, seats: list[tuple[Seat, Game]], ttl: int) -> None:
    """Put every seat's game of a race just over on the record for ``ttl`` seconds, listed
    under the room, each checked by replaying it: one that does not replay is not kept, and
    the error is logged."""
    for seat, game in seats:
        names = acts_keys(seat)
        docs = await store.read(code, names) if names else []
        try:
            rec = record_of(meta, seat, game, [d.data if d else None for d in docs], new_id())
            check(rec)
        except (ValueError, RecordError) as exc:
            log.error("room %s: %s's game is not kept on the record: %s", code, seat.seat, exc)
            continue
        await store.record_put(rec.id, encode(rec).decode(), ttl, [room_listing(code)])
