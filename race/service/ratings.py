"""Ratings among friends, kept (:class:`Ratings`): each race that counts rated once, when its
games are put on the record (:mod:`race.service.recording`), off the move path; read for the
lobby, the race's ranking, ``/me`` and the friends' board; and recomputed from scratch.

The ratings are documents of the store (:class:`race.store.Documents`) under one name,
:data:`ROOM`: ``d:DEVICE``, a device's :class:`race.rooms.ratings.Standing`, and ``x:RACE``,
each rated race (:class:`race.rooms.ratings.RatedRace`, its players and places as its games on
the record gave them, and what it did to each rating). A race is rated in one commit that
writes its ``x:`` document and its players' standings, expecting the versions it read and
no ``x:`` document yet: a race comes to be rated again when its end is committed again (a
retry), and then finds itself rated; two races that end at once and share a player are rated
one after the other. The ``x:`` documents are the ledger that :meth:`Ratings.recompute`
starts from, with the games still on the record where the store can list them: games are
kept for weeks, ratings for good (:data:`KEEP_DAYS` after the last rated race).
On Redis Cluster these documents share one hash slot, as a room's do: a race's rating is one
commit a few milliseconds long, once a race.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence

import msgspec

from race.rooms.ratings import RATED, STANDING, RatedRace, Standing, apply, encode, order, rated_race
from race.rooms.record import Record, RecordError
from race.rooms.record import decode as decode_record
from race.store import Documents, KeptRecord, Store

log = logging.getLogger("race.service")

ROOM = "ratings"  #: the documents' name in the store (never a room's code, which is upper case)
KEEP_DAYS = 400  #: how long the ratings are kept after the last rated race
RETRIES = 20
BATCH = 200  #: documents a commit of a recompute writes


def standing_key(device: str) -> str:
    return f"d:{device}"


def rated_key(key: str) -> str:
    return f"x:{key}"


class Ratings:
    """The ratings in ``store`` (under the name ``room``)."""

    def __init__(self, store: Documents, *, keep_days: int = KEEP_DAYS, room: str = ROOM) -> None:
        self.store, self.ttl, self.room = store, keep_days * 86400, room

    async def rate(self, records: Sequence[Record]) -> RatedRace | None:
        """Rate the race whose games on the record are ``records``, once, if it counts;
        return it as rated (``None`` for a race that does not count)."""
        race = rated_race(records)
        if race is None:
            return None
        devices = [e.device for e in race.entrants]
        names = [rated_key(race.key), *map(standing_key, devices)]
        for _ in range(RETRIES):
            docs = await self.store.read(self.room, names)
            if docs[0] is not None:
                return RATED.decode(docs[0].data)  # rated already: a retried end
            found = zip(devices, docs[1:], strict=True)
            standings = {d: STANDING.decode(doc.data) if doc else None for d, doc in found}
            after, outcome = apply(standings, race)
            rated = msgspec.structs.replace(race, outcome=outcome)
            write = {names[0]: encode(rated), **{standing_key(d): encode(s) for d, s in after.items()}}
            expect = {n: doc.version if doc else 0 for n, doc in zip(names, docs, strict=True)}
            if await self.store.commit(self.room, expect=expect, write=write, ttl=self.ttl):
                return rated
        log.error("race %s: not rated, its players' ratings changed %d times while it was", race.key, RETRIES)
        return None

    async def standings(self, devices: Sequence[str]) -> list[Standing | None]:
        """The standings of ``devices`` (``None``: never rated)."""
        if not devices:
            return []
        docs = await self.store.read(self.room, [standing_key(d) for d in devices])
        return [STANDING.decode(doc.data) if doc else None for doc in docs]

    async def rated(self, key: str) -> RatedRace | None:
        """The race named ``key`` (:func:`race.rooms.ratings.race_key`) as rated, if it was."""
        (doc,) = await self.store.read(self.room, [rated_key(key)])
        return RATED.decode(doc.data) if doc else None

    async def recompute(self, extra: Iterable[Record] = ()) -> tuple[int, int]:
        """Every rating again from scratch: the races rated so far (the ledger) and those the
        games ``extra`` make (the games on the record the store can list; where a race is in
        both, its games decide), rated in order of their start. Returns how many races and
        devices were rated. Raises ``RuntimeError`` when a race was rated meanwhile (run it
        with the server stopped)."""
        docs = await self.store.read_all(self.room)
        races = {r.key: r for name, doc in docs.items() if name.startswith("x:") for r in [RATED.decode(doc.data)]}
        games: dict[tuple[str, int, int], list[Record]] = defaultdict(list)
        for record in extra:
            games[(record.room, record.round, record.started)].append(record)
        for race in filter(None, map(rated_race, games.values())):
            races[race.key] = race
        standings: dict[str, Standing] = {}
        rated: dict[str, str] = {}
        for race in sorted(races.values(), key=order):
            after, outcome = apply(standings, race)
            standings.update(after)
            rated[rated_key(race.key)] = encode(msgspec.structs.replace(race, outcome=outcome))
        write = {**rated, **{standing_key(d): encode(s) for d, s in standings.items()}}
        write.update({name: "" for name in docs if name not in write})  # a standing no race makes any more
        expect = {name: doc.version for name, doc in docs.items()}
        names = list(write)
        for start in range(0, len(names), BATCH):
            part = {n: write[n] for n in names[start : start + BATCH]}
            # The first commit checks that nothing was rated since the read; the rest follow it.
            check = expect if start == 0 else {n: expect.get(n, 0) for n in part}
            if not await self.store.commit(self.room, expect=check, write=part, ttl=self.ttl):
                raise RuntimeError("a race was rated during the recompute: stop the server and run it again")
        return len(races), len(standings)


async def games_on_record(store: Store) -> list[Record]:
    """The games on the record that ``store`` can list (those of races: see
    :meth:`race.store.Store.dump`); none from a store that cannot list them."""
    out: list[Record] = []
    try:
        async for kept in store.dump():
            if isinstance(kept, KeptRecord):
                try:
                    record = decode_record(kept.data)
                except RecordError:
                    continue
                if record.kind == "race":
                    out.append(record)
    except NotImplementedError:
        return []
    return out
