"""The contract's store: every backend and transport a URL can select (the memory store, the
SQLite store in a throwaway file, Redis over TCP, over a unix socket, a Redis Cluster, and a
primary that Redis Sentinel names)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from race.store import Store, open_store


@pytest.fixture(params=["memory", "sqlite", "redis", "unix", "cluster", "sentinel"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    urls: dict[str, Callable[[], str]] = {
        "memory": lambda: "memory://",
        "sqlite": lambda: f"sqlite://{tmp_path}/race.db",
    }
    urls["redis"] = lambda: request.getfixturevalue("redis_url")
    urls["unix"] = lambda: request.getfixturevalue("redis_unix_url")
    urls["cluster"] = lambda: request.getfixturevalue("redis_cluster_url")
    urls["sentinel"] = lambda: request.getfixturevalue("redis_sentinel_url")
    url = urls[request.param]()
    s = open_store(url, ttl=3600)
    await s.connect()
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture(params=["memory", "sqlite"])
def embedded_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of each embedded store: in memory, and in a throwaway SQLite file."""
    return "memory://" if request.param == "memory" else f"sqlite://{tmp_path}/race.db"
