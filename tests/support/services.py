"""The server's parts wired as the app wires them (:func:`race.app.wire`), on a test's store
and clock, for the tests that talk to the service, the daily challenge, the hub and the
scheduler without a websocket.

The settings are the app's, but for what a test of the service does not want unless it
says so: a spectator delay, the solver's line and the coach's analysis of every race over (in
worker processes, still at work when the test is over, on a store it has closed), the
allowances of new rooms and new daily players, and the person's pace of a ranked daily
result (a test plays its moves at one instant of its clock)::

    parts = wired(store, clock, countdown_seconds=0)
    (joined,) = await parts.service.handle(Session("c1"), p.Create(name="Ann"))
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from race.app import Parts, wire
from race.rooms.pace import ANY_PACE
from race.service import now_ms
from race.settings import Settings
from race.store import Store

FOR_TESTS: dict[str, Any] = {
    "spectator_delay": 0,
    "solver_node_limit": 0,
    "analysis_node_limit": 0,
    "rooms_per_minute_per_ip": 100_000,
    "daily_players_per_day_per_ip": None,
    "daily_pace": ANY_PACE,
}


def wired(
    store: Store, clock: Callable[[], int] = now_ms, *, executor: Executor | None = None, **settings: Any
) -> Parts:
    """The parts on ``store``, on ``clock``, with ``settings`` (a :class:`Settings`' fields)."""
    return wire(Settings(**{**FOR_TESTS, **settings}), store, clock=clock, executor=executor)
