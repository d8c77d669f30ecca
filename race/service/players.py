"""Daily players: a player's profile (public id, name, streak), where it is kept, the group of
a day's board, and whether a player is ranked on it. Shared by the daily challenge and by
the service, which lets a player ranked on a day race that day's games as ghosts."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

import msgspec

from race.rooms.model import token_key
from race.store import Documents, Leaderboards


def board_group(date: str, difficulty: str) -> str:
    """The store group (one hash tag) of a day's deal, leaderboard and its channel."""
    return f"daily:{date}:{difficulty}"


def profile_group(token: str) -> str:
    """The store group of the daily player whose secret token is ``token``."""
    return "player:" + token_key(token)[2:]


class Profile(msgspec.Struct, kw_only=True):
    """A daily player: a public id, a display name and a streak of finished days: the run of
    ``streak`` consecutive days ending at ``last_date``. ``runs`` keeps the latest runs of
    finished days (first and last day of each), so that a day finished late (an attempt
    started before midnight, won after the next day's) still joins its neighbours."""

    id: str
    name: str
    streak: int = 0
    last_date: str | None = None
    runs: list[tuple[str, str]] = msgspec.field(default_factory=list)


KEPT_RUNS = 8  # far more than a late day can reach back


def add_finished_day(profile: Profile, date: str) -> None:
    """Count ``date`` as finished, in whatever order days are finished.

    >>> p = Profile(id="a", name="Ann")
    >>> for day in ("2026-03-08", "2026-03-10", "2026-03-09"):
    ...     add_finished_day(p, day)
    >>> p.streak, p.last_date, p.runs
    (3, '2026-03-10', [('2026-03-08', '2026-03-10')])
    >>> add_finished_day(p, "2026-03-12")  # a day missed: a new run
    >>> p.streak
    1
    >>> add_finished_day(p, "2026-03-11")  # ... unless it is finished late
    >>> p.streak, len(p.runs)
    (5, 1)
    """
    runs = list(profile.runs)
    if not runs and profile.last_date is not None and profile.streak > 0:  # a profile from before runs
        runs = [(_days_after(profile.last_date, 1 - profile.streak), profile.last_date)]
    merged: list[tuple[str, str]] = []
    for first, last in sorted([*runs, (date, date)]):
        if merged and _days_after(merged[-1][1], 1) >= first:  # touching or overlapping
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    profile.runs = merged[-KEPT_RUNS:]
    first, last = profile.runs[-1]
    profile.last_date = last
    profile.streak = (dt.date.fromisoformat(last) - dt.date.fromisoformat(first)).days + 1


def counted(profile: Profile, date: str) -> bool:
    """Whether ``date`` is already one of the profile's finished days."""
    return profile.last_date == date or any(first <= date <= last for first, last in profile.runs)


def _days_after(date: str, n: int) -> str:
    return (dt.date.fromisoformat(date) + dt.timedelta(days=n)).isoformat()


_PROFILE = msgspec.json.Decoder(Profile)


class PlayerStore(Documents, Leaderboards, Protocol):
    """What looking a player up works with."""


async def ranked_on(store: PlayerStore, token: str | None, date: str, difficulty: str) -> bool:
    """Whether the daily player of ``token`` has a result on the board of ``date``."""
    if not token:
        return False
    (doc,) = await store.read(profile_group(token), ["profile"])
    if doc is None:
        return False
    player = _PROFILE.decode(doc.data).id
    return await store.board_rank(board_group(date, difficulty), player) is not None
