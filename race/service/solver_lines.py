"""The solver's line for a race's deal, found off the request path: once a race is over its
deal is handed to a worker process with a node budget, and the length of the line found (or
that none was found within it) is kept in the store for every server process to read. The
record's reads show it as "solver: N moves" beside the results."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool

from race.engine import Game
from race.service.workers import stop_pool, worker_pool
from race.solver import solve
from race.store import Documents, StoreUnavailable

log = logging.getLogger(__name__)
GROUP = "solver-lines"  # the store group of the lengths found
KEPT_S = 30 * 86400
NONE_FOUND = "-"


def line_length(deal: int | str, difficulty: str, node_limit: int) -> int | None:
    """The length of a winning line of the deal, or None when the search found none within
    ``node_limit`` nodes (it may be lost, or just hard). Runs in a worker process."""
    solution = solve(Game.deal(deal, difficulty), time_limit=None, node_limit=node_limit)
    return len(solution.moves) if solution.status == "won" else None


def _name(deal: int | str, difficulty: str) -> str:
    return f"{difficulty}:{deal}"


class SolverLines:
    """Lines looked for in one worker process (made when first needed), their lengths kept
    in ``store``. ``node_limit`` 0: none is looked for."""

    def __init__(self, store: Documents, *, node_limit: int, executor: Executor | None = None) -> None:
        self.store, self.node_limit = store, node_limit
        self._executor = executor
        self._working: dict[str, asyncio.Task[None]] = {}
        self._closed = False

    async def length(self, deal: int | str, difficulty: str) -> int | None:
        """The length found for the deal, or None (not looked for yet, or none found)."""
        (doc,) = await self.store.read(GROUP, [_name(deal, difficulty)])
        if doc is None or doc.data == NONE_FOUND:
            return None
        return int(doc.data)

    def look_for(self, deal: int | str, difficulty: str) -> None:
        """Look for the deal's line in the background, unless it is known or being looked for."""
        name = _name(deal, difficulty)
        if self.node_limit <= 0 or self._closed or name in self._working:
            return
        task = asyncio.get_running_loop().create_task(self._find(deal, difficulty, name))
        self._working[name] = task
        task.add_done_callback(lambda _: self._working.pop(name, None))

    async def _find(self, deal: int | str, difficulty: str, name: str) -> None:
        try:
            (doc,) = await self.store.read(GROUP, [name])
            if doc is not None:
                return
            pool = self._pool()
            found = await asyncio.get_running_loop().run_in_executor(
                pool, line_length, deal, difficulty, self.node_limit
            )
            text = NONE_FOUND if found is None else str(found)
            await self.store.commit(GROUP, expect={name: 0}, write={name: text}, ttl=KEPT_S)
        except BrokenProcessPool:
            if not self._closed:  # a worker that died (out of memory, say): a fresh one next time
                log.error("the solver's worker died looking for %s's line", name)
                self._executor = None
        except StoreUnavailable:
            log.warning("the solver's line for %s is not kept: the store is unavailable", name)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("looking for the solver's line for %s failed", name)

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = worker_pool()
        return self._executor

    def close(self) -> None:
        """Stop looking: the worker is stopped now rather than waited for."""
        self._closed = True
        for task in list(self._working.values()):
            task.cancel()
        if self._executor is not None:
            stop_pool(self._executor)
