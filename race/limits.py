"""The rate limit of a client's messages: a token bucket per connection, kept per seat so
that reconnecting is no way round it."""

from __future__ import annotations

import time


class TokenBucket:
    """``rate`` messages a second on average, bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def full(self, now: float) -> bool:
        """Whether it has filled up again by ``now`` (then it is as good as a fresh one)."""
        return self.tokens + (now - self.stamp) * self.rate >= self.burst

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class SeatBuckets:
    """The rate limit's buckets of the seats this process's connections have held. A
    connection just seated (created, joined, resumed) takes its seat's bucket when there is
    one, so a seat taken over by a new connection keeps its count, whether the old one is
    still open or not: reconnecting is no way round the limit. A bucket that has filled up
    again is as good as a fresh one, and is forgotten (after ``burst / rate`` seconds)."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], TokenBucket] = {}

    def take_over(self, room: str, seat: str, bucket: TokenBucket) -> TokenBucket:
        now = time.monotonic()
        for key in [key for key, kept in self._kept.items() if kept.full(now)]:
            del self._kept[key]
        return self._kept.setdefault((room, seat), bucket)
