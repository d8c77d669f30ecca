"""Games put on the record when their race is over (:class:`Recording`, see
:mod:`race.rooms.record`), and the solver's line of a race's deal looked for."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

import msgspec

from race.engine import Game
from race.rooms.events import RaceOver
from race.rooms.hints import penalty_ms
from race.rooms.model import Kind, Meta, Seat, acts_keys, record_of
from race.rooms.record import Record, RecordError, check, encode, new_id
from race.rooms.standing import ranking
from race.service.analyses import Analyses
from race.service.ratings import Ratings
from race.service.series_record import keep_series
from race.service.solver_lines import SolverLines
from race.store import Documents, Records

log = logging.getLogger("race.service")


class RecordStore(Documents, Records, Protocol):
    """What putting games on the record works with."""


def room_listing(code: str) -> str:
    """The record listing of a room's games (every round, newest first)."""
    return f"room:{code}"


def device_listing(device: str) -> str:
    """The record listing of the games played from a device (:func:`race.rooms.model.device_id`)."""
    return f"me:{device}"


async def keep_records(
    store: RecordStore,
    code: str,
    meta: Meta,
    seats: list[tuple[Seat, Game]],
    ttl: int,
    ghosts: Sequence[dict[str, Any]] = (),
) -> list[Record]:
    """Put every seat's game of a race just over on the record for ``ttl`` seconds, with its
    place in the race, listed under the room and its player's device, each checked by
    replaying it: one that does not replay is not kept, and the error is logged. The place
    and the field are the ranking's, ``ghosts`` (:func:`race.rooms.ghosts.ghost_results`)
    counted; the players beaten and finished behind are the live ones only (a ghost is a
    game, not a rival raced). Returns the games kept."""
    kept: list[Record] = []
    rows = ranking(seats, ghosts, hint_penalty_ms=penalty_ms(meta))
    field = len(rows)
    places = {row["seat"]: row["place"] for row in rows if not row.get("ghost")}
    names = {s.seat: s.name for s, _ in seats}
    for seat, game in seats:
        chunks = acts_keys(seat)
        docs = await store.read(code, chunks) if chunks else []
        try:
            rec = record_of(meta, seat, game, [d.data if d else None for d in docs], new_id())
            check(rec)
        except (ValueError, RecordError) as exc:
            log.error("room %s: %s's game is not kept on the record: %s", code, seat.seat, exc)
            continue
        mine = places[seat.seat]
        rec = msgspec.structs.replace(
            rec,
            place=mine,
            field=field,
            beat=tuple(names[s] for s, at in places.items() if at > mine),
            behind=tuple(names[s] for s, at in places.items() if at < mine),
        )
        lists = [room_listing(code)] + ([device_listing(seat.device)] if seat.device else [])
        await store.record_put(rec.id, encode(rec).decode(), ttl, lists)
        kept.append(rec)
    return kept


class Recording:
    """A race over put on the record: every game of it kept for ``ttl`` seconds (a daily
    attempt's for ``daily_ttl``, as long as its day's leaderboard), a tutorial's never, a
    practice's as ``practice`` (listed with its player's games; never rated nor analysed);
    a race rated from its games once they are kept (``ratings``); and the solver's line of a
    race's deal looked for, off the request path."""

    def __init__(
        self,
        store: RecordStore,
        solver_lines: SolverLines | None,
        *,
        ttl: int,
        daily_ttl: int,
        ratings: Ratings | None = None,
        analyses: Analyses | None = None,
    ) -> None:
        self.store, self.solver_lines, self.ratings = store, solver_lines, ratings
        self.analyses = analyses
        self.ttl, self.daily_ttl = ttl, daily_ttl

    async def keep(self, event: RaceOver) -> None:
        meta = event.meta
        if meta.kind is Kind.TUTORIAL:
            return  # a lesson, not a game: never on the record
        ttl = self.daily_ttl if meta.kind is Kind.DAILY else self.ttl
        kept = await keep_records(self.store, event.room, meta, event.seats, ttl, event.ghosts)
        await keep_series(self.store, event.room, meta, event.seats, ttl)  # (a match or arena it ends)
        if self.ratings is not None and meta.kind is Kind.RACE:
            await self.ratings.rate(kept)
        if self.solver_lines is not None and meta.kind is Kind.RACE:
            self.solver_lines.look_for(meta.deal, meta.difficulty)
        if self.analyses is not None:
            for record in kept:
                self.analyses.look_at(record)
