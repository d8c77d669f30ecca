"""What one client may do: how many messages a second (a token bucket per connection, kept
per seat so that reconnecting is no way round it), and how many connections one address may
hold open at once."""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import Enum

Clock = Callable[[], float]  # seconds, monotonic


class TokenBucket:
    """``rate`` messages a second on average, bursts of up to ``burst`` (``clock``: the time
    it goes by)."""

    def __init__(self, rate: float, burst: int, clock: Clock = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = float(burst)
        self.stamp = clock()

    def full(self, now: float) -> bool:
        """Whether it has filled up again by ``now`` (then it is as good as a fresh one)."""
        return self.tokens + (now - self.stamp) * self.rate >= self.burst

    def take(self) -> bool:
        now = self.clock()
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

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self._kept: dict[tuple[str, str], TokenBucket] = {}

    def take_over(self, room: str, seat: str, bucket: TokenBucket) -> TokenBucket:
        now = self.clock()
        for key in [key for key, kept in self._kept.items() if kept.full(now)]:
            del self._kept[key]
        return self._kept.setdefault((room, seat), bucket)


class Verdict(Enum):
    """What the rate limit says of a client's message."""

    TAKEN = "taken"  # handle it
    REFUSED = "refused"  # ignore it, and tell the client to slow down
    CUT_OFF = "cut_off"  # close the connection: it goes on sending far too fast


class MessageLimit:
    """One connection's rate limit: its bucket (its seat's, once seated), and how many of
    its messages in a row were refused (more than four bursts' worth closes it)."""

    def __init__(self, rate: float, burst: int, seats: SeatBuckets) -> None:
        self.bucket, self.seats = TokenBucket(rate, burst, seats.clock), seats
        self.refused = 0

    def take(self) -> Verdict:
        if self.bucket.take():
            self.refused = 0
            return Verdict.TAKEN
        self.refused += 1
        return Verdict.CUT_OFF if self.refused > 4 * self.bucket.burst else Verdict.REFUSED

    def seated(self, room: str, seat: str) -> None:
        """The connection has just taken ``seat`` in ``room``: it counts on the seat's bucket."""
        self.bucket = self.seats.take_over(room, seat, self.bucket)


class Addresses:
    """How many connections each address has open, up to ``most``."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._open: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        """Count one more connection of ``address``; False (and not counted) when it has
        ``most`` open already."""
        if self._open.get(address, 0) >= self.most:
            return False
        self._open[address] = self._open.get(address, 0) + 1
        return True

    def release(self, address: str) -> None:
        """One connection of ``address`` has closed."""
        self._open[address] -= 1
        if not self._open[address]:
            del self._open[address]
