"""The one place where the server is wired together: settings -> store -> the rooms' parts ->
the web app. :func:`wire` makes the parts below the web (the service, the daily challenge,
the hub, presence, the scheduler) and the one router of the rooms' events; :func:`running`
sets them to work; :func:`create_app` adds the edge (the websocket gateway, the HTTP routes)
and runs it all for as long as the app is served. ``create_app()`` reads the environment;
tests pass their own settings (and may pass a store of their own, or call :func:`wire`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.routing import BaseRoute, WebSocketRoute

from race.daily import DailyChallenge, Results
from race.edge import routes
from race.edge.echo import echo
from race.edge.gateway import Gateway
from race.edge.handler import Handler
from race.edge.transport import Contexts
from race.live.hub import Hub
from race.live.presence import Presence
from race.live.scheduler import Action, Deadline, Scheduler
from race.rooms.events import DailyWon, Events, Listed, PlayerBack, RaceOver, Timed, Unlisted, route
from race.rooms.record import utc_date
from race.service import RaceService, now_ms
from race.service.analyses import Analyses
from race.service.ending import Ending
from race.service.entry import Entry
from race.service.hints import Hints
from race.service.listing import Listings
from race.service.lobby import Lobby
from race.service.race import Race
from race.service.ratings import Ratings
from race.service.recording import Recording
from race.service.repo import Rooms
from race.service.rounds import Rounds
from race.service.solver_lines import SolverLines
from race.settings import Settings
from race.solver.coach import Limits
from race.store import Store, open_store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Parts:
    """The server's parts below the web app, as :func:`wire` makes them."""

    store: Store
    solver_lines: SolverLines
    analyses: Analyses
    scheduler: Scheduler
    listings: Listings
    results: Results
    rooms: Rooms
    service: RaceService
    daily: DailyChallenge
    hub: Hub
    presence: Presence
    #: What the scheduler runs when a room's deadline falls due.
    deadlines: Mapping[Deadline, Action]
    ratings: Ratings


def wire(
    settings: Settings, store: Store, *, clock: Callable[[], int] = now_ms, executor: Executor | None = None
) -> Parts:
    """The server's parts on ``store``, each handed what it calls on when it is made, and
    the one router of the rooms' events: which part takes which. ``clock``: the server's
    (tests set their own); ``executor``: where the daily deals are searched for (by default
    a worker process)."""
    solver_lines = SolverLines(store, node_limit=settings.solver_node_limit)
    analyses = Analyses(store, limits=Limits(game=settings.analysis_node_limit), today=lambda: utc_date(clock()))
    scheduler = Scheduler(clock=clock)
    listings = Listings(store, clock=clock)
    ratings = Ratings(store)
    recording = Recording(
        store,
        solver_lines,
        ttl=int(settings.record_keep_days * 86400),
        daily_ttl=(settings.daily_keep_days + 1) * 86400,  # as long as the day's leaderboard
        ratings=ratings,
        analyses=analyses,
    )
    results = Results(store, clock=clock, keep_days=settings.daily_keep_days, pace=settings.daily_pace)
    events = Events(
        route(Timed, scheduler.want),
        route(Listed, listings.list),
        route(Unlisted, listings.unlist),
        route(PlayerBack, listings.relist),
        route(RaceOver, listings.unlist, recording.keep),
        route(DailyWon, results.post),
    )
    host_away_ms = int(settings.host_away_seconds * 1000)
    idle_ms = int(settings.race_idle_seconds * 1000)
    rooms = Rooms(store, events)
    entry = Entry(
        rooms,
        store,
        clock=clock,
        rooms_per_minute=settings.rooms_per_minute_per_ip,
        spectator_delay=settings.spectator_delay,
        spectator_second_ms=settings.spectator_second_ms,
        hint_penalty_ms=round(settings.hint_penalty_seconds * 1000),
    )
    lobby = Lobby(
        rooms,
        store,
        clock=clock,
        countdown_ms=int(settings.countdown_seconds * 1000),
        host_away_ms=host_away_ms,
        idle_ms=idle_ms,
    )
    ending = Ending(rooms, clock=clock, host_away_ms=host_away_ms, idle_ms=idle_ms)
    hints = Hints(rooms, store, clock=clock)
    race = Race(rooms, ending, hints, clock=clock, max_game_moves=settings.max_game_moves)
    daily = DailyChallenge(
        store,
        results,
        entry,
        node_limit=settings.daily_node_limit,
        executor=executor,
        players_per_day=settings.daily_players_per_day_per_ip,
        secret=settings.daily_secret,
    )
    rounds = Rounds(rooms, store, clock=clock, away_ms=host_away_ms)
    service = RaceService(rooms, entry, lobby, race, ending, rounds, daily, clock=clock)
    hub = Hub(store, timers=scheduler)
    presence = Presence(
        store,
        ttl=settings.presence_ttl,
        local_deliver=hub.deliver_local,
        events=events,
        host_away_ms=host_away_ms,
        idle_ms=idle_ms,
    )
    deadlines: dict[Deadline, Action] = {
        Deadline.START: lobby.announce,
        Deadline.END: ending.end_if_done,
        Deadline.IDLE: ending.idle,
    }
    return Parts(
        store,
        solver_lines,
        analyses,
        scheduler,
        listings,
        results,
        rooms,
        service,
        daily,
        hub,
        presence,
        deadlines,
        ratings,
    )


@contextlib.asynccontextmanager
async def running(parts: Parts) -> AsyncIterator[None]:
    """The parts at work, for as long as the context lasts: the hub's fan-out, the
    presence's refresh, the scheduler's deadlines. (A process that starts while rooms are in
    progress asks again for their timers here: :meth:`RaceService.rearm`.)"""
    await parts.hub.start()
    await parts.presence.start()
    ticking = asyncio.create_task(parts.scheduler.run(parts.deadlines))
    try:
        # The rooms a store keeps across a restart (the embedded ones list theirs; Redis none).
        if in_progress := [code for code in await parts.store.rooms("meta") if await parts.service.rearm(code)]:
            log.info("%d races in progress: their deadlines are armed again", len(in_progress))
        yield
    finally:
        await parts.presence.stop()
        await parts.hub.stop()
        await parts.scheduler.stop()
        await ticking


def create_app(
    settings: Settings | None = None, store: Store | None = None, contexts: Contexts | None = None
) -> Starlette:
    """The web app. ``contexts``: the websocket transport's compression contexts, which the app
    rests while it runs (see :mod:`race.edge.transport`)."""
    settings = settings or Settings.from_env()
    store = store or open_store(settings.store_url, ttl=settings.room_ttl)
    parts = wire(settings, store)
    handler = Handler(parts.service, parts.daily.today)
    gateway = Gateway(settings, parts.hub, handler, parts.presence, clock=now_ms)
    api = routes.Api(settings, store, parts.listings, parts.daily, parts.solver_lines, parts.ratings, parts.analyses)
    served: list[BaseRoute] = [WebSocketRoute("/ws", gateway.websocket), *api.routes()]
    if os.environ.get("BENCH_ECHO") == "1":  # the benchmark's transport baseline: a bare echo
        served.append(WebSocketRoute("/bench/echo", echo))
    if (settings.web_dir / "index.html").exists():
        served += routes.Pages(settings, parts.listings).routes()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await store.connect()
        async with running(parts):
            log.info("store: %s", settings.store_url.split("@")[-1])
            warming = asyncio.create_task(parts.daily.warm()) if settings.daily_warm else None
            watchdog = asyncio.create_task(gateway.watch_for_stalls())
            resting = asyncio.create_task(contexts.run()) if contexts is not None else None
            yield
            for task in (watchdog, resting, warming):
                if task is not None:
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
        parts.daily.close()
        parts.solver_lines.close()
        parts.analyses.close()
        await store.close()

    errors = {404: routes.not_found, 405: routes.not_allowed}
    app = Starlette(routes=served, lifespan=lifespan, exception_handlers=errors)
    app.state.settings, app.state.parts = settings, parts
    return app
