from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support import RedisServer


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
