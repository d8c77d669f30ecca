"""Fixtures every folder shares: a real Redis, a real Redis Cluster, a primary under real Redis
Sentinels, and a connected store."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from race.store import Store, open_store
from tests.support.clusters import RedisCluster, RedisSentinels
from tests.support.processes import RedisServer


@pytest.fixture(scope="session")
def redis_server() -> Iterator[tuple[str, str | None]]:
    """A real Redis: REDIS_URL when given, else a throwaway redis-server on a free port that
    also listens on a unix socket. Its ``redis://`` URL, and its ``unix://`` one (if any)."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"], None
        return
    directory = tempfile.mkdtemp(prefix="race-redis-")
    sock = os.path.join(directory, "redis.sock")
    server = RedisServer("--appendonly", "no", "--unixsocket", sock, "--unixsocketperm", "700", directory=directory)
    try:
        yield server.url, f"unix://{sock}?db=1"
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_url(redis_server: tuple[str, str | None]) -> str:
    """A real Redis, over TCP."""
    return redis_server[0]


@pytest.fixture
async def empty_redis_url(redis_server: tuple[str, str | None]) -> str:
    """The same Redis on a database of its own, emptied first: for a test that counts what is
    there (today's daily board), which other tests, or its own earlier try, may have filled."""
    url = redis_server[0].rsplit("/", 1)[0] + "/3"
    r = aioredis.Redis.from_url(url)
    try:
        await r.flushdb()
    finally:
        await r.aclose()
    return url


@pytest.fixture(scope="session")
def redis_unix_url(redis_server: tuple[str, str | None]) -> str:
    """The same Redis over its unix socket (``unix://``), on a database of its own: the
    store's plain redis-py path, which ``redis://`` never takes (it has a lean pipe)."""
    if redis_server[1] is None:
        pytest.skip("REDIS_URL is given: no unix socket of a Redis started here")
    return redis_server[1]


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A connected store, once embedded and once on the real Redis (``test_store.py`` adds
    Redis over a unix socket and a Redis Cluster with fixtures of its own)."""
    url = "memory://" if request.param == "memory" else request.getfixturevalue("redis_url")
    s = open_store(url, ttl=3600)
    await s.connect()
    yield s
    await s.close()


@pytest.fixture(scope="session")
def redis_cluster_url() -> Iterator[str]:
    """A real Redis Cluster of three masters: REDIS_CLUSTER_URL when given (a
    ``redis+cluster://host:port`` URL), else a throwaway one started here."""
    if os.environ.get("REDIS_CLUSTER_URL"):
        yield os.environ["REDIS_CLUSTER_URL"]
        return
    cluster = RedisCluster()
    try:
        yield cluster.url
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def redis_sentinel_url() -> Iterator[str]:
    """A Redis primary with a replica under three real Sentinels: REDIS_SENTINEL_URL when given
    (a ``redis+sentinel://`` URL), else a throwaway one started here."""
    if os.environ.get("REDIS_SENTINEL_URL"):
        yield os.environ["REDIS_SENTINEL_URL"]
        return
    sentinels = RedisSentinels(replicas=1, sentinels=3, down_after_ms=5000)
    try:
        yield sentinels.url
    finally:
        sentinels.stop()


# What each test needs, as markers, so that `-m "not browser"` or `-m redis` picks by need.
REDIS_FIXTURES = {"redis_server", "redis_url", "redis_unix_url"}
CLUSTER_FIXTURES = {"redis_cluster_url", "redis_sentinel_url"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by the real parts it needs: a store parameter of ``redis`` or ``unix``
    (or a Redis fixture) needs a redis-server, ``cluster`` or ``sentinel`` several; a test under
    ``tests/browser`` needs Chromium. (``slow`` is set by the modules themselves.)"""
    for item in items:
        spec = getattr(item, "callspec", None)
        params = {str(v) for v in spec.params.values()} if spec is not None else set()
        needs = set(getattr(item, "fixturenames", ()))
        if needs & REDIS_FIXTURES or params & {"redis", "unix"}:
            item.add_marker(pytest.mark.redis)
        if needs & CLUSTER_FIXTURES or params & {"cluster", "sentinel"}:
            item.add_marker(pytest.mark.cluster)
        if "browser" in item.path.parts:
            item.add_marker(pytest.mark.browser)


def pytest_report_header() -> str:
    """Which build of the engine and the solver the tests run: compiled (mypyc) or pure."""
    import race
    from race import native

    return f"race.engine and race.solver: {race.BUILD} build ({native.active()} modules imported)"
