"""The web app, and the one place where it is wired together: settings -> store -> hub ->
service -> routes. ``create_app()`` reads the environment; tests pass their own settings (and
may pass a store of their own)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from race.daily import DailyChallenge
from race.edge import share, static
from race.edge.connection import Connection
from race.edge.handler import Handler
from race.edge.limits import Addresses, MessageLimit, SeatBuckets
from race.edge.outbox import Outbox, watch_for_stalls
from race.edge.record_api import DEVICE_KEY, record_routes
from race.edge.static import read_client
from race.edge.transport import Contexts
from race.live.hub import Hub
from race.live.presence import Presence
from race.live.scheduler import Scheduler
from race.rooms.model import normalise_code
from race.service import RaceService, now_ms
from race.service.solver_lines import SolverLines
from race.settings import Settings
from race.store import Store, StoreUnavailable, open_store
from race.wire import protocol as p

log = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None, store: Store | None = None, contexts: Contexts | None = None
) -> Starlette:
    """The web app. ``contexts``: the websocket transport's compression contexts, which the app
    rests while it runs (see :mod:`race.edge.transport`)."""
    settings = settings or Settings.from_env()
    store = store or open_store(settings.store_url, ttl=settings.room_ttl)
    solver_lines = SolverLines(store, node_limit=settings.solver_node_limit)
    # The hub, the scheduler, the service and the daily challenge call on one another: each is handed the
    # others' methods when it is made (a closure for one made after it), and nothing is
    # assigned onto any of them afterwards.
    scheduler = Scheduler(clock=now_ms)
    hub = Hub(store, on_room=lambda code, message: service.follow(code, message))
    service = RaceService(
        store,
        clock=now_ms,
        on_deadline=scheduler.schedule,
        on_moot=scheduler.unschedule,
        on_daily_finish=lambda meta, seat: daily.record(meta, seat),
        countdown_ms=int(settings.countdown_seconds * 1000),
        max_game_moves=settings.max_game_moves,
        rooms_per_minute=settings.rooms_per_minute_per_ip,
        host_away_ms=int(settings.host_away_seconds * 1000),
        record_ttl=int(settings.record_keep_days * 86400),
        daily_record_ttl=(settings.daily_keep_days + 1) * 86400,  # as long as the day's leaderboard
        solver_lines=solver_lines,
        spectator_delay=settings.spectator_delay,
        spectator_second_ms=settings.spectator_second_ms,
    )
    presence = Presence(
        store,
        ttl=settings.presence_ttl,
        local_deliver=hub.deliver_local,
        on_player=service.relist,
        describe=service.presence_end,
    )
    daily = DailyChallenge(
        store,
        service,
        keep_days=settings.daily_keep_days,
        node_limit=settings.daily_node_limit,
        players_per_day=settings.daily_players_per_day_per_ip,
        secret=settings.daily_secret,
        pace=settings.daily_pace,
    )
    handler = Handler(service, daily)
    addresses = Addresses(settings.max_connections_per_ip)
    seat_buckets = SeatBuckets()
    live: set[Outbox] = set()  # for the stall watch

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await store.connect()
        await hub.start()
        await presence.start()
        log.info("store: %s", settings.store_url.split("@")[-1])
        warming = asyncio.create_task(daily.warm()) if settings.daily_warm else None
        watchdog = asyncio.create_task(watch_for_stalls(live, settings.write_timeout))
        resting = asyncio.create_task(contexts.run()) if contexts is not None else None
        yield
        for task in (watchdog, resting):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if warming is not None:
            warming.cancel()
            await asyncio.gather(warming, return_exceptions=True)
        await presence.stop()
        await hub.stop()
        await scheduler.stop()
        daily.close()
        solver_lines.close()
        await store.close()

    def origin_ok(ws: WebSocket) -> bool:
        origin = ws.headers.get("origin")
        if origin is None:
            return True  # not a browser: bots and tools
        if settings.allowed_origins:
            return origin in settings.allowed_origins
        return urlsplit(origin).netloc == ws.headers.get("host")

    async def websocket(ws: WebSocket) -> None:
        ip = ws.client.host if ws.client else "?"
        await ws.accept()
        if not origin_ok(ws):
            await ws.send_text(p.encode(p.error("bad_origin", "connections from this page's origin are not allowed")))
            await ws.close(code=1008)
            return
        if not addresses.admit(ip):
            await ws.send_text(p.encode(p.error("too_many_connections", "too many connections from your address")))
            await ws.close(code=1008)
            return
        try:
            greeting = {
                "type": "hello",
                "protocol": p.PROTOCOL_VERSION,
                "server_time": service.clock(),
                "max_message_bytes": p.MAX_MESSAGE_BYTES,
                "host_away_ms": service.host_away_ms,
                "share_origin": settings.share_origin,
            }
            limit = MessageLimit(settings.rate_per_second, settings.rate_burst, seat_buckets)
            connection = Connection(ws, hub, handler, presence, limit, settings, ip)
            live.add(connection.outbox)
            try:
                await connection.run(greeting)
            finally:
                live.discard(connection.outbox)
        finally:
            addresses.release(ip)

    async def healthz(request: Request) -> Response:
        try:
            health = await store.health()
        except StoreUnavailable as exc:
            return JSONResponse({"status": "unavailable", "detail": str(exc).split(":")[0]}, status_code=503)
        return JSONResponse(health)

    async def rooms(request: Request) -> Response:
        try:
            live = await service.live_rooms(max_age=settings.live_rooms_for_seconds)
            return JSONResponse({"rooms": live, "poll_ms": int(settings.live_poll_seconds * 1000)})
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)

    async def room(request: Request) -> Response:
        """One room, for a page about to offer its join form: 404 if there is none."""
        code = request.path_params["code"]
        if not _ROOM_CODE.fullmatch(code):
            return JSONResponse({"error": "a room code is letters and digits"}, status_code=400)
        try:
            info = await service.room_info(normalise_code(code))
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)
        if info is None:
            return JSONResponse({"error": f"There is no room {code.upper()} (it may have expired)."}, status_code=404)
        info["poll_ms"] = int(settings.room_poll_seconds * 1000)
        return JSONResponse(info, headers={"Cache-Control": "no-store"})

    async def leaderboard(request: Request) -> Response:
        """Public top N of a day: ?difficulty=hard&date=2026-11-29&top=20 (all optional)."""
        raw: dict[str, object] = {"type": "leaderboard", **request.query_params}
        if "token" in raw:  # an address ends up in logs and histories: a secret does not go there
            return JSONResponse({"error": "send the player token in the X-Player-Token header"}, status_code=400)
        try:
            if "top" in raw:
                if not re.fullmatch(r"[0-9]{1,3}", top := str(raw["top"])) or not 1 <= int(top) <= 100:
                    return JSONResponse({"error": "top must be a whole number from 1 to 100"}, status_code=400)
                raw["top"] = int(top)
            msg = msgspec.convert(raw, p.Leaderboard)
            board = await daily.leaderboard(msg.difficulty, msg.date, msg.top, request.headers.get("x-player-token"))
        except msgspec.ValidationError as exc:
            return JSONResponse({"error": p.schema_error(exc)}, status_code=400)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except p.ProtocolError as exc:
            return JSONResponse({"error": exc.message}, status_code=400)
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)
        return JSONResponse(board)

    def _share_base(request: Request) -> str:
        own = f"{request.url.scheme}://{request.url.netloc}"
        return share.share_base(own, request.url.hostname or "", settings.share_origin)

    async def room_qr(request: Request) -> Response:
        """A QR code of the room's link, as the page shares it (see ``share.share_base``)."""
        code = request.path_params["code"]
        if not _ROOM_CODE.fullmatch(code) or code.endswith("/"):
            return JSONResponse({"error": "a room code is letters and digits"}, status_code=400)
        svg = share.qr_svg(f"{_share_base(request)}/r/{normalise_code(code)}")
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})

    async def me_qr(request: Request) -> Response:
        """A QR code of the link that opens this device's games on another (``/me#key=…``);
        the key comes in the ``X-Device-Key`` header, never in an address a log keeps."""
        key = request.headers.get("x-device-key", "")
        if not DEVICE_KEY.fullmatch(key):
            return JSONResponse({"error": "send the device key in the X-Device-Key header"}, status_code=400)
        svg = share.qr_svg(f"{_share_base(request)}/me#key={key}")
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    routes: list[Route | WebSocketRoute] = [
        WebSocketRoute("/ws", websocket),
        Route("/healthz", healthz),
        Route("/api/rooms", rooms),
        Route("/api/rooms/{code}/qr.svg", room_qr),
        Route("/api/me/qr.svg", me_qr),
        Route("/api/rooms/{code}", room),
        *record_routes(store, daily.today, solver_lines),
        Route("/api/daily", leaderboard),
        Route("/api/{rest:path}", _api_unknown),  # never the client's files: see _api_unknown
    ]
    if os.environ.get("BENCH_ECHO") == "1":  # the benchmark's transport baseline: a bare echo
        routes.append(WebSocketRoute("/bench/echo", _echo))
    index = settings.web_dir / "index.html"
    if index.exists():
        client = read_client(settings.web_dir, flat=settings.web_flatten)
        shell = client.head(index.read_text())  # the page: its files versioned, preloaded
        home = static.page("/", shell)

        async def page(request: Request) -> Response:
            code = request.path_params.get("code")
            if code is not None and not _ROOM_CODE.fullmatch(code):  # the client's router would show home
                return HTMLResponse(_NOT_FOUND_PAGE, status_code=404)
            ids = request.path_params.get("ids")
            if ids is not None and not _REPLAY_IDS.fullmatch(ids):
                return HTMLResponse(_NOT_FOUND_PAGE, status_code=404)
            return static.send(request, home, static.REVALIDATE)  # a 304 when current

        async def previewed(request: Request) -> Response:
            """/r/CODE and /daily: the client, with the tags a chat shows a pasted link by."""
            code = request.path_params.get("code")
            if code is not None and not _ROOM_CODE.fullmatch(code):
                return HTMLResponse(_NOT_FOUND_PAGE, status_code=404)
            base = _share_base(request)
            if code is None:
                (title, description), url = share.DAILY_PREVIEW, f"{base}/daily"
            else:
                code = normalise_code(code)
                try:
                    info = await service.room_info(code)
                except StoreUnavailable:
                    info = None
                title, description = share.room_preview(info, code)
                url = f"{base}/r/{code}"
            text = share.with_preview(shell, title=title, description=description, url=url, base=base)
            return static.send(request, static.page(request.url.path, text), static.REVALIDATE)  # as the others

        async def files(request: Request) -> Response:
            if request.url.path in ("/", "/index.html"):
                return await page(request)
            response = static.file_response(client, request)
            if response is None:
                raise HTTPException(404)
            return response

        routes += [
            Route("/r/{code}", previewed),
            Route("/watch/{code}", page),
            Route("/daily", previewed),
            Route("/how", page),
            Route("/learn", page),
            Route("/me", page),
            Route("/replay/{ids}", page),
            Route("/replay/room/{code}", page),  # a room's newest game (a daily leaderboard links them)
        ]
        routes.append(Route("/{path:path}", files, methods=["GET", "HEAD"]))

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: _not_found, 405: _not_allowed})
    app.state.settings, app.state.store, app.state.service, app.state.hub = settings, store, service, hub
    app.state.daily, app.state.presence = daily, presence
    return app


_ROOM_CODE = re.compile(r"[A-Za-z0-9]{1,16}/?")  # as web/app.js routes /r/CODE and /watch/CODE
_REPLAY_IDS = re.compile(r"[A-Za-z0-9_-]{12}(,[A-Za-z0-9_-]{12}){0,7}/?")  # as web/model/replay.js replayIds


_NOT_FOUND_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found · Crescent Race</title><link rel="stylesheet" href="/style.css"></head>
<body><main><section class="card-panel narrow" data-testid="not-found"><h2>No such page</h2>
<p>There is nothing at this address. Room links look like <code>/r/K7M2QXA</code>.</p>
<a class="button" href="/">Back home</a></section></main></body></html>
"""


async def _api_unknown(request: Request) -> Response:
    """Any other address under ``/api/``: JSON, never one of the client's files, whatever an
    encoded slash or dot segment (``/api/..%2fapp.js``) would make of the path once decoded."""
    raw = request.scope.get("raw_path", b"").decode("latin-1").lower()
    segments = request.scope["path"].split("/")
    if "." in segments or ".." in segments or "%2f" in raw or "%5c" in raw:
        return JSONResponse({"error": "an API path has no encoded slashes or dot segments"}, status_code=400)
    return JSONResponse({"error": "Not Found"}, status_code=404)


async def _not_found(request: Request, exc: Exception) -> Response:
    """A page a person can use for an unknown address; plain JSON for the API."""
    if request.url.path.startswith("/api/"):
        detail = exc.detail if isinstance(exc, HTTPException) else "not found"
        return JSONResponse({"error": detail}, status_code=404)
    return HTMLResponse(_NOT_FOUND_PAGE, status_code=404)


async def _not_allowed(request: Request, exc: Exception) -> Response:
    """JSON for the API, as its other errors; plain text elsewhere (Starlette's own)."""
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": exc.detail}, status_code=405, headers=exc.headers)
    return PlainTextResponse(exc.detail, status_code=405, headers=exc.headers)


_ECHO_GROUPS: dict[str, set[WebSocket]] = {}
_ECHO_HEAD, _FAN_HEAD = '{"type":"echo"', '{"type":"fan"'


async def _echo(ws: WebSocket) -> None:
    """Send every text message back unchanged (``python -m race bench`` compares to this).
    With ``?group=NAME`` each message is also sent, its type ``echo`` renamed ``fan``, to
    every other connection of that group: the race's pattern of a reply to the mover and a
    broadcast to the rest of the room, without the room."""
    await ws.accept()
    group = ws.query_params.get("group")
    members = _ECHO_GROUPS.setdefault(group, set()) if group else None
    if members is not None:
        members.add(ws)
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text") or ""
            await ws.send_text(text)
            if members:
                copy = _FAN_HEAD + text[len(_ECHO_HEAD) :] if text.startswith(_ECHO_HEAD) else text
                for member in [m for m in members if m is not ws]:
                    with contextlib.suppress(Exception):  # a member that just left
                        await member.send_text(copy)
    finally:
        if members is not None:
            members.discard(ws)
            if not members:
                _ECHO_GROUPS.pop(group or "", None)
