"""The ratings' reads over HTTP: a room's players' ratings (the lobby beside each name, the
race's ranking with each change), a device's rating with its history (in ``/api/me``: see
:func:`race.rooms.ratings.rating_view`) and its friends' board. See ``docs/protocol.md``."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from race.rooms.model import META, SEAT, Kind, device_id, normalise_code, phase, seat_key
from race.rooms.ratings import PROVISIONAL, Standing, summary
from race.rooms.ratings import race_key as name_race
from race.service import now_ms
from race.service.ratings import Ratings
from race.store import Documents, StoreUnavailable

from .record_api import DEVICE_KEY, ROOM_CODE

_UNAVAILABLE = {"error": "temporarily unavailable"}
_NO_KEY = {"error": "send the device key (22 to 64 letters, digits, - or _) in the X-Device-Key header"}


def friends_board(standing: Standing | None, theirs: list[Standing | None]) -> list[dict[str, Any]]:
    """Everyone ``standing``'s device has raced (its friends, in that order, with their
    standings ``theirs``): rating, races together, wins and losses against them, the last
    race together; the best rated first."""
    rows = [
        {"name": f.name, **summary(them), "together": f.races, "wins": f.wins, "losses": f.losses}
        | {"last": f.last, "last_room": f.room}
        for f, them in zip((standing.friends if standing else {}).values(), theirs, strict=True)
    ]
    return sorted(rows, key=lambda r: (-r["rating"], -r["last"], r["name"]))


def rating_routes(store: Documents, ratings: Ratings) -> list[Route]:
    """The routes, reading the rooms in ``store`` and the ``ratings``."""

    async def room_ratings(request: Request) -> Response:
        """A room's players' ratings; once its race is over and rated, each one's change."""
        code = request.path_params["code"]
        if not ROOM_CODE.fullmatch(code):
            return JSONResponse({"error": "a room code is letters and digits"}, status_code=400)
        code = normalise_code(code)
        try:
            docs = await store.read_all(code)
            if "meta" not in docs:
                return JSONResponse({"error": f"There is no room {code} (it may have expired)."}, status_code=404)
            meta = META.decode(docs["meta"].data)
            seats = [SEAT.decode(docs[seat_key(sid)].data) for sid in meta.seats if seat_key(sid) in docs]
            devices = [s.device for s in seats if s.device]
            standings = dict(zip(devices, await ratings.standings(devices), strict=True))
            over = phase(meta, now_ms()) == "over"
            rated = await ratings.rated(name_race(code, meta.round, meta.start_at or 0)) if over else None
        except StoreUnavailable:
            return JSONResponse(_UNAVAILABLE, status_code=503)
        outcome = {o.device: o for o in rated.outcome} if rated else {}
        players = []
        for s in seats:
            if not s.device:
                continue
            row: dict[str, Any] = {"seat": s.seat, "name": s.name, **summary(standings[s.device])}
            if (o := outcome.get(s.device)) is not None:
                row |= {"rating": o.after, "change": o.after - o.before, "races": o.races}
                row["provisional"] = o.races < PROVISIONAL
            players.append(row)
        counts = meta.kind is Kind.RACE and len(set(devices)) >= 2
        state = (True if rated else None if counts else False) if over else None
        body = {"room": code, "round": meta.round, "rated": state, "players": players}
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    async def friends(request: Request) -> Response:
        """The friends' board of the device whose key is in ``X-Device-Key``."""
        key = request.headers.get("x-device-key", "")
        if not DEVICE_KEY.fullmatch(key):
            return JSONResponse(_NO_KEY, status_code=400)
        try:
            (mine,) = await ratings.standings([device_id(key)])
            theirs = await ratings.standings(list(mine.friends) if mine else [])
        except StoreUnavailable:
            return JSONResponse(_UNAVAILABLE, status_code=503)
        body = {"me": {"name": mine.name if mine else "", **summary(mine)}, "friends": friends_board(mine, theirs)}
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    return [Route("/api/rooms/{code}/ratings", room_ratings), Route("/api/me/friends", friends)]
