"""The contract's store: every transport a URL can select (embedded, Redis over TCP, over a
unix socket, a Redis Cluster, and a primary that Redis Sentinel names)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from race.store import Store, open_store


@pytest.fixture(params=["memory", "redis", "unix", "cluster", "sentinel"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    urls: dict[str, Callable[[], str]] = {"memory": lambda: "memory://"}
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
