from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support import RedisCluster, RedisServer


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
