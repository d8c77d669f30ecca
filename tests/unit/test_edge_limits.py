"""The rate limit and the per-address cap, on a clock the test moves."""

from __future__ import annotations

from race.edge.limits import Addresses, MessageLimit, SeatBuckets, TokenBucket, Verdict


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_takes_a_burst_then_refills_at_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=2, burst=3, clock=clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.now += 0.5  # one token back at 2 a second
    assert [bucket.take(), bucket.take()] == [True, False]
    clock.now += 60  # never more than the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_a_flood_is_refused_then_cut_off_after_four_bursts_worth() -> None:
    limit = MessageLimit(rate=1, burst=2, seats=SeatBuckets(Clock()))
    verdicts = [limit.take() for _ in range(2 + 4 * 2 + 1)]
    assert verdicts[:2] == [Verdict.TAKEN] * 2
    assert verdicts[2:10] == [Verdict.REFUSED] * 8
    assert verdicts[10] is Verdict.CUT_OFF


def test_a_message_taken_again_forgives_the_refusals_before_it() -> None:
    clock = Clock()
    limit = MessageLimit(rate=1, burst=1, seats=SeatBuckets(clock))
    assert [limit.take() for _ in range(4)] == [Verdict.TAKEN] + [Verdict.REFUSED] * 3
    clock.now += 1
    assert limit.take() is Verdict.TAKEN
    assert [limit.take() for _ in range(4)] == [Verdict.REFUSED] * 4  # counted from zero again


def test_reconnecting_to_a_seat_keeps_its_bucket_until_it_has_filled_up() -> None:
    clock = Clock()
    seats = SeatBuckets(clock)
    first = MessageLimit(rate=1, burst=2, seats=seats)
    first.seated("ROOM", "s1")
    assert [first.take(), first.take()] == [Verdict.TAKEN, Verdict.TAKEN]
    again = MessageLimit(rate=1, burst=2, seats=seats)  # a new connection resumes the seat
    again.seated("ROOM", "s1")
    assert again.take() is Verdict.REFUSED  # the seat's bucket is empty: no way round it
    other = MessageLimit(rate=1, burst=2, seats=seats)
    other.seated("ROOM", "s2")
    assert other.take() is Verdict.TAKEN  # another seat has its own
    clock.now += 2  # filled up again: forgotten, a fresh bucket is as good
    later = MessageLimit(rate=1, burst=2, seats=seats)
    later.seated("ROOM", "s3")  # (any seating sweeps the full buckets)
    fresh = MessageLimit(rate=1, burst=2, seats=seats)
    fresh.seated("ROOM", "s1")
    assert fresh.bucket is not first.bucket
    assert [fresh.take(), fresh.take()] == [Verdict.TAKEN, Verdict.TAKEN]


def test_an_address_holds_at_most_its_share_of_connections() -> None:
    addresses = Addresses(most=2)
    assert [addresses.admit("1.2.3.4") for _ in range(3)] == [True, True, False]
    assert addresses.admit("5.6.7.8")  # another address is counted apart
    addresses.release("1.2.3.4")
    assert addresses.admit("1.2.3.4")
    for _ in range(2):
        addresses.release("1.2.3.4")
    addresses.release("5.6.7.8")
    assert addresses._open == {}  # nothing kept for addresses with nothing open
