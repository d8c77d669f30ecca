"""What happens in a room that other parts of the server act on, as typed events, and the
router that hands each event to them (:class:`Events`).

A change the service commits (:class:`race.service.repo.Change`) carries the events of what
it did: a race is over, a daily attempt is won, the room's timers changed, the room is to be
listed or unlisted. The one bootstrap (:mod:`race.app`) makes the router with its routes:
which part takes which event (the scheduler the timers, the listings the listing, the
record a race over, the daily challenge a won attempt). A part that makes events knows the
router only, never who acts on them; and nothing is called back. Every event may come
again (a retry of what was committed before sets off the same), and every route takes it
so. No I/O here: a route does its own.

>>> seen = []
>>> events = Events(route(Unlisted, seen.append))
>>> import asyncio; asyncio.run(events.emit(Unlisted("K7M2QXA"), PlayerBack("K7M2QXA")))
>>> seen
[Unlisted(room='K7M2QXA')]
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from race.engine import Game
from race.rooms.model import Meta, Seat
from race.wire.envelope import Timers


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in room ``room``."""

    room: str


@dataclass(frozen=True, slots=True)
class Timed(Event):
    """The room's timed events as they now stand (the start to announce, the end of its
    time limit, or none any more): for this process's timers."""

    timers: Timers


@dataclass(frozen=True, slots=True)
class Listed(Event):
    """A room made or dealt again: on the home page's live list, if it is a listed one."""

    meta: Meta


@dataclass(frozen=True, slots=True)
class Unlisted(Event):
    """Nobody is left in the room to race: off the live list."""


@dataclass(frozen=True, slots=True)
class PlayerBack(Event):
    """A player's connection came into the room (its presence): the room is live again."""


@dataclass(frozen=True, slots=True)
class RaceOver(Event):
    """The room's race just ended: its seats with their games, in seat order, and its
    ghosts as the ranking counts them (:func:`race.rooms.ghosts.ghost_results`)."""

    meta: Meta
    seats: list[tuple[Seat, Game]]
    ghosts: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class DailyWon(Event):
    """A daily attempt was won (by its first round's one player): a result for its day's
    board."""

    meta: Meta
    seat: Seat


E = TypeVar("E", bound=Event)
#: What takes an event: a function, or a coroutine function, of it.
Handler = Callable[[E], object]


@dataclass(frozen=True)
class Route(Generic[E]):
    """Where the events of one type go, in this order."""

    kind: type[E]
    handlers: tuple[Handler[E], ...]


def route(kind: type[E], *handlers: Handler[E]) -> Route[E]:
    """Events of type ``kind`` go to ``handlers``, one after the other."""
    return Route(kind, handlers)


class Events:
    """The router: each event handed to the handlers of its type's route, in order, and
    awaited when a handler is a coroutine function. An event with no route goes nowhere.
    What a handler raises is raised to whoever emitted the event (as an outage of the store
    would have been, had it called the handler itself)."""

    def __init__(self, *routes: Route[Any]) -> None:
        self._routes: dict[type[Event], tuple[Handler[Any], ...]] = {}
        for r in routes:
            if r.kind in self._routes:
                raise ValueError(f"two routes for {r.kind.__name__}")
            self._routes[r.kind] = r.handlers

    async def emit(self, *events: Event) -> None:
        for event in events:
            for handler in self._routes.get(type(event), ()):
                result = handler(event)
                if inspect.isawaitable(result):
                    await result
