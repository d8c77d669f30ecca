"""The record's read API over HTTP: one game by id, and a room's games (a daily
leaderboard's entries name their attempt's room).

A daily challenge game shows its deal's winning line, so no one may watch one until its
day is over (UTC); the player's own result is on their page meanwhile."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from race.record import Record, kept_back
from race.record import decode as decode_record
from race.replays import replay_result, replay_view
from race.rooms import normalise_code
from race.service.recording import room_listing
from race.store import Records, StoreUnavailable

RECORD_ID = re.compile(r"[A-Za-z0-9_-]{12}")  # race.record.new_id
ROOM_CODE = re.compile(r"[A-Za-z0-9]{1,16}")
ROOM_GAMES = 100  # the most of a room's games listed
_UNAVAILABLE = {"error": "temporarily unavailable"}


def listed(rid: str, record: Record) -> dict[str, Any]:
    """A game as a list names it."""
    return {"id": rid, "name": record.name, "seat": record.seat, "round": record.round, "result": replay_result(record)}


def record_routes(store: Records, today: Callable[[], str]) -> list[Route]:
    """The routes, reading ``store``; ``today()``: the server's UTC date."""

    async def replay(request: Request) -> Response:
        """One game on the record, as the replay page draws it."""
        rid = request.path_params["rid"]
        if not RECORD_ID.fullmatch(rid):
            return JSONResponse({"error": "a replay id is 12 letters, digits, - or _"}, status_code=400)
        try:
            data = await store.record_get(rid)
        except StoreUnavailable:
            return JSONResponse(_UNAVAILABLE, status_code=503)
        if data is None:
            return JSONResponse({"error": "There is no such replay (it may have expired)."}, status_code=404)
        record = decode_record(data)
        if kept_back(record, today()):
            error = "A daily challenge game can be watched once its day is over (midnight UTC)."
            return JSONResponse({"error": error}, status_code=403, headers={"Cache-Control": "no-store"})
        return JSONResponse(replay_view(record), headers={"Cache-Control": "public, max-age=3600"})

    async def room_replays(request: Request) -> Response:
        """The games on the record of a room's rounds, newest first (a daily attempt's only
        once its day is over)."""
        code = request.path_params["code"]
        if not ROOM_CODE.fullmatch(code):
            return JSONResponse({"error": "a room code is letters and digits"}, status_code=400)
        code = normalise_code(code)
        return await _listing(room_listing(code), {"room": code})

    async def _listing(key: str, head: dict[str, Any]) -> Response:
        try:
            ids = await store.record_list(key, 0, ROOM_GAMES)
            found = [(rid, await store.record_get(rid)) for rid in ids]
        except StoreUnavailable:
            return JSONResponse(_UNAVAILABLE, status_code=503)
        now = today()
        games = []
        for rid, data in found:
            if data is not None and not kept_back(record := decode_record(data), now):
                games.append(listed(rid, record))
        return JSONResponse({**head, "replays": games}, headers={"Cache-Control": "no-store"})

    handlers: list[tuple[str, Callable[[Request], Awaitable[Response]]]] = [
        ("/api/rooms/{code}/replays", room_replays),
        ("/api/replays/{rid}", replay),
    ]
    return [Route(path, fn) for path, fn in handlers]
