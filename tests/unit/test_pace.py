"""The rules of a person's pace, on both sides of each threshold, and the reason a game
breaks one: the rule and its numbers, and the same in English."""

from __future__ import annotations

import itertools

import msgspec
import pytest

from race.rooms.pace import (
    ANY_PACE,
    DEFAULT_FLOORS,
    Pace,
    Unverified,
    fastest_run,
    gaps,
    parse_floors,
    reason,
    unverified,
)

PACE = Pace(median_ms=250, run=10, run_ms=1_500, floor_ms={"easy": 40_000})


def at(between: list[int]) -> list[int]:
    """Action times (from 0) for the given gaps."""
    return [0, *itertools.accumulate(between)]


def test_gaps_and_the_fastest_run() -> None:
    times = at([100, 200, 300, 50])
    assert gaps(times) == [100, 200, 300, 50]
    assert fastest_run(times, 2) == 50 and fastest_run(times, 5) == 650 and fastest_run(times, 6) is None


def test_the_median_between_moves() -> None:
    steady = [260] * 150  # a bot keeping just above the threshold, and slow runs
    assert unverified(at(steady), 60_000, "easy", Pace(median_ms=250, run_ms=0, floor_ms={})) is None
    fast = [240] * 150
    why = unverified(at(fast), 60_000, "easy", Pace(median_ms=250, run_ms=0, floor_ms={}))
    assert why == Unverified(code="median", ms=240, min_ms=250)
    assert reason(why) == "a median of 240 ms between moves (people take 250 ms or more)"
    # A median half a ms under the threshold is said rounded down: still under it.
    halves = [249] * 75 + [250] * 75
    why = unverified(at(halves), 60_000, "easy", Pace(median_ms=250, run_ms=0, floor_ms={}))
    assert why == Unverified(code="median", ms=249, min_ms=250)


def test_a_sustained_run_of_fast_moves() -> None:
    rules = Pace(median_ms=0, run=10, run_ms=1_500, floor_ms={})
    slow = [1_000] * 60
    burst = slow[:30] + [166] * 9 + slow[30:]  # 10 actions in 1494 ms, in a slow game
    why = unverified(at(burst), 90_000, "easy", rules)
    assert why == Unverified(code="run", ms=1494, min_ms=1_500, run=10)
    assert reason(why) == "10 moves in 1494 ms (people take 1500 ms or more)"
    short = slow[:30] + [167] * 9 + slow[30:]  # 1503 ms: a person's flurry
    assert unverified(at(short), 90_000, "easy", rules) is None


def test_a_finish_faster_than_the_floor() -> None:
    rules = Pace(median_ms=0, run_ms=0, floor_ms={"easy": 40_000})
    why = unverified(at([300] * 120), 39_999, "easy", rules)
    assert why == Unverified(code="floor", ms=39_999, min_ms=40_000, difficulty="easy")
    # Cut to tenths, not rounded up to the floor it is under.
    assert reason(why) == "won in 39.9 s (people take 40 s or more on easy)"
    assert unverified(at([300] * 120), 40_000, "easy", rules) is None
    assert unverified(at([300] * 120), 1_000, "hard", rules) is None  # no floor for hard here


def test_a_human_paced_game_keeps_every_rule() -> None:
    # Quick taps when cards go home in a row, longer looks before a plan: 125 actions, 3:10.
    human = ([450, 380, 520, 900, 2_400] * 25)[:-1]
    assert unverified(at(human), sum(human), "easy", PACE) is None
    assert unverified(at(human), sum(human), "easy", Pace()) is None  # and the defaults


def test_bots_break_them() -> None:
    # At the rate limit (20 a second after a burst of 40): every rule.
    limit = [0] * 39 + [50] * 80
    assert unverified(at(limit), sum(limit), "easy", PACE) is not None
    # A solver's line played at a steady 300 ms: a median a person could keep, but not
    # for 116 moves with no pause: the floor.
    steady = [300] * 115
    why = unverified(at(steady), sum(steady), "easy", PACE)
    assert why is not None and why.code == "floor" and why.ms == 34_500
    assert reason(why) == "won in 34.5 s (people take 40 s or more on easy)"


def test_the_reason_as_kept_and_sent() -> None:
    # The rule and its numbers only: a field a rule has not is left out.
    median = Unverified(code="median", ms=90, min_ms=250)
    assert msgspec.to_builtins(median) == {"code": "median", "ms": 90, "min_ms": 250}
    run = Unverified(code="run", ms=1494, min_ms=1_500, run=10)
    assert msgspec.json.decode(msgspec.json.encode(run), type=Unverified) == run


def test_no_rules_and_the_settings_text() -> None:
    assert unverified(at([0] * 100), 0, "easy", ANY_PACE) is None
    assert parse_floors("easy=40, medium=45.5,hard=50") == {"easy": 40_000, "medium": 45_500, "hard": 50_000}
    assert Pace().floor_ms == DEFAULT_FLOORS
    with pytest.raises(ValueError, match="easy=40"):
        parse_floors("40")
    with pytest.raises(ValueError, match="not a number"):
        parse_floors("easy=fast")
    with pytest.raises(ValueError):
        Pace(run=1)
