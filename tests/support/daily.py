"""The daily challenge's tests in process: their difficulty, proof budget and secret, and a
clock the test sets."""

from __future__ import annotations

import datetime as dt
from typing import Final

DIFFICULTY: Final = "easy"
NODE_LIMIT = 200_000
SECRET = "tests"


def ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC).timestamp() * 1000)


class Clock:
    """A settable clock. The tests here run it on days in 2001: the Redis all tests share
    keeps their leaderboards for 30 days, and a test on the real clock (the server's) must
    never find them under its own today."""

    def __init__(self, at: str) -> None:
        self.now = ms(at)

    def __call__(self) -> int:
        return self.now
