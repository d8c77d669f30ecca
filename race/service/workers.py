"""The server's worker processes for the solver (the daily deal's choice, a race's line):
made fresh rather than forked, and stopped at once when the server stops."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor


def worker_pool() -> Executor:
    """One worker process, a fresh interpreter: not a fork of the server with its event loop
    and sockets."""
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))


def stop_pool(pool: Executor) -> None:
    """Stop ``pool``'s workers now rather than wait out a search (a hard deal can take most
    of a minute), and reap them so that none is left behind, orphaned."""
    workers = list(getattr(pool, "_processes", {}).values())
    for worker in workers:
        worker.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
    for worker in workers:
        worker.join(timeout=5)
