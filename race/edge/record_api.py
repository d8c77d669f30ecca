"""The record's read API over HTTP: one game by id, a room's games (a daily leaderboard's
entries name their attempt's room), and a player's own games by their device key.

A game of a daily deal shows the deal's line, so until its day is over (UTC) only a player
who already has a result on that day's board may watch it (their daily token in the
``X-Player-Token`` header)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from race.rooms.model import device_id, normalise_code
from race.rooms.practice import view as practice_view
from race.rooms.ratings import rating_view
from race.rooms.record import Record, daily_day, kept_back, utc_date
from race.rooms.record import decode as decode_record
from race.rooms.replays import replay_result, replay_view, shown_deal
from race.service.players import PlayerStore, board_group, ranked_on
from race.service.ratings import Ratings
from race.service.recording import device_listing, room_listing
from race.service.series_record import series_of_device
from race.service.solver_lines import SolverLines
from race.store import Records, StoreUnavailable
from race.wire import protocol as p

RECORD_ID = re.compile(p.RECORD_ID_TEXT)
DEVICE_KEY = re.compile(r"[A-Za-z0-9_-]{22,64}")  # race.wire.protocol.DEVICE_KEY
ROOM_CODE = re.compile(p.ROOM_CODE_TEXT)
ROOM_GAMES = 100  # the most of a room's games listed
_UNAVAILABLE = {"error": "temporarily unavailable"}


def listed(rid: str, record: Record) -> dict[str, Any]:
    """A game as a list names it."""
    return {
        "id": rid,
        "name": record.name,
        "seat": record.seat,
        "round": record.round,
        "place": record.place,
        "field": record.field,
        "result": replay_result(record),
        "hints": record.hints,
    }


MY_GAMES = 200  # the most of a device's games listed (newest first)


def history(games: list[tuple[str, Record]], today: str) -> dict[str, Any]:
    """A player's games (newest first), best finish per difficulty, and record against each
    player raced (by name, as they were called). A practice game (played on from a step of
    another) is listed as such (``practice``: which game, from which step) and is no best."""
    listed_games: list[dict[str, Any]] = []
    best: dict[str, dict[str, Any]] = {}
    friends: dict[str, dict[str, Any]] = {}
    for rid, r in games:
        entry = {
            **listed(rid, r),
            "kind": r.kind,
            "date": r.daily_date or utc_date(r.started),
            "deal": shown_deal(r),
            "daily_date": daily_day(r),
            "difficulty": r.difficulty,
            "room": r.room,
            "place": r.place,
            "field": r.field,
            "kept_back": kept_back(r, today),
        }
        if r.start is not None:
            entry["practice"] = practice_view(r.start)
        listed_games.append(entry)
        f = r.result.finished_ms
        if f is not None and r.start is None and (r.difficulty not in best or f < best[r.difficulty]["finished_ms"]):
            best[r.difficulty] = {
                "id": rid,
                "finished_ms": f,
                "moves": entry["result"]["moves"],  # (the ranking's count, as the list has it)
                "date": entry["date"],
                "hints": r.hints,
            }
        for names, outcome in ((r.beat, "wins"), (r.behind, "losses")):
            for name in names:
                friends.setdefault(name, {"name": name, "wins": 0, "losses": 0})[outcome] += 1
    rivals = sorted(friends.values(), key=lambda f: (-(f["wins"] + f["losses"]), f["name"]))
    return {"games": listed_games, "best": best, "rivals": rivals}


class RecordStore(Records, PlayerStore, Protocol):
    """What the record's reads work with (a daily player's board, to show them that day's games)."""


def record_routes(
    store: RecordStore, today: Callable[[], str], lines: SolverLines | None = None, ratings: Ratings | None = None
) -> list[Route]:
    """The routes, reading ``store``; ``today()``: the server's UTC date; ``lines``: where
    the solver's lines for race deals are kept (a daily deal's is kept with the deal);
    ``ratings``: the device's rating that ``/api/me`` carries."""

    async def solver_moves(record: Record) -> int | None:
        """The length of the solver's line for the record's deal, when one is known."""
        day = daily_day(record)
        if day is not None and isinstance(record.deal, str):
            (doc,) = await store.read(board_group(day, record.difficulty), ["deal"])
            return len(msgspec.json.decode(doc.data, type=dict[str, Any])["line"]) if doc else None
        return await lines.length(record.deal, record.difficulty) if lines is not None else None

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
        if not await _may_see(record, request):
            error = (
                "A daily challenge game can be watched once its day is over (midnight UTC), "
                "or by a player with a result on that day's board."
            )
            return JSONResponse({"error": error}, status_code=403, headers={"Cache-Control": "no-store"})
        view = {**replay_view(record), "solver_moves": await solver_moves(record)}
        return JSONResponse(view, headers={"Cache-Control": "no-cache"})

    async def room_replays(request: Request) -> Response:
        """The games on the record of a room's rounds, newest first (a daily attempt's only
        once its day is over)."""
        code = request.path_params["code"]
        if not ROOM_CODE.fullmatch(code):
            return JSONResponse({"error": "a room code is letters and digits"}, status_code=400)
        code = normalise_code(code)
        try:
            ids = await store.record_list(room_listing(code), 0, ROOM_GAMES)
            found = [(rid, await store.record_get(rid)) for rid in ids]
            games, lengths = [], {}
            for rid, data in found:
                if data is not None and await _may_see(record := decode_record(data), request):
                    deal = (record.deal, record.difficulty)
                    if deal not in lengths:
                        lengths[deal] = await solver_moves(record)
                    games.append({**listed(rid, record), "solver_moves": lengths[deal]})
        except StoreUnavailable:
            return JSONResponse(_UNAVAILABLE, status_code=503)
        return JSONResponse({"room": code, "replays": games}, headers={"Cache-Control": "no-store"})

    async def _may_see(record: Record, request: Request) -> bool:
        """A daily deal's game of today only for a player already on that day's board (their
        token in ``X-Player-Token``); any other game for anyone."""
        if not kept_back(record, today()):
            return True
        token = request.headers.get("x-player-token")
        return await ranked_on(store, token, daily_day(record) or today(), record.difficulty)

    async def me(request: Request) -> Response:
        """The games played from the device whose key is in ``X-Device-Key``."""
        key = request.headers.get("x-device-key", "")
        if not DEVICE_KEY.fullmatch(key):
            error = "send the device key (22 to 64 letters, digits, - or _) in the X-Device-Key header"
            return JSONResponse({"error": error}, status_code=400)
        try:
            ids = await store.record_list(device_listing(device_id(key)), 0, MY_GAMES)
            found = [(rid, await store.record_get(rid)) for rid in ids]
            (standing,) = await ratings.standings([device_id(key)]) if ratings else [None]
            series = await series_of_device(store, device_id(key))
        except StoreUnavailable:
            return JSONResponse(_UNAVAILABLE, status_code=503)
        games = [(rid, decode_record(data)) for rid, data in found if data is not None]
        body = history(games, today()) | {"rating": rating_view(standing), "series": series}
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    handlers: list[tuple[str, Callable[[Request], Awaitable[Response]]]] = [
        ("/api/me", me),
        ("/api/rooms/{code}/replays", room_replays),
        ("/api/replays/{rid}", replay),
    ]
    return [Route(path, fn) for path, fn in handlers]
