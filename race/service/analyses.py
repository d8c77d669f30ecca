"""Each game on the record analysed by the solver (:mod:`race.solver.coach`): where it could
still be won, where it was lost, and the move that lost it. Computed off the request path, in a
worker process of its own, once a game is over (a daily deal's once its day is over, as its
replay), within a node budget per game; kept with the record in the store, once for every
server process: a process claims a game's analysis in the store before it computes it, and the
claim lapses (after :data:`LEASE_S`) if that process dies on the way.

What is kept is one JSON text: ``{"status": "computing"}`` while claimed, then ``{"status":
"done", "won", "steps", "slip", "solver_moves", "decided", "nodes", "searches", "cpu_ms"}`` (see
:meth:`race.solver.coach.Analysis.as_dict`), or ``{"status": "failed"}`` for a game the worker
could not analyse (never retried).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

import msgspec

from race.engine import Game
from race.rooms.record import Record, decode, kept_back, steps
from race.rooms.replays import move_parts
from race.service.workers import stop_pool, worker_pool
from race.solver.coach import Limits, analyse, expand, shortened
from race.store import Records, StoreUnavailable

log = logging.getLogger(__name__)
COMPUTING = '{"status":"computing"}'
FAILED = '{"status":"failed"}'
#: How long a claim holds: past it another process (or this one) may compute the game again.
LEASE_S = 1800
#: The most games one process queues for its worker; more wait for their next read.
QUEUED = 200
#: Analyses kept decoded in this process, the most read first.
CACHED = 256


class _Status(msgspec.Struct):
    status: str = ""


def finished(data: str) -> bool:
    """Whether a kept analysis is finished (done, or failed: never computed again), rather
    than a process's claim on it (what ``python -m race export`` carries)."""
    try:
        return msgspec.json.decode(data, type=_Status).status in ("done", "failed")
    except msgspec.DecodeError:
        return False


class AnalysisStore(Records, Protocol):
    """What the analyses are kept in."""


def analysis_of(data: str, limits: Limits) -> str:
    """The analysis of the record ``data`` as it is kept. Runs in a worker process."""
    record = decode(data)
    started = time.process_time()
    analysis = analyse(Game.deal(record.deal, record.difficulty), record.acts, limits)
    cpu_ms = int((time.process_time() - started) * 1000)
    view = {"status": "done", **analysis.as_dict(), "cpu_ms": cpu_ms}
    if view["slip"] is not None:
        view["slip"] = {**view["slip"], **slip_words(record, view["steps"], view["slip"]["step"])}
    return msgspec.json.encode(view).decode()


def slip_words(record: Record, stored: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """The slip's move (``played``) and the solver's first move from there (``better``) as
    :func:`race.rooms.replays.move_parts` says them, for the words of a summary."""
    game = Game.deal(record.deal, record.difficulty)
    for step in steps(record):
        if step.number > k:
            break
        game = step.game.copy()
    line = shortened(game, expand(stored, k))
    out: dict[str, Any] = {"played": move_parts(game, record.acts[k])}
    if line:
        out["better"] = move_parts(game, line[0])
    return out


class Analyses:
    """The games' analyses: asked for (:meth:`look_at`) when a game goes on the record or is
    read without one, computed one at a time in one worker process (made when first needed).
    ``limits.game`` 0: none is computed."""

    def __init__(
        self,
        store: AnalysisStore,
        *,
        limits: Limits,
        today: Callable[[], str],
        executor: Executor | None = None,
    ) -> None:
        self.store, self.limits, self.today = store, limits, today
        self._executor = executor
        self._working: dict[str, asyncio.Task[None]] = {}
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._closed = False

    async def read(self, rid: str, record: Record) -> dict[str, Any]:
        """The game's analysis: ``{"status": "done", ...}``, else ``{"status": "computing"}``
        (asked for now, if it was not), ``{"status": "waiting"}`` for a daily game whose day
        is not over, or ``{"status": "off"}`` on a server that computes none."""
        if (done := self._cache.get(rid)) is not None:
            self._cache.move_to_end(rid)
            return done
        data = await self.store.analysis_get(rid)
        kept = msgspec.json.decode(data, type=dict[str, Any]) if data else None
        if kept is not None and kept.get("status") in ("done", "failed"):
            self._cache[rid] = kept
            if len(self._cache) > CACHED:
                self._cache.popitem(last=False)
            return kept
        if self.limits.game <= 0 or record.start is not None:  # (a practice game: not analysed)
            return {"status": "off"}
        if kept_back(record, self.today()):
            return {"status": "waiting"}
        if kept is None:
            self.look_at(record)
        return {"status": "computing"}

    def look_at(self, record: Record) -> None:
        """Compute the game's analysis in the background, unless it is being computed, kept,
        or (a daily deal's) kept back until its day is over."""
        rid = record.id
        if record.start is not None:
            return  # a practice game: its start is not the deal the coach replays from
        if self.limits.game <= 0 or self._closed or rid in self._working or len(self._working) >= QUEUED:
            return
        if kept_back(record, self.today()):
            return
        task = asyncio.get_running_loop().create_task(self._compute(record))
        self._working[rid] = task
        task.add_done_callback(lambda _: self._working.pop(rid, None))

    async def _compute(self, record: Record) -> None:
        rid = record.id
        try:
            if not await self.store.analysis_put(rid, COMPUTING, fresh=True, ttl=LEASE_S):
                return  # kept already, claimed by a process at work on it, or no longer on the record
            data = await self.store.record_get(rid)
            if data is None:
                return
            try:
                result = await asyncio.get_running_loop().run_in_executor(self._pool(), analysis_of, data, self.limits)
            except (BrokenProcessPool, asyncio.CancelledError):
                raise
            except Exception:
                log.exception("the analysis of game %s failed", rid)
                result = FAILED
            await self.store.analysis_put(rid, result)
        except BrokenProcessPool:
            if not self._closed:  # a worker that died (out of memory, say): a fresh one next time
                log.error("the analyses' worker died on game %s", rid)
                self._executor = None
        except StoreUnavailable:
            log.warning("the analysis of game %s is not kept: the store is unavailable", rid)

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = worker_pool()
        return self._executor

    async def idle(self) -> None:
        """Wait until every analysis asked for is done (for tests and a clean stop)."""
        while self._working:
            await asyncio.gather(*self._working.values(), return_exceptions=True)

    def close(self) -> None:
        """Stop computing: the worker is stopped now rather than waited for."""
        self._closed = True
        for task in list(self._working.values()):
            task.cancel()
        if self._executor is not None:
            stop_pool(self._executor)
