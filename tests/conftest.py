from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from race.store import Store, open_store
from tests.support import RedisCluster, RedisServer, Server
from tests.web_helpers import CHROMIUM, CHROMIUM_ARGS, Browsing


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis: REDIS_URL when given, else a throwaway redis-server on a free port."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server = RedisServer()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A connected store, once embedded and once on the real Redis (``test_store.py`` adds a
    Redis Cluster with its own fixture)."""
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


# The browser tests: each module defines its own ``server``; these run one headless Chromium
# per module and give each test its tabs (screenshots of every open tab when it fails).


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def browsing(browser: Browser, server: Server, request: pytest.FixtureRequest) -> Iterator[Browsing]:
    failed_before = request.session.testsfailed
    tabs = Browsing(browser, server.url, request.node.name)
    yield tabs
    tabs.close(failed=request.session.testsfailed > failed_before)
