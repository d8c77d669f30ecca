"""Human pace: whether a person could have played a game at the pace the server timed it.

A daily result is ranked only when its game keeps three rules, each about the server's own
times of the player's actions (ms from the first action, as kept on the record):

- **median**: the median time between two actions is at least ``median_ms``. A person reads
  the board, chooses and aims before each tap; a script does not.
- **run**: no ``run`` actions in a row take less than ``run_ms`` together. A person can tap
  fast for a few moves (cards going home one after another), not for long.
- **floor**: a win takes at least the difficulty's ``floor_ms``.

A game that breaks a rule is *unverified*: it keeps its time and its replay, and is shown
with the reason (:class:`Unverified`: the rule broken and its numbers, which a client
says in its reader's language; :func:`reason` says it in English), but never ranked. Pure:
no clock, no I/O. The figures the defaults come
from are in ``docs/daily.md``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Literal

import msgspec

DEFAULT_FLOORS: Mapping[str, int] = {"easy": 40_000, "medium": 45_000, "hard": 50_000}


@dataclass(frozen=True)
class Pace:
    """The thresholds of human pace (0 turns a rule off)."""

    median_ms: int = 250
    run: int = 10
    run_ms: int = 1_500
    floor_ms: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_FLOORS))

    def __post_init__(self) -> None:
        if self.median_ms < 0 or self.run_ms < 0 or any(v < 0 for v in self.floor_ms.values()):
            raise ValueError("pace thresholds must not be negative")
        if self.run < 2:
            raise ValueError(f"a run is at least 2 actions, got {self.run}")


#: No rule at all: every result is ranked.
ANY_PACE = Pace(median_ms=0, run=2, run_ms=0, floor_ms={})


def gaps(times: Sequence[int]) -> list[int]:
    """The time between each action and the next."""
    return [b - a for a, b in itertools.pairwise(times)]


def fastest_run(times: Sequence[int], run: int) -> int | None:
    """The least time any ``run`` actions in a row took (from the first's time to the
    last's), or None when the game has fewer actions."""
    spans = [times[i + run - 1] - times[i] for i in range(len(times) - run + 1)]
    return min(spans) if spans else None


class Unverified(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Why a game was not played at a person's pace: the rule it broke (``code``), what was
    measured (``ms``) and the least a person takes (``min_ms``)."""

    #: ``median``: the median time between two actions; ``run``: ``run`` actions in a row
    #: took ``ms`` together; ``floor``: the game was won in ``ms`` on ``difficulty``.
    code: Literal["median", "run", "floor"]
    ms: int
    min_ms: int
    run: int | None = None
    difficulty: str | None = None


def unverified(times: Sequence[int], finished_ms: int | None, difficulty: str, pace: Pace) -> Unverified | None:
    """Why a game whose actions came at ``times`` (ms, ascending) and that was won in
    ``finished_ms`` was not played at a person's pace; None when it was."""
    between = gaps(times)
    if pace.median_ms and between and median(between) < pace.median_ms:
        # Rounded down (a median can be half a ms), so it is still under the threshold.
        return Unverified(code="median", ms=math.floor(median(between)), min_ms=pace.median_ms)
    span = fastest_run(times, pace.run)
    if pace.run_ms and span is not None and span < pace.run_ms:
        return Unverified(code="run", ms=span, min_ms=pace.run_ms, run=pace.run)
    floor = pace.floor_ms.get(difficulty, 0)
    if floor and finished_ms is not None and finished_ms < floor:
        return Unverified(code="floor", ms=finished_ms, min_ms=floor, difficulty=difficulty)
    return None


def reason(why: Unverified) -> str:
    """``why`` in English, for logs and API readers: "a median of 90 ms between moves (people
    take 250 ms or more)". A time in seconds is cut to tenths, never rounded up to the floor."""
    if why.code == "median":
        return f"a median of {why.ms} ms between moves (people take {why.min_ms} ms or more)"
    if why.code == "run":
        return f"{why.run} moves in {why.ms} ms (people take {why.min_ms} ms or more)"
    return f"won in {why.ms // 100 / 10:.1f} s (people take {why.min_ms / 1000:g} s or more on {why.difficulty})"


def parse_floors(text: str) -> dict[str, int]:
    """``easy=40,medium=45,hard=50`` (seconds) as ms per difficulty."""
    floors: dict[str, int] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"DAILY_PACE_FLOOR_SECONDS must read like easy=40,medium=45,hard=50, got {text!r}")
        try:
            floors[name.strip()] = int(float(value) * 1000)
        except ValueError:
            raise ValueError(f"DAILY_PACE_FLOOR_SECONDS: not a number of seconds: {value!r}") from None
    return floors
