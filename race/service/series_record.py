"""Matches and arenas over, put on the record (:func:`keep_series`) and read back for a
device (:func:`series_of_device`): a :class:`race.rooms.series.SeriesResult` kept with the
games (:class:`race.store.Records`), listed under each of its players' devices."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import msgspec

from race.engine import Game
from race.rooms.model import Kind, Meta, Seat
from race.rooms.series import SERIES_RESULT, result_view, round_over, series_result
from race.rooms.standing import ranking
from race.store import Records

log = logging.getLogger("race.service")
MY_SERIES = 20  #: the matches and arenas ``/api/me`` lists, newest first


def series_listing(device: str) -> str:
    """The record listing of the matches and arenas a device played in."""
    return f"series:{device}"


def series_id(code: str, round_no: int) -> str:
    """The record id of the series that room ``code``'s round ``round_no`` completed: the
    same for a race over told twice (its end committed again), so kept once. Not a game's id
    (those are 12 characters), so no game's address reads it."""
    return "series-" + hashlib.sha256(f"{code}:{round_no}".encode()).hexdigest()[:20]


async def keep_series(store: Records, code: str, meta: Meta, seats: list[tuple[Seat, Game]], ttl: int) -> bool:
    """Put on the record the match or arena that the race just over completes (if it does),
    for ``ttl`` seconds, unless it is there already; whether it completes one."""
    if meta.kind is not Kind.RACE:
        return False
    devices = {s.seat: s.device for s, _ in seats}
    current = round_over(meta.round, ranking(seats), devices)
    result = series_result(meta.series, current, code, meta.ended_at or meta.start_at or 0)
    if result is None:
        return False
    rid = series_id(code, meta.round)
    if await store.record_get(rid) is not None:
        return True  # kept already (the race's end told again)
    lists = sorted({series_listing(s.device) for s in result.standings if s.device})
    await store.record_put(rid, msgspec.json.encode(result).decode(), ttl, lists)
    log.info("room %s: the %s is over, on the record", code, result.format)
    return True


async def series_of_device(store: Records, device: str) -> list[dict[str, Any]]:
    """The matches and arenas ``device`` played in, newest first, as ``/api/me`` shows them."""
    out = []
    for rid in dict.fromkeys(await store.record_list(series_listing(device), 0, MY_SERIES)):
        data = await store.record_get(rid)
        if data is None:
            continue  # expired
        try:
            out.append(result_view(SERIES_RESULT.decode(data), device))
        except msgspec.DecodeError:
            log.error("record %s is not a series over", rid)
    return out
