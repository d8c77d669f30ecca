"""The analyses' read API (see :mod:`race.service.analyses` and docs/protocol.md): a game's
analysis, and the solver's winning line from one of its steps, drawn move by move.

A daily deal's game is kept back until its day is over, as its replay is: no analysis is
computed or shown before, and ``status`` says ``waiting``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from race.engine import Game
from race.rooms.record import Record, RecordError, first_game, kept_back, steps
from race.rooms.record import decode as decode_record
from race.rooms.replays import line_view
from race.service.analyses import Analyses
from race.solver.coach import expand, shortened
from race.store import Records, StoreUnavailable

from .record_api import RECORD_ID

#: A finished analysis never changes: browsers may keep it this long.
KEEP = "private, max-age=86400"


def analysis_routes(store: Records, today: Callable[[], str], analyses: Analyses) -> list[Route]:
    """``/api/replays/{rid}/analysis`` and ``/api/replays/{rid}/line/{step}``."""

    async def game(request: Request) -> tuple[str, Record] | Response:
        rid = request.path_params["rid"]
        if not RECORD_ID.fullmatch(rid):
            return JSONResponse({"error": "a replay id is 12 letters, digits, - or _"}, status_code=400)
        try:
            data = await store.record_get(rid)
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)
        if data is None:
            return JSONResponse({"error": "There is no such replay (it may have expired)."}, status_code=404)
        return rid, decode_record(data)

    async def analysis(request: Request) -> Response:
        """The game's analysis: ``status`` ``computing`` (ask again), ``waiting`` (a daily
        game whose day is not over), ``off``, ``failed``, or ``done`` with the verdicts."""
        found = await game(request)
        if isinstance(found, Response):
            return found
        _, record = found
        try:
            view = await analyses.read(record.id, record)
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)
        done = view.get("status") == "done"
        return JSONResponse(view, headers={"Cache-Control": KEEP if done else "no-store"})

    async def line(request: Request) -> Response:
        """The solver's winning line from step ``step`` (0: the deal) of a game analysed,
        each move with what it changes on the board; 404 for a step with no win known."""
        found = await game(request)
        if isinstance(found, Response):
            return found
        _, record = found
        try:
            k = int(request.path_params["step"])
        except ValueError:
            return JSONResponse({"error": "a step is a number"}, status_code=400)
        if not 0 <= k <= len(record.acts) or kept_back(record, today()):
            return JSONResponse({"error": "no such step"}, status_code=404)
        try:
            view = await analyses.read(record.id, record)
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)
        if view.get("status") != "done":
            return JSONResponse(
                {"error": "the game is not analysed yet", "status": view.get("status")}, status_code=409
            )
        moves = expand(view["steps"], k)
        if not moves and view["steps"][k].get("v") != "win":
            return JSONResponse({"error": "no winning line is known from this step"}, status_code=404)
        try:
            position = at_step(record, k)
            moves = shortened(position, moves)
        except (RecordError, ValueError, RuntimeError):
            return JSONResponse({"error": "this game's line could not be followed"}, status_code=500)
        body: dict[str, Any] = {"step": k, "moves": moves, "changes": line_view(position, moves)}
        return JSONResponse(body, headers={"Cache-Control": KEEP})

    handlers: list[tuple[str, Callable[[Request], Awaitable[Response]]]] = [
        ("/api/replays/{rid}/analysis", analysis),
        ("/api/replays/{rid}/line/{step}", line),
    ]
    return [Route(path, fn) for path, fn in handlers]


def at_step(record: Record, k: int) -> Game:
    """The game at step ``k`` of the record (0: the deal)."""
    if k == 0:
        return first_game(record)
    for step in steps(record):
        if step.number == k:
            return step.game.copy()
    raise ValueError(f"the record has no step {k}")
