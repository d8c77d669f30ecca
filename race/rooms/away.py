"""Who may act for whom while someone is away: the pure rules behind a room's ``presence``
(its ``end_from`` and ``host_from``) and the refusals of ``end``, ``start`` and ``remove``.
A player is away once no connection of theirs has been open for ``away_ms`` (a reload or a
dropped connection is not away); ``here`` are the seats with a connection open, ``since``
when each of the others went (server milliseconds).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from race.rooms.model import Seat, is_done


def _until(racing: Sequence[str], here: set[str], since: dict[str, int], away_ms: int) -> list[float]:
    """For each seat of ``racing``, until when it counts as here: for ever while a connection
    of theirs is open, else ``away_ms`` after they went (a reload, a dropped connection)."""
    return [math.inf if sid in here else since.get(sid, 0) + away_ms for sid in racing]


def end_from(seat: str, racing: Sequence[str], here: set[str], since: dict[str, int], away_ms: int) -> int | None:
    """The server time from which player ``seat`` may end the race alone: once every other
    seat still ``racing`` is away, that is, has had no connection open for ``away_ms``; 0
    when no other seat is racing; ``None`` while another is here. The host is no one
    special: nobody ends a race while a rival plays (they may vote: :func:`vote_carries`).

    >>> end_from("s9", ["s1", "s2", "s3"], set(), {"s1": 5000, "s2": 1000, "s3": 4000}, 15000)
    20000
    >>> end_from("s1", ["s1", "s2"], {"s1"}, {"s2": 1000}, 15000), end_from("s2", ["s1", "s2"], {"s1"}, {}, 15000)
    (16000, None)
    >>> end_from("s1", ["s1"], {"s1"}, {}, 15000)
    0
    """
    until = _until([sid for sid in racing if sid != seat], here, since, away_ms)
    if not until:
        return 0
    last = max(until)
    return None if last == math.inf else int(last)


def ends_from(
    seats: Sequence[str], racing: Sequence[str], here: set[str], since: dict[str, int], away_ms: int
) -> dict[str, int | None]:
    """:func:`end_from` for each of ``seats``."""
    return {sid: end_from(sid, racing, here, since, away_ms) for sid in seats}


def still_here(racing: Sequence[str], here: set[str], since: dict[str, int], away_ms: int, now: int) -> list[str]:
    """The seats of ``racing`` that count as here at ``now``: a connection open, or gone
    less than ``away_ms`` ago.

    >>> still_here(["s1", "s2", "s3"], {"s1"}, {"s2": 1000, "s3": 9000}, 15000, 20000)
    ['s1', 's3']
    """
    return [sid for sid, until in zip(racing, _until(racing, here, since, away_ms), strict=True) if until > now]


def vote_carries(seats: Sequence[Seat], present: Sequence[str]) -> bool:
    """Whether the vote to end the race carries: every player still racing who counts as
    here (``present``: :func:`still_here`) asks to end it, and at least one does."""
    racing = [s for s in seats if not is_done(s) and s.seat in present]
    return bool(racing) and all(s.end_vote for s in racing)


def host_from(host: str, here: set[str], since: dict[str, int], away_ms: int) -> int | None:
    """The server time from which a player here may act as the lobby's host (start the race,
    remove a player) and so becomes host: once ``host`` has been away ``away_ms``; ``None``
    while the host is here.

    >>> host_from("s1", {"s1", "s2"}, {}, 15000), host_from("s1", {"s2"}, {"s1": 4000}, 15000)
    (None, 19000)
    """
    return None if host in here else since.get(host, 0) + away_ms
