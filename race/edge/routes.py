"""The app's HTTP routes: the API (:class:`Api`: health, the live rooms, a room's look-up,
the QR codes of its link, a day's leaderboard, the record's reads) and the client's pages
(:class:`Pages`, with the preview tags of a pasted link), and the answers for an address
that is not one of them."""

from __future__ import annotations

import re

import msgspec
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from race.daily import DailyChallenge
from race.edge import share, static
from race.edge.analysis_api import analysis_routes
from race.edge.ratings_api import rating_routes
from race.edge.record_api import DEVICE_KEY, record_routes
from race.edge.static import read_client
from race.rooms.errors import Refused
from race.rooms.model import normalise_code
from race.service.analyses import Analyses
from race.service.listing import Listings
from race.service.ratings import Ratings
from race.service.solver_lines import SolverLines
from race.settings import Settings
from race.store import Store, StoreUnavailable
from race.wire import protocol as p


class Api:
    """The API under ``/api/`` (and ``/healthz``): JSON, never one of the client's files."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        listings: Listings,
        daily: DailyChallenge,
        solver_lines: SolverLines,
        ratings: Ratings,
        analyses: Analyses | None = None,
    ) -> None:
        self.settings, self.store, self.listings, self.daily = settings, store, listings, daily
        self.solver_lines, self.ratings, self.analyses = solver_lines, ratings, analyses

    def routes(self) -> list[Route]:
        return [
            Route("/healthz", self.healthz),
            Route("/api/rooms", self.rooms),
            Route("/api/rooms/{code}/qr.svg", self.room_qr),
            Route("/api/me/qr.svg", self.me_qr),
            *rating_routes(self.store, self.ratings),
            Route("/api/rooms/{code}", self.room),
            *record_routes(self.store, self.daily.today, self.solver_lines, self.ratings),
            *(analysis_routes(self.store, self.daily.today, self.analyses) if self.analyses else []),
            Route("/api/daily", self.leaderboard),
            Route("/api/{rest:path}", api_unknown),  # never the client's files: see api_unknown
        ]

    async def healthz(self, request: Request) -> Response:
        try:
            health = await self.store.health()
        except StoreUnavailable as exc:
            return JSONResponse({"status": "unavailable", "detail": str(exc).split(":")[0]}, status_code=503)
        return JSONResponse(health)

    async def rooms(self, request: Request) -> Response:
        try:
            live = await self.listings.live_rooms(max_age=self.settings.live_rooms_for_seconds)
            return JSONResponse({"rooms": live, "poll_ms": int(self.settings.live_poll_seconds * 1000)})
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)

    async def room(self, request: Request) -> Response:
        """One room, for a page about to offer its join form: 404 if there is none."""
        code = request.path_params["code"]
        if not ROOM_CODE.fullmatch(code):
            return JSONResponse({"error": "a room code is letters and digits"}, status_code=400)
        try:
            info = await self.listings.room_info(normalise_code(code))
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)
        if info is None:
            return JSONResponse({"error": f"There is no room {code.upper()} (it may have expired)."}, status_code=404)
        info["poll_ms"] = int(self.settings.room_poll_seconds * 1000)
        return JSONResponse(info, headers={"Cache-Control": "no-store"})

    async def leaderboard(self, request: Request) -> Response:
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
            board = await self.daily.leaderboard(
                msg.difficulty, msg.date, msg.top, request.headers.get("x-player-token")
            )
        except msgspec.ValidationError as exc:
            return JSONResponse({"error": p.schema_error(exc)}, status_code=400)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except (p.ProtocolError, Refused) as exc:
            return JSONResponse({"error": exc.message}, status_code=400)
        except StoreUnavailable:
            return JSONResponse({"error": "temporarily unavailable"}, status_code=503)
        return JSONResponse(board)

    async def room_qr(self, request: Request) -> Response:
        """A QR code of the room's link, as the page shares it (see ``share.share_base``)."""
        code = request.path_params["code"]
        if not ROOM_CODE.fullmatch(code) or code.endswith("/"):
            return JSONResponse({"error": "a room code is letters and digits"}, status_code=400)
        svg = share.qr_svg(f"{self._share_base(request)}/r/{normalise_code(code)}")
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})

    async def me_qr(self, request: Request) -> Response:
        """A QR code of the link that opens this device's games on another (``/me#key=…``);
        the key comes in the ``X-Device-Key`` header, never in an address a log keeps."""
        key = request.headers.get("x-device-key", "")
        if not DEVICE_KEY.fullmatch(key):
            return JSONResponse({"error": "send the device key in the X-Device-Key header"}, status_code=400)
        svg = share.qr_svg(f"{self._share_base(request)}/me#key={key}")
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    def _share_base(self, request: Request) -> str:
        return share_base(request, self.settings)


def _varies_by_language(response: Response) -> Response:
    """``response``, said to differ by the request's Accept-Language (for caches)."""
    response.headers["Vary"] = ", ".join(filter(None, (response.headers.get("Vary"), "Accept-Language")))
    return response


class Pages:
    """The client's pages: one page for every address the client routes, a 404 page for
    what it would not, and its files."""

    def __init__(self, settings: Settings, listings: Listings) -> None:
        self.settings, self.listings = settings, listings
        index = settings.web_dir / "index.html"
        self.client = read_client(settings.web_dir, flat=settings.web_flatten)
        self.shell = self.client.head(index.read_text())  # the page: its files versioned, preloaded
        #: The page by language (its words before the script runs), chosen by Accept-Language.
        self.homes = {lang: static.page("/", share.in_language(self.shell, lang)) for lang in share.LANGS}

    def routes(self) -> list[Route]:
        return [
            Route("/r/{code}", self.previewed),
            Route("/watch/{code}", self.page),
            Route("/daily", self.previewed),
            Route("/how", self.page),
            Route("/learn", self.page),
            Route("/me", self.page),
            Route("/replay/{ids}", self.page),
            Route("/replay/room/{code}", self.page),  # a room's newest game (a daily leaderboard links them)
            Route("/{path:path}", self.files, methods=["GET", "HEAD"]),
        ]

    async def page(self, request: Request) -> Response:
        code = request.path_params.get("code")
        if code is not None and not ROOM_CODE.fullmatch(code):  # the client's router would show home
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        ids = request.path_params.get("ids")
        if ids is not None and not REPLAY_IDS.fullmatch(ids):
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        lang = share.preview_lang(request.headers.get("accept-language"))
        response = static.send(request, self.homes[lang], static.REVALIDATE)  # a 304 when current
        return _varies_by_language(response)

    async def previewed(self, request: Request) -> Response:
        """/r/CODE and /daily: the client, with the tags a chat shows a pasted link by."""
        code = request.path_params.get("code")
        if code is not None and not ROOM_CODE.fullmatch(code):
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        base = self._share_base(request)
        lang = share.preview_lang(request.headers.get("accept-language"))
        if code is None:
            (title, description), url = share.daily_preview(lang), f"{base}/daily"
        else:
            code = normalise_code(code)
            try:
                info = await self.listings.room_info(code)
            except StoreUnavailable:
                info = None
            title, description = share.room_preview(info, code, lang)
            url = f"{base}/r/{code}"
        shell = share.in_language(self.shell, lang)
        text = share.with_preview(shell, title=title, description=description, url=url, base=base, lang=lang)
        response = static.send(request, static.page(request.url.path, text), static.REVALIDATE)  # as the others
        return _varies_by_language(response)

    async def files(self, request: Request) -> Response:
        if request.url.path in ("/", "/index.html"):
            return await self.page(request)
        response = static.file_response(self.client, request)
        if response is None:
            raise HTTPException(404)
        return response

    def _share_base(self, request: Request) -> str:
        return share_base(request, self.settings)


def share_base(request: Request, settings: Settings) -> str:
    """The origin the room's links start with (see :func:`race.edge.share.share_base`)."""
    own = f"{request.url.scheme}://{request.url.netloc}"
    return share.share_base(own, request.url.hostname or "", settings.share_origin)


ROOM_CODE = re.compile(p.ROOM_CODE_TEXT + "/?")  # as web/app.js routes /r/CODE and /watch/CODE
REPLAY_IDS = re.compile(r"[A-Za-z0-9_-]{12}(,[A-Za-z0-9_-]{12}){0,7}/?")  # as web/model/replay.js replayIds


NOT_FOUND_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found · Crescent Race</title><link rel="stylesheet" href="/style.css"></head>
<body><main><section class="card-panel narrow" data-testid="not-found"><h2>No such page</h2>
<p>There is nothing at this address. Room links look like <code>/r/K7M2QXA</code>.</p>
<a class="button" href="/">Back home</a></section></main></body></html>
"""


async def api_unknown(request: Request) -> Response:
    """Any other address under ``/api/``: JSON, never one of the client's files, whatever an
    encoded slash or dot segment (``/api/..%2fapp.js``) would make of the path once decoded."""
    raw = request.scope.get("raw_path", b"").decode("latin-1").lower()
    segments = request.scope["path"].split("/")
    if "." in segments or ".." in segments or "%2f" in raw or "%5c" in raw:
        return JSONResponse({"error": "an API path has no encoded slashes or dot segments"}, status_code=400)
    return JSONResponse({"error": "Not Found"}, status_code=404)


async def not_found(request: Request, exc: Exception) -> Response:
    """A page a person can use for an unknown address; plain JSON for the API."""
    if request.url.path.startswith("/api/"):
        detail = exc.detail if isinstance(exc, HTTPException) else "not found"
        return JSONResponse({"error": detail}, status_code=404)
    return HTMLResponse(NOT_FOUND_PAGE, status_code=404)


async def not_allowed(request: Request, exc: Exception) -> Response:
    """JSON for the API, as its other errors; plain text elsewhere (Starlette's own)."""
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": exc.detail}, status_code=405, headers=exc.headers)
    return PlainTextResponse(exc.detail, status_code=405, headers=exc.headers)
