"""The day's deal: chosen by the solver in a worker process, once, and kept in the store.

The candidates for a date and difficulty are text seeds ``daily:DATE:DIFFICULTY:MAC``, the
MAC an HMAC of ``DATE:DIFFICULTY:k`` (k = 0, 1, ...) under the daily secret; the deal is the
first candidate the solver proves winnable within a fixed node budget, so every process
that knows the secret makes the same choice. Without the secret no one can tell a future
day's deal (the seeds were once ``...:k`` themselves, and anyone could deal and solve
tomorrow's challenge today). The secret is ``DAILY_SECRET`` when set, else one made at
random and kept in the store, shared by every process on it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import msgspec

from race.engine import Game
from race.rooms.errors import Refused
from race.service.players import board_group
from race.service.workers import stop_pool, worker_pool
from race.store import DailyStore

log = logging.getLogger(__name__)
CANDIDATES = 64
#: Where the store keeps the secret made when ``DAILY_SECRET`` is not set (for ten years).
SECRET_GROUP, SECRET_TTL = "daily-secret", 10 * 365 * 86400


def candidate_seed(date: str, difficulty: str, k: int, secret: str) -> str:
    mac = hmac.new(secret.encode(), f"{date}:{difficulty}:{k}".encode(), hashlib.sha256).hexdigest()[:16]
    return f"daily:{date}:{difficulty}:{mac}"


def choose_deal(date: str, difficulty: str, node_limit: int, secret: str) -> tuple[str, list[str]]:
    """The first candidate the solver proves winnable, with its winning line. Pure and
    deterministic (a node budget, no time limit); CPU-heavy, so run it off the event loop."""
    from race.solver import solve

    for k in range(CANDIDATES):
        seed = candidate_seed(date, difficulty, k, secret)
        solution = solve(Game.deal(seed, difficulty), time_limit=None, node_limit=node_limit)
        if solution.status == "won":
            return seed, list(solution.moves)
    raise RuntimeError(f"no winnable daily deal for {date} {difficulty} in {CANDIDATES} candidates")


def day_before(date: str) -> str:
    return (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat()


def next_day(date: str) -> str:
    return (dt.date.fromisoformat(date) + dt.timedelta(days=1)).isoformat()


class DailyDeals:
    """Each day's ``{"seed", "line"}``: read from the store, or chosen once (by one worker
    process, however many players ask at once) and stored for ``ttl(date)`` seconds."""

    def __init__(
        self,
        store: DailyStore,
        *,
        node_limit: int,
        ttl: Callable[[str], int],
        secret: str | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.store, self.node_limit, self.ttl = store, node_limit, ttl
        self._secret = secret
        self._executor = executor
        self._closed = False
        self._computing: dict[str, asyncio.Future[tuple[str, list[str]]]] = {}

    async def secret(self) -> str:
        """The daily secret: the configured one, else the store's (made by the first process
        that needs it)."""
        if self._secret:
            return self._secret
        (doc,) = await self.store.read(SECRET_GROUP, ["secret"])
        if doc is None:
            made = secrets.token_hex(32)
            await self.store.commit(SECRET_GROUP, expect={"secret": 0}, write={"secret": made}, ttl=SECRET_TTL)
            (doc,) = await self.store.read(SECRET_GROUP, ["secret"])  # the first write stands
            assert doc is not None
        self._secret = doc.data
        return doc.data

    async def deal(self, date: str, difficulty: str) -> dict[str, Any]:
        group = board_group(date, difficulty)
        (doc,) = await self.store.read(group, ["deal"])
        if doc is not None:
            return msgspec.json.decode(doc.data, type=dict[str, Any])
        future = self._computing.get(group)
        if future is None:
            future = self._computing[group] = asyncio.ensure_future(self._choose(date, difficulty))

            def done(f: asyncio.Future[tuple[str, list[str]]]) -> None:
                self._computing.pop(group, None)
                if not f.cancelled():
                    f.exception()  # its callers have it (or all went away): not "never retrieved"

            future.add_done_callback(done)
        seed, line = await asyncio.shield(future)  # a caller that goes away leaves it to the others
        data = msgspec.json.encode({"seed": seed, "line": line}).decode()
        # Several processes may compute at once; they agree, and the first write stands.
        await self.store.commit(group, expect={"deal": 0}, write={"deal": data}, ttl=self.ttl(date))
        (doc,) = await self.store.read(group, ["deal"])
        assert doc is not None
        return msgspec.json.decode(doc.data, type=dict[str, Any])

    async def _choose(self, date: str, difficulty: str) -> tuple[str, list[str]]:
        """Run the solver in the worker process. A worker that dies (the system killed it for
        its memory, say) breaks its pool for good, so the pool is replaced and the day's
        choice asked of a fresh worker once more before the player is told to come back."""
        secret = await self.secret()
        for _ in range(2):
            pool = self._pool()
            try:
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(pool, choose_deal, date, difficulty, self.node_limit, secret)
            except BrokenProcessPool:
                if self._closed:
                    raise  # the server is stopping, and stopped the worker: no other is started
                log.error("the daily solver's worker process died choosing %s %s; starting another", date, difficulty)
                if self._executor is pool:
                    self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
        raise Refused("unavailable", "today's deal could not be prepared just now; try again in a minute")

    def _pool(self) -> Executor:
        if self._closed:
            raise Refused("unavailable", "the server is stopping; try again in a moment")
        if self._executor is None:
            self._executor = worker_pool()
        return self._executor

    def close(self) -> None:
        self._closed = True
        for choosing in list(self._computing.values()):
            choosing.cancel()
        if self._executor is not None:
            stop_pool(self._executor)
